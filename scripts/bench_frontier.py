"""Issue 13's performance rows for the frontier engine.

Prints instance, count, seconds of the first call in this process (cold:
imports numba and loads or compiles the step) and of a second call (warm).
Run it twice to see the cold figure with numba's on-disk cache filled.

    python scripts/bench_frontier.py [--skip-pentominoes]
"""

import sys
import time

from tilesat.engines import frontier
from tilesat.model.instance import parse_instance

ROWS = [
    ("Project Euler 161: L3, I3 on 9x12", "L3, I3", 9, 12, 20_574_308_184_277_971, 1.0),
    ("L-trominoes 9x12", "L3", 9, 12, 467_966_840, 0.5),
    ("dominoes 12x12", "domino", 12, 12, 53_060_477_521_960_000, 0.1),
    ("dominoes 8x8", "domino", 8, 8, 12_988_816, None),
    ("2 of each tetromino, 5x8", "tetrominoes:2", 5, 8, 3_106, 0.5),
    ("pentominoes once each, 6x10", "pentominoes:1", 6, 10, 9_356, None),
]


def timed(instance):
    start = time.perf_counter()
    n = frontier.count(instance)
    return n, time.perf_counter() - start


def main() -> None:
    skip = "--skip-pentominoes" in sys.argv
    start = time.perf_counter()
    frontier.warm_up()
    print(f"warm_up (numba import + compile or cache load): {time.perf_counter() - start:.2f} s")
    print(f"{'instance':34} {'count':>28} {'first s':>8} {'warm s':>8}  target")
    for name, pieces, rows, cols, expected, target in ROWS:
        if skip and "pentominoes" in pieces:
            continue
        instance = parse_instance(f"pieces: {pieces}\n" + ("." * cols + "\n") * rows)
        n, first = timed(instance)
        _, warm = timed(instance)
        assert n == expected, (name, n, expected)
        goal = f"< {target} s {'ok' if warm < target else 'MISSED'}" if target else ""
        print(f"{name:34} {n:>28,} {first:8.3f} {warm:8.3f}  {goal}")


if __name__ == "__main__":
    main()
