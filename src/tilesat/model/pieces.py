"""Pieces: polyomino shapes, their orientations, and the built-in catalogue.

A :class:`Piece` is a named set of cells ``(row, col)`` normalised so that the
smallest row and the smallest column are 0.  Orientations are generated from
the shape *as drawn*: ``fixed`` keeps the drawing, ``one-sided`` adds the
rotations, ``free`` adds the reflections too.

The sets ``trominoes`` … ``heptominoes`` are produced by enumeration
(:func:`free_polyominoes`), not typed in; trominoes to pentominoes are then
named by matching Golomb's letter shapes against the enumerated ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..errors import TilesatError
from .board import COLOUR_LETTERS
from .grids import get_grid

#: the largest count a piece list may give (an instance file's, a BurrTools problem's): far beyond
#: what any board holds, and a bound every engine can keep in a machine integer (``A..`` says "no upper bound")
MOST_PIECES = 10**9

Cell = tuple[int, int]
Shape = tuple[Cell, ...]

ORIENTATIONS = ("free", "one-sided", "fixed")


def normalize(cells) -> Shape:
    """Translate cells so that min row = min col = 0, and sort them."""
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def _rotate(shape: Shape) -> Shape:
    # 90 degrees clockwise: (r, c) -> (c, -r)
    return normalize((c, -r) for r, c in shape)


def _reflect(shape: Shape) -> Shape:
    return normalize((r, -c) for r, c in shape)


def rotations(shape: Shape) -> list[Shape]:
    out, s = [], normalize(shape)
    for _ in range(4):
        out.append(s)
        s = _rotate(s)
    return out


def grid_normalize(cells, grid: str = "square") -> Shape:
    """``normalize`` on any grid (a translation of that grid)."""
    return normalize(cells) if grid == "square" else get_grid(grid).normalize(cells)


def transforms(shape: Shape, mode: str = "free", grid: str = "square") -> list[Shape]:
    """Distinct orientations of ``shape`` allowed by ``mode``, in a fixed order."""
    if grid != "square":
        lattice = get_grid(grid)
        seen_g: dict[Shape, None] = {}
        for f in lattice.orient_maps(mode):
            seen_g.setdefault(lattice.normalize(f(cell) for cell in shape), None)
        return list(seen_g)
    if mode == "fixed":
        cands = [normalize(shape)]
    elif mode == "one-sided":
        cands = rotations(shape)
    elif mode == "free":
        cands = rotations(shape) + rotations(_reflect(normalize(shape)))
    else:
        raise TilesatError(f"unknown orientation {mode!r}; use one of {', '.join(ORIENTATIONS)}")
    seen: dict[Shape, None] = {}
    for c in cands:
        seen.setdefault(c, None)
    return list(seen)


def cell_maps(mode: str = "free", grid: str = "square") -> list:
    """The point maps of the grid that orientation ``mode`` allows, as functions of a cell."""
    return list(get_grid(grid).orient_maps(mode))


def canonical(shape: Shape, mode: str = "free", grid: str = "square") -> Shape:
    """The representative of the shape's class: smallest orientation."""
    return min(transforms(shape, mode, grid))


@dataclass(frozen=True)
class Piece:
    """A named polyomino (or any finite set of cells) as drawn."""

    name: str
    cells: Shape
    grid: str = "square"  # a name in tilesat.model.grids.GRIDS
    #: each cell's colour (1..26; 0 the default, which fits any board cell), in the order of
    #: ``cells``; () when every cell has the default colour
    colours: tuple[int, ...] = ()

    def __post_init__(self):
        if not self.cells:
            raise TilesatError(f"piece {self.name} has no cells")
        if self.colours and len(self.colours) != len(self.cells):
            raise TilesatError(f"piece {self.name}: {len(self.colours)} colours for {len(self.cells)} cells")
        # a translation keeps the cells' order: sorted before, the colours stay with their cells
        pairs = sorted(zip(self.cells, self.colours or [0] * len(self.cells)))
        object.__setattr__(self, "cells", grid_normalize(self.cells, self.grid))
        colours = tuple(c for _, c in pairs)
        object.__setattr__(self, "colours", colours if any(colours) else ())

    @property
    def coloured(self) -> bool:
        return bool(self.colours)

    def coloured_orientations(self, mode: str = "free") -> list[tuple[Shape, tuple[int, ...]]]:
        """Distinct orientations with their cells' colours (a shape and the
        colour of each of its cells): a coloured piece turned onto its own
        cells may still be another placement, its colours moved."""
        if not self.colours:
            return [(shape, (0,) * len(shape)) for shape in self.orientations(mode)]
        seen: dict[tuple, None] = {}
        for f in cell_maps(mode, self.grid):
            image = sorted((f(cell), colour) for cell, colour in zip(self.cells, self.colours))
            shape = grid_normalize([c for c, _ in image], self.grid)
            seen.setdefault((shape, tuple(c for _, c in image)), None)
        return list(seen)

    @property
    def size(self) -> int:
        return len(self.cells)

    @property
    def letter(self) -> str:
        """One character shown for this piece in pictures of tilings."""
        return self.name[0].upper()

    @property
    def height(self) -> int:
        return 1 + max(r for r, _ in self.cells)

    @property
    def width(self) -> int:
        return 1 + max(c for _, c in self.cells)

    def orientations(self, mode: str = "free") -> list[Shape]:
        return transforms(self.cells, mode, self.grid)

    def is_connected(self) -> bool:
        cells = set(self.cells)
        stack, seen = [self.cells[0]], {self.cells[0]}
        lattice = get_grid(self.grid)
        while stack:
            cell = stack.pop()
            for n in lattice.neighbours(cell):
                if n in cells and n not in seen:
                    seen.add(n)
                    stack.append(n)
        return len(seen) == len(cells)

    def drawing_plain(self) -> str:
        """:meth:`drawing` without the colours."""
        if self.grid != "square":
            return get_grid(self.grid).format_shape(self.cells)
        cells = set(self.cells)
        return "/".join("".join("#" if (r, c) in cells else "." for c in range(self.width)) for r in range(self.height))

    def drawing(self) -> str:
        """Rows of ``#`` and ``.``, joined by ``/`` (the ``shape:`` syntax;
        in the grid's own coordinates, cube layers joined by ``|``); a
        coloured cell is its colour's letter (``A``..``Z``)."""
        text = self.drawing_plain()
        if not self.colours:
            return text
        # the drawing lists cells in the grid's order: the '#'s are the sorted cells, one by one
        letters = iter("#" if c == 0 else COLOUR_LETTERS[c - 1] for c in _drawing_order(self))
        return "".join(next(letters) if ch == "#" else ch for ch in text)


def _drawing_order(piece: Piece) -> list[int]:
    """The colours of the piece's cells in the order its drawing writes them."""
    colour = dict(zip(piece.cells, piece.colours))
    cells = get_grid(piece.grid).parse_shape(piece.name, piece.drawing_plain())
    norm = grid_normalize(cells, piece.grid)
    order = sorted(range(len(cells)), key=lambda i: cells[i])  # drawing's cell i is norm[rank of i]
    rank = {i: k for k, i in enumerate(order)}
    return [colour[norm[rank[i]]] for i in range(len(cells))]


def parse_drawing(name: str, drawing: str, grid: str = "square") -> Piece:
    """Build a piece from ``ROW/ROW/...`` with ``#`` for the piece's cells
    (a colour's letter ``A``..``Z`` for a cell of that colour)."""
    def coloured(ch: str) -> bool:
        return ch.isascii() and ch.isupper()

    # the grid reads the cells in the order the drawing writes them: the marks' order
    cells = get_grid(grid).parse_shape(name, "".join("#" if coloured(ch) else ch for ch in drawing))
    if not cells:
        raise TilesatError(f"shape {name} has no '#' cell")
    colours = [0 if ch == "#" else COLOUR_LETTERS.index(ch) + 1 for ch in drawing if ch == "#" or coloured(ch)]
    return Piece(name, tuple(cells), grid, tuple(colours))


# Golomb's letters, drawn in their usual orientation.  Only these small
# pieces are typed in; the sets are enumerated and matched against them.
_LETTER_DRAWINGS = {
    "I1": "#",
    "I2": "##",
    "I3": "###",
    "L3": "#./##",
    "I4": "####",
    "O4": "##/##",
    "T4": "###/.#.",
    "S4": ".##/##.",
    "Z4": "##./.##",
    "L4": "#./#./##",
    "J4": ".#/.#/##",
    "F5": ".##/##./.#.",
    "I5": "#####",
    "L5": "#./#./#./##",
    "N5": ".#/.#/##/#.",
    "P5": "##/##/#.",
    "T5": "###/.#./.#.",
    "U5": "#.#/###",
    "V5": "#../#../###",
    "W5": "#../##./.##",
    "X5": ".#./###/.#.",
    "Y5": ".#/##/.#/.#",
    "Z5": "##./.#./.##",
}
ALIASES = {"monomino": "I1", "domino": "I2"}
#: The hexominoes' published names, in the order of the enumeration (``H6_00`` ... ``H6_34``,
#: still accepted): Polyform Puzzler's (D. Goodger), after Kadon's Sextillions naming; the
#: letter is the one the piece resembles, a middle digit tells pieces of one letter apart.
HEXOMINO_NAMES = (
    "I06", "L06", "Y06", "Y16", "P06", "U06", "C06", "V06", "D06", "T16", "N16", "O06", "A06", "R06", "G06",
    "J06", "N06", "H06", "T06", "S06", "F36", "W06", "Z16", "K06", "Q06", "F26", "W26", "M06", "E06", "F06",
    "W16", "F16", "Z06", "X06", "X16",
)
SET_SIZES = {"trominoes": 3, "tetrominoes": 4, "pentominoes": 5, "hexominoes": 6, "heptominoes": 7}
#: One-sided sets: every free piece of the set, plus the mirror image of each
#: chiral one, named with a prime (``F5'``); their members turn but do not
#: flip (orientation ``one-sided`` unless a piece item says otherwise).
ONE_SIDED_SETS = {f"{name}-one-sided": name for name in SET_SIZES}
#: The orientation a set's members get when the piece item names none.
SET_ORIENT = {name: "one-sided" for name in ONE_SIDED_SETS}
MIRROR = "'"
# Letter order of the named members of each set (Z4 and J4 are mirror images
# of S4 and L4, so they are not separate free tetrominoes).
_SET_LETTERS = {
    3: ["I3", "L3"],
    4: ["I4", "O4", "T4", "S4", "L4"],
    5: ["F5", "I5", "L5", "N5", "P5", "T5", "U5", "V5", "W5", "X5", "Y5", "Z5"],
}


@cache
def free_polyominoes(n: int) -> tuple[Shape, ...]:
    """All free polyominoes with ``n`` cells, as canonical shapes, sorted.

    Grown cell by cell from the ``n-1`` ones (fixed forms), then reduced to
    free classes.  Counts: 1, 1, 2, 5, 12, 35, 108 for n = 1..7.
    """
    if n < 1:
        raise ValueError("n must be positive")
    fixed: set[Shape] = {((0, 0),)}
    for _ in range(n - 1):
        grown: set[Shape] = set()
        for shape in fixed:
            cells = set(shape)
            for r, c in shape:
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nb not in cells:
                        grown.add(normalize(cells | {nb}))
        fixed = grown
    return tuple(sorted({canonical(s) for s in fixed}))


def is_set(name: str) -> bool:
    return name.lower() in SET_SIZES or name.lower() in ONE_SIDED_SETS


def set_names() -> list[str]:
    return list(SET_SIZES) + list(ONE_SIDED_SETS)


def _mirror_cells(piece: Piece) -> Shape:
    if piece.grid == "square":
        return _reflect(piece.cells)
    f = get_grid(piece.grid).mirror_map()
    return tuple(f(c) for c in piece.cells)


def mirror(piece: Piece) -> Piece:
    """The piece's mirror image, named with a prime."""
    return Piece(piece.name + MIRROR, _mirror_cells(piece), piece.grid)


def is_chiral(piece: Piece) -> bool:
    """Does the piece differ from its mirror image (up to rotation)?"""
    g = piece.grid
    return canonical(piece.cells, "one-sided", g) != canonical(grid_normalize(_mirror_cells(piece), g), "one-sided", g)


@cache
def piece_set(name: str) -> tuple[Piece, ...]:
    """The members of a built-in set, in catalogue order (a one-sided set:
    each free piece followed by its mirror image when it is chiral)."""
    if name in ONE_SIDED_SETS:
        return tuple(q for p in piece_set(ONE_SIDED_SETS[name]) for q in ((p, mirror(p)) if is_chiral(p) else (p,)))
    n = SET_SIZES[name]
    shapes = free_polyominoes(n)
    if n in _SET_LETTERS:
        by_canon = {canonical(builtin_piece(nm).cells): nm for nm in _SET_LETTERS[n]}
        if set(by_canon) != set(shapes):  # the letters must cover the enumeration
            raise AssertionError(f"letter shapes do not match the enumerated {name}")
        return tuple(builtin_piece(nm) for nm in _SET_LETTERS[n])
    if n == 6:
        return tuple(Piece(name, s) for name, s in zip(HEXOMINO_NAMES, shapes, strict=True))
    width = len(str(len(shapes) - 1))
    return tuple(Piece(f"H{n}_{i:0{width}d}", s) for i, s in enumerate(shapes))


@cache
def builtin_piece(name: str) -> Piece:
    """A built-in piece by name (case-insensitive; aliases allowed)."""
    key = ALIASES.get(name.lower(), name.upper())
    if key.endswith(MIRROR):
        base = builtin_piece(key[: -len(MIRROR)])
        if not is_chiral(base):
            raise KeyError(name)  # a symmetric piece has no separate mirror image
        return mirror(base)
    if key in _LETTER_DRAWINGS:
        return parse_drawing(key, _LETTER_DRAWINGS[key])
    if key in HEXOMINO_NAMES:
        return piece_set("hexominoes")[HEXOMINO_NAMES.index(key)]
    if re.fullmatch(r"H6_\d\d", key) and int(key[3:]) < len(HEXOMINO_NAMES):  # the enumeration's names
        return piece_set("hexominoes")[int(key[3:])]
    for set_name, n in SET_SIZES.items():
        if n >= 6 and key.startswith(f"H{n}_"):
            for p in piece_set(set_name):
                if p.name == key:
                    return p
    raise KeyError(name)


def builtin_names() -> list[str]:
    return list(_LETTER_DRAWINGS)


def all_builtin_names(grid: str = "square") -> list[str]:
    """Every name a piece item may use on a grid: pieces, aliases, sets (for suggestions)."""
    if grid != "square":
        return grid_builtin_names(grid) + grid_sets(grid)
    return (builtin_names() + list(ALIASES) + list(HEXOMINO_NAMES) + [p.name for p in piece_set("heptominoes")]
            + set_names())


# ---------------------------------------------------------------------------
# The other grids' catalogues: every set enumerated (free_polyforms), named
# by grid and size (``tri6_03``: the hexiamond number 3), plus the classic
# named sets of the cube grid (Soma, the solid pentominoes).

GRID_SETS = {
    "triangle": {"moniamond": 1, "diamond": 2, "triamond": 3, "tetriamonds": 4, "pentiamonds": 5,
                 "hexiamonds": 6, "heptiamonds": 7},
    "hex": {"monohex": 1, "dihex": 2, "trihexes": 3, "tetrahexes": 4, "pentahexes": 5},
    "cube": {"monocube": 1, "dicube": 2, "tricubes": 3, "tetracubes": 4, "pentacubes": 5},
}
_GRID_PREFIX = {"triangle": "tri", "hex": "hex", "cube": "cube"}
#: Sets of the cube grid that are not "all polycubes of size n".
CUBE_NAMED_SETS = ("soma", "solid-pentominoes")
#: Soma pieces as drawn (layers joined by '|'); A and B are the two mirror-image screws.
_SOMA = {"V": "##/#.", "L": "###/#..", "T": "###/.#.", "Z": "##./.##",
         "A": "##/.#|../.#", "B": "##/#.|../#.", "P": "##/#.|#./.."}


def grid_sets(grid: str) -> list[str]:
    """The names of the built-in sets of a grid."""
    if grid == "square":
        return set_names()
    names = list(GRID_SETS[grid])
    if grid == "cube":
        return names + list(CUBE_NAMED_SETS)
    return names + [f"{n}-one-sided" for n in names]


@cache
def free_polyforms(grid: str, n: int, mode: str = "free") -> tuple[Shape, ...]:
    """All pieces of ``n`` cells on a grid, one canonical shape per class
    under orientation rule ``mode`` (cube: ``free`` = rotations only,
    ``mirror`` = with reflections), sorted.  Grown cell by cell like
    :func:`free_polyominoes`."""
    if grid == "square" and mode == "free":
        return free_polyominoes(n)
    if n < 1:
        raise ValueError("n must be positive")
    lattice = get_grid(grid)
    origin = (0,) * lattice.dims
    fixed: set[Shape] = {lattice.normalize([origin])}
    for _ in range(n - 1):
        grown: set[Shape] = set()
        for shape in fixed:
            cells = set(shape)
            for cell in shape:
                for nb in lattice.neighbours(cell):
                    if nb not in cells:
                        grown.add(lattice.normalize(cells | {nb}))
        fixed = grown
    return tuple(sorted({canonical(s, mode, grid) for s in fixed}))


@cache
def grid_piece_set(grid: str, name: str) -> tuple[Piece, ...]:
    """The members of a built-in set of any grid, in catalogue order."""
    if grid == "square":
        return piece_set(name)
    if name.endswith("-one-sided") and grid != "cube":
        return tuple(q for p in grid_piece_set(grid, name[: -len("-one-sided")])
                     for q in ((p, mirror(p)) if is_chiral(p) else (p,)))
    if grid == "cube" and name == "soma":
        return tuple(parse_drawing(k, v, "cube") for k, v in _SOMA.items())
    if grid == "cube" and name == "solid-pentominoes":
        return tuple(Piece(p.name, tuple((0,) + c for c in p.cells), "cube") for p in piece_set("pentominoes"))
    n = GRID_SETS[grid][name]
    shapes = free_polyforms(grid, n)
    width = len(str(len(shapes) - 1))
    return tuple(Piece(f"{_GRID_PREFIX[grid]}{n}_{i:0{width}d}", s, grid) for i, s in enumerate(shapes))


@cache
def _grid_pieces(grid: str) -> dict[str, Piece]:
    out: dict[str, Piece] = {}
    for name in grid_sets(grid):
        for p in grid_piece_set(grid, name):
            out.setdefault(p.name.upper(), p)
    return out


def grid_builtin_piece(name: str, grid: str = "square") -> Piece:
    """A built-in piece of a grid by name (case-insensitive); KeyError if none."""
    if grid == "square":
        return builtin_piece(name)
    return _grid_pieces(grid)[name.upper()]


def grid_builtin_names(grid: str) -> list[str]:
    if grid == "square":
        return builtin_names()
    return [p.name for p in _grid_pieces(grid).values()]
