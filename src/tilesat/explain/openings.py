"""Black cells that could be opened while the board keeps its one tiling.

An author wants as few black cells as possible.  One formula serves every
question: the packing formula of the whole box (every cell open), where each
cell has an "empty" variable; the board's open cells must be covered (unit
clauses), and for each candidate the other black cells are assumed empty and
the candidate's cells covered.  Two questions a candidate: a tiling of the
opened board, then another one; none the second time means it stays unique.

Single cells first, where the pieces' areas allow one more cell at all; when
they cannot (every piece of 4 cells: one more cell leaves an area no tiling
has), groups of black cells shaped as a piece (a placement lying wholly on
black cells), as a puzzle generator opens blacked-out tiles again.
"""

from __future__ import annotations

import numpy as np

from ..model.board import Board
from ..certify.checks import _sums_bitset
from ..sat.formula import compile_formula
from ..model.instance import Instance
from ..model.placements import Placements, generate_placements
from .regions import inside
from .solver import AssumingSolver


def _admissible(instance: Instance, extra: int) -> bool:
    """Whether the pieces can add up to the board's area plus ``extra`` cells."""
    area = instance.board.area + extra
    reach = _sums_bitset(area, [(r.piece.size, r.min, r.max) for r in instance.rules])
    return bool((reach >> area) & 1)


def openings(instance: Instance, placements: Placements, wanted: int, solver: str) -> tuple[list[np.ndarray], str]:
    """Up to ``wanted`` sets of black cells (flat indices) whose opening keeps the board
    unique, in reading order, and a sentence saying what was looked at."""
    board = instance.board
    blocked = ~board.open.ravel()
    if not blocked.any():
        return [], "the board has no black cell"
    full = Instance(Board(np.ones(board.open.shape, dtype=bool), board.wrap, board.grid), instance.rules,
                    instance.shapes, instance.source)
    fp = generate_placements(full)
    if _admissible(instance, 1):
        # a black cell some piece could cover with the open cells
        reach = board.open.ravel() | blocked
        near = np.zeros(board.ncells, dtype=bool)
        for p in inside(fp, reach).tolist():
            cells = fp.cells_of(p)
            if blocked[cells].sum() == 1:
                near[cells[blocked[cells]]] = True
        candidates = [np.array([c]) for c in np.flatnonzero(near).tolist()]
        what = "single black cells"
    else:
        groups = [fp.cells_of(p) for p in inside(fp, blocked).tolist()
                  if _admissible(instance, int(fp.indptr[p + 1] - fp.indptr[p]))]
        groups = [g for g in groups if _touches_open(board, g)]
        candidates = sorted(groups, key=lambda g: g.tolist())
        what = ("groups of black cells shaped as a piece (no single black cell can be opened: the pieces "
                f"cannot cover {board.area + 1} cells)")
    if not candidates:
        return [], f"no {what.split(' (')[0]} to try"
    formula = compile_formula(fp, "auto", allow_empty=True)
    empty = formula.empty_vars  # one per cell of the box, in flat order
    found: list[np.ndarray] = []
    tried = 0
    with AssumingSolver(formula, solver) as sat:
        for c in np.flatnonzero(~blocked).tolist():
            sat.add_clause([-int(empty[c])])
        black = np.flatnonzero(blocked)
        for cells in candidates:
            tried += 1
            opened = set(cells.tolist())
            assumptions = [int(empty[b]) if b not in opened else -int(empty[b]) for b in black.tolist()]
            if not sat.solve(assumptions):
                continue
            tiling = np.flatnonzero(sat.true_set(len(fp)))
            act = sat.new_var()
            sat.add_clause([-act] + (-(tiling + 1)).tolist())
            try:
                again = sat.solve(assumptions + [act])
            finally:
                sat.add_clause([-act])
            if not again:
                found.append(np.asarray(cells, dtype=np.int64))
                if len(found) >= wanted:
                    break
    every = "all" if tried == len(candidates) else f"{tried} of {len(candidates)}"
    return found, f"{every} {what} tried"


def _touches_open(board: Board, cells: np.ndarray) -> bool:
    open_ = board.open
    return any(open_[n] for c in board.cells(cells) for n in board.neighbours(*c))
