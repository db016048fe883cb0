"""Pictures of tilings: SVG (drawsvg) and PNG (numpy raster, saved by matplotlib).

Each tile is filled with a colour chosen so that neighbouring tiles differ
(greedy colouring of the tile adjacency graph, ``render.colour_tiles``),
thick lines run along tile borders, thin grid lines inside tiles, blocked
cells are dark, and wrapped edges are drawn dashed (SVG) or coloured (PNG).
Several tilings are drawn side by side, each under its title when titles
are given; ``marked`` cells get a dot.  Open cells a packing leaves empty
stay white.  ``None`` in place of a tiling draws the board unsolved (the
puzzle a person solves on paper): open cells white with darker grid lines,
the board's outline thick.  A cell that may stay empty carries a small ``+``,
a coloured cell its colour's letter (lowercase when it may stay empty too),
in SVG and PNG alike (``style.mark_place``), and a coloured cell no tile
covers is tinted with its colour (``style.tint``).

Square boards have their own fast drawing (a 512x512 board's PNG is a few
numpy operations).  Every other grid is drawn from its cells' outlines
(``Grid.cell_polygon``), grid-free: a tile is one path of its cells'
polygons, and a thick border runs along every polygon edge whose two sides
belong to different tiles (the outside and blocked cells count as no tile).
On the triangle and hex grids a blocked cell before a row's first open cell
or after its last is no cell at all (as in the text layout) and is not
drawn.  Cube boards are drawn one panel per layer (z), side by side and
labelled, with an isometric view of the filled cubes after them; their PNG
is drawn by matplotlib.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..errors import TilesatError
from ..model.instance import Instance
from .render import cell_marks, cell_marks_svg, colour_tiles, tinted_cells
from .style import (BLOCKED, GRID_LINE, MARK_INK, NEGATIVE, PALETTE, POSITIVE, PUZZLE_LINE, WRAP,
                    mark_ink, mark_place, per_row, title_size)
from ..model.tiling import Tiling

if TYPE_CHECKING:  # drawsvg is imported where an SVG is drawn: a process that draws none skips its 20-40 ms
    import drawsvg as draw



def _owner(instance: Instance, tiling: Tiling) -> np.ndarray:
    """(rows, cols) array: index of the tile covering each cell, -1 if none."""
    board = instance.board
    owner = np.full(board.ncells, -1, dtype=np.int64)
    for i, tile in enumerate(tiling.tiles):
        for r, c in tile.cells:
            owner[r * board.cols + c] = i
    return owner.reshape(board.rows, board.cols)


def _border_masks(instance: Instance, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """right[r, c]: a tile border between (r, c) and (r, c+1); down[r, c]: between
    (r, c) and (r+1, c).  The last column/row compare across the wrap, or with
    the outside of the board."""
    board = instance.board
    right = np.ones_like(owner, dtype=bool)
    down = np.ones_like(owner, dtype=bool)
    right[:, :-1] = owner[:, :-1] != owner[:, 1:]
    down[:-1, :] = owner[:-1, :] != owner[1:, :]
    if board.wraps_rows:
        right[:, -1] = owner[:, -1] != owner[:, 0]
    if board.wraps_columns:
        down[-1, :] = owner[-1, :] != owner[0, :]
    both_blocked_r = np.zeros_like(right)
    both_blocked_r[:, :-1] = (owner[:, :-1] < 0) & (owner[:, 1:] < 0)
    both_blocked_d = np.zeros_like(down)
    both_blocked_d[:-1, :] = (owner[:-1, :] < 0) & (owner[1:, :] < 0)
    return right & ~both_blocked_r, down & ~both_blocked_d


def _panel_owner(instance: Instance, tiling: Tiling | None) -> np.ndarray:
    """The owner array of a picture: the tiles' indices, or for the unsolved board
    (None) 0 on every open cell, so that its borders are the board's outline."""
    if tiling is None:
        return np.where(instance.board.open, 0, -1)
    return _owner(instance, tiling)


def tiling_svg(instance: Instance, tilings: list[Tiling | None], marked: set | None = None, cell: float = 24,
               titles: list[str] | None = None) -> draw.Drawing:
    """The tilings side by side (None: the board unsolved), each under its title if ``titles`` are given."""
    import drawsvg as draw

    board = instance.board
    if not board.is_square:
        return _grid_svg(instance, tilings, marked, cell, titles)
    R, C = board.rows, board.cols
    gap = 2 * cell
    head = 1.6 * title_size(cell) if titles else 0.0
    across = per_row(len(tilings), R, C)
    down_n = math.ceil(len(tilings) / across)
    d = draw.Drawing(across * C * cell + (across - 1) * gap + 8, down_n * (R * cell + head) + (down_n - 1) * gap + 8)
    for k, tiling in enumerate(tilings):
        x0, y0 = 4 + (k % across) * (C * cell + gap), 4 + (k // across) * (R * cell + head + gap)
        if titles:
            d.append(draw.Text(titles[k], title_size(cell), x0, y0 + head * 0.7, font_family="sans-serif",
                               **{"class": "title"}))
        puzzle = tiling is None
        g = draw.Group(transform=f"translate({x0},{y0 + head:g})", **{"class": "puzzle" if puzzle else "tiling"})
        owner = _panel_owner(instance, tiling)
        if puzzle:
            g.append(draw.Rectangle(0, 0, C * cell, R * cell, fill="#ffffff", **{"class": "open"}))
        for (r, c), fill in tinted_cells(board, () if puzzle else tiling.owner()).items():
            g.append(draw.Rectangle(c * cell, r * cell, cell, cell, fill=fill, **{"class": "tint"}))
        if not puzzle:
            colours = colour_tiles(instance, tiling, len(PALETTE))
            for i, tile in enumerate(tiling.tiles):
                p = draw.Path(fill=PALETTE[colours[i]], stroke="none", **{"class": "tile", "data-piece": tile.piece})
                for r, c in tile.cells:
                    p.M(c * cell, r * cell).h(cell).v(cell).h(-cell).Z()
                g.append(p)
        blocked = draw.Path(fill=BLOCKED, stroke="none", **{"class": "blocked"})
        for r, c in zip(*np.nonzero(~board.open)):
            blocked.M(c * cell, r * cell).h(cell).v(cell).h(-cell).Z()
        g.append(blocked)
        grid = draw.Path(stroke=PUZZLE_LINE if puzzle else GRID_LINE, stroke_width=max(cell / 24, 0.3), fill="none",
                         **{"class": "grid"})
        for r in range(1, R):
            grid.M(0, r * cell).h(C * cell)
        for c in range(1, C):
            grid.M(c * cell, 0).v(R * cell)
        g.append(grid)
        right, down = _border_masks(instance, owner)
        borders = draw.Path(stroke="#000", stroke_width=max(cell / 8, 1), stroke_linecap="square", fill="none",
                            **{"class": "borders"})
        for r, c in zip(*np.nonzero(right)):
            borders.M((c + 1) * cell, r * cell).v(cell)
        for r, c in zip(*np.nonzero(down)):
            borders.M(c * cell, (r + 1) * cell).h(cell)
        if not board.wraps_rows:
            for r, c in zip(*np.nonzero(owner[:, :1] >= 0)):
                borders.M(0, r * cell).v(cell)
        if not board.wraps_columns:
            for r, c in zip(*np.nonzero(owner[:1, :] >= 0)):
                borders.M(c * cell, 0).h(cell)
        g.append(borders)
        wrap = draw.Path(stroke=WRAP, stroke_width=max(cell / 6, 1), stroke_dasharray=f"{cell / 3},{cell / 3}",
                         fill="none", **{"class": "wrap"})
        if board.wraps_rows:
            wrap.M(0, 0).v(R * cell).M(C * cell, 0).v(R * cell)
        if board.wraps_columns:
            wrap.M(0, 0).h(C * cell).M(0, R * cell).h(C * cell)
        g.append(wrap)
        tile_fill = {} if puzzle else {rc: PALETTE[colours[i]] for rc, i in tiling.owner().items()}
        if (marks := cell_marks_svg(board, lambda rc: (rc[1] + 0.5, rc[0] + 0.5), cell, tile_fill.get)) is not None:
            g.append(marks)  # optional and coloured cells
        if marked and not puzzle:
            dots = draw.Path(fill="#000", **{"class": "marked"})
            rad = cell / 6
            for r, c in sorted(marked):
                x, y = (c + 0.5) * cell, (r + 0.5) * cell
                dots.M(x - rad, y).a(rad, rad, 0, 1, 0, 2 * rad, 0).a(rad, rad, 0, 1, 0, -2 * rad, 0).Z()
            g.append(dots)
        d.append(g)
    return d


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))


def tiling_raster(instance: Instance, tilings: list[Tiling | None], marked: set | None = None, cell: int | None = None,
                  titles: list[str] | None = None) -> np.ndarray:
    """An RGB image (uint8) of the tilings side by side (None: the board unsolved),
    each under its title if ``titles`` are given, built with numpy only:
    a 512x512 board is a few array operations, not a Python loop per cell
    (other grids than the square: drawn by matplotlib from the cells' polygons)."""
    board = instance.board
    if not board.is_square:
        return _grid_raster(instance, tilings, marked, cell, titles)
    R, C = board.rows, board.cols
    if cell is None:
        cell = default_cell(instance, len(tilings))
    palette = np.array([_rgb(c) for c in PALETTE] + [_rgb(BLOCKED)], dtype=np.uint8)
    images = []
    for tiling in tilings:
        puzzle = tiling is None
        owner = _panel_owner(instance, tiling)
        if puzzle:
            img = np.where(board.open[..., None], np.uint8(255), palette[-1]).astype(np.uint8)
        else:
            colours = np.array(colour_tiles(instance, tiling, len(PALETTE)) + [len(PALETTE)], dtype=np.int64)
            img = palette[colours[owner]]  # owner -1 picks the last entry: blocked
            img[(owner < 0) & board.open] = 255  # an open cell a packing leaves empty: white
        for rc, fill in tinted_cells(board, () if puzzle else tiling.owner()).items():
            img[rc] = _rgb(fill)
        img = np.repeat(np.repeat(img, cell, axis=0), cell, axis=1)
        line = max(cell // 8, 1)
        if cell >= 6:  # thin grid lines inside tiles (between the open cells of a puzzle: darker, to be printed)
            shade = 0.55 if puzzle else 0.8
            img[cell - 1 :: cell, :, :] = (img[cell - 1 :: cell, :, :] * shade).astype(np.uint8)
            img[:, cell - 1 :: cell, :] = (img[:, cell - 1 :: cell, :] * shade).astype(np.uint8)
        right, down = _border_masks(instance, owner)
        # the cell on the other side of each border: left[r, c] is right[r, c-1]
        left = np.zeros_like(right)
        left[:, 1:] = right[:, :-1]
        left[:, 0] = right[:, -1] if board.wraps_rows else owner[:, 0] >= 0
        up = np.zeros_like(down)
        up[1:, :] = down[:-1, :]
        up[0, :] = down[-1, :] if board.wraps_columns else owner[0, :] >= 0
        xmod = np.arange(C * cell) % cell
        ymod = np.arange(R * cell) % cell

        def pix(mask):
            return np.repeat(np.repeat(mask, cell, axis=0), cell, axis=1)

        ink = (pix(right) & (xmod >= cell - line)[None, :]) | (pix(left) & (xmod < line)[None, :])
        ink |= (pix(down) & (ymod >= cell - line)[:, None]) | (pix(up) & (ymod < line)[:, None])
        img[ink] = 0
        if board.wraps_rows:
            img[:, :line] = _rgb(WRAP)
            img[:, -line:] = _rgb(WRAP)
        if board.wraps_columns:
            img[:line, :] = _rgb(WRAP)
            img[-line:, :] = _rgb(WRAP)
        if cell >= 8:  # optional and coloured cells: their letters, as the SVG writes them
            size, dx, dy = mark_place(board.grid)
            for (r, c), ch in cell_marks(board).items():
                under = "#%02x%02x%02x" % tuple(img[r * cell + cell // 2, c * cell + cell // 2])
                stamp_text(img, ch, cell * size, ((c + 0.5 + dx) * cell, (r + 0.5 + dy) * cell), mark_ink(under))
        if marked and cell >= 4 and not puzzle:
            q = max(cell // 4, 1)
            for r, c in marked:
                y, x = r * cell + cell // 2, c * cell + cell // 2
                img[y - q // 2 : y - q // 2 + q, x - q // 2 : x - q // 2 + q] = 0
        images.append(img)
    if len(images) == 1 and not titles:
        return images[0]
    return arrange_images(images, per_row(len(images), R, C), 2 * cell, titles, cell)


def default_cell(instance: Instance, n: int) -> int:
    """Pixels a cell in a PNG of ``n`` square-board pictures: 24, less where the picture would pass 2400 px."""
    board = instance.board
    across = per_row(n, board.rows, board.cols)
    return int(np.clip(2400 // max(board.rows * math.ceil(n / across), board.cols * across), 2, 24))


def arrange_images(images: list[np.ndarray], across: int, gap: int, titles: list[str] | None = None,
                   cell: float = 24) -> np.ndarray:
    """Images (RGB, uint8) in rows of ``across`` on white, ``gap`` pixels apart,
    each under its title when ``titles`` are given."""
    h = max(img.shape[0] for img in images)
    w = max(img.shape[1] for img in images)
    head = int(round(1.6 * title_size(cell))) if titles else 0
    down_n = math.ceil(len(images) / across)
    canvas = np.full((down_n * (h + head) + (down_n - 1) * gap, across * w + (across - 1) * gap, 3), 255, dtype=np.uint8)
    for k, img in enumerate(images):
        y, x = (k // across) * (h + head + gap), (k % across) * (w + gap)
        canvas[y + head : y + head + img.shape[0], x : x + img.shape[1]] = img
        if titles:
            ink = text_image(titles[k], title_size(cell))[: head, : canvas.shape[1] - x]
            top = y + (head - ink.shape[0]) // 2
            region = canvas[top : top + ink.shape[0], x : x + ink.shape[1]]
            region[:] = (region * (1 - ink[..., None] / 255.0)).astype(np.uint8)  # black text on what is there
    return canvas


def text_image(text: str, px: float) -> np.ndarray:
    """``text`` in a sans-serif font ``px`` pixels high, as coverage (uint8, 255 = ink):
    matplotlib's own FreeType renderer, the font it ships (DejaVu Sans)."""
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    font = FT2Font(findfont(FontProperties(family=["sans-serif"])))
    font.set_size(px * 0.75, 96)  # points at 96 dpi: px pixels for the em
    font.set_text(text, 0.0)
    font.draw_glyphs_to_bitmap(antialiased=True)
    return np.asarray(font.get_image())


def stamp_text(img: np.ndarray, text: str, px: float, at: tuple[float, float], ink: str = MARK_INK) -> None:
    """``text`` drawn into ``img`` (RGB, uint8) in ``ink``, ``px`` pixels high, centred
    on x = at[0] with its baseline (the bitmap's bottom) at y = at[1]; clipped to the image."""
    glyph = _glyph(text, round(px * 4) / 4)
    h, w = glyph.shape
    top, left = int(round(at[1])) - h, int(round(at[0] - w / 2))
    y0, x0 = max(top, 0), max(left, 0)
    y1, x1 = min(top + h, img.shape[0]), min(left + w, img.shape[1])
    if y0 >= y1 or x0 >= x1:
        return
    alpha = glyph[y0 - top : y1 - top, x0 - left : x1 - left, None] / 255.0
    region = img[y0:y1, x0:x1]
    region[:] = (region * (1 - alpha) + np.array(_rgb(ink)) * alpha).astype(np.uint8)


_GLYPHS: dict = {}


def _glyph(text: str, px: float) -> np.ndarray:
    if (text, px) not in _GLYPHS:
        _GLYPHS[(text, px)] = text_image(text, px)
    return _GLYPHS[(text, px)]


def save_pictures(instance: Instance, tilings: list[Tiling | None], paths, marked: set | None = None,
                  cell: float | None = None, titles: list[str] | None = None) -> None:
    """Write each given path (None entries skipped) as SVG or PNG."""
    for path in paths:
        if path is None:
            continue
        try:
            save_picture(instance, tilings, path, marked, cell, titles)
        except OSError as e:
            raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None


def save_picture(instance: Instance, tilings: list[Tiling | None], path, marked: set | None = None,
                 cell: float | None = None, titles: list[str] | None = None) -> None:
    """Write ``path`` as SVG, or as a raster image (PNG, ...) by its ending;
    ``cell``: pixels a cell (SVG: 24 by default; PNG: 24, less on big boards)."""
    name = str(path)
    if name.lower().endswith(".svg"):
        tiling_svg(instance, tilings, marked, 24 if cell is None else cell, titles).save_svg(name)
        return
    import matplotlib.image

    image = tiling_raster(instance, tilings, marked, None if cell is None else int(round(cell)), titles)
    try:
        matplotlib.image.imsave(name, image)
    except ValueError as e:  # an ending matplotlib has no format for
        raise TilesatError(f"cannot write {path}: {e}; use a name ending in .svg or .png") from None


# -- certificates: a heat map of the cell weights ----------------------------------



def _heat(weights: dict, R: int, C: int) -> np.ndarray:
    """(R, C, 3) floats: each weight's colour, red for positive, blue for negative."""
    grid = np.zeros((R, C))
    for (r, c), w in weights.items():
        grid[r, c] = w
    big = float(np.abs(grid).max()) or 1.0
    t = np.abs(grid)[..., None] / big
    colour = np.where(grid[..., None] > 0, np.array(POSITIVE), np.array(NEGATIVE))
    return 255 * (1 - t) + colour * t


def weights_svg(instance: Instance, weights: dict, cell: float = 24) -> draw.Drawing:
    """The certificate as SVG: every open cell filled by its weight (and the
    weight written in it on boards up to 60 columns)."""
    import drawsvg as draw

    board = instance.board
    if not board.is_square:
        from .cell_pictures import weights_svg as grid_weights_svg

        return grid_weights_svg(instance, weights, cell)
    R, C = board.rows, board.cols
    d = draw.Drawing(C * cell + 8, R * cell + 8)
    g = draw.Group(transform="translate(4,4)", **{"class": "certificate"})
    heat = _heat(weights, R, C)
    label = C <= 60
    for r in range(R):
        for c in range(C):
            if not board.open[r, c]:
                g.append(draw.Rectangle(c * cell, r * cell, cell, cell, fill=BLOCKED))
                continue
            rgb = "#%02x%02x%02x" % tuple(int(round(v)) for v in heat[r, c])
            w = weights.get((r, c), 0)
            g.append(draw.Rectangle(c * cell, r * cell, cell, cell, fill=rgb, stroke="#00000040",
                                    stroke_width=max(cell / 24, 0.3), **{"data-weight": str(w)}))
            if label:
                g.append(draw.Text(str(w), cell * 0.45, (c + 0.5) * cell, (r + 0.5) * cell,
                                   text_anchor="middle", dominant_baseline="central", font_family="sans-serif"))
    d.append(g)
    return d


def weights_raster(instance: Instance, weights: dict, cell: int | None = None) -> np.ndarray:
    """The certificate as an RGB image (uint8): a heat map of the weights."""
    board = instance.board
    R, C = board.rows, board.cols
    cell = cell or int(np.clip(2400 // max(R, C), 2, 24))
    img = _heat(weights, R, C).astype(np.uint8)
    img[~board.open] = _rgb(BLOCKED)
    img = np.repeat(np.repeat(img, cell, axis=0), cell, axis=1)
    if cell >= 6:
        img[cell - 1 :: cell, :, :] = (img[cell - 1 :: cell, :, :] * 0.85).astype(np.uint8)
        img[:, cell - 1 :: cell, :] = (img[:, cell - 1 :: cell, :] * 0.85).astype(np.uint8)
    return img


def save_certificate_pictures(instance: Instance, weights: dict, paths) -> None:
    """Write each given path (None entries skipped) as an SVG or PNG heat map."""
    if any(p is not None and not str(p).lower().endswith(".svg") for p in paths) and not instance.board.is_square:
        raise TilesatError(f"the weights of a {instance.board.grid} board are drawn as SVG only; use --svg")
    for path in paths:
        if path is None:
            continue
        name = str(path)
        try:
            if name.lower().endswith(".svg"):
                weights_svg(instance, weights).save_svg(name)
                continue
            import matplotlib.image

            matplotlib.image.imsave(name, weights_raster(instance, weights))
        except OSError as e:
            raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None
        except ValueError as e:
            raise TilesatError(f"cannot write {path}: {e}; use a name ending in .svg or .png") from None


def _grid_svg(instance, tilings, marked, cell, titles=None):
    from .cell_pictures import grid_svg

    return grid_svg(instance, tilings, marked, cell, titles)


def _grid_raster(instance, tilings, marked, cell, titles=None):
    from .cell_pictures import grid_raster

    return grid_raster(instance, tilings, marked, cell, titles)
