"""Issue 13's performance rows for the pfaffian engine (domino tilings as a
Kasteleyn determinant): instance, count, seconds for the first call in this
process (cold: numba compiles, or loads its cache) and the best of three
later calls (warm).

    python scripts/bench_pfaffian.py            # the issue's rows and the size curve
    NUMBA_CACHE_DIR=$(mktemp -d) python scripts/bench_pfaffian.py   # cold = compile time too
"""

from __future__ import annotations

import sys
import time

import numpy as np

from tilesat.engines import pfaffian
from tilesat.model.board import Board
from tilesat.model.instance import Instance, PieceRule
from tilesat.model.pieces import Piece

DOMINO = PieceRule(Piece("I2", ((0, 0), (0, 1))))


def instance(grid: np.ndarray) -> Instance:
    return Instance(Board(grid), (DOMINO,))


def rectangle(rows, cols):
    return np.ones((rows, cols), dtype=bool)


def aztec(n):
    r, c = np.indices((2 * n, 2 * n))
    return np.abs(r - n + 0.5) + np.abs(c - n + 0.5) <= n


def holed(side, holes, seed=0):
    """A side x side board with ``holes`` random blocked cells, half of each colour,
    redrawn until it tiles (the first tileable draw from ``seed`` on)."""
    while True:
        rng = np.random.default_rng(seed)
        grid = rectangle(side, side)
        colour = np.add.outer(np.arange(side), np.arange(side)).ravel() % 2
        for k in (0, 1):
            grid.flat[rng.choice(np.flatnonzero(colour == k), holes // 2, replace=False)] = False
        if pfaffian.count(instance(grid)) > 0:
            return grid
        seed += 1


def shown(n: int) -> str:
    text = f"{n:,}"
    return text if len(text) <= 30 else f"{str(n)[:6]}... ({len(str(n))} digits)"


def row(name, grid, cold_first=False):
    inst = instance(grid)
    start = time.perf_counter()
    n = pfaffian.count(inst)
    cold = time.perf_counter() - start
    warm = min(_timed(inst) for _ in range(3))
    print(f"{name:<34} {shown(n):>34} {cold:9.4f} {warm:9.4f}", flush=True)
    return n


def _timed(inst):
    start = time.perf_counter()
    pfaffian.count(inst)
    return time.perf_counter() - start


def main() -> int:
    print(f"{'instance':<34} {'count':>34} {'cold s':>9} {'warm s':>9}")
    assert row("dominoes 8x8", rectangle(8, 8)) == 12_988_816
    assert row("dominoes 12x12", rectangle(12, 12)) == 53_060_477_521_960_000
    for n in (10, 20, 40):
        assert row(f"Aztec diamond order {n}", aztec(n)) == 2 ** (n * (n + 1) // 2)
    row("dominoes 40x40, 20 holes", holed(40, 20))
    print("\nsize curve: side x side, 20 random holes (tileable)")
    for side in (10, 20, 30, 40, 50, 60, 80, 100):
        row(f"dominoes {side}x{side}, 20 holes", holed(side, 20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
