"""solve / check-unique by dancing links (--method dlx), the compiled exact cover
(--method xcc) and SAT must give the oracle's answer; auto picks xcc for puzzles
using each piece at most once; Ctrl-C stops a dancing-links search that never
returns to Python."""

import itertools
import json
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_cli import run
from test_property import as_key, instances, oracle, oracle_checker

from tilesat import Instance, PieceRule, check_unique, load_instance, solve
from tilesat.engines.dlx import dlx_problem
from tilesat.errors import TilesatError
from tilesat.questions.solve import Interrupted, choose_search_method

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def check_unique_agrees_with_the_oracle(instance, methods):
    """Each method's check-unique verdict is the oracle's, with distinct tilings it accepts;
    (the oracle's tilings, its checker)."""
    truth = oracle(instance)
    expected = {0: "none", 1: "unique"}.get(len(truth), "multiple")
    accepts = oracle_checker(instance)
    for method in methods:
        result = check_unique(instance, method)
        assert result.verdict == expected, method
        assert all(accepts(as_key(t)) for t in result.tilings)
        assert len({as_key(t) for t in result.tilings}) == len(result.tilings)
    return truth, accepts


@settings(max_examples=80, deadline=None)
@given(instances())
def test_dlx_xcc_and_sat_agree_with_the_oracle(instance):
    methods = ["sat", "auto", "xcc"] + (["dlx"] if dlx_problem(instance) is None else [])
    truth, accepts = check_unique_agrees_with_the_oracle(instance, methods)
    for method in methods:
        found = solve(instance, method)
        assert found.verdict == ("none" if not truth else "solved")
        assert all(accepts(as_key(t)) for t in found.tilings)


def test_auto_picks_the_compiled_exact_cover_for_each_piece_once():
    pent = load_instance(INSTANCES / "pentomino-6x10.txt")
    lpanel = load_instance(INSTANCES / "lpanel-20x20.txt")
    assert choose_search_method(pent)[0] == "xcc"
    assert choose_search_method(pent, encoding="bitwise")[0] == "sat"  # asked for a SAT option
    assert choose_search_method(lpanel)[0] == "sat"  # L4 any number of times
    result = check_unique(pent)
    assert result.verdict == "multiple" and result.stats["method"] == "xcc" and result.stats["solver"] == "xcc"
    assert check_unique(pent, "sat").verdict == "multiple" and check_unique(pent, "dlx").verdict == "multiple"
    assert check_unique(lpanel).stats["method"] == "sat"
    two_or_three = Instance(lpanel.board, tuple(PieceRule(r.piece, r.orient, 2, 3) for r in lpanel.rules))
    with pytest.raises(TilesatError, match="exact cover expresses"):
        check_unique(two_or_three, "dlx")
    with pytest.raises(TilesatError, match="does not use a SAT solver"):
        check_unique(pent, "dlx", encoding="pairwise")


def test_cli_method_option():
    res = run("check-unique", INSTANCES / "pentomino-3x20.txt", "--json")
    assert res.exit_code == 1
    data = json.loads(res.output)
    assert data["stats"]["method"] == "xcc" and data["verdict"] == "multiple"
    tilings = [t for t in data["tilings"]]
    assert tilings[0] != tilings[1]
    res = run("check-unique", INSTANCES / "lpanel-8x8.txt", "--method", "dlx")
    assert res.exit_code == 0 and res.output.startswith("unique")
    res = run("check-unique", INSTANCES / "lpanel-6x6-none.txt", "--method", "dlx")
    assert res.exit_code == 3 and res.output.startswith("none")
    res = run("solve", INSTANCES / "pentomino-6x10.txt", "--method", "dlx", "--solver", "glucose4")
    assert res.exit_code == 2 and "does not use a SAT solver" in res.output
    res = run("solve", INSTANCES / "pentomino-6x10.txt", "--method", "nosuch")
    assert res.exit_code == 2 and "unknown method 'nosuch'" in res.output


def ctrl_c_once_taken(monkeypatch, items: int) -> list[float]:
    """Ctrl-C (from another thread, as a terminal's comes) once this process has taken ``items``
    items from its search's child and waits for the next: the search is stuck by then, whatever
    the machine's load and whatever ran before (alone, the child compiles xcover's search
    first, more than a second).  Returns [when it was sent]."""
    from tilesat.questions import count
    from tilesat.running import control

    taken, sent = threading.Event(), []

    def counted(stream_from_child):
        def stream(*args, **kwargs):
            for n, item in enumerate(stream_from_child(*args, **kwargs), 1):
                yield item
                if n == items:  # the consumer has them and asks for the next
                    taken.set()
        return stream

    def ctrl_c():
        if taken.wait(60):
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)

    for module in (control, count):
        monkeypatch.setattr(module, "stream_from_child", counted(module.stream_from_child))
    threading.Thread(target=ctrl_c, daemon=True).start()
    return sent


@pytest.mark.skipif(os.name != "posix", reason="the search runs in a forked child on POSIX only")
def test_ctrl_c_stops_a_search_stuck_in_compiled_code(monkeypatch):
    import tilesat.engines.dlx as dlx

    real = dlx.covers

    def stuck(placements, forced=None):
        # like numba code between solutions: deaf to SIGINT, never yielding
        yield next(real(placements, forced))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        time.sleep(60)
        yield from ()

    monkeypatch.setattr(dlx, "covers", stuck)  # the forked child inherits the patch
    pent = load_instance(INSTANCES / "pentomino-6x10.txt")
    sent = ctrl_c_once_taken(monkeypatch, 1)
    with pytest.raises(Interrupted) as caught:
        check_unique(pent, "dlx")
    assert sent and time.perf_counter() - sent[0] < 2.0
    assert len(caught.value.tilings) == 1  # what it had: one verified tiling
    assert not multiprocessing.active_children()  # the child was stopped


@pytest.mark.skipif(os.name != "posix", reason="the search runs in a forked child on POSIX only")
def test_ctrl_c_stops_a_dancing_links_count(monkeypatch):
    import tilesat.engines.dlx as dlx
    from tilesat.questions.count import count_tilings

    real = dlx.covers

    def stuck(placements, forced=None):
        yield from itertools.islice(real(placements, forced), 3)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        time.sleep(60)
        yield from ()

    monkeypatch.setattr(dlx, "covers", stuck)
    pent = load_instance(INSTANCES / "pentomino-6x10.txt")
    sent = ctrl_c_once_taken(monkeypatch, 3)
    result = count_tilings(pent, "dlx")
    assert sent and time.perf_counter() - sent[0] < 2.0
    assert result.interrupted and not result.exact and result.count == 3  # the three it had, as a lower bound
    assert not multiprocessing.active_children()
