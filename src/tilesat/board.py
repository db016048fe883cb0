"""The board: a grid of open ('.') and blocked ('#') cells, maybe wrapping.

``wrap`` is one of ``none``, ``rows`` (each row wraps around: the left and
right edges join, a cylinder), ``columns`` (each column wraps: top and bottom
join) or ``both`` (a torus).  Cells are numbered ``r * cols + c``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import TilesatError

WRAPS = ("none", "rows", "columns", "both")


@dataclass(frozen=True, eq=False)
class Board:
    open: np.ndarray  # bool, shape (rows, cols); True = a cell to cover
    wrap: str = "none"
    _open_index: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        if self.wrap not in WRAPS:
            raise TilesatError(f"unknown wrap {self.wrap!r}; use one of {', '.join(WRAPS)}")
        grid = np.array(self.open, dtype=bool)  # a copy: the caller keeps its array
        if grid.ndim != 2 or grid.size == 0:
            raise TilesatError("the board is empty: it needs at least one row of '.' and '#'")
        grid.setflags(write=False)
        object.__setattr__(self, "open", grid)
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
    def rows(self) -> int:
        return self.open.shape[0]

    @property
    def cols(self) -> int:
        return self.open.shape[1]

    @property
    def wraps_rows(self) -> bool:
        """Column indices are taken modulo the width."""
        return self.wrap in ("rows", "both")

    @property
    def wraps_columns(self) -> bool:
        """Row indices are taken modulo the height."""
        return self.wrap in ("columns", "both")

    @property
    def open_cells(self) -> np.ndarray:
        """Flat indices of the open cells, ascending."""
        return self._open_index

    @property
    def area(self) -> int:
        return int(self._open_index.size)

    def is_open(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols and bool(self.open[r, c])

    def neighbours(self, r: int, c: int):
        """Edge-adjacent cells (honouring wrap), open or not, without repeats."""
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
        root = np.arange(R * C)
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

    def regions(self) -> list[list[tuple[int, int]]]:
        """Connected components of open cells, each a sorted list of (row, col),
        in the order of their first cell."""
        cells = self._open_index
        label = self.region_labels()[cells]
        order = np.argsort(label, kind="stable")  # cells ascending within a component
        cuts = np.flatnonzero(np.diff(label[order])) + 1
        return [list(zip(*map(np.ndarray.tolist, np.divmod(part, self.cols))))
                for part in np.split(cells[order], cuts)] if cells.size else []

    def rows_text(self) -> list[str]:
        return ["".join("." if x else "#" for x in row) for row in self.open]
