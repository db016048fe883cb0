"""Tilings: the answer, as tiles (a piece name and the cells it covers)."""

from __future__ import annotations

from dataclasses import dataclass

from .placements import Placements


@dataclass(frozen=True, order=True)
class Tile:
    piece: str
    cells: tuple[tuple[int, int], ...]  # sorted (row, col), 0-based from top-left


@dataclass(frozen=True)
class Tiling:
    tiles: tuple[Tile, ...]

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

    def to_json(self) -> list[dict]:
        return [{"piece": t.piece, "cells": [list(c) for c in t.cells]} for t in self.tiles]

    @classmethod
    def from_json(cls, data) -> "Tiling":
        return cls(tuple(sorted(Tile(d["piece"], tuple(sorted(tuple(c) for c in d["cells"]))) for d in data)))

    @classmethod
    def from_placements(cls, placements: Placements, chosen) -> "Tiling":
        tiles = [Tile(placements.piece_of(i).name, tuple(placements.coords_of(i))) for i in chosen]
        return cls(tuple(sorted(tiles)))


def tiling_from_model(placements: Placements, model) -> tuple[Tiling, list[int]]:
    """The tiling a model describes, and the placement indices it chose."""
    P = len(placements)
    chosen = [lit - 1 for lit in model if 0 < lit <= P]
    return Tiling.from_placements(placements, chosen), chosen


def differing_cells(a: Tiling, b: Tiling) -> set[tuple[int, int]]:
    """Cells whose covering tile is not the same in both tilings."""
    tile_a = {c: t for t in a for c in t.cells}
    tile_b = {c: t for t in b for c in t.cells}
    return {c for c in tile_a.keys() | tile_b.keys() if tile_a.get(c) != tile_b.get(c)}
