"""The pictures' shared style: the tile palette, the colours of blocked cells,
wrapped edges and weights, and how many tilings go side by side (used by
:mod:`.pictures`, square boards, and :mod:`.cell_pictures`, every other grid)."""

from __future__ import annotations

import math

PALETTE = [
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4",
    "#46f0f0", "#f032e6", "#bcf60c", "#fabebe", "#008080", "#e6beff",
    "#9a6324", "#fffac8", "#aaffc3", "#808000",
]
BLOCKED = "#333333"
WRAP = "#d62728"
POSITIVE, NEGATIVE = (214, 39, 40), (31, 119, 180)  # red and blue, white at zero
#: Grid lines inside tiles, and between the open cells of an unsolved board (printed: darker).
GRID_LINE, PUZZLE_LINE = "#00000040", "#00000099"
#: Cells that may stay empty and coloured cells: their letter ('+', 'A', or 'a' when both) in
#: this ink, in every picture (where: :func:`mark_place`); a coloured cell no tile covers is
#: tinted with its colour's tint besides.
MARK_INK, MARK_INK_ON_DARK = "#333333", "#ffffff"
TINTS = ["#ffd8d8", "#d8f0ff", "#fff2b3", "#dcf5d0", "#ecdcff", "#ffe0c2", "#d0f5f0", "#f5d0e8"]


def mark_place(grid: str) -> tuple[float, float, float]:
    """A mark's letter on a cell of ``grid``: (its height, and how far right of and below the
    cell's centre its baseline's middle is), in cells: in the lower right corner, or on a
    triangle (no corner room inside) at its centre, smaller."""
    return (0.3, 0.0, 0.1) if grid == "triangle" else (0.38, 0.28, 0.3)


def mark_ink(fill: str) -> str:
    """The ink of a mark on a cell filled with ``fill`` (#rrggbb): white on the dark tile colours."""
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return MARK_INK_ON_DARK if 0.299 * r + 0.587 * g + 0.114 * b < 120 else MARK_INK


def tint(colour: int) -> str:
    """The light fill of a board colour (1 = A, ...) on a cell no tile covers."""
    return TINTS[(colour - 1) % len(TINTS)]


def title_size(cell: float) -> float:
    """The titles' font size (px) over pictures of ``cell`` px a cell; at least 14 px."""
    return max(14.0, cell * 0.7)


def per_row(n: int, rows: int, cols: int) -> int:
    """How many tilings go side by side: two always (check-unique's pair),
    more in a roughly square grid."""
    return n if n <= 2 else max(1, min(n, math.ceil(math.sqrt(n * rows / cols))))
