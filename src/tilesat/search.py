"""Finding tilings: solve, check uniqueness, enumerate.

All three are one loop: solve, decode the placement variables, verify the
tiling with the independent checker, block it with a clause over its
placement variables only, solve again (incrementally, same solver).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .checks import obstruction, placement_check
from .dlx import CoversInterrupted, dlx_problem, first_covers
from .encodings import DEFAULT_ENCODING, check_encoding
from .formula import DEFAULT_CARD, Formula, check_card_name, compile_formula, resolve_encoding
from .instance import Instance
from .placements import Placements, generate_placements
from .errors import TilesatError
from .solvers import DEFAULT_SOLVER, EXTERNAL_PREFIX, check_solver_name, make_solver
from .tiling import Tiling, tiling_from_model
from .verify import verify_tiling


@dataclass
class Result:
    """What a search found.

    ``verdict`` is ``solved``/``none`` for :func:`solve` and
    ``unique``/``multiple``/``none`` for :func:`check_unique`; ``reason``
    says why when a quick check answered ``none`` without the solver.
    """

    verdict: str
    tilings: list[Tiling]
    reason: str | None = None
    stats: dict = field(default_factory=dict)


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
    ):
        t0 = time.perf_counter()
        # progress(message) names the stage; progress(message, done, total) measures it
        self._progress = progress or (lambda message, done=None, total=None: None)
        self.instance = instance
        self.solver_name = check_solver_name(solver)
        if timeout is not None and not self.solver_name.startswith(EXTERNAL_PREFIX):
            # Measured: PySAT's cadical195 ignores interrupt() from a timer
            # thread (glucose4 honours it), so a timeout would silently hang.
            raise TilesatError("--timeout works with external solvers (--solver ext:COMMAND); PySAT solvers run to the end")
        self.timeout = timeout
        check_encoding(encoding)  # unknown names fail here, before any work
        check_card_name(card)
        self.encoding = encoding
        self.card = card
        self.reason = obstruction(instance)
        self.placements: Placements | None = None
        self.formula: Formula | None = None
        self._solver = None
        self.found = 0
        self.last_chosen: list[int] = []
        self.solve_seconds = 0.0
        if self.reason is None:
            self._progress("generating placements")
            self.placements = generate_placements(instance)
            self.reason = placement_check(self.placements)  # the board checks ran above
            # Compile even when a quick check answered, so that info and stats
            # describe the same formula whatever the verdict.
            encoding = resolve_encoding(encoding, self.placements)  # what "auto" stands for here
            self.encoding = encoding
            self._progress(f"compiling {len(self.placements):,} placements to CNF ({encoding})")
            self.formula = compile_formula(self.placements, encoding, card)
        self.compile_seconds = time.perf_counter() - t0
        self.exhausted = self.reason is not None

    def _ensure_solver(self):
        if self._solver is None:
            self._solver = make_solver(self.solver_name, self.timeout)
            load_formula(self._solver, self.formula, self.solver_name, self._progress)
        return self._solver

    def next(self) -> Tiling | None:
        """The next tiling (verified), or None when there are no more."""
        if self.exhausted:
            return None
        solver = self._ensure_solver()
        self._progress(f"solving for tiling {self.found + 1}")
        t0 = time.perf_counter()
        try:
            sat = solver.solve()
        finally:
            self.solve_seconds += time.perf_counter() - t0
        if not sat:
            self.exhausted = True
            return None
        tiling, chosen = tiling_from_model(self.placements, solver.model())
        verify_tiling(self.instance, tiling)
        self.found += 1
        self.last_chosen = chosen  # the placement indices of the tiling just returned
        # Block this tiling: not all of these placements again.  Only the
        # placement variables: auxiliaries could differ for the same tiling.
        solver.add_clause([-(i + 1) for i in chosen])
        return tiling

    def require(self, placement: int) -> None:
        """Only tilings that use this placement from now on (one cube of a split search)."""
        if not self.exhausted:
            self._ensure_solver().add_clause([placement + 1])

    def __iter__(self) -> Iterator[Tiling]:
        while (t := self.next()) is not None:
            yield t

    def close(self):
        if self._solver is not None:
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
            "compile_seconds": round(self.compile_seconds, 6),
            "solve_seconds": round(self.solve_seconds, 6),
            "seconds": round(self.compile_seconds + self.solve_seconds, 6),
        }


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


SEARCH_METHODS = ("auto", "sat", "dlx")
SAT_DEFAULTS = {"encoding": DEFAULT_ENCODING, "solver": DEFAULT_SOLVER, "card": DEFAULT_CARD, "timeout": None}


def choose_search_method(instance: Instance, encoding: str = DEFAULT_ENCODING, solver: str = DEFAULT_SOLVER,
                         card: str = DEFAULT_CARD, timeout: float | None = None) -> tuple[str, str]:
    """(method, why) for ``method="auto"``: dancing links for puzzles that use
    each piece at most once, where it finds two tilings of a pentomino
    rectangle in milliseconds and CDCL takes seconds; SAT otherwise, and
    whenever a SAT option was asked for."""
    if (encoding, solver, card, timeout) != tuple(SAT_DEFAULTS.values()):
        return "sat", "SAT options were given"
    if dlx_problem(instance) is None and all(r.max <= 1 for r in instance.rules):
        return "dlx", "each piece at most once: an exact-cover puzzle for dancing links"
    return "sat", "pieces that may repeat: SAT"


def _first(instance: Instance, count: int, method: str = "auto", **options) -> tuple[list[Tiling], str | None, dict]:
    """Up to ``count`` verified tilings, the quick checks' reason, and stats."""
    if method not in SEARCH_METHODS:
        raise TilesatError(f"unknown method {method!r}; choose one of: {', '.join(SEARCH_METHODS)}")
    why = "chosen with --method"
    if method == "auto":
        sat_options = {k: options[k] for k in SAT_DEFAULTS if k in options}
        method, why = choose_search_method(instance, **sat_options)
    if method == "dlx":
        asked = {k: v for k, v in options.items() if k in SAT_DEFAULTS and v != SAT_DEFAULTS[k]}
        if asked:
            raise TilesatError(f"--{', --'.join(asked)}: SAT options, but --method dlx does not use a SAT solver")
        return _first_by_dlx(instance, count, options.get("progress"), why)
    found: list[Tiling] = []
    try:
        with TilingSearch(instance, **options) as search:
            while len(found) < count and (t := search.next()) is not None:
                found.append(t)
    except Interrupted:
        raise
    except KeyboardInterrupt as e:
        raise Interrupted(found) from e
    return found, search.reason, {"method": "sat", "method_reason": why, **search.stats()}


def _first_by_dlx(instance: Instance, count: int, progress, why: str) -> tuple[list[Tiling], str | None, dict]:
    progress = progress or (lambda message, done=None, total=None: None)
    if (problem := dlx_problem(instance)) is not None:
        raise TilesatError(f"--method dlx: {problem}; use --method sat")
    t0 = time.perf_counter()
    reason, placements = obstruction(instance), None
    if reason is None:
        progress("generating placements")
        placements = generate_placements(instance)
        reason = placement_check(placements)
    t1 = time.perf_counter()

    def verified(chosen) -> list[Tiling]:
        return [verify_tiling(instance, Tiling.from_placements(placements, c.tolist())) for c in chosen]

    found: list[Tiling] = []
    if reason is None:
        progress("searching by dancing links (xcover)")
        try:
            found = verified(first_covers(placements, count))
        except CoversInterrupted as e:
            raise Interrupted(verified(e.found)) from None
    t2 = time.perf_counter()
    stats = {"method": "dlx", "method_reason": why,
             "placements": len(placements) if placements is not None else None,
             "variables": None, "clauses": None, "encoding": None, "card": None, "solver": "xcover",
             "compile_seconds": round(t1 - t0, 6), "solve_seconds": round(t2 - t1, 6), "seconds": round(t2 - t0, 6)}
    return found, reason, stats


def solve(instance: Instance, method: str = "auto", **options) -> Result:
    """One verified tiling (verdict ``solved``) or ``none``.  ``method``:
    ``sat``, ``dlx`` (dancing links) or ``auto`` (:func:`choose_search_method`)."""
    found, reason, stats = _first(instance, 1, method, **options)
    return Result("solved" if found else "none", found, reason, stats)


def check_unique(instance: Instance, method: str = "auto", **options) -> Result:
    """Verdict ``unique``, ``multiple`` (with two tilings) or ``none``;
    ``method`` as for :func:`solve`."""
    found, reason, stats = _first(instance, 2, method, **options)
    verdict = {0: "none", 1: "unique", 2: "multiple"}[len(found)]
    return Result(verdict, found, reason, stats)


def iter_tilings(instance: Instance, limit: int | None = None, **options) -> Iterator[Tiling]:
    """Every tiling of the instance (up to ``limit``), each verified."""
    with TilingSearch(instance, **options) as search:
        for n, t in enumerate(search, 1):
            yield t
            if limit is not None and n >= limit:
                return
