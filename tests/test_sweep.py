"""The sweep (tilesat.engines.sweep): every tiling it or the local change reports is
one the oracle accepts; it never invents a tiling where there is none nor a
second one where the tiling is unique; check-unique by sweep agrees with
SAT and the oracle; auto picks it for big open boards only; time limits and
Ctrl-C stop it, and it resumes from what it kept."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_cli import run
from test_search_methods import check_unique_agrees_with_the_oracle
from test_property import as_key, oracle, oracle_checker

from tilesat import Instance, PieceRule, check_unique, load_instance, parse_pieces, solve
from tilesat.model.board import Board
from tilesat.model.instance import INF
from tilesat.running.control import TimedOut, time_limit
from tilesat.errors import TilesatError
from tilesat.model.placements import generate_placements
from tilesat.engines.sat import TilingSearch
from tilesat.questions.solve import choose_search_method
from tilesat.sat.solvers import PysatSolver
from tilesat.engines.local_change import other_tiling
from tilesat.engines.sweep import Sweep, SweepStats, sweep_problem, sweep_tiling
from tilesat.model.tiling import Tiling

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
HARD = INSTANCES / "hard-60x60" / "hard-L4-60x60-s1.txt"


#: Piece counts open_boards(counts=True) draws from (unbounded twice as often).
COUNTS = [(0, INF), (0, INF), (1, INF), (0, 2), (1, 3), (2, INF), (0, 1), (3, 6)]


@st.composite
def open_boards(draw, counts: bool = False, side: int = 7):
    """Small boards, few cells blocked, pieces repeating freely (``counts``: within drawn
    counts), at most ``side`` cells wide: what a sweep is for."""
    rows, cols = draw(st.integers(2, side)), draw(st.integers(2, side))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    blocked = draw(st.sets(cells, max_size=(rows * cols) // 4))
    grid = np.ones((rows, cols), dtype=bool)
    for r, c in blocked:
        grid[r, c] = False
    if not grid.any():
        grid[0, 0] = True
    pieces = parse_pieces(draw(st.sampled_from(["I2", "L3", "I3", "L3,I3", "L4", "I2,L3", "T4,L4", "O4,I2"]
                                               + (["I1,I2,I3", "I2,L3,T4"] if counts else []))))
    if counts:
        pieces = tuple(PieceRule(r.piece, r.orient, *draw(st.sampled_from(COUNTS))) for r in pieces)
    return Instance(Board(grid), pieces)


@settings(max_examples=120, deadline=None)
@given(open_boards(), st.sampled_from([(1, 2), (1, 3), (2, 3), (2, 5)]))
def test_a_sweep_finds_only_tilings_the_oracle_accepts(instance, sizes):
    truth = oracle(instance)
    placements = generate_placements(instance)
    step, window = sizes
    chosen = sweep_tiling(placements, step=step, window=window)
    if not truth:
        assert chosen is None  # nothing to find: it cannot make one up
        return
    if chosen is None:
        return  # gave up: allowed, it proves nothing
    assert oracle_checker(instance)(as_key(Tiling.from_placements(placements, chosen)))
    assert len(set(chosen)) == len(chosen)


@settings(max_examples=150, deadline=None)
@given(open_boards(counts=True))
def test_the_local_change_is_another_tiling_or_none(instance):
    truth = set(oracle(instance))
    if not truth:
        return
    with TilingSearch(instance) as search:
        first = as_key(search.next())
        chosen = search.last_chosen
    placements = search.placements
    stats = SweepStats()
    other = other_tiling(placements, chosen, stats=stats)
    # the boxes' solves are counted in stats.local alone, not as the sweep's windows and conflicts
    assert (stats.windows, stats.conflicts) == (0, 0) and set(stats.local) == {"boxes", "conflicts", "seconds"}
    if len(truth) == 1:
        assert other is None  # a unique tiling has no other, near or far
        return
    if other is not None:
        key = as_key(Tiling.from_placements(placements, other))
        assert key != first and oracle_checker(instance)(key)


@settings(max_examples=80, deadline=None)
@given(open_boards())
def test_check_unique_by_sweep_agrees_with_sat_and_the_oracle(instance):
    truth, _ = check_unique_agrees_with_the_oracle(instance, ("sweep", "sat"))
    assert solve(instance, "sweep").verdict == ("solved" if truth else "none")


def test_a_window_that_fails_undoes_the_last_step_and_widens():
    # I3 on a 1 x 7 strip: each window of 2 cells has one solution (an I3 where
    # the strip's cells begin), until the last cell, which none covers: the
    # sweep undoes steps and widens until the window is half the strip, and
    # gives up, having found nothing (there is nothing: 7 is not 3k)
    placements = generate_placements(Instance(Board.from_rows(["......."]), parse_pieces("I3")))
    stats = SweepStats()
    assert Sweep(placements, stats=stats, step=1, window=2).run() is None
    assert stats.widened > 0 and stats.widest > 2 and stats.gave_up
    # with a 1 x 6 strip the same sweep keeps I3, I3
    placements = generate_placements(Instance(Board.from_rows(["......"]), parse_pieces("I3")))
    stats = SweepStats()
    assert len(Sweep(placements, stats=stats, step=1, window=2).run()) == 2
    assert stats.widened == 0 and not stats.gave_up
    with pytest.raises(ValueError):
        Sweep(placements, step=2, window=2)


def test_big_open_boards_get_the_sweep_and_others_do_not():
    hard = load_instance(HARD)
    assert choose_search_method(hard)[0] == "sweep"
    assert choose_search_method(hard, encoding="pairwise")[0] == "sat"  # a SAT option asked for
    assert choose_search_method(load_instance(INSTANCES / "lpanel-20x20.txt"))[0] == "sat"  # small
    wrapped = Instance(Board(hard.board.open, wrap="rows"), hard.rules)
    assert "wraps around" in sweep_problem(wrapped)
    assert choose_search_method(wrapped)[0] == "sat"
    with pytest.raises(TilesatError, match="--method sweep: .*wraps around"):
        check_unique(wrapped, "sweep")
    # piece counts: the sweep takes them (its tiling mended to them box by box, kept only
    # when they hold); auto sweeps where the counts can fill the board (tests/test_local_change.py)
    counted = Instance(hard.board, tuple(PieceRule(r.piece, r.orient, 0, 10_000) for r in hard.rules))
    assert sweep_problem(counted) is None and choose_search_method(counted)[0] == "sweep"
    with pytest.raises(TilesatError, match="lex-leader"):
        solve(hard, "sweep", break_symmetry=True)


@pytest.mark.slow
def test_a_hard_board_by_sweep_and_by_portfolio():
    hard = load_instance(HARD)
    accepts = oracle_checker(hard)
    for jobs in (1, 2):
        result = check_unique(hard, jobs=jobs)
        assert result.verdict == "multiple" and result.stats["method"] == "sweep"
        assert result.stats["sweep"]["found_by"] == ["sweep", "local change"]
        assert all(accepts(as_key(t)) for t in result.tilings)
        assert as_key(result.tilings[0]) != as_key(result.tilings[1])


def test_a_unique_big_board_is_proved_unique_after_the_sweep(monkeypatch):
    # a 1 x 2,400 strip of dominoes has one tiling: the look-ahead settles it (one
    # candidate placement per cell); without that shortcut the whole-board solver's
    # glance finds it and proves it unique; where the glance does not finish either
    # (patched here, as on a board it cannot do in its conflicts), the sweep finds
    # it, no box has another, and the whole-board solver proves there is none
    instance = Instance(Board.rectangle(1, 2400), parse_pieces("I2"))
    assert choose_search_method(instance)[0] == "sweep"
    result = check_unique(instance)
    assert result.verdict == "unique" and result.stats["sweep"]["found_by"] == ["look-ahead"]
    assert result.stats["look_ahead"]["settled"]
    result = check_unique(instance, jobs=2)  # the portfolio's look-ahead settles it too
    assert result.verdict == "unique" and result.stats["sweep"]["found_by"] == ["look-ahead"]
    monkeypatch.setattr("tilesat.engines.prune.forced_tiling", lambda placements, pruned: None)
    result = check_unique(instance)
    assert result.verdict == "unique" and result.stats["sweep"]["found_by"] == ["solver"]
    monkeypatch.setattr(TilingSearch, "_glance", lambda self, conflicts=None: None)
    result = check_unique(instance)
    assert result.verdict == "unique" and result.stats["sweep"]["found_by"] == ["sweep"]
    assert result.stats["sweep"]["other_tiling"]["boxes"] > 100  # looked, found no other
    odd = Instance(Board.from_rows(["." * 1200 + "#" + "." * 1201]), parse_pieces("I2"))
    assert check_unique(odd).verdict == "none"


def test_a_sweep_stopped_by_a_time_limit_resumes_from_what_it_kept():
    placements = generate_placements(load_instance(HARD))
    sweep = Sweep(placements)
    with pytest.raises(TimedOut):
        with time_limit(0.6):
            sweep.run()
    kept = len(sweep.kept)
    assert kept > 0 and not sweep.done
    chosen = sweep.run()
    assert chosen is not None and sweep.stats.windows > kept
    assert oracle_checker(placements.instance)(as_key(Tiling.from_placements(placements, chosen)))


def test_a_conflict_budget_gives_up_and_the_solver_goes_on():
    # pigeonhole 8 -> 7: unsatisfiable, and CDCL needs thousands of conflicts
    n = 8
    var = lambda p, h: p * (n - 1) + h + 1
    clauses = [[var(p, h) for h in range(n - 1)] for p in range(n)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(n - 1) for p in range(n) for q in range(p)]
    with PysatSolver("cadical195") as solver:
        for c in clauses:
            solver.add_clause(c)
        assert solver.solve(conflicts=50) is None
        assert solver.solve(conflicts=5_000) is None  # in its child now, still within a budget
        assert solver.solve() is False


def test_cli_sweep_timeout_and_refusals(tmp_path):
    for jobs in ("1", "2"):
        res = run("check-unique", HARD, "--timeout", "1", "--jobs", jobs)
        assert res.exit_code == 124 and res.output.startswith("unknown")
    res = run("check-unique", INSTANCES / "torus-x5-5x5.txt", "--method", "sweep")
    assert res.exit_code == 2 and res.output.count("\n") == 1 and "wraps around" in res.output
    res = run("check-unique", HARD, "--json")
    data = json.loads(res.output)
    assert data["verdict"] == "multiple" and data["stats"]["method"] == "sweep"


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_ctrl_c_during_a_sweep_stops_within_a_second():
    proc = subprocess.Popen([sys.executable, "-m", "tilesat", "check-unique", str(HARD)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(2.0)  # compiled, and sweeping
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert time.perf_counter() - t0 < 1.5
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    leftover = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert not leftover
