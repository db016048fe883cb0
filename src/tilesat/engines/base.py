"""The engine protocol: what every way of finding or counting tilings says about
itself, and how it runs (PySAT's one table of names and one facade for every
solver is the model).

An :class:`Engine` says

- which questions it answers (:data:`QUESTIONS`) and on which instances
  (:meth:`Engine.problem`: why not, in one line);
- which SAT options it uses (``uses``; a method given one it cannot use
  says so, :func:`refuse_unused`);
- what it expects to cost (:meth:`Engine.estimate`, seconds or None: what
  ``auto`` weighs against its rules, :mod:`.auto`);
- and how it runs, always under the run's deadline and Ctrl-C
  (:mod:`tilesat.running.control`):

  * ``find``: the first ``count`` verified tilings of a :class:`Job`
    (solve and check-unique), reporting its stages through ``progress``;
  * ``count_unit``: the tilings each symmetry of a :class:`Unit` fixes
    (count), on a :class:`Context` shared by every unit of the count;
  * ``tilings``: each tiling of a unit as the indices of its placements
    (list, and counting by listing).

One progress type (:data:`Progress`: a stage's message, and how far it is
when that is measured) and one answer per question: verified
:class:`~tilesat.model.tiling.Tiling` objects for find, a list of counts
(one per symmetry of the unit) for a unit, arrays of placement indices for
a listing, each checked by the code that reads them.

Adding an engine is one module defining an instance of an :class:`Engine`
subclass and one line in :data:`tilesat.engines.registry.BUILTIN` (where it
is, its questions and summary: the method lists need no engine imported); an
installed package adds one under the entry-point group ``tilesat.engines``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterator

import numpy as np

from ..certify.verify import verify_tiling
from ..errors import TilesatError
from ..model.arrays import unique
from ..model.instance import Instance
from ..model.placements import Placements, generate_placements
from ..model.symmetry import Symmetry, symmetry_group
from ..model.tiling import Tiling
from ..sat.formula import Formula, compile_formula
from ..sat.options import SatOptions

def cover_only(instance: Instance, what: str) -> str | None:
    """Why an engine built for exact covers of plain boards cannot take this
    instance (optional cells, colours), in one line; None when it can."""
    board = instance.board
    if not board.exact:
        return f"{what} covers every open cell exactly once: this board has cells that may stay empty (+)"
    if board.has_colours or instance.coloured_pieces:
        return f"{what} does not know colours: this instance has coloured cells"
    return None


#: What an engine may answer: ``find`` (solve, check-unique: the first tilings),
#: ``count`` (how many tilings, and classes), ``list`` (each tiling).
QUESTIONS = ("find", "count", "list")

#: ``progress(message, done=None, total=None)``: the stage, and how far it is when measured.
Progress = Callable[..., None]


def no_progress(message: str, done: int | None = None, total: int | None = None) -> None:
    pass


@dataclass(frozen=True)
class Approx:
    """The (epsilon, delta) of an approximate count, and the counters' seed."""

    epsilon: float = 0.8
    delta: float = 0.2
    seed: int = 1


@dataclass
class Job:
    """One question about one instance, as ``auto`` and the engines see it."""

    question: str  # one of QUESTIONS
    instance: Instance
    options: SatOptions = field(default_factory=SatOptions)
    limit: int | None = None  # count, list: stop after this many tilings
    up_to_symmetry: bool = False  # count: classes too
    jobs: int = 1  # processes (count: units shared out; find: a portfolio's members)
    break_symmetry: bool | str = False  # lex-leader clauses
    certificates: bool | str = True  # the LP's certificate of "no tiling" (tilesat.certify.schedule)
    sweep: bool = False  # find: a sweep of SAT windows first (tilesat.engines.sweep)

    @cached_property
    def placements(self) -> Placements:
        return generate_placements(self.instance)

    @cached_property
    def group(self) -> list[Symmetry]:
        """The board's symmetries as permutations of the placements (made once: a count that
        ``auto`` sent to a quotient check reuses them)."""
        return symmetry_group(self.placements)

    def asked(self) -> set[str]:
        """The SAT options given away from their defaults."""
        return set(self.options.asked())


@dataclass(frozen=True)
class Unit:
    """One independent piece of a count, small and picklable: the same
    description is a ``--jobs`` task, a Dask task and a checkpoint record."""

    forced: tuple[int, ...] = ()  # placements every tiling of this unit holds (a cube)
    syms: tuple[int, ...] = (0,)  # indices into the group: count the tilings each fixes
    weight: int = 1  # raw tilings = weight * fix(identity) (the orbit's size)
    excluded: tuple[int, ...] = ()  # placements no tiling of this unit holds (a part of a split unit)

    def to_json(self) -> dict:
        out = {"forced": list(self.forced), "syms": list(self.syms), "weight": self.weight}
        if self.excluded:
            out["excluded"] = list(self.excluded)
        return out


@dataclass
class Outcome:
    """What one run of a unit hands back (:meth:`Engine.run_within`): the tilings
    each of its symmetries fixes among those it found, its seconds and search
    nodes, and, when it stopped at its time budget, the work it left (``rest``:
    (forced, excluded) pairs, each a unit with the same symmetries and weight)
    with each part's estimated (nodes, tilings)."""

    counts: list[int]
    seconds: float
    nodes: int | None = None
    rest: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    estimates: list[tuple[float, float] | None] = field(default_factory=list)

    def as_tuple(self) -> tuple:
        """Picklable in one piece (a pool's or Dask's result)."""
        return (self.counts, self.seconds, self.nodes, self.rest, self.estimates)

    @classmethod
    def from_tuple(cls, t) -> "Outcome":
        if isinstance(t, Outcome):
            return t
        counts, seconds = t[0], t[1]
        if len(t) == 2:
            return cls(list(counts), seconds)
        return cls(list(counts), seconds, t[2], [(tuple(f), tuple(e)) for f, e in t[3]], list(t[4]))


class Context:
    """What every unit of one count (or listing) shares, built once per process:
    the instance, its placements and symmetry group, the engine and its options."""

    def __init__(self, instance: Instance, engine: "Engine", options: SatOptions,
                 group: list[Symmetry] | None = None, placements: Placements | None = None, approx: Approx = Approx()):
        self.instance = instance
        self.engine = engine
        self.options = options
        self.placements = placements if placements is not None else generate_placements(instance)
        self.group = group or [None]
        self.approx = approx
        self.exhausted = True  # False when a listing stopped at its limit
        self._formula: Formula | None = None
        self._sizes = np.diff(self.placements.indptr)
        board = instance.board  # the cells every tiling covers once (the others at most once)
        self._needed = None if board.exact else board.open.ravel() & ~board.optional.ravel()

    @property
    def formula(self) -> Formula:
        if self._formula is None:
            self._formula = compile_formula(self.placements, self.options.encoding, self.options.card)
        return self._formula

    def symmetries(self, unit: Unit) -> list[Symmetry | None]:
        return [self.group[i] for i in unit.syms]

    def identity_only(self, unit: Unit) -> bool:
        """Whether every symmetry of the unit fixes every tiling (None: no group)."""
        return all(g is None or g.is_identity for g in self.symmetries(unit))

    def run(self, unit: Unit, on_tiling: Callable[[], None] = lambda: None, limit: int | None = None) -> list[int]:
        """Tilings fixed by each of ``unit.syms`` (the identity: all), in the unit."""
        return self.engine.count_unit(self, unit, on_tiling, limit)

    def timed_run(self, unit: Unit) -> tuple[list[int], float]:
        """:meth:`run`, and the seconds it took (a checkpoint records them: the units' sizes)."""
        t = time.perf_counter()
        counts = self.run(unit)
        return counts, time.perf_counter() - t

    def run_within(self, unit: Unit, budget: float | None = None, seed: int = 1) -> tuple:
        """The unit within a time ``budget`` (None: to the end), as an :class:`Outcome` tuple."""
        return self.engine.run_within(self, unit, budget, seed)

    def estimate(self, unit: Unit, probes: int, seed: int = 1) -> tuple[float, float] | None:
        """The unit's estimated (nodes, tilings), or None when the engine cannot say."""
        return self.engine.estimate_unit(self, unit, probes, seed)

    def enumerate(self, forced: tuple[int, ...] | None, limit: int | None = None) -> Iterator[np.ndarray]:
        """The chosen placement indices of each tiling holding ``forced`` (up to ``limit``)."""
        return self.engine.tilings(self, forced, limit)

    def covers_once(self, chosen: np.ndarray, disjoint: bool = False) -> bool:
        """Whether the placements cover each open cell once (the cheap check of every tiling
        after an engine's first; ``disjoint``: they cannot overlap, only the area is checked);
        on a board with optional cells, each cell at most once and every other cell once."""
        board = self.instance.board
        if not board.exact:
            cells = np.concatenate([self.placements.cells_of(int(i)) for i in chosen] or [np.zeros(0, np.int32)])
            times = np.bincount(cells, minlength=board.ncells)
            return bool(times.max(initial=0) <= 1 and (times[self._needed] == 1).all())
        if self._sizes[chosen].sum() != self.instance.board.area:
            return False
        return disjoint or unique(np.concatenate([self.placements.cells_of(int(i)) for i in chosen])).size == (
            self.instance.board.area)

    def checked(self, stream: Iterator[np.ndarray], limit: int | None, disjoint: bool = False) -> Iterator[np.ndarray]:
        """An engine's tilings, checked: the first through the full checker, every later
        one for covering each open cell once (``disjoint``: its placements cannot overlap,
        as dancing links' options cannot); stops at ``limit`` (``exhausted`` then False)."""
        n = 0
        self.exhausted = True
        for chosen in stream:
            if n == 0:
                verify_tiling(self.instance, Tiling.from_placements(self.placements, chosen.tolist()))
            elif not self.covers_once(chosen, disjoint):
                raise AssertionError(f"BUG: {self.engine.name} returned a non-tiling")
            n += 1
            yield chosen
            if limit is not None and n >= limit:
                self.exhausted = False
                return


class Engine:
    """A way of finding or counting tilings (see the module's docstring).

    Subclasses set the class attributes and implement the methods of the
    questions they answer."""

    name: str = ""
    questions: frozenset = frozenset()
    uses: tuple[str, ...] = ()  # the SAT options it uses: "encoding", "solver", "card"
    summary: str = ""  # one line for --help and the docs
    exact: bool = True  # False: its counts are estimates (ApproxMC)
    whole: bool = False  # counts the whole instance at once: one unit, no --jobs, no LP race
    enumerates: bool = False  # lists tilings one by one (--limit, list)
    plans_units: bool = True  # False: counts by itself, not unit by unit (count_all)
    instead: dict = {}  # question -> the methods to use where this one cannot take the instance
    units_per_worker: int | None = None  # units a shared-out count plans per worker (None: the count's default)
    splits: bool = False  # a unit can stop where it stands and hand back the rest (run_within, estimate_unit)
    reports_each_tiling: bool = True  # count_unit calls on_tiling as it finds each tiling (a stopped unit's are known)

    #: The one line refusing ``--break-symmetry`` (None: it takes it).
    refuses_break_symmetry: str | None = "--break-symmetry adds lex-leader clauses to the SAT formula: use --method sat (or auto)"

    def for_jobs(self, jobs: int) -> "Engine | None":
        """The engine that runs this method on ``jobs`` processes (find's ``--jobs``), None when it cannot."""
        return self if jobs == 1 else None

    def problem(self, instance: Instance) -> str | None:
        """Why this engine cannot take the instance (None: it can)."""
        return None

    def estimate(self, job: Job) -> float | None:
        """Expected seconds for the job, or None when the engine has no model of its cost."""
        return None

    def solver_label(self, options: SatOptions) -> str:
        """What a count reports as its "solver" (asked only of engines whose ``uses`` name it)."""
        return options.solver

    def preload(self) -> None:
        """Load compiled code in the parent before forking children, so that they inherit it."""

    def lp_beside(self) -> str | None:
        """Why the LP is not raced beside this engine's count (None: it may be)."""
        return None

    # -- find
    def find(self, job: Job, count: int, progress: Progress, found: list[Tiling], stats: dict) -> str | None:
        """Up to ``count`` verified tilings appended to ``found`` (what a deadline or
        Ctrl-C leaves there stands), the run's figures in ``stats``; returns a quick
        check's reason when one answered "none"."""
        raise NotImplementedError

    # -- count, list
    def tilings(self, ctx: Context, forced: tuple[int, ...] | None, limit: int | None) -> Iterator[np.ndarray]:
        """Each tiling holding the ``forced`` placements, as its placements' indices, checked."""
        raise NotImplementedError

    def count_unit(self, ctx: Context, unit: Unit, on_tiling: Callable[[], None] = lambda: None,
                   limit: int | None = None) -> list[int]:
        """The tilings of the unit each of its symmetries fixes; by default by listing them."""
        fixed = [0] * len(unit.syms)
        syms = ctx.symmetries(unit)
        for chosen in self.tilings(ctx, unit.forced or None, limit):
            for j, g in enumerate(syms):
                if g is None or g.is_identity or g.fixes(chosen):
                    fixed[j] += 1
            on_tiling()
        return fixed

    def run_within(self, ctx: Context, unit: Unit, budget: float | None, seed: int = 1) -> tuple:
        """The unit's counts within a time ``budget`` as an :class:`Outcome` tuple; an engine
        that ``splits`` stops where it stands when the budget is spent and hands back the
        rest, the others (this default) run to the end."""
        if unit.excluded:
            raise AssertionError(f"BUG: a unit with excluded placements given to {self.name}")
        return Outcome(*ctx.timed_run(unit)).as_tuple()

    def estimate_unit(self, ctx: Context, unit: Unit, probes: int, seed: int = 1) -> tuple[float, float] | None:
        """The unit's estimated (search nodes, tilings), or None when the engine has no estimator."""
        return None

    def count_all(self, job: Job, result, report: Callable[[int, int, int], None]) -> None:
        """The whole count, for an engine that does not count unit by unit
        (``plans_units`` False), written into ``result`` (a
        :class:`tilesat.questions.count.CountResult`)."""
        raise NotImplementedError


def refuse_unused(options: SatOptions, engine: Engine, engines: Callable[[], dict[str, Engine]]) -> None:
    """A usage error naming the methods that can use an option given to one that cannot
    (``engines``: those the message may name, asked for only then: it loads them)."""
    for name in options.asked():
        if name not in engine.uses:
            can = [e.name for e in engines().values() if name in e.uses]
            raise TilesatError(f"--{name}: --method {engine.name} does not use it; it is for --method {' or '.join(can)}")
