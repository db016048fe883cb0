"""The symmetries of an instance: board maps that carry its placements onto
its placements.

Candidates are the rotations and reflections of the rectangle (all 8 on a
square, 4 otherwise), each composed with every translation along a wrapped
axis (a cylinder turns, a torus shifts both ways).  A candidate is kept when
it maps the open cells onto the open cells and every placement onto a
placement of the same piece rule; the kept ones form a group (the
stabiliser of the instance), which :mod:`tilesat.questions.count` uses for
Burnside's lemma.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .placements import Placements


@dataclass(frozen=True, eq=False)
class Symmetry:
    name: str
    cells: np.ndarray  # cells[x] = image of flat cell x
    placements: np.ndarray  # placements[i] = index of the image of placement i

    def fixes(self, chosen: np.ndarray) -> bool:
        """Does this symmetry map the tiling made of ``chosen`` placements to itself?"""
        # as sets of Python ints: called once per tiling and symmetry, where
        # two numpy sorts cost more than the tiling's few dozen placements
        chosen = np.asarray(chosen, dtype=np.int64)  # may be empty: every optional cell left empty
        return set(self.placements[chosen].tolist()) == set(chosen.tolist())

    @cached_property
    def is_identity(self) -> bool:
        return bool((self.placements == np.arange(self.placements.size)).all())


def _point_maps(R: int, C: int):
    """(name, function of row/col arrays) for the rotations and reflections."""
    maps = [
        ("identity", lambda r, c: (r, c)),
        ("rotate 180", lambda r, c: (R - 1 - r, C - 1 - c)),
        ("flip rows", lambda r, c: (R - 1 - r, c)),
        ("flip columns", lambda r, c: (r, C - 1 - c)),
    ]
    if R == C:
        maps += [
            ("rotate 90", lambda r, c: (c, R - 1 - r)),
            ("rotate 270", lambda r, c: (C - 1 - c, r)),
            ("transpose", lambda r, c: (c, r)),
            ("anti-transpose", lambda r, c: (C - 1 - c, R - 1 - r)),
        ]
    return maps


def _grid_maps(board) -> list[tuple[str, np.ndarray]]:
    """Candidate cell maps on the triangle, hex and cube grids: each point
    symmetry of the grid followed by the translation of the grid that lays
    the image of the open cells on the open cells (if there is one).
    Blocked cells map to themselves (no placement covers them)."""
    lattice = board.lattice
    open_cells = board.cells(board.open_cells)
    target = lattice.normalize(open_cells)
    out = []
    for k, f in enumerate(lattice.symmetries()):
        image = [f(c) for c in open_cells]
        if lattice.normalize(image) != target:
            continue
        low = tuple(min(c[i] for c in image) for i in range(lattice.dims))
        high = tuple(min(c[i] for c in open_cells) for i in range(lattice.dims))
        # the translation normalize used differs from low -> high only by its
        # parity fix, the same on both sides: aligning the minima is right
        delta = tuple(h - lo for h, lo in zip(high, low))
        if not lattice.translation_ok(delta):
            continue
        cells = np.arange(board.ncells)
        moved = [tuple(a + d for a, d in zip(c, delta)) for c in image]
        cells[board.open_cells] = [board.index(c) for c in moved]
        kind = "rotation" if k < lattice.rotations else "reflection"
        out.append(("identity" if k == 0 else f"{kind} {k}", cells))
    return out


def _square_maps(board) -> list[tuple[str, np.ndarray]]:
    R, C = board.rows, board.cols
    r, c = np.divmod(np.arange(R * C), C)
    shifts_r = range(R) if board.wraps_columns else [0]
    shifts_c = range(C) if board.wraps_rows else [0]
    out = []
    for name, f in _point_maps(R, C):
        for dr in shifts_r:
            for dc in shifts_c:
                nr, nc = f(r, c)
                label = name + (f" + shift {dr},{dc}" if dr or dc else "")
                out.append((label, ((nr + dr) % R) * C + (nc + dc) % C))
    return out


def symmetry_group(placements: Placements) -> list[Symmetry]:
    """The symmetries of the instance, identity first.

    A symmetry may exchange two piece rules with the same counts (a
    one-sided F5 and its mirror image F5' under a reflection): it maps
    every placement of one onto a placement of the other, so it still maps
    tilings onto tilings."""
    board = placements.instance.board
    open_flat = board.open.ravel()
    table = _RuleRows(placements)
    group: list[Symmetry] = []
    seen: set[bytes] = set()
    candidates = _square_maps(board) if board.is_square else _grid_maps(board)
    for label, image in candidates:
        if image.tobytes() in seen:
            continue  # the same map of cells reached another way
        seen.add(image.tobytes())
        if not board.same_cells(image):
            continue  # open, optional and coloured cells keep what they are
        perm = table.placement_map(image)
        if perm is not None:
            group.append(Symmetry(label, image, perm))
    group.sort(key=lambda g: not g.is_identity)
    return group


#: a coloured placement's cell x of colour k is the code x * COLOUR_CODES + k
COLOUR_CODES = 64


class _RuleRows:
    """Each rule's placements as rows of sorted cells (a rule's placements
    are contiguous and equally long), searchable as byte strings: a whole
    rule's images are looked up in one vectorised search."""

    def __init__(self, placements: Placements):
        self.placements = placements
        self.rules = placements.instance.rules
        self.rows, self.first, self.keys, self.order = {}, {}, {}, {}
        for k in range(len(self.rules)):
            ids = placements.of_rule(k)
            if not ids.size:
                continue
            size = int(placements.indptr[ids[0] + 1] - placements.indptr[ids[0]])
            span = slice(placements.indptr[ids[0]], placements.indptr[ids[-1] + 1])
            rows = placements.cells[span].astype(np.int64)
            if placements.colours is not None:  # a coloured piece's placement: its cells and its colours on them
                rows = rows * COLOUR_CODES + placements.colours[span]
            rows = np.ascontiguousarray(rows.reshape(-1, size))
            keys = rows.view(np.dtype((np.void, 8 * size))).ravel()
            order = np.argsort(keys)
            self.rows[k], self.first[k], self.keys[k], self.order[k] = rows, int(ids[0]), keys[order], order

    def _find(self, j: int, rows: np.ndarray) -> np.ndarray | None:
        """Placement indices of rule j with exactly these rows of cells, or None if one is missing."""
        if j not in self.keys or self.keys[j].dtype.itemsize != rows.shape[1] * 8:
            return None
        wanted = np.ascontiguousarray(rows).view(self.keys[j].dtype).ravel()
        pos = np.minimum(np.searchsorted(self.keys[j], wanted), self.keys[j].size - 1)
        if not (self.keys[j][pos] == wanted).all():
            return None
        return self.first[j] + self.order[j][pos]

    def placement_map(self, image: np.ndarray) -> np.ndarray | None:
        """The placement permutation a cell map induces, each rule's
        placements going onto one rule's (itself if it can, else another
        with the same counts, each taken once), or None."""
        perm = np.empty(len(self.placements), dtype=np.int64)
        taken: set[int] = set()
        rules = self.rules
        for k, rows in self.rows.items():
            if self.placements.colours is not None:
                moved = np.sort(image[rows // COLOUR_CODES] * COLOUR_CODES + rows % COLOUR_CODES, axis=1)
            else:
                moved = np.sort(image[rows], axis=1)
            for j in sorted(self.rows, key=lambda j: j != k):
                if j in taken or (rules[j].min, rules[j].max) != (rules[k].min, rules[k].max) \
                        or self.rows[j].shape != rows.shape:
                    continue
                found = self._find(j, moved)
                if found is not None:
                    perm[self.first[k]:self.first[k] + rows.shape[0]] = found
                    taken.add(j)
                    break
            else:
                return None
        return perm


#: Whole point groups with a short name: (grid, rotations, reflections) -> the shape they are the symmetries of.
_SHAPES = {
    ("square", 4, 4): "the square", ("square", 2, 2): "the rectangle",
    ("cube", 24, 24): "the cube", ("cube", 8, 8): "a square prism", ("cube", 4, 4): "a box",
    ("hex", 6, 6): "the hexagon", ("triangle", 6, 6): "the hexagon", ("triangle", 3, 3): "the triangle",
    ("hex", 3, 3): "the triangle", ("hex", 2, 2): "the rhombus", ("triangle", 2, 2): "the rhombus",
}


def _point_words(names: list[str], grid: str) -> str:
    rotations = sum(1 for n in names if n == "identity" or n.startswith("rotat"))
    reflections = len(names) - rotations
    if len(names) == 1:
        return "the identity alone"
    if len(names) == 2:
        other = next(n for n in names if n != "identity")
        return f"the identity and {'the half turn' if other in ('rotate 180', 'rotation 3') and grid != 'cube' else other}"
    shape = _SHAPES.get((grid, rotations, reflections))
    if shape == "the rectangle" and "flip rows" not in names:
        shape = None  # the diagonals' reflections: no short name
    if shape is not None:
        return f"the {len(names)} symmetries of {shape}"
    if not reflections:
        return f"{len(names)} rotations"
    return f"{len(names)} symmetries: {rotations} rotations (the identity among them) and {reflections} reflections"


def describe_symmetries(names: list[str], grid: str = "square") -> str:
    """A group of symmetries (:attr:`Symmetry.name` of each) in a few words:
    ``the 8 symmetries of the square``, ``the 48 symmetries of the cube``,
    ``the identity and the half turn``; on wrapped boards the point
    symmetries and how many wrap shifts each is combined with."""
    points = sorted({n.split(" + shift")[0] for n in names}, key=names.index)
    words = _point_words(points, grid)
    if len(points) == len(names):
        return words
    shifts = len(names) // len(points)
    if shifts * len(points) == len(names):
        return f"{len(names)} symmetries: {words}, each with {shifts} wrap shifts"
    return f"{len(names)} symmetries: {words}, with wrap shifts"
