"""Quick impossibility checks, run before every solve.

Each returns a sentence saying why the instance has no tiling, or None when
it found no obstruction (which proves nothing: the solver decides then).
"""

from __future__ import annotations

import numpy as np

from ..model.instance import Instance
from ..model.placements import Placements


def _sums_bitset(limit: int, items) -> int:
    """Bit k set iff k <= limit is a sum with each (size, lo, hi) used lo..hi times."""
    mask = (1 << (limit + 1)) - 1
    reach = 1
    for size, lo, hi in items:
        hi = min(hi, limit // size)
        if lo > hi:
            return 0
        reach = (reach << (lo * size)) & mask
        extra, chunk = hi - lo, 1
        while extra > 0:  # binary splitting: hi - lo optional copies in log steps
            take = min(chunk, extra)
            reach |= (reach << (take * size)) & mask
            extra -= take
            chunk *= 2
    return reach


def area_check(instance: Instance) -> str | None:
    """Can piece sizes and counts add up to the number of open cells?"""
    area = instance.board.area
    items = [(r.piece.size, r.min, r.max) for r in instance.rules]
    if not (_sums_bitset(area, items) >> area) & 1:
        sizes = ", ".join(f"{r.name}={r.piece.size}" + ("" if not r.bounded else f" x{r.count_text()}") for r in instance.rules)
        return f"no combination of the allowed pieces has exactly {area} cells (sizes: {sizes})"
    return None


def region_check(instance: Instance) -> str | None:
    """Does every connected region have an area some piece sizes can make?

    Only valid when every piece is connected (then a tile stays in one region).
    """
    if not all(r.piece.is_connected() for r in instance.rules):
        return None
    board = instance.board
    firsts, areas = np.unique(board.region_labels()[board.open_cells], return_counts=True)
    if firsts.size < 2:
        return None  # the area check covers the whole board
    sizes = sorted({r.piece.size for r in instance.rules if r.max > 0})
    biggest = int(areas.max())
    reach = _sums_bitset(biggest, [(s, 0, biggest) for s in sizes])
    for first, area in zip(firsts.tolist(), areas.tolist()):
        if not (reach >> area) & 1:
            return (
                f"the region of {area} open cells containing {board.cell(first)} cannot be made "
                f"from pieces of size {', '.join(map(str, sizes))}"
            )
    return None


def placement_check(placements: Placements) -> str | None:
    """Is every open cell coverable, and does every required piece fit often enough?"""
    instance = placements.instance
    board = instance.board
    coverage = placements.coverage()
    uncovered = board.open_cells[coverage[board.open_cells] == 0]
    if board.optional is not None:
        uncovered = uncovered[~board.optional.ravel()[uncovered]]  # optional cells may stay empty
    if uncovered.size:
        return f"no piece fits on cell {board.cell(int(uncovered[0]))}"
    for k, rule in enumerate(instance.rules):
        n = int((placements.rule == k).sum())
        if rule.min > n:
            return f"piece {rule.name} must be used at least {rule.min} times but fits in only {n} places"
    return None


def obstruction(instance: Instance, placements: Placements | None = None) -> str | None:
    """The first quick reason why the instance has no tiling, if any."""
    for check in ((area_check, region_check) if instance.board.exact else ()):  # both count every open cell
        reason = check(instance)
        if reason:
            return reason
    if placements is not None:
        return placement_check(placements)
    return None
