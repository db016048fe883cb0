"""SAT solvers, in a registry: every PySAT solver by its PySAT name, and ``ext:COMMAND``.

A solver here is anything with ``add_formula(formula, progress=None)``,
``add_clause``, ``solve(assumptions)``, ``model``, ``stats`` and ``close``.
Every ``solve`` honours the run's deadline (:mod:`tilesat.running.control`): it
raises :class:`~tilesat.running.control.TimedOut` or ``KeyboardInterrupt`` within a
poll, after which the solver is spent (``close`` is all that is left).
Adding another kind of solver is one factory in ``SOLVERS``; without
editing tilesat, a plugin (:mod:`tilesat.sat.plugins`): ``module:Class`` or
``file.py:Class`` wherever a solver's name goes, or a class an installed
package registers under the entry-point group ``tilesat.solvers``.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import time
from functools import cache
from typing import Callable

import numpy as np
import pysolvers
from pysat.solvers import Solver, SolverNames

from ..running.control import Child, ChildError, TimedOut, deadline, may_start_children, sigint_held, wait_step
from .dimacs import check_model, read_answer, write_dimacs
from . import plugins
from .encodings import AUTO_LADDER_BAND
from ..errors import TilesatError, did_you_mean
from .formula import Formula
from ..running.inputs import read_bytes
from ..running.processes import popen, release, temporary_folder
from .plugins import EXTERNAL_PREFIX

DEFAULT_SOLVER = "cadical195"

#: CaDiCaL's options on open boards: the ones its binary's ``--sat`` sets (a
#: configuration for satisfiable instances), which cut the time to two tilings
#: of random-packing boards (24-32 candidate placements a cell) about 3x (docs/benchmarks/
#: hard-boards.md).  Designed puzzles (propagation does the work)
#: and pentomino puzzles (100+ candidates) are outside the band.
OPEN_BOARD_OPTIONS = {"stabilizeonly": 1, "elimreleff": 10, "subsumereleff": 60}
OPEN_BOARD_CANDIDATES = AUTO_LADDER_BAND  # mean candidate placements per open cell: above the first, up to the second


def default_options(name: str, mean_candidates: float, after_sweep: bool = False) -> dict:
    """The CaDiCaL options tilesat gives this solver by default on a board with this
    many candidate placements per open cell (empty: none, CaDiCaL's own defaults);
    ``after_sweep``: the solver takes over from a sweep that gave up, which makes the
    board a tileable-looking open one whatever its candidates, so it gets the --sat options
    too (measured on docs/benchmarks/hard-families.md)."""
    lo, hi = OPEN_BOARD_CANDIDATES
    if name == "cadical195" and (after_sweep or lo < mean_candidates <= hi):
        return dict(OPEN_BOARD_OPTIONS)
    return {}

# A solve runs here, in this process, for at most FIRST_SLICE conflicts
# (without PySAT's SIGINT handler: see solve_quietly); easy formulas
# (designed puzzles: a few hundred conflicts, 3-25 ms in all) end there
# without paying for a process.  A solve that goes on moves with its solver
# into a forked child (the fork copies the solver, learnt clauses and all),
# where it runs in slices of CHILD_SLICE conflicts, doubling (few slices:
# slicing at 20,000 conflicts cost 4-5x, at 200,000 nothing),
# each reporting its conflicts; the parent waits and kills it at the
# deadline or on Ctrl-C.  Formulas above IN_PROCESS_CLAUSES go to the child
# at once: there even a few conflicts can take longer than Ctrl-C may wait.
FIRST_SLICE, CHILD_SLICE, IN_PROCESS_CLAUSES = 1_000, 100_000, 400_000


# PySAT's solve calls install a SIGINT handler that longjmps out of the
# solver when called from the main thread, and a signal may land in any
# thread (OpenBLAS keeps some): seen as CaDiCaL aborting with "solver in
# invalid state", or a deadlock in free().  So tilesat never lets PySAT
# install it: CaDiCaL's solve function is called with main_thread=0, the
# MiniSat family with expect_interrupt=True (no handler either).  Python's
# own handler then only sets a flag, and Ctrl-C surfaces as a
# KeyboardInterrupt once the (short) call has returned.
_MINISAT_FAMILY = {"gluecard3", "gluecard4", "glucose3", "glucose4", "glucose42", "maplechrono", "maplesat",
                   "maplecm", "mergesat3", "minicard", "minisat22", "minisatgh", "minisatep"}


# Solvers PySAT builds without incremental use: a clause added after a solve
# takes the process down (kissat404: SIGSEGV or SIGABRT in kissat_add, found by
# `tilesat fuzz --solvers all`).  Each solve after the first starts such a
# solver again from the formula and every clause added since.
NOT_INCREMENTAL = {"kissat404"}


def _without_longjmp(name: str) -> bool:
    """Whether this solver can solve here with no SIGINT handler of PySAT's."""
    return name.startswith("cadical") or name in _MINISAT_FAMILY


def solve_quietly(solver: Solver, name: str, assumptions) -> bool | None:
    """``solve_limited`` (None: budget used up) without PySAT's SIGINT handler
    where that is possible (:func:`_without_longjmp`), else a plain solve
    (in a child process only, whose SIGINT is blocked)."""
    if name.startswith("cadical"):
        status = getattr(pysolvers, f"{name}_solve_lim")(solver.solver.cadical, assumptions, 0)
        solver.solver.status = None if status == 0 else status > 0  # what get_model() looks at
        return solver.solver.status
    if name in _MINISAT_FAMILY:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    return solver.solve(assumptions=assumptions)


def _can_budget(solver: Solver, name: str) -> bool:
    if not _without_longjmp(name):
        return False
    try:
        solver.conf_budget(FIRST_SLICE)
        return True
    except NotImplementedError:
        return False


def _conflicts(solver: Solver) -> int:
    try:
        return int((solver.accum_stats() or {}).get("conflicts", 0))
    except (NotImplementedError, AttributeError):
        return 0


def solve_in_slices(solver: Solver, name: str, assumptions, budgets: bool, on_slice=None,
                    limit: int | None = None) -> bool | None:
    """Solve to the end in slices of CHILD_SLICE conflicts, doubling (``on_slice(conflicts)``
    after each slice that did not end it), or in one call for a solver without budgets;
    with ``limit``, give up (None) after that many conflicts of this call.

    Why slices even where nothing needs telling: the slices are part of the
    search.  Each ``solve_limited`` call starts CaDiCaL's solve anew from its
    learnt clauses, and on the hard open boards that path is the better one:
    60x60 L4 s1, first tiling, 34 s sliced against 123 s in one call; s10 75 s
    against over 150 s (a portfolio member that solved in one call lost
    where --jobs 1 won, issue 15).  So every solve that goes past the first
    slice, in the run's child or in a portfolio member, follows this schedule."""
    budget = CHILD_SLICE
    start = _conflicts(solver) if limit is not None else 0
    while True:
        if budgets and limit is not None:
            left = limit - (_conflicts(solver) - start)
            if left <= 0:
                return None
            budget = min(budget, left)
        if budgets:
            solver.conf_budget(budget)
        status = solve_quietly(solver, name, assumptions)
        if status is not None or not budgets:
            return status
        if on_slice is not None:
            on_slice(_conflicts(solver))
        budget *= 2


def _serve(conn, solver: Solver, name: str, budgets: bool) -> None:
    """The child's side: solve requests until the parent closes the pipe."""
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        clauses, assumptions, limit, phases = request
        for clause in clauses:
            solver.add_clause(clause)
        if phases is not None:
            solver.set_phases(phases)
        status = solve_in_slices(solver, name, assumptions, budgets,
                                 lambda conflicts: conn.send(("progress", conflicts)), limit)
        model = np.asarray(solver.get_model() or [], dtype=np.int64) if status else None
        conn.send(("done", status, model, _conflicts(solver)))


def load_formula(solver, formula: Formula, name: str, progress: Callable) -> None:
    """Add the formula to the solver, reporting how many clauses are in."""
    total = formula.nclauses
    message = f"loading {total:,} clauses into {name}"
    progress(message, 0, total)
    solver.add_formula(formula, lambda done: progress(message, done, total))


class PysatSolver:
    """One incremental PySAT solver, solving under the run's deadline.

    ``on_conflicts(n)`` is told the conflicts so far during long solves (progress)."""

    def __init__(self, name: str):
        self.name = name
        self._solver = Solver(name=name)
        self._budgets = _can_budget(self._solver, name)
        self._child: Child | None = None
        self._pending: list[list[int]] = []  # clauses for the child, sent with the next request
        self._phases: list[int] | None = None  # the newest set_phases: for the child's or a restarted solver
        self._phases_pending = False  # set since the child's last request
        self._model: list[int] | np.ndarray = []
        self._conflicts = 0
        self._small = True
        self._long = False  # a solve went past the first slice here, in a child without children of its own
        self._formula = None
        self._added: list[list[int]] = []  # every clause added after the formula (a non-incremental solver's restart)
        self._solved = False
        self.spent = False  # stopped by a deadline or Ctrl-C: only close() is left
        self.on_conflicts = None
        self.native: str | None = None  # how a native formula's at-most constraints went in
        self.options: dict = {}  # CaDiCaL options set by configure()

    @property
    def can_budget(self) -> bool:
        """Whether ``solve(conflicts=...)`` can give up (the solver takes conflict budgets)."""
        return self._budgets

    def configure(self, options: dict) -> None:
        """CaDiCaL's own options (names and integer values as in its
        ``options.hpp``, e.g. ``{"seed": 7, "stabilizeonly": 1}``), before the
        formula goes in: what a portfolio member (:mod:`tilesat.engines.portfolio`) varies."""
        if not options:
            return
        if not self.name.startswith("cadical"):
            raise TilesatError(f"solver {self.name} takes no CaDiCaL options ({', '.join(options)})")
        if self._formula is not None:
            raise TilesatError("CaDiCaL options go in before the formula")
        self._solver.solver.configure({str(k): int(v) for k, v in options.items()})
        self.options = dict(options)

    def set_phases(self, literals) -> None:
        """Preferred values of these variables at the solver's first decisions (PySAT's ``set_phases``)."""
        self._phases = [int(x) for x in literals]
        if self._child is not None:
            self._phases_pending = True  # the solver is the child's now (our copy was freed at the move)
        else:
            self._solver.set_phases(self._phases)

    def add_formula(self, formula, progress=None) -> None:
        if formula.native and not self._solver.supports_atmost():
            # encoding native on a solver without at-most constraints: their
            # CNF expansion (pairwise + the card encoding), said in stats()
            formula = formula.cnf()
            self.native = "expanded to CNF (at-most-one pairwise, piece counts " + formula.card + ")"
        elif formula.native:
            self.native = "native at-most constraints"
        self._small = formula.nclauses <= IN_PROCESS_CLAUSES
        self._formula = formula
        limit = deadline()

        def loaded(done):  # clauses go in from Python: Ctrl-C lands between them
            limit.check()
            if progress is not None:
                progress(done)

        self._load(formula, loaded)

    def _load(self, formula, progress) -> None:
        """The formula into this solver, by the quickest way it takes (rows from C, raw clauses,
        native at-most constraints); ``progress(done)`` between chunks."""
        backend = self._solver.solver
        formula.add_to(_raw_add_clause(self.name, backend), progress, add_atmost=self._add_atmost(),
                       add_rows=_raw_add_rows(self.name, backend, formula.nvars))

    def _add_atmost(self):
        """The solver's native ``add_atmost(lits, k)``, or None (minicard, gluecard3/4 have it)."""
        return self._solver.add_atmost if self._solver.supports_atmost() else None

    def add_clause(self, clause) -> None:
        if self.name in NOT_INCREMENTAL:
            self._added.append([int(x) for x in clause])
            if self._solved:
                return  # goes in when the solver starts again (solve)
        if self._child is not None:
            self._pending.append([int(x) for x in clause])
        else:
            self._solver.add_clause([int(x) for x in clause])

    def solve(self, assumptions=(), conflicts: int | None = None) -> bool | None:
        """Whether the formula is satisfiable under these assumptions; with
        ``conflicts``, None when it gave up after that many (a solver without
        conflict budgets ignores it and solves to the end)."""
        if self.spent:
            raise TilesatError(f"solver {self.name} was stopped; start a new one")
        assumptions = [int(a) for a in assumptions]
        limit = deadline()
        limit.check()
        if self._solved and self.name in NOT_INCREMENTAL:
            self._start_again()
        self._solved = True
        if self._child is None and self._budgets and self._small and not self._long:
            first = FIRST_SLICE if conflicts is None else min(FIRST_SLICE, conflicts)
            self._solver.conf_budget(first)
            status = solve_quietly(self._solver, self.name, assumptions)
            self._conflicts = _conflicts(self._solver)
            if status is not None:
                self._model = (self._solver.get_model() or []) if status else []
                return bool(status)
            if conflicts is not None:
                conflicts -= first
                if conflicts <= 0:
                    return None
        if self._child is None and not may_start_children():
            # already in a child that our parent kills at its deadline (a portfolio
            # member, a counting unit): solve here, to the end, on the same slices
            # as the run's own child would, so that the search is the same one
            self._long = True  # as a solver moved to its child: later solves skip the first slice
            status = solve_in_slices(self._solver, self.name, assumptions, self._budgets, limit=conflicts)
            self._model = (self._solver.get_model() or []) if status else []
            self._conflicts = _conflicts(self._solver)
            return status if conflicts is not None and self._budgets else bool(status)
        request = (self._pending, assumptions, conflicts, self._phases if self._phases_pending else None)
        try:
            if self._child is None:
                self._move_to_child(request)
            else:
                self._child.send(request)
            self._pending, self._phases_pending = [], False
            while True:
                message = self._child.recv()
                if message[0] == "progress":
                    self._conflicts = message[1]
                    if self.on_conflicts is not None:
                        self.on_conflicts(self._conflicts)
                    continue
                _, status, model, self._conflicts = message
                self._model = model if status else []
                return status if conflicts is not None and self._budgets else bool(status)
        except ChildError as e:
            self.spent = True
            raise TilesatError(f"solver {self.name} failed: {e}") from None
        except BaseException:
            self.spent = True  # the child was killed with its solver
            raise

    def _start_again(self) -> None:
        """A fresh solver with the formula and every clause added since (non-incremental solvers)."""
        self.close()
        self._solver = Solver(name=self.name)
        if self._formula is not None:
            self._load(self._formula, lambda done: deadline().check())
        for clause in self._added:
            self._solver.add_clause(clause)
        if self._phases is not None:
            self._solver.set_phases(self._phases)

    def _move_to_child(self, request) -> None:
        """Fork the child that solves from now on, send it its first request, then free our copy
        of the solver: the child solves while we free it (0.05 s of a 460,000-clause board)."""
        with sigint_held():  # a Ctrl-C waits until the child exists and our copy is freed once
            self._child = Child(_serve, self._solver, self.name, self._budgets)
            solver, self._solver = self._solver, None
            try:
                self._child.send(request)
            finally:
                solver.delete()  # our copy: the child has its own from the fork

    def model(self):
        return self._model

    def stats(self) -> dict:
        if self._child is None and self._solver is not None:
            self._conflicts = _conflicts(self._solver)
        stats = {"conflicts": self._conflicts, "in_child": self._child is not None}
        if self.native is not None:
            stats["native"] = self.native
        return stats

    def close(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child = None
        if self._solver is not None:
            with sigint_held():  # freed once, whole: no interrupt ever unwound through it (no longjmp handler)
                solver, self._solver = self._solver, None
                solver.delete()

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


def _raw_add_rows(name: str, backend, top: int):
    """``add_rows(matrix)``: a block of clauses from C straight into CaDiCaL 1.9.5 (sat/_clauses.c),
    or None where that solver or its add() is not there (the clauses go in one by one)."""
    if name != "cadical195" or not hasattr(backend, "cadical"):
        return None
    from . import _clauses

    if not _clauses.can_add_directly():
        return None
    handle, top = backend.cadical, int(top)
    return lambda rows: _clauses.add_rows(handle, rows, top)


class ExternalSolver:
    """Any DIMACS solver run as a subprocess: ``ext:COMMAND``.

    The CNF file's path replaces ``{cnf}`` in COMMAND, or is appended; when
    COMMAND has ``{out}`` (MiniSat: ``ext:minisat {cnf} {out}``) the answer is
    read from that file, else from standard output.  Each ``solve`` writes the
    formula plus the clauses added since to a temporary directory, runs the
    command in its own process group (a deadline or Ctrl-C kills the whole
    group, wrapper scripts' children included), reads its answer (``s``/``v``
    lines, decoded leniently; exit code 10 SAT, 20 UNSAT), checks the model
    against the formula (a wrong model is the solver's error, named as such)
    and removes the directory."""

    def __init__(self, command: str, timeout: float | None = None):
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise TilesatError(f"solver ext:{command}: cannot split the command: {e}") from None
        if not self.argv or shutil.which(self.argv[0]) is None:
            raise TilesatError(f"solver ext:{command}: command {self.argv[0] if self.argv else ''!r} not found")
        self.name = f"ext:{command}"
        self.timeout = timeout  # its own limit, on top of the run's deadline
        self._formula = None
        self._added: list[list[int]] = []
        self._model: list[int] = []
        self.on_conflicts = None

    def add_formula(self, formula, progress=None) -> None:
        self._formula = formula.cnf()  # written to a file at each solve (native: expanded, DIMACS has no at-most)

    def add_clause(self, clause) -> None:
        self._added.append([int(x) for x in clause])

    def solve(self, assumptions=()) -> bool:
        extra = self._added + [[int(a)] for a in assumptions]
        with temporary_folder("tilesat-") as tmp:  # removed even if tilesat is killed (running.processes)
            path = os.path.join(tmp, "formula.cnf")
            with open(path, "w", encoding="ascii") as f:
                write_dimacs(self._formula, f, extra_clauses=extra, placement_comments=False)
            out_path = os.path.join(tmp, "answer.txt")
            argv = [a.replace("{cnf}", path).replace("{out}", out_path) for a in self.argv]
            if not any("{cnf}" in a for a in self.argv):
                argv.append(path)
            stdout_path, stderr_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            returncode = self._run(argv, stdout_path, stderr_path)
            stdout = _read_text(stdout_path)
            text = _read_text(out_path) if any("{out}" in a for a in self.argv) else stdout
            stderr = _read_text(stderr_path)
        answer = read_answer(text, where=f"output of {self.name}", strict=False)
        status = answer.status
        if status == "unknown":
            status = {10: "sat", 20: "unsat"}.get(returncode, "unknown")
        if status == "unknown" or (status == "sat" and not answer.model):
            last = (stdout.strip() or stderr.strip()).splitlines()[-1:] or ["nothing"]
            raise TilesatError(
                f"solver {self.name} gave no answer (exit code {returncode}); it printed last: {last[0][:80]!r}"
            )
        if status == "sat":
            try:
                check_model(self._formula, answer.model, where=f"the model of solver {self.name}")
                _check_extra(extra, answer.model, self.name)
            except TilesatError as e:
                raise TilesatError(f"{e} (the solver's answer is wrong, not tilesat's formula)") from None
        self._model = answer.model
        return status == "sat"

    def _run(self, argv, stdout_path, stderr_path) -> int:
        """Run the command in a new process group under the deadline (and ``timeout``)."""
        own = None if self.timeout is None else time.perf_counter() + self.timeout
        try:
            with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
                proc = popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)  # its own group, dies with us
        except OSError as e:
            raise TilesatError(f"solver {self.name} could not run: {e.strerror or e}") from None
        try:
            while True:
                if own is not None and time.perf_counter() >= own:
                    raise TimedOut(self.timeout)
                try:
                    return proc.wait(timeout=wait_step())
                except subprocess.TimeoutExpired:
                    continue
        finally:
            release(proc)  # timed out, interrupted, or its leftovers (a wrapper's children): the whole group goes

    def model(self) -> list[int]:
        return self._model

    def stats(self) -> dict:
        return {}

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


#: What an external solver may write (its model, its statistics): a model is a
#: few bytes a variable; beyond this, one line.
MAX_SOLVER_OUTPUT = 256 << 20


def _read_text(path: str) -> str:
    """A file an external program wrote, decoded leniently (never a UnicodeDecodeError)."""
    if not os.path.exists(path):
        return ""
    data = read_bytes(path, MAX_SOLVER_OUTPUT, what="solver output", why="more than any model of a tilesat formula")
    return data.decode("utf-8", errors="replace")


def _check_extra(clauses, model, name: str) -> None:
    true = {int(x) for x in model}
    for clause in clauses:
        if not any(lit in true for lit in clause):
            raise TilesatError(f"the model of solver {name} does not satisfy the formula: clause {clause} is false")



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
    """Names of the solvers that work here, the default first, then those installed packages register."""
    names = [n for n in SOLVERS if n not in _pysat_names() or _works(n)]
    names = sorted(names, key=lambda n: (n != DEFAULT_SOLVER, n))
    return names + [n for n in plugins.entry_point_names(plugins.SOLVER_GROUP) if n not in SOLVERS]


def _canonical(name: str) -> str | None:
    if name in SOLVERS:
        return name
    for canon in _pysat_names():
        if name.lower() in getattr(SolverNames, canon):
            return canon
    return None


def check_solver_name(name: str) -> str:
    """The registry name for ``name`` (PySAT aliases accepted; ``ext:COMMAND``;
    a plugin ``module:Class``, ``file.py:Class`` or entry point), or a clear error."""
    if name.startswith(EXTERNAL_PREFIX):
        ExternalSolver(name[len(EXTERNAL_PREFIX):])  # the command must exist
        return name
    if plugins.is_spec(name):
        plugins.find_solver(name)  # loads it: a bad spec fails here, in one line
        return name
    canon = _canonical(name)
    if canon is None and plugins.find_solver(name) is not None:
        return name  # an installed package's
    if canon is None or (canon in _pysat_names() and not _works(canon)):
        raise TilesatError(f"unknown solver {name!r}{did_you_mean(name, solver_names())}; choose one of: {', '.join(solver_names())}, or ext:COMMAND, "
                           f"or a plugin MODULE:CLASS or FILE.py:CLASS")
    return canon


def is_plugin_solver(name: str) -> bool:
    """Whether the (checked) solver name is a plugin's, not PySAT's or an external command."""
    return not name.startswith(EXTERNAL_PREFIX) and name not in SOLVERS


def make_solver(name: str = DEFAULT_SOLVER, timeout: float | None = None):
    """A solver by registry name, ``ext:COMMAND`` for an external one, or a plugin's."""
    name = check_solver_name(name)
    if name.startswith(EXTERNAL_PREFIX):
        return ExternalSolver(name[len(EXTERNAL_PREFIX):], timeout)
    if name not in SOLVERS:
        return PluginSolver(name, plugins.find_solver(name))
    return SOLVERS[name]()


class PluginSolver:
    """A plugin solver behind tilesat's solver interface (``solvers.py``).

    It runs in tilesat's process: Ctrl-C reaches it as ``KeyboardInterrupt``
    and the run's time limit is checked before each solve (a plugin that
    may search long can call ``tilesat.running.control.deadline().check()`` itself).
    Every model is checked against the formula and the clauses added since,
    so a wrong answer is named as the plugin's."""

    def __init__(self, name: str, factory):
        self.name = name
        self.on_conflicts = None
        try:
            self._solver = factory()
        except Exception as e:  # noqa: BLE001
            raise TilesatError(f"solver {name!r}: making it failed: {type(e).__name__}: {e}") from None
        missing = [m for m in ("add_clause", "solve", "model") if not callable(getattr(self._solver, m, None))]
        if missing:
            raise TilesatError(f"solver {name!r}: its objects have no {', '.join(missing)} "
                               f"(a solver needs add_clause, solve and model)")
        self._formula = None
        self._added: list[list[int]] = []
        self._model: list[int] = []

    def _call(self, method: str, *args):
        try:
            return getattr(self._solver, method)(*args)
        except (TilesatError, TimedOut):  # TimedOut: the solver honoured the run's deadline
            raise
        except Exception as e:  # noqa: BLE001
            raise TilesatError(f"solver {self.name!r} failed in {method}: {type(e).__name__}: {e}") from None

    def add_formula(self, formula, progress=None) -> None:
        self._formula = formula
        if callable(getattr(self._solver, "add_formula", None)):
            self._call("add_formula", formula, progress)
            return
        limit = deadline()

        def loaded(done):
            limit.check()
            if progress is not None:
                progress(done)

        formula.add_to(lambda clause: self._call("add_clause", clause), loaded)

    def add_clause(self, clause) -> None:
        clause = [int(x) for x in clause]
        self._added.append(clause)
        self._call("add_clause", clause)

    def solve(self, assumptions=()) -> bool:
        deadline().check()
        assumptions = [int(a) for a in assumptions]
        answer = self._call("solve", assumptions)
        if not isinstance(answer, (bool, np.bool_)):
            raise TilesatError(f"solver {self.name!r}: solve() returned {answer!r}, not True or False")
        self._model = []
        if answer:
            model = self._call("model")
            try:
                model = [] if model is None else [int(x) for x in model]
            except (TypeError, ValueError):
                raise TilesatError(f"solver {self.name!r}: model() must return a list of integers") from None
            true = set(model)
            try:
                if self._formula is not None:
                    check_model(self._formula, model, where=f"the model of solver {self.name}")
                for clause in self._added + [[a] for a in assumptions]:
                    if not any(lit in true for lit in clause):
                        raise TilesatError(f"the model of solver {self.name!r} does not satisfy clause {clause}")
            except TilesatError as e:
                raise TilesatError(f"{e} (the solver's answer is wrong, not tilesat's formula)") from None
            self._model = model
        return bool(answer)

    def model(self) -> list[int]:
        return self._model

    def stats(self) -> dict:
        if callable(getattr(self._solver, "stats", None)):
            stats = self._call("stats")
            return dict(stats) if isinstance(stats, dict) else {}
        return {}

    def close(self) -> None:
        if self._solver is not None and callable(getattr(self._solver, "close", None)):
            solver, self._solver = self._solver, None
            self._call_on(solver, "close")

    def _call_on(self, solver, method):
        try:
            getattr(solver, method)()
        except Exception as e:  # noqa: BLE001
            raise TilesatError(f"solver {self.name!r} failed in {method}: {type(e).__name__}: {e}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
