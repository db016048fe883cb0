"""Ladder encoding (Gent & Nightingale 2004), exactly-one form.

Auxiliary y_1..y_{n-1} form a ladder (y_{i+1} -> y_i); x_i is channelled
to "y_{i-1} and not y_i".  The channelling alone forces exactly one x_i, so
no separate at-least-one clause is needed.  ``pysat.card``'s ladder is not
used: it adds a slack variable and 3 more clauses per constraint.
"""

from ._util import aux, clause


def exactly_one(lits, top):
    m, n = lits.shape
    if n == 1:
        return [lits], top
    y, top = aux(m, n - 1, top)
    x = lits
    blocks = [
        clause(-y[:, 1:], y[:, :-1]),  # ladder validity (n - 2 clauses)
        clause(x[:, 0], y[:, 0]),  # x_1 <-> not y_1
        clause(-x[:, 0], -y[:, 0]),
        clause(-x[:, n - 1], y[:, n - 2]),  # x_n <-> y_{n-1}
        clause(x[:, n - 1], -y[:, n - 2]),
        clause(-x[:, 1 : n - 1], y[:, 0 : n - 2]),  # x_i <-> y_{i-1} and not y_i
        clause(-x[:, 1 : n - 1], -y[:, 1 : n - 1]),
        clause(x[:, 1 : n - 1], -y[:, 0 : n - 2], y[:, 1 : n - 1]),
    ]
    return blocks, top
