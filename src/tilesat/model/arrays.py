"""numpy's ``unique`` without its first-call cost: ``np.unique`` asks
``np.ma.is_masked`` of its argument, which imports ``numpy.ma`` (20-50 ms,
more than a small count's search) the first time a process calls it.
Sorting does the same work here."""

from __future__ import annotations

import numpy as np


def unique(values) -> np.ndarray:
    """``np.unique(values)``: the distinct values, sorted (flattened, as numpy's)."""
    a = np.sort(np.asarray(values).ravel())
    return a[np.r_[True, a[1:] != a[:-1]]] if a.size else a


def unique_rows(rows) -> np.ndarray:
    """``np.unique(rows, axis=0)``: the distinct rows of a 2-D array, in lexicographic order."""
    rows = np.asarray(rows)
    if rows.shape[0] == 0 or rows.shape[1] == 0:  # no rows, or every row the empty one
        return rows[:1]
    s = rows[np.lexsort(rows.T[::-1])]
    return s[np.r_[True, np.any(s[1:] != s[:-1], axis=1)]]


def rows_at(indptr: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Positions, in the CSR array behind ``indptr``, of the rows ``ids``, row after row."""
    lens = indptr[ids + 1] - indptr[ids]
    return np.repeat(indptr[ids] - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()), dtype=np.int64)
