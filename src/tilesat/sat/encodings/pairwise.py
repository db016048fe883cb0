"""Pairwise (binomial): one at-least-one clause and a binary clause per pair.

No auxiliary variables; n(n-1)/2 + 1 clauses.  When two placements share
several cells the same binary clause arises at each; the formula builder
removes the repeats (see ``formula.compile_formula``).
"""

from ._util import pairs


def exactly_one(lits, top):
    blocks = [lits]
    if lits.shape[1] > 1:
        blocks.append(pairs(lits))
    return blocks, top
