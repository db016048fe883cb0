"""Changing a tiling one box at a time: a second tiling near the first, and a
tiling whose piece counts hold.

A region is the cells of a tiling's tiles that lie whole inside a box of the
board; it is tiled again by the placements inside it (each of its cells
covered exactly once: a small SAT formula), the rest of the tiling kept.

* :func:`other_tiling` (check-unique's second tiling) asks each box in turn for
  a tiling of its region other than the first's.  A second tiling is most often
  a local change of the first.
* :func:`mend_counts`: piece counts bind the whole board, which no window of
  the sweep sees, so the sweep's tiling may use a piece more often than its
  rule allows, or not at all (CDCL tends to favour the first piece and leave
  others out).  Each box's
  region is tiled again with the counts as bounds on what it may hold, given
  what lies outside it: a piece the rest of the board has enough of is left out
  of it, a missing piece is asked for in a region where one fits, and no count
  strays further from its rule than it was.

Both carry the counts (:func:`region_bounds`) into every box; both prove
nothing (a tiling they do not find may exist elsewhere): the caller verifies
what they find and leaves "none" and "unique" to the whole-board solver.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from ..model.placements import Placements
from ..running.control import deadline, sigint_held
from ..sat.formula import between
from ..sat.solvers import DEFAULT_SOLVER
from .repair_sweep import add_window, solve_sliced
from .sweep import MIN_BUDGET, SweepStats, _Geometry, counts_hold

#: other_tiling: the box's side in cells, and how many boxes it tries at most.
BOX, MAX_BOXES = 8, 256
#: Why a sweep's tiling is not kept when mend_counts could not bring its counts within their rules.
BROKEN_COUNTS = "its tiling breaks the piece counts"
#: mend_counts: the box's side (wider than other_tiling's: a region must hold
#: other pieces than the ones it gives up), boxes every MEND_BOX // 2 cells, at
#: most MEND_PASSES passes over the board; a box's conflicts at most MEND_BUDGET.
MEND_BOX, MEND_PASSES, MEND_BUDGET = 10, 4, 5_000


class Regions:
    """A tiling (placement indices) and the regions its tiles cut out of boxes of the board."""

    def __init__(self, placements: Placements, chosen, alive: np.ndarray | None = None):
        self.placements, self.alive = placements, alive
        self.geo = _Geometry(placements)
        self.rows, self.cols = placements.instance.board.open.shape
        rules = placements.instance.rules
        self.bounded = any(r.bounded for r in rules)
        self.low = np.array([r.min for r in rules], dtype=np.int64)
        self.high = np.array([r.max if r.max != math.inf else np.iinfo(np.int64).max for r in rules], dtype=np.int64)
        self.set(chosen)

    def set(self, chosen) -> None:
        """Make ``chosen`` the tiling the regions are cut from."""
        geo = self.geo
        self.chosen = np.asarray(sorted(int(p) for p in chosen), dtype=np.int64)
        cells, owner = geo.cells_of(self.chosen)
        n = self.chosen.size
        self.lo_r = np.full(n, self.rows); np.minimum.at(self.lo_r, owner, geo.row[cells])
        self.lo_c = np.full(n, self.cols); np.minimum.at(self.lo_c, owner, geo.col[cells])
        self.hi_r = np.zeros(n, np.int64); np.maximum.at(self.hi_r, owner, geo.row[cells])
        self.hi_c = np.zeros(n, np.int64); np.maximum.at(self.hi_c, owner, geo.col[cells])
        self.used = np.bincount(self.placements.rule[self.chosen], minlength=len(self.low)).astype(np.int64)

    def inside(self, r0: int, c0: int, size: int) -> np.ndarray:
        """The tiles that lie whole inside the size x size box at (r0, c0)."""
        whole = (self.lo_r >= r0) & (self.hi_r < r0 + size) & (self.lo_c >= c0) & (self.hi_c < c0 + size)
        return self.chosen[whole]

    def candidates(self, inside: np.ndarray) -> np.ndarray:
        """The placements (alive ones) that lie whole inside the region these tiles cover."""
        geo = self.geo
        region = np.zeros(self.placements.instance.board.ncells, dtype=bool)
        region[geo.cells_of(inside)[0]] = True
        ids = geo.starting_in(int(geo.cell_key[region].min()), int(geo.cell_key[region].max()) + 1)
        if self.alive is not None:
            ids = ids[self.alive[ids]]
        cells, owner = geo.cells_of(ids)
        return ids[np.bincount(owner, weights=~region[cells], minlength=ids.size) == 0]

    def bounds(self, inside: np.ndarray, target: int | None = None, strong: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(at least, at most) of each piece in the new tiling of the region these tiles cover: a
        piece within its counts stays within them, one outside them strays no further, and the
        ``target`` piece, outside them, comes back within (``strong``) or one step nearer."""
        mine = np.bincount(self.placements.rule[inside], minlength=len(self.low)).astype(np.int64)
        outside = self.used - mine
        fill, room = np.maximum(0, self.low - outside), np.maximum(0, self.high - outside)
        over, short = self.used > self.high, self.used < self.low
        at_least, at_most = np.where(short, mine, fill), np.where(over, mine, room)
        if target is not None:
            if over[target]:
                at_most[target] = room[target] if strong else mine[target] - 1
            else:
                at_least[target] = fill[target] if strong else mine[target] + 1
        return at_least, at_most

    def retile(self, inside: np.ndarray, ids: np.ndarray, encoding: str, solver_name: str, stats: SweepStats,
               budget: int, bounds: tuple[np.ndarray, np.ndarray] | None = None,
               differ: bool = False) -> np.ndarray | None:
        """The placements of a tiling of the region ``inside`` covers by ``ids`` (within ``bounds`` of each
        piece; ``differ``: not the same placements), or None (none, or none within ``budget`` conflicts)."""
        from pysat.solvers import Solver

        uniq, owner, start, degree = self.geo.by_cell(ids)
        counts, top = _count_clauses(self.placements.rule[ids], bounds, ids.size) if bounds is not None else ([], ids.size)
        if counts is None:
            return None  # a piece asked for more often than the region has places for it
        empty = np.arange(top + 1, top + 1 + uniq.size, dtype=np.int64)  # every cell's "left empty": false
        solver = Solver(name=solver_name)
        try:
            add_window(solver, solver_name, (owner, start, degree, empty), encoding)
            for clause in [[-e] for e in empty.tolist()] + counts:
                solver.add_clause(clause)
            if differ:
                var = {int(p): i + 1 for i, p in enumerate(ids)}
                solver.add_clause([-var[int(p)] for p in inside])
            if not solve_sliced(solver, solver_name, [], budget, stats):
                return None
            model = np.asarray(solver.get_model(), dtype=np.int64)
        finally:
            with sigint_held():  # freed once, whole
                solver.delete()
        return ids[model[(model > 0) & (model <= ids.size)] - 1]

    def swap(self, inside: np.ndarray, new: np.ndarray) -> list[int]:
        """The tiling with the region's tiles replaced by ``new``."""
        return sorted(int(p) for p in np.concatenate([np.setdiff1d(self.chosen, inside), new]))


def _count_clauses(rule_of: np.ndarray, bounds: tuple[np.ndarray, np.ndarray], top: int) -> tuple[list | None, int]:
    """(clauses, last variable): at least and at most so many of each piece among variables
    1..len(rule_of) (variable i + 1 is a placement of piece ``rule_of[i]``); auxiliaries after ``top``.
    (None, top) when no region can meet them (a piece asked for more often than it has variables)."""
    at_least, at_most = bounds
    clauses: list = []
    for k in range(len(at_least)):
        more, top = between((np.flatnonzero(rule_of == k) + 1).tolist(), int(at_least[k]), int(at_most[k]), top)
        if [] in more:
            return None, top
        clauses.extend(more)
    return clauses, top


def other_tiling(placements: Placements, chosen: list[int], encoding: str = "ladder",
                 stats: SweepStats | None = None, solver_name: str = DEFAULT_SOLVER,
                 alive: np.ndarray | None = None) -> list[int] | None:
    """A tiling other than ``chosen`` that differs from it inside one BOX x BOX
    box only and keeps the piece counts (:func:`counts_hold`), or None when the
    boxes tried have none (which proves nothing).  ``alive``: the placements that
    may be in a tiling (the look-ahead's; the others are left out of every box)."""
    stats = stats if stats is not None else SweepStats()
    boxes = SweepStats()  # the boxes' solves: stats.local's, not the sweep's windows and conflicts
    t0 = time.perf_counter()
    limit = deadline()
    regions = Regions(placements, chosen, alive)
    corners = [(r, c) for r in range(0, regions.rows, BOX) for c in range(0, regions.cols, BOX)]
    if len(corners) > MAX_BOXES:  # spread over the board
        corners = [corners[i] for i in np.linspace(0, len(corners) - 1, MAX_BOXES).astype(int)]
    tried = 0
    try:
        for r0, c0 in corners:
            limit.check()
            inside = regions.inside(r0, c0, BOX)
            if inside.size < 2:
                continue  # one piece alone has no other way to cover its own cells
            tried += 1
            bounds = regions.bounds(inside) if regions.bounded else None
            new = regions.retile(inside, regions.candidates(inside), encoding, solver_name, boxes, MIN_BUDGET,
                                 bounds, differ=True)
            if new is not None:
                other = regions.swap(inside, new)
                if counts_hold(placements, other):
                    return other
        return None
    finally:
        stats.local = {"boxes": tried, "conflicts": boxes.conflicts, "seconds": round(time.perf_counter() - t0, 6)}


def mend_counts(placements: Placements, chosen: list[int], encoding: str = "ladder",
                stats: SweepStats | None = None, solver_name: str = DEFAULT_SOLVER,
                alive: np.ndarray | None = None, progress: Callable | None = None) -> list[int] | None:
    """``chosen`` when its piece counts hold, else a tiling made from it by re-tiling
    boxes until they do (``stats.mend``: boxes tried, mended, conflicts, seconds), or
    None when MEND_PASSES passes over the board leave a count broken (``stats.gave_up``
    says so: the sweep's tiling is not kept)."""
    if counts_hold(placements, chosen):
        return chosen
    stats = stats if stats is not None else SweepStats()
    boxes = SweepStats()
    t0 = time.perf_counter()
    limit = deadline()
    regions = Regions(placements, chosen, alive)
    half = MEND_BOX // 2
    corners = [(r, c) for r in range(-half, regions.rows, half) for c in range(-half, regions.cols, half)]
    tried = mended = 0
    try:
        for _ in range(MEND_PASSES):
            before = mended
            for r0, c0 in corners:
                limit.check()
                if progress is not None:
                    progress(f"mending the piece counts box by box: {mended} mended")
                over = regions.used > regions.high
                short = regions.used < regions.low
                if not (over.any() or short.any()):
                    return regions.chosen.tolist()
                inside = regions.inside(r0, c0, MEND_BOX)
                if inside.size == 0:
                    continue
                ids = regions.candidates(inside)
                mine = np.bincount(placements.rule[inside], minlength=over.size)
                fits = np.bincount(placements.rule[ids], minlength=over.size) > 0
                off = np.where(over & (mine > 0), regions.used - regions.high, 0)
                off = np.maximum(off, np.where(short & fits, regions.low - regions.used, 0))
                if not off.any():
                    continue  # this region can mend nothing
                target = int(np.argmax(off))  # the count furthest off that it can mend
                for strong in (True, False):
                    tried += 1
                    new = regions.retile(inside, ids, encoding, solver_name, boxes, MEND_BUDGET,
                                         regions.bounds(inside, target, strong))
                    if new is not None:
                        mended += 1
                        regions.set(regions.swap(inside, new))
                        break
            if mended == before:
                break
        if counts_hold(placements, regions.chosen):
            return regions.chosen.tolist()
        stats.gave_up = BROKEN_COUNTS
        return None
    finally:
        stats.mend = {"boxes": tried, "mended": mended, "conflicts": boxes.conflicts,
                      "seconds": round(time.perf_counter() - t0, 6)}
