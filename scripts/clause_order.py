#!/usr/bin/env python3
"""Does the order the clauses go into CaDiCaL matter on hard open boards? (issue 15)

The same formula (the open-board default: ladder, CaDiCaL with its ``--sat``
options, the run's conflict slices) given to the solver in four orders:
as compiled (cell by cell, row-major, then the piece counts), reversed, and
shuffled with two seeds.  First tiling only, one run each per board, in a
rotating order; CaDiCaL is deterministic, so the differences between the
columns are what the order alone does.  Two shuffles show how large the
noise of "another order" is, against which a systematic effect would have to
stand out.

    python scripts/clause_order.py --size 30 --seeds 1 2 3 4 5 6 7 8 9 10 --timeout 60
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hard_boards import random_packing  # noqa: E402
from screen_members import first_tiling  # noqa: E402

from tilesat.model.placements import generate_placements  # noqa: E402

def shuffled(seed: int):
    def reorder(clauses: list[list[int]]) -> list[list[int]]:
        out = list(clauses)
        random.Random(seed).shuffle(out)
        return out
    return reorder


#: each column: the clause list in the order the solver gets it
ORDERS = {"as compiled": lambda clauses: clauses, "reversed": lambda clauses: clauses[::-1],
          "shuffled (seed 1)": shuffled(1), "shuffled (seed 2)": shuffled(2)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4")
    ap.add_argument("--size", type=int, default=30)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.2f}; first tiling, seconds, "
          f"{args.timeout:g} s limit ('>' counts as the limit in the medians)\n")
    print("| board | " + " | ".join(ORDERS) + " |")
    print("|---|" + "---|" * len(ORDERS))
    times: dict[str, list[float]] = {o: [] for o in ORDERS}
    for k, seed in enumerate(args.seeds):
        instance, _ = random_packing(args.size, args.pieces, seed)
        placements = generate_placements(instance)
        row = {}
        names = list(ORDERS)
        for order in names[k % len(names):] + names[:k % len(names)]:
            seconds = first_tiling(instance, placements, "default", args.timeout, reorder=ORDERS[order])
            times[order].append(args.timeout if seconds is None else seconds)
            row[order] = f">{args.timeout:g}" if seconds is None else f"{seconds:.1f}"
        print(f"| {args.pieces} {args.size}x{args.size} s{seed} | " + " | ".join(row[o] for o in ORDERS) + " |",
              flush=True)
    print("| **median** | " + " | ".join(f"{statistics.median(times[o]):.1f}" for o in ORDERS) + " |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; run: {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
