"""A worked plugin encoding: Heule's nested at-most-one, plus the at-least-one clause.

Use it without installing anything::

    tilesat solve board.txt --encoding examples/my_encoding.py:exactly_one
    tilesat compare board.txt --encodings pairwise,examples/my_encoding.py:exactly_one
    tilesat fuzz --encodings examples/my_encoding.py:exactly_one --examples 500

The protocol (the built-in encodings' own, ``encodings/README.md``):
``exactly_one(lits, top)`` gets ``lits``, an int64 array of shape (m, n),
m independent constraints "exactly one of these n literals" (one per board
cell: the placements covering it), and ``top``, the highest variable in use.
It returns ``(blocks, top)``: a list of 2-D integer arrays, each row one
clause of that width, and the new highest variable (auxiliaries are
numbered from ``top + 1``).  Working on all m rows at once keeps a board of
10^5 cells at a few numpy calls per clause pattern.

Heule's encoding: at-most-one of x1..xn, for n above 4, is at-most-one of
(x1, x2, x3, y) and at-most-one of (-y, x4, ..., xn) with a fresh y, which
says "one of x1..x3 is true"; pairwise from 4 literals down.  For n >= 3:
3n - 6 clauses and (n - 3) / 2 auxiliaries, rounded down, where pairwise has
n(n-1)/2 (plus the at-least-one clause for both).
"""

import numpy as np

PAIRWISE_UP_TO = 4


def pairwise_at_most_one(lits):
    """Every clause (-a, -b) over each row (``lits`` may hold negative literals)."""
    i, j = np.triu_indices(lits.shape[1], 1)
    return np.stack([-lits[:, i].ravel(), -lits[:, j].ravel()], axis=1)


def exactly_one(lits, top):
    m, n = lits.shape
    blocks = [lits]  # at least one: the row itself is the clause
    rest = lits
    while rest.shape[1] > PAIRWISE_UP_TO:
        y = (top + 1 + np.arange(m, dtype=np.int64))[:, None]  # one fresh variable per row
        top += m
        blocks.append(pairwise_at_most_one(np.hstack([rest[:, :3], y])))
        rest = np.hstack([-y, rest[:, 3:]])
    if rest.shape[1] > 1:
        blocks.append(pairwise_at_most_one(rest))
    return blocks, top
