"""Placements that are in no tiling, found by one step of look-ahead.

A placement p is *dead* when some open cell outside it can only be covered
by placements that overlap p: put p down and that cell is lost.  Removing
dead placements can kill others (a cell's candidates shrink), so this runs
to a fixpoint.  It is what CP-SAT's presolve does first on these boards (its
probing fixed 2,500 of 10,600 placements on a 60x60 L4 board with clustered
holes, then its CDCL needed a quarter of the conflicts CaDiCaL needed
without), and what a CDCL solver only learns one conflict at a time.

How many die depends on how tight the board is: 2% of the placements on an
open 60x60 L4 random packing made row by row, 12-19% on packings made in
random order or with clusters of tiles removed, over half on P5 and T4
random packings (tightly packed pieces leave many cells with few ways).
Sound for tilings only (a packing may leave the lost cell empty): a search
for tilings may add "not p" for each dead p and leave them out of its windows.

Compiled (C, engines/_prune.c, built at install): 0.03-0.25 s on 40x40 to
100x100 boards, where the same loop in Python takes 1-2 s.  It runs in slices
of SLICE steps (milliseconds each), the deadline checked and Ctrl-C seen
between them: on an open 300x300 board the whole loop takes seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.placements import Placements
from ..running.control import deadline

#: The compiled loop's steps per slice (a few milliseconds).
SLICE = 2_000_000


@dataclass(frozen=True)
class Pruned:
    """``alive[i]``: placement i may be in a tiling; ``lost``: an open cell left
    without any placement (flat index; then there is no tiling), or None."""

    alive: np.ndarray
    lost: int | None
    seconds: float

    @property
    def dead(self) -> int:
        return int(self.alive.size - self.alive.sum())

    def stats(self) -> dict:
        return {"dead": self.dead, "of": int(self.alive.size), "seconds": round(self.seconds, 6)}


def forced_tiling(placements: Placements, pruned: Pruned) -> list[int] | None:
    """The placements of the only possible tiling when the look-ahead leaves every
    open cell exactly one placement (designed puzzles: propagation settles them), else None.

    Every tiling uses live placements only, so one live placement per cell leaves
    one candidate tiling: these placements (disjoint, since no cell has two).  The
    caller still checks it (piece counts included) with the independent checker."""
    if pruned.lost is not None or len(placements) == 0:
        return None
    board = placements.instance.board
    live = np.flatnonzero(pruned.alive)
    lens = np.diff(placements.indptr)[live]
    cover = np.bincount(placements.cells[_cells_at(placements.indptr, live, lens)], minlength=board.ncells)
    if not (cover[board.open_cells] == 1).all():
        return None
    return live.tolist()


def _cells_at(indptr: np.ndarray, ids: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Positions in ``placements.cells`` of these placements' cells."""
    before = np.cumsum(lens) - lens
    return np.repeat(indptr[ids] - before, lens) + np.arange(int(lens.sum()), dtype=np.int64)


def prune(placements: Placements) -> Pruned:
    """The placements left after removing the dead ones, to a fixpoint."""
    import time

    from ._prune import dead_placements_slice

    t0 = time.perf_counter()
    board = placements.instance.board
    count = len(placements)
    if count == 0:
        return Pruned(np.zeros(0, dtype=bool), None, 0.0)
    cell_indptr, cell_ids = placements.by_cell()
    cell_indptr = np.ascontiguousarray(cell_indptr, dtype=np.int64)
    given = (np.ascontiguousarray(placements.indptr, dtype=np.int64),
             np.ascontiguousarray(placements.cells, dtype=np.int64), cell_indptr,
             np.ascontiguousarray(cell_ids, dtype=np.int64))
    ncells = board.ncells
    # the loop's state: alive, degree, seen_by, inside, count, touched, queued, queue, (head, tail, size, lost, examinations)
    state = (np.ones(count, np.int64), np.diff(cell_indptr), np.full(count, -1, np.int64),
             np.full(ncells, -1, np.int64), np.zeros(ncells, np.int64), np.zeros(ncells, np.int64),
             np.ones(count, np.int64), np.arange(count, dtype=np.int64), np.array([0, 0, count, -1, 0], np.int64))
    limit = deadline()
    while not dead_placements_slice(*given, *state, SLICE):
        limit.check()  # and a Ctrl-C raises here, between slices
    lost = int(state[-1][3])
    return Pruned(state[0].astype(bool), None if lost < 0 else lost, time.perf_counter() - t0)
