"""Pictures on every grid, drawn from the cells' outlines (``Grid.cell_polygon``).

:mod:`tilesat.showing.pictures` draws square boards itself and hands the other grids
here.  Nothing below knows a grid: a board becomes a :class:`Scene` (each
drawn cell's polygon in units, y down; cube boards one panel per layer,
side by side, labelled), and a tiling colours it:

- a tile is one path made of its cells' polygons, in a colour its
  neighbours do not have (``render.colour_tiles``);
- a thick border runs along every polygon edge whose two sides are not the
  same tile (the outside, blocked cells and cells a packing leaves empty
  count as no tile, and no border runs between two of those);
- thin lines along every cell edge, blocked cells dark, ``marked`` cells a dot;
- cells that may stay empty and coloured cells their letter (cube boards on
  their layer panels), coloured cells no tile covers tinted;
- ``None`` in place of a tiling: the board unsolved (open cells white, its outline thick).

On the triangle and hex grids a blocked cell before a row's first open cell
or after its last is no cell at all (the text layout writes a space there),
so it is not drawn.  Cube pictures end with an isometric view of the filled
cubes (drawn back to front, top faces lightest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..model.instance import Instance
from .render import cell_marks, cell_marks_svg, colour_tiles, tinted_cells
from .style import (BLOCKED, GRID_LINE, NEGATIVE, PALETTE, POSITIVE, PUZZLE_LINE, mark_ink, mark_place,
                    per_row, title_size)
from ..model.tiling import Tiling

if TYPE_CHECKING:  # drawsvg is imported where an SVG is drawn: a process that draws none skips its 20-40 ms
    import drawsvg as draw

#: Units between a cube board's layer panels, and above them for the labels.
PANEL_GAP = 1.0
LABEL_HEIGHT = 1.0
COS30 = math.sqrt(3) / 2


@dataclass
class Scene:
    """A board laid out for drawing, in units (one cell about one unit wide)."""

    polygons: dict  # cell -> [(x, y), ...], panel offset included
    width: float
    height: float
    labels: list = field(default_factory=list)  # (x, y, text): the cube layers' names
    iso: tuple | None = None  # cube boards: (x0, y0) of the isometric view's origin
    _edges: dict | None = field(default=None, repr=False)

    def edges(self) -> dict:
        """Each polygon edge (its rounded end points, sorted) -> the cells sharing it."""
        if self._edges is None:
            out: dict = {}
            for cell, poly in self.polygons.items():
                pts = [(round(x, 6), round(y, 6)) for x, y in poly]
                for a, b in zip(pts, pts[1:] + pts[:1]):
                    out.setdefault((a, b) if a < b else (b, a), []).append(cell)
            self._edges = out
        return self._edges


def drawn_cells(board) -> list[tuple]:
    """The cells a picture shows: on the planar grids other than the square,
    each row from its first open cell to its last (a row with none: all of
    it); on the cube grid every cell of the box."""
    if board.open.ndim == 3:
        return [tuple(int(x) for x in cell) for cell in np.ndindex(board.open.shape)]
    out = []
    for r, row in enumerate(board.open):
        open_cols = np.flatnonzero(row)
        lo, hi = (int(open_cols[0]), int(open_cols[-1])) if open_cols.size else (0, len(row) - 1)
        out += [(r, c) for c in range(lo, hi + 1)]
    return out


def board_scene(board) -> Scene:
    lattice = board.lattice
    cells = drawn_cells(board)
    layered = board.open.ndim == 3
    polygons = {}
    for cell in cells:
        poly = lattice.cell_polygon(cell)
        if layered:
            dx, dy = lattice.layer(cell) * (board.cols + PANEL_GAP), LABEL_HEIGHT
            poly = [(x + dx, y + dy) for x, y in poly]
        polygons[cell] = [(float(x), float(y)) for x, y in poly]
    xs = [x for poly in polygons.values() for x, _ in poly]
    ys = [y for poly in polygons.values() for _, y in poly]
    x0, y0 = min(xs), (0.0 if layered else min(ys))
    polygons = {cell: [(x - x0, y - y0) for x, y in poly] for cell, poly in polygons.items()}
    width, height = max(xs) - x0, max(ys) - y0
    scene = Scene(polygons, width, height)
    if layered:
        scene.labels = [((board.cols) / 2 + z * (board.cols + PANEL_GAP) - x0, LABEL_HEIGHT * 0.6, f"z = {z}")
                        for z in range(board.layers)]
        # the isometric view: x = (c - r) cos 30, y = (c + r) / 2 - height
        left = board.rows * COS30
        iso_x0 = width + 2 * PANEL_GAP + left
        iso_y0 = LABEL_HEIGHT + board.layers
        scene.iso = (iso_x0, iso_y0)
        scene.labels.append((iso_x0 + (board.cols - board.rows) * COS30 / 2, LABEL_HEIGHT * 0.6, "3D"))
        scene.width = iso_x0 + board.cols * COS30
        scene.height = max(height, iso_y0 + (board.rows + board.cols) / 2)
    return scene


def _iso_point(scene: Scene, x: float, y: float, h: float) -> tuple[float, float]:
    x0, y0 = scene.iso
    return (x0 + (x - y) * COS30, y0 + (x + y) / 2 - h)


def iso_faces(scene: Scene, board, owner: dict) -> list[tuple[list, int, float]]:
    """The isometric view's visible faces, back to front: (polygon, tile
    index, shade).  Layer z = 0 is the top (as in the text layout)."""
    faces = []
    filled = {cell: i for cell, i in owner.items()}
    top = board.layers - 1
    for z, r, c in sorted(filled, key=lambda cell: (top - cell[0]) + cell[1] + cell[2]):
        h, i = top - z, filled[(z, r, c)]
        P = lambda dx, dy, dh: _iso_point(scene, c + dx, r + dy, h + dh)  # noqa: E731
        if (z - 1, r, c) not in filled:  # the top face
            faces.append(([P(0, 0, 1), P(1, 0, 1), P(1, 1, 1), P(0, 1, 1)], i, 1.0))
        if (z, r + 1, c) not in filled:  # the front face
            faces.append(([P(0, 1, 0), P(1, 1, 0), P(1, 1, 1), P(0, 1, 1)], i, 0.8))
        if (z, r, c + 1) not in filled:  # the right face
            faces.append(([P(1, 0, 0), P(1, 1, 0), P(1, 1, 1), P(1, 0, 1)], i, 0.62))
    return faces


def border_edges(scene: Scene, owner: dict) -> list[tuple]:
    """Polygon edges between two different tiles (or a tile and no tile)."""
    out = []
    for key, cells in scene.edges().items():
        sides = [owner.get(cell, -1) for cell in cells] + [-1] * (2 - len(cells))
        if sides[0] != sides[1]:
            out.append(key)
    return out


def _centroid(poly) -> tuple[float, float]:
    return (sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly))


def shade_colour(hex_colour: str, factor: float) -> str:
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple(int(round(v * factor)) for v in rgb)


def _arrange(n: int, scene: Scene, cell: float, gap_units: float = 2.0, head_units: float = 0.0
             ) -> tuple[int, int, float, float]:
    across = per_row(n, max(1, round(scene.height)), max(1, round(scene.width)))
    down_n = math.ceil(n / across)
    return across, down_n, (scene.width + gap_units) * cell, (scene.height + head_units + gap_units) * cell


def panel_owner(board, tiling: Tiling | None) -> dict:
    """Cell -> tile index; the unsolved board (None): 0 on every open cell, so
    that its borders are the board's outline."""
    if tiling is None:
        return {cell: 0 for cell in board.cells(board.open_cells)}
    return tiling.owner()


def grid_svg(instance: Instance, tilings: list[Tiling | None], marked: set | None = None, cell: float = 24,
             titles: list[str] | None = None) -> draw.Drawing:
    import drawsvg as draw

    board = instance.board
    scene = board_scene(board)
    head = 1.6 * title_size(cell) if titles else 0.0
    across, down_n, step_x, step_y = _arrange(len(tilings), scene, cell, head_units=head / cell)
    gap = 2 * cell
    d = draw.Drawing(across * step_x - gap + 8, down_n * step_y - gap + 8)

    def path_of(polys, **kw):  # the path's text built at once: drawsvg's M/L calls cost 40 us each
        return draw.Path(d="".join("M" + "L".join(f"{x * cell:g},{y * cell:g}" for x, y in poly) + "Z"
                                   for poly in polys), **kw)

    def segments(edges, **kw):
        return draw.Path(d="".join(f"M{a[0] * cell:g},{a[1] * cell:g}L{b[0] * cell:g},{b[1] * cell:g}"
                                   for a, b in edges), **kw)

    for k, tiling in enumerate(tilings):
        x0, y0 = 4 + (k % across) * step_x, 4 + (k // across) * step_y
        if titles:
            d.append(draw.Text(titles[k], title_size(cell), x0, y0 + head * 0.7, font_family="sans-serif",
                               **{"class": "title"}))
        puzzle = tiling is None
        g = draw.Group(transform=f"translate({x0:g},{y0 + head:g})", **{"class": "puzzle" if puzzle else "tiling"})
        owner = panel_owner(board, tiling)
        if puzzle:
            g.append(path_of([scene.polygons[c] for c in owner if c in scene.polygons], fill="#ffffff", stroke="none",
                             **{"class": "open"}))
            colours, fill_of = [], lambda i: "#ffffff"
        for c, fill in tinted_cells(board, () if puzzle else owner).items():
            if c in scene.polygons:
                g.append(path_of([scene.polygons[c]], fill=fill, stroke="none", **{"class": "tint"}))
        if not puzzle:
            colours = colour_tiles(instance, tiling, len(PALETTE))
            fill_of = lambda i: PALETTE[colours[i]]  # noqa: E731
            for i, tile in enumerate(tiling.tiles):
                g.append(path_of([scene.polygons[c] for c in tile.cells], fill=fill_of(i), stroke="none",
                                 **{"class": "tile", "data-piece": tile.piece}))
        blocked = [scene.polygons[c] for c in scene.polygons if not board.open[c]]
        g.append(path_of(blocked, fill=BLOCKED, stroke="none", **{"class": "blocked"}))
        g.append(segments(scene.edges(), stroke=PUZZLE_LINE if puzzle else GRID_LINE, stroke_width=max(cell / 24, 0.3),
                          fill="none", **{"class": "grid"}))
        g.append(segments(border_edges(scene, owner), stroke="#000", stroke_width=max(cell / 8, 1),
                          stroke_linecap="round", fill="none", **{"class": "borders"}))
        for x, y, text in scene.labels:
            g.append(draw.Text(text, cell * 0.6, x * cell, y * cell, text_anchor="middle",
                               dominant_baseline="central", font_family="sans-serif", **{"class": "label"}))
        under = (lambda c: None) if puzzle else (lambda c: fill_of(owner[c]) if c in owner else None)
        if (marks := cell_marks_svg(board, lambda c: _centroid(scene.polygons[c]), cell, under)) is not None:
            g.append(marks)  # optional and coloured cells
        if scene.iso is not None:
            iso = draw.Group(**{"class": "isometric"})
            for poly, i, shade in iso_faces(scene, board, owner):
                iso.append(path_of([poly], fill=shade_colour(fill_of(i), shade), stroke="#000",
                                   stroke_width=max(cell / 24, 0.3), stroke_linejoin="round",
                                   **{"class": "face", **({} if puzzle else {"data-piece": tiling.tiles[i].piece})}))
            g.append(iso)
        if marked and not puzzle:
            dots = draw.Path(fill="#000", **{"class": "marked"})
            rad = cell / 6
            for c in sorted(marked):
                if c in scene.polygons:
                    x, y = (v * cell for v in _centroid(scene.polygons[c]))
                    dots.M(x - rad, y).a(rad, rad, 0, 1, 0, 2 * rad, 0).a(rad, rad, 0, 1, 0, -2 * rad, 0).Z()
            g.append(dots)
        d.append(g)
    return d


def draw_panel(ax, instance: Instance, scene: Scene, tiling: Tiling | None, offset=(0.0, 0.0), cell: float = 24,
               marked: set | None = None) -> None:
    """One tiling (None: the board unsolved) on matplotlib axes whose units are
    the scene's; ``cell``: points a unit, for the lines' widths (at 72 dpi, pixels)."""
    from matplotlib.collections import LineCollection, PolyCollection

    board = instance.board
    offset = np.asarray(offset, dtype=float)
    thin, thick = max(cell / 24, 0.3), max(cell / 8, 1)
    cells = list(scene.polygons)
    owner = panel_owner(board, tiling)
    puzzle = tiling is None
    colours = [] if puzzle else colour_tiles(instance, tiling, len(PALETTE))
    fill_of = (lambda i: "#ffffff") if puzzle else (lambda i: PALETTE[colours[i]])
    # every drawn cell, filled (blocked dark, a tile's colour, empty white) with its thin outline
    tints = tinted_cells(board, owner if tiling is not None else ())
    fills = [BLOCKED if not board.open[c] else (fill_of(owner[c]) if c in owner and c not in tints
                                                 else tints.get(c, "#ffffff")) for c in cells]
    ax.add_collection(PolyCollection([np.array(scene.polygons[c]) + offset for c in cells], facecolors=fills,
                                     edgecolors=PUZZLE_LINE if puzzle else GRID_LINE, linewidths=thin))
    borders = np.array(border_edges(scene, owner), dtype=float).reshape(-1, 2, 2) + offset
    ax.add_collection(LineCollection(borders, colors="#000", linewidths=thick, capstyle="round"))
    for x, y, text in scene.labels:
        ax.text(x + offset[0], y + offset[1], text, ha="center", va="center", fontsize=cell * 0.6)
    size, dx, dy = mark_place(board.grid)
    fill_at = dict(zip(cells, fills))
    for c, ch in cell_marks(board).items():  # optional and coloured cells: their letters, as the SVG writes them
        x, y = _centroid(scene.polygons[c])
        ax.text(x + dx + offset[0], y + dy + offset[1], ch, ha="center", va="baseline", fontsize=cell * size,
                color=mark_ink(fill_at[c]), family="sans-serif")
    if scene.iso is not None:
        faces = iso_faces(scene, board, owner)
        ax.add_collection(PolyCollection([np.array(p) + offset for p, _, _ in faces],
                                         facecolors=[shade_colour(fill_of(i), s) for _, i, s in faces],
                                         edgecolors="#000", linewidths=thin))
    if marked and not puzzle:
        pts = np.array([_centroid(scene.polygons[c]) for c in sorted(marked) if c in scene.polygons]).reshape(-1, 2)
        if len(pts):
            pts = pts + offset
            ax.scatter(pts[:, 0], pts[:, 1], s=(cell / 3) ** 2, c="#000")


def grid_raster(instance: Instance, tilings: list[Tiling | None], marked: set | None = None, cell: float | None = None,
                titles: list[str] | None = None) -> np.ndarray:
    """The same picture as :func:`grid_svg` as an RGB image (uint8), drawn by matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    board = instance.board
    scene = board_scene(board)
    if cell is None:
        cell = float(np.clip(2400 / max(scene.width, scene.height) / max(1, len(tilings)) ** 0.5, 4, 24))
    head = 1.6 * title_size(cell) / cell if titles else 0.0
    across, down_n, step_x, step_y = _arrange(len(tilings), scene, 1.0, head_units=head)
    width, height = across * step_x - 2, down_n * step_y - 2
    dpi = 72  # a point is a pixel
    fig = Figure(figsize=((width + 0.4) * cell / dpi, (height + 0.4) * cell / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    margin = 0.2  # units around the picture, so the outer borders are not cut in half
    ax.set_xlim(-margin, width + margin)
    ax.set_ylim(height + margin, -margin)  # y down, as in the SVG
    ax.set_axis_off()
    for k, tiling in enumerate(tilings):
        x0, y0 = (k % across) * step_x, (k // across) * step_y
        if titles:
            ax.text(x0, y0 + head * 0.7, titles[k], ha="left", va="baseline", fontsize=title_size(cell))
        draw_panel(ax, instance, scene, tiling, (x0, y0 + head), cell, marked)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def weights_svg(instance: Instance, weights: dict, cell: float = 24) -> draw.Drawing:
    """A certificate's cell weights on any grid: each drawn cell filled by
    its weight's colour (red positive, blue negative), blocked cells dark."""
    import drawsvg as draw

    board = instance.board
    scene = board_scene(board)
    scene.iso = None
    d = draw.Drawing(scene.width * cell + 8, scene.height * cell + 8)
    g = draw.Group(transform="translate(4,4)", **{"class": "certificate"})
    big = max([abs(w) for w in weights.values()] + [1])
    for c, poly in scene.polygons.items():
        pts = [v * cell for xy in poly for v in xy]
        if not board.open[c]:
            g.append(draw.Lines(*pts, close=True, fill=BLOCKED))
            continue
        w = weights.get(c, 0)
        t = abs(w) / big
        rgb = tuple(int(round(255 * (1 - t) + v * t)) for v in (POSITIVE if w > 0 else NEGATIVE))
        g.append(draw.Lines(*pts, close=True, fill="#%02x%02x%02x" % rgb, stroke="#00000040",
                            stroke_width=max(cell / 24, 0.3), **{"data-weight": str(w)}))
    for x, y, text in scene.labels[: board.layers if board.open.ndim == 3 else 0]:
        g.append(draw.Text(text, cell * 0.6, x * cell, y * cell, text_anchor="middle",
                           dominant_baseline="central", font_family="sans-serif"))
    d.append(g)
    return d
