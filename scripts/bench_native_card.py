#!/usr/bin/env python3
"""The ``native`` encoding against pairwise and commander, in one process:
compile, load into the solver, and check-unique, per encoding x solver.

    python scripts/bench_native_card.py instances/lpanel-gen-40x40.txt instances/pentomino-5x12.txt

Each round runs every encoding x solver in turn (a slow spell of the shared
machine hits all of them); medians over at least ``--repeat`` rounds, more
while a round takes under a second.  Prints a Markdown table: seconds to
compile the formula, to load it (``add_formula``: native constraints for
minicard/gluecard, the pairwise expansion for the others), and the whole
check-unique (placements, formula, solves, verification).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from tilesat import check_unique, generate_placements, load_instance
from tilesat.sat.formula import compile_formula
from tilesat.sat.solvers import PysatSolver


def one_round(instance, placements, encoding, solver):
    t0 = time.perf_counter()
    f = compile_formula(placements, encoding)
    t1 = time.perf_counter()
    with PysatSolver(solver) as s:
        s.add_formula(f)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    check_unique(instance, method="sat", encoding=encoding, solver=solver)
    return t1 - t0, t2 - t1, time.perf_counter() - t3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--encodings", default="native,pairwise,commander")
    ap.add_argument("--solvers", default="minicard,gluecard4,cadical195")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    combos = [(e, s) for e in args.encodings.split(",") for s in args.solvers.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    print("| instance | encoding + solver | compile | load | check-unique |")
    print("|---|---|---|---|---|")
    for path in args.files:
        instance = load_instance(path)
        placements = generate_placements(instance)
        times = {c: [] for c in combos}
        start = time.perf_counter()
        while True:
            for c in combos:
                times[c].append(one_round(instance, placements, *c))
            rounds = len(times[combos[0]])
            if rounds >= args.repeat and (time.perf_counter() - start > 1.0 * rounds or rounds >= 50):
                break
        for (e, s), runs in times.items():
            med = [statistics.median(x) for x in zip(*runs)]
            print(f"| {Path(path).name} | {e} + {s} | {med[0]:.4f} | {med[1]:.4f} | {med[2]:.4f} |")


if __name__ == "__main__":
    main()
