"""SAT solvers, in a registry: every PySAT solver by its PySAT name.

A solver here is anything with ``add_formula(formula, progress=None)``,
``add_clause``, ``solve``, ``model`` and ``close``; :class:`PysatSolver` wraps ``pysat.solvers.Solver``.
Adding another kind of solver is one factory in ``SOLVERS``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import functools
from functools import cache

import pysolvers

from pysat.solvers import Solver, SolverNames

from .dimacs import read_answer, write_dimacs
from .errors import TilesatError

DEFAULT_SOLVER = "cadical195"
EXTERNAL_PREFIX = "ext:"


class PysatSolver:
    """One incremental PySAT solver."""

    def __init__(self, name: str):
        self.name = name
        self._solver = Solver(name=name)

    def add_formula(self, formula, progress=None) -> None:
        formula.add_to(_raw_add_clause(self.name, self._solver.solver), progress)

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


# The C function behind ``add_clause`` of the most used backends, and the
# attribute holding the solver handle.  Calling it directly skips two Python
# layers per clause: measured 35% less loading time (40x40 L-Panel board,
# 16k clauses; 10M-clause boards alike).  Other solvers use the backend's own
# ``add_clause``.  (A conflict found while adding shows up at solve time.)
_RAW_ADD = {"cadical195": ("cadical195_add_cl", "cadical"), "cadical153": ("cadical153_add_cl", "cadical"),
            "glucose4": ("glucose41_add_cl", "glucose"), "glucose42": ("glucose421_add_cl", "glucose"),
            "minisat22": ("minisat22_add_cl", "minisat")}


def _raw_add_clause(name: str, backend):
    try:
        function, handle = _RAW_ADD[name]
        return functools.partial(getattr(pysolvers, function), getattr(backend, handle))
    except (KeyError, AttributeError):
        return backend.add_clause


class ExternalSolver:
    """Any DIMACS solver run as a subprocess: ``ext:COMMAND``.

    The CNF file's path replaces ``{cnf}`` in COMMAND, or is appended; when
    COMMAND has ``{out}`` (MiniSat: ``ext:minisat {cnf} {out}``) the answer is
    read from that file, else from standard output.  Each ``solve`` writes the
    formula plus the clauses added since to a temporary directory, runs the
    command, reads its answer (``s``/``v`` lines; exit code 10 SAT, 20 UNSAT)
    and removes the directory."""

    def __init__(self, command: str, timeout: float | None = None):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv or shutil.which(self.argv[0]) is None:
            raise TilesatError(f"solver ext:{command}: command {self.argv[0] if self.argv else ''!r} not found")
        self.name = f"ext:{command}"
        self.timeout = timeout
        self._formula = None
        self._added: list[list[int]] = []
        self._model: list[int] = []

    def add_formula(self, formula, progress=None) -> None:
        self._formula = formula  # written to a file at each solve

    def add_clause(self, clause) -> None:
        self._added.append(list(clause))

    def solve(self, assumptions=()) -> bool:
        with tempfile.TemporaryDirectory(prefix="tilesat-") as tmp:
            path = os.path.join(tmp, "formula.cnf")
            with open(path, "w", encoding="ascii") as f:
                write_dimacs(self._formula, f, extra_clauses=self._added + [[a] for a in assumptions],
                             placement_comments=False)
            out_path = os.path.join(tmp, "answer.txt")
            argv = [a.replace("{cnf}", path).replace("{out}", out_path) for a in self.argv]
            if not any("{cnf}" in a for a in self.argv):
                argv.append(path)
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
            except subprocess.TimeoutExpired as e:
                last = (e.stdout or b"")
                last = last.decode(errors="replace") if isinstance(last, bytes) else last
                tail = last.strip().splitlines()[-1:] or ["nothing"]
                raise TilesatError(f"solver {self.name} timed out after {self.timeout} s; it printed last: {tail[0][:80]!r}") from None
            except OSError as e:
                raise TilesatError(f"solver {self.name} could not run: {e.strerror or e}") from None
            text = proc.stdout
            if any("{out}" in a for a in self.argv):
                text = open(out_path).read() if os.path.exists(out_path) else ""
        answer = read_answer(text, where=f"output of {self.name}", strict=False)
        status = answer.status
        if status == "unknown":
            status = {10: "sat", 20: "unsat"}.get(proc.returncode, "unknown")
        if status == "unknown" or (status == "sat" and not answer.model):
            last = (proc.stdout.strip() or proc.stderr.strip()).splitlines()[-1:] or ["nothing"]
            raise TilesatError(
                f"solver {self.name} gave no answer (exit code {proc.returncode}); it printed last: {last[0][:80]!r}"
            )
        self._model = answer.model
        return status == "sat"

    def model(self) -> list[int]:
        return self._model

    def close(self) -> None:
        pass

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
    if name.startswith(EXTERNAL_PREFIX):
        ExternalSolver(name[len(EXTERNAL_PREFIX):])  # the command must exist
        return name
    canon = _canonical(name)
    if canon is None or (canon in _pysat_names() and not _works(canon)):
        raise TilesatError(f"unknown solver {name!r}; choose one of: {', '.join(solver_names())}, or ext:COMMAND")
    return canon


def make_solver(name: str = DEFAULT_SOLVER, timeout: float | None = None):
    """A solver by registry name, or ``ext:COMMAND`` for an external one."""
    name = check_solver_name(name)
    if name.startswith(EXTERNAL_PREFIX):
        return ExternalSolver(name[len(EXTERNAL_PREFIX):], timeout)
    return SOLVERS[name]()
