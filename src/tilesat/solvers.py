"""SAT solvers, in a registry: every PySAT solver by its PySAT name.

A solver here is anything with ``add_formula``, ``add_clause``, ``solve``,
``model`` and ``close``; :class:`PysatSolver` wraps ``pysat.solvers.Solver``.
Adding another kind of solver is one factory in ``SOLVERS``.
"""

from __future__ import annotations

from functools import cache

from pysat.solvers import Solver, SolverNames

from .errors import TilesatError

DEFAULT_SOLVER = "cadical195"


class PysatSolver:
    """One incremental PySAT solver."""

    def __init__(self, name: str):
        self.name = name
        self._solver = Solver(name=name)

    def add_formula(self, formula) -> None:
        # the backend object's own add_clause: one Python layer less per clause
        formula.add_to(self._solver.solver.add_clause)

    def add_clause(self, clause) -> None:
        self._solver.add_clause(list(clause))

    def solve(self, assumptions=()) -> bool:
        try:
            return bool(self._solver.solve(assumptions=list(assumptions)))
        except Exception as e:  # pysat turns SIGINT into its own error type
            if "interrupt" in str(e).lower():
                raise KeyboardInterrupt from e
            raise

    def model(self) -> list[int]:
        return self._solver.get_model() or []

    def close(self) -> None:
        self._solver.delete()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _pysat_names() -> list[str]:
    return [k for k, v in vars(SolverNames).items() if isinstance(v, tuple)]


@cache
def _works(name: str) -> bool:
    # Some names need optional packages (cryptosat: pycryptosat); list only
    # the ones this installation can run.
    try:
        Solver(name=name).delete()
        return True
    except Exception:
        return False


SOLVERS = {name: (lambda n=name: PysatSolver(n)) for name in _pysat_names()}


def solver_names() -> list[str]:
    """Names of the solvers that work here, the default first."""
    names = [n for n in SOLVERS if n not in _pysat_names() or _works(n)]
    return sorted(names, key=lambda n: (n != DEFAULT_SOLVER, n))


def _canonical(name: str) -> str | None:
    if name in SOLVERS:
        return name
    for canon in _pysat_names():
        if name.lower() in getattr(SolverNames, canon):
            return canon
    return None


def check_solver_name(name: str) -> str:
    """The registry name for ``name`` (PySAT aliases accepted), or a clear error."""
    canon = _canonical(name)
    if canon is None or (canon in _pysat_names() and not _works(canon)):
        raise TilesatError(f"unknown solver {name!r}; choose one of: {', '.join(solver_names())}")
    return canon


def make_solver(name: str = DEFAULT_SOLVER):
    return SOLVERS[check_solver_name(name)]()
