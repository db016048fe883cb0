"""The hex grid (polyhexes), in axial coordinates.

Cell ``(r, c)``: row r, and rows are drawn shifted half a cell right per
row down (cell centre x = c + r/2).  Neighbours: ``(r, c-1)``, ``(r, c+1)``,
``(r-1, c)``, ``(r-1, c+1)``, ``(r+1, c)``, ``(r+1, c-1)``.  A rectangle of
axial rows and columns is a rhombus (parallelogram) of hexagons.
Geometry (``cell_polygon``): pointy-top hexagons of unit width (side
1/sqrt(3)), centre of (r, c) at x = c + r/2 + 1/2, y = r*sqrt(3)/2 + 1/sqrt(3).

The 12 symmetries act on cube coordinates (x, y, z) = (c, -r-c, r): the
permutations, with or without negation; rotations are the even ones.

Layout text: two characters per cell, the row's text shifted by one
character per row down, so the picture has the board's shape: the cell at
text column p of row r is c = (p - r - s) / 2 (s: the parity of the first
cell; characters between cells are spaces).  ``.`` open, ``#`` blocked, a
space no cell.  A 3x3 rhombus::

    . . .
     . . .
      . . .
"""

from __future__ import annotations

import itertools
import math

from ...errors import TilesatError
from .base import Grid, _dedent, planar_layout_rows, trim_chars

_EVEN = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
_ODD = [(0, 2, 1), (2, 1, 0), (1, 0, 2)]


def _map(perm, sign):
    def f(cell):
        r, c = cell
        x = (c, -r - c, r)
        y = tuple(sign * x[i] for i in perm)
        return (y[2], y[0])
    return f


_SYMMETRIES = ([_map(p, s) for s in (1, -1) for p in _EVEN] + [_map(p, s) for s in (1, -1) for p in _ODD])


class HexGrid(Grid):
    name = "hex"
    dims = 2
    rotations = 6
    edge_steps = (((0, 1), None), ((1, 0), None), ((1, -1), None))

    def neighbours(self, cell):
        r, c = cell
        return [(r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c), (r + 1, c - 1)]

    def symmetries(self):
        return list(_SYMMETRIES)

    def parse_layout_chars(self, lines, special=""):
        rows = planar_layout_rows(lines, ".# " + special)
        cells, parity = {}, None
        for r, (n, text) in enumerate(rows):
            for p, ch in enumerate(text):
                if ch == " ":
                    continue
                if parity is None:
                    parity = (p - r) % 2
                if (p - r - parity) % 2:
                    raise TilesatError(f"line {n}: the cell at column {p + 1} is between two hexagons; "
                                       "write two characters per cell, each row shifted one character right")
                cells[(r, (p - r - parity) // 2)] = ch
        return trim_chars(cells, 2)

    def format_layout(self, open_mask, labels=None, keep_parity=False):
        labels = labels or {}
        rows, cols = open_mask.shape
        lines = []
        for r in range(rows):
            present = [c for c in range(cols) if open_mask[r, c]]
            if not present:
                lines.append(" " * r + " ".join("#" * cols))
                continue
            lo, hi = present[0], present[-1]
            chars = [labels.get((r, c), ".") if open_mask[r, c] else "#" for c in range(lo, hi + 1)]
            lines.append(" " * (r + 2 * lo) + " ".join(chars))
        return _dedent(lines)

    def cell_polygon(self, cell):
        r, c = cell
        cx, cy = c + r / 2 + 0.5, r * math.sqrt(3) / 2 + 1 / math.sqrt(3)
        s = 1 / math.sqrt(3)
        return [(cx + s * math.cos(math.radians(a)), cy + s * math.sin(math.radians(a)))
                for a in (-90, -30, 30, 90, 150, 210)]


_ = itertools
