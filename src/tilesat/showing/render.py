"""Showing tilings: plain text (one character per cell) and rich colour.

Plain text: ``#`` for a blocked cell, ``.`` for an open cell left empty (a
packing); each tile gets a letter.  When every
tile is a different piece with its own letter (a pentomino puzzle) that is
the piece's letter; otherwise tiles get letters in reading order, chosen so
that neighbouring tiles never share one (so the tiles can be told apart).
In a terminal each tile is drawn in its own colour, showing its piece letter.

Other grids than the square use the grid's own text layout (the one the
instance file uses, ``Grid.format_layout``): a triangle row is one
character per triangle, a hex row two characters per hexagon shifted one
character per row down, a cube board its layers top first separated by
``--``.  In colour, cube layers stand side by side under their names.
:func:`piece_picture` draws a piece on its own (``tilesat pieces``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.text import Text

from ..model.instance import Instance
from ..model.tiling import Tiling
from .style import MARK_INK, mark_ink, mark_place, tint

if TYPE_CHECKING:  # rich.table on first use: a text count shows no table
    from rich.table import Table

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Background colours that all read well with black letters.
PALETTE = [
    "red", "green", "yellow", "blue", "magenta", "cyan",
    "bright_red", "bright_green", "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan",
    "orange3", "purple", "spring_green3", "gold3", "deep_sky_blue3", "hot_pink3",
]


def tile_neighbours(instance: Instance, tiling: Tiling) -> list[set[int]]:
    """For each tile, the indices of the tiles that share an edge with it."""
    owner = tiling.owner()
    board = instance.board
    adj: list[set[int]] = [set() for _ in tiling.tiles]
    for cell, i in owner.items():
        for nb in board.neighbours(*cell):
            j = owner.get(nb)
            if j is not None and j != i:
                adj[i].add(j)
    return adj


def colour_tiles(instance: Instance, tiling: Tiling, ncolours: int) -> list[int]:
    """Greedy colouring in reading order: neighbours get different colours
    whenever ``ncolours`` allows (it cycles on from the last colour used, so
    the colours spread over the palette instead of piling on the first)."""
    adj = tile_neighbours(instance, tiling)
    order = sorted(range(len(tiling.tiles)), key=lambda i: tiling.tiles[i].cells[0])
    colour = [-1] * len(tiling.tiles)
    nxt = 0
    for i in order:
        taken = {colour[j] for j in adj[i]}
        for step in range(ncolours):
            c = (nxt + step) % ncolours
            if c not in taken:
                break
        else:
            c = nxt % ncolours
        colour[i] = c
        nxt = c + 1
    return colour


def tile_labels(instance: Instance, tiling: Tiling) -> list[str]:
    letters = [instance.rule(t.piece).piece.letter for t in tiling.tiles]
    if len(set(letters)) == len(letters):
        return letters
    return [LABELS[c] for c in colour_tiles(instance, tiling, len(LABELS))]


def cell_marks(board) -> dict:
    """Cell -> its mark: '+' (may stay empty), a colour's letter ('A', or 'a' when the
    cell may stay empty too); empty when the board has neither."""
    return board.cell_chars() if (board.optional is not None or board.colour is not None) else {}


def cell_marks_svg(board, centre, cell: float, fill=None):
    """The marks of optional ('+') and coloured ('A', or 'a' when optional) cells, as
    one SVG group of small letters in a corner of each (``centre(cell)``: its
    centre in cell units; ``fill(cell)``: the colour under it, None for white, so
    that a mark on a dark tile is white); None when the board has neither."""
    import drawsvg as draw

    chars = cell_marks(board)
    if not chars:
        return None
    g = draw.Group(**{"class": "cell-marks"})
    size, dx, dy = mark_place(board.grid)
    for c, ch in sorted(chars.items()):
        x, y = centre(c)
        g.append(draw.Text(ch, cell * size, (x + dx) * cell, (y + dy) * cell,
                           text_anchor="middle", font_family="sans-serif",
                           fill=mark_ink(under) if fill and (under := fill(c)) else MARK_INK,
                           **{"class": "optional" if ch == "+" else "colour"}))
    return g


def tinted_cells(board, covered=()) -> dict:
    """Coloured open cells that no tile covers (``covered``: the cells tiles do) -> their tint."""
    if board.colour is None:
        return {}
    return {cell: tint(int(board.colour[cell])) for cell in board.cells(np.flatnonzero(board.colour.ravel() > 0))
            if cell not in covered}


def plain_rows(instance: Instance, tiling: Tiling) -> list[str]:
    """The tiling as text rows, one character per cell ('+' on an optional cell left empty)."""
    board = instance.board
    empty = {cell: "+" for cell in board.cells(board.optional_cells)}
    if not board.is_square:  # the grid's own layout, letters on the tiles' cells, '.' on empty ones
        labels = {cell: "." for cell in board.cells(board.open_cells)} | empty
        labels.update({cell: label for tile, label in zip(tiling.tiles, tile_labels(instance, tiling)) for cell in tile.cells})
        return board.lattice.format_layout(board.open, labels)
    grid = [["#" if not board.open[r, c] else empty.get((r, c), ".") for c in range(board.cols)] for r in range(board.rows)]
    for tile, label in zip(tiling.tiles, tile_labels(instance, tiling)):
        for r, c in tile.cells:
            grid[r][c] = label
    return ["".join(row) for row in grid]


def diff_rows(instance: Instance, cells: set) -> list[str]:
    """``*`` where two tilings differ, ``.`` where they agree, ``#`` blocked."""
    board = instance.board
    if not board.is_square:
        return board.lattice.format_layout(board.open, {cell: "*" for cell in cells})
    return [
        "".join("#" if not board.open[r, c] else ("*" if (r, c) in cells else ".") for c in range(board.cols))
        for r in range(board.rows)
    ]


def side_by_side(blocks: list[list[str]], titles: list[str], gap: int = 3) -> str:
    widths = [max([len(t)] + [len(r) for r in b]) for b, t in zip(blocks, titles)]
    lines = [(" " * gap).join(t.ljust(w) for t, w in zip(titles, widths)).rstrip()]
    for i in range(max(len(b) for b in blocks)):
        lines.append((" " * gap).join((b[i] if i < len(b) else "").ljust(w) for b, w in zip(blocks, widths)).rstrip())
    return "\n".join(lines)


def rich_tiling(instance: Instance, tiling: Tiling, marked: set | None = None) -> Text:
    """The tiling in colour, two characters per cell; ``marked`` cells shown
    with ``*`` instead of a space, in bold."""
    board = instance.board
    if not board.is_square:
        return _rich_layout(instance, tiling, marked)
    colours = colour_tiles(instance, tiling, len(PALETTE))
    owner = tiling.owner()
    empty = {cell: "+" for cell in board.cells(board.optional_cells)}
    text = Text()
    for r in range(board.rows):
        for c in range(board.cols):
            if not board.open[r, c]:
                text.append("  ", style="on grey15")
                continue
            i = owner.get((r, c))
            if i is None:  # an open cell a packing leaves empty ('+': one that may stay empty, as the plain text)
                text.append(empty.get((r, c), ".") + " ", style="dim")
                continue
            letter = instance.rule(tiling.tiles[i].piece).piece.letter
            mark = "*" if marked and (r, c) in marked else " "
            style = f"{'bold ' if mark == '*' else ''}black on {PALETTE[colours[i]]}"
            text.append(letter + mark, style=style)
        if r < board.rows - 1:
            text.append("\n")
    return text


def rich_side_by_side(instance: Instance, tilings: list[Tiling], titles: list[str], marked: set | None = None) -> Table:
    from rich.table import Table

    table = Table.grid(padding=(0, 3))
    for title in titles:
        table.add_column(title)
    table.add_row(*[Text(t, style="bold") for t in titles])
    table.add_row(*[rich_tiling(instance, t, marked) for t in tilings])
    return table


# -- the other grids: the grid's own text layout, in colour ------------------

_MARK = 0xF0000  # private-use characters: one per open cell, to find where the layout writes it
_MARKS = 0xFFFFD - _MARK


def layout_positions(board) -> tuple[list[str], dict[tuple[int, int], tuple]]:
    """The board's text layout (``Grid.format_layout``) and where it writes
    each open cell: (line, column) -> cell.  Found by writing each open cell
    as its own private-use character, so nothing here knows the grids."""
    cells = board.cells(board.open_cells)[:_MARKS]
    lines = board.lattice.format_layout(board.open, {cell: chr(_MARK + i) for i, cell in enumerate(cells)})
    where = {}
    for li, line in enumerate(lines):
        for p, ch in enumerate(line):
            k = ord(ch) - _MARK
            if 0 <= k < len(cells):
                where[(li, p)] = cells[k]
    return [_unmark(line) for line in lines], where


def _unmark(line: str) -> str:
    return "".join("." if 0 <= ord(ch) - _MARK < _MARKS else ch for ch in line)


def _rich_layout(instance: Instance, tiling: Tiling, marked: set | None = None):
    """A tiling of a triangle, hex or cube board in colour: the plain text's
    letters on each tile's colour (a space between two cells of one tile
    too), blocked cells dark, ``marked`` cells bold and underlined.  Cube
    layers stand side by side under their names."""
    board = instance.board
    if board.area > _MARKS:  # more cells than marks to find them by: the plain text
        return Text("\n".join(plain_rows(instance, tiling)))
    lines, where = layout_positions(board)
    owner = tiling.owner()
    colours = colour_tiles(instance, tiling, len(PALETTE))
    labels = tile_labels(instance, tiling)
    empty = {cell: "+" for cell in board.cells(board.optional_cells)}

    def tile_at(li, p):
        cell = where.get((li, p))
        return None if cell is None else owner.get(cell)

    def styled(li: int, line: str) -> Text:
        text = Text()
        for p, ch in enumerate(line):
            cell = where.get((li, p))
            if cell is not None:
                i = owner.get(cell)
                if i is None:  # an open cell a packing leaves empty ('+': one that may stay empty)
                    text.append(empty.get(cell, "."), style="dim")
                    continue
                mark = "bold underline " if marked and cell in marked else ""
                text.append(labels[i], style=f"{mark}black on {PALETTE[colours[i]]}")
            elif ch == "#":
                text.append("#", style="grey50 on grey15")
            elif ch == " " and (i := tile_at(li, p - 1)) is not None and tile_at(li, p + 1) == i:
                text.append(" ", style=f"on {PALETTE[colours[i]]}")
            else:
                text.append(ch)
        return text

    if board.open.ndim != 3:
        return Text("\n").join(styled(li, line) for li, line in enumerate(lines))
    layers, current = [], []
    for li, line in enumerate(lines):
        if line == "--":
            layers.append(current)
            current = []
        else:
            current.append(styled(li, line))
    layers.append(current)
    from rich.table import Table

    table = Table.grid(padding=(0, 3))
    for z in range(len(layers)):
        table.add_column(f"z = {z}")
    table.add_row(*[Text(f"z = {z}", style="bold") for z in range(len(layers))])
    table.add_row(*[Text("\n").join(layer) for layer in layers])
    return table


# -- pieces on their own (tilesat pieces) -----------------------------------------

BLOCK = "\u2588\u2588"  # a square, hexagon or cube cell: two full blocks
EMPTY_IN_LAYER = "\u2591\u2591"  # a cube layer's empty position: light shade


def piece_picture(piece) -> list[str]:
    """A piece drawn in text: square cells as blocks; hexagons as blocks,
    each row shifted half a cell right (as in the hex layout); triangles as
    their outline in ``/``, ``\\`` and ``_``; cubes one layer after another,
    left to right (top layer first), empty places of a layer lightly shaded."""
    if piece.grid == "triangle":
        return triangle_outline(piece.cells)
    if piece.grid == "cube":
        h = 1 + max(r for _, r, _ in piece.cells)
        w = 1 + max(c for _, _, c in piece.cells)
        depth = 1 + max(z for z, _, _ in piece.cells)
        layers = [_blocks({(r, c) for zz, r, c in piece.cells if zz == z}, h, w) for z in range(depth)]
        return [("  ".join(layer[r] for layer in layers)).rstrip() for r in range(h)]
    cells = set(piece.cells)
    if piece.grid == "hex":
        low = min(2 * c + r for r, c in cells)
        rows = 1 + max(r for r, _ in cells)
        out = []
        for r in range(rows):
            line = [" "] * (2 * max(c for _, c in cells) + rows + 2)
            for rr, c in cells:
                if rr == r:
                    x = 2 * c + r - low
                    line[x : x + 2] = BLOCK
            out.append("".join(line).rstrip())
        return out
    return [line.replace(EMPTY_IN_LAYER, "  ").rstrip()
            for line in _blocks(cells, 1 + max(r for r, _ in cells), 1 + max(c for _, c in cells))]


def _blocks(cells: set, h: int, w: int) -> list[str]:
    return ["".join(BLOCK if (r, c) in cells else EMPTY_IN_LAYER for c in range(w)) for r in range(h)]


def triangle_outline(cells) -> list[str]:
    """Triangles (row r, column c; up when r + c is even) drawn as their
    outline, two text lines per row and two columns per column: an up
    triangle is `` /\\`` over ``/__\\``, a down one ``____`` over ``\\  /``
    over `` \\/``.  Only edges between a cell and a non-cell are drawn
    (a level edge spans four columns; a slanted edge's character wins where
    they meet)."""
    cells = set(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    canvas: dict[tuple[int, int], str] = {}
    for r, c in cells:
        y, x = 2 * (r - r0), 2 * (c - c0)
        if (r + c) % 2 == 0:  # up: left, right, bottom edge
            edges = [((r, c - 1), [(y + 1, x + 1, "/"), (y + 2, x, "/")]),
                     ((r, c + 1), [(y + 1, x + 2, "\\"), (y + 2, x + 3, "\\")]),
                     ((r + 1, c), [(y + 2, x + k, "_") for k in range(4)])]
        else:  # down: left, right, top edge
            edges = [((r, c - 1), [(y + 1, x, "\\"), (y + 2, x + 1, "\\")]),
                     ((r, c + 1), [(y + 1, x + 3, "/"), (y + 2, x + 2, "/")]),
                     ((r - 1, c), [(y, x + k, "_") for k in range(4)])]
        for other, chars in edges:
            if other not in cells:
                for yy, xx, ch in chars:
                    if canvas.get((yy, xx)) in (None, "_"):  # a slanted edge wins over a level one
                        canvas[(yy, xx)] = ch
    top = min(y for y, _ in canvas)
    bottom = max(y for y, _ in canvas)
    left = min(x for _, x in canvas)
    right = max(x for _, x in canvas)
    return ["".join(canvas.get((y, x), " ") for x in range(left, right + 1)).rstrip() for y in range(top, bottom + 1)]


def pieces_sheet(pieces, width: int = 80, colour: bool = False) -> Text:
    """Pieces drawn side by side under their names, as many to a line of
    pictures as ``width`` allows; each piece in its own colour if asked."""
    blocks = []
    for k, piece in enumerate(pieces):
        pic = piece_picture(piece)
        title = f"{piece.name} ({piece.size})"
        w = max([len(title)] + [len(line) for line in pic])
        blocks.append((title, pic, w, PALETTE[k % len(PALETTE)]))
    text = Text()
    gap = 3
    line_blocks: list[list] = []
    used = 0
    for block in blocks:
        if line_blocks and line_blocks[-1] and used + gap + block[2] <= width:
            line_blocks[-1].append(block)
            used += gap + block[2]
        else:
            line_blocks.append([block])
            used = block[2]
    for n, group in enumerate(line_blocks):
        if n:
            text.append("\n\n")
        height = max(len(b[1]) for b in group)
        lines = [Text((" " * gap).join(b[0].ljust(b[2]) for b in group).rstrip(), style="bold" if colour else "")]
        for y in range(height):
            line = Text()
            for j, (title, pic, w, col) in enumerate(group):
                if j:
                    line.append(" " * gap)
                line.append((pic[y] if y < len(pic) else "").ljust(w), style=col if colour else "")
            line.rstrip()
            lines.append(line)
        text.append(Text("\n").join(lines))
    return text


# -- certificates: the board with each open cell's weight ------------------------

def _weight_grid(instance: Instance, weights: dict) -> list[list[int | None]]:
    board = instance.board
    return [[(weights.get((r, c), 0) if board.open[r, c] else None) for c in range(board.cols)] for r in range(board.rows)]


def weight_rows(instance: Instance, weights: dict) -> list[str]:
    """The weights as text rows, right-aligned in equal columns; ``#`` blocked."""
    if not instance.board.is_square:
        return [line.plain for line in _layout_weights(instance, weights)]
    grid = _weight_grid(instance, weights)
    width = max([len(str(w)) for row in grid for w in row if w is not None] + [1])
    return [" ".join(("#" if w is None else str(w)).rjust(width) for w in row).rstrip() for row in grid]


def rich_weights(instance: Instance, weights: dict) -> Text:
    """The weights in colour: positive cells red, negative blue (deeper for
    larger magnitudes), zero plain, blocked cells dark."""
    if not instance.board.is_square:
        return Text("\n").join(_layout_weights(instance, weights))
    grid = _weight_grid(instance, weights)
    width = max([len(str(w)) for row in grid for w in row if w is not None] + [1])
    big = max([abs(w) for row in grid for w in row if w is not None] + [1])
    text = Text()
    for r, row in enumerate(grid):
        for w in row:
            if w is None:
                text.append(" " * (width + 1), style="on grey15")
                continue
            level = 1 if big == 0 else abs(w) / big
            style = "" if w == 0 else (f"black on {'red' if level > 0.5 else 'light_pink3'}" if w > 0
                                       else f"white on {'blue' if level > 0.5 else 'steel_blue'}")
            text.append(str(w).rjust(width) + " ", style=style)
        if r < len(grid) - 1:
            text.append("\n")
    return text


def _layout_weights(instance: Instance, weights: dict) -> list[Text]:
    """Other grids: the grid's text layout with every character widened to
    the widest weight's width (so the board keeps its shape) and each open
    cell's character replaced by its weight, coloured as :func:`rich_weights`."""
    lines, where = layout_positions(instance.board)
    values = [weights.get(cell, 0) for cell in where.values()]
    width = max([len(str(w)) for w in values] + [1]) + 1
    big = max([abs(w) for w in values] + [1])
    out = []
    for li, line in enumerate(lines):
        text = Text()
        for p, ch in enumerate(line):
            cell = where.get((li, p))
            if cell is None:
                text.append((ch * width) if ch == "-" else ch.rjust(width), style="on grey15" if ch == "#" else "")
                continue
            w = weights.get(cell, 0)
            level = abs(w) / big
            style = "" if w == 0 else (f"black on {'red' if level > 0.5 else 'light_pink3'}" if w > 0
                                       else f"white on {'blue' if level > 0.5 else 'steel_blue'}")
            text.append(str(w).rjust(width), style=style)
        text.rstrip()
        out.append(text)
    return out
