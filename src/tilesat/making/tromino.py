"""Deficient 2^n x 2^n boards tiled by L-trominoes.

:func:`golomb` is Golomb's divide-and-conquer construction, vectorised: at
each level every block of the current size is handled at once (one numpy
operation per quadrant), so n = 12 (16.7 million cells) takes seconds.  The
result is an int32 array of tile numbers (1..T), 0 at the hole.
:func:`check_tromino_array` is an independent, vectorised checker of such
arrays; :func:`write_numbers` prints them like the classic exercise.
"""

from __future__ import annotations

from typing import IO

import numpy as np

from ..errors import TilesatError
from ..model.tiling import Tile, Tiling


def golomb(n: int, hole: tuple[int, int]) -> np.ndarray:
    size = 1 << n
    hr0, hc0 = hole
    if not (0 <= hr0 < size and 0 <= hc0 < size):
        raise TilesatError(f"the hole {hole} is off the {size}x{size} board")
    ids = np.zeros((size, size), dtype=np.int32)
    br = np.zeros(1, dtype=np.int64)
    bc = np.zeros(1, dtype=np.int64)
    hr = np.array([hr0], dtype=np.int64)
    hc = np.array([hc0], dtype=np.int64)
    next_id = 1
    s = size
    while s >= 2:
        h = s // 2
        # the quadrant holding each block's hole; the central tromino covers
        # the centre cells of the other three quadrants
        qr = (hr - br) >= h
        qc = (hc - bc) >= h
        tile = next_id + np.arange(br.size, dtype=np.int64)
        next_id += br.size
        parts = []
        for dr in (0, 1):
            for dc in (0, 1):
                in_hole = (qr == bool(dr)) & (qc == bool(dc))
                cr = br + h - 1 + dr
                cc = bc + h - 1 + dc
                free = ~in_hole
                ids[cr[free], cc[free]] = tile[free]
                parts.append((br + dr * h, bc + dc * h, np.where(in_hole, hr, cr), np.where(in_hole, hc, cc)))
        br, bc, hr, hc = (np.concatenate(x) for x in zip(*parts))
        s = h
    return ids


def check_tromino_array(ids: np.ndarray, hole: tuple[int, int]) -> None:
    """Raise AssertionError unless ``ids`` is an L-tromino tiling of the board
    minus ``hole``: 0 exactly at the hole, every number on exactly three cells
    that lie in one 2x2 square."""
    size = ids.shape[0]
    flat = ids.ravel()
    zero = np.flatnonzero(flat == 0)
    if zero.size != 1 or divmod(int(zero[0]), size) != tuple(hole):
        raise AssertionError("the hole is not the only uncovered cell")
    ntiles = (size * size - 1) // 3
    counts = np.bincount(flat, minlength=ntiles + 1)
    if counts.size != ntiles + 1 or not (counts[1:] == 3).all():
        raise AssertionError("a tile number does not cover exactly three cells")
    order = np.argsort(flat, kind="stable")[1:]  # drop the hole
    r, c = np.divmod(order.reshape(ntiles, 3), size)
    if not ((r.max(1) - r.min(1) == 1) & (c.max(1) - c.min(1) == 1)).all():
        raise AssertionError("a tile is not an L-tromino")


def write_numbers(ids: np.ndarray, hole: tuple[int, int], out: IO[str]) -> None:
    """Numbers right-aligned in columns, ``X`` at the hole, one row at a time
    (a row of ints is formatted by one %-format, no per-cell Python objects kept)."""
    size = ids.shape[1]
    width = len(str(int(ids.max())))
    fmt = " ".join([f"%{width}d"] * size) + "\n"
    for r in range(ids.shape[0]):
        line = fmt % tuple(ids[r].tolist())
        if r == hole[0]:
            start = hole[1] * (width + 1)
            line = line[:start] + "X".rjust(width) + line[start + width :]
        out.write(line)


def tiling_from_ids(ids: np.ndarray) -> Tiling:
    """The numbered array as a :class:`Tiling` of L3 tiles (for the general
    checker and pictures; Python objects per tile, so for moderate N)."""
    order = np.argsort(ids.ravel(), kind="stable")[1:]  # drop the hole
    cols = ids.shape[1]
    return Tiling(tuple(sorted(Tile("L3", tuple(sorted(divmod(int(x), cols) for x in g))) for g in order.reshape(-1, 3))))


def ids_from_tiling(tiling: Tiling, size: int) -> np.ndarray:
    """Number the tiles of a tiling 1..T in its order; 0 where no tile is."""
    ids = np.zeros((size, size), dtype=np.int32)
    for number, tile in enumerate(tiling, 1):
        for r, c in tile.cells:
            ids[r, c] = number
    return ids
