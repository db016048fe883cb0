"""Cells no set of pieces covers (engines/relaxation.py), the sweep's corner windows that find
them (RepairSweep.refute_at_corners) and the board feature that turns those on
(sweep.scattered_blocked): a "none" on this path is the oracle's."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_optional_colours import instances as marked_instances, oracle_tilings
from test_property import oracle
from test_sweep import open_boards

from tilesat import Instance, parse_pieces
from tilesat.certify.oracle import TooHard
from tilesat.engines.relaxation import relaxed, uncoverable
from tilesat.engines.repair_sweep import RepairSweep
from tilesat.engines.sweep import SCATTERED, scattered_blocked
from tilesat.model.board import Board
from tilesat.model.instance import INF, PieceRule
from tilesat.model.pieces import Piece, builtin_piece
from tilesat.model.placements import generate_placements


@settings(max_examples=120, deadline=None)
@given(open_boards(), st.data())
def test_cells_called_uncoverable_are_by_the_oracle_and_the_board_has_no_tiling(instance, data):
    open_cells = instance.board.open_cells
    cells = np.array(sorted(data.draw(st.sets(st.sampled_from(open_cells.tolist()), min_size=1, max_size=8))))
    part = relaxed(instance, cells)
    must = part.board.open & ~(part.board.optional if part.board.optional is not None else False)
    assert np.array_equal(np.flatnonzero(must.ravel()), cells)  # the cells to cover, and only they
    try:
        none_of_part = not oracle_tilings(part)
    except TooHard:
        return
    placements = generate_placements(instance)
    assert uncoverable(placements, cells) == none_of_part
    if none_of_part:  # a part no pieces cover: the whole board has no tiling
        assert not oracle(instance, cap=1)


def test_uncoverable_leaves_out_the_dead_placements_it_is_given():
    # a 1x4 strip, one cell blocked at the end: the I2 on cells 0-1 is the only way to cover 0
    instance = Instance(Board(np.array([[True, True, True, False]])), parse_pieces("I2"))
    placements = generate_placements(instance)
    assert not uncoverable(placements, np.array([0]))
    alive = np.array([not (placements.cells_of(p).tolist() == [0, 1]) for p in range(len(placements))])
    assert uncoverable(placements, np.array([0]), alive)


def _board(rows: list[str]) -> Board:
    return Board(np.array([[ch == "." for ch in row] for row in rows]))


def test_scattered_blocked_is_the_share_of_blocked_cells_without_a_blocked_neighbour():
    assert scattered_blocked(_board(["....", "...."])) == 0.0  # no blocked cell
    assert scattered_blocked(_board(["#..#", "....", ".#.."])) == 1.0  # all alone (the edge is no neighbour)
    assert scattered_blocked(_board(["##..", "##..", "...#"])) == 0.2  # a 2x2 block and one alone
    assert scattered_blocked(_board(["#.#.", ".#.#"])) == 1.0  # diagonal neighbours do not count


def test_random_blocked_cells_are_scattered_and_a_packings_leftovers_are_not():
    from repo_scripts import import_script

    families = import_script("hard_families")
    blocked = families.random_blocked("L4", 40, 0.04, 1, balanced=True)
    instance, _, _ = families.packing("L4", 40, "random", 1)
    assert scattered_blocked(blocked.board) >= SCATTERED > scattered_blocked(instance.board)


def test_a_corner_with_an_obstruction_is_refuted_and_the_sweep_stops_there():
    # 24x24, cell (0, 0) cut off by its two blocked neighbours (and the area a multiple of 3)
    grid = np.ones((24, 24), dtype=bool)
    grid[0, 1] = grid[1, 0] = False
    grid[23, 23] = grid[23, 22] = grid[22, 23] = grid[5, 5] = False
    instance = Instance(Board(grid), parse_pieces("L3"))
    placements = generate_placements(instance)
    sweep = RepairSweep(placements)
    cells = sweep.refute_at_corners()
    assert cells is not None and 0 in cells.tolist() and sweep.refuted is cells
    assert uncoverable(placements, cells)


def test_on_a_board_that_wraps_nothing_is_called_uncoverable():
    # cells 0 and 3 of a row that wraps are neighbours: the I2 across the edge covers both,
    # which a relaxed board without the wrap would not see
    instance = Instance(Board(np.array([[True, False, False, True]]), wrap="rows"), parse_pieces("I2"))
    placements = generate_placements(instance)
    assert oracle(instance, cap=1)
    assert not uncoverable(placements, np.array([0]))


def test_on_a_board_with_cells_that_may_stay_empty_nothing_is_called_uncoverable():
    # one cell, optional, that no I2 fits on: the board's tiling leaves it empty
    open_ = np.array([[True, False]])
    instance = Instance(Board(open_, optional=open_.copy()), parse_pieces("I2"))
    placements = generate_placements(instance)
    assert oracle(instance, cap=1)
    assert not uncoverable(placements, np.array([0]))


def test_the_relaxed_board_keeps_which_colours_may_meet():
    # every cell colour 2, the I2 painted colour 1, and colour 1 allowed on colour 2: the board is
    # tileable, so no cell of it is uncoverable (a relaxed board that forgot the pairs said cell 1 was)
    two = builtin_piece("I2")
    painted = Piece("C", two.cells, "square", (1, 1))
    open_ = np.ones((8, 8), bool)
    open_[0, 0] = open_[3, 4] = False
    board = Board(open_, colour=np.full((8, 8), 2, np.uint8))
    instance = Instance(board, (PieceRule(painted, "free", 0, INF),), {"C": painted}, pairs=frozenset({(1, 2)}))
    placements = generate_placements(instance)
    assert relaxed(instance, np.array([1])).pairs == instance.pairs
    assert oracle(instance, cap=1)
    assert not any(uncoverable(placements, np.array([c])) for c in instance.board.open_cells[:8].tolist())


def _scattered_boards() -> list[Instance]:
    """Tileable boards whose blocked cells lie scattered (the corner windows' boards): a plain
    one, and one whose only piece fits its cells by a colour pair."""
    plain = np.ones((6, 6), dtype=bool)
    plain[0, 2] = plain[3, 3] = plain[5, 0] = False  # 33 cells for the L3
    painted = Piece("C", builtin_piece("I2").cells, "square", (1, 1))
    paired = np.ones((4, 4), dtype=bool)
    paired[0, 0] = paired[2, 1] = False  # opposite checkerboard colours
    return [Instance(Board(plain), parse_pieces("L3")),
            Instance(Board(paired, colour=np.full((4, 4), 2, np.uint8)), (PieceRule(painted, "free", 0, INF),),
                     {"C": painted}, pairs=frozenset({(1, 2)}))]


@pytest.mark.parametrize("board", [0, 1])
def test_a_corner_window_that_fails_wrongly_is_not_confirmed(board, monkeypatch):
    # the corner windows' "none" rests on relaxation.uncoverable alone: a window that failed
    # where it should not (made so here) leaves the search going on, to the verdict one CDCL run gives
    from tilesat import check_unique

    instance = _scattered_boards()[board]
    assert oracle_tilings(instance) and scattered_blocked(instance.board) >= SCATTERED
    monkeypatch.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
    monkeypatch.setattr("tilesat.engines.auto.SWEEP_MIN_AREA", 0)

    def wrongly_refuted(self, budget=None):
        self.refuted = np.flatnonzero(instance.board.open.ravel())[:2]
        return self.refuted

    monkeypatch.setattr(RepairSweep, "refute_at_corners", wrongly_refuted)
    result = check_unique(instance, method="sweep")
    assert result.stats["sweep"]["refuted"] == "a window's cells, not confirmed: the search goes on"
    assert result.verdict == check_unique(instance, method="sat").verdict == "multiple"


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["square", "hex", "triangle"]).flatmap(marked_instances), st.data())
def test_cells_called_uncoverable_on_coloured_boards_leave_the_board_without_a_tiling(instance, data):
    # colours, colour pairs, piece counts, every flat grid (optional cells made plain: the
    # sweep's boards are exact): uncoverable says True only where the board has no tiling
    b = instance.board
    instance = replace(instance, board=Board(b.open, b.wrap, b.grid, None, b.colour))
    cells = np.array(sorted(data.draw(st.sets(st.sampled_from(instance.board.open_cells.tolist()),
                                              min_size=1, max_size=6))))
    placements = generate_placements(instance)
    if not len(placements) or not uncoverable(placements, cells):
        return
    try:
        assert not oracle_tilings(instance)
    except TooHard:
        pass


def test_corner_cells_not_confirmed_are_not_checked_again_when_the_sweep_gives_up(monkeypatch):
    from tilesat import check_unique
    import tilesat.engines.sat as sat

    instance = _scattered_boards()[0]
    monkeypatch.setattr("tilesat.engines.sat.SWEEP_MIN_AREA", 0)
    monkeypatch.setattr("tilesat.engines.auto.SWEEP_MIN_AREA", 0)

    def wrongly_refuted(self, budget=None):
        self.refuted = np.flatnonzero(instance.board.open.ravel())[:2]
        return self.refuted

    def gives_up(self, progress=None, pause_wider_than=None):
        self.done = True
        return None

    checked = []

    def counted(placements, cells, alive=None, conflicts=None):
        checked.append(cells.tolist())
        return uncoverable(placements, cells, alive)

    monkeypatch.setattr(RepairSweep, "refute_at_corners", wrongly_refuted)
    monkeypatch.setattr(RepairSweep, "run", gives_up)
    monkeypatch.setattr(sat, "uncoverable", counted)
    result = check_unique(instance, method="sweep")
    assert checked == [np.flatnonzero(instance.board.open.ravel())[:2].tolist()]  # once, at the corners
    assert result.verdict == check_unique(instance, method="sat").verdict == "multiple"
