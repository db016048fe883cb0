"""What a notebook shows for tilesat's objects (the ``_repr_svg_`` and
``_repr_html_`` of :class:`~tilesat.model.instance.Instance`,
:class:`~tilesat.model.tiling.Tiling`, :class:`~tilesat.questions.solve.Result`
and :class:`~tilesat.questions.count.CountResult` call these through
:mod:`tilesat.model.display`):

- an instance: its pieces and its board unsolved, as the puzzle is printed;
- a tiling: its tiles on their own (the cells they cover, nothing else);
- a search's result: its verdict and its tilings side by side under their titles
  (the differing cells of two dotted), or the certificate's weights;
- a count: the sentence ``tilesat count`` prints.
"""

from __future__ import annotations

import html

import numpy as np

from ..model.board import Board
from ..model.instance import Instance
from ..model.tiling import Tile, Tiling, differing_cells
from .pictures import tiling_svg, weights_svg
from .words import count_text

#: Pixels a cell in a notebook's pictures: smaller for big boards, so a picture stays about 600 px wide.
NOTEBOOK_WIDTH = 600


def _cell(width_in_cells: float) -> float:
    return max(4.0, min(24.0, NOTEBOOK_WIDTH / max(width_in_cells, 1)))


def _svg(drawing) -> str:
    """The SVG text without its XML declaration (it goes inside HTML too)."""
    text = drawing.as_svg()
    return text.split("?>", 1)[1].lstrip() if text.startswith("<?xml") else text


def instance_svg(instance: Instance) -> str:
    return _svg(tiling_svg(instance, [None], cell=_cell(instance.board.open.shape[-1])))


def instance_html(instance: Instance) -> str:
    board = instance.board
    where = "" if board.grid == "square" else f" {board.grid}"
    wrap = "" if board.wrap == "none" else f", wrapping ({board.wrap})"
    head = (f"<p><b>pieces:</b> {html.escape(instance.pieces_spec())}; a{where} board of "
            f"{board.area:,} open cells{wrap}</p>")
    return head + instance_svg(instance)


def _own_board(tiling: Tiling) -> tuple[Instance, Tiling]:
    """An instance whose board is exactly the tiling's cells, and the tiling moved
    onto it (its cells shifted to start at 0)."""
    dims = 3 if tiling.grid == "cube" else 2
    cells = np.array([c for t in tiling.tiles for c in t.cells], dtype=np.int64).reshape(-1, dims)
    if not len(cells):
        return Instance(Board(np.ones((1,) * dims, dtype=bool), "none", tiling.grid), ()), tiling
    low = cells.min(axis=0)
    if tiling.grid == "triangle" and (low[0] + low[1]) % 2:
        low[1] -= 1  # a shift by an even row + column keeps each triangle pointing its way
    open_mask = np.zeros(tuple(cells.max(axis=0) - low + 1), dtype=bool)
    open_mask[tuple((cells - low).T)] = True
    moved = Tiling(tuple(Tile(t.piece, tuple(tuple(int(v) for v in np.subtract(c, low)) for c in t.cells), t.colours)
                         for t in tiling.tiles), tiling.grid)
    return Instance(Board(open_mask, "none", tiling.grid), ()), moved


def tiling_repr_svg(tiling: Tiling) -> str:
    instance, moved = _own_board(tiling)
    return _svg(tiling_svg(instance, [moved], cell=_cell(instance.board.open.shape[-1])))


def _headline(result) -> str:
    verdict = result.verdict
    if verdict == "multiple" and len(result.tilings) == 2:
        return f"multiple: two tilings, differing at {len(differing_cells(*result.tilings))} cells (dotted)"
    words = {"unique": "unique: exactly one tiling", "solved": "solved: a tiling",
             "none": "none: no tiling exists", "unknown": "unknown: the time limit passed first"}
    line = words.get(verdict, verdict)
    if verdict == "none" and result.reason:
        line += f" ({result.reason})"
    return line


def result_html(result) -> str:
    head = f"<p><b>{html.escape(_headline(result))}</b></p>"
    instance = result.instance
    if instance is None:
        return head
    cell = _cell(instance.board.open.shape[-1] * max(1, min(2, len(result.tilings))))
    if result.tilings:
        marked = differing_cells(*result.tilings) if len(result.tilings) == 2 else None
        titles = [f"tiling {k}" for k in range(1, len(result.tilings) + 1)] if len(result.tilings) > 1 else None
        return head + _svg(tiling_svg(instance, result.tilings, marked, cell, titles))
    if result.certificate is not None:
        return head + _svg(weights_svg(instance, result.certificate.weights, cell))
    return head + instance_svg(instance)


def count_html(result) -> str:
    return f"<p>{html.escape(count_text(result))}</p>"
