"""Puzzle generation: boards whose tiling is unique.

1. Pack pieces at random into the rectangle (SAT with random phases), where a
   random set of ``optional`` cells may stay empty; empty cells become black.
   The board is tileable by construction.
2. While check-unique says "multiple", black out a tile of the first tiling
   that the second does not use: the second tiling is gone, the first stays.
   (``fast``: one incremental solver, and a tile per region of difference.)
Deterministic for a seed (the random choices and the solver are).
"""

from __future__ import annotations

import random

import numpy as np
from pysat.solvers import Solver

from .board import Board
from .errors import TilesatError
from .instance import Instance, PieceRule
from .placements import generate_placements
from .formula import compile_formula
from .search import check_unique
from .control import TimedOut, deadline, time_limit
from .solvers import make_solver, solve_quietly
from .tiling import Tiling


def random_packing(rows: int, cols: int, rules: tuple[PieceRule, ...], rng: random.Random, optional: int,
                   chosen_out: list | None = None) -> np.ndarray:
    """Open cells of a random packing that leaves at most ``optional`` chosen cells empty
    (its placements, numbered as on the full rectangle, go to ``chosen_out``)."""
    inst = Instance(Board.rectangle(rows, cols), rules)
    placements = generate_placements(inst)
    cell_ptr, ids = placements.by_cell()
    may_skip = set(rng.sample(range(rows * cols), min(optional, rows * cols)))
    with Solver(name="glucose4") as solver:
        for cell in range(rows * cols):
            lits = (ids[cell_ptr[cell] : cell_ptr[cell + 1]] + 1).tolist()
            if cell not in may_skip:
                solver.add_clause(lits)
            for i, a in enumerate(lits):  # at most one placement per cell
                for b in lits[i + 1 :]:
                    solver.add_clause([-a, -b])
        solver.set_phases([v if rng.random() < 0.5 else -v for v in range(1, len(placements) + 1)])
        deadline().check()
        sat = solve_quietly(solver, "glucose4", [])  # a quick solve (random phases, a loose board)
        if not sat:
            return None
        chosen = [v - 1 for v in solver.get_model() if 0 < v <= len(placements)]
    if chosen_out is not None:
        chosen_out[:] = chosen
    grid = np.zeros((rows, cols), dtype=bool)
    for i in chosen:
        grid.flat[placements.cells_of(i)] = True
    return grid


def _differing_regions(first, second) -> list[set]:
    """The cells where two tilings differ, in edge-connected groups."""
    cells = {c for t in set(first.tiles) - set(second.tiles) for c in t.cells}
    regions, seen = [], set()
    for start in sorted(cells):
        if start in seen:
            continue
        seen.add(start)
        region, stack = set(), [start]
        while stack:
            r, c = stack.pop()
            region.add((r, c))
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        regions.append(region)
    return regions


def generate_unique(rows: int, cols: int, rules: tuple[PieceRule, ...], seed: int = 1,
                    blocked: int | None = None, tries: int = 20, fast: bool = False,
                    timeout: float | None = None) -> tuple[Instance, int]:
    """An instance with exactly one tiling, and how many tiles were blacked out.
    :class:`~tilesat.control.TimedOut` when ``timeout`` seconds pass first.

    ``fast``: one incremental solver for all rounds (black cells are
    assumptions on the packing formula's "empty" variables) and, each round,
    one tile blacked out in every separate region where the two tilings
    differ.  Far quicker on big boards; a different board for the same seed."""
    if any(r.bounded for r in rules):
        raise TilesatError("generate takes pieces without counts (e.g. 'L4' or 'L3, I3')")
    if rows < 1 or cols < 1:
        raise TilesatError("the board size must be at least 1x1")
    with time_limit(timeout):
        return _generate(rows, cols, rules, seed, blocked, tries, fast)


def _check_unique(instance: Instance):
    result = check_unique(instance)
    if result.verdict == "unknown":  # the time limit passed inside
        raise TimedOut(deadline().seconds)
    return result


def _generate(rows, cols, rules, seed, blocked, tries, fast) -> tuple[Instance, int]:
    rng = random.Random(seed)
    optional = blocked if blocked is not None else max(4, (rows * cols * 15) // 100)
    chosen: list[int] = []
    for _ in range(tries):
        grid = random_packing(rows, cols, rules, rng, optional, chosen)
        if grid is not None and grid.any():
            break
        optional += max(1, optional // 2)  # too tight: allow more empty cells
    else:
        raise TilesatError(f"could not pack these pieces into {rows}x{cols}; try --blocked with a larger number")
    if fast:
        rounds = _unique_by_one_solver(grid, rules, chosen, rng)
        result = _check_unique(Instance(Board(grid), rules))  # confirmed from scratch
    else:
        result = _check_unique(Instance(Board(grid), rules))
        rounds = 0
        while result.verdict == "multiple":
            first, second = result.tilings
            tile = rng.choice(sorted(set(first.tiles) - set(second.tiles)))
            for r, c in tile.cells:
                grid[r, c] = False
            result = _check_unique(Instance(Board(grid), rules))
            rounds += 1
    if result.verdict != "unique":
        raise AssertionError("BUG: generation lost the tiling it started from")
    return Instance(Board(grid), rules), rounds


def _unique_by_one_solver(grid: np.ndarray, rules, chosen: list[int], rng: random.Random, solver_name: str = "glucose4") -> int:
    """Black out tiles of the packing ``chosen`` (in ``grid``) until it is the
    board's only tiling; returns how many tiles were blacked out."""
    rows, cols = grid.shape
    full = generate_placements(Instance(Board.rectangle(rows, cols), rules))
    formula = compile_formula(full, "commander", allow_empty=True)
    empty = formula.empty_vars  # one per cell of the full rectangle, flat order
    # glucose4: measured on 30x30 L4, 17.9 s against 40.6 s for cadical195 (minisat22 20.8 s)
    intended = set(chosen)
    top = formula.nvars
    blacked = 0
    with make_solver(solver_name) as solver:
        solver.add_formula(formula)
        for v, open_ in zip(empty, grid.ravel()):
            if not open_:
                solver.add_clause([int(v)])  # black for good: black cells never reopen
        while True:
            # "not the intended tiling": switched on for this round only
            top += 1
            solver.add_clause([-top] + [-(p + 1) for p in sorted(intended)])
            cells = [-int(v) for v, open_ in zip(empty, grid.ravel()) if open_]
            if not solver.solve(cells + [top]):
                return blacked
            other = {v - 1 for v in solver.model() if 0 < v <= len(full)}
            first = Tiling.from_placements(full, sorted(intended))
            second = Tiling.from_placements(full, sorted(other))
            by_tile = {Tiling.from_placements(full, [p]).tiles[0]: p for p in intended - other}
            for region in _differing_regions(first, second):
                tile = rng.choice(sorted(t for t in by_tile if region.issuperset(t.cells)))
                for r, c in tile.cells:
                    grid[r, c] = False
                    solver.add_clause([int(empty[r * cols + c])])
                intended.discard(by_tile[tile])
                blacked += 1
