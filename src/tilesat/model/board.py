"""The board: a box of open ('.') and blocked ('#') cells of one grid, maybe wrapping.

An open cell may also be *optional* (``+``: a piece may cover it, at most
once, or it stays empty) and may have a *colour* (1..26, written ``A``..``Z``;
0 is the default colour, which any piece cell may cover): which piece
colours may lie on which board colours is the instance's
(:attr:`tilesat.model.instance.Instance.pairs`), as in BurrTools.

The grid (:mod:`tilesat.model.grids`: square, triangle, hex, cube) says what a
cell is; the board is the grid's bounding box as a boolean array (2D, or 3D
layers x rows x cols on the cube grid).  Cells are numbered row-major over
the box (``r * cols + c`` on the planar grids); the board alone turns cells
into these flat indices and back (:meth:`Board.index`, :meth:`Board.cell`,
:meth:`Board.cells`).

``wrap`` (square grid only) is one of ``none``, ``rows`` (each row wraps
around: the left and right edges join, a cylinder), ``columns`` (each column
wraps: top and bottom join) or ``both`` (a torus).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import TilesatError, did_you_mean
from .grids import get_grid

WRAPS = ("none", "rows", "columns", "both")


@dataclass(frozen=True, eq=False)
class Board:
    open: np.ndarray  # bool, shape (rows, cols); True = a cell to cover
    wrap: str = "none"
    grid: str = "square"  # a name in tilesat.model.grids.GRIDS
    #: bool, the shape of ``open``: open cells that may stay empty (None: none may)
    optional: np.ndarray | None = None
    #: uint8, the shape of ``open``: each cell's colour, 0 the default (None: all default)
    colour: np.ndarray | None = None
    _open_index: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        if self.wrap not in WRAPS:
            raise TilesatError(f"unknown wrap {self.wrap!r}{did_you_mean(str(self.wrap), WRAPS)}; use one of {', '.join(WRAPS)}")
        lattice = get_grid(self.grid)
        object.__setattr__(self, "grid", lattice.name)
        if self.wrap != "none" and lattice.name != "square":
            raise TilesatError(f"wrap {self.wrap!r}: only square boards wrap (this one is {lattice.name})")
        grid = np.array(self.open, dtype=bool)  # a copy: the caller keeps its array
        if grid.ndim != lattice.dims or grid.size == 0:
            raise TilesatError("the board is empty: it needs at least one row of '.' and '#'")
        grid.setflags(write=False)
        object.__setattr__(self, "open", grid)
        for name, dtype in (("optional", bool), ("colour", np.uint8)):
            extra = getattr(self, name)
            if extra is not None:
                extra = np.array(extra, dtype=dtype)
                if extra.shape != grid.shape:
                    raise TilesatError(f"the board's {name} cells: shape {extra.shape}, the board's is {grid.shape}")
                extra = np.where(grid, extra, 0).astype(dtype)  # only open cells are optional or coloured
                extra.setflags(write=False)
                if not extra.any():
                    extra = None
            object.__setattr__(self, name, extra)
        if lattice.name == "triangle" and self.optional is not None and self.colour is not None \
                and (self.optional & (self.colour == COLOUR_LETTERS.index("V") + 1)).any():
            raise TilesatError("colour V cannot be optional on the triangle grid: 'v' is a down triangle there")
        object.__setattr__(self, "_open_index", np.flatnonzero(grid.ravel()))

    @classmethod
    def from_rows(cls, rows: list[str], wrap: str = "none") -> "Board":
        # one pass in C over the text: a 3000x3000 board parses in 0.05 s instead of 5 s
        width = len(rows[0]) if rows else 0
        text = "".join(rows).encode("utf-32-le")
        grid = np.frombuffer(text, dtype=np.uint32).reshape(len(rows), width) == ord(".")
        return cls(grid, wrap)

    @classmethod
    def rectangle(cls, rows: int, cols: int, wrap: str = "none") -> "Board":
        return cls(np.ones((rows, cols), dtype=bool), wrap)

    @property
    def lattice(self):
        """The :class:`tilesat.model.grids.Grid` of this board."""
        return get_grid(self.grid)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.open.shape)

    @property
    def rows(self) -> int:
        return self.open.shape[-2]

    @property
    def cols(self) -> int:
        return self.open.shape[-1]

    @property
    def layers(self) -> int:
        """Layers of a cube board (1 on the planar grids)."""
        return self.open.shape[0] if self.open.ndim == 3 else 1

    @property
    def ncells(self) -> int:
        """Cells in the box, open or not: flat indices are 0..ncells-1."""
        return int(self.open.size)

    @property
    def is_square(self) -> bool:
        return self.grid == "square"

    def index(self, cell) -> int:
        """The flat index of a cell (a tuple of the grid's coordinates)."""
        return int(np.ravel_multi_index(tuple(cell), self.open.shape))

    def cell(self, index: int) -> tuple:
        return tuple(int(x) for x in np.unravel_index(int(index), self.open.shape))

    def cells(self, indices) -> list[tuple]:
        """Cells of an array of flat indices, as tuples."""
        idx = np.asarray(indices, dtype=np.int64)
        return list(zip(*(a.tolist() for a in np.unravel_index(idx, self.open.shape)))) if idx.size else []

    def contains(self, cell) -> bool:
        return len(cell) == self.open.ndim and all(0 <= x < n for x, n in zip(cell, self.open.shape))

    @property
    def wraps_rows(self) -> bool:
        """Column indices are taken modulo the width."""
        return self.wrap in ("rows", "both")

    @property
    def wraps_columns(self) -> bool:
        """Row indices are taken modulo the height."""
        return self.wrap in ("columns", "both")

    @property
    def has_colours(self) -> bool:
        return self.colour is not None

    @property
    def exact(self) -> bool:
        """Every open cell must be covered, exactly once: what the engines
        and checks built for exact covers (areas, colourings, the LP) need."""
        return self.optional is None

    @property
    def optional_cells(self) -> np.ndarray:
        """Flat indices of the open cells that may stay empty, ascending."""
        return np.zeros(0, np.int64) if self.optional is None else np.flatnonzero(self.optional.ravel())

    def colour_of(self, index: int) -> int:
        return 0 if self.colour is None else int(self.colour.ravel()[index])

    def same_cells(self, image: np.ndarray) -> bool:
        """Does the cell map ``image`` (flat index -> flat index) keep open,
        optional and coloured cells what they are (a symmetry of the board)?"""
        for mask in (self.open, self.optional, self.colour):
            if mask is not None and not np.array_equal(mask.ravel()[image], mask.ravel()):
                return False
        return True

    @property
    def open_cells(self) -> np.ndarray:
        """Flat indices of the open cells, ascending."""
        return self._open_index

    @property
    def area(self) -> int:
        return int(self._open_index.size)

    def is_open(self, *cell) -> bool:
        return self.contains(cell) and bool(self.open[cell])

    def neighbours(self, *cell):
        """Edge-adjacent cells (honouring wrap), open or not, without repeats."""
        if not self.is_square:
            return [n for n in self.lattice.neighbours(cell) if self.contains(n)]
        r, c = cell
        out = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if self.wraps_columns:
                nr %= self.rows
            if self.wraps_rows:
                nc %= self.cols
            if 0 <= nr < self.rows and 0 <= nc < self.cols and (nr, nc) != (r, c) and (nr, nc) not in out:
                out.append((nr, nc))
        return out

    def region_labels(self) -> np.ndarray:
        """Connected components of open cells (edge adjacency, with wrap):
        for each flat cell index, the smallest flat index of its component
        (blocked cells keep their own index).

        Array-wide union-find: every edge hooks the larger of its two roots
        under the smaller, then pointer jumping flattens the trees, until no
        edge joins two roots.  Each round only lowers roots, so it ends; on
        boards it takes a handful of rounds (a 200x200 serpentine: 3) and is
        6-9x faster than a breadth-first search in Python, which the quick
        checks before every solve noticed on 40x40 boards."""
        if not self.is_square:
            u, v = self.lattice.edges(self.open.shape)
            flat = self.open.ravel()
            keep = flat[u] & flat[v]
            return _union_roots(self.ncells, u[keep], v[keep])
        R, C = self.rows, self.cols
        grid = self.open
        index = np.arange(R * C).reshape(R, C)
        pairs = [(index[:, :-1], index[:, 1:], grid[:, :-1] & grid[:, 1:]),
                 (index[:-1, :], index[1:, :], grid[:-1, :] & grid[1:, :])]
        if self.wraps_rows and C > 1:
            pairs.append((index[:, -1], index[:, 0], grid[:, -1] & grid[:, 0]))
        if self.wraps_columns and R > 1:
            pairs.append((index[-1, :], index[0, :], grid[-1, :] & grid[0, :]))
        u = np.concatenate([a[m] for a, _, m in pairs])
        v = np.concatenate([b[m] for _, b, m in pairs])
        return _union_roots(R * C, u, v)

    def regions(self) -> list[list[tuple]]:
        """Connected components of open cells, each a sorted list of cells,
        in the order of their first cell."""
        cells = self._open_index
        label = self.region_labels()[cells]
        order = np.argsort(label, kind="stable")  # cells ascending within a component
        cuts = np.flatnonzero(np.diff(label[order])) + 1
        return [self.cells(part) for part in np.split(cells[order], cuts)] if cells.size else []

    def cell_chars(self) -> dict[tuple, str]:
        """The characters of the open cells that are not plain '.': ``+``
        (optional), a colour's letter (uppercase, or lowercase when optional)."""
        out = {}
        for index in np.flatnonzero((self.optional if self.optional is not None else False)
                                    | (self.colour if self.colour is not None else 0) > 0).tolist():
            out[self.cell(index)] = cell_char(bool(self.optional is not None and self.optional.ravel()[index]),
                                              self.colour_of(index))
        return out

    def rows_text(self) -> list[str]:
        """The board's layout as text lines (the instance file's grid)."""
        chars = self.cell_chars() if (self.optional is not None or self.colour is not None) else None
        if not self.is_square:
            return self.lattice.format_layout(self.open, chars, keep_parity=True) if chars else \
                self.lattice.format_layout(self.open)
        if chars:
            return self.lattice.format_layout(self.open, chars)
        return ["".join("." if x else "#" for x in row) for row in self.open]


#: colour k (1..26) is written with the k-th letter: uppercase on cells that must be covered
COLOUR_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OPTIONAL = "+"


def colour_name(colour: int) -> str:
    return COLOUR_LETTERS[colour - 1]


def cell_char(optional: bool, colour: int) -> str:
    """An open cell's character in the text format: '.', '+', 'A'..'Z', 'a'..'z'."""
    if not colour:
        return OPTIONAL if optional else "."
    letter = colour_name(colour)
    return letter.lower() if optional else letter


def char_cell(ch: str) -> tuple[bool, int] | None:
    """(optional, colour) of an open cell's character; None for any other character."""
    if ch == ".":
        return False, 0
    if ch == OPTIONAL:
        return True, 0
    if ch.isascii() and ch.isalpha():
        return ch.islower(), COLOUR_LETTERS.index(ch.upper()) + 1
    return None


def _union_roots(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """For each of n nodes, the smallest node of its component given edges (u, v)."""
    root = np.arange(n)
    while True:
        ru, rv = root[u], root[v]
        apart = ru != rv
        if not apart.any():
            return root
        ru, rv = ru[apart], rv[apart]
        np.minimum.at(root, np.maximum(ru, rv), np.minimum(ru, rv))
        while True:
            up = root[root]
            if np.array_equal(up, root):
                break
            root = up
