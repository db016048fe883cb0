"""Placements: every orientation of every piece at every position that fits.

A placement is one piece put down on a set of open cells.  They are numbered
0..P-1 in a fixed order (by rule, orientation, then position), and placement
``i`` becomes SAT variable ``i + 1``.  Generation is vectorised with numpy:
one array operation per (piece, orientation), so a 256x256 board is a few
dozen array operations, not a Python loop over cells.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..errors import TilesatError
from ..running.control import deadline
from .instance import Instance
from .footprint import check_memory
from .arrays import unique_rows


@dataclass(frozen=True, eq=False)
class Placements:
    """All placements of an instance, in CSR form.

    ``rule[i]`` is the index of placement i's rule in ``instance.rules``;
    its cells (flat indices of the board, :meth:`Board.index`, sorted) are
    ``cells[indptr[i]:indptr[i + 1]]``.
    """

    instance: Instance
    rule: np.ndarray  # int32, (P,)
    indptr: np.ndarray  # int64, (P + 1,)
    cells: np.ndarray  # int32, (indptr[-1],)
    #: uint8 beside ``cells``: the colour of the piece cell on each cell (None: no piece is coloured)
    colours: np.ndarray | None = None

    def colours_of(self, i: int) -> tuple[int, ...]:
        """The colours of placement i's piece cells, in the order of its cells (() when uncoloured)."""
        if self.colours is None:
            return ()
        out = tuple(self.colours[self.indptr[i]: self.indptr[i + 1]].tolist())
        return out if any(out) else ()

    def __len__(self) -> int:
        return int(self.rule.size)

    def cells_of(self, i: int) -> np.ndarray:
        return self.cells[self.indptr[i] : self.indptr[i + 1]]

    def coords_of(self, i: int) -> list[tuple]:
        return self.instance.board.cells(self.cells_of(i))

    def piece_of(self, i: int):
        return self.instance.rules[int(self.rule[i])].piece

    def of_rule(self, k: int) -> np.ndarray:
        """Indices of the placements of rule ``k`` (contiguous, ascending)."""
        return np.flatnonzero(self.rule == k)

    def coverage(self) -> np.ndarray:
        """How many placements cover each cell (flat index)."""
        board = self.instance.board
        return np.bincount(self.cells, minlength=board.ncells)

    def candidates_per_cell(self) -> float:
        """How many placements cover an open cell, on average (what
        ``--encoding auto`` decides by)."""
        board = self.instance.board
        return float(self.coverage()[board.open_cells].sum()) / max(board.area, 1)

    def by_cell(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR from cells to placements: ``(cell_indptr, placement_ids)``.

        The placements covering cell x are ``ids[cell_indptr[x]:cell_indptr[x+1]]``,
        ascending.  Computed once (a sort of every placement cell: the formula, the
        look-ahead and the sweep each ask) and read-only, being shared.
        """
        return self._by_cell

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_by_cell"}  # a worker computes its own

    @functools.cached_property
    def _by_cell(self) -> tuple[np.ndarray, np.ndarray]:
        owner = np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.indptr))
        order = np.lexsort((owner, self.cells))
        counts = self.coverage()
        indptr = np.zeros(counts.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        ids = owner[order]
        indptr.flags.writeable = ids.flags.writeable = False
        return indptr, ids


def _offsets(shape) -> tuple[np.ndarray, np.ndarray]:
    arr = np.array(shape, dtype=np.int32)
    return arr[:, 0], arr[:, 1]


def generate_placements(instance: Instance) -> Placements:
    """Every placement of every rule's piece on the instance's open cells.

    Refuses (one-line :class:`TilesatError`) an instance whose placements and
    formula would not fit in memory, before allocating them
    (:func:`tilesat.model.footprint.check_memory`).
    """
    check_memory(instance)
    board = instance.board
    if not board.is_square:
        return _generate_on_grid(instance)
    R, C = board.rows, board.cols
    if R * C >= 2**31:
        raise TilesatError(f"board too large: {R} x {C} cells; cells are numbered with 32-bit integers")
    open_flat = board.open.ravel()
    colouring = _Colouring(instance)
    rule_parts, cell_parts, colour_parts = [], [], []
    for k, rule in enumerate(instance.rules):
        if rule.max == 0:
            continue  # a piece that may not be used has no placements
        seen_rows, seen_colours = [], []
        for shape, colours in colouring.orientations(rule):
            deadline().check()
            dr, dc = _offsets(shape)
            h, w = int(dr.max()) + 1, int(dc.max()) + 1
            # Anchor ranges: everywhere on a wrapped axis, else where it fits.
            # int32 throughout (cells are int32): the (anchors x cells) array
            # is the largest temporary, twice as big in int64.
            rs = np.arange(R if board.wraps_columns else R - h + 1, dtype=np.int32)
            cs = np.arange(C if board.wraps_rows else C - w + 1, dtype=np.int32)
            if rs.size == 0 or cs.size == 0:
                continue
            rr = rs[:, None, None] + dr[None, None, :]
            cc = cs[None, :, None] + dc[None, None, :]
            if board.wraps_columns:
                rr = rr % R
            if board.wraps_rows:
                cc = cc % C
            flat = (rr * C + cc).reshape(-1, len(shape))
            flat = colouring.keep(flat[open_flat[flat].all(axis=1)], colours)
            if (board.wraps_columns and h > R) or (board.wraps_rows and w > C):
                # Wrapped far enough to overlap itself: not a placement.
                flat = flat[(np.diff(np.sort(flat, axis=1), axis=1) != 0).all(axis=1)]
            seen_rows.append(flat)
            seen_colours.append(colouring.rows(colours, flat.shape[0]))
        if not seen_rows:
            continue
        block = np.concatenate(seen_rows)
        del seen_rows  # before the sort: keeps one copy of the rule's rows, not two
        if colouring.on:
            block, paint = colouring.sort(block, np.concatenate(seen_colours))
        else:
            block.sort(axis=1)
        if board.wrap != "none":
            # On a cylinder or torus two orientations/anchors can give the
            # same cell set (a domino on a 2-wide cylinder); keep one.
            if colouring.on:
                both = unique_rows(np.hstack([block, paint.astype(block.dtype)]))
                block, paint = np.ascontiguousarray(both[:, :block.shape[1]]), both[:, block.shape[1]:].astype(np.uint8)
            else:
                block = unique_rows(block)
        rule_parts.append(np.full(block.shape[0], k, dtype=np.int32))
        cell_parts.append(block)
        if colouring.on:
            colour_parts.append(paint)

    return _assemble(instance, rule_parts, cell_parts, colour_parts if colouring.on else None)


class _Colouring:
    """Coloured pieces (:attr:`Piece.colours`): their orientations carry
    their cells' colours, a placement is kept where every piece cell's colour
    fits the board cell's (:meth:`Instance.fits`), and placements record the
    colour on each cell.  Without coloured pieces, all of it is skipped."""

    def __init__(self, instance: Instance):
        self.on = instance.coloured_pieces
        if self.on:
            self.fits = instance.fits()
            board = instance.board
            self.board_colour = board.colour.ravel() if board.colour is not None else np.zeros(board.ncells, np.uint8)

    def orientations(self, rule):
        if not self.on:
            return [(shape, None) for shape in rule.piece.orientations(rule.orient)]
        return rule.piece.coloured_orientations(rule.orient)

    def keep(self, flat: np.ndarray, colours) -> np.ndarray:
        if not self.on or not any(colours):
            return flat
        piece = np.asarray(colours, np.int64)
        return flat[self.fits[piece[None, :], self.board_colour[flat]].all(axis=1)]

    def rows(self, colours, n: int):
        if not self.on:
            return None
        return np.broadcast_to(np.asarray(colours, np.uint8), (n, len(colours)))

    @staticmethod
    def sort(block: np.ndarray, paint: np.ndarray):
        order = np.argsort(block, axis=1, kind="stable")
        return np.take_along_axis(block, order, axis=1), np.take_along_axis(paint, order, axis=1).astype(np.uint8)


def _assemble(instance: Instance, rule_parts: list, cell_parts: list, colour_parts: list | None = None) -> Placements:
    if rule_parts:
        rule = np.concatenate(rule_parts)
        sizes = np.concatenate([np.full(b.shape[0], b.shape[1], dtype=np.int64) for b in cell_parts])
        # one rule: its rows as they are (a view), not a copy
        cells = cell_parts[0].ravel() if len(cell_parts) == 1 else np.concatenate([b.ravel() for b in cell_parts])
    else:
        rule = np.zeros(0, dtype=np.int32)
        sizes = np.zeros(0, dtype=np.int64)
        cells = np.zeros(0, dtype=np.int32)
    indptr = np.zeros(rule.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    colours = None
    if colour_parts is not None:
        colours = np.concatenate([b.ravel() for b in colour_parts]) if colour_parts else np.zeros(0, np.uint8)
    return Placements(instance, rule, indptr, cells, colours)


def _generate_on_grid(instance: Instance) -> Placements:
    """Placements on the triangle, hex and cube grids (no wrap): every
    orientation at every translation of the grid that keeps it in the box
    (on the triangle grid, translations keep up triangles up) and on open
    cells."""
    board = instance.board
    lattice = board.lattice
    shape = np.array(board.shape)
    if board.ncells >= 2**31:
        raise TilesatError(f"board too large: {board.ncells} cells; cells are numbered with 32-bit integers")
    open_flat = board.open.ravel()
    colouring = _Colouring(instance)
    rule_parts, cell_parts, colour_parts = [], [], []
    for k, rule in enumerate(instance.rules):
        if rule.max == 0:
            continue
        blocks, paints = [], []
        for orientation, colours in colouring.orientations(rule):
            deadline().check()
            off = np.array(orientation, dtype=np.int64)  # (cells, dims)
            # anchors a with 0 <= a + off < shape (a triangle shape may start at column 1)
            low = -off.min(axis=0)
            room = shape - off.max(axis=0) - low
            if (room <= 0).any():
                continue
            anchors = np.indices(tuple(room)).reshape(len(room), -1).T + low  # (anchors, dims)
            keep = np.fromiter((lattice.translation_ok(tuple(a)) for a in anchors[:, :2].tolist()), bool,
                               len(anchors)) if lattice.name == "triangle" else slice(None)
            anchors = anchors[keep]
            where = anchors[:, None, :] + off[None, :, :]  # (anchors, cells, dims)
            flat = np.ravel_multi_index(tuple(np.moveaxis(where, -1, 0)), board.shape).astype(np.int32)
            flat = colouring.keep(flat[open_flat[flat].all(axis=1)], colours)
            blocks.append(flat)
            paints.append(colouring.rows(colours, flat.shape[0]))
        if blocks:
            block = np.concatenate(blocks)
            if colouring.on:
                block, paint = colouring.sort(block, np.concatenate(paints))
                colour_parts.append(paint)
            else:
                block.sort(axis=1)
            rule_parts.append(np.full(block.shape[0], k, dtype=np.int32))
            cell_parts.append(block)
    return _assemble(instance, rule_parts, cell_parts, colour_parts if colouring.on else None)
