"""The square grid: cells (r, c), four neighbours, the 8 symmetries of the square."""

from __future__ import annotations

import numpy as np

from .base import Grid, planar_layout_rows


def _rot(k):
    def f(cell):
        r, c = cell
        for _ in range(k):
            r, c = c, -r  # 90 degrees clockwise
        return (r, c)
    return f


def _refl_rot(k):
    rot = _rot(k)
    return lambda cell: rot((cell[0], -cell[1]))


_SYMMETRIES = [_rot(k) for k in range(4)] + [_refl_rot(k) for k in range(4)]


class SquareGrid(Grid):
    name = "square"
    dims = 2
    rotations = 4
    edge_steps = (((0, 1), None), ((1, 0), None))

    def neighbours(self, cell):
        r, c = cell
        return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]

    def symmetries(self):
        return list(_SYMMETRIES)

    def parse_layout_chars(self, lines, special=""):
        rows = planar_layout_rows(lines, ".#" + special)
        width = len(rows[0][1])
        for n, t in rows:
            if len(t) != width:
                from ...errors import TilesatError
                raise TilesatError(f"line {n}: grid row has {len(t)} cells but the first row has {width}")
        return np.array([list(t) for _, t in rows], dtype="<U1")

    def format_layout(self, open_mask, labels=None, keep_parity=False):
        labels = labels or {}
        return ["".join(labels.get((r, c), ".") if x else "#" for c, x in enumerate(row))
                for r, row in enumerate(open_mask)]

    def cell_polygon(self, cell):
        r, c = cell
        return [(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)]
