"""Small helpers shared by the encodings."""

import numpy as np


def aux(m: int, k: int, top: int) -> tuple[np.ndarray, int]:
    """A fresh (m, k) array of auxiliary variables after ``top``."""
    return (top + 1 + np.arange(m * k, dtype=np.int64)).reshape(m, k), top + m * k


def clause(*cols) -> np.ndarray:
    """Stack equally shaped literal arrays into one clause block (rows = clauses)."""
    return np.stack([np.asarray(c).ravel() for c in cols], axis=1)


def pairs(lits: np.ndarray) -> np.ndarray:
    """All binary clauses (-a, -b) over each row: the pairwise at-most-one."""
    i, j = np.triu_indices(lits.shape[1], 1)
    return clause(-lits[:, i], -lits[:, j])
