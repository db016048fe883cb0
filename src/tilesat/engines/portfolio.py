"""A portfolio: N diverse SAT configurations race on one question, each in its own process.

Why: on big open boards one CDCL run's time to a tiling is heavy-tailed;
the same board took 20 s with one encoding and 109 s with another, 24 s or
196 s with two CaDiCaL configurations, and the order flips from board to
board (issue 15).  Running several different
configurations at once and taking the first answer cuts the tail.

Each member (:class:`Config`: an encoding, CaDiCaL options, initial
phases) runs in a forked :class:`~tilesat.running.control.Child`, compiles its own
formula from the placements the parent generated (inherited by the fork),
and answers the same question over and over.  On boards the sweep takes, members
may instead make some of the repairing sweep's attempts (:func:`sweep_configurations`):
they report tilings, never "none".

- ``solve``: the first member to answer wins (a tiling, checked here with
  the independent checker, or "none"); the others are killed at once;
- ``check-unique``: every member keeps searching.  A member that finds a
  tiling reports it and is sent a blocking clause for *every* tiling found
  so far by any member, then goes on; the race ends at the second distinct
  tiling (whoever finds it) or at the first "none" (a member that has
  blocked the tilings it was sent proves there are no others);
- ``pack``: each member raises its own bound; every packing it reports is
  checked, and the member is told the best value any member has found, so
  it next looks for one better than that.  The first "no better packing"
  proves the optimum.

A deadline or Ctrl-C kills every member within a poll
(:data:`~tilesat.running.control.POLL_SECONDS`): the parent waits in short polls,
and leaving :func:`race` kills every child it started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..certify.checks import obstruction, placement_check
from ..model.footprint import check_memory
from ..model.placements import generate_placements
from ..running import processes
from ..running.control import Child, ChildError, wait_step
from ..running.processes import cores
from ..sat.encodings import AUTO
from ..errors import TilesatError
from ..sat.formula import block_tiling, compile_formula, resolve_encoding
from ..sat.objectives import objective_for
from ..sat.options import SatOptions
from ..sat.solvers import EXTERNAL_PREFIX, OPEN_BOARD_OPTIONS, default_options, is_plugin_solver, make_solver
from ..model.tiling import Tiling
from ..certify.verify import VerificationError, verify_tiling
from .base import Engine, Job, Progress
from .prune import look_ahead
from .local_change import mend_counts, other_tiling
from .repair_sweep import ATTEMPTS, RepairSweep
from .sweep import SWEEP_MIN_AREA, SweepStats, counts_hold, window_encoding, window_solver

#: CaDiCaL's ``--sat`` configuration (the open boards' default, solvers.OPEN_BOARD_OPTIONS):
#: on other boards it made some runs faster and others slower, so members vary it.
SAT_OPTIONS = tuple(OPEN_BOARD_OPTIONS.items())


@dataclass(frozen=True)
class Config:
    """One member: an encoding (None: the run's own), CaDiCaL options, initial phases."""

    name: str
    encoding: str | None = None
    options: tuple = ()  # (CaDiCaL option, integer value) pairs
    phases: str | None = None  # "random": placement variables' first values at random (seeded); "false": all false
    seed: int = 0
    sweep_attempts: tuple[int, ...] = ()  # a sweep member: these attempts of the repairing sweep, no CDCL run

    def describe(self) -> str:
        if self.sweep_attempts:
            return "repairing sweep, attempt " + ", ".join(str(i + 1) for i in self.sweep_attempts)
        parts = [self.encoding or "encoding as asked"]
        parts += [f"{k}={v}" for k, v in self.options]
        if self.phases:
            parts.append(f"{self.phases} phases (seed {self.seed})" if self.phases == "random" else f"{self.phases} phases")
        return ", ".join(parts)


#: The members in order: --jobs N takes the first N.  Member 0 is the run
#: without --jobs, search path and all (so --jobs 1 is the single run);
#: member 1, the same with seed 3, was the best partner for it on 60x60 L4
#: boards (scripts/screen_members.py; figures in docs/benchmarks/hard-boards.md); then
#: configurations each different from the others in more than one way.
CONFIGS = (
    Config("default"),
    Config("sat-seed3", None, SAT_OPTIONS + (("seed", 3),)),
    Config("sat-commander", "commander", SAT_OPTIONS),
    Config("seed7-bitwise", "bitwise", (("seed", 7),)),
    Config("sat-ladder-false-phases", "ladder", SAT_OPTIONS + (("phase", 0),)),
    Config("sat-bitwise-random", "bitwise", SAT_OPTIONS, phases="random", seed=13),
    Config("random-phases-commander", "commander", (("seed", 5),), phases="random", seed=5),
    Config("ladder-false-phases", "ladder", (("phase", 0),)),
)


def check_jobs(jobs) -> int:
    """``--jobs``: a whole number from 1, or ``auto`` (the cores this process may use)."""
    if jobs is None:
        return 1
    if isinstance(jobs, str) and jobs.strip().lower() == "auto":
        return cores()
    try:
        value = int(str(jobs).strip())
    except ValueError:
        raise TilesatError(f"--jobs {jobs!r}: give a whole number of processes from 1, or auto") from None
    if value < 1:
        raise TilesatError(f"--jobs {jobs}: give a whole number of processes from 1, or auto")
    return processes.check_jobs(value)


def configurations(jobs: int, encoding: str, solver: str) -> list[Config]:
    """The ``jobs`` members for a run asked with this encoding and solver.

    An encoding asked for by name (not ``auto``) holds for every member;
    CaDiCaL options only go to cadical195 (other PySAT solvers vary by
    phases; ``ext:`` and plugin solvers by encoding only).
    Beyond the list, members repeat it with other seeds."""
    members = []
    for i in range(jobs):
        base = CONFIGS[i % len(CONFIGS)]
        extra = i // len(CONFIGS)
        options = dict(base.options)
        seed = base.seed
        if extra:  # another round of the list: other seeds
            options["seed"] = 1000 * extra + options.get("seed", 0) + i
            seed = 1000 * extra + i
        phases = base.phases
        if solver != "cadical195":
            options = {}
            phases = None if i == 0 else "random"
            seed = seed or i
        if solver.startswith(EXTERNAL_PREFIX) or is_plugin_solver(solver):
            phases, seed = None, 0  # they take no phases: such members differ by encoding only
        members.append(Config(base.name if not extra else f"{base.name}-{extra + 1}",
                              base.encoding if encoding == AUTO else encoding,
                              tuple(sorted(options.items())), phases, seed))
    return members


def sweep_configurations(jobs: int, encoding: str, solver: str) -> list[Config]:
    """The ``jobs`` members of a race on a board the sweep takes: members that each make
    some of the repairing sweep's attempts (each starts from another corner, with another
    encoding: a lottery per attempt), about half of the members and at most one per attempt,
    then the CDCL members.  Why: one after the other, failed attempts delay every CDCL run
    where sweeps fail (docs/benchmarks/hard-families.md); raced, the first through wins."""
    sweeps = _sweep_members(jobs)
    members = [Config(f"sweep-{k + 1}", sweep_attempts=tuple(range(k, ATTEMPTS, sweeps))) for k in range(sweeps)]
    return members + configurations(jobs - sweeps, encoding, solver)


def _sweep_members(jobs: int) -> int:
    """How many of ``jobs`` members make the sweep's attempts: about half, at most one per attempt."""
    return max(1, min(ATTEMPTS, jobs // 2))


# --- the member's side (in the child) -------------------------------------

def _start_solver(config: Config, placements, encoding: str, solver_name: str, card: str, allow_empty: bool = False):
    formula = compile_formula(placements, config.encoding or encoding, card, allow_empty=allow_empty)
    solver = member_solver(config, placements, solver_name)
    solver.add_formula(formula)
    return formula, solver


def member_solver(config: Config, placements, solver_name: str):
    """The solver a member runs, its options and phases set, before any formula
    (scripts/screen_members.py runs members one at a time on the single run's path)."""
    solver = make_solver(solver_name)
    # a member without options of its own runs as --jobs 1 would (solvers.default_options: open boards)
    options = dict(config.options) or default_options(solver_name, placements.candidates_per_cell())
    if options:
        solver.configure(options)
    if config.phases and hasattr(solver, "set_phases"):  # ext: and plugin solvers take none: members alike then
        P = len(placements)
        if config.phases == "false":
            solver.set_phases([-(v + 1) for v in range(P)])
        else:
            import random
            rng = random.Random(config.seed)
            solver.set_phases([(v + 1) if rng.random() < 0.5 else -(v + 1) for v in range(P)])
    return solver


def _compiled(formula, solver) -> dict:
    """What a member tells the parent once compiled: its formula's size and what its solver was given."""
    return {"variables": formula.nvars, "clauses": formula.nclauses, "encoding": formula.encoding,
            "options": dict(getattr(solver, "options", {}))}


def _chosen(solver, P: int) -> list[int]:
    return [int(v) - 1 for v in solver.model() if 0 < int(v) <= P]


def _member(conn, config: Config, placements, encoding, solver_name, card, blocked=(), alive=None) -> None:
    """A member of a tiling race: a sweep member or a CDCL one, as its configuration says."""
    run = _sweep_member if config.sweep_attempts else _tiling_member
    run(conn, config, placements, encoding, solver_name, card, blocked, alive)


def _tiling_member(conn, config: Config, placements, encoding, solver_name, card, blocked=(), alive=None) -> None:
    """Compile (and block the tilings found before the race, and the placements the
    look-ahead found in none: ``alive``), then: solve, report ("tiling", chosen) or
    ("none",), take the clauses sent back, again."""
    formula, solver = _start_solver(config, placements, encoding, solver_name, card)
    for clause in blocked:
        solver.add_clause(clause)
    if alive is not None:
        for p in np.flatnonzero(~alive).tolist():
            solver.add_clause([-(p + 1)])
    conn.send(("compiled", _compiled(formula, solver)))
    P = len(placements)
    while True:
        if not solver.solve():
            conn.send(("none", solver.stats().get("conflicts")))
            return
        conn.send(("tiling", _chosen(solver, P), solver.stats().get("conflicts")))
        for clause in conn.recv():
            solver.add_clause(clause)


def _sweep_tilings(sweep: RepairSweep, placements, encoding: str, solver: str, alive, progress=None):
    """The sweep's tiling (its counts mended), then one the local change finds near it: up to two
    tilings, not verified here, each computed only when the caller asks for it; none when the
    sweep gives up (``sweep.stats.gave_up`` says why)."""
    chosen = sweep.run(progress)
    if chosen is not None:
        chosen = mend_counts(placements, chosen, encoding, sweep.stats, solver, alive, progress)
    if chosen is None:
        return
    yield chosen
    if progress is not None:
        progress("looking for a second tiling near the first")
    other = other_tiling(placements, chosen, encoding, sweep.stats, solver, alive)
    if other is not None:
        yield other


def _sweep_member(conn, config: Config, placements, encoding, solver_name, card, blocked=(), alive=None) -> None:
    """The repairing sweep's attempts ``config.sweep_attempts``: ("tiling", chosen, conflicts)
    for its tiling and for one the local change finds near it, then ("gave up", why, conflicts).
    A sweep proves nothing: "none" and "unique" stay with the CDCL members.  ``card`` and
    ``blocked`` are the CDCL members' (the parent drops a tiling found before by its key)."""
    encoding = window_encoding(resolve_encoding(encoding, placements))
    solver = window_solver(solver_name)
    sweep_stats = SweepStats()
    conn.send(("compiled", {"encoding": encoding}))
    sweep = RepairSweep(placements, encoding, solver, sweep_stats, alive).keep_attempts(config.sweep_attempts)
    reported = 0
    for chosen in _sweep_tilings(sweep, placements, encoding, solver, alive):
        conn.send(("tiling", chosen, sweep_stats.conflicts))
        conn.recv()  # the tilings found so far (a sweep blocks none: the parent drops repeats)
        reported += 1
    why = (sweep_stats.gave_up, "no other tiling near its own (which proves nothing)", "nothing more to offer")[reported]
    conn.send(("gave up", why, sweep_stats.conflicts))


# --- the parent's side -----------------------------------------------------

@dataclass
class Member:
    config: Config
    child: Child
    sent: int = 0  # how many of the found tilings it has been told to block
    reported: int = 0  # how many tilings it has reported
    compiled: dict = field(default_factory=dict)
    conflicts: int | None = None


def _start(configs, target, *args) -> list[Member]:
    members = []
    try:
        for config in configs:
            members.append(Member(config, Child(target, config, *args)))
    except BaseException:
        for m in members:
            m.child.kill()
        raise
    return members


def _next_message(live: list[Member]) -> tuple[Member, tuple]:
    """The next message of any live member, waiting under the deadline; a member that
    failed comes back as ``("failed", text)``."""
    while True:
        for m in live:
            if m.child.ready():
                try:
                    return m, m.child.recv()
                except ChildError as e:
                    return m, ("failed", str(e))
        time.sleep(wait_step())  # raises TimedOut at the deadline; Ctrl-C lands here


def _next_answer(live: list[Member], stats: dict) -> tuple[Member, tuple] | None:
    """The next answer of any live member: a member's "compiled" report is kept
    on it, a member that failed is killed, dropped from ``live`` and named in
    ``stats["failed"]``; None once no member is left."""
    while live:
        m, message = _next_message(live)
        if message[0] == "compiled":
            m.compiled = message[1]
        elif message[0] in ("failed", "error"):
            stats["failed"][m.config.name] = message[1]
            m.child.kill()
            live.remove(m)
        else:
            return m, message
    return None


def race_tilings(placements, count: int, configs: list[Config], options: SatOptions, found: list[Tiling],
                 progress: Callable | None = None, blocked: list[list[int]] = (), alive=None) -> dict:
    """Up to ``count`` verified tilings of the placements' instance, each member
    solving as ``options`` say (its own configuration on top), appended to ``found`` as they come
    (a deadline or Ctrl-C leaves what was found there); the race's stats.
    Fewer than ``count`` found on return: there are no more.  ``blocked``:
    the blocking clauses of the tilings already in ``found`` (the members add them first);
    ``alive``: the placements the look-ahead left (the others are in no tiling)."""
    progress = progress or (lambda message, done=None, total=None: None)
    instance = placements.instance
    keys: list[frozenset] = [frozenset(t.key()) for t in found]
    blocks: list[list[int]] = []  # one clause per found tiling, in order
    stats = {"jobs": len(configs), "members": {c.name: c.describe() for c in configs}, "answers": [], "failed": {},
             "found_by": []}
    t0 = time.perf_counter()
    progress(f"racing {len(configs)} configurations for tiling {len(found) + 1}")
    members = _start(configs, _member, placements, options.encoding, options.solver, options.card, list(blocked), alive)
    live = list(members)
    try:
        while (answer := _next_answer(live, stats)) is not None:
            m, message = answer
            kind = message[0]
            m.conflicts = message[-1]
            seconds = round(time.perf_counter() - t0, 6)
            if kind == "none":  # no tiling besides the m.sent it blocked: all are found
                stats["answers"].append({"member": m.config.name, "answer": "no more tilings", "seconds": seconds})
                stats["winner"] = m.config.name
                break
            if kind == "gave up":  # a sweep member with nothing more to offer: the others go on
                stats["answers"].append({"member": m.config.name, "answer": f"gave up: {message[1]}", "seconds": seconds})
                m.child.kill()
                live.remove(m)
                continue
            chosen = message[1]
            # a sweep member's first tiling is its sweep's, the next its local change's
            how = ("local change" if m.reported else "sweep") if m.config.sweep_attempts else "solver"
            m.reported += 1
            tiling = Tiling.from_placements(placements, chosen)
            try:
                verify_tiling(instance, tiling)
            except VerificationError as e:  # a wrong model: that member is out, the others go on
                stats["failed"][m.config.name] = str(e)
                m.child.kill()
                live.remove(m)
                continue
            key = frozenset(tiling.key())
            if key not in keys:
                keys.append(key)
                blocks.append(block_tiling(placements, chosen))
                found.append(tiling)
                stats["found_by"].append(how)
                stats["answers"].append({"member": m.config.name, "answer": f"tiling {len(found)}", "seconds": seconds})
                stats["winner"] = m.config.name
                if len(found) >= count:
                    break
                progress(f"racing {len(configs)} configurations for tiling {len(found) + 1}")
            m.child.send(blocks[m.sent:])
            m.sent = len(blocks)
        else:
            errors = "; ".join(f"{k}: {v}" for k, v in stats["failed"].items()) or "the sweeps gave up"
            raise TilesatError(f"every portfolio member failed ({errors})")
    finally:
        for m in members:
            m.child.kill()
        winner = next((m for m in members if m.config.name == stats.get("winner")), None)
        if winner is not None:
            stats["winner_config"] = winner.config.describe()
            stats.update({k: v for k, v in winner.compiled.items() if k != "options"})
            stats["conflicts"] = winner.conflicts
        elif any(m.compiled for m in members):
            stats.update({k: v for k, v in next(m.compiled for m in members if m.compiled).items() if k != "options"})
        stats["seconds"] = round(time.perf_counter() - t0, 6)
    return stats


# --- solve and check-unique, as an engine ---------------------------------

#: --break-symmetry with --jobs: the portfolio's members compile their own formulas.
JOBS_REFUSAL = "--break-symmetry runs one solver on the broken formula: it cannot go with --jobs above 1"


class PortfolioEngine(Engine):
    """solve and check-unique by N SAT configurations racing (``--jobs N``)."""

    name = "portfolio"
    refuses_break_symmetry = JOBS_REFUSAL
    questions = frozenset({"find"})
    uses = ("encoding", "solver", "card")
    summary = "N diverse SAT configurations racing, each in its own process (--jobs N)"

    def for_jobs(self, jobs: int) -> Engine:
        return self

    def find(self, job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
        """The board checks, then ``job.jobs`` configurations racing (:func:`race_tilings`);
        with ``job.sweep``, the look-ahead first, then the repairing sweep's attempts as
        members of the race (:func:`sweep_configurations`) where :func:`_sweeps_race`, else
        the whole sweep in the parent (:func:`_sweep_first`) and the race for what it leaves.
        No LP certificate here: the members are all SAT; --jobs 1 has it."""
        return _find(job, count, progress, found, stats)


def _find(job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
    instance, options = job.instance, job.options
    stats["jobs"] = job.jobs
    t0 = time.perf_counter()
    check_memory(instance)
    stats["certificate_check"] = {"ran": False, "why": "not with --jobs (the portfolio races SAT configurations)"}
    stats.update(placements=None, variables=None, clauses=None, encoding=None, card=options.card, solver=options.solver)
    reason = obstruction(instance)
    t1 = t0
    try:
        if reason is None:
            progress("generating placements")
            placements = generate_placements(instance)
            stats["placements"] = len(placements)
            reason = placement_check(placements)
            t1 = time.perf_counter()
            if reason is None:
                configs, alive, blocked = configurations(job.jobs, options.encoding, options.solver), None, []
                if job.sweep:
                    stats["sweep"] = {"found_by": []}
                    alive, settled, reason = _look_ahead(placements, found, stats)
                    if settled or reason is not None:
                        return reason  # the board's one candidate tiling, or none
                    if _sweeps_race(job.jobs):
                        configs = sweep_configurations(job.jobs, options.encoding, options.solver)
                    else:
                        blocked = _sweep_first(placements, count, options, progress, alive, found, stats)
                if len(found) < count:
                    stats["portfolio"] = portfolio = {}
                    portfolio.update(race_tilings(placements, count, configs, options, found, progress, blocked, alive))
                    if job.sweep:
                        stats["sweep"]["found_by"] += portfolio["found_by"]
                    for key in ("variables", "clauses", "encoding", "conflicts"):
                        if key in portfolio:
                            stats[key] = portfolio.pop(key)
    finally:
        t2 = time.perf_counter()
        stats.update(compile_seconds=round(t1 - t0, 6), solve_seconds=round(t2 - t1, 6), seconds=round(t2 - t0, 6))
    return reason


def _sweeps_race(jobs: int) -> bool:
    """Whether the sweep's attempts race as members: when several sweep members would race
    (the first through wins) and each member has a core.  Else the whole repairing sweep
    runs first, alone (:func:`_sweep_first`): its first attempt gets through on most boards,
    and a member beside it on a shared core slows it down (docs/benchmarks/hard-families.md)."""
    return _sweep_members(jobs) >= 2 and jobs <= cores()


def _look_ahead(placements, found: list, stats: dict) -> tuple[np.ndarray | None, bool, str | None]:
    """The look-ahead before the sweep (exact boards of SWEEP_MIN_AREA cells or more): the
    placements that may be in a tiling (the others are left out of every search); whether it
    settled the board (one placement left per cell: that candidate tiling, checked, goes into
    ``found``, and there is no other; a count it breaks leaves it to the search); and why there
    is no tiling when it left a cell without a placement.  All of it rests on the log of its
    deaths, replayed first (.prune.look_ahead); a log that does not replay is dropped (the
    members decide without it, the error in the stats)."""
    board = placements.instance.board
    if board.area < SWEEP_MIN_AREA or not board.exact:
        return None, False, None
    look = look_ahead(placements)
    stats["look_ahead"] = {**look.stats(), "settled": False}
    if look.error is not None:
        return None, False, None
    chosen = look.forced
    if look.reason is not None or chosen is None or not counts_hold(placements, chosen):
        return look.pruned.alive, False, look.reason
    found.append(verify_tiling(placements.instance, Tiling.from_placements(placements, chosen)))
    stats["sweep"]["found_by"].append("look-ahead")
    stats["look_ahead"]["settled"] = True
    return look.pruned.alive, True, None


def _sweep_first(placements, count, options, progress, alive, found: list, stats: dict) -> list:
    """The repairing sweep here, then the local change near its tiling: up to two tilings
    (appended to ``found``, verified) and their blocking clauses; the race only for what
    they leave (when not :func:`_sweeps_race`)."""
    encoding = window_encoding(resolve_encoding(options.encoding, placements))
    solver = window_solver(options.solver)
    sweep_stats, found_by, blocked = SweepStats(), stats["sweep"]["found_by"], []
    sweep = RepairSweep(placements, encoding, solver, sweep_stats, alive)
    try:
        for how, chosen in zip(("sweep", "local change"), _sweep_tilings(sweep, placements, encoding, solver,
                                                                          alive, progress)):
            found.append(verify_tiling(placements.instance, Tiling.from_placements(placements, chosen)))
            found_by.append(how)
            blocked.append(block_tiling(placements, chosen))
            if len(found) >= count:
                break  # before the local change is asked for
    finally:
        stats["sweep"].update({**sweep_stats.to_json(), "found_by": found_by})
    return blocked


# --- packing ---------------------------------------------------------------

def _pack_member(conn, config: Config, placements, objective: str, encoding, solver_name, card) -> None:
    """Compile the packing formula, then raise the bound: report ("packing", chosen),
    take the best value any member has found, look for a better one; ("none", best) when there is none."""
    from pysat.card import ITotalizer

    formula, solver = _start_solver(config, placements, encoding, solver_name, card, allow_empty=True)
    goal = objective_for(formula, objective)
    conn.send(("compiled", _compiled(formula, solver)))
    P = len(placements)
    if not solver.solve():
        conn.send(("none", None, solver.stats().get("conflicts")))
        return
    totalizer = None
    while True:
        conn.send(("packing", _chosen(solver, P), solver.stats().get("conflicts")))
        best = conn.recv()
        bound = goal.cost_bound(best + 1)
        if bound < 0:  # nothing can be worth more
            conn.send(("none", best, solver.stats().get("conflicts")))
            return
        if totalizer is None:  # rhs[k] says "more than k cost literals are true" (see packing._incremental)
            totalizer = ITotalizer(lits=goal.cost, ubound=bound, top_id=formula.top)
            for clause in totalizer.cnf.clauses:
                solver.add_clause(clause)
        if not solver.solve([-totalizer.rhs[bound]]):
            conn.send(("none", best, solver.stats().get("conflicts")))
            return


def race_packings(formula, goal, configs: list[Config], options: SatOptions, stats: dict,
                  progress: Callable | None = None):
    """Each better packing any member finds (checked), in turn, as
    :func:`tilesat.questions.pack._incremental` yields them: returning means the
    last one is optimal (or, when none came, that no packing keeps the
    piece counts).  Closing the generator kills every member."""
    progress = progress or (lambda message, done=None, total=None: None)
    instance, placements = formula.placements.instance, formula.placements
    stats.update({"jobs": len(configs), "members": {c.name: c.describe() for c in configs}, "answers": [], "failed": {}})
    t0 = time.perf_counter()
    best = None
    progress(f"racing {len(configs)} configurations for a first packing")
    members = _start(configs, _pack_member, placements, goal.name, options.encoding, options.solver, options.card)
    live = list(members)
    try:
        while (answer := _next_answer(live, stats)) is not None:
            m, message = answer
            kind = message[0]
            m.conflicts = message[-1]
            seconds = round(time.perf_counter() - t0, 6)
            if kind == "none":
                if message[1] != best:
                    raise AssertionError(f"BUG: member {m.config.name} proved nothing beats {message[1]}, "
                                         f"but a packing worth {best} was found")
                stats["answers"].append({"member": m.config.name, "answer": "nothing better" if best is not None
                                         else "no packing", "seconds": seconds})
                stats["winner"] = m.config.name
                return
            packing = verify_tiling(instance, Tiling.from_placements(placements, message[1]), partial=True)
            value = goal.value_of(packing)
            if best is None or value > best:
                best = value
                stats["answers"].append({"member": m.config.name, "answer": f"value {value}", "seconds": seconds})
                yield packing
                progress(f"found {best}; {len(live)} configurations looking for {best + 1}")
            m.child.send(best)
        errors = "; ".join(f"{k}: {v}" for k, v in stats["failed"].items())
        raise TilesatError(f"every portfolio member failed ({errors})")
    finally:
        for m in members:
            m.child.kill()
        stats["seconds"] = round(time.perf_counter() - t0, 6)


PORTFOLIO = PortfolioEngine()
