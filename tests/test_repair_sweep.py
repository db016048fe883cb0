"""The repairing sweep (tilesat.engines.repair_sweep): every tiling it reports is one
the oracle accepts, it never makes one up where there is none, a failed window
takes back kept pieces near the cells it could not cover (not a whole band),
and a time limit stops it and it resumes from what it kept."""

from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, reject, settings, strategies as st
from test_optional_colours import _key, oracle_tilings
from test_property import as_key, oracle, oracle_checker
from test_search_methods import check_unique_agrees_with_the_oracle
from test_sweep import open_boards

from tilesat import Instance, PieceRule, check_unique, load_instance, parse_pieces, solve, verify_tiling
from tilesat.certify.oracle import TooHard
from tilesat.model.instance import INF
from tilesat.model.pieces import grid_piece_set
from tilesat.model.board import Board
from tilesat.running.control import TimedOut, time_limit
from tilesat.model.placements import generate_placements
from tilesat.engines.prune import prune
from tilesat.engines.repair_sweep import (COMPILED_ENCODINGS, Reach, RepairSweep, add_window, repair_sweep_tiling,
                                         window_clauses)
from tilesat.engines.sweep import CORNERS, ORDERS, SweepStats, _Geometry, diagonal_order
from tilesat.model.tiling import Tiling
from tilesat.sat.solvers import DEFAULT_SOLVER, OPEN_BOARD_OPTIONS, default_options

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
HARD = INSTANCES / "hard-60x60" / "hard-L4-60x60-s1.txt"


@settings(max_examples=60, deadline=None)
@given(open_boards(), st.sampled_from([(1, 2), (1, 3), (2, 3), (2, 5)]), st.sampled_from([1, 2, 5]),
       st.booleans(), st.sampled_from(range(len(CORNERS))), st.sampled_from(sorted(ORDERS)))
def test_a_repairing_sweep_finds_only_tilings_the_oracle_accepts(instance, sizes, radius, pruned, corner, order):
    truth = oracle(instance)
    placements = generate_placements(instance)
    step, window = sizes
    alive = prune(placements).alive if pruned else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.repair_sweep.CORNER_ORDER", (corner,))  # every attempt from this corner
        mp.setattr("tilesat.engines.repair_sweep.ATTEMPT_ORDERS", (order,))  # in this order of the cells
        chosen = repair_sweep_tiling(placements, alive=alive, reach=Reach(step, window, radius, radius))
    if not truth:
        assert chosen is None  # nothing to find: it cannot make one up
        return
    if chosen is None:
        return  # gave up: allowed, it proves nothing
    assert len(set(chosen)) == len(chosen)
    assert oracle_checker(instance)(as_key(Tiling.from_placements(placements, chosen)))


def test_a_failed_window_takes_back_the_pieces_near_it():
    # L4 on 3 x 8: a window of two diagonals keeping one keeps L-tetrominoes that
    # leave cells further on uncoverable, the window there fails, the pieces near
    # those cells are taken back and the board is tiled after all
    instance = Instance(Board.rectangle(3, 8), parse_pieces("L4"))
    placements = generate_placements(instance)
    stats = SweepStats()
    sweep = RepairSweep(placements, stats=stats, reach=Reach(step=1, window=2, radius=1, grow=1))
    chosen = sweep.run()
    assert chosen is not None and oracle_checker(instance)(as_key(Tiling.from_placements(placements, chosen)))
    assert sweep.repairs == stats.repairs > 0 and not stats.gave_up
    # a strip with no tiling: it repairs, then gives up, having found nothing
    odd = Instance(Board.rectangle(1, 7), parse_pieces("I3"))
    stats = SweepStats()
    assert RepairSweep(generate_placements(odd), stats=stats, reach=Reach(step=1, window=2)).run() is None
    assert stats.gave_up
    with pytest.raises(ValueError):
        RepairSweep(placements, reach=Reach(step=2, window=2))


def test_each_corner_numbers_the_diagonals_from_itself():
    board = np.ones((3, 5), dtype=bool)
    board[0, 0] = False  # the top-left corner blocked: its sweep starts one diagonal later
    placements = generate_placements(Instance(Board(board), parse_pieces("I3")))
    for corner, (flip_rows, flip_cols) in enumerate(CORNERS):
        geo = _Geometry(placements, corner)
        key = geo.cell_key.reshape(board.shape)
        r, c = 2 if flip_rows else 0, 4 if flip_cols else 0
        assert key[r, c] == 0 and key.max() == 3 + 5 - 2  # the corner first, the opposite corner last
        assert int(geo.open_keys[0]) == (1 if corner == 0 else 0)
        assert all(geo.first[p] == key.ravel()[placements.cells_of(p)].min() for p in range(len(placements)))


def _distances_over_open_cells(board, corner):
    """Breadth-first, one region at a time from its cell first on the corner's diagonals (the
    definition of the open-distance order, written plainly)."""
    diagonal = diagonal_order(board, corner)
    key = {}
    for region in board.regions():
        seed = min(region, key=lambda cell: (int(diagonal[board.index(cell)]), board.index(cell)))
        key[seed] = int(diagonal[board.index(seed)])
        queue = deque([seed])
        while queue:
            cell = queue.popleft()
            for n in board.neighbours(*cell):
                if board.is_open(*n) and n not in key:
                    key[n] = key[cell] + 1
                    queue.append(n)
    return key


@st.composite
def flat_boards(draw, grids=("square", "hex", "triangle"), blocked: int = 4):
    """A board of one of these grids, up to 6 x 7 cells, about one in ``blocked`` blocked."""
    grid = draw(st.sampled_from(grids))
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 7))
    open_mask = np.array(draw(st.lists(st.sampled_from([True] * (blocked - 1) + [False]), min_size=rows * cols,
                                       max_size=rows * cols))).reshape(rows, cols)
    open_mask[draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))] = True
    return Board(open_mask, "none", grid)


@settings(max_examples=50, deadline=None)
@given(flat_boards(), st.sampled_from(range(len(CORNERS))))
def test_the_open_distance_order_is_the_distance_over_open_cells_and_the_diagonals_on_an_open_board(board, corner):
    key = ORDERS["open-distance"](board, corner)
    for cell, distance in _distances_over_open_cells(board, corner).items():
        assert key[board.index(cell)] == distance
        assert all(abs(int(key[board.index(n)]) - distance) <= 1 for n in board.neighbours(*cell) if board.is_open(*n))
    if board.is_square:
        whole = Board(np.ones(board.open.shape, dtype=bool))
        assert np.array_equal(ORDERS["open-distance"](whole, corner), diagonal_order(whole, corner))


def test_the_open_distance_order_bends_around_a_wall():
    board = Board.from_rows(["....", "###.", "....", ".###", "...."])  # a serpentine from the top left
    assert ORDERS["diagonal"](board, 0).reshape(5, 4)[4, 0] == 4
    assert ORDERS["open-distance"](board, 0).reshape(5, 4)[4].tolist() == [10, 11, 12, 13]
    assert ORDERS["open-distance"](board, 1).reshape(5, 4)[0, 0] == 13  # and back from the bottom right


def test_the_open_distance_order_stops_at_the_runs_deadline_on_a_maze():
    """A 300x300 serpentine: 45,000 steps of the breadth-first search (about half a
    second); the run's deadline stops it on the way (was: checked only after it)."""
    rows = ["." * 300 if r % 2 == 0 else ("#" * 299 + "." if r % 4 == 1 else "." + "#" * 299) for r in range(300)]
    board = Board.from_rows(rows)
    with pytest.raises(TimedOut), time_limit(0.02):
        ORDERS["open-distance"](board, 0)
    assert ORDERS["open-distance"](board, 0).max() == 300 * 150 + 149  # and to the end without one


@st.composite
def hex_and_triangle_instances(draw):
    """flat_boards on the hex and triangle grids, tiled by their two- and three-cell pieces."""
    board = draw(flat_boards(("hex", "triangle"), blocked=10))
    sets = {"hex": ["dihex", "trihexes"], "triangle": ["diamond", "triamond"]}[board.grid]
    pieces = [p for name in sets[:draw(st.integers(1, 2))] for p in grid_piece_set(board.grid, name)]
    return Instance(board, tuple(PieceRule(p, "free", 0, INF) for p in pieces))


@settings(max_examples=40, deadline=None)
@given(hex_and_triangle_instances(), st.sampled_from(range(len(CORNERS))), st.sampled_from(sorted(ORDERS)),
       st.sampled_from([(1, 2), (2, 4)]))
def test_a_repairing_sweep_on_hex_and_triangle_boards_finds_only_tilings_the_oracle_accepts(instance, corner, order,
                                                                                         sizes):
    try:
        truth = oracle_tilings(instance)  # their keys (_key)
    except TooHard:
        reject()
    placements = generate_placements(instance)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.repair_sweep.CORNER_ORDER", (corner,))
        mp.setattr("tilesat.engines.repair_sweep.ATTEMPT_ORDERS", (order,))
        chosen = repair_sweep_tiling(placements, reach=Reach(*sizes, 1, 1))
    if chosen is not None:  # None: gave up, which proves nothing (but there is nothing to find on an untileable board)
        assert _key(Tiling.from_placements(placements, chosen)) in truth
    event(f"{instance.board.grid}: {'tiled' if chosen is not None else 'gave up' if truth else 'no tiling'}")


def test_restarts_change_the_corner_the_encoding_and_the_order(monkeypatch):
    # every attempt out of conflicts at once: each restarts from the next (encoding, corner, order)
    # (a first attempt that failed early would end the sweep: not here)
    monkeypatch.setattr("tilesat.engines.repair_sweep.CONFLICTS_PER_CELL", 0)
    monkeypatch.setattr("tilesat.engines.repair_sweep.HOPELESS_COVER", 0)
    placements = generate_placements(Instance(Board.rectangle(8, 8), parse_pieces("L4")))
    stats = SweepStats()
    assert RepairSweep(placements, "commander", stats=stats, attempts=5).run() is None
    tried = [why.split(":")[0] for why in stats.restarts]
    assert tried == ["commander, corner 0, diagonal order", "ladder, corner 1, diagonal order",
                     "pairwise, corner 2, open-distance order", "commander, corner 3, open-distance order"]
    assert stats.gave_up
    # one attempt: no restart
    stats = SweepStats()
    assert RepairSweep(placements, "ladder", stats=stats, attempts=1).run() is None
    assert not stats.restarts and stats.gave_up


@pytest.mark.parametrize("covered_share", [0.0, 0.2, 0.3, 0.9])
def test_a_first_attempt_that_fails_early_ends_the_sweep(monkeypatch, covered_share):
    # the first attempt gives up having covered this share of the open cells: under
    # HOPELESS_COVER the sweep is done (the attempts it left counted in stats.foregone), else
    # the next attempt starts; a later attempt that fails early is only a restart
    from tilesat.engines import repair_sweep

    placements = generate_placements(Instance(Board.rectangle(10, 10), parse_pieces("L4")))
    stats = SweepStats()
    sweep = RepairSweep(placements, stats=stats, attempts=3)
    sweep.covered[:int(covered_share * 100)] = True
    sweep._give_up("a test")
    early = covered_share < repair_sweep.HOPELESS_COVER
    assert sweep.done == early and (stats.gave_up is not None) == early
    assert stats.foregone == (2 * sweep.attempt_budget if early else 0)
    assert stats.restarts == ([] if early else [f"{sweep.attempts[0][0]}, corner 0, diagonal order: a test"])
    if early:
        assert f"covered {covered_share:.0%} of the open cells" in stats.gave_up
        assert stats.to_json()["foregone"] == stats.foregone
    else:
        sweep._give_up("a test, later")  # the second attempt, with nothing covered
        assert not sweep.done and stats.gave_up is None and len(stats.restarts) == 2


@pytest.mark.parametrize("attempt", [0, 1])
@pytest.mark.parametrize("over", [False, True])
def test_a_first_attempt_whose_conflicts_run_ahead_of_its_cover_ends(monkeypatch, over, attempt):
    # the first attempt may spend CONFLICTS_PER_CELL a cell it covered plus AHEAD_PER_CELL a cell
    # of the board: one conflict past that, the next step ends it; within it, its window gets what
    # is left, and a window that spends it all (out of budget) neither widens nor ends the attempt
    # itself: the next step does.  A later attempt has its whole budget whatever it covered.
    from tilesat.engines.repair_sweep import AHEAD_PER_CELL, CONFLICTS_PER_CELL

    placements = generate_placements(Instance(Board.rectangle(10, 10), parse_pieces("L4")))
    stats = SweepStats()
    sweep = RepairSweep(placements, stats=stats, attempts=3)
    if attempt:
        sweep._start(attempt)
    budgets = []

    def out_of_budget(ids, exact, left, geo=None):  # a window that spends all it was given
        budgets.append(left)
        stats.conflicts += left
        return None, None

    monkeypatch.setattr(sweep, "_solve", out_of_budget)
    sweep.covered[:40] = True
    allowed = CONFLICTS_PER_CELL * 40 + AHEAD_PER_CELL * 100
    assert allowed < sweep.attempt_budget  # the attempt's own budget is not what ends it
    stats.conflicts = sweep.earning_since + allowed + (1 if over else -1)
    own_left = sweep.attempt_budget - (stats.conflicts - sweep.conflicts_at_start)
    sweep._step(None)
    def ended(spent):
        return f"{sweep.attempts[0][0]}, corner 0, diagonal order: the attempt spent {spent:,} conflicts to cover 40 cells"

    if attempt:  # the window had the attempt's own budget, then widened as before (past half the board: a restart)
        assert budgets == [own_left] and stats.widened == 1
        assert not any("conflicts to cover" in why for why in stats.restarts)
    elif over:
        assert budgets == [] and stats.restarts == [ended(allowed + 1)] and sweep.attempt == 1 and not sweep.done
    else:
        assert budgets == [1] and stats.widened == 0 and not stats.restarts  # held to what was left
        sweep._step(None)  # it spent it: this step ends the attempt
        assert stats.restarts == [ended(allowed)] and sweep.attempt == 1


@settings(max_examples=100, deadline=None)
@given(open_boards(), st.sampled_from([0, 1, 3]))
def test_a_search_whose_sweep_ended_after_its_first_attempt_answers_as_the_oracle(instance, per_cell):
    # every first attempt that fails ends the sweep (HOPELESS_COVER 1: any cover is "early"),
    # with few conflicts a cell so that many do: the discs, the whole-board solver (for twice the
    # sweep's conflicts and its foregone attempts') and the LP answer as the oracle does
    from tilesat.engines.sat import TilingSearch

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(TilingSearch, "_glance", lambda self, conflicts=None: None)  # the sweep first, always
        mp.setattr("tilesat.engines.repair_sweep.HOPELESS_COVER", 1.0)
        mp.setattr("tilesat.engines.repair_sweep.CONFLICTS_PER_CELL", per_cell)
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        check_unique_agrees_with_the_oracle(instance, ["sweep"])
        sweep = check_unique(instance, "sweep").stats.get("sweep", {})
    assert "restarts" not in sweep  # never a second attempt
    if sweep.get("gave_up") and "first attempt covered" in sweep["gave_up"]:
        assert sweep.get("foregone", 0) == 3 * per_cell * instance.board.area
    event(f"gave up: {(sweep.get('gave_up') or 'no')[:40]}; found by {sweep.get('found_by')}")


def test_a_repairing_sweep_stopped_by_a_time_limit_resumes_from_what_it_kept():
    placements = generate_placements(load_instance(HARD))
    sweep = RepairSweep(placements, alive=prune(placements).alive)
    with pytest.raises(TimedOut):
        with time_limit(0.6):
            sweep.run()
    kept = int(sweep.kept.sum())
    assert kept > 0 and not sweep.done
    chosen = sweep.run()
    assert chosen is not None and len(chosen) > kept
    assert oracle_checker(placements.instance)(as_key(Tiling.from_placements(placements, chosen)))
    assert np.array_equal(np.sort(chosen), np.flatnonzero(sweep.kept))


@st.composite
def counted_boards(draw):
    """open_boards with piece counts, which no window sees."""
    instance = draw(open_boards())
    bounds = st.sampled_from([(0, 1), (1, 2), (0, 3), (2, INF), (1, INF), (0, INF)])
    rules = tuple(PieceRule(r.piece, r.orient, *draw(bounds)) for r in instance.rules)
    return Instance(instance.board, rules)


@settings(max_examples=80, deadline=None)
@given(counted_boards())
def test_a_sweep_with_piece_counts_agrees_with_the_oracle(instance):
    # the sweep's and the local change's tilings are kept only when their counts hold;
    # the look-ahead on every board here (it runs from SWEEP_MIN_AREA open cells)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
        truth, _ = check_unique_agrees_with_the_oracle(instance, ("sweep",))
        assert solve(instance, "sweep").verdict == ("solved" if truth else "none")


@st.composite
def windows(draw):
    """A window's cells: each with 1-13 distinct placements (ids below 40), sorted, back to back."""
    degrees = draw(st.lists(st.integers(1, 13), min_size=1, max_size=25))
    owner = [sorted(draw(st.sets(st.integers(0, 39), min_size=d, max_size=d))) for d in degrees]
    degree = np.array(degrees, dtype=np.int64)
    start = np.cumsum(degree) - degree
    empty = 41 + np.arange(degree.size, dtype=np.int64)
    return np.array([p for ps in owner for p in ps], dtype=np.int64), start, degree, empty


@settings(max_examples=150, deadline=None)
@given(windows(), st.sampled_from(sorted(COMPILED_ENCODINGS)))
def test_the_compiled_window_clauses_are_the_encoders_clauses_in_their_order(window, encoding):
    # the solver's behaviour on a window depends on the clauses' order, and the
    # sweep's figures were measured with the encoders' (sat/encodings)
    assert window_clauses(*window, encoding) == window_clauses(*window, encoding, compiled=False)


@settings(max_examples=60, deadline=None)
@given(windows(), st.sampled_from(sorted(COMPILED_ENCODINGS)), st.randoms(use_true_random=False))
def test_clauses_added_from_c_are_the_ones_added_one_by_one(window, encoding, rnd):
    """add_window puts the clauses into CaDiCaL 1.9.5 from C: the solver then answers as
    one given the same clauses one at a time, model for model."""
    from pysat.solvers import Solver

    from tilesat.engines import _window

    assert _window.can_add_directly()  # PySAT's CaDiCaL 1.9.5 exports its add(): else the fast path is lost
    empty = window[3]
    assumptions = [-int(v) for v in empty if rnd.random() < 0.7]
    answers = []
    for direct in (True, False):
        with Solver(name="cadical195") as solver:
            if direct:
                add_window(solver, "cadical195", window, encoding)
            else:
                for clause in window_clauses(*window, encoding):
                    solver.add_clause(clause)
            sat = solver.solve(assumptions=assumptions)
            answers.append((sat, solver.get_model() if sat else None, solver.nof_clauses()))
    assert answers[0] == answers[1]


def test_the_solver_that_takes_over_from_a_sweep_that_gave_up_gets_the_open_board_options(monkeypatch):
    # T4 (8 candidates a cell: below the --sat options' band) on a 20x24 board less a 4x4 corner,
    # blocked enough that no glance builds the solver before the sweep
    open_ = np.ones((20, 24), dtype=bool)
    open_[:4, :4] = False
    instance = Instance(Board(open_), parse_pieces("T4"))
    assert not default_options(DEFAULT_SOLVER, generate_placements(instance).candidates_per_cell())
    by_solver = check_unique(instance, method="sat")
    assert by_solver.verdict == "multiple" and not by_solver.stats["solver_options"]
    monkeypatch.setattr("tilesat.engines.repair_sweep.CONFLICTS_PER_CELL", 0)  # every attempt gives up at once
    result = check_unique(instance, method="sweep")
    assert result.stats["sweep"]["gave_up"] and result.stats["sweep"]["found_by"][0] == "solver"
    assert result.stats["solver_options"] == OPEN_BOARD_OPTIONS
    assert result.verdict == by_solver.verdict
    for tiling in result.tilings:
        verify_tiling(instance, tiling)


def test_the_furthest_attempt_is_the_partial_tiling_that_covered_most_and_where_it_failed(monkeypatch):
    # every attempt ends after one repair: the sweep keeps the kept placements of the attempt that
    # covered the most cells (a partial tiling: disjoint, alive) and the cells its failed window
    # could not cover; furthest_apart(r) keeps those of its placements farther than r from them
    from repo_scripts import import_script

    packing = import_script("hard_families").packing
    monkeypatch.setattr("tilesat.engines.repair_sweep.MAX_REPAIRS", 1)
    instance, _, _ = packing("L4", 30, "random", 2)
    placements = generate_placements(instance)
    sweep = RepairSweep(placements)
    ends = []
    give_up = RepairSweep._give_up
    monkeypatch.setattr(RepairSweep, "_give_up", lambda self, why: ends.append(
        (int(self.covered.sum()), np.flatnonzero(self.kept), self.failed_last)) or give_up(self, why))
    sweep.run()
    assert ends and sweep.furthest is not None
    covered, kept, failed = max(ends, key=lambda end: end[0])
    assert np.array_equal(sweep.furthest, kept) and sweep.furthest_failed is failed and failed is not None
    cells = np.concatenate([placements.cells_of(p) for p in kept])
    assert cells.size == np.unique(cells).size == covered  # disjoint: a partial tiling
    assert not np.isin(failed, cells).any() and instance.board.open.ravel()[failed].all()
    cols = instance.board.open.shape[1]
    for radius in (0, 3, 12):
        apart = sweep.furthest_apart(radius)
        assert set(apart.tolist()) <= set(kept.tolist())
        for p in kept:
            far = min(max(abs(c // cols - f // cols), abs(c % cols - f % cols)) for c in placements.cells_of(p) for f in failed) > radius
            assert (p in apart) == far

