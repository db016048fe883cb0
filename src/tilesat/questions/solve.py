"""Finding tilings: solve and check uniqueness, by whichever engine
``--method`` names or ``auto`` picks (:mod:`tilesat.engines.auto`); every
tiling verified by the independent checker.

A ``timeout`` bounds the whole search, compiling included
(:mod:`tilesat.running.control`); when it passes the verdict is ``unknown``, with
the tilings found before it.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator

from ..certify.certificate import Certificate
from ..engines.auto import choose
from ..engines.base import Job, no_progress
from ..engines.portfolio import check_jobs
from ..engines.registry import check_takes, engine_for, method_names
from ..engines.sat import TilingSearch
from ..errors import TilesatError
from ..model.display import show
from ..model.instance import Instance
from ..model.tiling import Tiling
from ..running.control import TimedOut, time_limit
from ..sat.options import SatOptions


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
    instance: Instance | None = field(default=None, repr=False, compare=False)  # what was asked, for drawing

    def to_json(self) -> dict:
        """The result as ``solve``/``check-unique``/``decode --json`` print it."""
        return {
            "verdict": self.verdict,
            "tilings": [t.to_json() for t in self.tilings],
            "reason": self.reason,
            "certificate": self.certificate.to_json() if self.certificate is not None else None,
            "stats": self.stats,
        }

    def _repr_html_(self) -> str:
        """The verdict and the tilings drawn (a notebook shows it): :mod:`tilesat.model.display`."""
        return show("result_html", self)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a search; ``tilings`` holds what was found before it."""

    def __init__(self, tilings: list[Tiling]):
        super().__init__(f"interrupted after {len(tilings)} tiling(s)")
        self.tilings = tilings


SEARCH_METHODS = method_names("find")


def choose_search_method(instance: Instance, options: SatOptions | None = None, **sat) -> tuple[str, str]:
    """(method, why) for ``method="auto"`` (the rules: :mod:`tilesat.engines.auto`)."""
    engine, why = choose(Job("find", instance, options or SatOptions(**sat)))
    return engine.name, why


@dataclass(frozen=True)
class FindRequest:
    """How solve and check-unique look for tilings (the SAT options travel beside, as one
    :class:`~tilesat.sat.options.SatOptions`): the method (or ``auto``), the LP's
    certificate of "no tiling" (:mod:`tilesat.certify.schedule`), the processes
    (``jobs`` above 1: a portfolio of SAT configurations), lex-leader clauses."""

    method: str = "auto"
    certificates: bool | str = True
    jobs: int | str = 1
    break_symmetry: bool | str = False


def find_request(method: str, keywords: dict) -> tuple[FindRequest, SatOptions, Callable | None]:
    """The keywords of :func:`solve` and :func:`check_unique` as the objects they stand for
    (the method checked first, then the SAT options, then the processes)."""
    if method != "auto":
        engine_for("find", method, "method")
    keywords = dict(keywords)
    progress = keywords.pop("progress", None)
    fields = {f.name for f in dataclasses.fields(FindRequest)} - {"method"}
    request = FindRequest(method, **{k: keywords.pop(k) for k in list(keywords) if k in fields})
    options = keywords.pop("options", None) or SatOptions(**keywords)
    return replace(request, jobs=check_jobs(request.jobs)), options, progress


def find(instance: Instance, count: int, request: FindRequest = FindRequest(), options: SatOptions = SatOptions(),
         progress: Callable | None = None) -> tuple[list[Tiling], str | None, dict]:
    """Up to ``count`` verified tilings, the quick checks' reason, and stats
    (``stats["stopped"] == "timeout"`` when the time limit passed first)."""
    engine = None if request.method == "auto" else engine_for("find", request.method, "method")
    jobs = check_jobs(request.jobs)
    job = Job("find", instance, options, jobs=jobs, break_symmetry=request.break_symmetry,
              certificates=request.certificates)
    why = "chosen with --method"
    if engine is None:
        engine, why = choose(job)
        runner = engine.for_jobs(jobs) or engine  # auto's dancing links run alone whatever --jobs says
    elif (runner := engine.for_jobs(jobs)) is None:
        raise TilesatError(f"--jobs: a portfolio of SAT configurations, but --method {engine.name} uses no SAT solver")
    if request.break_symmetry and (refusal := runner.refuses_break_symmetry) is not None:
        raise TilesatError(refusal)
    if not engine.uses:
        options.refuse_for(engine.name)
    check_takes(engine, instance, "find")
    job.sweep = getattr(engine, "sweeps", False)
    progress = progress or no_progress
    found: list[Tiling] = []
    stats: dict = {"method": engine.name, "method_reason": why}
    t0 = time.perf_counter()
    try:
        with time_limit(options.timeout):
            reason = runner.find(job, count, progress, found, stats)
    except TimedOut:
        stats.update(stopped="timeout", timeout=options.timeout, seconds=round(time.perf_counter() - t0, 6))
        return found, None, stats
    except Interrupted:
        raise
    except KeyboardInterrupt as e:
        raise Interrupted(found) from e
    return found, reason, stats


def _result(verdict: str, found: list, reason: str | None, stats: dict, instance: Instance | None = None) -> Result:
    cert = stats.pop("_certificate", None)
    return Result(verdict, found, reason, stats, cert if verdict == "none" else None, instance)


#: check-unique's one line for --break-symmetry.
UNIQUE_REFUSAL = ("--break-symmetry keeps one tiling per symmetry class, so it cannot tell 'unique' from "
                  "'multiple' (a symmetric twin is cut away); use it with solve, pack or count --up-to-symmetry")


def solve(instance: Instance, method: str = "auto", **keywords) -> Result:
    """One verified tiling (verdict ``solved``), ``none``, or ``unknown``
    when ``timeout`` seconds passed first.  ``method``: ``sat``, ``dlx``
    (dancing links) or ``auto`` (:func:`choose_search_method`).  The keywords
    are :class:`FindRequest`'s (``jobs=N`` or ``"auto"``: N SAT configurations
    racing, :mod:`tilesat.engines.portfolio`; ``break_symmetry``, True or "full":
    lex-leader clauses, :mod:`tilesat.sat.symbreak`, the verdict exact and the
    tiling still a real one), :class:`~tilesat.sat.options.SatOptions`' (or
    ``options=`` one), and ``progress``."""
    return answer_solve(instance, *find_request(method, keywords))


def answer_solve(instance: Instance, request: FindRequest, options: SatOptions, progress: Callable | None = None) -> Result:
    """:func:`solve` for a request already made (the command line's)."""
    found, reason, stats = find(instance, 1, request, options, progress)
    if stats.get("stopped"):
        return _result("unknown", found, None, stats, instance)
    return _result("solved" if found else "none", found, reason, stats, instance)


def check_unique(instance: Instance, method: str = "auto", **keywords) -> Result:
    """Verdict ``unique``, ``multiple`` (with two tilings), ``none``, or
    ``unknown`` when ``timeout`` seconds passed first (with the tiling found
    before, if any); the keywords as for :func:`solve`.  ``break_symmetry`` is
    refused: it keeps one tiling per class, so a second tiling may be cut away."""
    if keywords.get("break_symmetry"):
        raise TilesatError(UNIQUE_REFUSAL)
    return answer_unique(instance, *find_request(method, keywords))


def answer_unique(instance: Instance, request: FindRequest, options: SatOptions,
                  progress: Callable | None = None) -> Result:
    """:func:`check_unique` for a request already made (the command line's)."""
    if request.break_symmetry:
        raise TilesatError(UNIQUE_REFUSAL)
    found, reason, stats = find(instance, 2, request, options, progress)
    if stats.get("stopped") and len(found) < 2:
        return _result("unknown", found, None, stats, instance)
    verdict = {0: "none", 1: "unique", 2: "multiple"}[len(found)]
    return _result(verdict, found, reason, stats, instance)


def iter_tilings(instance: Instance, limit: int | None = None, **options) -> Iterator[Tiling]:
    """Every tiling of the instance (up to ``limit``), each verified; the keywords are
    :class:`~tilesat.engines.sat.TilingSearch`'s.  With ``timeout``,
    :class:`~tilesat.running.control.TimedOut` ends the iteration when the time is up
    (the tilings yielded before it stand)."""
    with TilingSearch(instance, **options) as search:
        for n, t in enumerate(search, 1):
            yield t
            if limit is not None and n >= limit:
                return
