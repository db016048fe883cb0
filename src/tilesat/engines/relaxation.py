"""Cells that no set of non-overlapping pieces covers: a board with them has no tiling.

A sweep window solved with nothing kept (:meth:`.repair_sweep.RepairSweep.refute_at_corners`)
is such a relaxation of the board, and one without a solution would answer "none".  Its
window code wrote that formula, so the answer rests on :func:`uncoverable` instead: the
cells alone made into an instance of their own (the cells around them, as far as a piece
reaches, left optional; piece counts dropped, as a part of a tiling need not meet them),
its placements made, compiled and solved as every whole board is, with no look-ahead.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..certify.checks import obstruction
from ..model.board import Board
from ..model.instance import INF, Instance, PieceRule
from ..model.placements import Placements, generate_placements
from ..sat.formula import compile_formula, resolve_encoding
from ..sat.solvers import load_formula, make_solver

#: The conflicts :func:`uncoverable` gives its solver (a corner window without a solution took
#: 8,000 on an L4 40x40 tuning board; those with one end within 1,500).
CONFLICTS = 20_000


def relaxed(instance: Instance, cells: np.ndarray) -> Instance:
    """These open cells of a flat square board to cover, the open cells a piece covering them
    may also cover optional, every other cell blocked, the piece counts dropped."""
    board = instance.board
    # any two cells of a piece lie within its extent of each other, in every orientation
    reach = max(int(np.ptp(np.asarray(r.piece.cells), axis=0).max()) for r in instance.rules)
    must = np.zeros(board.open.size, dtype=bool)
    must[np.asarray(cells, dtype=np.int64)] = True
    must = must.reshape(board.open.shape) & board.open
    near = must.copy()
    for axis in (0, 1):  # Chebyshev distance <= reach: grow along rows, then along columns
        grown = near.copy()
        for d in range(1, reach + 1):
            shifted = np.roll(near, d, axis)
            back = np.roll(near, -d, axis)
            if axis == 0:
                shifted[:d, :] = False
                back[-d:, :] = False
            else:
                shifted[:, :d] = False
                back[:, -d:] = False
            grown |= shifted | back
        near = grown
    open_ = near & board.open
    sub = Board(open_, grid=board.grid, optional=open_ & ~must, colour=board.colour)
    # everything else of the instance kept (which colours may meet, its shapes)
    return replace(instance, board=sub, rules=tuple(PieceRule(r.piece, r.orient, 0, INF) for r in instance.rules))


def uncoverable(placements: Placements, cells: np.ndarray, alive: np.ndarray | None = None,
                conflicts: int = CONFLICTS) -> bool:
    """Whether no set of non-overlapping placements covers all these cells of the placements'
    board, with only the ``alive`` ones (the look-ahead's, replayed: .prune.look_ahead) where
    given; False also when the solver did not decide within ``conflicts``, on grids other than
    the square one (where :func:`relaxed` does not know how far a piece reaches), on boards that
    wrap (a piece may reach the cells across an edge, which the relaxed board cuts off) and on
    boards with cells that may stay empty (the cells must be covered here)."""
    board = placements.instance.board
    if board.grid != "square" or board.open.ndim != 2 or board.wrap != "none" or not board.exact:
        return False
    part = relaxed(placements.instance, cells)
    mine = generate_placements(part)
    if obstruction(part, mine) is not None:  # a cell no piece fits on
        return True
    formula = compile_formula(mine, resolve_encoding("auto", mine))
    solver = make_solver("cadical195")
    try:
        load_formula(solver, formula, "cadical195", lambda *a, **k: None)
        for p in _dead(placements, alive, mine):
            solver.add_clause([-(p + 1)])
        return solver.solve(conflicts=conflicts) is False
    finally:
        solver.close()


def _dead(placements: Placements, alive: np.ndarray | None, mine: Placements) -> list[int]:
    """The placements of ``mine`` (the same board's shape) that are dead ones of ``placements``:
    the same piece on the same cells (none on a coloured board, where two placements may share both)."""
    coloured = placements.instance.board.colour is not None or any(r.piece.colours for r in placements.instance.rules)
    if alive is None or alive.all() or coloured:
        return []
    dead = {(int(placements.rule[p]), tuple(sorted(placements.cells_of(p).tolist())))
            for p in np.flatnonzero(~alive).tolist()}
    return [p for p in range(len(mine)) if (int(mine.rule[p]), tuple(sorted(mine.cells_of(p).tolist()))) in dead]
