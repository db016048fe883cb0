"""Native cardinality: each cell's at-most-one as one constraint the solver
takes as it is (PySAT's minicard, gluecard3, gluecard4: ``add_atmost``),
plus the cell's at-least-one clause.

``compile_formula`` keeps these constraints beside the clauses
(``Formula.atmost``, one row per cell); the piece-count rules go there too,
as "at most k" (``:A..B``'s lower bound as "at most n - A of the negations").
No auxiliary variables.

``exactly_one`` below is what the constraints stand for where clauses are
needed (``Formula.cnf``: solvers without ``add_atmost``, ``ext:`` solvers,
DIMACS export, the fuzzer's check of each encoding alone): pairwise.  Why
pairwise and not a smaller one with auxiliaries (seqcounter): it has no
auxiliary variables, so the expanded formula has the same variables and the
same models (counts, projections and decoded models stay as they are), and
its binaries propagate exactly what the native constraint propagates (both
arc-consistent); the formula builder drops the binaries repeated between
cells.  Its cost is n(n-1)/2 binaries a cell: on open boards with many
candidates a CNF encoding chosen for them (``auto``) is the better choice.
"""

from . import pairwise

#: A formula compiled with this encoding keeps at-most constraints beside its clauses.
NATIVE = True


def exactly_one(lits, top):
    """The CNF expansion of a native exactly-one (pairwise)."""
    return pairwise.exactly_one(lits, top)
