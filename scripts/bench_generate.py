#!/usr/bin/env python3
"""How long ``tilesat generate`` takes: the median of 5 seeds per case, as a
Markdown table (docs/benchmarks/making.md).  In one process (the library's
generate_puzzle), so start-up is not counted; a 40x40 command adds ~1.5 s.

    python scripts/bench_generate.py                       # the cases of the docs' table
    python scripts/bench_generate.py --case 40x40:L4 --case 20x20:L4:medium --seeds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from tilesat import parse_pieces
from tilesat.making.generate import DIFFICULTIES, generate_puzzle

CASES = ["12x12:L4", "40x40:L4", "60x60:L4", "40x40:L4:easy", "20x20:L4:medium", "40x40:L4:medium",
         "20x20:L3", "20x20:L3, I3", "3x21:pentominoes:1"]


def run(case: str, seeds: int) -> str:
    size, rest = case.split(":", 1)
    pieces, _, difficulty = rest.rpartition(":")
    if difficulty not in DIFFICULTIES:  # "pentominoes:1": a count, not a difficulty
        pieces, difficulty = rest, None
    rows, cols = map(int, size.split("x"))
    times, open_, grades = [], [], []
    for seed in range(1, seeds + 1):
        t0 = time.perf_counter()
        puzzle = generate_puzzle(rows, cols, parse_pieces(pieces), seed=seed, difficulty=difficulty)
        times.append(time.perf_counter() - t0)
        open_.append(puzzle.instance.board.area / (rows * cols))
        grades.append(puzzle.grade.grade)
    spread = f"{min(times):.2f}–{max(times):.2f}"
    mix = ", ".join(f"{g} {grades.count(g)}" for g in ("easy", "medium", "hard") if g in grades)
    return (f"| {size} | {pieces} | {difficulty or '(any)'} | {statistics.median(times):.2f} | {spread} | "
            f"{statistics.median(open_):.0%} | {mix} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", help="ROWSxCOLS:PIECES[:DIFFICULTY]; repeatable")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    print("| size | pieces | difficulty | median s | min–max s | open cells | grades |")
    print("|---|---|---|---|---|---|---|")
    for case in args.case or CASES:
        print(run(case, args.seeds), flush=True)


if __name__ == "__main__":
    main()
