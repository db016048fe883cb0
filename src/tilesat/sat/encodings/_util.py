"""Small helpers shared by the encodings."""

from functools import cache

import numpy as np


def aux(m: int, k: int, top: int) -> tuple[np.ndarray, int]:
    """A fresh (m, k) array of auxiliary variables after ``top``."""
    return (top + 1 + np.arange(m * k, dtype=np.int64)).reshape(m, k), top + m * k


def clause(*cols) -> np.ndarray:
    """Stack equally shaped literal arrays into one clause block (rows = clauses)."""
    return np.stack([np.asarray(c).ravel() for c in cols], axis=1)


@cache
def _upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    # cached: commander asks for the pairs of 3 columns thousands of times a board
    return np.triu_indices(n, 1)


def pairs(lits: np.ndarray) -> np.ndarray:
    """All binary clauses (-a, -b) over each row: the pairwise at-most-one."""
    i, j = _upper_pairs(lits.shape[1])
    return np.stack([-lits[:, i].ravel(), -lits[:, j].ravel()], axis=1)
