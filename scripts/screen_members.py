#!/usr/bin/env python3
"""Which configuration should partner the default one in ``--jobs 2``? (issue 15)

Each candidate alone, on the path a single run takes (compiled in this
process, the first CaDiCaL slice here, then a forked child solving on the
run's doubling conflict slices: ``solvers.PysatSolver``), time to the first
tiling (checked) on the hard random-packing boards.  A good partner is fast
where the default is slow: the figure that matters is the per-board minimum
of the two columns.  Run two copies at once on a 2-core machine (seeds
split between them) to measure under the contention a two-member portfolio
sees.

    python scripts/screen_members.py --configs default sat-seed3 sat-commander --seeds 1 2 3 4 5 &
    python scripts/screen_members.py --configs default sat-seed3 sat-commander --seeds 6 7 8 9 10
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hard_boards import random_packing  # noqa: E402

from tilesat.running.control import TimedOut, time_limit  # noqa: E402
from tilesat.sat.formula import compile_formula  # noqa: E402
from tilesat.model.placements import generate_placements  # noqa: E402
from tilesat.engines.portfolio import CONFIGS, member_solver  # noqa: E402
from tilesat.model.tiling import Tiling  # noqa: E402
from tilesat.certify.verify import verify_tiling  # noqa: E402

BY_NAME = {c.name: c for c in CONFIGS}


class Reordered:
    """A formula whose clauses go into the solver in another order (what ``add_formula`` uses of it)."""

    native = False

    def __init__(self, formula, reorder):
        self.formula, self.reorder = formula, reorder
        self.nclauses, self.encoding = formula.nclauses, formula.encoding

    def add_to(self, add_clause, progress=None, add_atmost=None):
        for clause in self.reorder(list(self.formula.clauses())):
            add_clause(clause)


def first_tiling(instance, placements, name: str, timeout: float, reorder=None) -> float | None:
    """Seconds to the first (checked) tiling, compiling included; None past the limit.
    ``reorder(clauses)``: the clauses in the order the solver gets them (scripts/clause_order.py)."""
    config = BY_NAME[name]
    t0 = time.perf_counter()
    solver = None
    try:
        with time_limit(timeout):
            formula = compile_formula(placements, config.encoding or "auto")
            solver = member_solver(config, placements, "cadical195")  # options and phases as in a portfolio
            solver.add_formula(formula if reorder is None else Reordered(formula, reorder))
            if not solver.solve():
                raise SystemExit(f"BUG: no tiling of a board made by packing ({name})")
            verify_tiling(instance, Tiling.from_placements(placements, [v - 1 for v in solver.model()
                                                                        if 0 < v <= len(placements)]))
        return time.perf_counter() - t0
    except TimedOut:
        return None
    finally:
        if solver is not None:
            solver.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4")
    ap.add_argument("--size", type=int, default=60)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    ap.add_argument("--configs", nargs="+", default=["default", "sat-seed3", "sat-commander"],
                    choices=list(BY_NAME), metavar="NAME")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.2f}; first tiling, seconds, "
          f"{args.timeout:g} s limit\n")
    print("| board | " + " | ".join(args.configs) + " |")
    print("|---|" + "---|" * len(args.configs))
    for seed in args.seeds:
        instance, _ = random_packing(args.size, args.pieces, seed)
        placements = generate_placements(instance)
        cells = []
        for name in args.configs:
            seconds = first_tiling(instance, placements, name, args.timeout)
            cells.append(f">{args.timeout:g}" if seconds is None else f"{seconds:.1f}")
        print(f"| {args.pieces} {args.size}x{args.size} s{seed} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; run: {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
