"""The grids: how cells are written, read, joined, turned and drawn.

A grid is one module with one :class:`Grid` subclass; :data:`GRIDS` lists
them (adding a grid is one module and one line here).  Cells are integer
tuples: ``(r, c)`` on the square, triangle and hex grids, ``(z, r, c)`` on the
cube grid.  A board is the grid's bounding box (an array of that many
dimensions); :class:`tilesat.model.board.Board` turns cells into flat indices
(row-major over the box) and back, so nothing else needs to know.

What a grid provides (the protocol the rest of tilesat asks):

- ``name``, ``dims`` (coordinates per cell), ``orientations`` (the piece
  orientation rules it accepts) and ``reflect_orient`` (the rule that
  allows mirror images);
- ``neighbours(cell)``: the edge- (face-) adjacent cells, unbounded;
- ``symmetries()``: the point symmetries of the lattice as functions on
  cells, rotations first (``rotations`` of them), the identity first;
- ``normalize(cells)``: the cells translated to a canonical position by a
  translation of the grid (on the triangle grid it maps up triangles to up
  triangles), sorted;
- ``translation_ok(delta)``: is this vector a translation of the grid;
- ``parse_layout(lines)`` / ``format_layout(open)``: the board's text in
  instance files; ``parse_shape`` / ``format_shape``: a custom shape's
  one-word text (``shape: NAME TEXT``);
- ``cell_polygon(cell)``: the cell's outline in unit coordinates, y down
  (cube: the square of its (r, c) in its layer; ``layer(cell)`` says which).
"""

from __future__ import annotations

from ...errors import TilesatError, did_you_mean
from .base import Cell, CellMap, Grid  # noqa: F401
from .cube import CubeGrid
from .hex import HexGrid
from .square import SquareGrid
from .triangle import TriangleGrid

GRIDS: dict[str, Grid] = {
    "square": SquareGrid(),
    "triangle": TriangleGrid(),
    "hex": HexGrid(),
    "cube": CubeGrid(),
}


def get_grid(name) -> Grid:
    """The grid called ``name`` (a Grid passes through); unknown: a TilesatError."""
    if isinstance(name, Grid):
        return name
    try:
        return GRIDS[name]
    except KeyError:
        raise TilesatError(f"unknown grid {name!r}{did_you_mean(str(name), GRIDS)}; use one of {', '.join(GRIDS)}") from None
