"""Showing tilings: plain text (one character per cell) and rich colour.

Plain text: ``#`` for a blocked cell, ``.`` for an open cell left empty (a
packing); each tile gets a letter.  When every
tile is a different piece with its own letter (a pentomino puzzle) that is
the piece's letter; otherwise tiles get letters in reading order, chosen so
that neighbouring tiles never share one (so the tiles can be told apart).
In a terminal each tile is drawn in its own colour, showing its piece letter.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from .instance import Instance
from .tiling import Tiling

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


def plain_rows(instance: Instance, tiling: Tiling) -> list[str]:
    """The tiling as text rows, one character per cell."""
    board = instance.board
    if not board.is_square:  # the grid's own layout, letters on the tiles' cells
        labels = {cell: label for tile, label in zip(tiling.tiles, tile_labels(instance, tiling)) for cell in tile.cells}
        return board.lattice.format_layout(board.open, labels)
    grid = [["#" if not board.open[r, c] else "." for c in range(board.cols)] for r in range(board.rows)]
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
    if not board.is_square:  # (pictures of the other grids: issue 17's pictures work)
        return Text("\n".join(plain_rows(instance, tiling)))
    colours = colour_tiles(instance, tiling, len(PALETTE))
    owner = tiling.owner()
    text = Text()
    for r in range(board.rows):
        for c in range(board.cols):
            if not board.open[r, c]:
                text.append("  ", style="on grey15")
                continue
            i = owner.get((r, c))
            if i is None:  # an open cell a packing leaves empty
                text.append(". ", style="dim")
                continue
            letter = instance.rule(tiling.tiles[i].piece).piece.letter
            mark = "*" if marked and (r, c) in marked else " "
            style = f"{'bold ' if mark == '*' else ''}black on {PALETTE[colours[i]]}"
            text.append(letter + mark, style=style)
        if r < board.rows - 1:
            text.append("\n")
    return text


def rich_side_by_side(instance: Instance, tilings: list[Tiling], titles: list[str], marked: set | None = None) -> Table:
    table = Table.grid(padding=(0, 3))
    for title in titles:
        table.add_column(title)
    table.add_row(*[Text(t, style="bold") for t in titles])
    table.add_row(*[rich_tiling(instance, t, marked) for t in tilings])
    return table


# -- certificates: the board with each open cell's weight ------------------------

def _weight_grid(instance: Instance, weights: dict) -> list[list[int | None]]:
    board = instance.board
    return [[(weights.get((r, c), 0) if board.open[r, c] else None) for c in range(board.cols)] for r in range(board.rows)]


def weight_rows(instance: Instance, weights: dict) -> list[str]:
    """The weights as text rows, right-aligned in equal columns; ``#`` blocked."""
    grid = _weight_grid(instance, weights)
    width = max([len(str(w)) for row in grid for w in row if w is not None] + [1])
    return [" ".join(("#" if w is None else str(w)).rjust(width) for w in row).rstrip() for row in grid]


def rich_weights(instance: Instance, weights: dict) -> Text:
    """The weights in colour: positive cells red, negative blue (deeper for
    larger magnitudes), zero plain, blocked cells dark."""
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
