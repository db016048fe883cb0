"""Sequential counter (Sinz 2005) for k = 1, plus the at-least-one clause.

Auxiliary s_i means "one of x_1..x_i is true".  For n <= 2 it is the
pairwise encoding (as in ``pysat.card``, whose sizes it matches).  Our own
vectorised code, not ``pysat.card.CardEnc``: one call per cell into pysat
costs more than the whole numpy batch (``scripts/bench_compile.py``).
"""

from . import pairwise
from ._util import aux, clause


def exactly_one(lits, top):
    m, n = lits.shape
    if n <= 2:
        return pairwise.exactly_one(lits, top)
    s, top = aux(m, n - 1, top)
    x = lits
    blocks = [
        x,  # at least one
        clause(-x[:, 0], s[:, 0]),
        clause(-x[:, 1 : n - 1], s[:, 1 : n - 1]),
        clause(-s[:, 0 : n - 2], s[:, 1 : n - 1]),
        clause(-x[:, 1 : n - 1], -s[:, 0 : n - 2]),
        clause(-x[:, n - 1], -s[:, n - 2]),
    ]
    return blocks, top
