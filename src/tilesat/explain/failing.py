"""Where a board with no tiling fails: a small set of cells that cannot all be covered.

The board's packing formula (each open cell covered at most once, or left
empty) with one assumption per open cell, "this cell is covered", and one
more for the piece counts: with every assumption the formula is the tiling
formula, unsatisfiable.  The solver's unsatisfiable core is a set of cells
(and maybe the counts) that no packing covers all at once; it is shrunk by
deletion (each member dropped in turn, kept out when the rest is still
unsatisfiable, the rest then cut to the new core), which leaves a *minimal*
set: without any one of its cells the others can all be covered.  When the
time runs out before every member was tried, the set is smaller than the
board but not proven minimal ("near-minimal").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..running.control import TimedOut
from ..sat.formula import compile_formula, count_clauses
from ..model.instance import INF, Instance, PieceRule
from ..model.placements import Placements
from .solver import AssumingSolver


@dataclass
class FailingRegion:
    """Open cells (flat indices) no packing covers all at once."""

    cells: np.ndarray
    counts: bool  # the piece counts are part of it (without them the cells could all be covered)
    minimal: bool
    stopped: str | None = None  # "timeout" when shrinking stopped early


def failing_region(instance: Instance, placements: Placements, solver: str = "cadical195") -> FailingRegion | None:
    """A minimal set of cells whose covering constraints (with the piece counts,
    where they take part) are unsatisfiable; None when the board has a tiling."""
    board = instance.board
    free = instance.with_rules(PieceRule(r.piece, r.orient, 0, INF) for r in instance.rules)
    # the same placements, the counts left out of the packing formula: they get their own switch
    packing = compile_formula(Placements(free, placements.rule, placements.indptr, placements.cells),
                              "auto", allow_empty=True)
    with AssumingSolver(packing, solver) as sat:
        cells = board.open_cells
        covered = {int(v): int(c) for v, c in zip((-packing.empty_vars).tolist(), cells.tolist())}
        assumptions = list(covered)
        counts_switch = None
        clauses, top = count_clauses(placements, packing.top, packing.card)
        if clauses:
            counts_switch = top + 1
            sat.top = max(sat.top, counts_switch)
            for clause in clauses:
                sat.add_clause([-counts_switch] + clause)
            assumptions.append(counts_switch)
        if sat.solve(assumptions):
            return None
        core = sat.core() or assumptions
        region = FailingRegion(np.zeros(0, dtype=np.int64), False, False)
        try:
            core = _shrink(sat, _far_first(board, core, covered), region, covered, counts_switch)
            region.minimal = True
        except TimedOut:
            region.stopped = "timeout"
            core = region._kept
        region.counts = counts_switch is not None and counts_switch in core
        region.cells = np.array(sorted(covered[lit] for lit in core if lit in covered), dtype=np.int64)
        return region


def _far_first(board, core: list[int], covered: dict) -> list[int]:
    """The core's cells farthest from its middle first (deletion tries them first, so
    what stays tends to be one compact patch), the counts' switch last."""
    cells = [lit for lit in set(core) if lit in covered]
    if not cells:
        return list(set(core))
    where = np.array(board.cells([covered[lit] for lit in cells]), dtype=float)
    middle = np.median(where, axis=0)
    far = np.abs(where - middle).sum(axis=1)
    order = [cells[i] for i in np.lexsort((np.array(cells), -far))]
    return order + [lit for lit in set(core) if lit not in covered]


def _shrink(sat: AssumingSolver, core: list[int], region: FailingRegion, covered: dict, counts_switch) -> list[int]:
    """Deletion, in the given order: drop each member that the rest does without;
    ``region._kept`` is the current (unsatisfiable) set at every moment, for a stop
    in the middle."""
    necessary: list[int] = []
    region._kept = list(core)
    while core:
        lit, rest = core[0], core[1:]
        if sat.solve(necessary + rest):
            necessary.append(lit)  # without it the rest can be satisfied: it belongs
            core = rest
        else:
            smaller = set(sat.core())
            core = [x for x in rest if x in smaller]
        region._kept = necessary + core
    return necessary
