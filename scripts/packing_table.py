#!/usr/bin/env python3
"""How many copies of each pentomino fit on an n x n board, each optimum proved.

For every one of the 12 pentominoes (free: rotations and reflections) and
every n, ``tilesat.questions.pack.pack`` finds a packing and proves that one more
copy does not fit; prints a Markdown table (rows n, columns pieces) and the
seconds each row took.

    python scripts/packing_table.py               # n = 5..12
    python scripts/packing_table.py --sizes 8 13  # any sizes
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from tilesat import Board, Instance, parse_pieces
from tilesat.questions.pack import METHODS, pack

PENTOMINOES = "F I L N P T U V W X Y Z".split()


def row(n: int, method: str, solver: str) -> tuple[dict[str, int], float]:
    counts = {}
    t0 = time.perf_counter()
    for letter in PENTOMINOES:
        instance = Instance(Board.rectangle(n, n), parse_pieces(f"{letter}5"), source=f"{n}x{n}")
        result = pack(instance, "pieces", method, solver=solver)
        if not result.proved:
            raise SystemExit("interrupted")
        counts[letter] = result.optimum
    return counts, time.perf_counter() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=list(range(5, 13)), help="board sizes n (default 5..12)")
    ap.add_argument("--method", choices=METHODS, default="incremental")
    ap.add_argument("--solver", default="cadical195")
    args = ap.parse_args(argv)
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}; "
          f"method {args.method}, solver {args.solver}\n")
    print("| n | " + " | ".join(PENTOMINOES) + " | seconds |")
    print("|---|" + "---|" * len(PENTOMINOES) + "---|")
    total = 0.0
    for n in args.sizes:
        counts, seconds = row(n, args.method, args.solver)
        total += seconds
        print(f"| {n} | " + " | ".join(str(counts[p]) for p in PENTOMINOES) + f" | {seconds:.2f} |", flush=True)
    print(f"\nall proved optimal; {total:.2f} s in total", file=sys.stderr)


if __name__ == "__main__":
    main()
