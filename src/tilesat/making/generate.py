"""Puzzle generation: boards whose tiling is unique.

1. Pack pieces at random into the rectangle: cell by cell in reading order
   (each cell gets a random piece that starts there and fits, or stays
   empty), or, with ``blocked``, by SAT with random phases where that many
   random cells may stay empty.  Empty cells become black.  The packing is
   the *intended* tiling: the board is tileable by construction.
2. Deduce by propagation (:mod:`tilesat.making.grade`): where it stops, black out
   an intended tile in each separate region of undetermined cells (one per
   ``CELLS_PER_BLACKOUT`` cells of a big region), and deduce again, until
   propagation settles the whole board.  Deduction is sound, so the board
   is then unique.
3. Open blacked-out tiles again, one at a time in random order, wherever the
   board keeps its property: settled by propagation (the default, ``easy``),
   by probing (``medium``), or unique by the SAT check (``hard``).  Then
   grade, and start again from a new packing when the grade is not the one
   asked.
4. Confirm from scratch with :func:`~tilesat.questions.solve.check_unique`.

Pieces with counts: the SAT packing (it keeps them), and a tile goes only
while its piece stays at or above its least count.  When every count is
exact (``pentominoes:1``: each exactly once) no tile can go: there each try
is a board with random holes, kept when unique.
Deterministic for a seed (the random choices and the solvers are).

Every grid (``grid``: square, triangle, hex, cube): the box is the grid's
``rows x cols`` (cube: ``layers x rows x cols``) board, all open; nothing
above depends on the grid but the regions' adjacency, which the grid gives
(:meth:`tilesat.model.grids.Grid.edges`).

Why propagation and not a SAT call per round asking for a second tiling:
it is hundreds of times faster on big boards (``scripts/bench_generate.py``,
docs/benchmarks/making.md).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..model.board import Board
from ..running.control import TimedOut, deadline, time_limit
from ..errors import TilesatError, did_you_mean
from ..sat.formula import compile_formula
from .grade import GRADES, Contradiction, Deducer, Grade, _Structure, grade
from ..model.instance import Instance, PieceRule
from ..model.placements import generate_placements
from ..model.tiling import Tiling
from ..questions.solve import check_unique
from ..sat.solvers import solve_quietly
from pysat.solvers import Solver

#: What ``difficulty`` may be: a grade, or None (whatever deduction gives, quickest).
DIFFICULTIES = GRADES
CELLS_PER_BLACKOUT = 64


@dataclass
class Puzzle:
    """A generated board: the instance, how many tiles were blacked out, its grade, the tries it took."""

    instance: Instance
    blacked: int
    grade: Grade
    tries: int
    seconds: float
    solution: Tiling | None = None  # its one tiling, verified


class _Full:
    """The full box's placements and their lists, built once per run; the
    packing formula when first needed (SAT packing, probing with piece counts)."""

    def __init__(self, shape: tuple[int, ...], rules: tuple[PieceRule, ...], grid: str = "square"):
        self.shape, self.grid = shape, grid
        self.n = int(np.prod(shape))
        self.placements = generate_placements(Instance(Board(np.ones(shape, dtype=bool), "none", grid), rules))
        self.structure = _Structure(self.placements)
        self._formula = None
        u, v = Board(np.ones(shape, dtype=bool), "none", grid).lattice.edges(shape)
        self.adjacent: list[list[int]] = [[] for _ in range(self.n)]  # the grid's edge neighbours, flat
        for a, b in zip(u.tolist(), v.tolist()):
            self.adjacent[a].append(b)
            self.adjacent[b].append(a)

    def board(self, mask: np.ndarray) -> Board:
        return Board(mask.copy(), "none", self.grid)

    @property
    def formula(self):
        if self._formula is None:
            self._formula = compile_formula(self.placements, "commander", allow_empty=True)
        return self._formula

    def deducer(self, mask: np.ndarray) -> Deducer:
        counted = any(r.bounded for r in self.placements.instance.rules)
        return Deducer(self.placements, mask.ravel(), self.structure, self.formula if counted else None)


def _pack(full: _Full, rng: random.Random, optional: int) -> list[int] | None:
    """The placements of a random packing leaving at most ``optional`` chosen cells empty (None: none fits)."""
    n = full.n
    may_skip = set(rng.sample(range(n), min(optional, n)))
    formula = full.formula
    with Solver(name="glucose4") as solver:
        formula.add_to(solver.add_clause)
        for cell, v in enumerate(formula.empty_vars.tolist()):
            if cell not in may_skip:
                solver.add_clause([-v])
        P = len(full.placements)
        solver.set_phases([v if rng.random() < 0.5 else -v for v in range(1, P + 1)])
        deadline().check()
        if not solve_quietly(solver, "glucose4", []):
            return None
        return [v - 1 for v in solver.get_model()[:P] if v > 0]


def _pack_greedily(full: _Full, rng: random.Random) -> list[int]:
    """A random packing built cell by cell (row-major): each cell not yet covered
    gets a random placement that starts there and fits, or stays empty.  Milliseconds
    where the SAT packing took 58 s (60x60 L4, 15% optional cells)."""
    placements, cells_of = full.placements, full.structure.cells
    starts: list[list[int]] = [[] for _ in range(full.n)]
    for p in range(len(placements)):
        starts[cells_of[p][0]].append(p)  # a placement's cells are sorted: its first is where it starts
    covered = [False] * full.n
    chosen = []
    for c in range(full.n):
        if covered[c]:
            continue
        fits = [p for p in starts[c] if not any(covered[x] for x in cells_of[p])]
        if fits:
            p = rng.choice(fits)
            chosen.append(p)
            for x in cells_of[p]:
                covered[x] = True
    return chosen


def _regions(cells: set[int], adjacent: list[list[int]]) -> list[set[int]]:
    """Edge-connected groups of flat cells (no wrap: generated boards are boxes)."""
    regions, seen = [], set()
    for start in sorted(cells):
        if start in seen:
            continue
        seen.add(start)
        region, stack = set(), [start]
        while stack:
            c = stack.pop()
            region.add(c)
            for nb in adjacent[c]:
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        regions.append(region)
    return regions


def _settled(full: _Full, mask: np.ndarray, level: int):
    """The deduction state on this mask at ``level`` (1 propagation, 2 probing)."""
    return full.deducer(mask).run(level, explain=0)


def _black_out_until_settled(full: _Full, mask: np.ndarray, intended: set[int], level: int,
                             rng: random.Random, progress: Callable) -> list[int] | None:
    """Black out intended tiles (one per undetermined region a round) until
    deduction at ``level`` settles the board; the tiles blacked out, or None
    when a region has no tile that may go (a piece at its least count)."""
    cells_of, rule_of = full.structure.cells, full.structure.rule
    rules = full.placements.instance.rules
    spare = [0] * len(rules)  # tiles of each piece that may still go
    for p in intended:
        spare[rule_of[p]] += 1
    spare = [n - r.min for n, r in zip(spare, rules)]
    blacked: list[int] = []
    total = int(mask.sum())
    while True:
        deadline().check()
        try:
            state = _settled(full, mask, level)
        except Contradiction:  # the packing broke a count: not a tiling to start from
            return None
        left = set(state.undetermined())
        # no bar: the open cells shrink as tiles are blacked out
        progress(f"deducing · {total - len(left):,} of {total:,} cells settled, {len(blacked)} tiles blacked out")
        if not left:
            return blacked
        regions = _regions(left, full.adjacent)
        if any(not any(spare[rule_of[p]] > 0 for p in intended if cells_of[p][0] in region) for region in regions):
            # no tile may go there (its pieces at their least counts): propagation knows no
            # counts, probing on the formula does; settled by it, or a new packing
            return blacked if level < 2 and _settled(full, mask, 2).solved else None
        for region in regions:
            tiles = sorted(p for p in intended if cells_of[p][0] in region and spare[rule_of[p]] > 0)
            # a tile per CELLS_PER_BLACKOUT cells of a region: far fewer rounds on a big open
            # board; the tiles blacked out too many are opened again after (_reopen)
            for p in rng.sample(tiles, min(len(tiles), max(1, len(region) // CELLS_PER_BLACKOUT))):
                if spare[rule_of[p]] <= 0:
                    continue
                spare[rule_of[p]] -= 1
                mask.ravel()[cells_of[p]] = False
                intended.discard(p)
                blacked.append(p)
                total -= len(cells_of[p])


def _reopen(full: _Full, mask: np.ndarray, intended: set[int], blacked: list[int], keeps: Callable,
            rng: random.Random, progress: Callable) -> list[int]:
    """Open blacked-out tiles again, in random order, where ``keeps(mask)`` stays true; the tiles still black."""
    cells_of = full.structure.cells
    order = list(blacked)
    rng.shuffle(order)
    still = []
    for i, p in enumerate(order):
        deadline().check()
        progress(f"opening blacked-out tiles again · {i} of {len(order)}", i, len(order))
        flat = mask.ravel()
        flat[cells_of[p]] = True
        if keeps(mask):
            intended.add(p)
        else:
            flat[cells_of[p]] = False
            still.append(p)
    return still


def _unique(rules, board: Board, method: str = "sat") -> bool:
    result = check_unique(Instance(board, rules), method=method, certificates=False)
    if result.verdict == "unknown":
        raise TimedOut(deadline().seconds)
    return result.verdict == "unique"


def _unique_by_sat(full: _Full, rules) -> Callable:
    return lambda mask: _unique(rules, full.board(mask))


def _finish(instance: Instance, blacked: int, difficulty, attempt: int, progress, t0) -> Puzzle | None:
    """Grade; None when the grade is not the one asked; confirmed unique from scratch."""
    progress("grading")
    graded = grade(instance)
    if difficulty is not None and graded.grade != difficulty:
        return None
    progress("confirming uniqueness from scratch")
    result = check_unique(instance)
    if result.verdict == "unknown":
        raise TimedOut(deadline().seconds)
    if result.verdict != "unique":
        raise AssertionError(f"BUG: generation made a board whose verdict is {result.verdict}")
    return Puzzle(instance, blacked, graded, attempt, time.perf_counter() - t0, result.tilings[0])


def _settled_by(full: _Full, level: int) -> Callable:
    def keeps(mask: np.ndarray) -> bool:
        try:
            return _settled(full, mask, level).solved
        except Contradiction:  # cannot happen (the intended tiling stays a tiling); refuse the change
            return False
    return keeps


@dataclass(frozen=True)
class PuzzleSpec:
    """What kind of puzzle to make: the random seed, the cells left empty by the
    packing (None: about 15%), the packings to try, the grade wanted (None: any),
    the grid and, on the cube grid, the layers."""

    seed: int = 1
    blocked: int | None = None
    tries: int = 20
    difficulty: str | None = None
    grid: str = "square"
    layers: int = 1


def generate_puzzle(rows: int, cols: int, rules: tuple[PieceRule, ...], *, timeout: float | None = None,
                    progress: Callable | None = None, **spec) -> Puzzle:
    """A board with exactly one tiling, graded (:mod:`tilesat.making.grade`); the
    keywords are :class:`PuzzleSpec`'s: with ``difficulty`` one of ``easy``,
    ``medium``, ``hard``, of that grade; ``grid`` any of tilesat.model.grids'
    (``layers`` deep on the cube grid).
    :class:`~tilesat.running.control.TimedOut` when ``timeout`` seconds pass first;
    :class:`~tilesat.errors.TilesatError` when ``tries`` packings gave none.
    ``progress(message, done=None, total=None)`` hears each stage."""
    spec = PuzzleSpec(**spec)
    if rows < 1 or cols < 1 or spec.layers < 1:
        raise TilesatError("the board size must be at least 1x1")
    if spec.layers != 1 and spec.grid != "cube":
        raise TilesatError(f"layers: only cube boards have them (this one is {spec.grid})")
    shape = (spec.layers, rows, cols) if spec.grid == "cube" else (rows, cols)
    if spec.difficulty is not None and spec.difficulty not in DIFFICULTIES:
        raise TilesatError(f"unknown difficulty {spec.difficulty!r}{did_you_mean(spec.difficulty, DIFFICULTIES)}; use one of: {', '.join(DIFFICULTIES)}")
    progress = progress or (lambda message, done=None, total=None: None)
    t0 = time.perf_counter()
    with time_limit(timeout):
        return _generate(shape, rules, spec, progress, t0)


def _generate(shape, rules, spec: PuzzleSpec, progress, t0) -> Puzzle:
    grid, seed, blocked, tries, difficulty = spec.grid, spec.seed, spec.blocked, spec.tries, spec.difficulty
    rng = random.Random(seed)
    size = "x".join(map(str, shape))
    progress(f"placements and formula of the {size} box")
    full = _Full(shape, rules, grid)
    n = full.n
    bounded = any(r.bounded for r in rules)  # counts: the SAT packing, which keeps them
    optional = blocked if blocked is not None else max(4, (n * 15) // 100)
    exact = None  # the open cells a tiling needs, when every count is exact
    if rules and all(r.min == r.max for r in rules):
        exact = sum(int(r.min) * len(r.piece.cells) for r in rules)
        if exact > n:
            raise TilesatError(f"these pieces cover {exact} cells: more than {size} has")
        tries = max(tries, 200)  # random holes: many tries, each quick
    packed_once = False
    for attempt in range(1, tries + 1):
        if exact is not None:  # every piece an exact number of times: random holes, kept when unique
            progress(f"random holes, checking uniqueness (try {attempt})")
            mask = np.zeros(n, dtype=bool)
            mask[rng.sample(range(n), exact)] = True
            mask = mask.reshape(shape)
            packed_once = True
            if not _unique(rules, full.board(mask), method="auto"):
                continue
            puzzle = _finish(Instance(full.board(mask), rules), 0, difficulty, attempt, progress, t0)
            if puzzle is not None:
                return puzzle
            continue
        progress(f"packing at random (try {attempt})")
        greedy = not bounded and blocked is None
        chosen = _pack_greedily(full, rng) if greedy else _pack(full, rng, optional)
        if chosen is None or not chosen:
            if not packed_once:
                optional += max(1, optional // 2)  # too tight: allow more empty cells
            continue
        packed_once = True
        mask = np.zeros(shape, dtype=bool)
        for p in chosen:
            mask.ravel()[full.structure.cells[p]] = True
        intended = set(chosen)
        # propagation finds where to black out (cheap, Python); probing would black out
        # no fewer tiles (measured) at many times the cost
        blacked = _black_out_until_settled(full, mask, intended, 1, rng, progress)
        if blacked is None:
            continue
        if difficulty in (None, "easy", "medium"):  # None: as easy (quickest, and denser than none)
            level = 2 if difficulty == "medium" else 1
            blacked = _reopen(full, mask, intended, blacked, _settled_by(full, level), rng, progress)
        elif difficulty == "hard":
            blacked = _reopen(full, mask, intended, blacked, _unique_by_sat(full, rules), rng, progress)
        puzzle = _finish(Instance(full.board(mask), rules), len(blacked), difficulty, attempt, progress, t0)
        if puzzle is not None:
            return puzzle
    if not packed_once:
        raise TilesatError(f"could not pack these pieces into {size}; try --blocked with a larger number")
    what = f"{difficulty} board" if difficulty else "unique board"
    hint = ("; probing settles nearly every unique board of pieces that repeat (L4: none hard in 20 tries "
            "of 12x12 or 20x20): pieces used once, like pentominoes:1, give hard boards") if difficulty == "hard" else ""
    raise TilesatError(f"no {what} in {tries} tries; try another seed or size{hint}")


def generate_unique(rows: int, cols: int, rules: tuple[PieceRule, ...], seed: int = 1,
                    blocked: int | None = None, tries: int = 20, fast: bool = True,
                    timeout: float | None = None) -> tuple[Instance, int]:
    """An instance with exactly one tiling, and how many tiles were blacked
    out (:func:`generate_puzzle` without a grade asked for).  ``fast`` is
    kept for old callers: there is one method now, the deduction-guided one."""
    puzzle = generate_puzzle(rows, cols, rules, seed=seed, blocked=blocked, tries=tries, timeout=timeout)
    return puzzle.instance, puzzle.blacked
