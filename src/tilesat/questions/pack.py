"""Maximum packings: as many pieces (or covered cells) as the board holds.

The formula is the tiling formula with an "empty" variable per open cell
(``compile_formula(..., allow_empty=True)``): each cell is covered by at
most one placement.  The objective is a number of true *cost* literals to
minimise:

- ``cells``: the empty cells (covered cells = area - empty);
- ``pieces`` when every allowed piece has the same size s: the empty cells
  too (pieces = (area - empty) / s).  A cardinality constraint over the
  open cells is far smaller than one over all placements;
- ``pieces`` with mixed sizes: the placements left out (pieces = P - cost).

Two methods find the optimum and prove it:

- ``incremental``: one solver; after each packing found, require a better
  one with an incremental totalizer (``pysat.card.ITotalizer``) over the
  cost literals, by an assumption, until the solver says no;
- ``rc2``: PySAT's RC2 MaxSAT solver with one soft clause per cost literal.

A ``timeout`` bounds the whole run (:mod:`tilesat.running.control`); when it passes,
or on Ctrl-C, the best packing so far is a lower bound (``proved`` False).
RC2 runs in a forked child: its solver cannot be stopped otherwise.

Before searching, the packing LP relaxation is solved
(:func:`tilesat.certify.certificate.solve_pack_lp`); its optimum rounded down bounds
every packing, and when a packing meets it the search stops there: the
optimum is proved without a SAT call.  The LP's dual solution, scaled to
integers, is then a :class:`~tilesat.certify.certificate.BoundCertificate` that
anyone can check with additions (``bound_certificate`` of the result).

The last step, "no packing is better than the optimum", is also what
``--proof`` writes: that certificate when there is one, else the formula
plus "cost <= bound" as plain CNF and the DRAT proof of its
unsatisfiability (see :mod:`tilesat.sat.proof`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from pysat.card import ITotalizer
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from ..certify.certificate import BoundCertificate, bound_certificate, solve_pack_lp
from ..running.control import TimedOut, call_in_child, sigint_held, time_limit
from ..errors import TilesatError
from ..sat.formula import Formula
from ..model.instance import Instance
from ..sat.options import SatOptions
from ..sat.objectives import _compile_broken
from ..engines.portfolio import JOBS_REFUSAL, check_jobs, configurations, race_packings
from ..sat.solvers import EXTERNAL_PREFIX, load_formula, make_solver
from ..model.tiling import Tiling, tiling_from_model
from ..certify.verify import verify_tiling

METHODS = ("incremental", "rc2")


@dataclass
class PackResult:
    """The optimum (None when no packing keeps the piece counts), a verified
    packing reaching it, and whether one more was proved impossible."""

    objective: str
    optimum: int | None
    packing: Tiling | None
    proved: bool
    method: str
    steps: list[int] = field(default_factory=list)  # the values found on the way up
    stats: dict = field(default_factory=dict)
    proof: str | None = None
    stopped: str | None = None  # "timeout" or "interrupted" when not proved
    lp_bound: int | None = None  # the LP relaxation's bound, floored; met: optimal without the last SAT call
    bound_certificate: BoundCertificate | None = None  # when met: the LP's duals, checked, proving it

    def to_json(self) -> dict:
        return {
            "optimum": self.optimum,
            "objective": self.objective,
            "packing": self.packing.to_json() if self.packing is not None else None,
            "proved": self.proved,
            "stopped": self.stopped,
            "method": self.method,
            "steps": self.steps,
            "proof": self.proof,
            "lp_bound": self.lp_bound,
            "bound_certificate": self.bound_certificate.to_json() if self.bound_certificate is not None else None,
            "stats": self.stats,
        }


def _decode(formula: Formula, model) -> Tiling:
    tiling, _ = tiling_from_model(formula.placements, model)
    return verify_tiling(formula.placements.instance, tiling, partial=True)


def _incremental(formula, objective, solver_name, progress) -> Iterator[Tiling]:
    """Each better packing in turn; returning means the last one is optimal."""
    with make_solver(solver_name) as solver:
        load_formula(solver, formula, solver_name, progress)
        stage = ["solving for a first packing"]
        progress(stage[0])
        solver.on_conflicts = lambda n: progress(f"{stage[0]} · {n:,} conflicts")  # live during long solves
        if not solver.solve():
            return
        best = _decode(formula, solver.model())
        yield best
        value = objective.value_of(best)
        bound = objective.cost_bound(value + 1)
        if bound < 0:
            return
        # The totalizer's rhs[k] says "more than k cost literals are true", so
        # assuming -rhs[k] asks for a packing of cost at most k.
        totalizer = ITotalizer(lits=objective.cost, ubound=bound, top_id=formula.top)
        try:
            for clause in totalizer.cnf.clauses:
                solver.add_clause(clause)
            while bound >= 0:
                stage[0] = f"found {value}; looking for {value + 1}"
                progress(stage[0])
                if not solver.solve([-totalizer.rhs[bound]]):
                    return
                best = _decode(formula, solver.model())
                if objective.value_of(best) <= value:
                    raise AssertionError("BUG: the solver ignored the bound on the objective")
                value = objective.value_of(best)
                yield best
                bound = objective.cost_bound(value + 1)
        finally:
            with sigint_held():  # freed once, whole (see tilesat.running.control.sigint_held)
                totalizer.delete()


def _rc2(formula, objective, solver_name, progress) -> Iterator[Tiling]:
    wcnf = WCNF()
    wcnf.hard = list(formula.clauses())
    wcnf.nv = formula.nvars
    for lit in objective.cost:
        wcnf.append([-lit], weight=1)
    progress(f"RC2 MaxSAT over {formula.nclauses:,} clauses and {len(objective.cost):,} soft ones")
    model, cost = call_in_child(_rc2_optimum, wcnf, solver_name, what="RC2")
    if model is None:
        return
    best = _decode(formula, model)
    if objective.value_of(best) != objective.value(cost):
        raise AssertionError("BUG: RC2's cost does not match its model")
    yield best


def _rc2_optimum(wcnf, solver_name):
    """In the child: RC2's optimal model (None: the hard clauses are unsatisfiable) and its cost."""
    with RC2(wcnf, solver=solver_name) as rc2:
        model = rc2.compute()
        return model, rc2.cost


@dataclass(frozen=True)
class PackRequest:
    """How to pack (the SAT options travel beside, as one
    :class:`~tilesat.sat.options.SatOptions`): what to maximise (``pieces`` or
    covered ``cells``), the method (``incremental`` or ``rc2``), the processes
    (``jobs`` above 1: SAT configurations racing, sharing the best packing),
    lex-leader clauses for the board's symmetries."""

    objective: str = "pieces"
    method: str = "incremental"
    jobs: int | str = 1
    break_symmetry: bool = False


def pack(instance: Instance, objective: str = "pieces", method: str = "incremental", *,
         options: SatOptions | None = None, progress: Callable[..., None] | None = None, jobs: int | str = 1,
         break_symmetry: bool = False, **sat) -> PackResult:
    """The maximum packing of the instance's pieces on its board, proved
    (unless ``timeout`` seconds or Ctrl-C came first: then the best so far).

    ``options`` (or its fields as keywords: encoding, solver, card, timeout)
    say how to solve; ``progress`` as for :class:`~tilesat.engines.sat.TilingSearch`; ``jobs`` above
    1: that many SAT configurations race, sharing the best packing found
    (:func:`tilesat.engines.portfolio.race_packings`, the incremental method only);
    ``break_symmetry`` adds lex-leader clauses for the board's symmetries (same
    optimum; the stats say what was broken)."""
    request = PackRequest(objective, method, jobs, break_symmetry)
    _check_method(request)
    return answer_pack(instance, request, options or SatOptions(**sat), progress)


def _check_method(request: PackRequest) -> None:
    if request.method not in METHODS:
        raise TilesatError(f"unknown packing method {request.method!r}; use {' or '.join(METHODS)}")


def answer_pack(instance: Instance, request: PackRequest, options: SatOptions,
                progress: Callable[..., None] | None = None) -> PackResult:
    """:func:`pack` for a request already made (the command line's)."""
    progress = progress or (lambda message, done=None, total=None: None)
    _check_method(request)
    objective, method, break_symmetry = request.objective, request.method, request.break_symmetry
    encoding, solver_name, card = options.encoding, options.solver, options.card
    jobs = check_jobs(request.jobs)
    if jobs > 1 and break_symmetry:
        raise TilesatError(JOBS_REFUSAL)
    if jobs > 1 and method != "incremental":
        raise TilesatError(f"--jobs races the incremental method's configurations, not --method {method}")
    race: dict = {}
    if method == "rc2" and solver_name.startswith(EXTERNAL_PREFIX):
        raise TilesatError("--method rc2 needs a PySAT solver, not an external one")
    t0 = compiled = time.perf_counter()
    best, steps, proved, stopped, formula, lp, bound, lp_seconds = None, [], True, None, None, None, None, 0.0
    cert, cert_seconds, breaking = None, None, None
    try:
        with time_limit(options.timeout):
            progress("compiling the packing formula")
            formula, goal, breaking = _compile_broken(instance, objective, encoding, card, break_symmetry)
            progress("the LP bound")
            lp_start = time.perf_counter()
            lp = solve_pack_lp(formula.placements, objective)
            bound = lp.bound if lp is not None else None
            compiled = time.perf_counter()
            lp_seconds = compiled - lp_start
            if jobs > 1:
                configs = configurations(jobs, encoding, solver_name)
                packings = race_packings(formula, goal, configs, options, race, progress)
            else:
                packings = (_incremental if method == "incremental" else _rc2)(formula, goal, solver_name, progress)
            try:
                for best in packings:
                    steps.append(goal.value_of(best))
                    if bound is not None and steps[-1] >= bound:
                        break  # the LP bound is met: optimal, without proving "one more is impossible" by SAT
            finally:
                packings.close()  # a portfolio's members go now, not when the generator is collected
            if bound is not None and steps and steps[-1] == bound:
                # proved by the LP alone: its duals, scaled to integers and checked, are the proof
                progress("the LP bound's certificate")
                cert_start = time.perf_counter()
                cert = bound_certificate(instance, objective, lp, bound)
                cert_seconds = time.perf_counter() - cert_start
    except KeyboardInterrupt:
        proved, stopped = False, "interrupted"  # what was found so far is a lower bound, not the optimum
    except TimedOut:
        proved, stopped = False, "timeout"
    done = time.perf_counter()
    if formula is None:  # stopped while compiling
        return PackResult(objective, None, None, False, method, [], {"seconds": round(done - t0, 6)}, stopped=stopped)
    stats = {
        "placements": len(formula.placements), "variables": formula.nvars, "clauses": formula.nclauses,
        "encoding": formula.encoding, "card": card, "solver": solver_name,
        "compile_seconds": round(compiled - t0, 6), "solve_seconds": round(done - compiled, 6),
        "seconds": round(done - t0, 6),
    }
    optimum = goal.value_of(best) if best is not None else None
    stats["lp_seconds"] = round(lp_seconds, 6)
    stats["lp_bound_met"] = bound is not None and optimum is not None and optimum >= bound
    if optimum is not None and bound is not None and optimum > bound:
        raise AssertionError(f"BUG: a packing worth {optimum} beats the LP bound {bound}")
    if breaking is not None:
        stats["symmetry_breaking"] = breaking.to_json()
    if cert_seconds is not None:
        stats["certificate_seconds"] = round(cert_seconds, 6)
    if race:
        stats["portfolio"] = race
    return PackResult(objective, optimum, best, proved, method, steps, stats, stopped=stopped, lp_bound=bound,
                      bound_certificate=cert)
