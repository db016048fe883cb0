"""Exact cover: the placements as a dancing-links problem (``xcover``).

The other way to find tilings besides SAT, for piece counts exact cover
expresses (``*``, ``1``, ``0..1``): every open cell is a primary item, a
piece used exactly once a primary item, a piece used at most once a
secondary one, and each placement an option holding its cells (and its
piece's item).  Pentomino-style puzzles, each piece at most once, are where
it shines: check-unique on the 3x20 pentomino rectangle takes about 10 ms of
search (30 ms with the fork below) against 2.7 s for CaDiCaL (README,
"Against the tools people use today").

xcover's search is numba-compiled and does not return to Python between
solutions, so Ctrl-C would wait for the next one: :func:`stream_covers` runs
it in a forked child that the parent stops when interrupted.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import time
import warnings
from typing import Iterator

import numpy as np

from .errors import TilesatError
from .instance import INF, Instance
from .placements import Placements


def dlx_problem(instance: Instance) -> str | None:
    """Why exact cover cannot express the piece counts (None: it can)."""
    for r in instance.rules:
        if r.max != INF and r.max > 1 or (r.min > 0 and r.min != r.max) or r.min > 1:
            return f"piece {r.name} has count {r.count_text()}; exact cover expresses *, 1 and 0..1 only"
    return None


def dlx_options(placements: Placements, forced: int | None = None):
    """The exact-cover problem of the placements: options (lists of items),
    primary items (open cells, pieces used exactly once), secondary items
    (pieces used at most once) and the placement index of each option.  With
    ``forced``, the sub-problem left once that placement is down."""
    instance = placements.instance
    problem = dlx_problem(instance)
    if problem:
        raise TilesatError(f"--method dlx: {problem}")
    ncells = instance.board.rows * instance.board.cols
    piece_item = {}
    primary, secondary = [int(x) for x in instance.board.open_cells], []
    for k, r in enumerate(instance.rules):
        if r.max == 1:
            piece_item[k] = ncells + k
            (primary if r.min == 1 else secondary).append(ncells + k)
    taken: set[int] = set()
    if forced is not None:
        taken = set(placements.cells_of(forced).tolist())
        if int(placements.rule[forced]) in piece_item:
            taken.add(piece_item[int(placements.rule[forced])])
    options, index = [], []
    for i in range(len(placements)):
        items = placements.cells_of(i).tolist()
        k = int(placements.rule[i])
        if k in piece_item:
            items.append(piece_item[k])
        if taken and (i == forced or not taken.isdisjoint(items)):
            continue
        options.append(items)
        index.append(i)
    primary = [x for x in primary if x not in taken]
    secondary = [x for x in secondary if x not in taken]
    return options, primary, secondary, np.asarray(index, dtype=np.int64)


def load_xcover():
    """xcover, imported on first use (loading its numba code takes about half a second)."""
    with warnings.catch_warnings():  # numba's type-safety warnings when it compiles xcover
        warnings.simplefilter("ignore")
        import xcover
    return xcover


def covers(placements: Placements, forced: int | None = None) -> Iterator[np.ndarray]:
    """The placement indices of every tiling (with ``forced``: of those
    holding it), as dancing links finds them; not verified here."""
    xcover = load_xcover()
    options, primary, secondary, index = dlx_options(placements, forced)
    if not primary:
        solutions = iter([[]])  # the forced placement covered everything: one way
    elif not options:
        solutions = iter([])
    elif len(primary) == 1:
        # xcover 0.2.6 raises IndexError when only one item occurs; with one
        # primary item each option holding it is a whole solution
        solutions = iter([[j] for j, items in enumerate(options) if primary[0] in items])
    else:
        solutions = xcover.covers(options, primary=primary, secondary=secondary)
    for sol in solutions:  # option indices; ``index`` maps them back to placements
        chosen = index[np.asarray(sol, dtype=np.int64)]
        yield chosen if forced is None else np.append(chosen, forced)


class CoversInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`first_covers`; ``found`` holds what came before it."""

    def __init__(self, found: list[np.ndarray]):
        super().__init__(f"interrupted after {len(found)} cover(s)")
        self.found = found


# The child sends its first tilings one by one (a listing shows them at
# once), then in batches (pickling each of a count's 10^4 tilings alone costs
# a few per cent), at least every BATCH_SECONDS while tilings keep coming.
SINGLES, BATCH, BATCH_SECONDS = 100, 256, 0.05


def stream_covers(placements: Placements, forced: int | None = None, limit: int | None = None) -> Iterator[np.ndarray]:
    """:func:`covers` (up to ``limit``) searched in a forked child and
    streamed back, so that Ctrl-C (a KeyboardInterrupt here) or closing the
    iterator stops the search at once.  In a worker process, or without
    fork, the search runs in this process."""
    if os.name != "posix" or multiprocessing.parent_process() is not None:
        yield from itertools.islice(covers(placements, forced), limit)
        return
    load_xcover()  # before the fork: the child inherits the loaded code
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(placements, forced, limit, send), daemon=True)
    child.start()
    send.close()
    try:
        while True:
            try:
                message = receive.recv()
            except EOFError:
                raise TilesatError("BUG: the dancing-links search stopped without an answer") from None
            if message is None:
                return  # no more tilings
            if isinstance(message, str):
                raise TilesatError(message)
            yield from message
    finally:  # done, interrupted or abandoned: the child goes
        receive.close()
        if child.is_alive():
            child.terminate()
        child.join()


def first_covers(placements: Placements, count: int) -> list[np.ndarray]:
    """Up to ``count`` tilings (placement indices) by dancing links, found in
    a forked child so that Ctrl-C stops the search at once."""
    found: list[np.ndarray] = []
    try:
        for chosen in stream_covers(placements, limit=count):
            found.append(chosen)
    except KeyboardInterrupt:
        raise CoversInterrupted(found) from None
    return found


def _child(placements: Placements, forced: int | None, limit: int | None, send) -> None:
    try:
        batch, sent, last = [], 0, time.perf_counter()
        for chosen in itertools.islice(covers(placements, forced), limit):
            batch.append(chosen)
            now = time.perf_counter()
            if sent < SINGLES or len(batch) >= BATCH or now - last >= BATCH_SECONDS:
                send.send(batch)
                sent, batch, last = sent + len(batch), [], now
        if batch:
            send.send(batch)
        send.send(None)
    except KeyboardInterrupt:
        pass  # the parent saw Ctrl-C too and stops us
    except Exception as e:  # reported by the parent, as one line
        send.send(f"dancing links failed: {type(e).__name__}: {e}")
    finally:
        send.close()
