"""Counting and listing tilings, by whichever engine ``--method`` names or
``auto`` picks (:mod:`tilesat.engines.auto`); every method must agree.

The work is split into *units* (:class:`~tilesat.engines.base.Unit`): a
placement forced into every tiling (a cube) or none, and the symmetries
whose fixed tilings to count there.  Units run in one process, in ``jobs``
processes (never more than there are units), or as tasks on a Dask cluster,
and their counts add up; a checkpoint records each finished one.  A
``timeout`` bounds the whole count (:mod:`tilesat.running.control`): when it
passes, or on Ctrl-C, the tilings counted so far are a lower bound.

Up to symmetry, Burnside's lemma: classes = (1/|G|) sum over g of the
tilings g maps to themselves.  When a piece is used exactly once, fewer
units suffice: every tiling holds one placement of it, so the units are one
representative p per orbit of its placements, and the classes are
sum over orbits of (1/|Stab(p)|) sum over h in Stab(p) of fix_h(tilings with p)
(orbit-stabiliser), about 1/|G| of the plain enumeration.  The whole-instance
engines count fix(identity) themselves and every other fix(g) as the exact
covers of the quotient by <g> (:mod:`tilesat.engines.burnside`), in one unit.

The LP's certificate of "no tiling" is raced beside a count or a listing
(:class:`tilesat.certify.schedule.LpRace`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os
import signal
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Iterator

import numpy as np

from ..certify.certificate import Certificate
from ..certify.checks import obstruction, placement_check
from ..certify.schedule import Certified, LpRace, check_mode
from ..certify.verify import verify_tiling
from ..engines.auto import choose
from ..engines.base import Approx, Context, Engine, Job, Outcome, Unit, refuse_unused
from ..engines.registry import check_takes, engine_for, engines, method_names
from ..errors import TilesatError
from ..model.footprint import check_memory
from ..model.display import show
from ..model.instance import Instance
from ..model.placements import Placements
from ..running.processes import check_jobs, process_pool, stop_pool
from ..model.symmetry import Symmetry, symmetry_group
from ..model.tiling import Tiling
from ..running.control import (
    STOP_GRACE, Deadline, TimedOut, load_before_fork, stream_from_child, time_limit, wait_step, watching,
)
from ..sat.encodings import DEFAULT_ENCODING
from ..sat.formula import resolve_encoding
from ..sat.options import SatOptions
from ..sat.solvers import DEFAULT_SOLVER
from .balance import Backend, Ledger, drive, split_record

METHODS = method_names("count")  # the built-ins and the plugins installed; a program may register more
LIST_METHODS = method_names("list")


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
    encoding: str | None = DEFAULT_ENCODING  # None: the method uses no formula
    solver: str | None = DEFAULT_SOLVER  # None: the method uses no SAT solver
    certificate: Certificate | None = None  # checked: why the count is 0
    certificate_check: dict | None = None  # whether the LP ran, and what it found
    cluster: str | None = None  # "dask": the units ran as tasks on a Dask cluster of ``jobs`` workers
    resumed: int = 0  # units whose counts came from a checkpoint
    splits: int = 0  # units split where they stood (their budget spent): their parts are units too
    uncounted: int = 0  # units running at the deadline whose tilings found by then are not in ``count``
    unit_seconds: list | None = None  # per unit: the seconds it took (None: not run)
    grid: str = "square"  # the board's grid (the symmetry group's words)

    def _repr_html_(self) -> str:
        """The count in a sentence (a notebook shows it): :mod:`tilesat.model.display`."""
        return show("count_html", self)

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
                "splits": self.splits, "uncounted_units": self.uncounted, "seconds": round(self.seconds, 6)}


# --- which method ---------------------------------------------------------

def choose_method(instance: Instance, limit: int | None, options: SatOptions | None = None,
                  up_to_symmetry: bool = False) -> tuple[str, str]:
    """(method, why) for ``count --method auto`` (the rules: :mod:`tilesat.engines.auto`)."""
    engine, why = choose(Job("count", instance, options or SatOptions(), limit=limit, up_to_symmetry=up_to_symmetry))
    return engine.name, why


def choose_list_method(instance: Instance, options: SatOptions) -> tuple[str, str]:
    """(method, why) for ``list --method auto`` (the rules: :mod:`tilesat.engines.auto`)."""
    engine, why = choose(Job("list", instance, options))
    return engine.name, why


def _suggested() -> dict[str, Engine]:
    """The methods an unused option's message suggests: those counting unit by unit
    (lexleader is what --break-symmetry asks for, not a place to send a --solver)."""
    return {name: e for name, e in engines("count").items() if e.plans_units}


def _count_engine(job: Job, method: str) -> tuple[Engine, str]:
    """The engine counting the job, and why; refused in one line where it cannot."""
    if method == "auto":
        engine, why = choose(job)
    else:
        engine, why = engine_for("count", method, "count method"), "chosen with --method"
        check_takes(engine, job.instance, "count")
    refuse_unused(job.options, engine, _suggested)
    if job.limit is not None and not engine.enumerates:
        raise TilesatError(f"--limit stops an enumeration; --method {engine.name} counts without listing")
    if not engine.plans_units:
        if not job.up_to_symmetry:
            raise TilesatError(f"--method {engine.name} counts one tiling per symmetry class: give --up-to-symmetry too")
        if job.limit is not None or job.jobs > 1:
            raise TilesatError(f"--method {engine.name} counts in one process, to the end: it cannot go with "
                               "--limit, --jobs, --checkpoint or --cluster")
    return engine, why


# --- units of work --------------------------------------------------------

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


# --- the driver -----------------------------------------------------------

#: Units per worker when a count is shared out (``--jobs``, ``--cluster``):
#: enough that one slow unit does not leave the others idle at the end.
UNITS_PER_WORKER = 20
#: Units of a serial count with a checkpoint: what a crash can lose is one of them.
CHECKPOINT_UNITS = 64
#: Random paths per estimate of a unit's size (Knuth's estimator: a millisecond or so a unit).
ESTIMATE_PROBES = 300

_WORKER: Context | None = None


def _init_worker(ctx: Context) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _WORKER = ctx


def _run_in_worker(unit: Unit, budget: float | None = None) -> tuple:
    try:
        return _WORKER.run_within(unit, budget)
    except TimedOut as stop:
        if isinstance(stop.found, Outcome):  # stopped at the deadline: what it counted, and the rest
            return stop.found.as_tuple()
        raise


def split_target(jobs: int, shared: bool, checkpoint: bool, engine: Engine, cluster: bool = False) -> int:
    """How many units to plan: 1 (no further split) for a serial count."""
    per_worker = engine.units_per_worker if engine.units_per_worker and not (cluster or checkpoint) else UNITS_PER_WORKER
    target = per_worker * jobs if shared else 1
    return max(target, CHECKPOINT_UNITS) if checkpoint else target


@dataclass(frozen=True)
class CountRequest:
    """How to count (the SAT options travel beside, as one
    :class:`~tilesat.sat.options.SatOptions`): the method (or ``auto``), classes
    too, a limit, processes, ApproxMC's (epsilon, delta), the LP's certificate of
    "no tiling" (:mod:`tilesat.certify.schedule`: True races it beside the count
    where it may pay, "always" runs it first, False never), a checkpoint file
    recording each finished unit (:mod:`tilesat.running.checkpoint`), a Dask
    cluster (``cluster="dask"``, :mod:`tilesat.running.cluster`: a local one of
    ``jobs`` workers, or the scheduler at ``address``)."""

    method: str = "auto"
    up_to_symmetry: bool = False
    limit: int | None = None
    jobs: int = 1
    approx: Approx = Approx()
    certificates: bool | str = True
    checkpoint: str | os.PathLike | None = None
    cluster: str | None = None
    address: str | None = None


def count_request(method: str, keywords: dict) -> tuple[CountRequest, SatOptions, Callable | None]:
    """:func:`count_tilings`' keywords as the objects they stand for, each checked once."""
    keywords = dict(keywords)
    progress = keywords.pop("progress", None)
    approx = Approx(**{k: keywords.pop(k) for k in ("epsilon", "delta", "seed") if k in keywords})
    fields = {f.name for f in dataclasses.fields(CountRequest)} - {"method", "approx"}
    request = CountRequest(method, approx=approx, **{k: keywords.pop(k) for k in list(keywords) if k in fields})
    _check_request(request)
    options = keywords.pop("options", None) or SatOptions(**keywords)
    return request, options, progress


def _check_request(request: CountRequest) -> None:
    """The method's name and the processes asked for, before any work."""
    if request.method not in (names := method_names("count")):
        raise TilesatError(f"unknown count method {request.method!r}; choose one of: {', '.join(names)}")
    if request.jobs < 1:
        raise TilesatError("--jobs must be at least 1")
    if request.address is None:
        check_jobs(request.jobs)  # before any unit is planned (20 a job)
    if request.cluster is not None or request.address is not None:  # (Dask's module only then)
        from ..running.cluster import check_backend

        check_backend(request.cluster, request.address)


def count_tilings(instance: Instance, method: str = "auto", **keywords) -> CountResult:
    """Count the tilings (and their classes under the board's symmetries).

    The keywords are :class:`CountRequest`'s (``epsilon``, ``delta`` and
    ``seed`` for its ``approx``), :class:`~tilesat.sat.options.SatOptions`'
    (or ``options=`` one), and ``progress(tilings, units_done, units)``, called
    as work advances; where the units are estimated (a native count shared out
    or checkpointed) with a keyword ``forecast={"seconds_left": .., "tilings": ..}``
    too, if it takes one: the time left and the expected raw total, from Knuth's
    estimates of the units left and the rates measured so far (:mod:`tilesat.questions.balance`).  Ctrl-C returns what was counted so far, as a lower bound;
    a certificate found makes the count an exact 0; run again with the same
    checkpoint, the finished units are skipped."""
    return count(instance, *count_request(method, keywords))


def count(instance: Instance, request: CountRequest, options: SatOptions,
          progress: Callable[[int, int, int], None] | None = None) -> CountResult:
    """:func:`count_tilings` for a request already made (the command line's)."""
    t0 = time.perf_counter()
    _check_request(request)
    check_memory(instance)  # before choosing a method: the region count alone is slow on huge boards
    limit, jobs, split = request.limit, request.jobs, request.checkpoint is not None or request.cluster is not None
    if limit is not None and (request.up_to_symmetry or jobs > 1):
        raise TilesatError("--limit counts raw tilings in one process: it cannot go with --up-to-symmetry or --jobs")
    if limit is not None and split:
        raise TilesatError("--limit stops in the middle of a unit: it cannot go with --checkpoint or --cluster")
    job = Job("count", instance, options, limit=limit, up_to_symmetry=request.up_to_symmetry, jobs=jobs,
              certificates=request.certificates)
    engine, why = _count_engine(job, request.method)
    if not engine.plans_units and split:
        raise TilesatError(f"--method {engine.name} counts in one process, to the end: it cannot go with "
                           "--limit, --jobs, --checkpoint or --cluster")
    if engine.whole:
        job.jobs = jobs = 1  # one computation, no units to share out
    check_mode(request.certificates, "raced beside the count")
    approx = request.approx
    if not (0 < approx.epsilon < float("inf") and 0 < approx.delta < 1):
        raise TilesatError("--epsilon must be above 0 and --delta between 0 and 1")
    estimate = None if engine.exact else {"epsilon": approx.epsilon, "delta": approx.delta}
    # the SAT options in the answer only where the engine uses them (a determinant has no solver)
    result = CountResult(0, engine.exact, engine.name, why, estimate=estimate, jobs=jobs,
                         encoding=options.encoding if "encoding" in engine.uses else None,
                         solver=engine.solver_label(options) if "solver" in engine.uses else None,
                         grid=instance.board.grid)
    report = _reporter(progress)
    if not engine.plans_units:
        with contextlib.suppress(TimedOut), time_limit(options.timeout):
            engine.count_all(job, result, report)
        result.seconds = time.perf_counter() - t0
        return result
    run = _Count(job, engine, result, report, approx, t0)
    if request.checkpoint is not None:
        from ..model.instance import instance_digest
        from ..running.checkpoint import Checkpoint

        identity = {"instance": instance_digest(instance), "method": engine.name,
                    "up_to_symmetry": request.up_to_symmetry}
        run.book = Checkpoint(request.checkpoint, "count", identity).open()  # refused here, before any work
    try:
        with time_limit(options.timeout), contextlib.ExitStack() as stack:
            if request.cluster is not None:
                from ..running.cluster import DaskRunner

                run.cluster = stack.enter_context(DaskRunner(jobs, request.address))
            if run.book is not None:
                stack.callback(run.book.close)
            return run.count()
    except TimedOut:  # before the counting started (placements, symmetry group, the cluster)
        result.timed_out, result.exact = True, False
        result.seconds = time.perf_counter() - t0
        return result


def _reporter(progress: Callable | None) -> Callable:
    """``progress`` called with ``forecast=`` only where it takes that keyword: a
    callback written for ``(tilings, done, total)`` keeps working."""
    if progress is None:
        return lambda tilings, done, total, **forecast: None
    try:
        params = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        params = ()
    if any(p.name == "forecast" or p.kind is p.VAR_KEYWORD for p in params):
        return progress
    return lambda tilings, done, total, **forecast: progress(tilings, done, total)


class _Count:
    """One count under way: its units, their counts so far, where they run."""

    def __init__(self, job: Job, engine: Engine, result: CountResult, report: Callable, approx: Approx, t0: float):
        self.job, self.engine, self.result, self.report, self.approx, self.t0 = job, engine, result, report, approx, t0
        self.book = None  # a Checkpoint
        self.cluster = None  # a DaskRunner
        self.race: LpRace | None = None

    def count(self) -> CountResult:
        job, result = self.job, self.result
        placements = job.placements
        group = job.group if job.up_to_symmetry else None
        encoding = resolve_encoding(job.options.encoding, placements)  # what "auto" stands for here
        if "encoding" in self.engine.uses:
            result.encoding = encoding
        reason = obstruction(job.instance) or placement_check(placements)
        if group is not None:
            result.group = [g.name for g in group]
        result.certificate_check = {"ran": False, "why": "a board check answered first"}
        if reason is None:
            self.race = LpRace(job.instance, placements, job.certificates, "count", self.engine.lp_beside())
            result.certificate_check = self.race.report
            if job.certificates == "always" and self.race.first() is not None:
                result.certificate, reason = self.race.certificate, self.race.certificate.sentence()
        if reason is not None:
            result.reason, result.exact = reason, True
            result.up_to_symmetry = 0 if job.up_to_symmetry else None
            result.seconds = time.perf_counter() - self.t0
            return result
        units = self._plan(placements, group)
        # estimates and budgets where a unit can be split where it stands and the split pays:
        # units shared out, or a checkpoint (a crash loses at most one budget)
        self.workers = self.cluster.workers if self.cluster is not None and self.cluster.address is not None \
            else job.jobs
        self.balanced = self.engine.splits and job.limit is None and (self.workers > 1 or self.book is not None)
        if self.cluster is None and not self.balanced:
            result.jobs = self.workers = max(1, min(job.jobs, len(units)))  # a process per unit at most
        self.ledger = Ledger(units)
        self.tilings_now = 0  # raw tilings of the settled units and of the unit running now (in this process)
        # forked workers inherit the context, placements included: nothing is generated twice
        self.ctx = Context(job.instance, self.engine, replace(job.options, encoding=encoding), group,
                           placements, self.approx)
        self.completed = False
        try:
            self._resume()
            self._run()
        finally:
            result.units = len(self.ledger)
            result.unit_seconds = list(self.ledger.seconds)
        return self._end(group)

    @property
    def units(self) -> list[Unit]:
        return self.ledger.units

    def _plan(self, placements: Placements, group: list[Symmetry] | None) -> list[Unit]:
        if self.engine.whole:  # one computation: every symmetry's fixed tilings at once (tilesat.engines.burnside)
            self.target = 1
            return [Unit((), tuple(range(len(group))) if group else (0,))]
        cluster, jobs = self.cluster, self.job.jobs
        shared = jobs > 1 or cluster is not None
        workers = cluster.workers if cluster is not None and cluster.address is not None else jobs
        self.target = split_target(workers, shared, self.book is not None, self.engine, cluster is not None)
        if self.book is not None:
            self.target = self.book.param("split", self.target)  # a resume plans the same units as the run it resumes
        # an engine that splits units starts from the piece used once (the X pentomino), one
        # unit per orbit of its placements: what the fast 6x10 solvers do
        split = shared or self.engine.splits
        orbits = symmetry_group(placements) if group is None and (self.target > 1 or split) else None
        return plan_units(placements, group, split=split, target=self.target, orbits=orbits)

    def progress(self) -> None:
        extra = {}
        if self.balanced:
            seconds, total = self.ledger.forecast(self.workers)
            if seconds is not None:
                extra = {"forecast": {"seconds_left": seconds, "tilings": total}}
        self.report(self.tilings_now, self.ledger.settled(), len(self.ledger), **extra)

    def settle(self, i: int, outcome: Outcome, record: bool = True) -> None:
        """Unit i came back: finished, or split where it stood (its parts join the ledger)."""
        ledger, o = self.ledger, outcome
        unit = ledger.units[i]
        extra = {}
        if o.rest:
            first = len(ledger)
            ledger.split(i, o.counts, o.rest, o.seconds, o.nodes, o.estimates)
            extra = split_record(ledger, i, first)
            self.result.splits += 1
        else:
            ledger.finish(i, o.counts, o.seconds, o.nodes)
        if record and self.book is not None:
            if o.nodes is not None:  # the forecast's tilings a node, on a resume (tilesat.questions.balance)
                extra["nodes"] = o.nodes
            self.book.add(i, unit, counts=list(o.counts), seconds=round(o.seconds, 6), **extra)
        self.tilings_now = ledger.tilings()
        if self.tilings_now:
            self.race.lost("the count found tilings")
        self.progress()

    def _resume(self) -> None:
        book, ledger = self.book, self.ledger
        if book is not None:
            records = book.begin(ledger.units, plan_key(ledger.units), {"split": self.target}, grows=True)
            self.result.resumed = ledger.replay(records, book.refuse)
        if self.balanced:  # the estimates, here (a millisecond or so a unit), of the units without one
            for i in ledger.pending():
                ledger.set_estimate(i, self.ctx.estimate(ledger.units[i], ESTIMATE_PROBES, seed=i))
        self.tilings_now = ledger.tilings()

    def _run(self) -> None:
        result, race = self.result, self.race
        try:
            self.progress()
            race.start()  # before the count: from here on, the count's waits look at the LP's pipe too
            with watching(race.poll), contextlib.ExitStack() as stack:
                if self.cluster is not None:
                    result.cluster = "dask"
                    backend = self.cluster.backend(self.ctx, len(self.ledger.pending()))
                    result.jobs = self.cluster.workers
                elif self.workers > 1:
                    load_before_fork(self.engine.preload)  # the workers inherit it
                    backend = stack.enter_context(_Pool(self.workers, self.ctx))
                else:
                    backend = _Serial(self)
                drive(self.ledger, backend, self.workers, self.settle, budgets=self.balanced,
                      uncounted=self._uncounted)
            if self.job.limit is not None and not self.ctx.exhausted:
                result.limited = True
            self.completed = True
        except Certified as e:  # the LP won: there is no tiling
            result.certificate, result.reason = e.certificate, str(e)
        except KeyboardInterrupt:
            result.interrupted = True
        except TimedOut:
            result.timed_out = True
        finally:
            race.stop(self.completed)

    def _uncounted(self, units: int) -> None:
        self.result.uncounted += units

    def _end(self, group: list[Symmetry] | None) -> CountResult:
        result, race = self.result, self.race
        if self.completed and race.certificate is not None:  # it came at the count's end
            if self.tilings_now:
                raise AssertionError("BUG: the count found tilings where a checked certificate says there are none")
            result.certificate, result.reason = race.certificate, race.certificate.sentence()
        if result.certificate is not None:
            result.exact, result.limited = True, False
            result.up_to_symmetry = 0 if group is not None else None
            result.seconds = time.perf_counter() - self.t0
            return result
        result.count = self.tilings_now
        complete = self.ledger.complete and not result.interrupted and not result.timed_out and not result.limited
        result.exact = result.exact and complete
        if group is not None and complete:
            counted = self.ledger.counted()
            result.up_to_symmetry = _classes([u for u, _ in counted], [c for _, c in counted], len(group),
                                             not self.engine.exact)
        result.seconds = time.perf_counter() - self.t0
        return result


class _Serial(Backend):
    """The units in this process, one after another: an engine that splits runs each
    within its budget (in slices); the others report each tiling as they list it, or
    count in a forked child (:func:`tilesat.running.control.isolated`)."""

    def __init__(self, run: _Count):
        self.run = run
        self.done: list = []
        self.stopped: list = []  # the unit stopped at the deadline, with what it counted and the rest

    def start(self, i: int, unit: Unit, budget: float | None) -> None:
        run = self.run
        if run.engine.splits and run.job.limit is None:
            # at the deadline it stops where it stands: what it counted comes back (balance.drive)
            self.done.append((i, run.ctx.run_within(unit, budget)))
            return

        def one_more(weight=unit.weight):
            # so far: the settled units, and this one's tilings (each
            # stands for ``weight`` tilings, one per orbit member)
            run.tilings_now += weight
            run.race.lost("the count found a tiling")
            run.progress()

        t = time.perf_counter()
        try:
            counts = run.ctx.run(unit, one_more, run.job.limit)
        except TimedOut as stop:
            if isinstance(stop.found, Outcome):
                self.stopped.append((i, stop.found))
            raise
        self.done.append((i, (counts, time.perf_counter() - t)))

    def ready(self) -> list:
        done, self.done = self.done, []
        return done

    def stop(self, running: set[int]) -> tuple[list, int]:
        # a unit reported tiling by tiling is in the count so far; one counted without listing is
        # lost unless it handed back what it counted (TimedOut.found)
        came_back, self.stopped = self.stopped, []
        return came_back, 0 if self.run.engine.reports_each_tiling else len(running) - len(came_back)


class _Pool(Backend):
    """The units on ``jobs`` forked worker processes (each inherits the count's
    context); leaving kills them at once."""

    def __init__(self, jobs: int, ctx: Context):
        self.pool = process_pool(jobs, _init_worker, (ctx,))
        self.capacity = jobs
        self.futures: dict = {}

    def __enter__(self):
        return self

    def __exit__(self, kind, *rest) -> None:
        if kind is not None:  # Ctrl-C, the deadline, the LP's certificate: the workers go at once
            stop_pool(self.pool)
        else:
            self.pool.shutdown()

    def start(self, i: int, unit: Unit, budget: float | None) -> None:
        self.futures[self.pool.submit(_run_in_worker, unit, budget)] = i

    def ready(self) -> list:
        from concurrent.futures import FIRST_COMPLETED, wait  # (a serial count has no pool)

        finished, _ = wait(self.futures, timeout=wait_step(), return_when=FIRST_COMPLETED)
        return [(self.futures.pop(f), f.result()) for f in finished]

    def stop(self, running: set[int]) -> tuple[list, int]:
        # the workers see the same deadline: an engine that splits hands back what it counted
        from concurrent.futures import wait

        finished, _ = wait(self.futures, timeout=STOP_GRACE)
        came_back = [(self.futures.pop(f), f.result()) for f in finished if f.exception() is None]
        return came_back, len(running) - len(came_back)


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


# --- listing ----------------------------------------------------------------

class Listing:
    """The tilings of :func:`iter_tilings_by`, one by one (an iterator with
    ``close()``); once it has ended, ``reason`` says why there were none when
    a check knew it (a certificate's sentence, a board check), ``certificate``
    holds the checked certificate and ``certificate_check`` whether the LP ran."""

    def __init__(self, run: Callable[["Listing"], Iterator[Tiling]]):
        self.reason: str | None = None
        self.certificate: Certificate | None = None
        self.certificate_check: dict | None = None
        self.complete = True  # False once a limit cut it short (:func:`list_tilings`)
        self._tilings = run(self)

    def _at_most(self, limit: int) -> None:
        """End after ``limit`` tilings, ``complete`` False when there was one more (looked for, not yielded)."""
        tilings = self._tilings

        def capped() -> Iterator[Tiling]:
            try:
                for n, tiling in enumerate(tilings):
                    if n >= limit:
                        self.complete = False
                        return
                    yield tiling
            finally:
                tilings.close()

        self._tilings = capped()

    def __iter__(self):
        return self

    def __next__(self) -> Tiling:
        return next(self._tilings)

    def close(self) -> None:
        self._tilings.close()


def iter_tilings_by(instance: Instance, method: str = "auto", limit: int | None = None, *,
                    certificates: bool | str = True, options: SatOptions | None = None, **sat) -> Listing:
    """The tilings one by one by an enumerating method (``auto``: see
    :func:`choose_list_method`), each verified; ``options`` (or its fields as
    keywords) say how a SAT method solves.  With a ``timeout``,
    :class:`~tilesat.running.control.TimedOut` ends the iteration when the time is up.
    ``certificates`` as for :func:`count_tilings`: the LP raced beside the
    listing (stopped at the first tiling), first, or never."""
    if method not in (names := method_names("list")):
        raise TilesatError(f"unknown list method {method!r}; available: {', '.join(names)}")
    check_mode(certificates, "raced beside the listing")
    options = options or SatOptions(**sat)
    engine = _list_engine(instance, method, options)
    return Listing(lambda listing: _listing(listing, Job("list", instance, options, limit=limit,
                                                         certificates=certificates), engine))


@dataclass(frozen=True)
class ListRequest:
    """How to list (the SAT options travel beside, as one
    :class:`~tilesat.sat.options.SatOptions`): the method (or ``auto``), at most
    ``limit`` tilings (the listing's ``complete`` says whether more were left),
    the LP's certificate of "no tiling" as for :class:`CountRequest`, and a
    checkpoint file (``list --out FILE --checkpoint C``: unit by unit,
    :class:`UnitListing`, resumable)."""

    method: str = "auto"
    limit: int | None = None
    certificates: bool | str = True
    checkpoint: str | os.PathLike | None = None


def list_tilings(instance: Instance, request: ListRequest, options: SatOptions) -> Listing:
    """:func:`iter_tilings_by` for a request already made (the command line's): the limit
    cuts the listing, it does not choose the method (``auto`` picks as for every tiling)."""
    listing = iter_tilings_by(instance, request.method, certificates=request.certificates, options=options)
    if request.limit is not None:
        listing._at_most(request.limit)
    return listing


def _list_engine(instance: Instance, method: str, options: SatOptions) -> Engine:
    """The enumerating engine a listing uses (``auto`` resolved), refused in one
    line when it cannot list this instance or cannot use the options given."""
    check_memory(instance)
    if method == "auto":
        engine, _ = choose(Job("list", instance, options))
    else:
        engine = engine_for("list", method, "list method")
        check_takes(engine, instance, "list")
    refuse_unused(options, engine, _suggested)
    return engine


class UnitListing:
    """The tilings of an instance unit by unit (``list --checkpoint``): the
    units of a split count (cubes only, no symmetry weights), each listed
    whole by an enumerating method, every tiling verified.  A checkpoint
    records a unit once its tilings are written, so a resumed listing
    writes each tiling once."""

    def __init__(self, instance: Instance, method: str = "auto", *, options: SatOptions | None = None,
                 target: int = CHECKPOINT_UNITS, **sat):
        if method not in (names := method_names("list")):
            raise TilesatError(f"unknown list method {method!r}; available: {', '.join(names)}")
        options = replace(options or SatOptions(**sat), timeout=None)
        self.engine = _list_engine(instance, method, options)
        self.instance, self.method, self.target = instance, self.engine.name, target
        self.reason = obstruction(instance)
        self.ctx = Context(instance, self.engine, options)
        self.reason = self.reason or placement_check(self.ctx.placements)
        self.units = [] if self.reason else plan_units(self.ctx.placements, None, split=True, target=target)

    def plan(self) -> str:
        return plan_key(self.units)

    def stream(self, todo: list[int]) -> Iterator[tuple[int, Tiling | None]]:
        """(i, tiling) for each tiling of each unit i of ``todo`` in turn, each
        verified, and (i, None) when unit i is over; searched in one forked child
        (stopped at once by Ctrl-C or the deadline)."""
        load_before_fork(self.engine.preload)
        P = self.ctx.placements
        for i, chosen in stream_from_child(_list_units, self.ctx, self.units, todo, what=self.method):
            yield i, None if chosen is None else verify_tiling(
                self.instance, Tiling.from_placements(P, [int(p) for p in chosen]))


def _list_units(ctx: Context, units: list[Unit], todo: list[int]) -> Iterator[tuple[int, np.ndarray | None]]:
    for i in todo:
        for chosen in ctx.enumerate(units[i].forced or None):
            yield i, chosen
        yield i, None


def _listing(listing: Listing, job: Job, engine: Engine) -> Iterator[Tiling]:
    instance, certificates = job.instance, job.certificates
    limit_at = Deadline(job.options.timeout)  # held between yields: the consumer's time is not ours to bound
    listing.certificate_check = {"ran": False, "why": "a board check answered first"}
    race = stream = None
    try:
        with time_limit(limit_at):
            listing.reason = obstruction(instance)
            if listing.reason is not None:
                return
            ctx = Context(instance, engine, job.options)
            stream = ctx.enumerate(None, job.limit)
            if certificates:
                listing.reason = placement_check(ctx.placements)
                if listing.reason is not None:
                    return
                race = LpRace(instance, ctx.placements, certificates, "listing", engine.lp_beside())
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
                tiling = verify_tiling(instance, Tiling.from_placements(ctx.placements, item.tolist()))
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
