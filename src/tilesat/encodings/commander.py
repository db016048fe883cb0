"""Commander encoding (Klieber & Kwon 2007), groups of 3, exactly-one form.

The literals are split into groups of 3 (the last may be smaller); each
group gets a commander c: pairwise at-most-one inside the group, c implies
some literal of the group, every literal implies c; then exactly one
commander, recursively, down to pairwise exactly-one for 3 or fewer.
"""

from ._util import aux, clause, pairs

GROUP = 3


def exactly_one(lits, top):
    m, n = lits.shape
    if n <= GROUP:
        return ([lits, pairs(lits)] if n > 1 else [lits]), top
    groups = [lits[:, i : i + GROUP] for i in range(0, n, GROUP)]
    c, top = aux(m, len(groups), top)
    blocks = []
    for g, grp in enumerate(groups):
        if grp.shape[1] > 1:
            blocks.append(pairs(grp))
        blocks.append(clause(-c[:, g], *[grp[:, j] for j in range(grp.shape[1])]))
        blocks.append(clause(-grp, c[:, [g] * grp.shape[1]]))
    more, top = exactly_one(c, top)
    return blocks + more, top
