"""Counting tilings, by four methods that must agree.

- ``blocking``: one incremental SAT solver, a blocking clause over the
  placement variables after each tiling (each one verified);
- ``ganak``: exact projected model counting with Ganak (``pyganak``) over
  the placement variables (auxiliary variables are not always determined by
  the placements, so the projection matters);
- ``approx``: an (epsilon, delta) estimate by ApproxMC (``pyapproxmc``);
- ``dlx``: exact cover by dancing links (``xcover``) over the same
  placements, for piece counts that exact cover expresses (``*``, ``1``,
  ``0..1``).

The work is split into *units*: a placement forced into every tiling (a
cube) or none, and the symmetries whose fixed tilings to count there.
Units run in one process or in ``jobs`` processes (never more than there
are units) and their counts add up.  A ``timeout`` bounds the whole count
(:mod:`tilesat.running.control`): when it passes, or on Ctrl-C, the tilings counted
so far are a lower bound.  Ganak and ApproxMC run in a forked child, since
neither returns to Python before it is done.

Up to symmetry, Burnside's lemma: classes = (1/|G|) sum over g of the
tilings g maps to themselves.  When a piece is used exactly once, fewer
units suffice: every tiling holds one placement of it, so the units are one
representative p per orbit of its placements, and the classes are
sum over orbits of (1/|Stab(p)|) sum over h in Stab(p) of fix_h(tilings with p)
(orbit-stabiliser), about 1/|G| of the plain enumeration.  The whole-instance
engines (``COUNTERS``) count fix(identity) themselves and every other fix(g)
as the exact covers of the quotient by <g>, by the frontier DP
(:mod:`tilesat.engines.burnside`), in one unit.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

import numpy as np

from ..certify.certificate import Certificate, CertificateError, check_certificate, load_lp, lp_estimate, lp_gate, quick_check
from ..certify.checks import obstruction, placement_check
from ..running.control import (
    Child, ChildError, Deadline, TimedOut, call_in_child, deadline, in_child_process, may_start_children, run_watchers,
    stream_from_child, time_limit, wait_step, watching,
)
from ..engines.dlx import dlx_problem, stream_covers
from ..sat.encodings import DEFAULT_ENCODING
from ..errors import TilesatError
from ..sat.formula import DEFAULT_CARD, Formula, compile_formula, resolve_encoding
from ..model.instance import INF, Instance
from ..model.footprint import check_memory
from ..sat.options import SatOptions
from ..model.placements import Placements, generate_placements
from .solve import TilingSearch, iter_tilings
from ..sat.solvers import DEFAULT_SOLVER
from ..running.stdout_guard import native_output
from ..model.symmetry import Symmetry, symmetry_group
from ..model.tiling import Tiling
from ..certify.verify import verify_tiling

# Engines that count a whole instance at once, without listing: a module
# with ``problem(instance)`` (why it cannot, or None) and ``count(instance,
# placements)``.  Adding one is a module and a line here.
COUNTERS = {"pfaffian": "tilesat.engines.pfaffian", "frontier": "tilesat.engines.frontier"}
# auto takes the frontier engine up to this window (its states grow as 2^width;
# measured: 6x10 pentominoes, window 24, 2.3-3.4 s against dancing links' 6-7 s)
FRONTIER_WIDTH = 24
METHODS = ("auto", "blocking", "ganak", "approx", "dlx", "native") + tuple(COUNTERS)
ENUMERATORS = ("blocking", "dlx", "native")
LIST_METHODS = ("auto",) + ENUMERATORS
# The SAT options each method uses: a method given one it cannot use says so.
USES = {"blocking": ("encoding", "solver", "card"), "ganak": ("encoding", "card"), "approx": ("encoding", "card"),
        "dlx": (), "native": (), **{name: () for name in COUNTERS}}


def counter_engine(name: str):
    """The module of a whole-instance counting engine, imported on first use (numba code loads slowly)."""
    return importlib.import_module(COUNTERS[name])


def refuse_unused(options: SatOptions, method: str) -> None:
    """A usage error naming the methods that can use an option given to one that cannot."""
    for name in options.asked():
        if name not in USES[method]:
            can = [m for m, uses in USES.items() if name in uses]
            raise TilesatError(f"--{name}: --method {method} does not use it; it is for --method {' or '.join(can)}")


@dataclass
class CountResult:
    count: int  # raw tilings (a lower bound when not exact)
    exact: bool
    method: str
    why: str  # why this method ran
    up_to_symmetry: int | None = None
    group: list[str] | None = None
    seconds: float = 0.0
    estimate: dict | None = None  # approx: {"epsilon": .., "delta": ..}
    interrupted: bool = False
    timed_out: bool = False
    limited: bool = False
    units: int = 1
    jobs: int = 1
    reason: str | None = None  # a quick check that answered 0
    encoding: str = DEFAULT_ENCODING
    solver: str = DEFAULT_SOLVER
    certificate: Certificate | None = None  # checked: why the count is 0
    certificate_check: dict | None = None  # whether the LP ran, and what it found
    cluster: str | None = None  # "dask": the units ran as tasks on a Dask cluster of ``jobs`` workers
    resumed: int = 0  # units whose counts came from a checkpoint
    unit_seconds: list | None = None  # per unit: the seconds it took (None: not run)

    @property
    def group_order(self) -> int | None:
        return len(self.group) if self.group is not None else None

    def to_json(self) -> dict:
        stopped = "timeout" if self.timed_out else ("interrupted" if self.interrupted else None)
        return {"count": self.count, "exact": self.exact, "method": self.method, "why": self.why,
                "stopped": stopped,
                "up_to_symmetry": self.up_to_symmetry, "group_order": self.group_order,
                "group": self.group, "estimate": self.estimate, "units": self.units, "jobs": self.jobs,
                "encoding": self.encoding, "solver": self.solver, "reason": self.reason,
                "certificate": self.certificate.to_json() if self.certificate is not None else None,
                "certificate_check": self.certificate_check, "cluster": self.cluster, "resumed_units": self.resumed,
                "seconds": round(self.seconds, 6)}


# --- which method ---------------------------------------------------------

def choose_method(instance: Instance, limit: int | None, options: SatOptions | None = None,
                  up_to_symmetry: bool = False) -> tuple[str, str]:
    """(method, why) for ``--method auto``: among the methods that can use
    the SAT options given (``options``), the fastest for the instance."""
    asked = set(options.asked()) if options else set()
    if "solver" in asked:
        return "blocking", "--solver given: blocking is the method that uses a SAT solver"
    dominoes = all(r.piece.size == 2 for r in instance.rules) and instance.board.wrap == "none"  # before importing numba
    if (limit is None and not asked and dominoes and counter_engine("pfaffian").problem(instance) is None
            and (quotients := _quotients_fit(instance, up_to_symmetry)) is not None):
        return "pfaffian", ("dominoes on a planar board: Kasteleyn's determinant counts them without search"
                            + quotients)
    dlx_ok = dlx_problem(instance) is None and not asked
    if limit is not None:
        if dlx_ok:
            return "dlx", "--limit: an enumerator stops at N; exact cover lists fastest"
        return "blocking", "--limit with SAT options or piece counts exact cover cannot express"
    bounded = all(r.max != INF for r in instance.rules)
    if not asked and bounded and instance.board.is_square:  # the compiled enumerator: square boards only
        return "native", ("every piece has a bounded count: the compiled enumerator (first empty cell, "
                          "region pruning) lists the tilings fastest")
    if not asked:
        frontier = counter_engine("frontier")
        if (frontier.problem(instance) is None and (width := frontier.make_plan(instance).width) <= FRONTIER_WIDTH
                and (quotients := _quotients_fit(instance, up_to_symmetry)) is not None):
            return "frontier", (f"a frontier of {width + 1} cells: dynamic programming over it counts "
                                "without listing" + quotients)
    if all(r.max == INF and r.min == 0 for r in instance.rules) and max(r.piece.size for r in instance.rules) <= 3:
        return "ganak", "unlimited pieces of at most 3 cells: counts grow exponentially, ganak counts without listing"
    if len(instance.board.regions()) > 1:
        return "ganak", "the board splits into separate regions: ganak multiplies their counts"
    if dlx_ok:
        return "dlx", "an exact-cover puzzle: dancing links lists tilings fastest"
    if asked:
        return "blocking", "SAT options given: one SAT call per tiling"
    return "blocking", "piece counts beyond exact cover: one SAT call per tiling"


_CHOSEN: list = []  # [(instance, placements, group)] that choose_method made, for _count to take


def _placements_and_group(instance: Instance) -> tuple[Placements, list[Symmetry]]:
    """The placements and the symmetry group: those choose_method just made (once: the
    reference is dropped, placements can be big), else new ones."""
    if _CHOSEN and _CHOSEN[0][0] is instance:
        _, placements, group = _CHOSEN.pop()
        return placements, group
    _CHOSEN.clear()
    placements = generate_placements(instance)
    return placements, symmetry_group(placements)


def _quotients_fit(instance: Instance, up_to_symmetry: bool) -> str | None:
    """For a whole-instance engine: "" without --up-to-symmetry; with it, the
    words for the reason when every symmetry's quotient (:mod:`tilesat.engines.burnside`)
    has a frontier of at most FRONTIER_WIDTH + 1 cells, else None."""
    if not up_to_symmetry:
        return ""
    from ..engines.burnside import widest

    placements, group = _placements_and_group(instance)
    _CHOSEN[:] = [(instance, placements, group)]  # the count that follows takes them
    if len(group) == 1:
        return "; the board has no symmetry but the identity"
    width = widest(placements, group)
    if width > FRONTIER_WIDTH:
        return None
    return (f"; classes by Burnside, the tilings each symmetry fixes counted by the frontier DP "
            f"on its quotient (at most {width + 1} cells wide)")


# --- units of work --------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """One independent piece of a count, small and picklable: the same
    description is a ``--jobs`` task, a Dask task and a checkpoint record."""

    forced: tuple[int, ...] = ()  # placements every tiling of this unit holds (a cube)
    syms: tuple[int, ...] = (0,)  # indices into the group: count the tilings each fixes
    weight: int = 1  # raw tilings = weight * fix(identity) (the orbit's size)

    def to_json(self) -> dict:
        return {"forced": list(self.forced), "syms": list(self.syms), "weight": self.weight}


def plan_key(units: list[Unit]) -> str:
    """A short hash of a plan: a checkpoint records it, and refuses a plan that differs."""
    import hashlib
    import json

    text = json.dumps([u.to_json() for u in units], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _most_constrained_cell(placements: Placements) -> np.ndarray:
    """The placements covering the open cell with fewest of them."""
    indptr, ids = placements.by_cell()
    cells = placements.instance.board.open_cells
    degree = indptr[cells + 1] - indptr[cells]
    x = cells[int(np.argmin(degree))]
    return ids[indptr[x] : indptr[x + 1]]


class _Splitter:
    """Cube-and-conquer on a unit: put down, one by one, each placement that
    can cover the open cell with fewest such placements left (the tilings of
    the unit are the disjoint union of the children's)."""

    def __init__(self, placements: Placements):
        self.P = placements
        self.by_cell = placements.by_cell()
        self.open = placements.instance.board.open_cells
        self.owner = np.repeat(np.arange(len(placements), dtype=np.int64), np.diff(placements.indptr))
        self.rmax = np.array([min(r.max, len(placements)) for r in placements.instance.rules], dtype=np.int64)

    def remaining(self, forced: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """(candidates left per open cell, the placements that can still go down),
        or None when no tiling holds the forced placements."""
        P = self.P
        covered = np.zeros(P.instance.board.ncells, dtype=bool)  # flat indices on every grid
        used = np.zeros(len(self.rmax), dtype=np.int64)
        for p in forced:
            cells = P.cells_of(p)
            if covered[cells].any():
                return None
            covered[cells] = True
            used[P.rule[p]] += 1
        if (used > self.rmax).any():
            return None
        clash = np.zeros(len(P), dtype=bool)
        np.logical_or.at(clash, self.owner, covered[P.cells])
        ok = ~clash & (used[P.rule] < self.rmax[P.rule])
        indptr, ids = self.by_cell
        cells = self.open[~covered[self.open]]
        running = np.concatenate([[0], np.cumsum(ok[ids])])
        degree = running[indptr[cells + 1]] - running[indptr[cells]]
        return np.stack([cells, degree]), ok

    def split(self, unit: Unit) -> list[Unit] | None:
        """The children of ``unit`` ([] when it has no tiling), or None when nothing is left to split."""
        left = self.remaining(unit.forced)
        if left is None:
            return []
        (cells, degree), ok = left
        if not len(cells):
            return None
        j = int(np.argmin(degree))
        if degree[j] == 0:
            return []
        indptr, ids = self.by_cell
        x = int(cells[j])
        choices = ids[indptr[x] : indptr[x + 1]]
        return [Unit(unit.forced + (int(q),), unit.syms, unit.weight) for q in choices[ok[choices]]]


def refine(placements: Placements, units: list[Unit], target: int) -> list[Unit]:
    """Split the units likely biggest (fewest placements down; among those, the
    first planned) until there are at least ``target`` of them, or none can be
    split.  Deterministic: a checkpoint's resume plans the same units."""
    if len(units) >= target:
        return units
    import heapq

    splitter = _Splitter(placements)
    heap = [(len(u.forced), i, u) for i, u in enumerate(units)]
    heapq.heapify(heap)
    done: list[tuple[int, Unit]] = []  # (order, unit) that cannot be split further
    order = len(units)
    while heap and len(heap) + len(done) < target:
        _, i, unit = heapq.heappop(heap)
        children = splitter.split(unit)
        if children is None:
            done.append((i, unit))
            continue
        for child in children:  # [] drops a unit without tilings
            heapq.heappush(heap, (len(child.forced), order, child))
            order += 1
    return [u for _, u in sorted(done + [(i, u) for _, i, u in heap], key=lambda t: t[0])]


def plan_units(placements: Placements, group: list[Symmetry] | None, split: bool = False, *,
               target: int = 1, orbits: list[Symmetry] | None = None) -> list[Unit]:
    """The units of work: their counts add up to the whole.  ``split``: at
    least one cube per placement of the most constrained cell (or per orbit);
    ``target``: split further until there are that many.  ``orbits``: the
    board's symmetries for a raw count (``group`` None): one unit per orbit of
    the piece used once, weighted by the orbit's size, instead of per placement."""
    all_syms = tuple(range(len(group))) if group else (0,)
    instance = placements.instance
    split = split or target > 1
    symmetries = group if group else (orbits if split else None)
    units: list[Unit] | None = None
    if symmetries and len(symmetries) > 1:
        # (a rule some symmetry exchanges with another, a one-sided F5 with F5', cannot
        # serve: its placements' orbits hold the other rule's placements too)
        once = [k for k, r in enumerate(instance.rules) if r.min == r.max == 1
                and all((placements.rule[g.placements[placements.of_rule(k)]] == k).all() for g in symmetries)]
        if once:
            # the piece used exactly once with the fewest placements: fewest units
            k = min(once, key=lambda k: int((placements.rule == k).sum()))
            units, seen = [], set()
            for p in placements.of_rule(k).tolist():
                if p in seen:
                    continue
                orbit = {int(g.placements[p]) for g in symmetries}
                seen |= orbit
                stab = tuple(i for i, g in enumerate(symmetries) if int(g.placements[p]) == p) if group else (0,)
                units.append(Unit((p,), stab, len(orbit)))
    if units is None:
        if not split or len(placements) == 0:
            return [Unit((), all_syms)]
        units = [Unit((int(p),), all_syms) for p in _most_constrained_cell(placements)]
    return refine(placements, units, target)


# --- counting one unit, by method ----------------------------------------

class Context:
    """What every unit of one count shares (built once per process)."""

    def __init__(self, instance: Instance, method: str, encoding: str, solver: str, card: str,
                 group: list[Symmetry] | None, epsilon: float, delta: float, seed: int,
                 placements: Placements | None = None):
        self.instance = instance
        self.method = method
        self.encoding, self.solver, self.card = encoding, solver, card
        self.placements = placements if placements is not None else generate_placements(instance)
        self.group = group or [None]
        self.epsilon, self.delta, self.seed = epsilon, delta, seed
        self._formula: Formula | None = None
        self._sizes = np.diff(self.placements.indptr)

    @property
    def formula(self) -> Formula:
        if self._formula is None:
            self._formula = compile_formula(self.placements, self.encoding, self.card)
        return self._formula

    def run(self, unit: Unit, on_tiling: Callable[[], None] = lambda: None, limit: int | None = None) -> list[int]:
        """Tilings fixed by each of ``unit.syms`` (the identity: all), in the unit."""
        if self.method in COUNTERS:  # the whole instance at once (one unit)
            engine = counter_engine(self.method)
            syms = [self.group[i] for i in unit.syms]
            if all(g is None or g.is_identity for g in syms):  # each fixes every tiling
                return [call_in_child(engine.count, self.instance, self.placements, what=self.method)] * len(syms)
            from ..engines.burnside import fixed_counts  # the other symmetries by their quotients

            return call_in_child(fixed_counts, engine, self.placements, syms, what=self.method)
        if self.method == "native" and all(self.group[i] is None or self.group[i].is_identity for i in unit.syms):
            # counted without listing; each symmetry fixes every tiling (more than one when a
            # board map moves no placement: the half turn of a 1x2 board, found by tests/test_burnside.py)
            return [self._native_count(unit.forced or None)] * len(unit.syms)
        if self.method in ENUMERATORS:
            fixed = [0] * len(unit.syms)
            syms = [self.group[i] for i in unit.syms]
            for chosen in self.enumerate(unit.forced or None, limit):
                for j, g in enumerate(syms):
                    if g is None or g.is_identity or g.fixes(chosen):
                        fixed[j] += 1
                on_tiling()
            return fixed
        return [self.model_count(unit.forced or None, self.group[i]) for i in unit.syms]

    def timed_run(self, unit: Unit) -> tuple[list[int], float]:
        """:meth:`run`, and the seconds it took (a checkpoint records them: the units' sizes)."""
        t = time.perf_counter()
        counts = self.run(unit)
        return counts, time.perf_counter() - t

    # enumerators yield the chosen placement indices of each tiling
    def enumerate(self, forced: tuple[int, ...] | None, limit: int | None = None) -> Iterator[np.ndarray]:
        if self.method == "blocking":
            yield from self._blocking(forced, limit)
        else:
            yield from self._dlx(forced, limit)

    def _covers_once(self, chosen: np.ndarray) -> bool:
        """Every open cell covered once (the cheap check for every tiling after a unit's first,
        which went through the full checker): dancing links' options are disjoint by
        construction, the native enumerator's cells are checked here too."""
        area = self.instance.board.area
        if self._sizes[chosen].sum() != area:
            return False
        if self.method == "dlx":
            return True
        cells = np.concatenate([self.placements.cells_of(int(i)) for i in chosen])
        return np.unique(cells).size == area

    def _native_count(self, forced: tuple[int, ...] | None) -> int:
        from ..engines import enumerator

        if in_child_process():
            return enumerator.count(self.instance, self.placements, forced)
        _load_before_fork(enumerator.warm_up)
        return call_in_child(enumerator.count, self.instance, self.placements, forced, what="native")

    def _blocking(self, forced, limit):
        with TilingSearch(self.instance, self.encoding, self.solver, self.card) as search:
            for p in forced or ():
                search.require(p)
            n = 0
            while (limit is None or n < limit) and search.next() is not None:
                n += 1
                yield np.asarray(search.last_chosen)
        self.exhausted = search.exhausted

    def _dlx(self, forced, limit):
        P = self.placements
        n = 0
        self.exhausted = True
        if self.method == "native":
            from ..engines import enumerator

            if in_child_process():
                stream = enumerator.tilings(self.instance, P, forced)
            else:
                _load_before_fork(enumerator.warm_up)
                stream = stream_from_child(enumerator.tilings, self.instance, P, forced, what="native")
        else:
            stream = stream_covers(P, forced)
        for chosen in stream:
            if n == 0:  # the first tiling of each unit through the full checker
                verify_tiling(self.instance, Tiling.from_placements(P, chosen.tolist()))
            elif not self._covers_once(chosen):
                raise AssertionError(f"BUG: {self.method} returned a non-tiling")
            n += 1
            yield chosen
            if limit is not None and n >= limit:
                self.exhausted = False
                return

    def model_count(self, forced: tuple[int, ...] | None, g: Symmetry | None) -> int:
        """Ganak's or ApproxMC's count; in a forked child unless this is already a worker process."""
        if in_child_process():
            return self._model_count(forced, g)
        self.formula  # compiled here, inherited by the child
        return call_in_child(self._model_count, forced, g, what=self.method)

    def _model_count(self, forced: tuple[int, ...] | None, g: Symmetry | None) -> int:
        f = self.formula
        clauses = list(f.clauses())
        clauses.extend([p + 1] for p in forced or ())
        if g is not None and not g.is_identity:
            # tilings g maps to themselves: x_p <-> x_g(p) for every placement p
            p = np.arange(len(self.placements))
            q = g.placements
            moved = p != q
            a, b = p[moved] + 1, q[moved] + 1
            clauses.extend(np.stack([-a, b], axis=1).tolist())
        projection = list(range(1, len(self.placements) + 1))
        with native_output():  # ganak prints "c o ..." lines on the process's stdout
            if self.method == "ganak":
                import pyganak

                counter = pyganak.Counter(seed=self.seed)
                counter.add_clauses(clauses)
                counter.set_sampling_set(projection)
                return int(counter.count())
            import pyapproxmc

            counter = pyapproxmc.Counter(seed=self.seed, epsilon=self.epsilon, delta=self.delta)
            counter.add_clauses(clauses)
            cells, hashes = counter.count(projection)
            return int(cells) * 2 ** int(hashes)


def _load_before_fork(load: Callable[[], None]) -> None:
    """Load an engine's compiled code here, before forking its children, so
    that they inherit it; under a time limit the child loads it instead (the
    import takes 1-2 s of numba that nothing could stop here)."""
    if deadline().at is None:
        load()


# --- the certificate check, raced beside the count --------------------------

#: ``certificates=``: True (the LP raced beside the count where :func:`lp_gate`
#: allows it), "always" (the LP first, on any board), False (never).
CERTIFICATE_MODES = (True, "always", False)


class Certified(Exception):
    """The LP beside the count won: a checked certificate that there is no tiling."""

    def __init__(self, certificate: Certificate):
        super().__init__(certificate.sentence())
        self.certificate = certificate


#: The count runs alone for this long (at least) before the LP's child is
#: forked: a count that ends sooner (most of them) never pays for the LP.
#: Measured on 6x10 pentominoes (0.25-0.45 s, 2 busy cores): the LP started
#: at once cost 20% (HiGHS's import, 0.2-0.3 s of CPU, beside the count);
#: a child forked at once that slept through the count still cost 7% (30 ms).
RACE_HEAD_START = 0.5
#: HiGHS's import in a fresh child, added to the LP's estimate (lp_estimate leaves it out).
LP_LOAD_SECONDS = 0.25


def _lp_target(conn, instance: Instance, placements: Placements) -> None:
    """In the LP's child: the certificate check, its answer (a Certificate or None) sent back."""
    with contextlib.suppress(OSError):
        os.nice(10)  # where the count and the LP share a core, the count goes first
    load_lp()
    conn.send(("ok", quick_check(instance, placements, gated=False)))


class CertificateRace:
    """The certificate check (:mod:`tilesat.certify.certificate`) beside a count or a listing.

    Run before the count, the LP would cost every count it does not answer
    0.2 s or more (loading HiGHS, then the LP): as much as the whole count of
    6x10 pentominoes.  So, where :func:`lp_gate` allows it, the LP races
    beside the count: :meth:`start` starts the clock as the count starts, and
    :meth:`poll` (a :func:`~tilesat.running.control.watching` hook, run at each of
    the count's 50 ms polls) forks the LP into its own child once the count
    has had its head start (``head_start``: what the LP is expected to take,
    HiGHS's import included, at least RACE_HEAD_START; a count that ends
    sooner pays nothing), then looks at the LP's pipe without waiting: a
    certificate that checks here too raises :class:`Certified`, which stops
    the count like a deadline (its children killed on the way out).  The
    first tiling found, or the count's end, stops the LP (:meth:`lost`,
    :meth:`stop`).  ``report`` says what happened (the result's
    ``certificate_check``)."""

    def __init__(self, instance: Instance, placements: Placements, mode: bool | str, method: str,
                 what: str = "count"):
        if mode not in CERTIFICATE_MODES:
            raise TilesatError(f"certificates={mode!r}: use True (raced beside the {what}), 'always' or False")
        self.instance, self.placements, self.mode, self.what = instance, placements, mode, what
        self.child: Child | None = None
        self.certificate: Certificate | None = None
        self.head_start = max(RACE_HEAD_START, LP_LOAD_SECONDS + lp_estimate(placements))
        self.runs, why = False, "turned off"
        if mode is True:
            self.runs, why = lp_gate(placements)
            if method in COUNTERS:
                self.runs, why = False, (f"the {method} engine counts in polynomial time and answers 0 as fast "
                                         "as the LP would")
            elif self.runs and not may_start_children():
                self.runs, why = False, "already in a child process: no race is started from here"
            elif self.runs:
                why = (f"few open cells are forced: the LP runs in a child beside the {what} once it has "
                       f"run {self.head_start:.2f} s (the LP is expected to take {lp_estimate(placements):.2f} s)")
        elif mode == "always":
            why = f"asked for: the LP before the {what}"
        self.report: dict = {"ran": False, "why": why}
        self.pending = False  # the LP's child is yet to be forked
        self._t0 = 0.0

    # -- "always": the LP first, here
    def first(self) -> Certificate | None:
        """The LP before anything (``certificates="always"``), under the current deadline."""
        self._t0 = time.perf_counter()
        load_lp()
        cert = quick_check(self.instance, self.placements, gated=False)
        self._answer(cert)
        return self.certificate

    # -- True: raced
    def start(self) -> None:
        """The count starts now; the LP's turn comes after its head start."""
        self.pending = self.runs
        self._t0 = time.perf_counter()
        self._first_poll = None

    def poll(self) -> None:
        """The LP forked when the head start is over; its answer if it has
        come (no waiting); raises :class:`Certified` when it is a certificate."""
        if self.pending:
            # the head start counts from the count's first wait: loading an engine
            # here before it (numba, 1-2 s in a fresh process) is not counting
            now = time.perf_counter()
            self._first_poll = self._first_poll or now
            if now - self._first_poll < self.head_start:
                return
            self.pending = False
            self.child = Child(_lp_target, self.instance, self.placements)
            self.report["ran"] = True
            return
        if self.child is None or not self.child.ready():
            return
        child, self.child = self.child, None
        try:
            message = child.recv()
        except ChildError as e:
            self.report.update(found=False, error=str(e), seconds=self._seconds())
            return
        finally:
            child.kill()
        self._answer(message[1])
        if self.certificate is not None:
            raise Certified(self.certificate)

    def _answer(self, cert: Certificate | None) -> None:
        self.report.update(ran=True, found=False, seconds=self._seconds())
        if cert is None:
            self.report["why"] += "; the LP found no certificate (its relaxation is feasible)"
            return
        try:
            check_certificate(self.instance, cert)  # again, here: nothing unchecked is reported
        except CertificateError as e:
            self.report.update(error=f"BUG: the LP's certificate does not check: {e}")
            return
        self.certificate = cert
        self.report.update(found=True, **cert.stats)

    def _seconds(self) -> float:
        return round(time.perf_counter() - self._t0, 6)

    def lost(self, why: str) -> None:
        """A tiling exists (or the count is over): the LP can only lose; it is stopped (or never started)."""
        if self.pending:
            self.pending = False
            self.report["why"] += f"; {why} within the head start, so the LP never ran"
        if self.child is not None:
            self.child.kill()
            self.child = None
            self.report.update(found=False, seconds=self._seconds())
            self.report["why"] += f"; {why}, so the LP was stopped"

    def stop(self, finished: bool) -> None:
        """The count is over: a last look at the LP's answer when it ``finished`` (not
        stopped by a deadline or Ctrl-C), then the LP stopped."""
        if finished:
            with contextlib.suppress(Certified, TimedOut):
                self.poll()
        self.lost(f"the {self.what} finished first" if finished else f"the {self.what} was stopped")


# --- the driver -----------------------------------------------------------

#: Units per worker when a count is shared out (``--jobs``, ``--cluster``):
#: enough that one slow unit does not leave the others idle at the end.
UNITS_PER_WORKER = 20
#: Units of a serial count with a checkpoint: what a crash can lose is one of them.
CHECKPOINT_UNITS = 64

_WORKER: Context | None = None


def _init_worker(args) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _WORKER = Context(*args)


def _run_units(ctx: Context, units: list[Unit], todo: list[int]) -> Iterator[tuple[int, list[int], float]]:
    """(index, counts, seconds) of each unit of ``todo``, one after another (in one child, streamed back)."""
    for i in todo:
        yield (i, *ctx.timed_run(units[i]))


def _run_in_worker(unit: Unit) -> tuple[list[int], float]:
    return _WORKER.timed_run(unit)


#: blocking builds a SAT solver per unit (3x20 pentominoes up to symmetry, --jobs 2:
#: 12 s with 9 units, 18 s with 49): fewer units per worker unless a cluster or a checkpoint asks
BLOCKING_UNITS_PER_WORKER = 4


def split_target(jobs: int, shared: bool, checkpoint: bool, method: str = "native", cluster: bool = False) -> int:
    """How many units to plan: 1 (no further split) for a serial count."""
    per_worker = BLOCKING_UNITS_PER_WORKER if method == "blocking" and not (cluster or checkpoint) else UNITS_PER_WORKER
    target = per_worker * jobs if shared else 1
    return max(target, CHECKPOINT_UNITS) if checkpoint else target


def count_tilings(
    instance: Instance,
    method: str = "auto",
    *,
    up_to_symmetry: bool = False,
    limit: int | None = None,
    jobs: int = 1,
    encoding: str = DEFAULT_ENCODING,
    solver: str = DEFAULT_SOLVER,
    card: str = DEFAULT_CARD,
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 1,
    timeout: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    certificates: bool | str = True,
    checkpoint: str | os.PathLike | None = None,
    cluster: str | None = None,
    address: str | None = None,
) -> CountResult:
    """Count the tilings (and their classes under the board's symmetries).

    ``progress(tilings, units_done, units)`` is called as work advances.
    Ctrl-C returns what was counted so far, as a lower bound.
    ``certificates`` (:class:`CertificateRace`): True races the LP's check
    of "no tiling" beside the count where it may pay, "always" runs it
    first, False never; a certificate found makes the count an exact 0.
    ``checkpoint``: a file recording each finished unit (:mod:`tilesat.running.checkpoint`);
    run again with the same file, the finished units are skipped.
    ``cluster="dask"``: the units as tasks on a Dask cluster
    (:mod:`tilesat.running.cluster`): a local one of ``jobs`` workers, or the
    scheduler at ``address``."""
    t0 = time.perf_counter()
    if method not in METHODS:
        raise TilesatError(f"unknown count method {method!r}; choose one of: {', '.join(METHODS)}")
    if jobs < 1:
        raise TilesatError("--jobs must be at least 1")
    from ..running.cluster import check_backend

    check_backend(cluster, address)
    options = SatOptions(encoding, solver, card, timeout)
    solver, timeout = options.solver, options.timeout
    check_memory(instance)  # before choosing a method: the region count alone is slow on huge boards
    if limit is not None and (up_to_symmetry or jobs > 1):
        raise TilesatError("--limit counts raw tilings in one process: it cannot go with --up-to-symmetry or --jobs")
    if limit is not None and (checkpoint is not None or cluster is not None):
        raise TilesatError("--limit stops in the middle of a unit: it cannot go with --checkpoint or --cluster")
    why = "chosen with --method"
    if method == "auto":
        method, why = choose_method(instance, limit, options, up_to_symmetry)
    elif method == "dlx" and (problem := dlx_problem(instance)):
        raise TilesatError(f"--method dlx: {problem}; use blocking or ganak")
    elif method in COUNTERS and (problem := counter_engine(method).problem(instance)):
        raise TilesatError(f"--method {method}: {problem}")
    elif method == "native" and (problem := _native_problem(instance)):
        raise TilesatError(f"--method native: {problem}")
    refuse_unused(options, method)
    if method == "dlx":
        solver = "xcover"
    elif method in ("ganak", "approx") or method in COUNTERS:
        solver = method
    if method in COUNTERS:
        jobs = 1  # one computation, no units to share out
    if limit is not None and method not in ENUMERATORS:
        raise TilesatError(f"--limit stops an enumeration; --method {method} counts without listing")
    if certificates not in CERTIFICATE_MODES:
        raise TilesatError(f"certificates={certificates!r}: use True (raced beside the count), 'always' or False")
    if not (0 < epsilon < float("inf") and 0 < delta < 1):
        raise TilesatError("--epsilon must be above 0 and --delta between 0 and 1")
    estimate = {"epsilon": epsilon, "delta": delta} if method == "approx" else None
    result = CountResult(0, method != "approx", method, why, estimate=estimate, jobs=jobs,
                         encoding=encoding, solver=solver)
    report = progress or (lambda tilings, done, total: None)
    book = None
    if checkpoint is not None:
        from ..running.checkpoint import Checkpoint, instance_digest
        from ..model.instance import format_instance

        identity = {"instance": instance_digest(format_instance(instance)), "method": method,
                    "up_to_symmetry": up_to_symmetry}
        book = Checkpoint(checkpoint, "count", identity).open()  # refused here, before any work

    try:
        with time_limit(timeout), contextlib.ExitStack() as stack:
            runner = None
            if cluster is not None:
                from ..running.cluster import DaskRunner

                runner = stack.enter_context(DaskRunner(jobs, address))
            if book is not None:
                stack.callback(book.close)
            return _count(instance, method, result, report, up_to_symmetry, limit, jobs, encoding, solver, card,
                          epsilon, delta, seed, t0, certificates, book, runner)
    except TimedOut:  # before the counting started (placements, symmetry group, the cluster)
        result.timed_out, result.exact = True, False
        result.seconds = time.perf_counter() - t0
        return result


def _count(instance, method, result, report, up_to_symmetry, limit, jobs, encoding, solver, card,
           epsilon, delta, seed, t0, certificates=True, book=None, runner=None) -> CountResult:
    if up_to_symmetry:
        placements, group = _placements_and_group(instance)
    else:
        placements, group = generate_placements(instance), None
    result.encoding = encoding = resolve_encoding(encoding, placements)  # what "auto" stands for here
    reason = obstruction(instance) or placement_check(placements)
    if group is not None:
        result.group = [g.name for g in group]
    result.certificate_check = {"ran": False, "why": "a board check answered first"}
    race = None
    if reason is None:
        race = CertificateRace(instance, placements, certificates, method)
        result.certificate_check = race.report
        if certificates == "always" and race.first() is not None:
            result.certificate, reason = race.certificate, race.certificate.sentence()
    if reason is not None:
        result.reason, result.exact = reason, True
        result.up_to_symmetry = 0 if up_to_symmetry else None
        result.seconds = time.perf_counter() - t0
        return result

    if method in COUNTERS:  # one computation: every symmetry's fixed tilings at once (tilesat.engines.burnside)
        units = [Unit((), tuple(range(len(group))) if group else (0,))]
        target = 1
    else:
        shared = jobs > 1 or runner is not None
        workers = runner.workers if runner is not None and runner.address is not None else jobs
        target = split_target(workers, shared, book is not None, method, runner is not None)
        if book is not None:
            target = book.param("split", target)  # a resume plans the same units as the run it resumes
        orbits = symmetry_group(placements) if group is None and target > 1 else None
        units = plan_units(placements, group, split=shared, target=target, orbits=orbits)
    result.units = len(units)
    result.unit_seconds = [None] * len(units)
    if runner is None:
        result.jobs = jobs = max(1, min(jobs, len(units)))  # a process per unit at most
    fixed = [[0] * len(u.syms) for u in units]  # per unit, per symmetry in u.syms
    done = [False] * len(units)
    tilings = [0]  # raw tilings of the finished units
    tilings_now = [0]  # and of the unit running now (one process)
    # forked workers inherit these, placements included: nothing is generated twice
    args = (instance, method, encoding, solver, card, group, epsilon, delta, seed, placements)

    def finish(i, counts, seconds=None, record=True):
        fixed[i], done[i] = list(counts), True
        if seconds is not None:
            result.unit_seconds[i] = seconds
        if record and book is not None:
            book.add(i, units[i], counts=list(counts), seconds=round(seconds, 6) if seconds is not None else None)
        tilings[0] += units[i].weight * counts[0]  # syms[0] is the identity: all tilings
        tilings_now[0] = tilings[0]
        if tilings[0]:
            race.lost("the count found tilings")
        report(tilings[0], sum(done), len(units))

    if book is not None:
        previous = book.begin(units, plan_key(units), {"split": target})
        for i, rec in previous.items():
            counts = rec.get("counts")
            if not (isinstance(counts, list) and len(counts) == len(units[i].syms)
                    and all(isinstance(c, int) and c >= 0 for c in counts)):
                from ..running.checkpoint import CheckpointError

                raise CheckpointError(f"checkpoint {book.path}: damaged: unit {i}'s counts are not what it needs")
            finish(i, counts, rec.get("seconds"), record=False)
        result.resumed = len(previous)
    todo = [i for i in range(len(units)) if not done[i]]
    report(tilings[0], sum(done), len(units))

    completed = False
    try:
        race.start()  # before the count: from here on, the count's waits look at the LP's pipe too
        with watching(race.poll):
            if not todo:
                pass  # every unit came from the checkpoint
            elif runner is not None:
                result.cluster = "dask"
                runner.run(Context, args, units, todo, finish)
                result.jobs = runner.workers
            elif jobs == 1 and method == "native" and limit is None and len(units) > 1 and not in_child_process():
                # every unit in one child, each unit's counts streamed back as it ends: a fork
                # per unit cost more than the search (6x10 pentominoes up to symmetry, 8 units: 0.43 s -> 0.27 s)
                ctx = Context(*args)
                from ..engines import enumerator

                _load_before_fork(enumerator.warm_up)  # loaded here, inherited by the child
                for i, counts, seconds in stream_from_child(_run_units, ctx, units, todo, what="native"):
                    finish(i, counts, seconds)
            elif jobs == 1:
                ctx = Context(*args)
                for i in todo:
                    unit = units[i]

                    def one_more(weight=unit.weight):
                        # so far: the finished units, and this one's tilings (each
                        # stands for ``weight`` tilings, one per orbit member)
                        tilings_now[0] += weight
                        race.lost("the count found a tiling")
                        report(tilings_now[0], sum(done), len(units))

                    t = time.perf_counter()
                    counts = ctx.run(unit, one_more, limit)
                    finish(i, counts, time.perf_counter() - t)
                if limit is not None and not ctx.exhausted:
                    result.limited = True
            else:
                if method == "native":
                    from ..engines import enumerator

                    _load_before_fork(enumerator.warm_up)  # the workers inherit it
                context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=(args,)) as pool:
                    futures = {pool.submit(_run_in_worker, units[i]): i for i in todo}
                    try:
                        pending = set(futures)
                        while pending:
                            finished, pending = wait(pending, timeout=wait_step(), return_when=FIRST_COMPLETED)
                            for fut in finished:
                                finish(futures[fut], *fut.result())
                    except BaseException:  # Ctrl-C, the deadline, the LP's certificate: the workers go at once
                        for proc in list(pool._processes.values()):
                            proc.terminate()
                        pool.shutdown(wait=False, cancel_futures=True)
                        raise
            completed = True
    except Certified as e:  # the LP won: there is no tiling
        result.certificate, result.reason = e.certificate, str(e)
    except KeyboardInterrupt:
        result.interrupted = True
    except TimedOut:
        result.timed_out = True
    finally:
        race.stop(completed)
    if completed and race.certificate is not None:  # it came at the count's end
        if max(tilings[0], tilings_now[0]):
            raise AssertionError("BUG: the count found tilings where a checked certificate says there are none")
        result.certificate, result.reason = race.certificate, race.certificate.sentence()

    if result.certificate is not None:
        result.exact, result.limited = True, False
        result.up_to_symmetry = 0 if group is not None else None
        result.seconds = time.perf_counter() - t0
        return result
    result.count = max(tilings[0], tilings_now[0])
    complete = all(done) and not result.interrupted and not result.timed_out and not result.limited
    result.exact = result.exact and complete
    if group is not None and complete:
        result.up_to_symmetry = _classes(units, fixed, len(group), method == "approx")
    result.seconds = time.perf_counter() - t0
    return result


def _classes(units: list[Unit], fixed: list[list[int]], order: int, rounded: bool) -> int:
    """Burnside (over the whole group) or orbit-stabiliser (per unit)."""
    if all(len(u.syms) == order for u in units):
        total = sum(sum(f) for f in fixed)
        classes = Fraction(total, order)
    else:
        classes = sum((Fraction(sum(f), len(u.syms)) for u, f in zip(units, fixed)), Fraction(0))
    if classes.denominator != 1 and not rounded:
        raise AssertionError(f"BUG: Burnside's count is not an integer ({classes})")
    return round(classes)


def choose_list_method(instance: Instance, options: SatOptions) -> tuple[str, str]:
    """(method, why) for ``list --method auto``: the compiled enumerator (any
    piece counts; 20-50x xcover on pentomino rectangles), or blocking clauses
    when SAT options were given."""
    if options.asked():
        return "blocking", "SAT options were given"
    if not instance.board.is_square:
        if dlx_problem(instance) is None:
            return "dlx", "the compiled enumerator takes square boards only; exact cover lists fastest"
        return "blocking", "the compiled enumerator takes square boards only"
    return "native", "the compiled enumerator lists tilings fastest"


def _native_problem(instance: Instance) -> str | None:
    from ..engines import enumerator

    return enumerator.problem(instance)


class Listing:
    """The tilings of :func:`iter_tilings_by`, one by one (an iterator with
    ``close()``); once it has ended, ``reason`` says why there were none when
    a check knew it (a certificate's sentence, a board check), ``certificate``
    holds the checked certificate and ``certificate_check`` whether the LP ran."""

    def __init__(self, run: Callable[["Listing"], Iterator[Tiling]]):
        self.reason: str | None = None
        self.certificate: Certificate | None = None
        self.certificate_check: dict | None = None
        self._tilings = run(self)

    def __iter__(self):
        return self

    def __next__(self) -> Tiling:
        return next(self._tilings)

    def close(self) -> None:
        self._tilings.close()


def iter_tilings_by(instance: Instance, method: str = "auto", limit: int | None = None, *,
                    encoding: str = DEFAULT_ENCODING, solver: str = DEFAULT_SOLVER, card: str = DEFAULT_CARD,
                    timeout: float | None = None, certificates: bool | str = True) -> Listing:
    """The tilings one by one by an enumerating method (``auto``: see
    :func:`choose_list_method`), each verified.  With ``timeout``,
    :class:`~tilesat.running.control.TimedOut` ends the iteration when the time is up.
    ``certificates`` as for :func:`count_tilings`: the LP raced beside the
    listing (stopped at the first tiling), first, or never."""
    if method not in LIST_METHODS:
        raise TilesatError(f"unknown list method {method!r}; available: {', '.join(LIST_METHODS)}")
    if certificates not in CERTIFICATE_MODES:
        raise TilesatError(f"certificates={certificates!r}: use True (raced beside the listing), 'always' or False")
    options = SatOptions(encoding, solver, card, timeout)
    method = _list_method(instance, method, options)
    return Listing(lambda listing: _listing(listing, instance, method, limit, options, certificates))


def _list_method(instance: Instance, method: str, options: SatOptions) -> str:
    """The enumerating method a listing uses (``auto`` resolved), refused in one
    line when it cannot list this instance or cannot use the options given."""
    check_memory(instance)
    if method == "auto":
        method, _ = choose_list_method(instance, options)
    if method != "blocking":
        refuse_unused(options, method)
        if method == "dlx" and (problem := dlx_problem(instance)) is not None:
            raise TilesatError(f"--method dlx: {problem}; use native or blocking")
        if method == "native" and (problem := _native_problem(instance)) is not None:
            raise TilesatError(f"--method native: {problem}")
    return method


class UnitListing:
    """The tilings of an instance unit by unit (``list --checkpoint``): the
    units of a split count (cubes only, no symmetry weights), each listed
    whole by an enumerating method, every tiling verified.  A checkpoint
    records a unit once its tilings are written, so a resumed listing
    writes each tiling once."""

    def __init__(self, instance: Instance, method: str = "auto", *, encoding: str = DEFAULT_ENCODING,
                 solver: str = DEFAULT_SOLVER, card: str = DEFAULT_CARD, target: int = CHECKPOINT_UNITS):
        if method not in LIST_METHODS:
            raise TilesatError(f"unknown list method {method!r}; available: {', '.join(LIST_METHODS)}")
        options = SatOptions(encoding, solver, card, None)
        method = _list_method(instance, method, options)
        self.instance, self.method, self.target = instance, method, target
        self.reason = obstruction(instance)
        self.ctx = Context(instance, method, options.encoding, options.solver, options.card, None, 0.8, 0.2, 1)
        self.reason = self.reason or placement_check(self.ctx.placements)
        self.units = [] if self.reason else plan_units(self.ctx.placements, None, split=True, target=target)

    def plan(self) -> str:
        return plan_key(self.units)

    def stream(self, todo: list[int]) -> Iterator[tuple[int, Tiling | None]]:
        """(i, tiling) for each tiling of each unit i of ``todo`` in turn, each
        verified, and (i, None) when unit i is over; searched in one forked child
        (stopped at once by Ctrl-C or the deadline)."""
        if self.method == "native":
            from ..engines import enumerator

            _load_before_fork(enumerator.warm_up)
        elif self.method == "dlx":
            from ..engines.dlx import load_xcover

            _load_before_fork(load_xcover)
        P = self.ctx.placements
        for i, chosen in stream_from_child(_list_units, self.ctx, self.units, todo, what=self.method):
            yield i, None if chosen is None else verify_tiling(
                self.instance, Tiling.from_placements(P, [int(p) for p in chosen]))


def _list_units(ctx: Context, units: list[Unit], todo: list[int]) -> Iterator[tuple[int, np.ndarray | None]]:
    for i in todo:
        for chosen in ctx.enumerate(units[i].forced or None):
            yield i, chosen
        yield i, None


def _listing(listing: Listing, instance: Instance, method: str, limit: int | None, options: SatOptions,
             certificates: bool | str) -> Iterator[Tiling]:
    limit_at = Deadline(options.timeout)  # held between yields: the consumer's time is not ours to bound
    listing.certificate_check = {"ran": False, "why": "a board check answered first"}
    race = stream = None
    try:
        with time_limit(limit_at):
            listing.reason = obstruction(instance)
            if listing.reason is not None:
                return
            if method == "blocking":
                placements = generate_placements(instance) if certificates else None
                stream = iter_tilings(instance, limit, **vars(options))  # verified tilings
            else:
                ctx = Context(instance, method, options.encoding, options.solver, options.card, None, 0.8, 0.2, 1)
                placements = ctx.placements
                stream = ctx.enumerate(None, limit)
            if certificates:
                listing.reason = placement_check(placements)
                if listing.reason is not None:
                    return
                race = CertificateRace(instance, placements, certificates, method, "listing")
                listing.certificate_check = race.report
                if certificates == "always" and race.first() is not None:
                    listing.certificate, listing.reason = race.certificate, race.certificate.sentence()
                    return
                race.start()
        while True:
            with time_limit(limit_at), watching(race.poll if race is not None else lambda: None):
                try:
                    item = next(stream, None)
                except Certified as e:
                    listing.certificate, listing.reason = e.certificate, str(e)
                    return
                if item is None:
                    break
                if race is not None:
                    race.lost("a tiling was found")
                tiling = item if method == "blocking" else (
                    verify_tiling(instance, Tiling.from_placements(ctx.placements, item.tolist())))
            yield tiling
        if race is not None:
            race.stop(True)
            if race.certificate is not None:
                listing.certificate, listing.reason = race.certificate, race.certificate.sentence()
    finally:
        if stream is not None:
            stream.close()  # a SAT search or a child streaming covers: ended now
        if race is not None:
            race.stop(False)
