"""Differential testing of encodings and solvers (``tilesat fuzz``).

Hypothesis draws small instances: boards with blocked cells and wraps,
piece sets with orientations and counts.  On each, every chosen encoding x
solver (PySAT names, ``ext:`` commands, plugins) is compared with the
brute-force oracle (:mod:`tilesat.certify.oracle`, which shares no code with the
pipeline) and with the dancing-links enumerator:

- **solve**: a tiling exactly when the oracle finds one;
- **check-unique**: none, unique or multiple, as the oracle;
- **count**: the same tilings (all of them up to ``cap``), none twice, each
  one accepted by the oracle's own checker.

The three are one incremental search: solve is its first answer,
check-unique its first two, count all of them, each solve after the
tilings before it are blocked, so the solver sees the same formulas in the
same order as the three commands would give it.  Each encoding alone is
also checked: over every number n of literals the instance's cells have,
two rows of n (the vectorised form the encodings are called with) must
have exactly n * n models on those literals: one true in each row.

Each example runs in a forked child (:func:`tilesat.running.control.call_in_child`),
so ``--timeout`` and Ctrl-C stop the run within a poll whatever runs (a
plugin, an external solver), and a solver that crashes is a finding, not
the end of the run.  On the first disagreement hypothesis shrinks the
example to a minimal one that still disagrees.

``grids``: the boards are drawn on these grids (square, triangle, hex, cube;
:data:`FUZZ_GRIDS`), with each grid's small built-in pieces and a
disconnected one; the oracle turns pieces on every grid with its own
geometry.  Only square boards wrap.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..running import processes
from ..running.control import TimedOut, call_in_child, deadline, sigint_held
from ..errors import TilesatError
from ..model.instance import INF, Instance, PieceRule
from ..model.board import Board
from ..model.pieces import builtin_piece, grid_piece_set, parse_drawing

#: Tilings compared one by one; past it, only that there are more than ``CAP``.
CAP = 12
#: Each encoding alone: two rows of n literals up to this n (n * n models), one row above.
TWO_ROWS_UP_TO = 12
DEFAULT_MAX_CELLS = 30
DEFAULT_SOLVERS = ("cadical195", "glucose4")
#: The oracle gives up past this many search nodes (the example is then
#: drawn again: it is too big to decide, not a disagreement).
ORACLE_NODES = 50_000
#: The grids ``tilesat fuzz --grid`` draws boards on (``all``: every one).
FUZZ_GRIDS = ("square", "triangle", "hex", "cube")
#: Each grid's pool: built-in sets, smallest first (the first pieces are
#: the small ones every example starts with), and a disconnected shape.
_GRID_SETS = {"triangle": ("moniamond", "diamond", "triamond", "tetriamonds"),
              "hex": ("monohex", "dihex", "trihexes"),
              "cube": ("monocube", "dicube", "tricubes")}
#: Orientation rules drawn per grid (free twice: the common case).
_ORIENTS = {"cube": ("free", "free", "mirror", "one-sided", "fixed")}


def _pool(grid: str = "square"):
    if grid != "square":
        return [p for name in _GRID_SETS[grid] for p in grid_piece_set(grid, name)] + [
            parse_drawing("D", "#.#", grid)]
    return [builtin_piece(n) for n in ("I1", "I2", "I3", "L3", "O4", "T4", "L4", "S4", "J4")] + [
        parse_drawing("D", "#.#"),  # disconnected: region checks must not apply to it
        parse_drawing("Q", "##/#."),
    ]


def check_grids(grids) -> tuple[str, ...]:
    """The grids named (``all``: every one of :data:`FUZZ_GRIDS`), checked."""
    names = list(FUZZ_GRIDS) if list(grids) == ["all"] else list(grids)
    if not names:
        raise TilesatError("--grid: give at least one grid")
    for name in names:
        if name not in FUZZ_GRIDS:
            raise TilesatError(f"--grid {name!r}: use {', '.join(FUZZ_GRIDS)} or all")
    return tuple(dict.fromkeys(names))


def instances(max_cells: int = DEFAULT_MAX_CELLS, grids=("square",)):
    """Hypothesis strategy: a board of one of ``grids`` of at most
    ``max_cells`` cells (some blocked, maybe wrapped on the square grid)
    and one to three pieces with orientations and counts.  Shrinking goes
    towards the first grid, 1x1 boards, no wrap, one small piece."""
    from hypothesis import strategies as st

    grids = check_grids(grids)
    pools = {g: _pool(g) for g in grids}

    @st.composite
    def draw_instance(draw):
        lattice = draw(st.sampled_from(grids))
        pool = pools[lattice]
        layers = draw(st.integers(1, max(1, min(3, max_cells)))) if lattice == "cube" else 1
        room = max(1, max_cells // layers)
        rows = draw(st.integers(1, max(1, min(8, room))))
        cols = draw(st.integers(1, max(1, min(8, room // rows))))
        shape = (layers, rows, cols) if lattice == "cube" else (rows, cols)
        cells = st.tuples(*(st.integers(0, n - 1) for n in shape))
        blocked = draw(st.sets(cells, max_size=int(np.prod(shape)) // 3))
        first = draw(st.sampled_from(pool[:4] if lattice == "square" else pool[:2]))  # small, so that many boards tile
        if lattice == "square":
            grid = ["".join("#" if (r, c) in blocked else "." for c in range(cols)) for r in range(rows)]
            wrap = draw(st.sampled_from(["none", "none", "rows", "columns", "both"]))
            board = Board.from_rows(grid, wrap)
        else:
            mask = np.ones(shape, dtype=bool)
            for cell in blocked:
                mask[cell] = False
            board = Board(mask, "none", lattice)
        pieces = [first] + draw(st.lists(st.sampled_from(pool), max_size=2, unique_by=lambda p: p.name))
        pieces = list({p.name: p for p in pieces}.values())
        rules = []
        for p in pieces:
            orient = draw(st.sampled_from(_ORIENTS.get(lattice, ("free", "free", "one-sided", "fixed"))))
            lo, hi = draw(st.sampled_from([(0, INF), (0, INF), (1, 1), (0, 2), (1, 3), (2, INF), (0, 0), (0, 1)]))
            rules.append(PieceRule(p, orient, lo, hi))
        return Instance(board, tuple(rules))

    return draw_instance()


# --- one example, in the child ---------------------------------------------

def _oracle_args(instance: Instance):
    """The oracle's (board, wrap, pieces) and its lattice: square boards as
    rows of text, the other grids as their open cells."""
    board = instance.board
    pieces = [(r.name, r.piece.cells, r.orient, r.min, r.max) for r in instance.rules]
    if board.is_square:
        return (board.rows_text(), board.wrap, pieces), "square"
    return (board.cells(board.open_cells), "none", pieces), board.grid


def _key(tiling) -> frozenset:
    """A tiling as the oracle writes one: frozenset of (piece, frozenset of cells)."""
    return frozenset((t.piece, frozenset(t.cells)) for t in tiling)


def _how_many(n: int, cap: int) -> str:
    if n == 0:
        return "no tiling"
    if n > cap:
        return f"more than {cap} tiling{'s' if cap != 1 else ''}"
    return f"{n} tiling{'s' if n != 1 else ''}"


def _verdict(n: int) -> str:
    return {0: "none", 1: "unique"}.get(n, "multiple")


def _compare_listing(label: str, found: list, truth: set, accepts, cap: int) -> list[str]:
    """What is wrong with a listing of up to ``cap + 1`` tilings against the oracle's."""
    out = []
    if bool(found) != bool(truth):
        out.append(f"{label}, solve: says {'solved' if found else 'none'}, the oracle finds {_how_many(len(truth), cap)}")
    elif _verdict(min(len(found), 2)) != _verdict(min(len(truth), 2)):
        out.append(f"{label}, check-unique: says {_verdict(min(len(found), 2))}, "
                   f"the oracle says {_verdict(min(len(truth), 2))} ({_how_many(len(truth), cap)})")
    if len(set(found)) != len(found):
        out.append(f"{label}, count: lists a tiling twice")
    wrong = [t for t in found if not accepts(t)]
    if wrong:
        out.append(f"{label}: gives a tiling the oracle rejects: {_tiling_text(wrong[0])}")
    if not out and len(truth) <= cap and set(found) != truth:
        missing, extra = truth - set(found), set(found) - truth
        out.append(f"{label}, count: finds {_how_many(len(found), cap)}, the oracle {_how_many(len(truth), cap)}"
                   + (f"; misses {_tiling_text(next(iter(missing)))}" if missing else "")
                   + (f"; gives {_tiling_text(next(iter(extra)))}, which the oracle does not" if extra else ""))
    elif not out and len(truth) > cap and len(found) <= cap:
        out.append(f"{label}, count: finds {_how_many(len(found), cap)}, the oracle {_how_many(len(truth), cap)}")
    return out


def _tiling_text(key) -> str:
    return " ".join(f"{name}@{'/'.join(f'{r},{c}' for r, c in sorted(cells))}" for name, cells in sorted(key, key=lambda t: sorted(t[1])))


def alone_formula(encoding: str, n: int, rows: int) -> tuple[list[list[int]], int]:
    """The encoding alone over ``rows`` rows of ``n`` literals (1..rows*n): its clauses and top."""
    from ..sat.encodings import get_encoding

    lits = np.arange(1, rows * n + 1, dtype=np.int64).reshape(rows, n)
    blocks, top = get_encoding(encoding)(lits, rows * n)
    return [[int(x) for x in row] for b in blocks for row in np.asarray(b).tolist()], int(top)


def encoding_alone(encoding: str, n: int) -> str | None:
    """None when the encoding over rows of ``n`` literals has exactly one
    model on those literals per choice of one true literal in each row, else
    what is wrong.  Two rows (n * n models) up to ``TWO_ROWS_UP_TO``, one
    (n models) above: the rows must not leak into each other either."""
    from pysat.solvers import Solver

    rows = 2 if n <= TWO_ROWS_UP_TO else 1
    clauses, _ = alone_formula(encoding, n, rows)
    what = f"encoding {encoding} alone, {'two rows of ' if rows == 2 else ''}{n} literals"
    if any(len(c) == 0 for c in clauses):
        return f"{what}: it emits an empty clause (no model at all)"
    lits = np.arange(1, rows * n + 1).reshape(rows, n).tolist()
    expected = set(itertools.product(range(n), repeat=rows))
    seen = set()
    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        while s.solve():
            value = {abs(x): x > 0 for x in (s.get_model() or [])}
            true = [[v for v in row if value.get(v, False)] for row in lits]
            bad = next((r for r in true if len(r) != 1), None)
            if bad is not None:
                return f"{what}: a model with " + (f"{len(bad)} of them true ({', '.join(map(str, bad))})" if bad else "none of them true")
            seen.add(tuple(r[0] - 1 - k * n for k, r in enumerate(true)))
            s.add_clause([-v if value.get(v, False) else v for row in lits for v in row])
    if seen != expected:
        missing = min(expected - seen)
        return (f"{what}: no model with literal{'s' if rows > 1 else ''} {' and '.join(str(i + 1) for i in missing)} true "
                f"({len(seen)} of the {len(expected)} models)")
    return None


@dataclass
class Outcome:
    """What one example gave (sent back from the child)."""

    findings: list[str] = field(default_factory=list)
    gave_up: bool = False  # the oracle could not decide it: the example does not count
    truth: str = ""  # none, unique, multiple or many
    alone: dict = field(default_factory=dict)  # (encoding, n) -> None or what is wrong, newly checked


def check_example(instance: Instance, encodings: list[str], solvers: list[str], cap: int,
                  alone_done: dict) -> Outcome:
    """Every check on one instance (runs in the child)."""
    from ..engines.dlx import covers, dlx_problem
    from ..certify.oracle import TooHard, brute_force_tilings, tiling_checker
    from ..model.placements import generate_placements
    from ..engines.sat import TilingSearch
    from ..sat.options import SatOptions
    from ..model.tiling import Tiling

    outcome = Outcome()
    args, lattice = _oracle_args(instance)
    try:
        truth = brute_force_tilings(*args, cap=cap, node_limit=ORACLE_NODES, lattice=lattice)
    except TooHard:
        outcome.gave_up = True
        return outcome
    outcome.truth = "many" if len(truth) > cap else _verdict(len(truth))
    accepts = tiling_checker(*args, lattice=lattice)
    placements = generate_placements(instance)
    indptr, _ = placements.by_cell()
    open_cells = instance.board.open_cells
    sizes = sorted({int(d) for d in (indptr[open_cells + 1] - indptr[open_cells]) if d > 0})
    # each encoding alone, at the sizes this instance has (a finding of its own, not the example's)
    outcome.alone = _check_alone(encodings, [n for n in sizes if not any((e, n) in alone_done for e in encodings)])
    if dlx_problem(instance) is None:
        try:
            found = [_key(Tiling.from_placements(placements, c.tolist())) for c in itertools.islice(covers(placements), cap + 1)]
            outcome.findings += _compare_listing("dancing links", found, truth, accepts, cap)
        except Exception as e:  # noqa: BLE001
            outcome.findings.append(f"dancing links: failed: {type(e).__name__}: {e}")
    for encoding, solver in itertools.product(encodings, solvers):
        label = f"{encoding} + {solver}"
        found = []
        try:
            with TilingSearch(instance, SatOptions(encoding, solver), certificates=False) as search:
                while len(found) <= cap and (t := search.next()) is not None:
                    found.append(_key(t))
        except TimedOut:  # the run's deadline, which the child shares: not a finding
            raise
        except Exception as e:  # noqa: BLE001 - a wrong model, a plugin's crash: findings
            outcome.findings.append(f"{label}: failed after {_how_many(len(found), cap)}: {type(e).__name__}: {e}")
            continue
        outcome.findings += _compare_listing(label, found, truth, accepts, cap)
    return outcome


# --- the run, in the parent ------------------------------------------------

@dataclass
class Finding:
    """The minimal disagreeing instance and what disagreed on it."""

    instance: Instance
    findings: list[str]
    truth: str
    shrunk: bool = True  # False when the run stopped while shrinking


@dataclass
class FuzzResult:
    seed: int
    encodings: list[str]
    solvers: list[str]
    examples: int = 0  # examples checked (the oracle decided them)
    gave_up: int = 0  # examples drawn again: too big for the oracle
    shrink_tries: int = 0
    truths: dict = field(default_factory=dict)  # none/unique/multiple/many -> examples
    finding: Finding | None = None
    alone: dict = field(default_factory=dict)  # encoding -> (smallest n it fails at, what is wrong)
    stopped: str | None = None  # "timeout" or "interrupted"
    seconds: float = 0.0
    grids: tuple = ("square",)  # the grids the boards were drawn on

    @property
    def agreed(self) -> bool:
        return self.finding is None and not self.alone

    def note_alone(self, checked: dict) -> None:
        for (encoding, n), problem in checked.items():
            if problem and (encoding not in self.alone or n < self.alone[encoding][0]):
                self.alone[encoding] = (n, problem)

    def to_json(self) -> dict:
        f = self.finding
        return {"seed": self.seed, "encodings": self.encodings, "solvers": self.solvers, "grids": list(self.grids), "examples": self.examples,
                "oracle_gave_up": self.gave_up, "answers": self.truths, "agreed": self.agreed,
                "stopped": self.stopped, "seconds": round(self.seconds, 3),
                "encodings_alone": {e: {"n": n, "problem": p} for e, (n, p) in self.alone.items()},
                "disagreement": None if f is None else {
                    "findings": f.findings, "oracle": f.truth, "shrunk": f.shrunk, "shrink_tries": self.shrink_tries,
                    "cells": f.instance.board.ncells, "open_cells": int(f.instance.board.area)}}


class _Stop(BaseException):
    """Ends hypothesis's loop from inside (a BaseException: hypothesis does not take it for a failure)."""


def new_seed() -> int:
    return random.SystemRandom().randrange(2**32)


def check_names(encodings: list[str], solvers: list[str]) -> tuple[list[str], list[str]]:
    """The names, checked (plugins loaded) before any work; one line for a bad one."""
    from ..sat.encodings import check_encoding
    from ..sat.solvers import check_solver_name

    if not encodings:
        raise TilesatError("--encodings: give at least one encoding")
    if not solvers:
        raise TilesatError("--solvers: give at least one solver")
    return [check_encoding(e) for e in encodings], [check_solver_name(s) for s in solvers]


def fuzz(encodings: list[str], solvers: list[str], examples: int = 100, seed: int | None = None,
         max_cells: int = DEFAULT_MAX_CELLS, cap: int = CAP,
         progress: Callable[[str, int, int], None] | None = None, grids=("square",)) -> FuzzResult:
    """Run the differential test; ``progress(stage, done, total)`` after each example.

    Honours the current deadline (``result.stopped == "timeout"``) and Ctrl-C
    (``"interrupted"``); either way the result holds what was found."""
    if examples < 1:
        raise TilesatError("--examples must be at least 1")
    if max_cells < 1:
        raise TilesatError("--max-cells must be at least 1")
    encodings, solvers = check_names(encodings, solvers)
    grids = check_grids(grids)
    seed = new_seed() if seed is None else seed
    result = FuzzResult(seed, encodings, solvers, grids=grids)
    report = progress or (lambda stage, done, total: None)
    alone_done: dict = {}
    last_failing: list = []  # (instance, outcome) of the last example that disagreed
    start = time.perf_counter()

    def condition(instance: Instance) -> bool:
        interrupt_if_asked()
        try:
            outcome = call_in_child(check_example, instance, encodings, solvers, cap, alone_done, what="the example")
        except TilesatError:  # the child died: a solver crashed the process (or it saw the deadline first)
            _kill_strays()
            outcome = None if deadline().expired() else _blame(instance, encodings, solvers, cap, alone_done)
        except TimedOut:
            outcome = None
        except KeyboardInterrupt:
            _kill_strays()
            raise
        if outcome is None or deadline().expired():  # an example cut short by the deadline says nothing
            _kill_strays()
            result.stopped = "timeout"
            raise _Stop() from None
        alone_done.update(outcome.alone)
        result.note_alone(outcome.alone)
        if outcome.gave_up:
            result.gave_up += 1
            reject()
        if result.finding is None:
            result.examples += 1
            result.truths[outcome.truth] = result.truths.get(outcome.truth, 0) + 1
        else:
            result.shrink_tries += 1
        if outcome.findings:
            last_failing[:] = [instance, outcome]
            best = result.finding
            if best is None or _size(instance) <= _size(best.instance):
                result.finding = Finding(instance, outcome.findings, outcome.truth, shrunk=False)
        if result.finding is None:
            report("checking", result.examples, examples)
        else:
            report(f"shrinking ({_size(result.finding.instance)[0]} cells so far)", result.shrink_tries, None)
        return bool(outcome.findings)

    _CALLERS_CHILDREN.clear()
    _CALLERS_CHILDREN.update(_children())
    adopting = _adopt_orphans(True)
    handlers = contextlib.ExitStack()
    interrupt_if_asked = handlers.enter_context(_ctrl_c_at_polls())
    try:
        with sigint_held():  # a Ctrl-C waits for the imports (a second or so), then stops the run
            _load_engines()
        from hypothesis import HealthCheck, Verbosity, find, reject, settings
        from hypothesis.errors import Flaky, NoSuchExample, Unsatisfiable

        config = settings(max_examples=examples, database=None, derandomize=False, deadline=None,
                          verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck))
        report("each encoding alone", 0, None)
        try:
            checked = call_in_child(_check_alone, encodings, range(1, TWO_ROWS_UP_TO + 1), what="the encodings alone")
        except TilesatError:
            if not deadline().expired():
                raise
            raise TimedOut() from None  # the child saw the deadline first
        alone_done.update(checked)
        result.note_alone(checked)
        with _hypothesis_home():
            minimal = find(instances(max_cells, grids), condition, settings=config, random=random.Random(seed))
        # find's last call replays the minimal example; if not, it is checked again for what it gives
        instance, outcome = last_failing
        if instance is not minimal:
            outcome = call_in_child(check_example, minimal, encodings, solvers, cap, alone_done, what="the example")
        result.finding = Finding(minimal, outcome.findings, outcome.truth)
    except _Stop:  # (these first: hypothesis's names are unbound if the imports were cut short)
        pass
    except TimedOut:  # in the checks of the encodings alone
        result.stopped = "timeout"
    except KeyboardInterrupt:
        result.stopped = "interrupted"
    except NoSuchExample:
        pass
    except (Unsatisfiable, Flaky):
        if result.finding is not None:
            result.finding.shrunk = True  # as far as hypothesis could take it
    finally:
        if processes.interrupt_waiting() and result.stopped is None:  # one after the last poll
            result.stopped = "interrupted"
        if result.stopped == "interrupted":
            processes.interrupt_said()  # the command's report (a disagreement's files) polls too
        handlers.close()
        if adopting:
            _adopt_orphans(False)
    result.seconds = time.perf_counter() - start
    return result


@contextlib.contextmanager
def _ctrl_c_at_polls():
    """Ctrl-C (SIGTERM, SIGHUP) noted by the handler and raised at the next poll
    of a wait (every 50 ms while an example runs in its child) or at the next
    example: hypothesis runs code in the garbage collector's callbacks, where a
    KeyboardInterrupt is printed as 'Exception ignored' and lost (the run went
    on: 3 runs in 12).  Yields the check, for the code between polls."""
    with processes.interrupts_at_polls():
        yield processes.raise_lost_interrupt


# An external solver runs in its own session, which dies with it when the
# solver is stopped the normal way; but the child checking an example is
# killed outright on Ctrl-C, and its solver would run on.  So the run adopts
# orphaned descendants (Linux's child subreaper) and kills any it has after a
# child was stopped: the run's only child processes are the examples' own.
_PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans(on: bool) -> bool:
    """Become (or stop being) the subreaper of orphaned descendants; False where that is not possible."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children() -> set[int]:
    """This process's child processes (Linux /proc; empty elsewhere)."""
    import os

    me, out = str(os.getpid()), set()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[1] == me:
                    out.add(pid)
        except (OSError, IndexError):
            continue
    return out


_CALLERS_CHILDREN: set[int] = set()  # the caller's own children when the run began: never touched


def _kill_strays() -> None:
    """Kill (with their process groups) and reap the child processes left after a child was killed."""
    import os
    import signal

    for pid in _children() - _CALLERS_CHILDREN:
        for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _blame(instance: Instance, encodings: list[str], solvers: list[str], cap: int, alone_done: dict) -> Outcome | None:
    """The example again, one solver per child, after a child died checking
    it: the findings name the solver that takes the process down (kissat404
    aborts when a clause is added after a solve: it is not incremental).
    None when the deadline passed meanwhile."""
    outcome = Outcome(truth="?")
    for solver in solvers:
        try:
            part = call_in_child(check_example, instance, encodings, [solver], cap, alone_done, what=f"checking it with {solver}")
        except TilesatError as e:
            _kill_strays()
            if deadline().expired():
                return None
            outcome.findings.append(f"{encodings[0]} + {solver}: {e} (the process died: a crash in the solver)")
            continue
        outcome.truth = part.truth
        outcome.alone.update(part.alone)
        outcome.findings += [f for f in part.findings if f not in outcome.findings]
    if not outcome.findings:  # no solver alone: the oracle or dancing links
        outcome.findings.append("checking the example crashed the process, with each solver alone too")
    return outcome


@contextlib.contextmanager
def _hypothesis_home():
    """Hypothesis keeps caches in ``.hypothesis`` of the current directory
    (here with ``database=None``, its constants cache): a command must not
    leave that behind, so they go to a temporary directory for the run."""
    from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

    before = storage_directory(intent_to_write=False).home_directory
    with tempfile.TemporaryDirectory(prefix="tilesat-fuzz-") as home:
        set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            set_hypothesis_home_dir(before)


def _check_alone(encodings: list[str], sizes) -> dict:
    """(encoding, n) -> None or what is wrong, for every encoding and size (in the child)."""
    out = {}
    for encoding in encodings:
        if encoding == "auto":
            continue
        for n in sizes:
            try:
                out[(encoding, n)] = encoding_alone(encoding, n)
            except TimedOut:
                raise
            except Exception as e:  # noqa: BLE001 - a plugin's failure is a finding
                out[(encoding, n)] = f"encoding {encoding} alone, {n} literals: failed: {type(e).__name__}: {e}"
    return out


def _load_engines() -> None:
    """Import what the children use before the first fork, so that each
    starts with it loaded (xcover's numba code alone takes about a second)."""
    import hypothesis  # noqa: F401
    from pysat.solvers import Solver  # noqa: F401

    from ..certify import oracle
    from ..questions import solve as search
    from ..model import tiling  # noqa: F401
    from ..engines.dlx import load_xcover

    load_xcover()


def _size(instance: Instance) -> tuple[int, int, int]:
    b = instance.board
    return b.ncells, int(b.area), len(instance.rules)


# --- the files of a finding ------------------------------------------------

def write_finding(result: FuzzResult, out_dir, command: str) -> list:
    """The files of a disagreement in ``out_dir`` (made if missing; the caller
    has refused a non-empty one without --force): instance.txt, formula.cnf
    (its CNF) and report.txt; when only an encoding alone was wrong,
    formula.cnf is that encoding over the smallest n that shows it."""
    from pathlib import Path

    from ..sat.dimacs import write_dimacs
    from ..sat.formula import compile_formula
    from ..model.instance import format_instance
    from ..model.placements import generate_placements

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    f = result.finding
    cnf_path = out / "formula.cnf"
    if f is not None:
        encoding, solver = _culprit(result)
        inst_path = out / "instance.txt"
        inst_path.write_text(format_instance(f.instance, [f"found by {command}", f"seed {result.seed}"]))
        written.append(inst_path)
        try:
            formula = compile_formula(generate_placements(f.instance), encoding)
            with open(cnf_path, "w", encoding="ascii") as fh:
                write_dimacs(formula, fh, source=str(inst_path))
            written.append(cnf_path)
            cnf_note = f"formula.cnf is its CNF with the {formula.encoding} encoding"
        except Exception as e:  # noqa: BLE001 - the encoding that disagreed may be the one that fails
            cnf_note = f"no formula.cnf: compiling it with {encoding} failed ({type(e).__name__}: {e})"
    else:
        encoding, (n, _) = next(iter(result.alone.items()))
        solver = result.solvers[0]
        rows = 2 if n <= TWO_ROWS_UP_TO else 1
        try:
            clauses, top = alone_formula(encoding, n, rows)
            with open(cnf_path, "w", encoding="ascii") as fh:
                fh.write(f"c encoding {encoding} alone: exactly one of each row of {n} literals "
                         f"({', '.join(f'{k * n + 1}..{k * n + n}' for k in range(rows))})\n")
                fh.write(f"p cnf {top} {len(clauses)}\n")
                fh.writelines(" ".join(map(str, c + [0])) + "\n" for c in clauses)
            written.append(cnf_path)
            cnf_note = f"formula.cnf is {encoding} alone over {'two rows of ' if rows == 2 else ''}{n} literals"
        except Exception as e:  # noqa: BLE001
            cnf_note = f"no formula.cnf: {encoding} failed ({type(e).__name__}: {e})"
    text = report_text(result, command, cnf_note, encoding, solver)
    (out / "report.txt").write_text(text + "\n")
    written.append(out / "report.txt")
    return written


def _culprit(result: FuzzResult) -> tuple[str, str]:
    """The encoding and solver the first finding names (else the first ones asked for)."""
    first = result.finding.findings[0]
    for e in result.encodings:
        for s in result.solvers:
            if first.startswith(f"{e} + {s}"):
                return e, s
        if first.startswith(f"encoding {e} "):
            return e, result.solvers[0]
    return (result.encodings[0] if result.encodings[0] != "auto" else "pairwise"), result.solvers[0]


def describe(instance: Instance) -> str:
    b = instance.board
    blocked = b.ncells - int(b.area)
    where = f"wrap {b.wrap}" if b.is_square else f"{b.grid} grid"
    return (f"a {'x'.join(map(str, b.shape))} board ({blocked} blocked cell{'s' if blocked != 1 else ''}, {where}) "
            f"with pieces {instance.pieces_spec()}")


def report_text(result: FuzzResult, command: str, cnf_note: str, encoding: str, solver: str) -> str:
    """One paragraph: what disagreed, on which instance, and how to see it again."""
    import shlex

    f = result.finding
    alone = " ".join(f"{problem} (the smallest n that shows it)." for _, problem in result.alone.values())
    examples = f"{result.examples} example{'s' if result.examples != 1 else ''}"
    if f is None:
        return (f"tilesat fuzz found an encoding that is wrong alone (seed {result.seed}; after {examples} "
                f"no instance disagreed): {alone} {cnf_note}: a correct encoding has exactly one model on "
                f"the literals per choice of one true literal in each row. Reproduce with '{command}'.")
    oracle = {"none": "no tiling", "unique": "exactly one tiling", "multiple": "several tilings",
              "many": f"more than {CAP} tilings"}.get(f.truth, "no answer")
    shrunk = ("shrunk by hypothesis to a minimal example" if f.shrunk
              else "not fully shrunk: the run stopped while shrinking")
    first = f.findings[0]
    task = next((t for t in ("solve", "check-unique", "count") if f", {t}:" in first), None)
    if task is None and "the process died" in first:
        task = "count"  # the crash may come at any solve: count makes them all
    if task is None:  # "failed after N tilings": the search that would have found tiling N + 1
        after = re.search(r"failed after (\d+|no) tiling", first)
        n = 0 if after is None or after.group(1) == "no" else int(after.group(1))
        task = {0: "solve", 1: "check-unique"}.get(n, "count")
    again = {"solve": "solve", "check-unique": "check-unique", "count": "count --method blocking"}[task]
    return (f"tilesat fuzz found a disagreement after {examples} "
            f"(seed {result.seed}; {shrunk}, {result.shrink_tries} shrinking tries). On {describe(f.instance)}, "
            f"where the brute-force oracle finds {oracle}: " + "; ".join(f.findings) + ". "
            + (f"Also, {alone} " if alone else "")
            + f"instance.txt is the instance; {cnf_note}. Reproduce with "
            f"'tilesat {again} instance.txt --encoding {shlex.quote(encoding)} --solver {shlex.quote(solver)}', "
            f"or exactly with '{command}'.")
