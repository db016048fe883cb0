"""Repairs: the fewest clues (tiles printed on the board) that leave one tiling.

A clue set K leaves exactly one tiling when some tiling T holds all of K and
no other tiling does: K lies inside T and meets T \\ T' for every other
tiling T'.  Clues only remove tilings, so on a board whose ambiguous regions
are independent (:mod:`.regions`) the fewest clues for the board are the
fewest for each region, added up; each region is searched on its own board.

The search is an implicit hitting-set loop (Moreno-Centeno and Karp, 2013;
Ignatiev et al., "Smallest MUS extraction with minimal hitting set
dualization", 2015, for its SAT form) between two solvers:

- the *master* chooses K (one variable per placement) and a target tiling t
  (a copy of the region's formula), K inside t, with at most b clues (a
  totalizer bound), such that every tiling T_j found so far either is t or
  misses a clue: ``e_j or (some clue outside T_j)`` with ``e_j -> t = T_j``;
- the *region's solver* looks for another tiling holding all of K; one
  found becomes T_j for the master, none found proves K.

The master's answers are the smallest under the tilings seen, so the first
proven K is a minimum: b starts at 1 and grows when the master has no
answer within it.  A greedy repair (target the first tiling, add the clue
that meets most of the tilings seen) gives an upper bound first, and is
what is shown, labelled "best found", when time runs out before the loop
ends.  The alternatives of the same size come from the same master, each
found K forbidden in turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from pysat.card import ITotalizer

from ..running.control import Deadline, TimedOut, time_limit
from ..sat.formula import compile_formula
from ..model.placements import generate_placements
from ..model.tiling import Tiling
from ..certify.verify import verify_tiling
from .regions import SubBoard
from .solver import AssumingSolver

#: The master stops (the repair is then "best found") past this many tilings seen.
MAX_TILINGS_SEEN = 2000
#: The greedy repair scores its choices on the last this many tilings seen.
SCORED = 200
#: Every this many tilings the master is shown, its proposal is completed greedily into a
#: repair (an upper bound that may beat the first greedy one).
COMPLETE_EVERY = 25


@dataclass
class ClueRepair:
    """Clues for one board or region: placement indices of its own placements."""

    clues: list[int]
    minimum: bool
    lower_bound: int
    alternatives: list[list[int]] = field(default_factory=list)  # other clue sets of the same size, each proven
    tilings_seen: int = 0
    stopped: str | None = None  # "timeout" / "interrupted" / "too many tilings" when the loop did not end


class RegionSolver:
    """The formula of a (sub-)board in one solver: tilings holding given placements."""

    def __init__(self, sub: SubBoard, solver: str = "cadical195"):
        self.sub = sub
        self.placements = generate_placements(sub.instance)
        self.formula = compile_formula(self.placements, "auto")
        self.solver = AssumingSolver(self.formula, solver)
        self.n = len(self.placements)
        self.listed: list[np.ndarray] = []  # the tilings count() listed: the repairs' first counterexamples

    def tiling_with(self, clues, other_than: np.ndarray | None = None) -> np.ndarray | None:
        """A tiling holding every placement of ``clues`` (and, with ``other_than``, not that
        tiling), as its placement indices; None when there is none."""
        assumptions = [int(p) + 1 for p in clues]
        act = None
        if other_than is not None:
            act = self.solver.new_var()
            self.solver.add_clause([-act] + (-(np.asarray(other_than) + 1)).tolist())
            assumptions.append(act)
        try:
            sat = self.solver.solve(assumptions)
            return np.flatnonzero(self.solver.true_set(self.n)) if sat else None
        finally:
            if act is not None:
                self.solver.add_clause([-act])

    def count(self, cap: int, seconds: float | None = None) -> tuple[int, bool]:
        """The region's tilings, listed (each verified) up to ``cap`` or for ``seconds``:
        (count, exact).  The blocking clauses hang on an activation literal, switched off after."""
        act = self.solver.new_var()
        n = 0
        stop = None if seconds is None else time.perf_counter() + seconds
        try:
            while n <= cap and (stop is None or time.perf_counter() < stop):
                if not self.solver.solve([act]):
                    return n, True
                chosen = np.flatnonzero(self.solver.true_set(self.n))
                verify_tiling(self.sub.instance, Tiling.from_placements(self.placements, chosen))
                self.listed.append(chosen)
                self.solver.add_clause([-act] + (-(chosen + 1)).tolist())
                n += 1
            return n, False
        finally:
            self.solver.add_clause([-act])

    def close(self) -> None:
        self.solver.close()


def greedy_clues(region: RegionSolver, target: np.ndarray, seen: list[np.ndarray], start=()) -> list[int]:
    """Clues inside ``target`` (``start`` first) that leave it the only tiling: each round
    adds the target's placement missing from most of the other tilings seen (``seen`` grows;
    the last SCORED of them count)."""
    clues: list[int] = list(start)
    region.solver.set_phases((np.asarray(target) + 1).tolist())  # other tilings near the target: local changes
    in_target = np.zeros(region.n, dtype=bool)
    in_target[target] = True
    while True:
        other = region.tiling_with(clues, other_than=target)
        if other is None:
            return clues
        seen.append(other)
        unhit = [t for t in seen[-SCORED:] if not set(clues) - set(t.tolist()) and not np.array_equal(t, target)]
        score = np.zeros(region.n, dtype=np.int64)
        for t in unhit:
            missing = in_target.copy()
            missing[t] = False  # target's placements this tiling lacks: each one rules it out
            score += missing
        score[~in_target] = -1
        missing_here = in_target.copy()
        missing_here[other] = False
        score[~missing_here] = -1  # the new tiling must be ruled out now
        clues.append(int(np.argmax(score)))


def irredundant(region: RegionSolver, target: np.ndarray, clues: list[int]) -> list[int]:
    """The clues less every one the others do without (each dropped in turn, kept out when
    the target stays the only tiling holding the rest): no clue of the result is redundant."""
    kept = list(clues)
    for p in list(reversed(clues)):  # the greedy's last choices first: they were forced by fewer tilings
        rest = [q for q in kept if q != p]
        if region.tiling_with(rest, other_than=target) is None:
            kept = rest
    return kept


class CluesMaster:
    """The master problem of the hitting-set loop (see the module's docstring)."""

    def __init__(self, region: RegionSolver, bound: int, solver: str = "cadical195"):
        self.region = region
        n = region.n
        self.solver = AssumingSolver(None, solver)
        # variables 1..n: "placement p is a clue"; n+1..2n: "placement p is in the target t";
        # the region formula's auxiliaries after them
        formula = region.formula.cnf()
        self.solver.top = n + formula.nvars
        for clause in formula.clauses():
            self.solver.add_clause([lit + n if lit > 0 else lit - n for lit in clause])
        for p in range(n):
            self.solver.add_clause([-(p + 1), n + p + 1])  # a clue lies in the target
        self.totalizer = ITotalizer(lits=list(range(1, n + 1)), ubound=max(1, bound), top_id=self.solver.top)
        for clause in self.totalizer.cnf.clauses:
            self.solver.add_clause(clause)
        self.solver.top = max(self.solver.top, self.totalizer.top_id)
        self.seen = 0

    def add_tiling(self, tiling: np.ndarray) -> None:
        n = self.region.n
        e = self.solver.new_var()
        for p in tiling.tolist():
            self.solver.add_clause([-e, n + p + 1])
        outside = np.ones(n, dtype=bool)
        outside[tiling] = False
        self.solver.add_clause([e] + (np.flatnonzero(outside) + 1).tolist())
        self.seen += 1

    def forbid(self, clues) -> None:
        self.solver.add_clause([-(int(p) + 1) for p in clues])

    def propose(self, bound: int) -> tuple[list[int], np.ndarray] | None:
        """Clues (at most ``bound``) and their target tiling, or None: none within the bound."""
        n = self.region.n
        assumptions = [-self.totalizer.rhs[bound]] if bound < len(self.totalizer.rhs) else []
        if not self.solver.solve(assumptions):
            return None
        model = self.solver.model()
        clues = np.flatnonzero(model[:n] > 0).tolist()
        target = np.flatnonzero(model[n : 2 * n] > 0)
        return clues, target

    def close(self) -> None:
        self.solver.close()


def minimum_clues(region: RegionSolver, first: np.ndarray, second: np.ndarray | None = None, alternatives: int = 0,
                  solver: str = "cadical195", budget: float | None = None) -> ClueRepair:
    """The fewest clues leaving one tiling of the region (which has at least two:
    ``first`` and, if known, ``second``).  The hitting-set loop stops after
    ``budget`` seconds (what follows needs time too: other regions, checking the
    repairs), or at the run's deadline, with the best found (``minimum`` False,
    ``stopped`` set); the greedy repair before it must end within the deadline."""
    seen: list[np.ndarray] = [t for t in region.listed[:SCORED] if not np.array_equal(t, first)]
    if second is not None:
        seen.append(second)
    best = irredundant(region, first, greedy_clues(region, first, seen))
    repair = ClueRepair(best, minimum=len(best) <= 1, lower_bound=1, tilings_seen=len(seen) + 1)
    if repair.minimum and not alternatives:
        return repair
    try:
        with time_limit(None if budget is None else Deadline(max(0.0, budget))):
            return _hitting_sets(region, first, seen, repair, alternatives, solver)
    except TimedOut:
        repair.stopped = "timeout"
        return repair


def _hitting_sets(region: RegionSolver, first, seen, repair: ClueRepair, alternatives: int, solver: str) -> ClueRepair:
    master = None
    try:
        master = CluesMaster(region, len(repair.clues), solver)
        master.add_tiling(first)
        for t in seen:
            master.add_tiling(t)
        bound = 1
        while True:
            if master.seen > MAX_TILINGS_SEEN:
                repair.stopped = "too many tilings"
                return repair
            proposal = master.propose(bound)
            if proposal is None:
                if repair.minimum:  # no more alternatives of the minimum's size
                    return repair
                bound += 1
                repair.lower_bound = bound
                if bound >= len(repair.clues):
                    repair.minimum = True
                    if not alternatives:
                        return repair
                continue
            clues, target = proposal
            region.solver.set_phases((target + 1).tolist())
            other = region.tiling_with(clues, other_than=target)
            if other is not None:
                master.add_tiling(other)
                seen.append(other)
                repair.tilings_seen = master.seen
                if not repair.minimum and master.seen % COMPLETE_EVERY == 0:
                    completed = irredundant(region, target, greedy_clues(region, target, seen, clues))
                    if len(completed) < len(repair.clues):
                        repair.clues = completed
                        if len(completed) <= repair.lower_bound:
                            repair.minimum = True
                            if not alternatives:
                                return repair
                continue
            if not repair.minimum or len(clues) < len(repair.clues):
                repair.clues, repair.minimum, repair.lower_bound = clues, True, len(clues)
            elif sorted(clues) != sorted(repair.clues):
                repair.alternatives.append(clues)
            if len(repair.alternatives) >= alternatives:
                return repair
            master.forbid(clues)
    except KeyboardInterrupt:
        repair.stopped = "interrupted"
        raise
    finally:
        if master is not None:
            master.close()


def single_blocks(sub: SubBoard, solver: str = "cadical195") -> list[tuple]:
    """The cells of a (sub-)board whose blocking alone leaves it exactly one tiling, as
    cells of the original board.  One packing formula, each cell's "empty" variable
    assumed: the cell blocked, the others covered; a tiling, then another one."""
    placements = generate_placements(sub.instance)
    formula = compile_formula(placements, "auto", allow_empty=True)
    empty = formula.empty_vars.tolist()
    cells = sub.instance.board.open_cells
    found = []
    with AssumingSolver(formula, solver) as sat:
        for i, cell in enumerate(cells.tolist()):
            assumptions = [-v for v in empty]
            assumptions[i] = empty[i]
            if not sat.solve(assumptions):
                continue
            tiling = np.flatnonzero(sat.true_set(len(placements)))
            act = sat.new_var()
            sat.add_clause([-act] + (-(tiling + 1)).tolist())
            try:
                if not sat.solve(assumptions + [act]):
                    found.append(sub.to_board([cell])[0])
            finally:
                sat.add_clause([-act])
    return found
