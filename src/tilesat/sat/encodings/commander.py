"""Commander encoding (Klieber & Kwon 2007), groups of 3, exactly-one form.

The literals are split into groups of 3 (the last may be smaller); each
group gets a commander c: pairwise at-most-one inside the group, c implies
some literal of the group, every literal implies c; then exactly one
commander, recursively, down to pairwise exactly-one for 3 or fewer.
"""

import numpy as np

from ._util import aux, clause, pairs

GROUP = 3


def exactly_one(lits, top):
    m, n = lits.shape
    if n <= GROUP:
        return ([lits, pairs(lits)] if n > 1 else [lits]), top
    full, rest = divmod(n, GROUP)
    c, top = aux(m, full + (rest > 0), top)
    # All full groups at once (a Python loop over groups was most of the
    # compile time on 40x40 L-Panel boards), group-major, each group's
    # pairwise clauses followed by its "x -> c" clauses: the same clauses in
    # the same order as the loop gave, since solvers' times on pentomino
    # puzzles swing tenfold with clause order.
    grp = lits[:, : full * GROUP].reshape(m, full, GROUP).transpose(1, 0, 2).reshape(full * m, GROUP)
    cmd = c[:, :full].T.reshape(-1)
    inside = pairs(grp).reshape(full, -1, 2)
    implied = clause(-grp, np.repeat(cmd[:, None], GROUP, axis=1)).reshape(full, -1, 2)
    blocks = [clause(-cmd, *[grp[:, j] for j in range(GROUP)]),
              np.concatenate([inside, implied], axis=1).reshape(-1, 2)]
    if rest:
        last, cl = lits[:, full * GROUP :], c[:, full]
        blocks += ([pairs(last)] if rest > 1 else []) + [clause(-cl, *[last[:, j] for j in range(rest)]),
                                                         clause(-last, np.repeat(cl[:, None], rest, axis=1))]
    more, top = exactly_one(c, top)
    return blocks + more, top
