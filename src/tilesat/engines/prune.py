"""Placements that are in no tiling, found by one step of look-ahead, and by probing.

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

Compiled (C, engines/_prune.c, built at install): 2-18 ms on the hard families'
40x40 to 100x100 boards (0.3 s with the twelve pentominoes on 40x40), where the
same loop in Python takes seconds.  It runs in slices
of SLICE steps (milliseconds each), the deadline checked and Ctrl-C seen
between them: on an open 300x300 board the whole loop takes a third of a second.

Probing (:func:`probe`) goes further where a search asks for it: each live placement is
put down and what it forces followed (a cell left with one candidate takes it); it dies
when a cell is left with none.  Every death is logged with its reason (:class:`Deaths`),
and when an open cell is left without a placement, :func:`no_tiling_reason` says "no
tiling" only after certify.deaths has replayed that log.  The one-step look-ahead's deaths
are replayed too before anything rests on them (:func:`look_ahead`): the solvers' "not p",
the sweep's windows and the board it settles all come from a replayed log, and a log that
does not replay is dropped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ..certify.certificate import CertificateError
from ..certify.deaths import check_deaths
from ..model.arrays import rows_at
from ..model.placements import Placements
from ..running.control import deadline

#: The compiled loop's steps per slice (a few milliseconds).
SLICE = 2_000_000


@dataclass(frozen=True)
class Deaths:
    """Why each dead placement died, in the order they died: ``placement[k]``, put down
    with the placements it forced (``chain[2*i]``, each the only candidate left to cell
    ``chain[2*i+1]``, for i in the k-th death's range of ``ends``), left ``cell[k]``
    without a candidate.  :func:`tilesat.certify.deaths.check_deaths` replays it."""

    placement: np.ndarray
    cell: np.ndarray
    ends: np.ndarray  # chain's end (in pairs) of each death; the k-th starts where the (k-1)-th ends
    chain: np.ndarray

    def forced(self, k: int) -> list[tuple[int, int]]:
        """(placement, cell it was forced for) of the k-th death's chain."""
        start = int(self.ends[k - 1]) if k else 0
        pairs = self.chain[2 * start:2 * int(self.ends[k])].reshape(-1, 2)
        return [(int(q), int(x)) for q, x in pairs]


@dataclass(frozen=True)
class Pruned:
    """``alive[i]``: placement i may be in a tiling; ``lost``: an open cell left
    without any placement (flat index; then there is no tiling), or None;
    ``deaths``: why each placement died (:class:`Deaths`)."""

    alive: np.ndarray
    lost: int | None
    seconds: float
    deaths: Deaths | None = None
    probing: dict | None = None  # what probing added (.probe): dead, probes, rounds, seconds
    replay_seconds: float | None = None  # the replay of its deaths (:func:`look_ahead`), when it ran

    @property
    def dead(self) -> int:
        return int(self.alive.size - self.alive.sum())

    def stats(self) -> dict:
        return {"dead": self.dead, "of": int(self.alive.size), "seconds": round(self.seconds, 6),
                **({"replay_seconds": round(self.replay_seconds, 6)} if self.replay_seconds is not None else {})}


@dataclass(frozen=True)
class LookAhead:
    """The one-step look-ahead once its deaths have replayed (:func:`look_ahead`): ``pruned``
    (every placement alive when the log did not replay), the board's only candidate tiling
    when it settles the board (:func:`forced_tiling`), why there is no tiling when it left an
    open cell without a placement, and ``error`` when its log did not replay (never seen)."""

    pruned: Pruned
    forced: list[int] | None
    reason: str | None
    error: str | None

    def stats(self) -> dict:
        return {**self.pruned.stats(), **({"error": self.error} if self.error else {})}


def look_ahead(placements: Placements) -> LookAhead:
    """The look-ahead (:func:`prune`), its log of deaths replayed by code that did not write it
    (certify.deaths) before anything rests on them: a "none", the one candidate tiling of a
    settled board, and the placements left out of every search (solvers' units, the sweep's
    windows), whose wrong death could turn a "unique" into "none" or "multiple" into "unique".
    A log that does not replay is dropped: the search runs with every placement."""
    pruned = prune(placements)
    t0 = time.perf_counter()
    alive, error = _replayed(placements, pruned)
    if error is not None:
        empty = Pruned(np.ones(len(placements), dtype=bool), None, pruned.seconds,
                       replay_seconds=time.perf_counter() - t0)
        return LookAhead(empty, None, None, error)
    pruned = replace(pruned, alive=alive, replay_seconds=time.perf_counter() - t0)
    if pruned.lost is not None:
        return LookAhead(pruned, None, _no_tiling(placements, pruned), None)
    return LookAhead(pruned, forced_tiling(placements, pruned), None, None)


def no_tiling_reason(placements: Placements, pruned: Pruned) -> tuple[str | None, str | None]:
    """(why there is no tiling, what went wrong): the first when the look-ahead left an open
    cell without a placement and the log of its deaths replays in code that did not write it
    (certify.deaths); the second when that log does not replay (never seen: then no "none"
    is said on its strength, and the caller's search decides).  (None, None): no cell lost."""
    if pruned.lost is None:
        return None, None
    _, error = _replayed(placements, pruned)
    return (None, error) if error is not None else (_no_tiling(placements, pruned), None)


def _replayed(placements: Placements, pruned: Pruned) -> tuple[np.ndarray | None, str | None]:
    """(the placements alive by the replay of ``pruned``'s deaths, what went wrong): the log
    must prove each death, end where the loop ended, and leave its lost cell (if any) bare."""
    if len(placements) == 0:
        return pruned.alive, None
    try:
        alive = check_deaths(placements, pruned.deaths, pruned.lost)
        if not np.array_equal(alive, pruned.alive):
            raise CertificateError(f"the loop left {int(pruned.alive.sum()):,} placements alive, "
                                   f"its log {int(alive.sum()):,}")
    except CertificateError as e:
        return None, f"BUG: the look-ahead's deaths do not check: {e}"
    return alive, None


def _no_tiling(placements: Placements, pruned: Pruned) -> str:
    return (f"no piece can cover cell {placements.instance.board.cell(pruned.lost)}: each placement on it, "
            f"put down with the placements it forces, leaves some cell uncovered "
            f"({pruned.dead:,} placements ruled out, each one's reason checked)")


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
    cover = np.bincount(placements.cells[rows_at(placements.indptr, live)], minlength=board.ncells)
    if not (cover[board.open_cells] == 1).all():
        return None
    return live.tolist()


def _given(placements: Placements) -> tuple[np.ndarray, ...]:
    """The compiled loops' view of the placements: indptr, cells, and cells to placements."""
    cell_indptr, cell_ids = placements.by_cell()
    return (np.ascontiguousarray(placements.indptr, dtype=np.int64),
            np.ascontiguousarray(placements.cells, dtype=np.int64),
            np.ascontiguousarray(cell_indptr, dtype=np.int64), np.ascontiguousarray(cell_ids, dtype=np.int64))


def prune(placements: Placements) -> Pruned:
    """The placements left after removing the dead ones, to a fixpoint."""
    from ._prune import dead_placements_slice

    t0 = time.perf_counter()
    board = placements.instance.board
    count = len(placements)
    if count == 0:
        return Pruned(np.zeros(0, dtype=bool), None, 0.0)
    given = _given(placements)
    ncells = board.ncells
    # the loop's state: alive, degree, seen_by, inside, touched, queue (every cell first, then
    # the placements that die), (head, tail, size, lost, cell checks)
    queue = np.zeros(count + ncells, np.int64)
    queue[:ncells] = np.arange(ncells)
    state = (np.ones(count, np.int64), np.diff(given[2]), np.full(count, -1, np.int64),
             np.full(ncells, -1, np.int64), np.zeros(ncells, np.int64), queue,
             np.array([0, ncells % (count + ncells), ncells, -1, 0], np.int64))
    log = _DeathLog(count)
    limit = deadline()
    while not dead_placements_slice(*given, *state, *log.arrays()[:4], SLICE):
        limit.check()  # and a Ctrl-C raises here, between slices
    lost = int(state[-1][3])
    return Pruned(state[0].astype(bool), None if lost < 0 else lost, time.perf_counter() - t0, log.deaths())


#: Probing's rounds at most: one over every live placement, one more where it killed some
#: (later rounds found little: docs/benchmarks/hard-families.md).
ROUNDS = 2


def probe(placements: Placements, pruned: Pruned) -> Pruned:
    """Probing after the look-ahead's fixpoint (engines/_prune.c probe_slice): each live
    placement p put down and what it forces propagated (a cell left with one candidate
    takes it); p dies when that leaves an open cell without a candidate.  Up to ROUNDS
    rounds; stops at a lost cell.  Returns ``pruned`` with these deaths added."""
    from ._prune import probe_slice

    t0 = time.perf_counter()
    count, ncells = len(placements), placements.instance.board.ncells
    if count == 0 or pruned.lost is not None:
        return pruned
    given = _given(placements)
    alive = pruned.alive.astype(np.int64)
    degree = np.bincount(placements.cells, weights=np.repeat(alive, np.diff(placements.indptr)),
                         minlength=ncells).astype(np.int64)
    # scratch: covered, blocked, avail, avail_at, stack
    scratch = (np.full(ncells, -1, np.int64), np.full(count, -1, np.int64), np.zeros(ncells, np.int64),
               np.full(ncells, -1, np.int64), np.zeros(ncells, np.int64))
    log = _DeathLog(count, pruned.deaths)
    counters = np.array([0, 0, 0, -1, 0, -1], np.int64)  # next, round's deaths, rounds, stamp, probes, lost
    before = int(log.counts[0])
    limit = deadline()
    while (status := probe_slice(*given, alive, degree, *scratch, *log.arrays(), counters, ROUNDS, SLICE)) != 1:
        if status == 2:
            log.grow()
        limit.check()  # and a Ctrl-C raises here, between slices
    lost = int(counters[5])
    done = {"dead": int(log.counts[0]) - before, "probes": int(counters[4]), "rounds": int(counters[2]),
            "seconds": round(time.perf_counter() - t0, 6)}
    return Pruned(alive.astype(bool), None if lost < 0 else lost, pruned.seconds + done["seconds"], log.deaths(), done)


class _DeathLog:
    """The compiled loops' death log: placement, cell, chain end (each as long as the
    placements), the chain, and the counts (deaths, chain entries used)."""

    def __init__(self, count: int, earlier: Deaths | None = None):
        self.placement, self.cell, self.end = (np.zeros(count, np.int64) for _ in range(3))
        self.chain = np.zeros(1024, np.int64)
        self.counts = np.zeros(2, np.int64)
        if earlier is not None:
            n, used = len(earlier.placement), 2 * (int(earlier.ends[-1]) if len(earlier.ends) else 0)
            self.placement[:n], self.cell[:n], self.end[:n] = earlier.placement, earlier.cell, 2 * earlier.ends
            while self.chain.size < used:
                self.grow()
            self.chain[:used] = earlier.chain[:used]
            self.counts[:] = n, used

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self.placement, self.cell, self.end, self.counts, self.chain

    def grow(self) -> None:
        self.chain = np.concatenate([self.chain, np.zeros_like(self.chain)])

    def deaths(self) -> Deaths:
        n, used = int(self.counts[0]), int(self.counts[1])
        return Deaths(self.placement[:n].copy(), self.cell[:n].copy(), self.end[:n] // 2, self.chain[:used].copy())
