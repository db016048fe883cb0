#!/usr/bin/env python3
"""Make L-Panel boards (L-tetromino tiling) whose tiling is unique.

Method: pack L-tetrominoes at random (random solver phases) into the
rectangle, letting a random 15% of the cells stay empty; the empty cells
become black.  Then, while check-unique says "multiple", take a tile of the
first tiling that the second does not use and black out its four cells: the
second tiling is ruled out and the first stays valid, so this ends with a
unique board.  Deterministic for a seed.

    python scripts/generate_lpanel.py 10 10 --seed 1 > instances/lpanel-10x10.txt
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from pysat.solvers import Solver

from tilesat import Board, Instance, check_unique, format_instance, generate_placements, parse_pieces


def random_board(rows: int, cols: int, rng: random.Random, optional: float = 0.15) -> np.ndarray:
    """A random L-tetromino packing of the rectangle in which only a random
    ``optional`` share of the cells may stay empty; the empty cells become
    the board's black cells (so the board is tileable by construction)."""
    inst = Instance(Board.rectangle(rows, cols), parse_pieces("L4"))
    placements = generate_placements(inst)
    cell_ptr, ids = placements.by_cell()
    may_skip = set(rng.sample(range(rows * cols), int(optional * rows * cols)))
    with Solver(name="glucose4") as solver:
        for cell in range(rows * cols):
            lits = (ids[cell_ptr[cell] : cell_ptr[cell + 1]] + 1).tolist()
            if cell not in may_skip:
                solver.add_clause(lits)
            for i, a in enumerate(lits):
                for b in lits[i + 1 :]:
                    solver.add_clause([-a, -b])
        solver.set_phases([v if rng.random() < 0.5 else -v for v in range(1, len(placements) + 1)])
        if not solver.solve():
            raise SystemExit("no packing found; try another seed")
        chosen = [v - 1 for v in solver.get_model() if 0 < v <= len(placements)]
    grid = np.zeros((rows, cols), dtype=bool)
    for i in chosen:
        grid.flat[placements.cells_of(i)] = True
    return grid


def generate(rows: int, cols: int, seed: int) -> tuple[Instance, int]:
    rng = random.Random(seed)
    rules = parse_pieces("L4")
    grid = random_board(rows, cols, rng, 0.15 if rows * cols >= 64 else 0.3)
    result = check_unique(Instance(Board(grid), rules))
    rounds = 0
    while result.verdict == "multiple":
        first, second = result.tilings
        candidates = sorted(set(first.tiles) - set(second.tiles))
        for r, c in rng.choice(candidates).cells:
            grid[r, c] = False
        result = check_unique(Instance(Board(grid), rules))
        rounds += 1
    assert result.verdict == "unique"
    return Instance(Board(grid), rules), rounds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", type=int)
    ap.add_argument("cols", type=int)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    inst, rounds = generate(args.rows, args.cols, args.seed)
    secs = time.perf_counter() - t0
    sys.stdout.write(format_instance(inst, [
        f"L-Panel board {args.rows}x{args.cols}, made by scripts/generate_lpanel.py "
        f"{args.rows} {args.cols} --seed {args.seed} ({rounds} tiles blocked, {secs:.1f} s).",
        "expect: unique (tilesat check-unique)",
    ]))


if __name__ == "__main__":
    main()
