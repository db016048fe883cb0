"""Exact cover: the placements as a dancing-links problem (``xcover``).

The other way to find tilings besides SAT, for piece counts exact cover
expresses (``*``, ``1``, ``0..1``): every open cell is a primary item, a
piece used exactly once a primary item, a piece used at most once a
secondary one, and each placement an option holding its cells (and its
piece's item).  Pentomino-style puzzles, each piece at most once, are where
it shines: check-unique on the 3x20 pentomino rectangle takes about 10 ms of
search (30 ms with the fork below) against 2.7 s for CaDiCaL (docs/benchmarks/
peers.md).

xcover's search is numba-compiled and does not return to Python between
solutions, so Ctrl-C or a time limit would wait for the next one:
:func:`stream_covers` runs it in a forked child that the parent stops.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Iterator

import numpy as np

from ..running.control import deadline, in_child_process, isolated_stream
from ..errors import TilesatError
from ..model.instance import INF, Instance
from ..model.placements import Placements
from ..running.stdout_guard import native_output
from ..model.tiling import Tiling
from .base import Context, Engine, Job, Progress
from .cover_find import find_covers


def dlx_problem(instance: Instance) -> str | None:
    """Why exact cover cannot express the piece counts (None: it can)."""
    from .base import cover_only

    if (why := cover_only(instance, "dlx")) is not None:
        return why
    for r in instance.rules:
        if r.max != INF and r.max > 1 or (r.min > 0 and r.min != r.max) or r.min > 1:
            return f"piece {r.name} has count {r.count_text()}; exact cover expresses *, 1 and 0..1 only"
    return None


def _forced_list(forced) -> list[int]:
    """``forced`` as a list: None, one placement, or a sequence of them (a unit of a split count)."""
    return [] if forced is None else [int(p) for p in np.atleast_1d(forced)]


def dlx_options(placements: Placements, forced=None):
    """The exact-cover problem of the placements: options (lists of items),
    primary items (open cells, pieces used exactly once), secondary items
    (pieces used at most once) and the placement index of each option.  With
    ``forced`` (a placement or several), the sub-problem left once they are
    down (None when they overlap: no tiling holds them all)."""
    instance = placements.instance
    problem = dlx_problem(instance)
    if problem:
        raise TilesatError(f"--method dlx: {problem}")
    ncells = instance.board.ncells
    piece_item = {}
    primary, secondary = [int(x) for x in instance.board.open_cells], []
    for k, r in enumerate(instance.rules):
        if r.max == 1:
            piece_item[k] = ncells + k
            (primary if r.min == 1 else secondary).append(ncells + k)
    taken: set[int] = set()
    forced = _forced_list(forced)
    for p in forced:
        items = set(placements.cells_of(p).tolist())
        if int(placements.rule[p]) in piece_item:
            items.add(piece_item[int(placements.rule[p])])
        if not taken.isdisjoint(items):
            return None
        taken |= items
    options, index = [], []
    for i in range(len(placements)):
        items = placements.cells_of(i).tolist()
        k = int(placements.rule[i])
        if k in piece_item:
            items.append(piece_item[k])
        if taken and not taken.isdisjoint(items):  # the forced placements themselves included
            continue
        options.append(items)
        index.append(i)
    primary = [x for x in primary if x not in taken]
    secondary = [x for x in secondary if x not in taken]
    return options, primary, secondary, np.asarray(index, dtype=np.int64)


def load_xcover():
    """xcover, imported on first use (loading its numba code takes about half a second)."""
    with warnings.catch_warnings(), native_output():  # numba's type-safety warnings when it compiles xcover
        warnings.simplefilter("ignore")
        import xcover
    return xcover


def covers(placements: Placements, forced=None) -> Iterator[np.ndarray]:
    """The placement indices of every tiling (with ``forced``, a placement or
    several: of those holding them), as dancing links finds them; not verified here."""
    xcover = load_xcover()
    problem = dlx_options(placements, forced)
    if problem is None:  # the forced placements overlap
        return
    options, primary, secondary, index = problem
    forced = np.asarray(_forced_list(forced), dtype=np.int64)
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
        yield np.append(chosen, forced) if forced.size else chosen


def stream_covers(placements: Placements, forced=None, limit: int | None = None) -> Iterator[np.ndarray]:
    """:func:`covers` (up to ``limit``), searched in a forked child and
    streamed back (:func:`tilesat.running.control.isolated_stream`), so that
    Ctrl-C, the run's deadline or closing the iterator stops the search at
    once.  In a worker process (whose parent kills it) the search runs here."""
    if in_child_process():
        deadline().check()
    yield from isolated_stream(_limited_covers, placements, forced, limit, what="dancing links", preload=load_xcover)


def _limited_covers(placements, forced, limit):
    return itertools.islice(covers(placements, forced), limit)


class DlxEngine(Engine):
    """Exact cover by dancing links: the first tilings (solve, check-unique, with the
    LP's certificate of "no tiling" where it may pay), counts by listing, lists."""

    name = "dlx"
    questions = frozenset({"find", "count", "list"})
    enumerates = True
    summary = "exact cover (dancing links)"
    instead = {"find": "--method sat", "count": "blocking or ganak", "list": "native or blocking"}

    def problem(self, instance: Instance) -> str | None:
        return dlx_problem(instance)

    def preload(self) -> None:
        load_xcover()

    def tilings(self, ctx: Context, forced: tuple[int, ...] | None, limit: int | None) -> Iterator[np.ndarray]:
        yield from ctx.checked(stream_covers(ctx.placements, forced), limit, disjoint=True)

    def find(self, job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
        return find_covers(job, count, progress, found, stats, lambda placements, limit: stream_covers(
            placements, limit=limit), "searching by dancing links (xcover)", "xcover")


DLX = DlxEngine()
