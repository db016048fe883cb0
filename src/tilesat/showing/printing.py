"""The print layout: a puzzle page (the board unsolved, the pieces to place
and how) and a solution page, A4 and vector, as a PDF a magazine could print
(drawn by matplotlib; :func:`page_raster` gives the same pages as images).

Every grid is drawn from its cells' outlines (:mod:`.cell_pictures`): the
puzzle's open cells white with grey grid lines inside a thick outline,
blocked cells dark; each piece below the board in grey with its count; the
solution's tiles in the pictures' colours, several tilings under their titles.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ..errors import TilesatError
from ..model.board import colour_name
from ..model.grids import get_grid
from ..model.instance import INF, Instance, PieceRule
from ..model.tiling import Tiling
from .cell_pictures import Scene, shade_colour, board_scene, border_edges, draw_panel, iso_faces
from .style import MARK_INK, per_row, tint

#: A4 in inches (width, height), and the margin around everything.
PAGE = (8.27, 11.69)
MARGIN = 0.7
#: The largest cell drawn (inches): a small board is not blown up to the page.
MAX_CELL = 0.6
PIECE_FILL = "#d9d9d9"
#: Characters a line of 10-point text holds across the page.
LINE_CHARS = 100

#: What each orientation mode lets the solver of the puzzle do with a piece.
MOVES = {"free": "turned and flipped over", "one-sided": "turned but not flipped over", "fixed": "placed only as drawn"}


@dataclass
class Pages:
    """What the pages say: a title, lines under it on the puzzle page (the grade,
    where it comes from), and which pages there are."""

    title: str
    notes: list[str] = field(default_factory=list)
    puzzle: bool = True
    solution: bool = True


def count_words(rule: PieceRule) -> str:
    """A piece's count as a puzzle page says it: '× 1', '× 2 to 5', 'any number'."""
    if rule.max == INF:
        return "any number" if rule.min == 0 else f"at least {rule.min}"
    if rule.min == rule.max:
        return f"\u00d7 {rule.min}"
    return f"\u00d7 {rule.min} to {int(rule.max)}" if rule.min else f"up to {int(rule.max)}"


def instructions(instance: Instance) -> str:
    """The puzzle's rule in a sentence, from the pieces' counts and orientations."""
    moves = sorted({MOVES.get(r.orient, r.orient) for r in instance.rules})
    how = f"Pieces may be {moves[0]}." if len(moves) == 1 else "Each piece may be moved as its label says."
    counts = "each as many times as shown" if any(r.bounded for r in instance.rules) else "as many of each as you like"
    board = instance.board
    cells = "white cell" if board.colour is None else "white or tinted cell"
    rule = f"Cover every {cells} with the pieces below, {counts}. {how}"
    if board.optional is not None:
        rule += " Cells marked + (or a lowercase letter) may stay empty."
    if board.colour is not None or instance.coloured_pieces:
        pairs = "" if instance.pairs is None else " Colours that may meet (piece:board): " + instance.pairs_text() + "."
        rule += (" A piece cell with a letter lies only on a cell of its letter" if instance.pairs is None
                 else " A piece cell with a letter lies only on a cell of a colour paired with it") \
            + "; cells without one fit anything." + pairs
    return rule


def piece_scene(piece) -> Scene:
    """A piece on its own, in units, the top left at (0, 0): its cells'
    polygons; a cube piece's visible faces in an isometric view (keyed by
    (cell, face), top faces lightest)."""
    lattice = get_grid(piece.grid)
    polygons = {}
    if piece.grid == "cube":
        layers = 1 + max(z for z, _, _ in piece.cells)
        view = Scene({}, 0.0, 0.0, iso=(0.0, 0.0))
        owner = {cell: 0 for cell in piece.cells}
        for k, (poly, _, shade) in enumerate(iso_faces(view, SimpleNamespace(layers=layers), owner)):
            polygons[(k, shade)] = poly
    else:
        for cell in piece.cells:
            polygons[cell] = [(float(x), float(y)) for x, y in lattice.cell_polygon(cell)]
    xs = [x for poly in polygons.values() for x, _ in poly]
    ys = [y for poly in polygons.values() for _, y in poly]
    x0, y0 = min(xs), min(ys)
    polygons = {c: [(x - x0, y - y0) for x, y in poly] for c, poly in polygons.items()}
    return Scene(polygons, max(xs) - x0, max(ys) - y0)


def _box(fig, left: float, top: float, width: float, height: float):
    """Axes over a box of the page given in inches from the top left, y down, unit = 1 inch."""
    W, H = PAGE
    ax = fig.add_axes((left / W, 1 - (top + height) / H, width / W, height / H))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    return ax


def _panels(fig, instance: Instance, tilings: list[Tiling | None], titles: list[str] | None, top: float,
            height: float, marked: set | None = None) -> float:
    """Tilings (None: the board unsolved) side by side, centred in the page's
    width from ``top``, as large as ``height`` allows; returns the height used."""
    scene = board_scene(instance.board)
    head = 0.35 if titles else 0.0  # inches a title takes
    across = per_row(len(tilings), max(1, round(scene.height)), max(1, round(scene.width)))
    down_n = math.ceil(len(tilings) / across)
    gap = 1.5  # units between panels
    width = PAGE[0] - 2 * MARGIN
    unit = min(MAX_CELL, (width + 0) / (across * scene.width + (across - 1) * gap),
               (height - down_n * head) / (down_n * scene.height + (down_n - 1) * gap))
    used_w = unit * (across * scene.width + (across - 1) * gap)
    used_h = down_n * (unit * scene.height + head) + (down_n - 1) * gap * unit
    pad = 0.1  # inches around, so that the outline's thick line is not cut
    ax = _box(fig, (PAGE[0] - used_w) / 2 - pad, top - pad, used_w + 2 * pad, used_h + 2 * pad)
    ax.set_xlim(-pad / unit, (used_w + pad) / unit)
    ax.set_ylim((used_h + pad) / unit, -pad / unit)
    for k, tiling in enumerate(tilings):
        x0 = (k % across) * (scene.width + gap)
        y0 = (k // across) * (scene.height + gap + head / unit)
        if titles:
            ax.text(x0, y0 + head / unit * 0.7, titles[k], ha="left", va="baseline", fontsize=13)
        draw_panel(ax, instance, scene, tiling, (x0, y0 + head / unit), unit * 72, marked)
    return used_h


def _pieces(fig, instance: Instance, top: float, height: float) -> None:
    """The pieces to place, in rows, each in grey under its name and count."""
    from matplotlib.collections import LineCollection, PolyCollection

    scenes = [(rule, piece_scene(rule.piece)) for rule in instance.rules]
    width = PAGE[0] - 2 * MARGIN
    label = 0.42  # inches under each piece: its name and count
    gap = 1.0  # units between pieces
    # the largest unit (at most 0.3 in) at which the pieces, flowed into rows, fit the box
    unit = 0.3
    while True:
        rows, x, row_h, rows_h = [[]], 0.0, 0.0, []
        for rule, scene in scenes:
            w = max(scene.width * unit, 0.9)
            if rows[-1] and x + w > width:
                rows.append([])
                rows_h.append(row_h)
                x, row_h = 0.0, 0.0
            rows[-1].append((rule, scene, x, w))
            x += w + gap * unit
            row_h = max(row_h, scene.height * unit + label)
        rows_h.append(row_h)
        total = sum(rows_h) + gap * unit * (len(rows) - 1)
        if total <= height or unit < 0.05:
            break
        unit *= 0.85
    ax = _box(fig, MARGIN, top, width, height)
    y = 0.0
    for row, h in zip(rows, rows_h):
        for rule, scene, x, w in row:
            dx = x + (w - scene.width * unit) / 2
            polys = [np.array(p) * unit + (dx, y) for p in scene.polygons.values()]
            if rule.piece.grid == "cube":  # faces, each in its shade, outlined
                fills = [shade_colour(PIECE_FILL, shade) for _, shade in scene.polygons]
                ax.add_collection(PolyCollection(polys, facecolors=fills, edgecolors="#000",
                                                 linewidths=max(unit * 72 / 24, 0.3)))
            else:  # a coloured cell in its colour's tint, with its letter
                colour = dict(zip(rule.piece.cells, rule.piece.colours)) if rule.piece.colours else {}
                ax.add_collection(PolyCollection(polys, facecolors=[tint(colour[c]) if colour.get(c) else PIECE_FILL
                                                                    for c in scene.polygons],
                                                 edgecolors="#00000099", linewidths=max(unit * 72 / 24, 0.3)))
                for c, poly in zip(scene.polygons, polys):
                    if colour.get(c):
                        ax.text(*poly.mean(axis=0), colour_name(colour[c]), ha="center", va="center",
                                fontsize=max(unit * 72 * 0.4, 4), color=MARK_INK)
                owner = {c: 0 for c in scene.polygons}
                edges = np.array(border_edges(scene, owner), dtype=float).reshape(-1, 2, 2) * unit + (dx, y)
                ax.add_collection(LineCollection(edges, colors="#000", linewidths=max(unit * 72 / 10, 0.8),
                                                 capstyle="round"))
            moves = "" if rule.orient == "free" else f" ({rule.orient})"
            ax.text(x + w / 2, y + scene.height * unit + 0.17, f"{rule.name}{moves}", ha="center", va="center",
                    fontsize=9)
            ax.text(x + w / 2, y + scene.height * unit + 0.33, count_words(rule), ha="center", va="center",
                    fontsize=9, color="#333333")
        y += h + gap * unit


def _heading(fig, title: str, lines: list[str]) -> float:
    """The title and the lines under it at the top of a page; returns inches used from the top."""
    W, H = PAGE
    fig.text(MARGIN / W, 1 - (MARGIN + 0.25) / H, title, fontsize=20, weight="bold", ha="left", va="baseline")
    y = MARGIN + 0.3
    for line in (part for text in lines for part in textwrap.wrap(text, LINE_CHARS)):
        y += 0.2
        fig.text(MARGIN / W, 1 - y / H, line, fontsize=10, ha="left", va="baseline")
    return y + 0.3


def _footer(fig, text: str) -> None:
    W, H = PAGE
    fig.text(0.5, (MARGIN / 2) / H, text, fontsize=8, color="#666666", ha="center", va="center")


def puzzle_figure(instance: Instance, pages: Pages):
    """The puzzle page: the title, notes, the rule in a sentence, the board
    unsolved and the pieces to place."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=PAGE)
    top = _heading(fig, pages.title, [*pages.notes, instructions(instance)])
    room = PAGE[1] - top - MARGIN
    piece_room = min(room * 0.4, 0.9 + 0.6 * len(instance.rules) ** 0.5)
    used = _panels(fig, instance, [None], None, top, room - piece_room - 0.4)
    fig.text(MARGIN / PAGE[0], 1 - (top + used + 0.45) / PAGE[1], "Pieces", fontsize=12, weight="bold")
    _pieces(fig, instance, top + used + 0.6, PAGE[1] - MARGIN - (top + used + 0.6))
    _footer(fig, "The solution is on the next page." if pages.solution else "")
    return fig


def solution_figure(instance: Instance, tilings: list[Tiling], pages: Pages, marked: set | None = None):
    """The solution page: the tiling (or each tiling under its title)."""
    from matplotlib.figure import Figure

    if not tilings:
        raise TilesatError("there is no tiling to print as a solution")
    fig = Figure(figsize=PAGE)
    what = "Solution" if len(tilings) == 1 else f"{len(tilings)} tilings"
    notes = ["They differ at the cells marked with a dot."] if marked and len(tilings) > 1 else []
    top = _heading(fig, f"{pages.title}: {what}" if pages.title else what, notes)
    titles = [f"tiling {k}" for k in range(1, len(tilings) + 1)] if len(tilings) > 1 else None
    _panels(fig, instance, list(tilings), titles, top, PAGE[1] - top - MARGIN, marked)
    return fig


def print_figures(instance: Instance, tilings: list[Tiling], pages: Pages, marked: set | None = None) -> list:
    """The pages asked for, as matplotlib figures (puzzle first)."""
    figures = []
    if pages.puzzle:
        figures.append(puzzle_figure(instance, pages))
    if pages.solution and tilings:
        figures.append(solution_figure(instance, tilings, pages, marked))
    return figures


def save_pdf(path, instance: Instance, tilings: list[Tiling], pages: Pages, marked: set | None = None) -> None:
    """Write the pages as one PDF (vector, A4, fonts embedded)."""
    from matplotlib.backends.backend_pdf import PdfPages

    figures = print_figures(instance, tilings, pages, marked)
    try:
        with PdfPages(str(path), metadata={"Title": pages.title, "Creator": "tilesat"}) as pdf:
            for fig in figures:
                pdf.savefig(fig)
    except OSError as e:
        raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None


def page_raster(fig, dpi: float = 50) -> np.ndarray:
    """A page as an RGB image (uint8), by matplotlib's Agg renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()



#: What --draw asks of the pictures: the board unsolved, the answer, or both (the puzzle first).
DRAWINGS = ("puzzle", "solution", "both")


def panels(draw: str, tilings: list[Tiling]) -> tuple[list[Tiling | None], list[str] | None]:
    """The pictures' panels for ``draw`` (None: the board unsolved) and their
    titles (only where there is more than one panel)."""
    shown: list[Tiling | None] = ([None] if draw in ("puzzle", "both") else []) + (
        list(tilings) if draw in ("solution", "both") else [])
    if len(shown) < 2:
        return shown, None
    names = ["solution"] if len(tilings) == 1 else [f"tiling {k}" for k in range(1, len(tilings) + 1)]
    return shown, (["puzzle"] if draw in ("puzzle", "both") else []) + (names if draw != "puzzle" else [])


@dataclass(frozen=True)
class Drawings:
    """The pictures asked for: ``svg``/``png`` show ``draw`` (``cell`` pixels a
    cell), ``pdf`` the print layout's pages for ``pdf_draw``."""

    svg: object = None
    png: object = None
    pdf: object = None
    draw: str = "solution"
    pdf_draw: str = "both"
    cell: float | None = None


def save_drawings(instance: Instance, tilings: list[Tiling], drawings: Drawings, marked: set | None = None,
                  title: str = "", notes: list[str] | tuple[str, ...] = ()) -> list:
    """Write the pictures asked for (``title`` and ``notes``: the PDF's).  Returns the paths
    left unwritten because there was nothing to draw (no tiling, and no puzzle asked)."""
    from .pictures import save_picture

    svg, png, pdf, draw, pdf_draw, cell = (drawings.svg, drawings.png, drawings.pdf, drawings.draw, drawings.pdf_draw,
                                           drawings.cell)
    skipped = []
    shown, titles = panels(draw, tilings)
    for path in (svg, png):
        if path is None:
            continue
        if not shown:
            skipped.append(path)
            continue
        try:
            save_picture(instance, shown, path, marked, cell, titles)
        except OSError as e:
            raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None
    if pdf is not None:
        pages = Pages(title, list(notes), puzzle=pdf_draw in ("puzzle", "both"), solution=pdf_draw in ("solution", "both"))
        if not pages.puzzle and not tilings:
            skipped.append(pdf)
        else:
            save_pdf(pdf, instance, tilings, pages, marked)
    return skipped
