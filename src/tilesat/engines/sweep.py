"""Tilings of big open boards by a sweep: a SAT window moving across the board.

One CDCL run over a whole 60x60 open board takes 10-120 s to its first
tiling, and which of those is a lottery (issue 15, docs/benchmarks/hard-boards.md).
The Polyomino Tiler fills a board in a fixed order instead, most constrained
cells first, and backtracks.  A sweep does that with a SAT solve as its step:

* The cells are ordered by anti-diagonal (row + column), or by another of
  :data:`ORDERS` (small integers, neighbours a step or two apart).  The window is the
  next WINDOW diagonals the tiling has not reached: each open cell in it must
  be covered exactly once, each cell past it at most once (placements may
  stick out of it), and the cells before it are taken.
* Of the window's solution, the placements that start in its first STEP
  diagonals are kept; the window moves on by STEP.  The WINDOW - STEP
  diagonals solved and not kept are the look-ahead that keeps the kept edge
  completable.
* A window with no solution (or none within its conflict budget) undoes the
  last kept step and is tried again wider, with a larger budget.  A sweep
  that would widen past half the board gives up: it proves nothing (a kept
  step can make the rest untileable that a wider window would have seen),
  and the caller goes on with one SAT run over the whole board.

Why anti-diagonals, not rows: with rows, the last window is a strip as wide
as the board and closed on both sides (the kept edge above, the board's edge
below); on 60x60 boards 4 of 20 sweeps failed there, after a fruitless
widening (a wider strip is harder still).  Along anti-diagonals the last
windows are small triangles at the far corner: none of the 20 failed.

A second tiling (check-unique's question) is most often a local change of
the first: :func:`tilesat.engines.local_change.other_tiling` takes the first tiling's placements inside a
small box and asks for a different tiling of the cells they cover.

Both are heuristics that find tilings, never a proof that there is none
(or no other): the search that calls them (:class:`tilesat.engines.sat.TilingSearch`)
verifies what they find with the independent checker and leaves "none" and
"unique" to the whole-board SAT run.  Sweeping needs a flat board without
wrap-around (:func:`sweep_problem`).  Piece counts bind the whole board, which
no window sees: where the sweep's tiling breaks them it is mended box by box
(:func:`tilesat.engines.local_change.mend_counts`), and a tiling is kept only
when its counts hold (:func:`counts_hold`), else the whole-board run goes on.

The search uses :class:`tilesat.engines.repair_sweep.RepairSweep`, which
mends where a window fails instead of undoing whole steps (issue 29);
:class:`Sweep` here is the first version, kept for comparison
(scripts/bench_families.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..running.control import deadline
from ..sat.encodings import NATIVE_ENCODINGS, get_encoding
from ..sat.formula import Formula
from ..model.arrays import rows_at
from ..model.instance import Instance
from ..model.placements import Placements
from ..sat.solvers import DEFAULT_SOLVER, PysatSolver

#: In diagonals: a window solves WINDOW of them and keeps the first STEP.
#: Measured on 20 60x60 L4 boards (first tiling): STEP 4 / WINDOW 12 swept
#: each in 3-6 s, one board in 33 s after widening six times.
STEP, WINDOW = 4, 12
#: A window's conflict budget: this many per cell it must cover, at least
#: MIN_BUDGET.  Windows of 12 diagonals mostly end in a few hundred.
BUDGET_PER_CELL, MIN_BUDGET = 100, 20_000
#: Before a sweep, the search lets its solver over the whole board run for
#: this many conflicts (TilingSearch._glance): one run tiles the 128x128
#: Golomb board in 1,085 conflicts (1.5 s in all, where a sweep takes 3 s)
#: and 30x30 random packings in 1,700-9,600.  60x60 random packings take
#: 100,000 and more; there the glance costs 0.5-0.6 s at 2,000 conflicts,
#: 2-2.5 s at 5,000 (CaDiCaL's inprocessing starts), 0.2 s at 1,000.
GLANCE = 2_000
#: Boards from this many open cells get a sweep when ``--method auto``: at
#: 30x30 one SAT run takes under a second, and the sweep buys nothing.
SWEEP_MIN_AREA = 400


def sweep_problem(instance: Instance) -> str | None:
    """Why this instance cannot be swept, or None when it can."""
    board = instance.board
    if not board.exact:
        return "the sweep covers every open cell: this board has cells that may stay empty (+)"
    if board.open.ndim != 2:
        return "the sweep orders the cells of a flat board (this one has layers)"
    if board.wrap != "none":
        return "a board that wraps around has no far end to sweep toward"
    return None


#: Boards whose blocked cells lie scattered (at least this share of them without a blocked
#: neighbour: cells blocked at random, not a packing's leftovers) get the corners' first windows
#: solved before any attempt sweeps (repair_sweep.RepairSweep.refute_at_corners): on such boards a
#: local obstruction is what a tiling most often lacks (the shares measured on each family:
#: docs/benchmarks/hard-families.md).
SCATTERED = 0.70


def scattered_blocked(board) -> float:
    """The share of a flat square board's blocked cells with no blocked cell beside them
    (0 without blocked cells, or on other grids)."""
    if board.grid != "square" or board.open.ndim != 2:
        return 0.0
    blocked = np.pad(~board.open, 1)
    inner = blocked[1:-1, 1:-1]
    if not inner.any():
        return 0.0
    beside = blocked[:-2, 1:-1] | blocked[2:, 1:-1] | blocked[1:-1, :-2] | blocked[1:-1, 2:]
    return float(np.count_nonzero(inner & ~beside) / np.count_nonzero(inner))


def counts_hold(placements: Placements, chosen) -> bool:
    """Whether these placements use every piece within its rule's counts.  A window
    does not see counts (they bind the whole board): a tiling the sweep or the local
    change finds is kept only when they hold, else the whole-board solver goes on."""
    rules = placements.instance.rules
    if not any(r.bounded for r in rules):
        return True
    used = np.bincount(placements.rule[np.asarray(chosen, dtype=np.int64)], minlength=len(rules))
    return all(r.min <= int(n) <= r.max for r, n in zip(rules, used))


def window_encoding(encoding: str) -> str:
    """The windows' encoding for a search with this (resolved) one: the same, or
    ladder for native (at-most constraints, no clauses)."""
    return "ladder" if encoding in NATIVE_ENCODINGS else encoding


def window_solver(name: str) -> str:
    """The windows' solver for a search with this one: the same if it is a
    CaDiCaL (windows need conflict budgets), else the default."""
    return name if name.startswith("cadical") else DEFAULT_SOLVER


@dataclass
class SweepStats:
    windows: int = 0  # SAT solves
    widened: int = 0  # times a window failed and a step was undone
    widest: int = 0  # the widest window solved or tried, in diagonals
    conflicts: int = 0
    seconds: float = 0.0
    gave_up: str | None = None
    repairs: int = 0  # RepairSweep: patches of kept pieces taken back
    restarts: list = field(default_factory=list)  # RepairSweep: why each attempt before the last stopped
    local: dict = field(default_factory=dict)  # other_tiling's: boxes tried, their conflicts, seconds
    mend: dict = field(default_factory=dict)  # mend_counts': boxes tried, mended, their conflicts, seconds
    refuted: str | None = None  # RepairSweep: a window with nothing kept failed; whether that was confirmed
    discs: list = field(default_factory=list)  # after a sweep that gave up: the radii of the discs solved around its failure
    disc_conflicts: int = 0  # and their conflicts (on the whole-board solver, under assumptions)
    foregone: int = 0  # RepairSweep: the conflicts of the attempts it left after a first one that failed early

    def to_json(self) -> dict:
        out = {"windows": self.windows, "widened": self.widened, "widest": self.widest, "conflicts": self.conflicts,
               "seconds": round(self.seconds, 6)}
        if self.repairs:
            out["repairs"] = self.repairs
        if self.restarts:
            out["restarts"] = list(self.restarts)
        if self.gave_up:
            out["gave_up"] = self.gave_up
        if self.local:
            out["other_tiling"] = self.local
        if self.mend:
            out["mend_counts"] = self.mend
        if self.refuted:
            out["refuted"] = self.refuted
        if self.discs:
            out["discs"] = list(self.discs)
            out["disc_conflicts"] = self.disc_conflicts
        if self.foregone:
            out["foregone"] = self.foregone
        return out


#: The corners a sweep may start from: (rows flipped, columns flipped).
CORNERS = ((False, False), (True, True), (True, False), (False, True))


def diagonal_order(board, corner: int) -> np.ndarray:
    """Each flat cell's anti-diagonal (row + column) counted from ``CORNERS[corner]``."""
    rows, cols = board.open.shape
    flat = np.arange(rows * cols, dtype=np.int64)
    row, col = flat // cols, flat % cols
    flip_rows, flip_cols = CORNERS[corner]
    return (rows - 1 - row if flip_rows else row) + (cols - 1 - col if flip_cols else col)


def open_distance_order(board, corner: int) -> np.ndarray:
    """Each open cell's distance in steps over open cells from the open cell of its region
    nearest the corner (by diagonal), plus that cell's diagonal: the diagonals on an open
    square board, a front that bends around blocked regions elsewhere (blocked cells: 0)."""
    diagonal = diagonal_order(board, corner)
    cells = board.open_cells
    region = board.region_labels()[cells]
    by_region = np.lexsort((cells, diagonal[cells], region))  # each region's cell nearest the corner first
    seeds = cells[by_region][np.flatnonzero(np.diff(region[by_region], prepend=-1))]
    return _breadth_first(board, seeds, diagonal[seeds])


def _breadth_first(board, seeds: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Each open cell's least ``level of a seed + steps over open cells from it``, where every
    seed starts its own search at its level (blocked cells and cells no seed reaches: 0)."""
    key = np.full(board.ncells, -1, dtype=np.int64)
    if not seeds.size:
        return np.zeros(board.ncells, dtype=np.int64)
    open_ = board.open.ravel()
    u, v = board.lattice.edges(board.open.shape)
    both = open_[u] & open_[v]
    u, v = np.concatenate([u[both], v[both]]), np.concatenate([v[both], u[both]])
    by_u = np.argsort(u, kind="stable")
    neighbour = v[by_u]
    indptr = np.searchsorted(u[by_u], np.arange(board.ncells + 1))
    by_level = np.argsort(levels, kind="stable")
    seeds, levels = seeds[by_level], np.asarray(levels, dtype=np.int64)[by_level]
    level, s = int(levels[0]), 0
    front = np.zeros(0, dtype=np.int64)
    limit = deadline()  # a maze's search takes a step per level: tens of thousands on a 300x300 snake
    while front.size or s < seeds.size:
        if level % 256 == 0:
            limit.check()
        if not front.size:
            level = max(level, int(levels[s]))
        t = s + int(np.searchsorted(levels[s:], level, side="right"))
        if t > s:  # seeds whose level the search reaches now start here
            new = seeds[s:t][key[seeds[s:t]] < 0]
            key[new] = level
            front = np.concatenate([front, new])
            s = t
        step = np.unique(neighbour[rows_at(indptr, front)])
        front = step[key[step] < 0]
        level += 1
        key[front] = level
    key[key < 0] = 0
    return key


#: How a sweep orders the cells (each a function of the board and a corner, giving each flat
#: cell a small integer, neighbours at most one apart; the diagonal order on the hex grid from
#: corners 2 and 3: two): the sweep's front is a key range.  For the boards a sweep takes
#: (sweep_problem), not one that wraps (the open-distance order does not step across its seam).
ORDERS = {"diagonal": diagonal_order, "open-distance": open_distance_order}


class _Geometry:
    """Each placement's cells and first/last key, sorted by first key; the keys those of
    ``ORDERS[order]`` from ``CORNERS[corner]`` (0: the top left; the diagonals by default)."""

    def __init__(self, placements: Placements, corner: int = 0, order: str = "diagonal"):
        board = placements.instance.board
        cols = board.open.shape[1]
        flat = np.arange(board.ncells, dtype=np.int64)
        self.row, self.col = flat // cols, flat % cols
        self.cell_key = ORDERS[order](board, corner).astype(np.int64)
        self.placements = placements
        self.indptr, self.cells = placements.indptr, placements.cells
        starts = self.indptr[:-1]
        keys = self.cell_key[self.cells]
        self.first = np.minimum.reduceat(keys, starts) if len(placements) else np.zeros(0, np.int64)
        self.order = np.argsort(self.first, kind="stable")
        self.sorted_first = self.first[self.order]
        open_cells = board.open_cells
        self.open_keys = np.sort(self.cell_key[open_cells])
        self.open = board.open.ravel()
        self.nkeys = int(self.open_keys[-1]) + 1 if open_cells.size else 0

    def starting_in(self, lo: int, hi: int) -> np.ndarray:
        """The placements whose first diagonal is in [lo, hi)."""
        a, b = np.searchsorted(self.sorted_first, [lo, hi])
        return self.order[a:b]

    def cells_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cells, owner): the cells of these placements, and which of them (0..len-1) each is."""
        owner = np.repeat(np.arange(ids.size, dtype=np.int64), self.indptr[ids + 1] - self.indptr[ids])
        return self.cells[rows_at(self.indptr, ids)], owner

    def by_cell(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(cells, owner, start, degree): the cells these placements touch, sorted, and which of
        them (0..len-1) cover each, ``owner[start[i]:start[i] + degree[i]]`` for ``cells[i]``."""
        cells, owner = self.cells_of(ids)
        order = np.argsort(cells, kind="stable")  # by cell, then owner (cells_of lists owners in order)
        cells, owner = cells[order], owner[order]
        start = np.flatnonzero(np.diff(cells, prepend=-1))  # where each cell's run begins (np.unique's, cheaper)
        degree = np.diff(start, append=cells.size)
        return cells[start], owner, start, degree


def _cover_formula(ids: np.ndarray, geo: _Geometry, exact: np.ndarray, encode) -> tuple[list, int] | None:
    """CNF over variables 1..len(ids) (placement ids[i] is i + 1): each cell of
    ``exact`` (a bool mask over the board) covered exactly once, every other
    cell they touch at most once.  None when a cell of ``exact`` has no placement."""
    uniq, owner, start, degree = geo.by_cell(ids)
    must = exact.copy()
    must[uniq] = False
    if must.any():
        return None  # an open cell of the window that nothing can cover
    top = int(ids.size)
    blocks: list = []
    is_exact = exact[uniq]
    for d in np.unique(degree):
        for want in (True, False):
            sel = np.flatnonzero((degree == d) & (is_exact == want))
            if sel.size == 0:
                continue
            lits = owner[start[sel][:, None] + np.arange(d)[None, :]] + 1
            if not want:  # at most one: exactly one of them or "left empty", a fresh variable
                lits = np.hstack([lits, np.arange(top + 1, top + 1 + sel.size, dtype=np.int64)[:, None]])
                top += sel.size
            if lits.shape[1] == 1:
                blocks.append(lits)
                continue
            more, top = encode(lits, top)
            blocks.extend(more)
    return blocks, top


def _solve(placements: Placements, formula: tuple[list, int], extra: list, budget: int, stats: SweepStats,
           solver_name: str) -> np.ndarray | None:
    """The true variables of a model, or None (no model, or none within the budget)."""
    blocks, top = formula
    with PysatSolver(solver_name) as solver:
        solver.add_formula(Formula(placements, top, [np.asarray(b) for b in blocks if np.size(b)], extra))
        status = solver.solve(conflicts=budget)
        stats.conflicts += int(solver.stats().get("conflicts") or 0)
        stats.windows += 1
        if not status:
            return None
        model = np.asarray(solver.model(), dtype=np.int64)
        return model[model > 0]


class Stepping:
    """What both sweeps share: :meth:`run` steps until a tiling is found or the
    sweep gives up (``done``, ``chosen``), its time added to ``stats``; each
    sweep's ``_step`` solves one window."""

    done: bool
    chosen: list[int] | None
    width: int
    step: int
    window: int
    stats: SweepStats

    @property
    def trouble_width(self) -> int:
        """Where the search pauses a sweep for the LP's certificate check: a window
        widened past this is a sign that there may be no tiling at all (none of
        the 20 60x60 boards widened past 28 diagonals; a board with a parity
        obstruction widens until the sweep gives up, each window harder)."""
        return self.window + 4 * self.step

    def run(self, progress: Callable | None = None, pause_wider_than: int | None = None) -> list[int] | None:
        """The placement indices of a tiling, or None when the sweep gives up
        (which proves nothing) or, with ``pause_wider_than``, pauses before a
        window that much wider (``done`` stays False).  Not verified here: the caller does."""
        t0 = time.perf_counter()
        try:
            while not self.done:
                if pause_wider_than is not None and self.width > pause_wider_than:
                    return None
                self._step(progress)
            return self.chosen
        finally:
            self.stats.seconds += time.perf_counter() - t0

    def _step(self, progress) -> None:
        raise NotImplementedError


class Sweep(Stepping):
    """A sweep over one instance's placements, resumable: a deadline or
    Ctrl-C in the middle of a window loses that window only, and
    :meth:`run` goes on from the steps kept so far (the search lets the LP
    certificate check have its turn in the middle of a sweep)."""

    def __init__(self, placements: Placements, encoding: str = "ladder", solver_name: str = DEFAULT_SOLVER,
                 stats: SweepStats | None = None, step: int = STEP, window: int = WINDOW):
        if not 0 < step < window:
            raise ValueError(f"a sweep keeps part of each window: 0 < step < window (step {step}, window {window})")
        self.placements, self.solver_name = placements, solver_name
        self.step, self.window = step, window
        self.encode = get_encoding(encoding)
        self.stats = stats if stats is not None else SweepStats()
        self.geo = _Geometry(placements)
        self.covered = np.zeros(placements.instance.board.ncells, dtype=bool)
        self.kept: list[tuple[int, np.ndarray]] = []  # (first diagonal of the step, the placements it kept)
        self.f = int(self.geo.open_keys[0]) if self.geo.open_keys.size else 0
        self.width = window
        self.done = False  # a tiling found, or given up
        self.chosen: list[int] | None = None

    def _step(self, progress) -> None:
        geo, f, covered = self.geo, self.f, self.covered
        if f >= geo.nkeys:
            self.done = True
            self.chosen = sorted(int(p) for _, step in self.kept for p in step)
            return
        deadline().check()
        if progress is not None:
            progress(f"sweeping: diagonal {f} of {geo.nkeys}", f, geo.nkeys)
        hi = geo.nkeys if f + self.width + self.step >= geo.nkeys else f + self.width
        ids = geo.starting_in(f, hi)
        cells, owner = geo.cells_of(ids)
        clash = np.bincount(owner, weights=covered[cells], minlength=ids.size) > 0
        ids = ids[~clash]
        exact = geo.open & ~covered & (geo.cell_key >= f) & (geo.cell_key < hi)
        self.stats.widest = max(self.stats.widest, hi - f)
        formula = _cover_formula(ids, geo, exact, self.encode)
        true = None
        if formula is not None:
            budget = max(MIN_BUDGET, BUDGET_PER_CELL * int(exact.sum()))
            true = _solve(self.placements, formula, [], budget, self.stats, self.solver_name)
        if true is None:
            self._widen(hi)
            return
        chosen = ids[true[true <= ids.size] - 1]
        keep = chosen if hi >= geo.nkeys else chosen[geo.first[chosen] < f + self.step]
        covered[geo.cells_of(keep)[0]] = True
        self.kept.append((f, keep))
        self.f, self.width = (geo.nkeys if hi >= geo.nkeys else f + self.step), self.window

    def _widen(self, hi: int) -> None:
        """Undo the last kept step and try its window wider, or give up."""
        if not self.kept:
            self.stats.gave_up = f"no tiling of the first {hi} diagonals found"
            self.done = True
            return
        self.f, undone = self.kept.pop()
        self.covered[self.geo.cells_of(undone)[0]] = False
        self.width += 2 * self.step
        self.stats.widened += 1
        if self.width > self.geo.nkeys // 2:
            self.stats.gave_up = f"the window widened to {self.width} of {self.geo.nkeys} diagonals"
            self.done = True


def sweep_tiling(placements: Placements, encoding: str = "ladder", progress: Callable | None = None,
                 stats: SweepStats | None = None, solver_name: str = DEFAULT_SOLVER, **sizes) -> list[int] | None:
    """The placement indices of a tiling found by sweeping (:class:`Sweep`; ``step``, ``window``), or None."""
    return Sweep(placements, encoding, solver_name, stats, **sizes).run(progress)
