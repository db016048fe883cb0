"""The triangle grid (polyiamonds).

Cell ``(r, c)``: row r, column c; it points UP when ``r + c`` is even and
DOWN when odd.  Neighbours: ``(r, c-1)``, ``(r, c+1)`` and ``(r+1, c)`` for
an up triangle, ``(r-1, c)`` for a down one.  Geometry (``cell_polygon``):
equilateral triangles of side 1, row r between y = r*h and (r+1)*h
(h = sqrt(3)/2), cell c spanning x = c/2 .. c/2 + 1.

The 12 symmetries act on the triangle's "abc" coordinates ``a = -r``,
``b = floor((r + c) / 2)``, ``a + b + c' = 2`` (up) or 1 (down): the
permutations of (a, b, c') keep the sum (the three mirror lines and the
turns by 120 degrees), ``x -> 1 - x`` swaps up and down (the half turn);
rotations are the even permutations with or without the half turn.

A translation ``(dr, dc)`` of the grid must keep up triangles up:
``dr + dc`` even.

Layout text: row r of the board is line r, column c is character c (no
spaces between cells); ``^`` (up) or ``v`` (down) an open cell, ``.`` an
open cell of either direction, ``#`` a blocked one, a space no cell.  Up and
down alternate along rows and columns; the first ``^``/``v`` of the drawing
fixes which characters are up (with only ``.``, up is where line + column,
both from 0, is even).
"""

from __future__ import annotations


import math

import numpy as np

from ...errors import TilesatError
from .base import Grid, _dedent, planar_layout_rows, trim_chars

H = math.sqrt(3) / 2


def to_abc(cell):
    r, c = cell
    a, b = -r, (r + c) // 2
    s = 2 if (r + c) % 2 == 0 else 1
    return a, b, s - a - b


def from_abc(abc):
    a, b, c3 = abc
    s = a + b + c3
    r = -a
    return r, 2 * b - r + (0 if s == 2 else 1)


def _map(perm, flip):
    def f(cell):
        x = to_abc(cell)
        y = tuple(x[i] for i in perm)
        if flip:
            y = tuple(1 - v for v in y)
        return from_abc(y)
    return f


_EVEN = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
_ODD = [(0, 2, 1), (2, 1, 0), (1, 0, 2)]
_SYMMETRIES = ([_map(p, f) for f in (False, True) for p in _EVEN]
               + [_map(p, f) for f in (False, True) for p in _ODD])


class TriangleGrid(Grid):
    name = "triangle"
    dims = 2
    rotations = 6
    edge_steps = (((0, 1), None), ((1, 0), lambda rc: (rc[:, 0] + rc[:, 1]) % 2 == 0))

    def neighbours(self, cell):
        r, c = cell
        return [(r, c - 1), (r, c + 1), (r + 1, c) if (r + c) % 2 == 0 else (r - 1, c)]

    def symmetries(self):
        return list(_SYMMETRIES)

    def translation_ok(self, delta):
        return (delta[0] + delta[1]) % 2 == 0

    def normalize(self, cells):
        cells = list(cells)
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        if (r0 + c0) % 2:
            c0 -= 1  # keep up triangles up: the smallest column becomes 1
        return tuple(sorted((r - r0, c - c0) for r, c in cells))

    def parse_layout_chars(self, lines, special=""):
        rows = planar_layout_rows(lines, ".#^v " + special.replace("v", ""))
        # Character p of row r is column p + shift: shift 0, or 1 when the
        # first '^'/'v' says the drawing starts with the other direction.
        shift = None
        for r, (n, text) in enumerate(rows):
            for p, ch in enumerate(text):
                if ch in "^v" and shift is None:
                    shift = 0 if ((r + p) % 2 == 0) == (ch == "^") else 1
        shift = shift or 0
        cells = {}
        for r, (n, text) in enumerate(rows):
            for p, ch in enumerate(text):
                if ch == " ":
                    continue
                c = p + shift
                up = (r + c) % 2 == 0
                if (ch == "^" and not up) or (ch == "v" and up):
                    raise TilesatError(f"line {n}: character {p + 1} should be {'^' if up else 'v'} "
                                       f"(up and down triangles alternate along a row and down a column)")
                cells[(r, c)] = "." if ch in "^v" else ch
        # the box starts at row 0, column 0: a translation by (0, 0) keeps the parity
        return trim_chars({**cells, (0, 0): cells.get((0, 0), "#")}, 2)

    def format_layout(self, open_mask, labels=None, keep_parity=False):
        labels = labels or {}
        out = []
        for r, row in enumerate(open_mask):
            text = "".join(labels.get((r, c), "^" if (r + c) % 2 == 0 else "v") if x else "#"
                           for c, x in enumerate(row))
            out.append(_blank_outside(text))
        return _dedent(out, 2 if keep_parity else 1)

    def cell_polygon(self, cell):
        r, c = cell
        x, top, bottom = c / 2, r * H, (r + 1) * H
        if (r + c) % 2 == 0:
            return [(x + 0.5, top), (x + 1, bottom), (x, bottom)]
        return [(x, top), (x + 1, top), (x + 0.5, bottom)]


def _blank_outside(text: str) -> str:
    """Blocked cells before the first and after the last open cell of a row
    are written as spaces (no cell there); an all-blocked row stays '#'."""
    if not text.strip("#"):
        return text
    body = text.strip("#")
    lead = len(text) - len(text.lstrip("#"))
    return " " * lead + body



