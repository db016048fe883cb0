"""Bitwise (binary) encoding (Frisch et al.; Prestwich's "binary").

x_i forces the B = ceil(log2 n) auxiliary bits to spell i, so two true x's
would need two spellings.  Plus the at-least-one clause.  For n <= 2 it is
the pairwise encoding (as in ``pysat.card``, whose sizes it matches).
"""

import numpy as np

from . import pairwise
from ._util import aux


def exactly_one(lits, top):
    m, n = lits.shape
    if n <= 2:
        return pairwise.exactly_one(lits, top)
    nbits = (n - 1).bit_length()
    b, top = aux(m, nbits, top)
    # bit j of i, as a sign: +1 if set, -1 if not; shape (n, nbits)
    sign = np.where((np.arange(n)[:, None] >> np.arange(nbits)[None, :]) & 1, 1, -1)
    # clause (-x_i or sign * b_j) for every i, j
    neg_x = np.repeat(-lits, nbits, axis=1)  # (m, n * nbits)
    bits = (b[:, None, :] * sign[None, :, :]).reshape(m, n * nbits)
    return [lits, np.stack([neg_x.ravel(), bits.ravel()], axis=1)], top
