"""A sweep that mends the tiling where a window fails, instead of undoing whole steps.

The sweep of :mod:`tilesat.engines.sweep` keeps the placements of each window's
first diagonals and, when a window has no solution, undoes the last kept
step (a whole anti-diagonal band across the board) and tries again wider.
On boards made differently from the row-major packings it was tuned on
(packings in random order, clusters of tiles removed) a window fails because
of a few kept pieces in one corner of the front, undoing bands does not free
them, and the sweep widens until it gives up (issue 29: 12 widenings and
then whole-board CDCL on a 60x60 board with clustered holes).

Here the window's exact-cover constraints are assumptions ("this cell is
not left empty"), so a window without a solution says which of its cells
could not be covered together (CaDiCaL's failed assumptions).  The kept
placements near those cells (within ``radius`` cells) are taken back, their
cells join the next window, and the window is solved again; a repeated
failure takes back a wider neighbourhood.  The front never moves back: what
is freed is a patch around the trouble, not a band.

Like the sweep it proves nothing (the kept pieces far from a failure stay),
its tiling is checked by the caller, and "none" and "unique" stay with the
whole-board solver.  Dead placements (:mod:`tilesat.engines.prune`) are left out
of every window.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..running.control import deadline, sigint_held
from ..sat.encodings import get_encoding
from ..model.placements import Placements
from ..sat.solvers import DEFAULT_SOLVER, _conflicts, _raw_add_clause, solve_quietly
from .sweep import BUDGET_PER_CELL, CORNERS, MIN_BUDGET, STEP, WINDOW, Stepping, SweepStats, _Geometry

#: The neighbourhood taken back around a failed window's cells, in cells
#: (Chebyshev distance); it grows by GROW at each failure until the front moves.
#: Small: wider patches make mended windows too large to get through on their conflicts
#: (L4 60x60 tuning boards, docs/benchmarks/hard-families.md).
RADIUS, GROW, MAX_RADIUS = 3, 3, 6
#: A sweep that has taken back this many patches gives up (the caller's
#: whole-board solver goes on).
MAX_REPAIRS = 300
#: A window's solve runs in slices of this many conflicts (a few tenths of a second at
#: most), the deadline checked between them.
SLICE = 2_000
#: One sweep's conflicts, at most this many per open cell; past them, or when a mended
#: window runs out of its budget, the sweep starts again from nothing with the next
#: encoding of its list (RESTART_ENCODINGS after its own), from the next corner of
#: the board (CORNER_ORDER) and in the next order of the cells (ATTEMPT_ORDERS), and gives
#: up after ATTEMPTS attempts.
#: Why: whether a sweep gets through a tight board is a lottery per board, encoding and
#: corner, while a sweep that goes well needs a few conflicts a cell; another corner is
#: another draw where another encoding alone is not (docs/benchmarks/hard-families.md).
CONFLICTS_PER_CELL = 15
#: The first attempt earns its budget as it goes: past CONFLICTS_PER_CELL conflicts a cell it has
#: covered plus AHEAD_PER_CELL a cell of the board, it ends (under HOPELESS_COVER: the whole board).
#: Why: the first attempts of T4 spiral packings ran 4-13 a cell ahead of their cover and failed
#: (up to 43,000 conflicts, the whole-board solver's anyway), while on 77 tuning boards of 22
#: families no first attempt that got through ran more than 3 ahead (later, L4 clusters 60x60
#: tuning 121 did at 5: cut, it goes to the whole board).  Not the later attempts: they come where
#: the first got past HOPELESS_COVER, and one (L4 clusters 60x60, tuning 104) got through after
#: running 5 a cell ahead (docs/benchmarks/hard-families.md).
AHEAD_PER_CELL = 5
RESTART_ENCODINGS = ("commander", "ladder", "pairwise")
#: The corners the attempts start from in turn: sweep.CORNERS' order (the opposite corner second).
CORNER_ORDER = tuple(range(len(CORNERS)))
#: The order of the cells (sweep.ORDERS) each attempt sweeps in, in turn: two along the
#: diagonals, then two whose front bends around blocked regions: another draw where the
#: diagonals' draws fail, though alone it fails more boards than they do (its front closes
#: behind blocked regions; docs/benchmarks/hard-families.md).
ATTEMPT_ORDERS = ("diagonal", "diagonal", "open-distance", "open-distance")
ATTEMPTS = 4
#: A first attempt that fails before covering this share of the open cells ends the sweep: the
#: whole-board solver takes over at once.  Why: on 100 tuning boards of 15 families the attempts
#: after such a first one all failed too (T4 spiral packings: every attempt of every board stopped
#: at 3-45% of the board, ~1.4 s each), while the boards a later attempt got through had a first
#: one that failed past 37% (docs/benchmarks/hard-families.md).
HOPELESS_COVER = 0.25
#: The conflicts of each corner window of :meth:`RepairSweep.refute_at_corners`: most end
#: within 1,500 on L4 40x40 boards with 4% blocked at random; one without a solution took 8,000.
CORNER_BUDGET = 10_000


@dataclass(frozen=True)
class Reach:
    """How far a repairing sweep looks: it keeps ``step`` diagonals of each ``window``, and takes
    back ``radius`` cells around a failed window's cells, ``grow`` more at each failure up to ``max_radius``."""

    step: int = STEP
    window: int = WINDOW
    radius: int = RADIUS
    grow: int = GROW
    max_radius: int = MAX_RADIUS


#: Boards of at most this many cells (40x40) sweep in fewer, wider windows (SMALL_REACH):
#: there a window ends within tens of conflicts, and starting a solver and giving it the
#: window's clauses is most of a window's time (step 12 of 20: a third fewer windows than 8
#: of 16 for as many conflicts).  They keep the wider take-back of 5 cells growing to 10,
#: where the larger boards' smaller one made P5 sweeps slower
#: (both measured in docs/benchmarks/hard-families.md).
SMALL_BOARD = 1600
SMALL_REACH = Reach(step=12, window=20, radius=5, grow=5, max_radius=10)


def reach_for(placements: Placements) -> Reach:
    """The sweep's window and step for this board: SMALL_REACH on small boards, else the default."""
    return SMALL_REACH if placements.instance.board.ncells <= SMALL_BOARD else Reach()


class RepairSweep(Stepping):
    """A resumable sweep (the interface of :class:`tilesat.engines.sweep.Sweep`): a
    deadline or Ctrl-C in the middle of a window loses that window only."""

    def __init__(self, placements: Placements, encoding: str = "ladder", solver_name: str = DEFAULT_SOLVER,
                 stats: SweepStats | None = None, alive: np.ndarray | None = None, reach: Reach | None = None,
                 options: dict | None = None, attempts: int = ATTEMPTS):
        reach = reach or reach_for(placements)  # None: chosen by the board's size
        step, window = reach.step, reach.window
        if not 0 < step < window:
            raise ValueError(f"a sweep keeps part of each window: 0 < step < window (step {step}, window {window})")
        self.placements, self.solver_name, self.options = placements, solver_name, dict(options or {})
        self.step, self.window, self.radius0, self.grow, self.max_radius = (step, window, reach.radius, reach.grow,
                                                                            reach.max_radius)
        encodings = [encoding] + [e for e in RESTART_ENCODINGS if e != encoding]
        # (encoding, corner, order of the cells) of each attempt: they change from one attempt to the next
        self.attempts = [(encodings[i % len(encodings)], CORNER_ORDER[i % len(CORNER_ORDER)],
                          ATTEMPT_ORDERS[i % len(ATTEMPT_ORDERS)]) for i in range(attempts)]
        self._geometries: dict[tuple[int, str], _Geometry] = {}
        self.stats = stats if stats is not None else SweepStats()
        board = placements.instance.board
        self.shape = board.open.shape
        self.alive = np.ones(len(placements), dtype=bool) if alive is None else alive
        self.attempt_budget = CONFLICTS_PER_CELL * max(1, board.area)
        self.repairs = 0
        self.done = False  # a tiling found, or given up
        self.chosen: list[int] | None = None
        # cells a window with nothing kept could not cover together: such a window is a
        # relaxation of the board (every placement that may cover its cells), so the board
        # has no tiling, once a solver that is not this one agrees (the caller's business)
        self.refuted: np.ndarray | None = None
        # the kept placements of the attempt that covered the most cells when it gave up (a
        # partial tiling: the whole-board solver repairs it in discs, engines.sat) and the
        # cells its last failed window could not cover
        self.furthest: np.ndarray | None = None
        self.furthest_failed: np.ndarray | None = None
        self._furthest_cells = -1
        self._start(0)

    def keep_attempts(self, indices) -> RepairSweep:
        """Make only these of its attempts (their encodings and corners), in this order: a
        portfolio member's share (engines.portfolio); starts the first of them."""
        self.attempts = [self.attempts[i] for i in indices]
        self._start(0)
        return self

    def _start(self, attempt: int) -> None:
        """Start (again) from nothing, with the attempt's encoding."""
        self.attempt = attempt
        self.encoding, self.corner, self.order = self.attempts[attempt]
        get_encoding(self.encoding)  # an unknown name fails here, not in a window
        self.geo = self._geometry(self.corner, self.order)
        self.covered = np.zeros(self.placements.instance.board.ncells, dtype=bool)
        self.kept = np.zeros(len(self.placements), dtype=bool)
        self.f = int(self.geo.open_keys[0]) if self.geo.open_keys.size else 0
        self.width, self.radius = self.window, self.radius0
        self.attempt_repairs = 0
        self.conflicts_at_start = self.stats.conflicts
        self.earning_since = self.stats.conflicts  # (refute_at_corners' windows are not the attempt's)
        self.failed_last: np.ndarray | None = None  # the cells the attempt's last failed window could not cover

    def _geometry(self, corner: int, order: str) -> _Geometry:
        if (corner, order) not in self._geometries:
            self._geometries[corner, order] = _Geometry(self.placements, corner, order)
        return self._geometries[corner, order]

    def refute_at_corners(self, budget: int = CORNER_BUDGET) -> np.ndarray | None:
        """Each attempt's corner, before any attempt sweeps: its first window and one a step
        wider, solved with nothing kept (within ``budget`` conflicts each).  The cells of the
        first that has no solution (also :attr:`refuted`), or None.  (A sweep meets such an
        obstruction only when an attempt gets there, after the attempts before have failed.)"""
        try:
            return self._refute_at_corners(budget)
        finally:
            self.earning_since = self.stats.conflicts

    def _refute_at_corners(self, budget: int) -> np.ndarray | None:
        for corner in dict.fromkeys(c for _, c, _ in self.attempts):
            geo = self._geometry(corner, "diagonal")  # the corner's triangle, whatever order its attempt sweeps in
            for width in (self.window, self.window + self.step):
                if not geo.open_keys.size:
                    break
                hi = int(geo.open_keys[0]) + width
                exact = geo.open & (geo.cell_key < hi)
                ids = geo.starting_in(0, hi)
                chosen, failed = self._solve(ids[self.alive[ids]], exact, budget, geo)
                if failed is not None:
                    self.refuted = failed
                    return failed
                if chosen is None:  # out of its budget: a wider one would take longer still
                    break
        return None

    def _step(self, progress) -> None:
        geo, f = self.geo, self.f
        if f >= geo.nkeys:
            self.done = True
            self.chosen = np.flatnonzero(self.kept).tolist()
            return
        deadline().check()
        if progress is not None:
            progress(f"sweeping: {'diagonal' if self.order == 'diagonal' else 'step'} {f} of {geo.nkeys}"
                     + (f", {self.repairs} repairs" if self.repairs else ""),
                     f, geo.nkeys)
        hi = geo.nkeys if f + self.width + self.step >= geo.nkeys else f + self.width
        exact = geo.open & ~self.covered & (geo.cell_key < hi)  # the window and the cells taken back
        lo = int(geo.cell_key[exact].min()) if exact.any() else f
        ids = geo.starting_in(lo, hi)
        ids = ids[self.alive[ids]]
        cells, owner = geo.cells_of(ids)
        ids = ids[np.bincount(owner, weights=self.covered[cells], minlength=ids.size) == 0]
        self.stats.widest = max(self.stats.widest, hi - f)
        left = self.attempt_budget - (self.stats.conflicts - self.conflicts_at_start)
        if left <= 0:
            self._give_up(f"the sweep passed {self.attempt_budget:,} conflicts")
            return
        earned = self._earned_left()
        if earned <= 0:
            self._give_up(f"the attempt spent {self.stats.conflicts - self.earning_since:,} conflicts to cover "
                          f"{np.count_nonzero(self.covered):,} cells")
            return
        chosen, failed = self._solve(ids, exact, int(min(left, earned)))
        if chosen is not None:
            last = hi >= geo.nkeys
            keep = chosen if last else chosen[geo.first[chosen] < f + self.step]
            self.kept[keep] = True
            self.covered[geo.cells_of(keep)[0]] = True
            self.f = geo.nkeys if last else f + self.step
            self.width, self.radius = self.window, self.radius0
            return
        if failed is None:  # out of budget, not proved impossible
            if earned < left and self._earned_left() <= 0:
                return  # out of what the first attempt earned: the next step ends it
            if self.attempt_repairs:
                # a patch that does not mend within its budget is most often one that cannot
                # (the trouble lies further back) and CDCL flounders proving it: the
                # whole-board solver does better from here (a 40x40 board with random
                # holes: 40,000 conflicts for one such window, then 51,000 wider)
                self._give_up("a repaired window ran out of its conflict budget")
                return
            self.width += 2 * self.step  # look further ahead
            self.stats.widened += 1
            if self.width > geo.nkeys // 2:
                self._give_up(f"the window widened to {self.width} of {geo.nkeys} diagonals")
            return
        self._take_back(failed)

    def _earned_left(self) -> float:
        """The conflicts the first attempt has earned by its cover and not spent (AHEAD_PER_CELL);
        no bound for a later attempt (its own budget is)."""
        if self.attempt:
            return math.inf
        covered = int(np.count_nonzero(self.covered))
        return (CONFLICTS_PER_CELL * covered + AHEAD_PER_CELL * self.placements.instance.board.area
                - (self.stats.conflicts - self.earning_since))

    def _take_back(self, failed: np.ndarray) -> None:
        """Free the kept placements within ``radius`` of these cells (growing the radius until some are)."""
        self.failed_last = failed
        geo = self.geo
        kept = np.flatnonzero(self.kept)
        cells, owner = geo.cells_of(kept)
        radius = self.radius
        while True:
            near = self._near(failed, radius)
            hit = kept[np.bincount(owner, weights=near[cells], minlength=kept.size) > 0]
            if hit.size:
                break
            radius += max(1, self.grow)  # nothing kept near: look further out
            if radius > max(self.shape):  # nothing kept at all: the window was a relaxation of the board
                self.refuted = failed
                # no other attempt can do better: the whole board, unless its own formula confirms it
                self.stats.gave_up = "a window failed with nothing kept (stats.refuted: whether that was confirmed)"
                self.done = True
                return
        self.radius = min(self.max_radius, self.radius + self.grow)
        self.repairs += 1
        self.attempt_repairs += 1
        self.stats.repairs += 1
        self.kept[hit] = False
        self.covered[geo.cells_of(hit)[0]] = False
        if self.attempt_repairs >= MAX_REPAIRS:
            self._give_up(f"{self.attempt_repairs} repairs")

    def _give_up(self, why: str) -> None:
        """Start again with the next encoding, or give up after the last, or after a first
        attempt that failed early (HOPELESS_COVER)."""
        covered = int(np.count_nonzero(self.covered))
        if covered > self._furthest_cells:
            self.furthest, self.furthest_failed, self._furthest_cells = np.flatnonzero(self.kept), self.failed_last, covered
        left = len(self.attempts) - self.attempt - 1
        area = self.placements.instance.board.area
        if self.attempt == 0 and left and covered < HOPELESS_COVER * area:
            self.stats.foregone = left * self.attempt_budget
            why = (f"{why}; that first attempt covered {covered / area:.0%} of the open cells (under "
                   f"{HOPELESS_COVER:.0%}): the other attempts were left to the whole-board solver")
        elif left:
            self.stats.restarts.append(f"{self.encoding}, corner {self.corner}, {self.order} order: {why}")
            self._start(self.attempt + 1)
            return
        self.stats.gave_up = why
        self.done = True

    def furthest_apart(self, radius: int) -> np.ndarray | None:
        """The placements of :attr:`furthest` none of whose cells lies within ``radius`` of the
        cells its last failed window could not cover (None: no such window)."""
        if self.furthest is None or self.furthest_failed is None:
            return None
        cells, owner = self.geo.cells_of(self.furthest)
        near = self._near(self.furthest_failed, radius)
        return self.furthest[np.bincount(owner, weights=near[cells], minlength=self.furthest.size) == 0]

    def _near(self, cells: np.ndarray, radius: int) -> np.ndarray:
        """A mask of the cells within ``radius`` (Chebyshev) of these, flat."""
        rows, cols = self.shape
        mask = np.zeros(self.shape, dtype=bool)
        mask[cells // cols, cells % cols] = True
        out = mask.copy()
        for d in range(1, radius + 1):
            out[d:, :] |= mask[:-d, :]
            out[:-d, :] |= mask[d:, :]
        rows_done = out.copy()
        for d in range(1, radius + 1):
            out[:, d:] |= rows_done[:, :-d]
            out[:, :-d] |= rows_done[:, d:]
        return out.ravel()

    def _solve(self, ids: np.ndarray, exact: np.ndarray, left: int,
               geo: _Geometry | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(the placements of a solution, None), (None, the cells that could not be
        covered together), or (None, None) when the budget ran out."""
        uniq, owner, start, degree = (geo or self.geo).by_cell(ids)
        inside = exact[uniq]
        if np.count_nonzero(inside) < np.count_nonzero(exact):
            touched = np.zeros(exact.size, dtype=bool)
            touched[uniq] = True
            return None, np.flatnonzero(exact & ~touched)
        # every cell: exactly one of its placements or "left empty"; the window's cells assume not empty
        empty = np.arange(ids.size + 1, ids.size + 1 + uniq.size, dtype=np.int64)
        assumptions = (-empty[inside]).tolist()
        budget = min(left, max(MIN_BUDGET, BUDGET_PER_CELL * len(assumptions)))
        from pysat.solvers import Solver

        solver = Solver(name=self.solver_name)
        try:
            if self.options:
                solver.solver.configure(self.options)
            add_window(solver, self.solver_name, (owner, start, degree, empty), self.encoding)
            status = solve_sliced(solver, self.solver_name, assumptions, budget, self.stats)
            if status is None:
                return None, None
            if status is False:
                solver.solver.prev_assumps = assumptions  # what PySAT's get_core reads (solve_quietly bypasses it)
                cell_of = dict(zip((-empty[inside]).tolist(), uniq[inside].tolist()))
                failed = [cell_of[lit] for lit in (solver.get_core() or []) if lit in cell_of]
                return None, np.array(sorted(failed), dtype=np.int64) if failed else np.flatnonzero(exact)
            model = np.array(solver.get_model()[:ids.size], dtype=np.int64)  # the placements' variables come first
            true = model[(model > 0) & (model <= ids.size)]
            return ids[true - 1], None
        finally:
            with sigint_held():  # freed once, whole
                solver.delete()

def solve_sliced(solver, solver_name: str, assumptions: list[int], budget: int, stats: SweepStats) -> bool | None:
    """A window's solve (a PySAT solver), SLICE conflicts at a time so that a deadline or Ctrl-C
    stops it within a slice (CaDiCaL goes on from what it learnt); None past the budget."""
    limit = deadline()
    used = 0
    try:
        while used < budget:
            solver.conf_budget(min(SLICE, budget - used))
            before = _conflicts(solver)
            status = solve_quietly(solver, solver_name, assumptions)
            used += max(1, _conflicts(solver) - before)
            if status is not None:
                return status
            limit.check()
        return None
    finally:
        stats.conflicts += _conflicts(solver)
        stats.windows += 1


#: The encodings whose window clauses engines/_window.c writes (the same clauses, in the same order).
COMPILED_ENCODINGS = {"pairwise": 0, "ladder": 1, "commander": 2}


def window_clauses(owner: np.ndarray, start: np.ndarray, degree: np.ndarray, empty: np.ndarray, encoding: str,
                   compiled: bool = True) -> list[list[int]]:
    """A window's clauses: each cell ``i`` exactly one of its placements' variables
    (``owner[start[i]:start[i] + degree[i]] + 1``) or its "left empty" variable ``empty[i]``,
    cells grouped by degree, in ``encoding`` (auxiliaries after the last empty variable);
    by engines/_window.c where it has the encoding and ``compiled``, else by the encoder."""
    if compiled and encoding in COMPILED_ENCODINGS:
        from ._window import window_clauses as compiled_clauses

        return compiled_clauses(*_compiled_arguments((owner, start, degree, empty), encoding))
    top = int(empty[-1]) if empty.size else 0
    encode = get_encoding(encoding)
    clauses: list[list[int]] = []
    for d in np.unique(degree):
        sel = np.flatnonzero(degree == d)
        lits = np.hstack([owner[start[sel][:, None] + np.arange(d)[None, :]] + 1, empty[sel][:, None]])
        blocks, top = encode(lits, top)
        for block in blocks:
            clauses.extend(np.asarray(block).tolist())
    return clauses


def add_window(solver, solver_name: str, cells: tuple, encoding: str) -> None:
    """Add a window's clauses (:func:`window_clauses`; ``cells`` = its owner, start, degree and
    empty arrays) to this PySAT solver: from C straight into CaDiCaL 1.9.5 where engines/_window.c
    found its add(), else one clause at a time."""
    if solver_name == "cadical195" and encoding in COMPILED_ENCODINGS:
        from . import _window

        if _window.can_add_directly():
            _window.add_window_clauses(solver.solver.cadical, *_compiled_arguments(cells, encoding))
            return
    deque(map(_raw_add_clause(solver_name, solver.solver), window_clauses(*cells, encoding)), maxlen=0)


def _compiled_arguments(cells: tuple, encoding: str) -> tuple:
    """engines/_window.c's arguments for a window: its owner, start, degree and empty arrays as
    int64, the encoding's number, and the last variable before the auxiliaries."""
    empty = cells[3]
    return (*(np.ascontiguousarray(a, dtype=np.int64) for a in cells), COMPILED_ENCODINGS[encoding],
            int(empty[-1]) if empty.size else 0)


def repair_sweep_tiling(placements: Placements, encoding: str = "ladder", progress: Callable | None = None,
                        stats: SweepStats | None = None, solver_name: str = DEFAULT_SOLVER,
                        alive: np.ndarray | None = None, reach: Reach | None = None) -> list[int] | None:
    """The placement indices of a tiling found by a repairing sweep (:class:`RepairSweep`), or None."""
    return RepairSweep(placements, encoding, solver_name, stats, alive, reach).run(progress)
