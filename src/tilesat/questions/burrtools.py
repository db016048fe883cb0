"""BurrTools problems as exact covers, counted as BurrTools counts them.

A BurrTools problem (:mod:`tilesat.model.xmpuzzle`) becomes a :class:`tilesat.engines.xcc.Cover`:
the result shape's voxels are the cells (``#`` fixed: filled exactly once,
``+`` optional: at most once, ``_`` none), each piece (a shape with a count or
a range) is a shape of the cover, and its placements are every rotation of
it at every translation inside the result whose voxel colours the problem
pairs with the result's (the default colour fits anything).

BurrTools' counting conventions (its user guide and its solver's source):

- Assemblies that are rotations of one another inside the result, by a
  rotation that maps the result onto itself (voxel states and colours
  included), count once.
- A mirror image counts as the same assembly only when the result has a
  mirror symmetry and each piece is its own mirror image or has its mirror
  partner in the problem (a later piece whose shape is the mirror image,
  colours included; pieces are paired in order); the pieces are swapped with
  their partners to compare, and an image that breaks a piece's count range
  is no assembly.  When some piece has no partner, mirror images count apart,
  unless some piece has a range (min < max): then only the assemblies using
  an unpartnered piece count apart.  ``keep_mirror`` (BurrTools' "keep
  mirror solutions") counts mirror images apart always.
- Copies of one shape (``count="k"``) are interchangeable; two shapes with
  identical voxels are different pieces.
- ``maxHoles`` limits the optional cells left empty when the pieces' total
  volume can vary (BurrTools ignores it otherwise).
- A piece's variable voxels are left out: ``burrTxt`` places only its filled
  voxels (BurrTools' graphical program refuses to solve such a problem).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from ..engines.xcc import Cover, Element, count_unit, with_symmetry
from ..errors import TilesatError
from ..model.xmpuzzle import FILLED, GRID_NAMES, BurrPuzzle, BurrShape


def _cube_maps() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The 24 rotations and the 24 reflections of the cube grid as 3x3 matrices, identity first."""
    rotations, mirrors = [], []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), np.int64)
            for i in range(3):
                m[i, perm[i]] = signs[i]
            (rotations if round(np.linalg.det(m)) == 1 else mirrors).append(m)
    return rotations, mirrors


ROTATIONS, MIRRORS = _cube_maps()


def _normal(coords: np.ndarray, colours: np.ndarray) -> tuple:
    """Voxels (coordinates and colours) moved to the origin, as a sorted tuple: equal iff
    the two are the same up to translation."""
    low = coords.min(axis=0)
    return tuple(sorted(zip(map(tuple, (coords - low).tolist()), colours.tolist())))


def _normal_bytes(coords: np.ndarray, labels: np.ndarray) -> bytes:
    """:func:`_normal` as bytes, for shapes of many voxels (the result's symmetry test)."""
    moved = coords - coords.min(axis=0)
    order = np.lexsort((labels, moved[:, 2], moved[:, 1], moved[:, 0]))
    return np.column_stack([moved[order], labels[order]]).astype(np.int64).tobytes()


@dataclass(frozen=True, eq=False)
class BurrCover:
    """A BurrTools problem as a cover, and what is needed to show its assemblies."""

    cover: Cover
    cells: list[tuple[int, int, int]]  # cell i of the cover is this voxel of the result (x, y, z)
    pieces: list[str]  # cover shape k: its name
    parts: list[int]  # cover shape k: its shape id in the file
    mirror: str  # how mirror images count: "same", "apart" (keep_mirror or no mirror symmetry), "partial"
    rotations: int  # the result's rotations (its symmetry group without reflections)
    reflections: int  # the result's reflections used (0 when mirror images count apart)
    mirror_why: str = ""  # why mirror images count as they do, in words


def _voxels(shape: BurrShape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cells = shape.cells()
    coords = np.array(list(cells), np.int64).reshape(-1, 3)
    states = np.array([s for s, _ in cells.values()], np.int64)
    colours = np.array([c for _, c in cells.values()], np.int64)
    return coords, states, colours


def burr_cover(puzzle: BurrPuzzle, which: int | str | None = None, keep_mirror: bool = False,
               keep_rotations: bool = False) -> BurrCover:
    """Problem ``which`` (index or name) of a BurrTools puzzle as a cover that
    counts as BurrTools does (``keep_rotations``: every assembly counts)."""
    index, problem = puzzle.problem(which)
    where = f"{puzzle.source}: {problem.label(index)}"
    if puzzle.grid_type != 0:
        raise TilesatError(f"{puzzle.source}: BurrTools grid type {puzzle.grid_type} "
                           f"({GRID_NAMES.get(puzzle.grid_type, '?')}) is not a grid tilesat counts; "
                           "it counts the cube grid (type 0)")
    ncol = len(puzzle.colours)
    result = puzzle.shapes[problem.result]
    rc, rs, rcol = _voxels(result)
    if not rc.size:
        raise TilesatError(f"{where}: the result shape (shape {problem.result}) has no voxels")
    for c in np.concatenate([rcol, *[_voxels(puzzle.shapes[p.shape])[2] for p in problem.parts]]).tolist():
        if c > ncol:
            raise TilesatError(f"{where}: a voxel has colour {c} but the file defines {ncol} colours")
    cells = [tuple(int(v) for v in c) for c in rc.tolist()]
    low, high = rc.min(axis=0), rc.max(axis=0)
    box = high - low + 1
    lookup = np.full(tuple(box), -1, np.int64)
    lookup[tuple((rc - low).T)] = np.arange(len(cells))
    allowed = np.ones((64, 64), bool)
    if ncol:
        allowed[1:, 1:] = False
        for a, b in problem.pairs:
            if a < 63 and b < 63:
                allowed[a + 1, b + 1] = True

    opt_shape, opt_cells, opt_colours, opt_sizes = [], [], [], []  # per orientation: its options
    lo, hi, names, parts, orients = [], [], [], [], []
    for k, part in enumerate(problem.parts):
        shape = puzzle.shapes[part.shape]
        pc, ps, pcol = _voxels(shape)
        # a piece's variable voxels: burrTxt places only its filled ones (the GUI refuses to solve)
        pc, pcol = pc[ps == FILLED], pcol[ps == FILLED]
        if not pc.size:
            raise TilesatError(f"{where}: piece shape {part.shape} has no filled voxels")
        lo.append(part.min)
        hi.append(part.max)
        names.append(shape.name or f"S{part.shape + 1}")
        parts.append(part.shape)
        seen: dict[tuple, None] = {}
        for m in ROTATIONS:
            seen.setdefault(_normal(pc @ m.T, pcol), None)
        orients.append(set(seen))
        if part.max == 0:
            continue
        for orient in seen:  # distinct orientations at distinct places: distinct options
            offs = np.array([c for c, _ in orient], np.int64)
            cols = np.array([c for _, c in orient], np.int64)
            room = box - offs.max(axis=0)
            if (room <= 0).any():
                continue
            anchors = np.indices(tuple(room)).reshape(3, -1).T
            where_ = anchors[:, None, :] + offs[None, :, :]
            idx = lookup[tuple(np.moveaxis(where_, -1, 0))]
            ok = (idx >= 0).all(axis=1)
            idx = idx[ok]
            if idx.size:
                ok2 = allowed[cols[None, :], rcol[idx]].all(axis=1)
                idx = idx[ok2]
            if idx.size:
                order = np.argsort(idx, axis=1, kind="stable")  # each option's cells ascending
                opt_shape.append(np.full(len(idx), k, np.int64))
                opt_cells.append(np.take_along_axis(idx, order, axis=1).ravel())
                opt_colours.append(cols[order].ravel())
                opt_sizes.append(np.full(len(idx), idx.shape[1], np.int64))
    fixed = (rs == FILLED).astype(np.uint8)
    volume = [len(next(iter(o))) for o in orients]
    min_vol = sum(v * p.min for v, p in zip(volume, problem.parts))
    max_vol = sum(v * p.max for v, p in zip(volume, problem.parts))
    max_holes = problem.max_holes if (problem.max_holes is not None and min_vol != max_vol) else -1
    ptr = np.zeros(sum(map(len, opt_sizes)) + 1, np.int64)
    np.cumsum(np.concatenate(opt_sizes or [np.zeros(0, np.int64)]), out=ptr[1:])
    joined = [np.concatenate(a or [np.zeros(0, np.int64)]).astype(np.int32) for a in (opt_cells, opt_shape, opt_colours)]
    cover = Cover(fixed, ptr.astype(np.int32), joined[0], joined[1], np.asarray(lo, np.int32), np.asarray(hi, np.int32),
                  joined[2], max_holes)

    # the result's symmetries: maps of the grid that lay it on itself, states and colours included
    key = _normal_bytes(rc, rs * 64 + rcol)
    rot_maps, mirror_maps = [], []
    for maps, out in ((ROTATIONS, rot_maps), (MIRRORS, mirror_maps)):
        for m in maps:
            image = rc @ m.T
            if _normal_bytes(image, rs * 64 + rcol) != key:
                continue
            moved = image - image.min(axis=0)
            out.append(lookup[tuple(moved.T)])
    used = [k for k, p in enumerate(problem.parts) if p.max > 0]
    partner = _partners(puzzle, problem, orients, used)
    chiral_unpaired = any(partner[k] is None for k in used)
    ranges = any(p.min != p.max for p in problem.parts)
    mirror = "apart"
    elements: list[Element] = []
    if not keep_rotations:
        elements = [Element(c) for c in rot_maps]
        if mirror_maps and not keep_mirror and (not chiral_unpaired or ranges):
            shapes = np.array([(-1 if partner[k] is None else partner[k]) if k in used else k
                               for k in range(len(problem.parts))], np.int64)
            always = not chiral_unpaired and all(
                (problem.parts[k].min, problem.parts[k].max) == (problem.parts[j].min, problem.parts[j].max)
                for k in used for j in [partner[k]] if j is not None)
            elements += [Element(c, shapes, always, not always) for c in mirror_maps]
            mirror = "same" if always else "partial"
    cover = with_symmetry(cover, elements)
    reflections = len(mirror_maps) if mirror != "apart" else 0
    unpaired = [names[k] for k in used if partner[k] is None]
    why = {"same": "every piece is its own mirror image or has its mirror partner",
           "partial": f"the assemblies using {_listed(unpaired)}, without mirror partner, count apart "
                      "(some piece has a range)"}.get(mirror, "")
    if mirror == "apart":
        why = ("every assembly kept" if keep_rotations else "mirror solutions kept" if keep_mirror
               else "the result has no mirror symmetry" if not mirror_maps
               else f"{_listed(unpaired)} {'has' if len(unpaired) == 1 else 'have'} no mirror partner")
    return BurrCover(cover, cells, names, parts, mirror, len(rot_maps) if not keep_rotations else 1, reflections, why)


def _listed(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
    return ("piece " if len(names) == 1 else "pieces ") + shown


def _partners(puzzle: BurrPuzzle, problem, orients: list[set], used: list[int]) -> list[int | None]:
    """Each piece's mirror partner: itself when it is its own mirror image, else
    the first later unpaired piece whose shape is its mirror image (colours
    included), else None (BurrTools pairs the pieces in this order)."""
    partner: list[int | None] = [None] * len(problem.parts)
    mirrored = []
    for k in range(len(problem.parts)):
        pc, ps, pcol = _voxels(puzzle.shapes[problem.parts[k].shape])
        mirrored.append(_normal(pc[ps == FILLED] @ MIRRORS[0].T, pcol[ps == FILLED]))
    for k in used:
        if mirrored[k] in orients[k]:
            partner[k] = k
    for k in used:
        if partner[k] is not None:
            continue
        for j in used:
            if j > k and partner[j] is None and mirrored[k] in orients[j]:
                partner[k], partner[j] = j, k
                break
    return partner


@dataclass(frozen=True)
class BurrCount:
    """A problem's assemblies counted as BurrTools counts them (``exact`` False:
    stopped early, ``count`` is a lower bound) and the conventions that applied."""

    problem: int
    name: str
    count: int
    exact: bool
    stopped: str | None  # "timeout", "interrupted" or None
    keep_mirror: bool
    rotations: int  # the result's rotations, identity included: assemblies they map onto each other count once
    mirror: str  # "same", "partial" or "apart" (see BurrCover)
    mirror_why: str
    options: int  # the placements the search chose from
    nodes: int
    recorded: int | None  # the assemblies the file records (BurrTools' solver, with the options its user gave)
    seconds: float

    def to_json(self) -> dict:
        return {"count": self.count, "exact": self.exact, "stopped": self.stopped, "convention": "burrtools",
                "problem": self.problem, "problem_name": self.name, "keep_mirrors": self.keep_mirror,
                "rotations": self.rotations, "mirror": self.mirror, "mirror_why": self.mirror_why,
                "method": "xcc", "placements": self.options, "nodes": self.nodes, "recorded": self.recorded,
                "seconds": round(self.seconds, 6)}

    def text(self) -> str:
        """The count in a sentence, with the conventions it follows."""
        amount = f"{self.count:,} assembl{'y' if self.count == 1 else 'ies'}"
        if not self.exact:
            amount = f"at least {amount} ({'interrupted' if self.stopped == 'interrupted' else 'time limit reached'})"
        label = f"problem {self.problem}" + (f" ({self.name})" if self.name else "")
        turns = (f"rotations of one another count once (the result's {self.rotations} rotations)"
                 if self.rotations > 1 else "the result has no rotation symmetry")
        mirrors = {"same": f"mirror images count once ({self.mirror_why})",
                   "partial": f"mirror images count once, but {self.mirror_why}"}.get(
            self.mirror, f"mirror images count apart ({self.mirror_why})")
        recorded = f" (the file records {self.recorded:,})" if self.recorded is not None else ""
        return f"count: {amount} of {label}, as BurrTools counts them: {turns}, {mirrors}; by xcc, " \
               f"{self.seconds:.3f} s{recorded}"


def count_assemblies(puzzle: BurrPuzzle, which: int | str | None = None, keep_mirror: bool = False,
                     deadline: float | None = None, progress=None) -> BurrCount:
    """Count problem ``which`` as BurrTools does (``keep_mirror``: BurrTools'
    "keep mirror solutions").  ``deadline`` (``time.monotonic()``) and Ctrl-C
    stop the search with the count so far, a lower bound; ``progress(count)``
    is called between slices of the search."""
    t0 = time.perf_counter()
    index, problem = puzzle.problem(which)
    made = burr_cover(puzzle, index, keep_mirror=keep_mirror)
    result = count_unit(made.cover, (), deadline, progress=progress)
    if result.stopped == "memory":
        raise TilesatError(f"{puzzle.source}: {problem.label(index)}: the search ran out of memory")
    return BurrCount(index, problem.name, result.count, result.exact, result.stopped, keep_mirror, made.rotations,
                     made.mirror, made.mirror_why, len(made.cover), result.nodes,
                     problem.assemblies if problem.state == 2 else None, time.perf_counter() - t0)


def problem_names(puzzle: BurrPuzzle) -> list[str]:
    return [p.label(k) for k, p in enumerate(puzzle.problems)]

