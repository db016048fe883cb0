"""The compiled counting engine: exact cover with piece counts, optional cells and colours.

Once the placements are built the grid no longer matters (the Polyomino
Tiler's point): a :class:`Cover` is cells (each fixed: covered exactly once,
or optional: at most once), shapes (each used ``lo``..``hi`` times) and
options (a placement: the cells it covers, the colour it puts on each, its
shape).  The C search (``_xcc.c``) counts or lists the sets of options that
cover every fixed cell once, no cell twice, with every shape's count in range.

Symmetry: :func:`with_symmetry` takes the group as cell maps (with, for each
element, the shape each shape turns into: a mirror image may swap a piece
with its mirror partner) and gives the Cover the tables the search needs to
count one assembly per orbit: the option permutation of each element, and a
*pivot* (a fixed cell or a shape used exactly once) whose options are cut to
one per orbit, which divides the search by about the order of the group.

Units: the search's first levels split it into independent parts
(:func:`units`, each a path of branch numbers), for ``--jobs`` and the
cluster; their counts add up.  A deadline, :meth:`Search.stop` or Ctrl-C stop
a run within a few milliseconds and leave its counts readable.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from . import _xcc
from ..model.arrays import unique


def _i32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.int32))


@dataclass(frozen=True, eq=False)
class Cover:
    """The exact cover problem the engine solves (see the module's docstring)."""

    fixed: np.ndarray  # uint8 (cells,): 1 covered exactly once, 0 at most once
    opt_ptr: np.ndarray  # int32 (options + 1,)
    opt_cells: np.ndarray  # int32: option p covers opt_cells[opt_ptr[p]:opt_ptr[p + 1]]
    opt_shape: np.ndarray  # int32 (options,)
    lo: np.ndarray  # int32 (shapes,)
    hi: np.ndarray  # int32 (shapes,): above the number of options means "any number"
    opt_colours: np.ndarray | None = None  # int32 like opt_cells: the colour each option puts on each cell
    max_holes: int = -1  # at most this many optional cells stay empty (-1: any number)
    # symmetry (with_symmetry fills these in)
    pivot: int = -1  # a cell (0..cells-1) or shape (cells + s) every assembly holds once; -1 none
    pivot_options: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    perm: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int32))  # (elements, options)
    src: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    sigma: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int32))  # (elements, shapes)
    count_check: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    group_order: int = 1

    @property
    def n_cells(self) -> int:
        return int(self.fixed.size)

    @property
    def n_shapes(self) -> int:
        return int(self.lo.size)

    def __len__(self) -> int:
        return int(self.opt_shape.size)

    def cells_of(self, p: int) -> np.ndarray:
        return self.opt_cells[self.opt_ptr[p]:self.opt_ptr[p + 1]]

    def key(self, p: int) -> tuple:
        """What makes an option itself: its shape and the colour it puts on each cell."""
        a, b = int(self.opt_ptr[p]), int(self.opt_ptr[p + 1])
        colours = self.opt_colours[a:b] if self.opt_colours is not None else np.zeros(b - a, np.int32)
        return int(self.opt_shape[p]), tuple(sorted(zip(self.opt_cells[a:b].tolist(), colours.tolist())))

    def search(self, snap_items: int = 4096, lists: int = -1) -> "_xcc.Search":
        """The C search.  ``lists``: each node keeps its live options as a filtered list (1) or
        kills them in sparse sets (0), or -1: as _xcc.c's rule says; up to ``snap_items`` items
        each level copies its item counts (above, it counts the killed options back in).  Tests
        try every way."""
        n_checks = self.perm.shape[0] if self.perm.size else 0
        return _xcc.Search(
            np.ascontiguousarray(self.fixed, dtype=np.uint8), _i32(self.opt_ptr), _i32(self.opt_cells),
            _i32(self.opt_shape), _i32(self.lo), _i32(self.hi), int(self.max_holes), int(self.pivot),
            _i32(self.pivot_options), _i32(self.perm.reshape(-1) if n_checks else np.zeros(0)),
            _i32(self.src if n_checks else np.zeros(0)),
            _i32(self.sigma.reshape(-1) if n_checks else np.zeros(0)),
            np.ascontiguousarray(self.count_check if n_checks else np.zeros(0), dtype=np.uint8), snap_items=snap_items,
            lists=lists)


def make_cover(fixed, options: list[tuple[int, list[int], list[int] | None]], lo, hi, max_holes: int = -1) -> Cover:
    """A Cover from a list of options ``(shape, cells, colours or None)``."""
    ptr = np.zeros(len(options) + 1, np.int64)
    for k, (_, cells, _) in enumerate(options):
        ptr[k + 1] = ptr[k] + len(cells)
    cells = np.fromiter((c for _, cs, _ in options for c in cs), np.int32, int(ptr[-1]))
    colours = None
    if any(col is not None for _, _, col in options):
        colours = np.fromiter((c for _, cs, col in options for c in (col if col is not None else [0] * len(cs))),
                              np.int32, int(ptr[-1]))
    shape = np.fromiter((s for s, _, _ in options), np.int32, len(options))
    return Cover(np.asarray(fixed, np.uint8), ptr.astype(np.int32), cells, shape, _i32(lo), _i32(hi), colours,
                 max_holes)


# --- symmetry --------------------------------------------------------------

@dataclass(frozen=True)
class Element:
    """A symmetry: where each cell goes, what each shape becomes (None: itself)
    and whether the search may rely on it for every assembly (``always``: a
    rotation; a mirror image only when every piece's mirror partner is there
    in the same numbers)."""

    cells: np.ndarray
    shapes: np.ndarray | None = None
    always: bool = True
    count_check: bool = False  # the image may break a piece count: check it


def _rows(cover: Cover, opts: np.ndarray, cell_map: np.ndarray | None = None,
          shape_map: np.ndarray | None = None) -> np.ndarray:
    """Options of one size as rows (shape, then cell * 64 + colour sorted): equal rows, equal options."""
    size = int(cover.opt_ptr[opts[0] + 1] - cover.opt_ptr[opts[0]])
    at = cover.opt_ptr[opts][:, None] + np.arange(size)[None, :]
    cells = cover.opt_cells[at].astype(np.int64)
    if cell_map is not None:
        cells = cell_map[cells]
    colours = cover.opt_colours[at] if cover.opt_colours is not None else 0
    shapes = cover.opt_shape[opts].astype(np.int64)
    if shape_map is not None:
        shapes = shape_map[shapes]
    return np.concatenate([shapes[:, None], np.sort(cells * 64 + colours, axis=1)], axis=1)


def _void(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def _option_perm(cover: Cover, elements: list[Element]) -> np.ndarray:
    """perm[g, p]: the option element g maps option p to (-1: none)."""
    perm = np.full((len(elements), len(cover)), -1, np.int32)
    sizes = np.diff(cover.opt_ptr)
    for size in unique(sizes).tolist():
        opts = np.flatnonzero(sizes == size)
        keys = _void(_rows(cover, opts))
        order = np.argsort(keys)
        sorted_keys = keys[order]
        for g, e in enumerate(elements):
            shape_map = None if e.shapes is None else np.asarray(e.shapes, np.int64)
            image = _rows(cover, opts, np.asarray(e.cells, np.int64), shape_map)
            found = np.searchsorted(sorted_keys, _void(image))
            found = np.minimum(found, len(opts) - 1)
            hit = (sorted_keys[found] == _void(image)) & (image[:, 0] >= 0)
            perm[g, opts[hit]] = opts[order[found[hit]]]
    return perm


def _orbit_reps(candidates: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """One option per orbit of ``candidates`` under a subgroup, given as the
    rows of ``perm`` of its elements other than the identity: the smallest."""
    if not perm.shape[0]:
        return candidates
    images = perm[:, candidates]
    images = np.where(images < 0, candidates[None, :], images)
    return candidates[images.min(axis=0) >= candidates]


def with_symmetry(cover: Cover, elements: list[Element]) -> Cover:
    """The cover counting one assembly per orbit of the group ``elements``
    (the identity may be among them; it is dropped)."""
    n = cover.n_cells
    ident = np.arange(n)
    elements = [e for e in elements if not (np.array_equal(e.cells, ident)
                                            and (e.shapes is None or np.array_equal(e.shapes, np.arange(cover.n_shapes))))]
    if not elements or not len(cover):
        return replace(cover, group_order=1)
    perm = _option_perm(cover, elements)
    always = [g for g, e in enumerate(elements) if e.always]
    # the pivot: the candidate that keeps the fewest options per option it had
    best = None
    by_shape = [np.flatnonzero(cover.opt_shape == s) for s in range(cover.n_shapes)]
    for s in range(cover.n_shapes):
        if cover.lo[s] != 1 or cover.hi[s] != 1 or not by_shape[s].size:
            continue
        keep = [g for g in always if elements[g].shapes is None or int(elements[g].shapes[s]) == s]
        reps = _orbit_reps(by_shape[s], perm[keep])
        score = (len(reps) / by_shape[s].size, len(reps))
        if best is None or score < best[0]:
            best = (score, n + s, reps)
    owner_ptr = np.repeat(np.arange(len(cover)), np.diff(cover.opt_ptr))
    for c in np.flatnonzero(cover.fixed).tolist():
        covering = owner_ptr[cover.opt_cells == c]
        if not covering.size:
            continue
        keep = [g for g in always if int(elements[g].cells[c]) == c]
        reps = _orbit_reps(covering, perm[keep])
        score = (len(reps) / covering.size, len(reps))
        if best is None or score < best[0]:
            best = (score, c, reps)
    src = np.full(len(elements), -1, np.int32)
    pivot, reps = -1, []
    if best is not None and best[0][0] < 1:
        _, pivot, reps = best
        for g, e in enumerate(elements):
            if pivot < n:
                inverse = np.empty(n, np.int64)
                inverse[e.cells] = np.arange(n)
                src[g] = inverse[pivot]
            else:
                s = pivot - n
                # the shape whose image is the pivot's shape (shape maps are involutions)
                src[g] = int(e.shapes[s]) if e.shapes is not None else s
                if src[g] < 0:
                    src[g] = -1
    sigma = np.array([e.shapes if e.shapes is not None else np.arange(cover.n_shapes) for e in elements], np.int32)
    sigma = np.where(sigma < 0, np.arange(cover.n_shapes)[None, :], sigma) if sigma.size else sigma
    return replace(cover, pivot=int(pivot), pivot_options=_i32(np.sort(np.asarray(reps, np.int64))), perm=perm, src=src,
                   sigma=sigma.reshape(len(elements), cover.n_shapes),
                   count_check=np.array([e.count_check for e in elements], np.uint8),
                   group_order=len(elements) + 1)


# --- running -----------------------------------------------------------------

@dataclass
class CountResult:
    count: int  # one per orbit (all assemblies when the cover has no symmetry)
    found: int  # assemblies the search reached
    nodes: int
    exact: bool
    stopped: str | None = None  # "timeout", "interrupted", "stopped", "memory"
    seconds: float = 0.0
    units: int = 1


def units(cover: Cover, want: int, search: "_xcc.Search | None" = None) -> list[tuple[int, ...]]:
    """At least ``want`` independent parts of the search (fewer when it has
    fewer nodes), as paths of branch numbers from the root, in search order;
    their counts add up to the whole count."""
    search = search or cover.search()
    paths: list[tuple[int, ...]] = [()]
    while len(paths) < want:
        grown = []
        for path in paths:
            k = search.branches(np.array(path, np.int32))
            grown += [path + (b,) for b in range(k)] if k else [path]  # 0: an assembly or a dead end
        if len(grown) == len(paths):
            break
        paths = grown
    return paths


#: With something to do between them, a search runs in slices of this many seconds.
SLICE_SECONDS = 0.1


def run_sliced(search: "_xcc.Search", max_solutions: int = 0, deadline: float | None = None,
               between: Callable[[], object] | None = None) -> str:
    """Run the search on until it is done, ``max_solutions`` more assemblies are recorded
    ("paused", 0: count only) or ``deadline`` (``time.monotonic()``) passes ("timeout"); with
    ``between``, in slices of SLICE_SECONDS with ``between()`` called after each (progress, or
    the run's own deadline and watchers, which may raise)."""
    while True:
        until = deadline if between is None else min(time.monotonic() + SLICE_SECONDS, deadline or math.inf)
        status = search.run(max_solutions, until or 0.0)
        if status != "timeout" or between is None or (deadline is not None and time.monotonic() >= deadline):
            return status
        between()


def count_unit(cover: Cover, path: tuple[int, ...] = (), deadline: float | None = None,
               search: "_xcc.Search | None" = None, progress: Callable[[int], None] | None = None) -> CountResult:
    """Count one unit (the whole search for the empty path) until ``deadline`` (``time.monotonic()``);
    ``progress(count so far)`` is called between slices of SLICE_SECONDS."""
    search = search or cover.search()
    search.reset(np.array(path, np.int32))
    t0 = time.perf_counter()
    try:
        status = run_sliced(search, 0, deadline, progress and (lambda: progress(int(search.count))))
    except KeyboardInterrupt:
        status = "interrupted"
    stopped = None if status == "done" else status
    return CountResult(int(search.count), int(search.found), int(search.nodes), stopped is None, stopped,
                       time.perf_counter() - t0)


def count(cover: Cover, timeout: float | None = None) -> CountResult:
    """Count in this process (Ctrl-C and the timeout stop it with a lower bound)."""
    deadline = time.monotonic() + timeout if timeout else None
    result = count_unit(cover, (), deadline)
    if result.stopped == "interrupted":
        raise KeyboardInterrupt
    return result


def solutions(cover: Cover, batch: int = 256, deadline: float | None = None):
    """The assemblies counted (one per orbit), each a sorted tuple of option numbers."""
    search = cover.search()
    search.reset(np.zeros(0, np.int32))
    while True:
        status = search.run(batch, deadline or 0.0)
        yield from search.take_solutions()
        if status != "paused":
            if status == "timeout":
                raise TimeoutError
            return
