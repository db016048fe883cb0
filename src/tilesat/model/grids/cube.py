"""The cube grid (polycubes): cells (z, r, c), layer z, six face neighbours.

Symmetries: the 48 signed permutations of the axes, the 24 rotations
(determinant +1) first.  Physical pieces turn in space, so orientation
``free`` (and ``one-sided``, the same thing here) means the 24 rotations;
``mirror`` adds the reflections (a piece and its mirror image are one
piece).

Layout text: each layer is a square grid of ``.`` and ``#`` (rows of equal
length); layers, top first (z = 0), are separated by a blank line or a line
of dashes ``--``.  Custom shapes: layers joined by ``|``, e.g. ``##/#.|#./..``.
Drawing: ``cell_polygon`` is the unit square of (r, c) in layer ``layer(cell)``.
"""

from __future__ import annotations

import numpy as np

from ...errors import TilesatError
from .base import Grid, _cells_rows, _rows_cells, signed_permutations


def _map(perm, signs):
    return lambda cell: tuple(signs[i] * cell[perm[i]] for i in range(3))


_ALL = signed_permutations(3)
_SYMMETRIES = ([_map(p, s) for p, s, d in _ALL if d == 1 and p == (0, 1, 2) and s == (1, 1, 1)]
               + [_map(p, s) for p, s, d in _ALL if d == 1 and not (p == (0, 1, 2) and s == (1, 1, 1))]
               + [_map(p, s) for p, s, d in _ALL if d == -1])


class CubeGrid(Grid):
    name = "cube"
    dims = 3
    rotations = 24
    orientations = ("free", "one-sided", "mirror", "fixed")
    reflect_orient = "mirror"
    edge_steps = (((0, 0, 1), None), ((0, 1, 0), None), ((1, 0, 0), None))

    def neighbours(self, cell):
        z, r, c = cell
        return [(z - 1, r, c), (z + 1, r, c), (z, r - 1, c), (z, r + 1, c), (z, r, c - 1), (z, r, c + 1)]

    def symmetries(self):
        return list(_SYMMETRIES)

    def mirror_map(self):
        return lambda cell: (cell[0], cell[1], -cell[2])

    def parse_layout_chars(self, lines, special=""):
        layers, current = [], []
        for n, text in lines + [(None, "")]:
            t = text.strip()
            if not t or set(t) == {"-"}:
                if current:
                    layers.append(current)
                    current = []
                continue
            if set(t) - {".", "#", *special}:
                raise TilesatError(f"line {n}: unexpected {sorted(set(t) - {'.', '#', *special})[0]!r} in a layer; "
                                   "use '.' and '#', layers separated by a blank line or '--'")
            current.append((n, t))
        if not layers:
            raise TilesatError("no layer: add rows of '.' and '#'")
        first = layers[0]
        for layer in layers:
            if len(layer) != len(first):
                raise TilesatError(f"line {layer[0][0]}: this layer has {len(layer)} rows but the first has {len(first)}")
            for n, t in layer:
                if len(t) != len(first[0][1]):
                    raise TilesatError(f"line {n}: row has {len(t)} cells but the first row has {len(first[0][1])}")
        return np.array([[list(t) for _, t in layer] for layer in layers], dtype="<U1")

    def format_layout(self, open_mask, labels=None, keep_parity=False):
        labels = labels or {}
        out = []
        for z, layer in enumerate(open_mask):
            if z:
                out.append("--")
            out += ["".join(labels.get((z, r, c), ".") if x else "#" for c, x in enumerate(row))
                    for r, row in enumerate(layer)]
        return out

    def parse_shape(self, name, text):
        return [cell for z, part in enumerate(text.split("|")) for cell in _rows_cells(name, part.split("/"), (z,))]

    def format_shape(self, cells):
        cells = list(cells)
        depth = 1 + max(z for z, _, _ in cells)
        h = 1 + max(r for _, r, _ in cells)
        w = 1 + max(c for _, _, c in cells)
        layers = []
        for z in range(depth):
            s = {(r, c) for zz, r, c in cells if zz == z}
            layers.append("/".join("".join("#" if (r, c) in s else "." for c in range(w)) for r in range(h)))
        return "|".join(layers)

    def cell_polygon(self, cell):
        _, r, c = cell
        return [(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)]

    def layer(self, cell):
        return cell[0]


_ = _cells_rows
