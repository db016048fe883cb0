"""How hard is a unique puzzle?  How far pure deduction goes before any guess.

Three levels, each on top of the one before:

1. **propagation**: a cell that only one remaining placement can cover gets
   that placement; a placement put down rules out every placement that
   overlaps it (and, for a piece with a count, the rest of that piece once
   the count is reached).  Repeated until nothing changes.
2. **probing** (failed literals): a placement whose assumption leads, by
   unit propagation on the formula, to a contradiction is ruled out; then
   propagation again.  Passes over every open placement, to a fixpoint.
3. anything left needs **guessing**: the solver's decisions to finish the
   search from there are reported as ``guesses``.

The grade is ``easy`` when propagation alone tiles the board, ``medium`` when
probing is needed, ``hard`` otherwise; ``rounds`` counts the deduction passes
(1 for propagation, one more for every probing pass that ruled something out).
Deductions are sound, so a board that deduction tiles has exactly that tiling:
deduction alone proves uniqueness.

>>> g = grade(instance)                 # doctest: +SKIP
>>> g.grade, g.rounds, g.steps[:3]      # doctest: +SKIP

Propagation runs here in Python on the exact-cover structure (it says why:
the words of ``--explain``); probing asks PySAT's ``propagate`` on the
compiled formula, where every deduction so far is a unit clause.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import numpy as np
import pysolvers
from pysat.solvers import Solver

from ..running.control import deadline
from ..errors import TilesatError, plural
from ..sat.formula import compile_formula
from ..model.instance import Instance
from ..model.placements import Placements, generate_placements
from ..sat.solvers import _raw_add_clause, solve_quietly
from ..model.tiling import Tiling

GRADES = ("easy", "medium", "hard")
#: How many deductions ``steps`` keeps in words (``--explain`` prints them).
STEPS_KEPT = 12
GUESS_BUDGET = 100_000  # conflicts
_PROBE_SOLVER = "glucose4"  # propagate() with assumptions; every PySAT solver tried answered the same


class Contradiction(Exception):
    """Deduction reached a cell no placement can cover (or a count broken)."""

    def __init__(self, cell: int | None, why: str):
        super().__init__(why)
        self.cell = cell


class Deduction:
    """Exact-cover propagation over ``placements`` on the open cells ``open_mask``
    (flat, ``rows * cols``; placements touching a closed cell are ruled out).

    State: ``alive`` placements, ``chosen`` (cell -> placement covering it).
    ``log`` gets ``(kind, cell, placement)`` for every placement put down:
    ``"only"`` (the cell's last candidate) or ``"count"``."""

    def __init__(self, placements: Placements, open_mask: np.ndarray, structure: "_Structure | None" = None):
        self.placements = placements
        self.s = structure or _Structure(placements)
        self.open = np.asarray(open_mask, dtype=bool).ravel()
        alive = self.s.fits(self.open)  # numpy bool, per placement
        open_cells = np.flatnonzero(self.open)
        per_cell = np.bincount(self.s._cells_np, weights=np.repeat(alive, np.diff(self.s._indptr)),
                               minlength=self.open.size)
        self.count = dict(zip(open_cells.tolist(), per_cell[open_cells].astype(np.int64).tolist()))
        self.alive = alive.tolist()
        self.chosen: dict[int, int] = {}
        self.chosen_set: set[int] = set()
        self.placed = [0] * len(self.s.rule_max)
        self.left_of_rule = np.bincount(np.asarray(self.s.rule, dtype=np.int64)[alive],
                                        minlength=len(self.s.rule_max)).tolist()
        self.log: list[tuple[str, int | None, int]] = []
        self.killed: list[int] = []  # placements ruled out, in order (after the start)
        self._queue = [c for c, n in self.count.items() if n <= 1]

    def copy(self) -> "Deduction":
        other = object.__new__(Deduction)
        other.placements, other.s, other.open = self.placements, self.s, self.open
        other.alive, other.count, other.chosen = list(self.alive), dict(self.count), dict(self.chosen)
        other.chosen_set = set(self.chosen_set)
        other.placed, other.left_of_rule = list(self.placed), list(self.left_of_rule)
        other.log, other.killed, other._queue = [], [], list(self._queue)
        return other

    @property
    def solved(self) -> bool:
        return len(self.chosen) == len(self.count)

    def undetermined(self) -> list[int]:
        """Open cells (flat) not yet covered by a deduced placement."""
        return [c for c in self.count if c not in self.chosen]

    def kill(self, q: int) -> None:
        """Rule placement ``q`` out, and propagate."""
        if self.alive[q]:
            self._kill(q)
        self.propagate()

    def put(self, p: int, kind: str = "assumed") -> None:
        """Put placement ``p`` down, and propagate."""
        self._put(p, None, kind)
        self.propagate()

    def _kill(self, q: int) -> None:
        self.alive[q] = False
        self.killed.append(q)
        self.left_of_rule[self.s.rule[q]] -= 1
        count, chosen, queue = self.count, self.chosen, self._queue
        for c in self.s.cells[q]:
            if c not in chosen:
                n = count[c] - 1
                count[c] = n
                if n <= 1:
                    queue.append(c)

    def _put(self, p: int, cell: int | None, kind: str) -> None:
        if not self.alive[p]:
            raise Contradiction(cell, "a ruled-out placement")
        s, chosen = self.s, self.chosen
        for c in s.cells[p]:
            if c in chosen:
                raise Contradiction(c, "two placements on one cell")
        for c in s.cells[p]:
            chosen[c] = p
        self.chosen_set.add(p)
        self.log.append((kind, cell, p))
        alive = self.alive
        for c in s.cells[p]:
            for q in s.cands[c]:
                if q != p and alive[q]:
                    self._kill(q)
        k = s.rule[p]
        self.placed[k] += 1
        if self.placed[k] > s.rule_max[k]:
            raise Contradiction(None, "more copies of a piece than its count")
        if self.placed[k] == s.rule_max[k]:
            for q in s.of_rule[k]:
                if alive[q] and q not in self.chosen_set:
                    self._kill(q)

    def propagate(self) -> None:
        """Unit propagation to a fixpoint; :class:`Contradiction` on a dead end."""
        queue, chosen, count, alive, cands = self._queue, self.chosen, self.count, self.alive, self.s.cands
        while queue:
            c = queue.pop()
            if c in chosen:
                continue
            n = count[c]
            if n == 0:
                raise Contradiction(c, "no placement left")
            if n == 1:
                p = next(q for q in cands[c] if alive[q])
                self._put(p, c, "only")

    def tiling(self) -> Tiling:
        return Tiling.from_placements(self.placements, sorted(set(self.chosen.values())))


class _Structure:
    """The static part: each placement's cells, each cell's placements, the counts (plain lists: fast to walk)."""

    def __init__(self, placements: Placements):
        board = placements.instance.board
        n = board.ncells
        self.cells = [a.tolist() for a in np.split(placements.cells.astype(np.int64), placements.indptr[1:-1])] \
            if len(placements) else []
        ptr, ids = placements.by_cell()
        ids = ids.tolist()
        self.cands = [ids[ptr[c]:ptr[c + 1]] for c in range(n)]
        self.rule = placements.rule.tolist()
        rules = placements.instance.rules
        self.rule_max = [r.max if r.max != float("inf") else len(placements) + 1 for r in rules]
        self.of_rule = [placements.of_rule(k).tolist() for k in range(len(rules))]
        self._cells_np = placements.cells
        self._indptr = placements.indptr

    def fits(self, open_mask: np.ndarray) -> list[bool]:
        """Placements lying on open cells only (numpy bool)."""
        closed = ~open_mask[self._cells_np]
        if not len(self.rule):
            return np.zeros(0, dtype=bool)
        return np.add.reduceat(closed.astype(np.int64), self._indptr[:-1]) == 0


@dataclass
class Grade:
    """How far deduction goes on one board (see the module's docstring)."""

    grade: str
    rounds: int
    forced: int  # placements put down by propagation alone (round 1)
    ruled_out: int  # placements ruled out by probing
    tiles: int  # tiles deduced in the end
    cells_left: int  # open cells deduction could not settle (0 unless hard)
    guesses: int | None = None  # the solver's decisions to finish (hard only)
    steps: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tiling: Tiling | None = None  # the deduced tiling, when deduction settles the board

    def to_json(self) -> dict:
        return {"grade": self.grade, "rounds": self.rounds, "forced": self.forced, "ruled_out": self.ruled_out,
                "tiles": self.tiles, "cells_left": self.cells_left, "guesses": self.guesses,
                "seconds": round(self.seconds, 6)}

    def sentence(self) -> str:
        if self.grade == "easy":
            how = "propagation alone places every tile"
        elif self.grade == "medium":
            how = (f"propagation places {plural(self.forced, 'tile')}, then probing rules out {plural(self.ruled_out, 'placement')} "
                   f"and settles the rest")
        else:
            how = (f"deduction stops with {plural(self.cells_left, 'cell')} open ({plural(self.ruled_out, 'placement')} ruled out "
                   f"by probing); the rest needs guessing"
                   + (f" ({plural(self.guesses, 'solver decision')})" if self.guesses is not None else ""))
        return f"grade: {self.grade} ({plural(self.rounds, 'deduction round')}): {how}"


def _where(placements: Placements, p: int) -> str:
    cells = placements.coords_of(p)
    return f"{placements.piece_of(p).name} on {' '.join('(' + ','.join(map(str, cell)) + ')' for cell in cells)}"


def _cell(placements: Placements, c: int) -> str:
    return "(" + ",".join(map(str, placements.instance.board.cell(int(c)))) + ")"


class Deducer:
    """Deduction on one board: propagation (:class:`Deduction`) and probing
    on the formula.  ``level``: 1 propagation only, 2 with probing."""

    def __init__(self, placements: Placements, open_mask: np.ndarray | None = None,
                 structure: _Structure | None = None, formula=None):
        self.placements = placements
        board = placements.instance.board
        self.open = (board.open.ravel() if open_mask is None else np.asarray(open_mask, dtype=bool).ravel())
        self.structure = structure or _Structure(placements)
        self._formula = formula
        self.steps: list[str] = []
        self.forced = self.ruled_out = 0
        self.rounds = 0

    def run(self, level: int = 2, explain: int = STEPS_KEPT) -> Deduction:
        """Deduce as far as ``level`` goes; the state reached (``Contradiction``: no tiling)."""
        d = Deduction(self.placements, self.open, self.structure)
        d.propagate()
        self.rounds = 1
        self.forced = len(set(d.chosen.values()))
        self._say_log(d, explain)
        if d.solved or level < 2:
            return d
        with self._solver(d) as solver:
            propagate = functools.partial(pysolvers.glucose41_propagate, solver.solver.glucose)
            add = _raw_add_clause(_PROBE_SOLVER, solver.solver)
            while not d.solved:
                deadline().check()  # a pass is at most a second or so on a 10,000-cell board
                found = 0
                for p in range(len(d.alive)):
                    if not d.alive[p] or p in d.chosen_set:
                        continue
                    # straight to the C function: no SIGINT handler (see tilesat.sat.solvers), a third of the time
                    ok, _ = propagate([p + 1], 0, 0)
                    if ok:
                        continue
                    if len(self.steps) < explain:
                        self.steps.append(self._why_fails(d, p))
                    before, killed = len(d.log), len(d.killed)
                    d.kill(p)
                    found += 1
                    self._say_log(d, explain, before)
                    for q in d.killed[killed:]:
                        add([-(q + 1)])
                    for _, _, q in d.log[before:]:
                        add([q + 1])
                    if d.solved:
                        break
                if not found:
                    break
                self.ruled_out += found
                self.rounds += 1
        return d

    def _solver(self, d: Deduction) -> Solver:
        if all(m > len(self.placements) for m in self.structure.rule_max):
            return self._local_solver(d)
        formula = self._formula
        if formula is None:
            # the board's own formula; on a mask smaller than the board (generate: the
            # full rectangle's placements), the packing formula with closed cells empty
            formula = self._formula = compile_formula(self.placements, "commander", allow_empty=self._masked())
        solver = Solver(name=_PROBE_SOLVER)
        add = _raw_add_clause(_PROBE_SOLVER, solver.solver)
        formula.add_to(add)
        if formula.allow_empty:  # the full rectangle's packing formula: closed cells are empty
            for v, open_ in zip(formula.empty_vars.tolist(), self.open.tolist()):
                add([-v if open_ else v])
        for q, a in enumerate(d.alive):
            if not a:
                add([-(q + 1)])
        for q in d.chosen_set:
            add([q + 1])
        return solver

    def _local_solver(self, d: Deduction) -> Solver:
        """Pieces without counts: what is left after propagation is an exact cover
        of the undetermined cells by the placements still alive; its pairwise
        formula (as strong under unit propagation as the whole formula with the
        deductions as units) is a fraction of the size: a probing pass costs no load
        of the whole board's formula."""
        solver = Solver(name=_PROBE_SOLVER)
        add = _raw_add_clause(_PROBE_SOLVER, solver.solver)
        alive, cands = d.alive, self.structure.cands
        for c in d.undetermined():
            lits = [q + 1 for q in cands[c] if alive[q]]
            add(lits)
            for i, a in enumerate(lits):
                for b in lits[i + 1:]:
                    add([-a, -b])
        return solver

    def _masked(self) -> bool:
        board = self.placements.instance.board
        if np.array_equal(board.open.ravel(), self.open):
            return False
        if not board.open.all():
            raise TilesatError("a mask on a board with closed cells: give the full rectangle's placements")
        return True

    def _say_log(self, d: Deduction, explain: int, start: int = 0) -> None:
        for kind, cell, p in d.log[start:]:
            if len(self.steps) >= explain:
                return
            if kind == "only":
                self.steps.append(f"cell {_cell(self.placements, cell)} can only be covered by "
                                  f"{_where(self.placements, p)}")

    def _why_fails(self, d: Deduction, p: int) -> str:
        trial = d.copy()
        what = f"{_where(self.placements, p)} is ruled out"
        try:
            trial.put(p)
        except Contradiction as e:
            if e.cell is not None:
                return f"{what}: it would leave cell {_cell(self.placements, e.cell)} with no piece"
            return f"{what}: it would break a piece count"
        return f"{what}: it leads to a contradiction (by propagation on the formula)"


def ungradable(instance: Instance) -> str | None:
    """Why the board cannot be graded, or None: deduction covers every open
    cell, so on a board whose cells may stay empty it would say "no tiling"."""
    if not instance.board.exact:
        return "deduction covers every open cell, and this board has cells that may stay empty (+)"
    return None


def grade(instance: Instance, explain: int = STEPS_KEPT, placements: Placements | None = None,
          guesses: bool = True) -> Grade:
    """The grade of a board with a tiling (meant for unique ones; a board
    with several tilings is ``hard``: deduction cannot settle it).
    :class:`~tilesat.errors.TilesatError` when deduction shows there is no
    tiling, or when the board cannot be graded (:func:`ungradable`)."""
    if (why := ungradable(instance)) is not None:
        raise TilesatError(f"not graded: {why}")
    t0 = time.perf_counter()
    placements = placements if placements is not None else generate_placements(instance)
    deducer = Deducer(placements)
    try:
        state = deducer.run(level=2, explain=explain)
    except Contradiction:
        raise TilesatError("no tiling: deduction reaches a cell no piece can cover") from None
    if deducer.rounds == 1 and state.solved:
        level = "easy"
    elif state.solved:
        level = "medium"
    else:
        level = "hard"
    tiles = len(set(state.chosen.values()))
    decisions = _guesses(deducer, state) if level == "hard" and guesses else None
    return Grade(level, deducer.rounds, deducer.forced, deducer.ruled_out, tiles,
                 len(state.count) - len(state.chosen), decisions, deducer.steps, time.perf_counter() - t0,
                 state.tiling() if state.solved else None)


def _guesses(deducer: Deducer, state: Deduction) -> int | None:
    """The solver's decisions to find a tiling from where deduction stopped
    (None past GUESS_BUDGET conflicts: a bounded, interrupt-safe solve, see tilesat.sat.solvers)."""
    with deducer._solver(state) as solver:
        solver.conf_budget(GUESS_BUDGET)
        if solve_quietly(solver, _PROBE_SOLVER, []) is None:
            return None
        stats = solver.accum_stats() or {}
    return int(stats["decisions"]) if "decisions" in stats else None

