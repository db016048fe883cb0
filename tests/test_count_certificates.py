"""count and list with the certificate check of "no tiling" (issue 14).

By default the LP runs in a child beside the count (tilesat.certify.schedule.LpRace)
and stops it when it proves there is no tiling; --certificate runs it first,
--no-certificate never.  Whatever the mode, the numbers and the tilings are
the same, and a certificate is reported only where the brute-force oracle
finds no tiling and the independent checker accepts it.  The timings (the
6x10 pentomino count is not slower) are in scripts/bench_count_certificate.py
and the README, not asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesat.certify import schedule
from tilesat.engines.dlx import dlx_problem
from tilesat.questions import count as counting
from tilesat.certify.certificate import Certificate, check_certificate
from tilesat.running.control import call_in_child, wait_step, watching
from tilesat.questions.count import count_tilings, iter_tilings_by
from tilesat.errors import TilesatError
from tilesat.model.instance import parse_instance
from tilesat.certify.oracle import TooHard, brute_force_tilings

CLI = [sys.executable, "-m", "tilesat"]
INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def mutilated_text(n: int) -> str:
    rows = [["."] * n for _ in range(n)]
    rows[0][0] = rows[n - 1][n - 1] = "#"
    return "pieces: domino\n" + "\n".join("".join(r) for r in rows) + "\n"


@pytest.fixture(scope="module")
def mut20(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("boards") / "mut20.txt"
    path.write_text(mutilated_text(20))
    return path


def run(*args, timeout=120):
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)


def children_of_this_process() -> set[int]:
    pids = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with open(task / "children") as f:
            pids |= {int(p) for p in f.read().split()}
    return pids


# --- the race stops an exponential count ----------------------------------

@pytest.mark.parametrize("method", ["blocking", "dlx"])
def test_mutilated_20x20_count_answers_0_with_a_certificate(mut20, method):
    proc = run("count", mut20, "--method", method, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["count"] == 0 and data["exact"] and data["stopped"] is None
    assert data["reason"].endswith("no tiling") and data["method"] == method
    check = data["certificate_check"]
    assert check["ran"] and check["found"] and "beside the count" in check["why"]
    cert = Certificate.from_json(data["certificate"])
    check_certificate(parse_instance(mut20.read_text()), cert)
    assert cert.total == 2 and {abs(w) for _, _, w in data["certificate"]["weights"]} == {1}


def test_no_certificate_keeps_the_exponential_count(mut20):
    proc = run("count", mut20, "--method", "dlx", "--json", "--no-certificate", "--timeout", "2")
    assert proc.returncode == 124, proc.stderr
    data = json.loads(proc.stdout)
    assert data["stopped"] == "timeout" and not data["exact"] and data["certificate"] is None
    assert data["certificate_check"] == {"ran": False, "why": "turned off"}


def test_certificate_flag_runs_the_lp_first(mut20):
    proc = run("count", mut20, "--method", "dlx", "--certificate")
    assert proc.returncode == 0, proc.stderr
    assert "count: 0 tilings" in proc.stdout and "weigh +2: no tiling" in proc.stdout
    assert "cell weights:" in proc.stdout  # the board of weights, as solve shows it


def test_list_on_a_board_with_a_certificate_prints_nothing_and_says_why(mut20):
    proc = run("list", mut20, "--method", "dlx")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "listed all 0 tilings: no tiling exists (every placement covers weight <= 0" in proc.stderr


def test_list_by_blocking_is_stopped_by_the_certificate_too():
    instance = parse_instance(mutilated_text(16))
    listing = iter_tilings_by(instance, "blocking")
    assert list(listing) == []
    assert listing.certificate is not None and listing.certificate_check["found"]
    check_certificate(instance, listing.certificate)
    assert listing.reason == listing.certificate.sentence()


def slow_lp(monkeypatch):
    """The LP's turn at once, and an LP that takes a minute."""
    monkeypatch.setattr(schedule, "RACE_HEAD_START", 0.0)
    monkeypatch.setattr(schedule, "LP_LOAD_SECONDS", 0.0)
    monkeypatch.setattr(schedule, "lp_estimate", lambda placements: 0.0)
    monkeypatch.setattr(schedule, "_lp_target", lambda conn, *args: time.sleep(60))


def test_a_timeout_stops_the_lp_child_too(monkeypatch):
    slow_lp(monkeypatch)
    before = children_of_this_process()
    r = count_tilings(parse_instance(mutilated_text(20)), "dlx", timeout=1.0)
    assert r.timed_out and not r.exact and r.certificate is None
    assert r.certificate_check["ran"] and "was stopped" in r.certificate_check["why"]
    assert children_of_this_process() <= before  # no LP child left behind


def test_the_polynomial_engines_skip_the_check():
    instance = parse_instance(mutilated_text(14))
    for method in ("pfaffian", "frontier"):
        r = count_tilings(instance, method)
        assert r.count == 0 and r.exact and r.certificate is None
        assert not r.certificate_check["ran"] and method in r.certificate_check["why"]
    r = count_tilings(instance, "pfaffian", certificates="always")  # asked for: first, whatever the engine
    assert r.certificate is not None and r.reason == r.certificate.sentence()


def test_a_count_that_finds_tilings_stops_the_lp(monkeypatch):
    slow_lp(monkeypatch)
    instance = parse_instance((INSTANCES / "pentomino-3x20.txt").read_text())
    before = children_of_this_process()
    r = count_tilings(instance, "dlx")
    assert children_of_this_process() <= before
    assert r.count == 8 and r.exact and r.certificate is None
    check = r.certificate_check
    assert check["ran"] and not check["found"] and "so the LP was stopped" in check["why"]


def test_a_count_within_the_head_start_never_starts_the_lp(monkeypatch):
    monkeypatch.setattr(schedule, "RACE_HEAD_START", 60.0)
    monkeypatch.setattr(schedule, "Child", None)  # a fork would fail
    instance = parse_instance((INSTANCES / "pentomino-3x20.txt").read_text())
    r = count_tilings(instance, "native")
    assert r.count == 8 and r.exact
    assert not r.certificate_check["ran"] and "so the LP never ran" in r.certificate_check["why"]
    listing = iter_tilings_by(instance, "native")
    assert len(list(listing)) == 8 and not listing.certificate_check["ran"]


def test_certificates_must_be_a_mode():
    instance = parse_instance(mutilated_text(4))
    with pytest.raises(TilesatError, match="certificates="):
        count_tilings(instance, "dlx", certificates="sometimes")
    with pytest.raises(TilesatError, match="certificates="):
        iter_tilings_by(instance, "dlx", certificates="sometimes")


def test_info_says_whether_counts_check_runs(mut20):
    proc = run("info", mut20, "--json")
    check = json.loads(proc.stdout)["count_certificate_check"]
    assert check["runs"] and "beside the count" in check["why"] and "pfaffian" in check["why"]
    proc = run("info", INSTANCES / "lpanel-8x8.txt")
    assert "certificate check (LP) beside count and list: skipped" in proc.stdout


# --- the watching hook ------------------------------------------------------

def test_watchers_run_at_each_poll_in_their_own_process_only():
    calls = []
    parent = os.getpid()

    def watcher():
        if os.getpid() != parent:
            raise AssertionError("a watcher ran in a forked child")
        calls.append(1)

    wait_step()
    assert calls == []
    with watching(watcher):
        wait_step()
        assert calls == [1]

        def polls_in_child():
            for _ in range(3):
                wait_step()
            time.sleep(0.2)
            return "done"

        assert call_in_child(polls_in_child) == "done"  # the child's polls did not run it
        assert len(calls) >= 3  # the parent's waits did
    n = len(calls)
    wait_step()
    assert len(calls) == n


class Stop(Exception):
    pass


def test_a_watcher_that_raises_stops_a_wait_and_its_child():
    t0 = time.perf_counter()

    def stop_after_a_while():
        if time.perf_counter() - t0 > 0.3:
            raise Stop

    before = children_of_this_process()
    with pytest.raises(Stop), watching(stop_after_a_while):
        call_in_child(time.sleep, 30)
    assert time.perf_counter() - t0 < 10
    assert children_of_this_process() <= before


# --- the same answers with and without the check ---------------------------

PIECES = ["domino", "L3", "I3", "T4", "O4", "L4"]


@st.composite
def small_instances(draw):
    rows = draw(st.integers(2, 5))
    cols = draw(st.integers(2, 5))
    grid = ["".join(draw(st.sampled_from(".....#")) for _ in range(cols)) for _ in range(rows)]
    if "." not in "".join(grid):
        grid[0] = "." + grid[0][1:]
    names = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=2, unique=True))
    items = [name + draw(st.sampled_from(["", "", ":1", ":2", ":0..1", ":1.."])) for name in names]
    if draw(st.booleans()):  # dominoes on an even area: boards the area check passes, a colouring may not
        items = ["domino"]
        cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "."]
        if len(cells) % 2:
            r, c = cells[-1]
            grid[r] = grid[r][:c] + "#" + grid[r][c + 1:]
            if len(cells) == 1:
                grid[0] = ".." + grid[0][2:]
    wrap = draw(st.sampled_from(["none", "none", "rows"]))
    text = f"pieces: {', '.join(items)}\nwrap: {wrap}\n" + "\n".join(grid) + "\n"
    return grid, wrap, parse_instance(text)


def no_tiling_by_oracle(grid, wrap, instance) -> bool | None:
    pieces = [(r.name, list(r.piece.cells), r.orient, r.min, r.max) for r in instance.rules]
    try:
        return not brute_force_tilings(grid, wrap, pieces, cap=0)
    except TooHard:
        return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_count_is_the_same_with_and_without_the_check(case):
    grid, wrap, instance = case
    off = count_tilings(instance, "blocking", certificates=False)
    for mode in (True, "always"):
        on = count_tilings(instance, "blocking", certificates=mode)
        assert (on.count, on.exact) == (off.count, off.exact)
        if on.certificate is not None:
            assert on.count == 0 and on.reason == on.certificate.sentence()
            check_certificate(instance, on.certificate)
            assert no_tiling_by_oracle(grid, wrap, instance) is not False


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances())
def test_list_is_the_same_with_and_without_the_check(case):
    grid, wrap, instance = case

    def tilings(mode):
        listing = iter_tilings_by(instance, "dlx" if dlx_problem(instance) is None else "native",
                                  limit=50, certificates=mode)
        return [json.dumps(t.to_json(), sort_keys=True) for t in listing], listing

    want, _ = tilings(False)
    got, listing = tilings("always")
    assert got == want
    if listing.certificate is not None:
        assert want == [] and listing.reason == listing.certificate.sentence()
        check_certificate(instance, listing.certificate)
        assert no_tiling_by_oracle(grid, wrap, instance) is not False
