"""The compiled exact cover (:mod:`.xcc`) as an engine for tilesat's own
instances (``--method xcc``): every open cell an item covered once, each piece
rule a shape used within its count range, its placements the options.

Kept apart from :mod:`.xcc` so that counting a BurrTools file
(:mod:`tilesat.questions.burrtools`) imports the cover and its C search only.
"""

from __future__ import annotations

import time
from typing import Callable, Iterator

import numpy as np

from ..model.tiling import Tiling
from ..running.control import TimedOut, wait_step
from .base import Context, Engine, Job, Outcome, Progress, Unit
from .cover_find import find_covers
from .xcc import Cover, _i32, run_sliced


def placements_cover(placements, forced: tuple[int, ...] = (),
                     excluded: tuple[int, ...] = ()) -> tuple[Cover, np.ndarray] | None:
    """The placements as a Cover (every open cell fixed but the optional ones, each piece rule a
    shape with its count range) and the placement of each option; with
    ``forced`` placements, the cover left once they are down (None when they
    overlap or exceed a piece's count), without the ``excluded`` ones."""
    instance = placements.instance
    board = instance.board
    taken = np.zeros(board.ncells, bool)
    used = np.zeros(len(instance.rules), np.int64)
    for p in forced:
        cells = placements.cells_of(int(p))
        if taken[cells].any():
            return None
        taken[cells] = True
        used[int(placements.rule[p])] += 1
    most = len(placements) + 1  # any bound past it means the same (and fits an int64)
    lo = np.array([min(r.min, most) for r in instance.rules], np.int64) - used
    hi = np.array([min(r.max, most) for r in instance.rules], np.int64) - used
    if (hi < 0).any():
        return None
    sizes = np.diff(placements.indptr)
    rule = placements.rule.astype(np.int64)
    keep = hi[rule] > 0
    keep[np.asarray(excluded, np.int64)] = False
    if taken.any() and placements.cells.size:
        hit = np.add.reduceat(taken[placements.cells].astype(np.int64), placements.indptr[:-1]) > 0
        keep &= ~(hit & (sizes > 0))
    left = board.open_cells[~taken[board.open_cells]]
    column = np.full(board.ncells, -1, np.int64)
    column[left] = np.arange(left.size)
    index = np.flatnonzero(keep)
    ptr = np.zeros(index.size + 1, np.int64)
    np.cumsum(sizes[index], out=ptr[1:])
    cells = column[placements.cells[np.repeat(keep, sizes)]]
    # an optional cell (+) is an item covered at most once; colours are in the placements already
    fixed = np.ones(left.size, np.uint8) if board.optional is None else (~board.optional.ravel()[left]).astype(np.uint8)
    cover = Cover(fixed, _i32(ptr), _i32(cells), _i32(rule[index]), _i32(np.maximum(lo, 0)),
                  _i32(hi))
    return cover, index


class XccEngine(Engine):
    """The compiled exact cover (:mod:`tilesat.engines.xcc`): counts a unit
    without listing when no symmetry but the identity is asked about; every
    grid, every piece count (ranges included)."""

    name = "xcc"
    questions = frozenset({"find", "count", "list"})
    enumerates = True
    summary = "the compiled exact cover (piece count ranges, every grid)"
    reports_each_tiling = False  # (when it counts without listing)

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        if not ctx.identity_only(unit) or limit is not None:
            if unit.excluded:
                raise AssertionError("BUG: a part of a stopped xcc count listed tiling by tiling")
            return super().count_unit(ctx, unit, on_tiling, limit)
        made = placements_cover(ctx.placements, unit.forced, unit.excluded)
        if made is None:
            return [0] * len(unit.syms)
        cover, index = made
        search = cover.search()
        search.reset(np.zeros(0, np.int32))
        t0 = time.perf_counter()
        try:
            run_sliced(search, between=wait_step)  # the run's deadline and watchers (the LP raced beside)
        except TimedOut as stop:
            rest = _rest(cover, index, unit, search.frontier())
            if rest is not None:  # what it counted, and the work left as units: a resume stays exact
                stop.found = Outcome([int(search.count)] * len(unit.syms), time.perf_counter() - t0,
                                     int(search.nodes), rest, [None] * len(rest))
            raise
        return [int(search.count)] * len(unit.syms)

    def tilings(self, ctx: Context, forced: tuple[int, ...] | None, limit: int | None) -> Iterator[np.ndarray]:
        yield from ctx.checked(covers(ctx.placements, tuple(forced or ())), limit, disjoint=True)

    def find(self, job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
        return find_covers(job, count, progress, found, stats, lambda placements, limit: covers(placements, (), limit),
                           "searching by the compiled exact cover", "xcc")


def covers(placements, forced: tuple[int, ...] = (), limit: int | None = None) -> Iterator[np.ndarray]:
    """The placement indices of each exact cover holding ``forced`` (up to ``limit``), searched
    here in slices (the deadline and Ctrl-C act between them)."""
    made = placements_cover(placements, forced)
    if made is None:
        return
    cover, index = made
    search = cover.search()
    search.reset(np.zeros(0, np.int32))
    forced_array = np.asarray(forced, np.int64)
    left = limit
    while left is None or left > 0:
        status = run_sliced(search, 256 if left is None else min(256, left), between=wait_step)
        for options in search.take_solutions():
            yield np.concatenate([index[np.asarray(options, np.int64)], forced_array])
            left = None if left is None else left - 1
        if status != "paused":
            return


def _rest(cover: Cover, index: np.ndarray, unit: Unit, frontier: list | None) -> list | None:
    """The work a stopped search left, as (forced, excluded) parts of ``unit``: at each level above
    where it stands, the node with the options tried there excluded, and that node itself; None
    where a level does not split its node into one option each (a shape with copies still to place,
    or "no more copies"), so that the parts could not say exactly what is left."""
    if frontier is None:
        return None
    used = np.zeros(len(cover.lo), np.int64)
    chosen: list[int] = []
    rest = []
    for kind, item, option, tried, left in frontier:
        if kind == 2 or option < 0 or (kind == 1 and cover.hi[item] - used[item] != 1):
            return None
        if left:
            rest.append((unit.forced + tuple(chosen), unit.excluded + tuple(int(index[t]) for t in tried)))
        chosen.append(int(index[option]))
        used[cover.opt_shape[option]] += 1
    rest.append((unit.forced + tuple(chosen), unit.excluded))
    return rest


XCC = XccEngine()
