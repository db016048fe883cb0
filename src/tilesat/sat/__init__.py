"""SAT: placements compiled to CNF, and the solvers that read it.

Exactly-one encodings (:mod:`.encodings`, a registry), the formula
(:mod:`.formula`), the packing formula and its objective
(:mod:`.objectives`), symmetry breaking by lex-leader clauses
(:mod:`.symbreak`), solvers behind one facade (:mod:`.solvers`), the user's
own encodings and solvers (:mod:`.plugins`), DIMACS files (:mod:`.dimacs`),
DRAT proofs (:mod:`.proof`) and the validated SAT options (:mod:`.options`).

May import :mod:`tilesat.certify`, :mod:`tilesat.model`,
:mod:`tilesat.running` and :mod:`tilesat.errors`.
"""
