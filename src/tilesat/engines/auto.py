"""``--method auto``, decided here and nowhere else: for each question an
ordered table of rules, the first that applies naming the engine, each with
the measurement it came from.  The rules' words make the ``--method`` help
(:func:`method_help`) and the docs' table (:func:`rules_markdown`), so the
three cannot drift apart.

After the table, engines that estimate their cost (:meth:`Engine.estimate`;
the built-ins leave it to their rule here, plugins give one) compete: one
whose estimate is below the chosen engine's (or the chosen engine has none)
is picked instead.

(The exactly-one encoding's ``auto`` is the formula's own business:
:func:`tilesat.sat.encodings.choose_encoding`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..model.instance import INF
from .base import Engine, Job
from .dlx import dlx_problem
from .registry import get_engine, plugins, summaries
from .sweep import SCATTERED, SWEEP_MIN_AREA, scattered_blocked, sweep_problem

#: count: the frontier engine up to this window (its states grow as 2^width).
FRONTIER_WIDTH = 24
#: Boards of at most this many open cells are small: finding by SAT and counting by xcc take
#: a fraction of the time the other engines need to load (docs/benchmarks/auto.md).
SMALL_BOARD = 32


@dataclass(frozen=True)
class Rule:
    question: str
    engine: str
    when: str  # the condition, in words: the help text and the docs
    reason: Callable[[Job], str | None]  # why, for this job (None: the rule does not apply)
    measured: str = ""  # what the rule rests on


def _only_with_limit(job: Job) -> bool:
    return job.limit is not None


def _dlx_ok(job: Job) -> bool:
    return dlx_problem(job.instance) is None and not job.asked()


def _exact_cover_puzzle(job: Job) -> bool:
    """Each piece used at most once, or every piece as often as it may (its largest count):
    a set of tiles to place, as in the pentomino puzzles, not a board to fill with repeats."""
    rules = job.instance.rules
    return all(r.max <= 1 for r in rules) or (
        all(r.max != INF for r in rules) and sum(r.max * r.piece.size for r in rules) == job.instance.board.area)


def _counts_can_fill(job: Job) -> bool:
    """Whether the pieces' largest counts cover at least the board's area (no counts: yes)."""
    area = job.instance.board.area
    return sum(min(r.max, area) * r.piece.size for r in job.instance.rules) >= area


def _dominoes(job: Job) -> bool:
    return all(r.piece.size == 2 for r in job.instance.rules) and job.instance.board.wrap == "none"


def _quotients(job: Job) -> str | None:
    """For a whole-instance engine: "" without --up-to-symmetry; with it, the
    words for the reason when every symmetry's quotient (:mod:`.burnside`) has
    a frontier of at most FRONTIER_WIDTH + 1 cells, else None."""
    if not job.up_to_symmetry:
        return ""
    from .burnside import widest

    group = job.group  # made once: the count that follows reuses it
    if len(group) == 1:
        return "; the board has no symmetry but the identity"
    width = widest(job.placements, group)
    if width > FRONTIER_WIDTH:
        return None
    return (f"; classes by Burnside, the tilings each symmetry fixes counted by the frontier DP "
            f"on its quotient (at most {width + 1} cells wide)")


def _pfaffian(job: Job) -> str | None:
    if job.limit is not None or job.asked() or not _dominoes(job) or get_engine("pfaffian").problem(job.instance):
        return None
    quotients = _quotients(job)
    return None if quotients is None else "dominoes on a planar board: Kasteleyn's determinant counts them without search" + quotients


def _frontier(job: Job) -> str | None:
    if job.asked():
        return None
    from .frontier import make_plan

    if get_engine("frontier").problem(job.instance) is not None:
        return None
    width = make_plan(job.instance).width
    if width > FRONTIER_WIDTH or (quotients := _quotients(job)) is None:
        return None
    return f"a frontier of {width + 1} cells: dynamic programming over it counts without listing" + quotients


def _scattered(job: Job) -> str:
    """The words for a board whose blocked cells lie scattered (sweep.SCATTERED), else ""."""
    share = scattered_blocked(job.instance.board)
    if share < SCATTERED:
        return ""
    return (f"; {share:.0%} of its blocked cells have no blocked neighbour, as cells blocked at random (a "
            "packing's leftovers cluster): each corner's first windows are solved first, with nothing kept, "
            "for an obstruction there that proves no tiling")


def _if(test: Callable[[Job], bool], reason: str) -> Callable[[Job], str | None]:
    return lambda job: reason if test(job) else None


RULES = (
    # --- solve and check-unique
    Rule("find", "sat", "when lex-leader symmetry breaking is asked for",
         _if(lambda job: bool(job.break_symmetry), "--break-symmetry adds clauses: SAT")),
    Rule("find", "sat", "when a SAT option is given",
         _if(lambda job: bool(job.asked()), "SAT options were given")),
    Rule("find", "xcc", "when each piece is used at most once, or the pieces' largest counts fill the board "
         f"exactly, on boards of more than {SMALL_BOARD} open cells",
         _if(lambda job: _exact_cover_puzzle(job) and job.instance.board.area > SMALL_BOARD,
             "each piece at most once, or as often as it may: an exact-cover puzzle for the compiled exact cover"),
         "check-unique on the 3x20 pentomino rectangle: about 10 ms of search against 2.7 s for CaDiCaL; "
         "on the Soma cube (27 cells) SAT answers in 0.15 s; the compiled exact cover starts without dancing "
         "links' numba (check-unique of 6x10, 3x20, 8x8, 2x3x10 solid pentominoes, 6x6 hexiamonds: 0.31-0.49x "
         "dancing links' whole process)"),
    Rule("find", "sweep", f"on flat boards of {SWEEP_MIN_AREA}+ open cells where pieces repeat, freely or within "
         "counts that can fill the board",
         lambda job: (f"a big flat board ({job.instance.board.area} open cells) and pieces that may repeat"
                      + (" within counts that can fill it (the sweep's tiling mended to them box by box)"
                         if any(r.bounded for r in job.instance.rules) else "")
                      + ": SAT windows swept across it, mended where one fails, find tilings; one SAT run proves "
                      "there are no (more)" + _scattered(job))
         if job.instance.board.area >= SWEEP_MIN_AREA and sweep_problem(job.instance) is None
         and _counts_can_fill(job) else None,
         "first tiling of 60x60 L4 boards: 2-5 s by the sweep, 10-120 s by one SAT run; at 30x30 one run takes under 1 s; "
         "on 11 families of 40x40-100x100 boards made differently the sweep was faster on 9, one run on one "
         "(L3+P5 packed breadth-first: 16.5 s against 19.0 s); the 12 pentominoes on 40x40 packings with counts "
         "and loose counts: the sweep and mended counts 3.0-4.5 s to a first tiling, one SAT run past 30 s "
         "(tuning boards, docs/benchmarks/hard-families.md)"),
    Rule("find", "sat", "otherwise", lambda job: "pieces that may repeat: SAT"),
    # --- count
    Rule("count", "blocking", "when --solver is given",
         _if(lambda job: "solver" in job.asked(), "--solver given: blocking is the method that uses a SAT solver")),
    Rule("count", "pfaffian", "for dominoes on a board without wrap", _pfaffian,
         "12x12 dominoes in milliseconds, 40x40 with holes in 0.1 s"),
    Rule("count", "dlx", "with --limit, for piece counts exact cover expresses",
         _if(lambda job: _only_with_limit(job) and _dlx_ok(job), "--limit: an enumerator stops at N; exact cover lists fastest")),
    Rule("count", "blocking", "with --limit otherwise",
         _if(_only_with_limit, "--limit with SAT options or piece counts exact cover cannot express")),
    Rule("count", "xcc", f"on boards of at most {SMALL_BOARD} open cells, for bounded piece counts or pieces of 4+ cells",
         _if(lambda job: not job.asked() and job.instance.board.area <= SMALL_BOARD
             and all(r.max != INF or r.piece.size >= 4 for r in job.instance.rules)
             and get_engine("xcc").problem(job.instance) is None,
             f"a board of at most {SMALL_BOARD} cells and few tilings (bounded counts or big pieces): the compiled "
             "exact cover counts them at once, before the other engines have loaded"),
         "a 21-cell staircase of six pieces: 0.02 s in the command against native's 2 s"),
    Rule("count", "native", "when every piece count is bounded, on square boards",
         _if(lambda job: not job.asked() and all(r.max != INF for r in job.instance.rules) and job.instance.board.is_square,
             "every piece has a bounded count: the compiled enumerator (first empty cell, region pruning) lists "
             "the tilings fastest"),
         "20-50x xcover on pentomino rectangles"),
    Rule("count", "frontier", f"when the frontier is at most {FRONTIER_WIDTH + 1} cells", _frontier,
         "6x10 pentominoes (window 24): 2.3-3.4 s against dancing links' 6-7 s"),
    Rule("count", "ganak", "for unlimited pieces of at most 3 cells",
         _if(lambda job: all(r.max == INF and r.min == 0 for r in job.instance.rules)
             and max(r.piece.size for r in job.instance.rules) <= 3,
             "unlimited pieces of at most 3 cells: counts grow exponentially, ganak counts without listing")),
    Rule("count", "ganak", "when the board splits into separate regions",
         _if(lambda job: len(job.instance.board.regions()) > 1, "the board splits into separate regions: ganak "
             "multiplies their counts")),
    Rule("count", "xcc", "when no SAT option is given",
         _if(lambda job: not job.asked(), "exact cover with piece count ranges: the compiled search counts without "
             "listing, on every grid"),
         "Soma cube 2.2 s against dancing links' 4.9 s, 6x6 hexiamond rhombus 4.4 s against 5.9 s (whole commands); "
         "tricubes 0..3 in a 2x2x3 box 0.03 s against 1.0 s of blocking clauses"),
    Rule("count", "blocking", "otherwise", lambda job: "SAT options given: one SAT call per tiling"),
    # --- list
    Rule("list", "blocking", "when SAT options are given", _if(lambda job: bool(job.asked()), "SAT options were given")),
    Rule("list", "xcc", "on boards that are not square",
         _if(lambda job: not job.instance.board.is_square,
             "the compiled enumerator takes square boards only; the compiled exact cover lists on every grid")),
    Rule("list", "native", "otherwise", lambda job: "the compiled enumerator lists tilings fastest",
         "20-50x xcover on pentomino rectangles"),
)


def choose(job: Job) -> tuple[Engine, str]:
    """(engine, why) for ``--method auto``: the first rule of the job's question
    that applies, unless an engine's own estimate wins."""
    for rule in RULES:
        if rule.question == job.question and (why := rule.reason(job)) is not None:
            picked = get_engine(rule.engine)
            break
    else:  # every question's table ends with a rule that always applies
        raise AssertionError(f"BUG: no auto rule for {job.question}")
    return _estimates(job, picked, why)


def _estimates(job: Job, picked: Engine, why: str) -> tuple[Engine, str]:
    """A plugin engine whose estimate beats the picked engine's (or the picked one has none)."""
    mine = picked.estimate(job)
    best = None
    for engine in plugins().values():
        if job.question not in engine.questions or engine.problem(job.instance) is not None:
            continue
        if set(job.asked()) - set(engine.uses):
            continue  # it cannot use the SAT options given
        cost = engine.estimate(job)
        if cost is not None and (mine is None or cost < mine) and (best is None or cost < best[0]):
            best = (cost, engine)
    if best is None:
        return picked, why
    cost, engine = best
    than = f"{picked.name}'s {mine:.3g} s" if mine is not None else f"{picked.name}, which gives no estimate ({why})"
    return engine, f"its estimate ({cost:.3g} s) beats {than}"


def method_help(question: str) -> str:
    """The ``--method`` help of a question: its engines in a line each, and what ``auto``
    does, in the rules' own words."""
    names = summaries(question)
    listed = ", ".join(names)
    what = "; ".join(f"{name} = {summary}" for name, summary in names.items())
    rules = "; ".join(f"{rule.engine} {rule.when}" for rule in RULES if rule.question == question)
    return f"auto, {listed}: {what}. auto picks the first that applies and says why: {rules}."


def rules_markdown() -> str:
    """The rules as a Markdown table (the docs' page on ``auto``)."""
    lines = ["| question | rule | engine | measured |", "|---|---|---|---|"]
    names = {"find": "solve, check-unique", "count": "count", "list": "list"}
    for rule in RULES:
        lines.append(f"| {names[rule.question]} | {rule.when} | `{rule.engine}` | {rule.measured} |")
    return "\n".join(lines)
