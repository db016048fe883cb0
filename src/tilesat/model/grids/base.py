"""The grid protocol (:class:`Grid`) and the helpers the grids share."""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from ...errors import TilesatError

Cell = tuple
CellMap = Callable[[Cell], Cell]


class Grid:
    name: str = ""
    dims: int = 2
    orientations: tuple[str, ...] = ("free", "one-sided", "fixed")
    #: the orientation rule that lets a piece turn over (its mirror image)
    reflect_orient: str = "free"
    rotations: int = 1
    #: unit vectors of the lattice's edge steps used by neighbours(), for
    #: the board's region labels: (delta, condition on the cell or None)
    edge_steps: tuple = ()

    # -- cells -------------------------------------------------------------
    def neighbours(self, cell: Cell) -> list[Cell]:
        raise NotImplementedError

    def symmetries(self) -> list[CellMap]:
        raise NotImplementedError

    def orient_maps(self, mode: str) -> list[CellMap]:
        """The point maps an orientation rule allows, identity first."""
        sym = self.symmetries()
        if mode == "fixed":
            return sym[:1]
        if mode == "one-sided":
            return sym[: self.rotations]
        if mode == self.reflect_orient:
            return sym
        if mode in self.orientations:  # cube: 'free' turns in space only
            return sym[: self.rotations]
        raise TilesatError(f"unknown orientation {mode!r} on the {self.name} grid; "
                           f"use one of {', '.join(self.orientations)}")

    def translation_ok(self, delta: Cell) -> bool:
        return True

    def normalize(self, cells) -> tuple:
        cells = list(cells)
        low = tuple(min(c[i] for c in cells) for i in range(self.dims))
        return tuple(sorted(tuple(a - b for a, b in zip(c, low)) for c in cells))

    def mirror_map(self) -> CellMap:
        """One reflection (the first symmetry after the rotations)."""
        return self.symmetries()[self.rotations]

    # -- boards ------------------------------------------------------------
    def edges(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Flat index pairs (u, v) of adjacent cells inside a box of this shape."""
        index = np.arange(int(np.prod(shape))).reshape(shape)
        coords = np.indices(shape).reshape(len(shape), -1).T
        us, vs = [], []
        for delta, cond in self.edge_steps:
            target = coords + np.array(delta)
            ok = ((target >= 0) & (target < np.array(shape))).all(axis=1)
            if cond is not None:
                ok &= cond(coords)
            us.append(index.ravel()[ok])
            vs.append(np.ravel_multi_index(tuple(target[ok].T), shape))
        return np.concatenate(us), np.concatenate(vs)

    def parse_layout(self, lines: list[tuple[int, str]]) -> np.ndarray:
        """The open mask of a board from its text lines ``(lineno, text)``."""
        return self.parse_layout_chars(lines) != "#"

    def parse_layout_chars(self, lines: list[tuple[int, str]], special: str = "") -> np.ndarray:
        """Each cell's character (an array of one-character strings over the
        board's box): '#' blocked, '.' an open cell, or one of ``special``
        (other characters of open cells: '+', colours)."""
        raise NotImplementedError

    def format_layout(self, open_mask: np.ndarray, labels: dict | None = None, keep_parity: bool = False) -> list[str]:
        """The board as text; ``labels`` (cell -> one character) replaces
        the open cells' characters (a tiling in the terminal).
        ``keep_parity``: text that is read back (the triangle grid keeps
        its columns' parity even where every open cell is labelled)."""
        raise NotImplementedError

    def parse_shape(self, name: str, text: str) -> list[Cell]:
        """A custom shape ``ROW/ROW/...`` ('#' = a cell, '.' = none) in the
        grid's own coordinates: row r, column c (cube: layers joined by '|')."""
        cells = _rows_cells(name, text.split("/"))
        return cells

    def format_shape(self, cells) -> str:
        return _cells_rows(cells)

    def cell_polygon(self, cell: Cell) -> list[tuple[float, float]]:
        raise NotImplementedError

    def layer(self, cell: Cell) -> int:
        return 0


def _rows_cells(name: str, rows: list[str], prefix: tuple = ()) -> list[Cell]:
    if any(set(row) - {"#", "."} for row in rows):
        raise TilesatError(f"shape {name}: rows may contain only '#' and '.', got {'/'.join(rows)!r}")
    return [prefix + (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]


def _cells_rows(cells) -> str:
    cells = set(cells)
    h = 1 + max(r for r, _ in cells)
    w = 1 + max(c for _, c in cells)
    return "/".join("".join("#" if (r, c) in cells else "." for c in range(w)) for r in range(h))


def signed_permutations(dims: int) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
    """(permutation, signs, determinant) of every signed permutation matrix."""
    out = []
    for perm in itertools.permutations(range(dims)):
        parity = sum(1 for i in range(dims) for j in range(i + 1, dims) if perm[i] > perm[j]) % 2
        for signs in itertools.product((1, -1), repeat=dims):
            det = (-1) ** parity * int(np.prod(signs))
            out.append((perm, signs, det))
    return out


def planar_layout_rows(lines: list[tuple[int, str]], allowed: str) -> list[tuple[int, str]]:
    """The layout's rows (trailing blank lines dropped); a blank line inside
    the layout or a character outside ``allowed`` is an error."""
    rows = [(n, t.rstrip()) for n, t in lines]
    while rows and not rows[-1][1]:
        rows.pop()
    for n, t in rows:
        if not t:
            raise TilesatError(f"line {n}: blank line inside the board; the board must be one block")
        bad = set(t) - set(allowed)
        if bad:
            raise TilesatError(f"line {n}: unexpected {sorted(bad)[0]!r} in the board; use {allowed!r}")
    return rows


def _dedent(lines: list[str], step: int = 1) -> list[str]:
    """Lines without the indentation they all share (a multiple of ``step``)."""
    cut = min((len(t) - len(t.lstrip(" ")) for t in lines if t.strip()), default=0)
    cut -= cut % step
    return [t[cut:] for t in lines]


def trim_chars(cells: dict[Cell, str], dims: int) -> np.ndarray:
    """:func:`trim_mask` of cells' characters ('#' blocked, also where no cell is given)."""
    if not cells:
        raise TilesatError("the board is empty: it has no cells")
    low = [min(c[i] for c in cells) for i in range(dims)]
    high = [max(c[i] for c in cells) for i in range(dims)]
    chars = np.full([h - lo + 1 for lo, h in zip(low, high)], "#", dtype="<U1")
    for cell, ch in cells.items():
        chars[tuple(a - lo for a, lo in zip(cell, low))] = ch
    return chars


def trim_mask(cells_open: dict[Cell, bool], dims: int) -> np.ndarray:
    """A mask over the bounding box of the given cells (others blocked)."""
    if not cells_open:
        raise TilesatError("the board is empty: it has no cells")
    low = [min(c[i] for c in cells_open) for i in range(dims)]
    high = [max(c[i] for c in cells_open) for i in range(dims)]
    mask = np.zeros([h - lo + 1 for lo, h in zip(low, high)], dtype=bool)
    for cell, is_open in cells_open.items():
        if is_open:
            mask[tuple(a - lo for a, lo in zip(cell, low))] = True
    return mask
