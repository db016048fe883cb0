"""2-product encoding (Chen 2010), at-least-one clause plus product AMO.

The n literals are laid out in a p x q grid (p = ceil(sqrt n),
q = ceil(n / p)); x at (i, j) implies row variable u_i and column variable
v_j, and at-most-one is required of the u's and of the v's, recursively,
down to the pairwise encoding for 4 or fewer.
"""

import math

import numpy as np

from ._util import aux, clause, pairs

PAIRWISE_BELOW = 5


def at_most_one(lits, top):
    m, n = lits.shape
    if n < PAIRWISE_BELOW:
        return ([pairs(lits)] if n > 1 else []), top
    p = math.isqrt(n - 1) + 1  # ceil(sqrt(n))
    q = -(-n // p)
    u, top = aux(m, p, top)
    v, top = aux(m, q, top)
    k = np.arange(n)
    blocks = [clause(-lits, u[:, k // q]), clause(-lits, v[:, k % q])]
    for sub in (u, v):
        more, top = at_most_one(sub, top)
        blocks += more
    return blocks, top


def exactly_one(lits, top):
    blocks, top = at_most_one(lits, top)
    return [lits] + blocks, top
