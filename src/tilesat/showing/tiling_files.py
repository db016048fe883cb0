"""Tilings written for other tools, the format chosen by the file's ending:

- ``.csv``: one row per covered cell, ``tiling,tile,piece,row,column`` (cube
  boards: ``tiling,tile,piece,layer,row,column``), numbered from 1, rows and
  columns from 0 at the top left as in the JSON: what a program or a
  spreadsheet's pivot table reads;
- ``.tsv``: each tiling as a grid of tile numbers separated by tabs (``#`` a
  blocked cell, nothing an empty one), a blank line between tilings (cube
  boards: a line ``--`` between layers): pasted into a spreadsheet it is the
  board;
- ``.txt``: each tiling as the letters tilesat prints when its output is
  piped, a blank line between tilings;
- anything else: JSON, one tiling per line (``Tiling.to_json``), as before.

Each tiling is written as it comes (:class:`TilingWriter`), so a listing
stopped early leaves the tilings found complete.
"""

from __future__ import annotations

import csv
import json
from typing import TextIO

from ..model.instance import Instance
from ..model.tiling import Tiling
from .render import plain_rows

#: The endings that choose a format other than JSON lines.
ENDINGS = {".csv": "csv", ".tsv": "tsv", ".txt": "text"}


def tiling_format(path) -> str:
    """``csv``, ``tsv``, ``text`` or ``json``, by the path's ending."""
    name = str(path).lower()
    return next((fmt for ending, fmt in ENDINGS.items() if name.endswith(ending)), "json")


class TilingWriter:
    """Writes tilings one after another to ``stream`` in ``fmt``."""

    def __init__(self, instance: Instance, stream: TextIO, fmt: str):
        self.instance, self.stream, self.fmt = instance, stream, fmt
        self.written = 0
        self.cube = instance.board.open.ndim == 3
        if fmt == "csv":
            self.csv = csv.writer(stream, lineterminator="\n")
            self.csv.writerow(["tiling", "tile", "piece"] + (["layer"] if self.cube else []) + ["row", "column"])

    def write(self, tiling: Tiling) -> None:
        self.written += 1
        k = self.written
        if self.fmt == "csv":
            for i, tile in enumerate(tiling.tiles, 1):
                for cell in tile.cells:
                    self.csv.writerow([k, i, tile.piece, *cell])
        elif self.fmt == "tsv":
            self.stream.write(("\n" if k > 1 else "") + "\n".join(tsv_rows(self.instance, tiling)) + "\n")
        elif self.fmt == "text":
            self.stream.write(("\n" if k > 1 else "") + "\n".join(plain_rows(self.instance, tiling)) + "\n")
        else:
            self.stream.write(json.dumps(tiling.to_json()) + "\n")


def tsv_rows(instance: Instance, tiling: Tiling) -> list[str]:
    """The tiling as rows of tab-separated tile numbers (from 1): ``#`` blocked, empty for a cell left open."""
    board = instance.board
    owner = tiling.owner()

    def row(cells) -> str:
        return "\t".join("#" if not board.open[cell] else str(owner[cell] + 1) if cell in owner else "" for cell in cells)

    if board.open.ndim == 3:
        layers, rows, cols = board.open.shape
        out = []
        for z in range(layers):
            if z:
                out.append("--")
            out += [row([(z, r, c) for c in range(cols)]) for r in range(rows)]
        return out
    rows, cols = board.open.shape
    return [row([(r, c) for c in range(cols)]) for r in range(rows)]


def write_tilings(instance: Instance, tilings: list[Tiling], path) -> None:
    """All of ``tilings`` to ``path`` in the format its ending chooses."""
    with open(path, "w", newline="") as stream:
        writer = TilingWriter(instance, stream, tiling_format(path))
        for tiling in tilings:
            writer.write(tiling)
