"""Tilings: the answer, as tiles (a piece name and the cells it covers)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .display import show
from .placements import Placements


@dataclass(frozen=True, order=True)
class Tile:
    piece: str
    cells: tuple[tuple[int, ...], ...]  # sorted cells of the grid: (row, col), (layer, row, col) on cubes
    #: a coloured piece's colour on each of ``cells`` (which way round it lies); () for an uncoloured piece
    colours: tuple[int, ...] = ()


@dataclass(frozen=True)
class Tiling:
    tiles: tuple[Tile, ...]
    #: The grid the cells are of (for drawing the tiling on its own); not part of what the tiling is.
    grid: str = field(default="square", compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.tiles)

    def __iter__(self):
        return iter(self.tiles)

    def key(self) -> frozenset:
        """What makes two tilings the same: the set of tiles."""
        return frozenset(self.tiles)

    def owner(self) -> dict[tuple[int, int], int]:
        """Cell -> index of the tile covering it."""
        return {cell: i for i, t in enumerate(self.tiles) for cell in t.cells}

    def _repr_svg_(self) -> str:
        """The tiles on their own, as an SVG picture (a notebook shows it): :mod:`tilesat.model.display`."""
        return show("tiling_repr_svg", self)

    def to_json(self) -> list[dict]:
        return [{"piece": t.piece, "cells": [list(c) for c in t.cells], **({"colours": list(t.colours)} if t.colours else {})}
                for t in self.tiles]

    @classmethod
    def from_json(cls, data) -> "Tiling":
        return cls(tuple(sorted(_tile_from_json(d) for d in data)))

    @classmethod
    def from_placements(cls, placements: Placements, chosen) -> "Tiling":
        # One gather for all tiles' cells: on a 40x40 board a loop over the
        # tiles cost as much as both solver calls of check-unique.
        chosen = np.asarray(chosen, dtype=np.int64)
        start, end = placements.indptr[chosen], placements.indptr[chosen + 1]
        sizes = end - start
        bounds = np.cumsum(sizes)
        # position j of the output is cell j - (bounds before its tile) of that tile
        flat = placements.cells[np.repeat(start - (bounds - sizes), sizes) + np.arange(int(sizes.sum()))]
        cells = placements.instance.board.cells(flat)  # each placement's cells are sorted already
        names = [rule.piece.name for rule in placements.instance.rules]
        if placements.colours is not None:
            tiles = [Tile(names[k], tuple(cells[b - n : b]), placements.colours_of(p))
                     for p, k, b, n in zip(chosen.tolist(), placements.rule[chosen].tolist(), bounds.tolist(), sizes.tolist())]
        else:
            tiles = [Tile(names[k], tuple(cells[b - n : b]))
                     for k, b, n in zip(placements.rule[chosen].tolist(), bounds.tolist(), sizes.tolist())]
        return cls(tuple(sorted(tiles, key=_order)), placements.instance.board.grid)


def _order(tile: Tile) -> tuple:
    return (tile.piece, tile.cells, tile.colours)  # Tile's own order, without the dataclass's slow __lt__


def _tile_from_json(d: dict) -> Tile:
    pairs = sorted(zip((tuple(c) for c in d["cells"]), d.get("colours") or [0] * len(d["cells"])))
    colours = tuple(c for _, c in pairs)
    return Tile(d["piece"], tuple(c for c, _ in pairs), colours if any(colours) else ())


def tiling_from_model(placements: Placements, model) -> tuple[Tiling, list[int]]:
    """The tiling a model describes, and the placement indices it chose."""
    lits = np.fromiter(model, dtype=np.int64)  # a 10^6-variable model: one pass in C
    chosen = (lits[(lits > 0) & (lits <= len(placements))] - 1).tolist()
    return Tiling.from_placements(placements, chosen), chosen


def differing_cells(a: Tiling, b: Tiling) -> set[tuple[int, int]]:
    """Cells whose covering tile is not the same in both tilings."""
    tile_a = {c: t for t in a for c in t.cells}
    tile_b = {c: t for t in b for c in t.cells}
    return {c for c in tile_a.keys() | tile_b.keys() if tile_a.get(c) != tile_b.get(c)}
