"""Puzzle generation: boards whose tiling is unique.

1. Pack pieces at random into the rectangle (SAT with random phases), where a
   random set of ``optional`` cells may stay empty; empty cells become black.
   The board is tileable by construction.
2. While check-unique says "multiple", black out a tile of the first tiling
   that the second does not use: the second tiling is gone, the first stays.
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
from .search import check_unique


def random_packing(rows: int, cols: int, rules: tuple[PieceRule, ...], rng: random.Random, optional: int) -> np.ndarray:
    """Open cells of a random packing that leaves at most ``optional`` chosen cells empty."""
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
        if not solver.solve():
            return None
        chosen = [v - 1 for v in solver.get_model() if 0 < v <= len(placements)]
    grid = np.zeros((rows, cols), dtype=bool)
    for i in chosen:
        grid.flat[placements.cells_of(i)] = True
    return grid


def generate_unique(rows: int, cols: int, rules: tuple[PieceRule, ...], seed: int = 1,
                    blocked: int | None = None, tries: int = 20) -> tuple[Instance, int]:
    """An instance with exactly one tiling, and how many tiles were blacked out."""
    if any(r.bounded for r in rules):
        raise TilesatError("generate takes pieces without counts (e.g. 'L4' or 'L3, I3')")
    if rows < 1 or cols < 1:
        raise TilesatError("the board size must be at least 1x1")
    rng = random.Random(seed)
    optional = blocked if blocked is not None else max(4, (rows * cols * 15) // 100)
    for _ in range(tries):
        grid = random_packing(rows, cols, rules, rng, optional)
        if grid is not None and grid.any():
            break
        optional += max(1, optional // 2)  # too tight: allow more empty cells
    else:
        raise TilesatError(f"could not pack these pieces into {rows}x{cols}; try --blocked with a larger number")
    result = check_unique(Instance(Board(grid), rules))
    rounds = 0
    while result.verdict == "multiple":
        first, second = result.tilings
        tile = rng.choice(sorted(set(first.tiles) - set(second.tiles)))
        for r, c in tile.cells:
            grid[r, c] = False
        result = check_unique(Instance(Board(grid), rules))
        rounds += 1
    if result.verdict != "unique":
        raise AssertionError("BUG: generation lost the tiling it started from")
    return Instance(Board(grid), rules), rounds
