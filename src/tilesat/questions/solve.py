"""Finding tilings: solve, check uniqueness, enumerate.

All three are one loop: solve, decode the placement variables, verify the
tiling with the independent checker, block it with a clause over its
placement variables only, solve again (incrementally, same solver).

A ``timeout`` bounds the whole search, compiling included
(:mod:`tilesat.running.control`); when it passes the verdict is ``unknown``, with
the tilings found before it.
"""

from __future__ import annotations

import time
from functools import partial
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..certify.certificate import Certificate, load_lp, lp_estimate, lp_gate, quick_check
from ..certify.checks import obstruction, placement_check
from ..running.control import Deadline, TimedOut, deadline, time_limit
from ..engines.dlx import dlx_problem, stream_covers
from ..sat.encodings import DEFAULT_ENCODING
from ..sat.formula import DEFAULT_CARD, Formula, compile_formula, resolve_encoding
from ..model.instance import Instance
from ..model.footprint import check_memory
from ..sat.options import SatOptions
from ..model.placements import Placements, generate_placements
from ..engines.portfolio import check_jobs, configurations, race_tilings
from ..errors import TilesatError
from ..sat.solvers import DEFAULT_SOLVER, default_options, make_solver
from ..engines.sweep import GLANCE, SWEEP_MIN_AREA, TROUBLE_WIDTH, Sweep, SweepStats, other_tiling, sweep_problem, window_encoding, window_solver
from ..sat.symbreak import symmetry_breaking
from ..model.symmetry import symmetry_group
from ..model.tiling import Tiling, tiling_from_model
from ..certify.verify import verify_tiling


@dataclass
class Result:
    """What a search found.

    ``verdict`` is ``solved``/``none`` for :func:`solve` and
    ``unique``/``multiple``/``none`` for :func:`check_unique`, or
    ``unknown`` when the time limit passed first (``tilings`` then holds
    what was found); ``reason`` says why when a quick check answered
    ``none`` without the solver, and ``certificate`` is the checked
    weighting that proves it when that check was the LP's
    (:mod:`tilesat.certify.certificate`).
    """

    verdict: str
    tilings: list[Tiling]
    reason: str | None = None
    stats: dict = field(default_factory=dict)
    certificate: Certificate | None = None


class TilingSearch:
    """An incremental search for the tilings of one instance.

    >>> search = TilingSearch(instance)          # doctest: +SKIP
    >>> first = search.next()                    # a verified Tiling, or None
    """

    def __init__(
        self,
        instance: Instance,
        encoding: str = DEFAULT_ENCODING,
        solver: str = DEFAULT_SOLVER,
        card: str = DEFAULT_CARD,
        progress: Callable[..., None] | None = None,
        timeout: float | None = None,
        certificates: bool | str = False,
        break_symmetry: bool | str = False,
        sweep: bool = False,
    ):
        t0 = time.perf_counter()
        # the first tiling by a sweep of SAT windows, the second by a local change of the
        # first (tilesat.engines.sweep); whatever they do not find, the solver over the whole board
        self.sweep = sweep
        # lex-leader constraints (tilesat.sat.symbreak): True breaks generators (or a small
        # group whole), "full" every element (one model per class, for counting)
        self.break_symmetry = break_symmetry
        # the certificate check (CertificatePlan): off by default here, the
        # engine; solve and check_unique, the front ends, turn it on
        self.certificates = certificates
        # progress(message) names the stage; progress(message, done, total) measures it
        self._progress = progress or (lambda message, done=None, total=None: None)
        self.instance = instance
        options = SatOptions(encoding, solver, card, timeout)  # bad names fail here, before any work
        self.solver_name = options.solver
        self.timeout = options.timeout
        self.limit = Deadline(self.timeout)  # the whole search's, compiling included
        self.encoding = encoding
        self.card = card
        with time_limit(self.limit):
            self._compile(instance, encoding, card)
        self.compile_seconds = time.perf_counter() - t0
        self.exhausted = self.reason is not None

    def _compile(self, instance, encoding, card):
        check_memory(instance)  # before the board checks too: they alone take 20 s on a 3000x3000 board
        self.certificate: Certificate | None = None
        self.certificate_check: dict = {"ran": False, "why": "a board check answered first"}
        self._lp_plan: CertificatePlan | None = None
        self.reason = obstruction(instance)
        self.placements: Placements | None = None
        self.formula: Formula | None = None
        self.group = self.breaking = None  # with break_symmetry: the group and what was broken
        self._solver = None
        self._added: list[list[int]] = []  # clauses beyond the formula (required placements, blocked tilings)
        self.solver_options: dict = {}  # CaDiCaL options given by default (solvers.default_options)
        self.found = 0
        self.last_chosen: list[int] = []
        self._sweeper: Sweep | None = None
        self.sweep_stats = SweepStats()
        self.found_by: list[str] = []  # how each tiling was found: "sweep", "local change" or "solver"
        self._local_tried = False
        self._glanced: set[int] = set()  # for which tiling (0: the first) the solver has glanced
        self.solve_seconds = 0.0
        self._conflicts_seen = None
        if self.reason is None:
            self._progress("generating placements")
            self.placements = generate_placements(instance)
            self.reason = placement_check(self.placements)  # the board checks ran above
            if self.reason is None:
                self._lp_plan = CertificatePlan(instance, self.placements, self.certificates, self._progress)
                self.certificate_check = self._lp_plan.report
            # Compile even when a quick check answered, so that info and stats
            # describe the same formula whatever the verdict.
            encoding = resolve_encoding(encoding, self.placements)  # what "auto" stands for here
            self.encoding = encoding
            self._progress(f"compiling {len(self.placements):,} placements to CNF ({encoding})")
            self.limit.check()
            self.formula = compile_formula(self.placements, encoding, card)
            if self.break_symmetry:
                self._progress("breaking the board's symmetries (lex-leader)")
                mode = "full" if self.break_symmetry == "full" else "generators"
                if mode == "full":  # every element (count's classes); else a few maps, cheaply
                    self.group = symmetry_group(self.placements)
                self.formula, self.breaking = symmetry_breaking(self.formula, mode, self.group)

    def _ensure_solver(self):
        if self._solver is None:
            self._solver = make_solver(self.solver_name)
            self.solver_options = default_options(self.solver_name, self.placements.candidates_per_cell())
            if self.solver_options:
                self._solver.configure(self.solver_options)  # open boards: CaDiCaL's --sat options (solvers.OPEN_BOARD_OPTIONS)
            load_formula(self._solver, self.formula, self.solver_name, self._progress)
            for clause in self._added:  # a solver started again (after the LP's turn) keeps what was asked
                self._solver.add_clause(clause)
        return self._solver

    def _add_clause(self, clause: list[int]) -> None:
        self._added.append(clause)  # a solver started later gets it from here
        if self._solver is not None:
            self._solver.add_clause(clause)

    def next(self) -> Tiling | None:
        """The next tiling (verified), or None when there are no more.

        Raises :class:`~tilesat.running.control.TimedOut` when the search's time
        limit passes (the search is spent then)."""
        if self.exhausted:
            return None
        with time_limit(self.limit):
            return self._next()

    def _next(self) -> Tiling | None:
        plan = self._lp_plan
        if self.sweep and self.found == 0 and plan is not None and plan.pending and plan.budget > 0:
            # A sweep goes on while it goes forward: the LP's turn comes when its
            # window widens past TROUBLE_WIDTH, a sign that there may be no tiling.
            found = self._without_solver(TROUBLE_WIDTH)
            if found is not None or self.exhausted:
                plan.done("the search finished first")
                return None if found is None else self._accept(*found)
        if plan is not None and plan.pending and plan.budget > 0:
            # the search first, for as long as the LP would take; then the LP
            try:
                with time_limit(plan.budget):
                    tiling = self._solve_next()
                plan.done("the search finished first")
                return tiling
            except TimedOut:
                if self.limit.expired():
                    raise
        if plan is not None and plan.pending:
            self.certificate = plan.run()
            if self.certificate is not None:
                self.reason = self.certificate.sentence()
                self.exhausted = True
                self.close()
                return None
            self.close()  # the budgeted solver was stopped: a new one, same formula
            self.exhausted = False
        return self._solve_next()

    def _solve_next(self) -> Tiling | None:
        if self.sweep and self.found < 2:
            if (found := self._without_solver()) is not None:
                return self._accept(*found)
            if self.exhausted:
                return None
        solver = self._ensure_solver()
        stage = f"solving for tiling {self.found + 1}"
        self._progress(stage)
        solver.on_conflicts = lambda n: self._progress(f"{stage} · {n:,} conflicts")
        t0 = time.perf_counter()
        try:
            sat = solver.solve()
        except (TimedOut, KeyboardInterrupt):
            self.exhausted = True  # the solver is spent
            raise
        finally:
            self.solve_seconds += time.perf_counter() - t0
        if not sat:
            self.exhausted = True
            return None
        self.found_by.append("solver")
        return self._accept(*reversed(tiling_from_model(self.placements, solver.model())))

    def _without_solver(self, pause_wider_than: int | None = None) -> tuple[list[int], Tiling | None] | None:
        """(placements, tiling or None) of the first tiling by the sweep or of the second by a
        local change, or None: the solver's turn.  Neither repeats a tiling: the sweep
        runs before any is found, the local change differs from the first.

        The solver over the whole board glances first (:meth:`_glance`) where that
        is likely to pay: before the sweep, and before the local change when the
        first tiling was the solver's (a warm solver finds a second one in a few
        conflicts).  ``exhausted`` is set when a glance proves there is no (other) tiling."""
        if self.found == 0 or (self.found == 1 and self.found_by[0] == "solver"):
            if self.found not in self._glanced:
                self._glanced.add(self.found)
                sat = self._glance()
                if sat is False:
                    self.exhausted = True
                    return None
                if sat:
                    self.found_by.append("solver")
                    tiling, chosen = tiling_from_model(self.placements, self._solver.model())
                    return chosen, tiling
        if self.found == 0:
            chosen = self._sweep(pause_wider_than)
            return None if chosen is None else (chosen, None)
        if self.found == 1 and not self._local_tried:
            self._local_tried = True
            self._progress("looking for a second tiling near the first")
            t0 = time.perf_counter()
            try:
                chosen = other_tiling(self.placements, self.last_chosen, window_encoding(self.formula.encoding),
                                      self.sweep_stats, window_solver(self.solver_name))
            finally:
                self.solve_seconds += time.perf_counter() - t0
            if chosen is not None:
                self.found_by.append("local change")
                return chosen, None
        return None

    def _glance(self) -> bool | None:
        """The solver over the whole board for GLANCE conflicts only: designed
        puzzles end within them in milliseconds (propagation does the work),
        and so do boards that one run tiles easily, before a sweep would have
        begun.  None: not within them, or a solver without conflict budgets."""
        solver = self._ensure_solver()
        if not getattr(solver, "can_budget", False):
            return None
        self._progress(f"solving for tiling {self.found + 1}")
        t0 = time.perf_counter()
        try:
            return solver.solve(conflicts=GLANCE)
        except (TimedOut, KeyboardInterrupt):
            self.exhausted = True  # the solver is spent
            raise
        finally:
            self.solve_seconds += time.perf_counter() - t0

    def _sweep(self, pause_wider_than: int | None = None) -> list[int] | None:
        """The sweep's tiling, or None: it gave up, or paused (``pause_wider_than``).
        It resumes where a pause or a time limit left it."""
        if self._sweeper is None:
            self._sweeper = Sweep(self.placements, window_encoding(self.formula.encoding), window_solver(self.solver_name), self.sweep_stats)
        if self._sweeper.done:
            return None
        t0 = time.perf_counter()
        try:
            chosen = self._sweeper.run(self._progress, pause_wider_than)
        finally:
            self.solve_seconds += time.perf_counter() - t0
        if chosen is not None:
            self.found_by.append("sweep")
        return chosen

    def _accept(self, chosen: list[int], tiling: Tiling | None = None) -> Tiling:
        """The tiling of these placements, verified, counted and blocked."""
        if tiling is None:
            tiling = Tiling.from_placements(self.placements, chosen)
        verify_tiling(self.instance, tiling)
        self.found += 1
        self.last_chosen = chosen  # the placement indices of the tiling just returned
        # Block this tiling: not all of these placements again.  Only the
        # placement variables: auxiliaries could differ for the same tiling.
        self._add_clause([-(i + 1) for i in chosen])
        return tiling

    def require(self, placement: int) -> None:
        """Only tilings that use this placement from now on (one cube of a split search)."""
        if not self.exhausted:
            with time_limit(self.limit):
                self._add_clause([placement + 1])

    def __iter__(self) -> Iterator[Tiling]:
        while (t := self.next()) is not None:
            yield t

    def conflicts(self) -> int | None:
        """The solver's conflicts so far (None before it started)."""
        if self._solver is not None:
            self._conflicts_seen = self._solver.stats().get("conflicts", self._conflicts_seen)
        return self._conflicts_seen

    def close(self):
        if self._solver is not None:
            self.conflicts()
            self._solver.close()
            self._solver = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def stats(self) -> dict:
        f = self.formula
        return {
            "placements": len(self.placements) if self.placements is not None else None,
            "variables": f.nvars if f else None,
            "clauses": f.nclauses if f else None,
            "encoding": self.encoding,
            "card": self.card,
            "solver": self.solver_name,
            "solver_options": self.solver_options,
            "conflicts": self.conflicts(),
            "compile_seconds": round(self.compile_seconds, 6),
            "solve_seconds": round(self.solve_seconds, 6),
            "seconds": round(self.compile_seconds + self.solve_seconds, 6),
            "certificate_check": self._lp_plan.report if self._lp_plan is not None else self.certificate_check,
            **({"symmetry_breaking": self.breaking.to_json()} if self.breaking is not None else {}),
            **({"sweep": {**self.sweep_stats.to_json(), "found_by": self.found_by}} if self.sweep else {}),
        }


#: ``certificates=``: True (the LP where it is worth it), "always" (the LP first, on any board), False (never).
CERTIFICATE_MODES = (True, "always", False)


class CertificatePlan:
    """When to look for a certificate of "no tiling" (:mod:`tilesat.certify.certificate`).

    Where :func:`~tilesat.certify.certificate.lp_gate` allows it, the search runs
    first for ``budget`` seconds, what the LP is expected to take
    (:func:`~tilesat.certify.certificate.lp_estimate`); a search that ends within it
    (any board with a tiling found quickly, any easy "none") never pays for
    the LP.  Otherwise :meth:`run` tries the LP, for at most ``LP_CAP`` times
    its estimate, and the search starts again when it finds nothing: at
    worst the LP's time more than the search alone.  ``report`` says what happened
    (the stats' ``certificate_check``)."""

    # The LP may take 20x its estimate (at least 2 s): a feasible LP takes up
    # to 6x, a loaded machine more, and a search resumed after an LP cut
    # short is the exponential one this check is there to avoid.
    LP_CAP, LP_CAP_MIN = 20, 2.0

    def __init__(self, instance: Instance, placements: Placements, enabled: bool | str, progress: Callable | None = None):
        self.instance, self.placements, self._progress = instance, placements, progress
        self.pending, self.budget = False, 0.0
        if enabled not in CERTIFICATE_MODES:
            raise TilesatError(f"certificates={enabled!r}: use True (when worth it), 'always' or False")
        if not enabled:
            self.report = {"ran": False, "why": "turned off"}
            return
        if enabled == "always":  # asked for: the LP first, uncapped
            self.report = {"ran": False, "why": "asked for"}
            self.pending, self.budget, self.LP_CAP = True, 0.0, None
            return
        run, why = lp_gate(placements)
        self.report = {"ran": False, "why": why}
        if run:
            self.pending, self.budget = True, lp_estimate(placements)

    def done(self, why: str) -> None:
        self.pending = False
        self.report = {"ran": False, "why": why}

    def run(self) -> Certificate | None:
        """The LP (capped); a checked certificate or None."""
        self.pending = False
        if self._progress is not None:
            self._progress("looking for a certificate of 'no tiling' (LP)")
        t0 = time.perf_counter()
        outer = deadline()
        cert, why = None, "the search went on past the LP's estimated time"
        if self.LP_CAP is None:
            why = "asked for"
        load_lp()  # outside the LP's own limit
        try:
            with time_limit(None if self.LP_CAP is None else max(self.LP_CAP_MIN, self.LP_CAP * self.budget)):
                cert = quick_check(self.instance, self.placements, gated=self.LP_CAP is not None)
        except TimedOut:
            if outer.expired():
                raise
            why += "; the LP passed its own limit, so the search resumed"
        self.report = {"ran": True, "why": why, "seconds": round(time.perf_counter() - t0, 6),
                       "found": cert is not None, **(cert.stats if cert is not None else {})}
        return cert


def load_formula(solver, formula: Formula, name: str, progress: Callable) -> None:
    """Add the formula to the solver, reporting how many clauses are in."""
    total = formula.nclauses
    message = f"loading {total:,} clauses into {name}"
    progress(message, 0, total)
    solver.add_formula(formula, lambda done: progress(message, done, total))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a search; ``tilings`` holds what was found before it."""

    def __init__(self, tilings: list[Tiling]):
        super().__init__(f"interrupted after {len(tilings)} tiling(s)")
        self.tilings = tilings


SEARCH_METHODS = ("auto", "sat", "sweep", "dlx")


def choose_search_method(instance: Instance, options: SatOptions | None = None, **sat) -> tuple[str, str]:
    """(method, why) for ``method="auto"``: dancing links for puzzles that use
    each piece at most once, where it finds two tilings of a pentomino
    rectangle in milliseconds and CDCL takes seconds; a sweep of SAT windows
    (:mod:`tilesat.engines.sweep`) on big boards where pieces repeat freely, where
    one SAT run's time to a first tiling is a lottery of 10-120 s (60x60)
    and the sweep's is 2-5 s; SAT otherwise, and whenever a SAT option was
    asked for (``options``, or as keywords)."""
    options = options or SatOptions(**sat)
    if options.asked():
        return "sat", "SAT options were given"
    if dlx_problem(instance) is None and all(r.max <= 1 for r in instance.rules):
        return "dlx", "each piece at most once: an exact-cover puzzle for dancing links"
    if instance.board.area >= SWEEP_MIN_AREA and sweep_problem(instance) is None:
        return "sweep", (f"a big board ({instance.board.area} open cells) and pieces that may repeat: "
                         "SAT windows swept across it find tilings, one SAT run proves there are no (more)")
    return "sat", "pieces that may repeat: SAT"


def _first(instance: Instance, count: int, method: str = "auto", progress: Callable | None = None,
           certificates: bool = True, jobs: int | str = 1, **sat) -> tuple[list[Tiling], str | None, dict]:
    """Up to ``count`` verified tilings, the quick checks' reason, and stats
    (``stats["stopped"] == "timeout"`` when the time limit passed first).
    ``jobs`` above 1: a portfolio of that many SAT configurations (:mod:`tilesat.engines.portfolio`)."""
    if method not in SEARCH_METHODS:
        raise TilesatError(f"unknown method {method!r}; choose one of: {', '.join(SEARCH_METHODS)}")
    break_symmetry = sat.pop("break_symmetry", False)
    options = SatOptions(**sat)
    jobs = check_jobs(jobs)
    if jobs > 1 and method == "dlx":
        raise TilesatError("--jobs: a portfolio of SAT configurations, but --method dlx uses no SAT solver")
    why = "chosen with --method"
    if method == "auto" and break_symmetry:
        method, why = "sat", "--break-symmetry adds clauses: SAT"
    if method == "auto":
        method, why = choose_search_method(instance, options)
    if jobs > 1 and break_symmetry:
        raise TilesatError(JOBS_REFUSAL)
    if method == "dlx" and break_symmetry:
        raise TilesatError("--break-symmetry adds lex-leader clauses to the SAT formula: use --method sat (or auto)")
    if method == "sweep" and break_symmetry:
        raise TilesatError("--break-symmetry adds lex-leader clauses that a sweep's windows do not see: "
                           "use --method sat (or auto)")
    if method == "sweep" and (problem := sweep_problem(instance)) is not None:
        raise TilesatError(f"--method sweep: {problem}; use --method sat")
    if method == "dlx":
        options.refuse_for("dlx")
        if (problem := dlx_problem(instance)) is not None:
            raise TilesatError(f"--method dlx: {problem}; use --method sat")
    progress = progress or (lambda message, done=None, total=None: None)
    found: list[Tiling] = []
    stats: dict = {"method": method, "method_reason": why, "certificates": certificates}
    if jobs > 1 and method in ("sat", "sweep"):
        stats["jobs"] = jobs
    t0 = time.perf_counter()
    try:
        with time_limit(options.timeout):
            sweep = method == "sweep"
            run = (_first_by_dlx if method == "dlx" else partial(_first_by_portfolio, sweep=sweep) if jobs > 1
                   else partial(_first_by_sat, break_symmetry=break_symmetry, sweep=sweep))
            reason = run(instance, count, options, progress, found, stats)
    except TimedOut:
        stats.update(stopped="timeout", timeout=options.timeout, seconds=round(time.perf_counter() - t0, 6))
        return found, None, stats
    except Interrupted:
        raise
    except KeyboardInterrupt as e:
        raise Interrupted(found) from e
    finally:
        stats.pop("certificates", None)
    return found, reason, stats


def _result(verdict: str, found: list, reason: str | None, stats: dict) -> Result:
    cert = stats.pop("_certificate", None)
    return Result(verdict, found, reason, stats, cert if verdict == "none" else None)


def _first_by_sat(instance, count, options: SatOptions, progress, found: list, stats: dict,
                  break_symmetry: bool | str = False, sweep: bool = False) -> str | None:
    search = None
    try:
        search = TilingSearch(instance, options.encoding, options.solver, options.card, progress,
                              certificates=stats.pop("certificates"), break_symmetry=break_symmetry, sweep=sweep)
        with search:
            while len(found) < count and (t := search.next()) is not None:
                found.append(t)
        return search.reason
    finally:
        if search is not None:
            stats.update(search.stats())
            stats["_certificate"] = search.certificate  # moved to Result.certificate


def _first_by_portfolio(instance, count, options: SatOptions, progress, found: list, stats: dict,
                        sweep: bool = False) -> str | None:
    """The board checks, then N configurations racing (:func:`tilesat.engines.portfolio.race_tilings`);
    with ``sweep``, first the sweep and the local change here (:mod:`tilesat.engines.sweep`),
    and the race only for what they leave.
    No LP certificate here: the members are all SAT; --jobs 1 has it."""
    t0 = time.perf_counter()
    check_memory(instance)
    stats.pop("certificates", None)
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
            blocked: list[list[int]] = []
            if reason is None and sweep:
                blocked = _sweep_first(instance, placements, count, options, progress, found, stats)
            if reason is None and len(found) < count:
                configs = configurations(stats["jobs"], options.encoding, options.solver)
                stats["portfolio"] = portfolio = {}
                portfolio.update(race_tilings(instance, placements, count, configs, options.encoding, options.solver,
                                              options.card, found, progress, blocked))
                for key in ("variables", "clauses", "encoding", "conflicts"):
                    if key in portfolio:
                        stats[key] = portfolio.pop(key)
    finally:
        t2 = time.perf_counter()
        stats.update(compile_seconds=round(t1 - t0, 6), solve_seconds=round(t2 - t1, 6), seconds=round(t2 - t0, 6))
    return reason


def _sweep_first(instance, placements, count, options: SatOptions, progress, found: list, stats: dict) -> list:
    """The portfolio's prelude with ``sweep``: up to two tilings (appended to
    ``found``, verified) by the sweep and the local change; their blocking clauses."""
    encoding = window_encoding(resolve_encoding(options.encoding, placements))
    solver = window_solver(options.solver)
    sweep_stats, found_by, blocked = SweepStats(), [], []
    stats["sweep"] = sweep_stats.to_json()
    chosen = Sweep(placements, encoding, solver, sweep_stats).run(progress)
    try:
        for how in ("sweep", "local change"):
            if chosen is None or len(found) >= count:
                break
            found.append(verify_tiling(instance, Tiling.from_placements(placements, chosen)))
            found_by.append(how)
            blocked.append([-(i + 1) for i in chosen])
            if len(found) < count:
                progress("looking for a second tiling near the first")
                chosen = other_tiling(placements, chosen, encoding, sweep_stats, solver)
    finally:
        stats["sweep"] = {**sweep_stats.to_json(), "found_by": found_by}
    return blocked


def _first_by_dlx(instance, count, options: SatOptions, progress, found: list, stats: dict) -> str | None:
    t0 = time.perf_counter()
    check_memory(instance)
    stats.setdefault("certificate_check", {"ran": False, "why": "a board check answered first"})
    reason, placements, plan = obstruction(instance), None, None
    stats.update(placements=None, variables=None, clauses=None, encoding=None, card=None, solver="xcover")
    if reason is None:
        progress("generating placements")
        placements = generate_placements(instance)
        reason = placement_check(placements)
        stats["placements"] = len(placements)
        plan = CertificatePlan(instance, placements, stats["certificates"], progress) if reason is None else None
    t1 = time.perf_counter()
    try:
        if reason is None:
            progress("searching by dancing links (xcover)")
            covers = stream_covers(placements, limit=count) if not (plan.pending and plan.budget == 0) else None
            if plan.pending and plan.budget > 0:  # the search first, for as long as the LP would take
                try:
                    with time_limit(plan.budget):
                        first = next(covers, None)
                    plan.done("the search finished first")
                    covers = iter([]) if first is None else _chain(first, covers)
                except TimedOut:
                    if deadline().expired():
                        raise
                    covers.close()
                    covers = None
            if plan.pending:
                cert = plan.run()
                if cert is not None:
                    stats["_certificate"], reason = cert, cert.sentence()
                    covers = iter([])
                elif covers is None:
                    progress("searching by dancing links (xcover)")
                    covers = stream_covers(placements, limit=count)
            for chosen in covers:
                found.append(verify_tiling(instance, Tiling.from_placements(placements, chosen.tolist())))
    finally:
        if plan is not None:
            stats["certificate_check"] = plan.report
        t2 = time.perf_counter()
        stats.update(compile_seconds=round(t1 - t0, 6), solve_seconds=round(t2 - t1, 6), seconds=round(t2 - t0, 6))
    return reason


def _chain(first, rest):
    yield first
    yield from rest


#: --break-symmetry with --jobs: the portfolio's members compile their own formulas.
JOBS_REFUSAL = "--break-symmetry runs one solver on the broken formula: it cannot go with --jobs above 1"

#: check-unique's one line for --break-symmetry.
UNIQUE_REFUSAL = ("--break-symmetry keeps one tiling per symmetry class, so it cannot tell 'unique' from "
                  "'multiple' (a symmetric twin is cut away); use it with solve, pack or count --up-to-symmetry")


def solve(instance: Instance, method: str = "auto", **options) -> Result:
    """One verified tiling (verdict ``solved``), ``none``, or ``unknown``
    when ``timeout`` seconds passed first.  ``method``: ``sat``, ``dlx``
    (dancing links) or ``auto`` (:func:`choose_search_method`); ``jobs=N``
    (or ``"auto"``): N SAT configurations racing (:mod:`tilesat.engines.portfolio`);
    ``break_symmetry`` (True or "full") adds lex-leader clauses
    (:mod:`tilesat.sat.symbreak`): the verdict stays exact and the tiling found is
    still a real one."""
    found, reason, stats = _first(instance, 1, method, **options)
    if stats.get("stopped"):
        return _result("unknown", found, None, stats)
    return _result("solved" if found else "none", found, reason, stats)


def check_unique(instance: Instance, method: str = "auto", **options) -> Result:
    """Verdict ``unique``, ``multiple`` (with two tilings), ``none``, or
    ``unknown`` when ``timeout`` seconds passed first (with the tiling found
    before, if any); ``method`` as for :func:`solve`.  ``break_symmetry`` is
    refused: it keeps one tiling per class, so a second tiling may be cut away."""
    if options.get("break_symmetry"):
        raise TilesatError(UNIQUE_REFUSAL)
    found, reason, stats = _first(instance, 2, method, **options)
    if stats.get("stopped") and len(found) < 2:
        return _result("unknown", found, None, stats)
    verdict = {0: "none", 1: "unique", 2: "multiple"}[len(found)]
    return _result(verdict, found, reason, stats)


def iter_tilings(instance: Instance, limit: int | None = None, **options) -> Iterator[Tiling]:
    """Every tiling of the instance (up to ``limit``), each verified.  With
    ``timeout``, :class:`~tilesat.running.control.TimedOut` ends the iteration when
    the time is up (the tilings yielded before it stand)."""
    with TilingSearch(instance, **options) as search:
        for n, t in enumerate(search, 1):
            yield t
            if limit is not None and n >= limit:
                return
