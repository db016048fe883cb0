"""One incremental SAT solver asked many questions under assumptions, in this process.

Every question ``explain`` asks (is this tile in every tiling? does this clue
set leave one tiling? which cells cannot all be covered?) is one solve of the
same formula under other assumptions, and most take a few conflicts.  A solve
here runs in slices of conflicts with no SIGINT handler of PySAT's
(:func:`tilesat.sat.solvers.solve_quietly`): between slices the run's deadline is
checked, and a Ctrl-C surfaces as ``KeyboardInterrupt`` once the slice
returns.  Slices are sized from the time the last one took, so that a stop
is never more than about :data:`SLICE_SECONDS` away; unlike the search's
solver (:class:`tilesat.sat.solvers.PysatSolver`), nothing moves to a child
process, so the unsatisfiable cores (``core()``) stay available.
"""

from __future__ import annotations

import time

import numpy as np
from pysat.solvers import Solver

from ..running.control import deadline, sigint_held
from ..errors import TilesatError
from ..sat.formula import Formula
from ..sat.solvers import _raw_add_clause, solve_quietly

#: The solvers ``explain`` takes: those with conflict budgets, cores and no SIGINT handler.
ASSUMING_SOLVERS = ("cadical195", "glucose4", "minisat22")
DEFAULT = "cadical195"
#: The longest a slice of conflicts should take (seconds): the bound on a stop's delay.
SLICE_SECONDS = 0.2
FIRST_BUDGET, MIN_BUDGET, MAX_BUDGET = 1_000, 50, 1_000_000


class AssumingSolver:
    """A PySAT solver holding one formula, solving under assumptions until the deadline.

    ``top`` is the highest variable in use; :meth:`new_var` hands out the next
    ones (activation literals of clauses that are switched off later)."""

    def __init__(self, formula: Formula | None = None, name: str = DEFAULT, top: int = 0):
        if name not in ASSUMING_SOLVERS:
            raise TilesatError(f"explain's solver must be one of {', '.join(ASSUMING_SOLVERS)} (got {name!r})")
        self.name = name
        self._solver = Solver(name=name)
        self._add = _raw_add_clause(name, self._solver.solver)
        self.top = top
        self.calls = 0
        self.conflict_budget = FIRST_BUDGET
        self._status: bool | None = None
        self._model: np.ndarray | None = None
        self._assumptions: list[int] = []
        if formula is not None:
            self.add_formula(formula)

    def add_formula(self, formula: Formula) -> None:
        formula = formula.cnf()  # no native at-most constraints here
        limit = deadline()
        formula.add_to(self._add, lambda done: limit.check())
        self.top = max(self.top, formula.nvars)

    def add_clause(self, clause) -> None:
        self._add([int(x) for x in clause])

    def new_var(self) -> int:
        self.top += 1
        return self.top

    def set_phases(self, literals) -> None:
        self._solver.set_phases([int(x) for x in literals])

    def solve(self, assumptions=()) -> bool:
        """Whether the formula is satisfiable under ``assumptions``; raises
        :class:`~tilesat.running.control.TimedOut` at the deadline (the solver stays usable)."""
        assumptions = [int(a) for a in assumptions]
        limit = deadline()
        self.calls += 1
        while True:
            limit.check()
            self._solver.conf_budget(self.conflict_budget)
            t0 = time.perf_counter()
            status = solve_quietly(self._solver, self.name, assumptions)
            took = time.perf_counter() - t0
            if took > SLICE_SECONDS:  # a slice too long, answered or not: the next ones shorter
                self.conflict_budget = max(MIN_BUDGET, self.conflict_budget // 2)
            if status is not None:
                self._status = bool(status)
                # read now: a clause added after the answer puts CaDiCaL out of its satisfied state
                self._model = np.asarray(self._solver.get_model() or [], dtype=np.int64) if status else None
                self._assumptions = assumptions
                return self._status
            if took < SLICE_SECONDS / 4:  # no answer within a short slice: a longer one next
                self.conflict_budget = min(MAX_BUDGET, self.conflict_budget * 2)

    def model(self) -> np.ndarray:
        """The last model, as an array of literals (index v - 1 holds variable v's)."""
        if self._model is None:
            raise TilesatError("no model: the last answer was not satisfiable")
        return self._model

    def true_set(self, upto: int) -> np.ndarray:
        """Variables 1..upto true in the last model (a boolean array, index v - 1)."""
        model = self.model()[:upto]
        return model > 0

    def core(self) -> list[int]:
        """The assumptions the last unsatisfiable answer rests on (a subset of them)."""
        if self.name.startswith("cadical"):  # what PySAT's own solve would have noted (solve_quietly skips it)
            self._solver.solver.prev_assumps = self._assumptions
        return [int(x) for x in (self._solver.get_core() or [])]

    def close(self) -> None:
        if self._solver is not None:
            with sigint_held():  # freed once, whole (see tilesat.sat.solvers.PysatSolver.close)
                solver, self._solver = self._solver, None
                solver.delete()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
