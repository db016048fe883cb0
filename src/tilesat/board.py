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
        return cls(np.array([[ch == "." for ch in row] for row in rows], dtype=bool), wrap)

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

    def regions(self) -> list[list[tuple[int, int]]]:
        """Connected components of open cells (edge adjacency, with wrap).

        A search over flat indices with the neighbours worked out inline:
        about 6x faster than calling :meth:`neighbours` per cell, which the
        quick checks before every solve notice on 40x40 boards."""
        R, C = self.rows, self.cols
        wrap_r, wrap_c = self.wraps_columns, self.wraps_rows
        open_flat = self.open.ravel().tolist()
        seen = [False] * (R * C)
        out = []
        for start in self._open_index.tolist():
            if seen[start]:
                continue
            seen[start] = True
            comp, stack = [], [start]
            while stack:
                x = stack.pop()
                comp.append(x)
                r, c = divmod(x, C)
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if wrap_r:
                        nr %= R
                    elif not 0 <= nr < R:
                        continue
                    if wrap_c:
                        nc %= C
                    elif not 0 <= nc < C:
                        continue
                    y = nr * C + nc
                    if open_flat[y] and not seen[y]:
                        seen[y] = True
                        stack.append(y)
            out.append(sorted(divmod(x, C) for x in comp))
        return out

    def rows_text(self) -> list[str]:
        return ["".join("." if x else "#" for x in row) for row in self.open]
