"""Ambiguous regions: the unsettled cells in connected groups, each a board of its own.

Every tiling holds the backbone, so the cells it leaves (the *unsettled*
cells) are covered by placements lying wholly inside them, and such a
placement lies in one connected group of them (a disconnected piece joins the
groups it spans into one region).  Without piece counts each region is then
tiled independently of the others: the board's tilings are the products of
the regions' tilings, and a region's ways are counted on a board of its own
cells alone.  A piece count links the regions where its placements reach
into more than one (once the backbone's copies are taken off its bounds);
then the regions are counted together, as one board.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.board import Board
from ..model.instance import INF, Instance, PieceRule
from ..model.placements import Placements


@dataclass
class Region:
    """A connected group of unsettled cells (flat indices of the board, ascending)."""

    cells: np.ndarray
    label: str = ""
    ways: int | None = None  # tilings of the region alone (None: not counted)
    exact: bool = False  # ways is exact (else a lower bound)
    how: str = ""  # how it was counted


@dataclass
class SubBoard:
    """Some of the board's cells as an instance of their own, cropped to their box
    where the grid allows (square, no wrap): ``offset`` maps its cells back."""

    instance: Instance
    cells: np.ndarray  # the original board's flat indices of its open cells
    offset: tuple[int, ...]

    def to_board(self, sub_cells) -> list[tuple]:
        """Cells of this sub-board (flat indices) as cells of the original board."""
        coords = self.instance.board.cells(np.asarray(sub_cells, dtype=np.int64))
        return [tuple(a + b for a, b in zip(cell, self.offset)) for cell in coords]

    def to_flat(self, board: Board, sub_cells) -> np.ndarray:
        cells = self.to_board(sub_cells)
        if not cells:
            return np.zeros(0, dtype=np.int64)
        return np.ravel_multi_index(tuple(np.array(cells).T), board.open.shape).astype(np.int64)


def unsettled_mask(placements: Placements, settled_placements) -> np.ndarray:
    """Open cells (flat, boolean over the whole box) no settled placement covers."""
    board = placements.instance.board
    mask = board.open.ravel().copy()
    for p in np.asarray(settled_placements, dtype=np.int64).tolist():
        mask[placements.cells_of(p)] = False
    return mask


def inside(placements: Placements, mask: np.ndarray) -> np.ndarray:
    """The placements lying wholly on cells of ``mask`` (flat boolean)."""
    hit = mask[placements.cells].astype(np.int64)
    per = np.add.reduceat(hit, placements.indptr[:-1]) if len(placements) else np.zeros(0, dtype=np.int64)
    return np.flatnonzero(per == np.diff(placements.indptr))


def find_regions(placements: Placements, unsettled: np.ndarray) -> tuple[list[Region], np.ndarray]:
    """The regions of the unsettled cells, in reading order of their first
    cell, and for each placement lying inside them its region's index (-1 elsewhere)."""
    board = placements.instance.board
    shape = board.open.shape
    labels = Board(unsettled.reshape(shape), board.wrap, board.grid).region_labels()
    within = inside(placements, unsettled)
    # a placement spanning two groups (a disconnected piece) joins them
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for p in within.tolist():
        roots = {root(int(labels[c])) for c in placements.cells_of(p).tolist()}
        if len(roots) > 1:
            low = min(roots)
            for r in roots:
                parent[r] = low
    cells = np.flatnonzero(unsettled)
    top = np.array([root(int(x)) for x in labels[cells].tolist()], dtype=np.int64)
    regions, index = [], {}
    for r in sorted(set(top.tolist())):  # roots are each group's smallest cell: reading order
        index[r] = len(regions)
        regions.append(Region(cells[top == r]))
    owner = np.full(len(placements), -1, dtype=np.int64)
    for p in within.tolist():
        owner[p] = index[root(int(labels[placements.cells[placements.indptr[p]]]))]
    return regions, owner


def adjusted_rules(instance: Instance, placements: Placements, settled) -> list[PieceRule]:
    """The rules for the unsettled cells: each count less the backbone's copies."""
    used = np.bincount(placements.rule[np.asarray(settled, dtype=np.int64)], minlength=len(instance.rules))
    rules = []
    for k, rule in enumerate(instance.rules):
        u = int(used[k])
        hi = rule.max if rule.max == INF else rule.max - u
        rules.append(PieceRule(rule.piece, rule.orient, max(0, rule.min - u), hi))
    return rules


def linking_rules(rules: list[PieceRule], placements: Placements, owner: np.ndarray) -> list[str]:
    """The counted pieces whose placements reach into more than one region: they link them."""
    linking = []
    for k, rule in enumerate(rules):
        if not rule.bounded:
            continue
        reach = set(owner[(placements.rule == k) & (owner >= 0)].tolist())
        if len(reach) > 1:
            linking.append(rule.name)
    return linking


def sub_board(instance: Instance, cells: np.ndarray, rules) -> SubBoard:
    """These open cells of the instance's board as an instance of their own."""
    board = instance.board
    mask = np.zeros(board.ncells, dtype=bool)
    mask[cells] = True
    mask = mask.reshape(board.open.shape)
    offset = (0,) * mask.ndim
    if board.is_square and board.wrap == "none":
        rows, cols = np.nonzero(mask)
        r0, c0 = int(rows.min()), int(cols.min())
        mask = mask[r0 : int(rows.max()) + 1, c0 : int(cols.max()) + 1]
        offset = (r0, c0)
    sub = Instance(Board(mask, board.wrap, board.grid), tuple(rules), instance.shapes, instance.source)
    return SubBoard(sub, np.asarray(cells, dtype=np.int64), offset)
