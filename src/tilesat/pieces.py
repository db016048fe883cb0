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

from dataclasses import dataclass
from functools import cache

from .errors import TilesatError

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


def transforms(shape: Shape, mode: str = "free") -> list[Shape]:
    """Distinct orientations of ``shape`` allowed by ``mode``, in a fixed order."""
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


def canonical(shape: Shape, mode: str = "free") -> Shape:
    """The representative of the shape's class: smallest orientation."""
    return min(transforms(shape, mode))


@dataclass(frozen=True)
class Piece:
    """A named polyomino (or any finite set of cells) as drawn."""

    name: str
    cells: Shape

    def __post_init__(self):
        if not self.cells:
            raise TilesatError(f"piece {self.name} has no cells")
        object.__setattr__(self, "cells", normalize(self.cells))

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
        return transforms(self.cells, mode)

    def is_connected(self) -> bool:
        cells = set(self.cells)
        stack, seen = [self.cells[0]], {self.cells[0]}
        while stack:
            r, c = stack.pop()
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in cells and n not in seen:
                    seen.add(n)
                    stack.append(n)
        return len(seen) == len(cells)

    def drawing(self) -> str:
        """Rows of ``#`` and ``.``, joined by ``/`` (the ``shape:`` syntax)."""
        cells = set(self.cells)
        return "/".join(
            "".join("#" if (r, c) in cells else "." for c in range(self.width))
            for r in range(self.height)
        )


def parse_drawing(name: str, drawing: str) -> Piece:
    """Build a piece from ``ROW/ROW/...`` with ``#`` for the piece's cells."""
    rows = drawing.split("/")
    if any(set(row) - {"#", "."} for row in rows):
        raise TilesatError(f"shape {name}: rows may contain only '#' and '.', got {drawing!r}")
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    if not cells:
        raise TilesatError(f"shape {name} has no '#' cell")
    return Piece(name, tuple(cells))


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
SET_SIZES = {"trominoes": 3, "tetrominoes": 4, "pentominoes": 5, "hexominoes": 6, "heptominoes": 7}
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


@cache
def piece_set(name: str) -> tuple[Piece, ...]:
    """The members of a built-in set, in catalogue order."""
    n = SET_SIZES[name]
    shapes = free_polyominoes(n)
    if n in _SET_LETTERS:
        by_canon = {canonical(builtin_piece(nm).cells): nm for nm in _SET_LETTERS[n]}
        if set(by_canon) != set(shapes):  # the letters must cover the enumeration
            raise AssertionError(f"letter shapes do not match the enumerated {name}")
        return tuple(builtin_piece(nm) for nm in _SET_LETTERS[n])
    width = len(str(len(shapes) - 1))
    return tuple(Piece(f"H{n}_{i:0{width}d}", s) for i, s in enumerate(shapes))


@cache
def builtin_piece(name: str) -> Piece:
    """A built-in piece by name (case-insensitive; aliases allowed)."""
    key = ALIASES.get(name.lower(), name.upper())
    if key in _LETTER_DRAWINGS:
        return parse_drawing(key, _LETTER_DRAWINGS[key])
    for set_name, n in SET_SIZES.items():
        if n >= 6 and key.startswith(f"H{n}_"):
            for p in piece_set(set_name):
                if p.name == key:
                    return p
    raise KeyError(name)


def builtin_names() -> list[str]:
    return list(_LETTER_DRAWINGS)
