#!/usr/bin/env python3
"""tilesat against the tools people use today, in one process and one run.

- check-unique on L-Panel boards (8x8 up to 40x40), the pentomino rectangles
  and a 128x128 deficient L-tromino board: tilesat with its default settings
  (and, where they pick dancing links, also with ``--method sat``) against OR-Tools CP-SAT with the exact-cover model of the published
  L-Panel solver (one Boolean per placement, ``AddExactlyOne`` per cell and
  per piece used once; find a tiling, forbid it, solve again), with one
  worker and with CP-SAT's default number of workers.  Both sides start
  from the instance, placements and model building included.
- counting on the pentomino rectangles: ``tilesat count`` (auto) against
  ``xcover`` enumerating every exact cover.

Prints a Markdown table of medians over ``--repeat`` runs, and ratios.

    pip install -e ".[bench]" && python scripts/bench_peers.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpsat_model import exact_cover_model  # noqa: E402

from tilesat import check_unique, generate_placements, load_instance  # noqa: E402
from tilesat.questions.count import count_tilings

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
UNIQUE = ["lpanel-8x8.txt", "lpanel-10x10.txt", "lpanel-12x12.txt", "lpanel-20x20.txt", "lpanel-gen-30x30.txt",
          "lpanel-gen-40x40.txt", "pentomino-3x20.txt", "pentomino-4x15.txt", "pentomino-5x12.txt",
          "pentomino-6x10.txt", "tromino-128x128-hole.txt"]
COUNT = ["pentomino-3x20.txt", "pentomino-4x15.txt", "pentomino-5x12.txt", "pentomino-6x10.txt"]


def cpsat_unique(instance, workers: int) -> str:
    """The published L-Panel solver's model, for check-unique."""
    from ortools.sat.python import cp_model

    model, x = exact_cover_model(instance, generate_placements(instance))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    found = 0
    while found < 2:
        status = solver.Solve(model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        found += 1
        chosen = [v for v in x if solver.Value(v)]
        model.AddBoolOr([v.Not() for v in chosen])  # not this tiling again
    return {0: "none", 1: "unique", 2: "multiple"}[found]


def xcover_count(instance) -> int:
    import xcover

    placements = generate_placements(instance)
    options = [placements.cells_of(i).tolist() + [f"piece{int(placements.rule[i])}"] for i in range(len(placements))]
    return sum(1 for _ in xcover.covers(options))


def median_time(fn, repeat):
    times, answer = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        if answer is not None and out != answer:
            raise SystemExit(f"BUG: answers differ between repeats: {answer} vs {out}")
        answer = out
    return statistics.median(times), answer


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="instance file names to run (default: all)")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import xcover
    list(xcover.covers([[0, 1], [1, 2], [2]]))  # numba's compile/load paid before timing
    import ortools

    cpsat_unique(load_instance(INSTANCES / "lpanel-6x6.txt"), 1)  # CP-SAT's first-call set-up, likewise
    load_at_start = os.getloadavg()[0]
    columns = ["instance", "task", "answer", "tilesat", "(method)", "tilesat --method sat", "CP-SAT 1 worker",
               "CP-SAT default workers", "xcover", "tilesat / CP-SAT 1w", "tilesat / xcover"]
    rows = []

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"OR-Tools {ortools.__version__}; median of {args.repeat} runs, seconds\n")
    print("| instance | task | answer | tilesat | (method) | tilesat --method sat | CP-SAT 1 worker | "
          "CP-SAT default workers | xcover | tilesat / CP-SAT 1w | tilesat / xcover |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in UNIQUE:
        if args.only and name not in args.only:
            continue
        instance = load_instance(INSTANCES / name)
        method = check_unique(instance).stats["method"]  # what the defaults pick
        ours, verdict = median_time(lambda: check_unique(instance).verdict, args.repeat)
        if method == "sat":
            sat_text = "(same)"
        else:
            sat, v0 = median_time(lambda: check_unique(instance, "sat").verdict, args.repeat)
            if v0 != verdict:
                raise SystemExit(f"BUG: {name}: tilesat says {verdict} by {method}, {v0} by sat")
            sat_text = f"{sat:.3f}"
        one, v1 = median_time(lambda: cpsat_unique(instance, 1), args.repeat)
        many, v2 = median_time(lambda: cpsat_unique(instance, 0), args.repeat)
        if not verdict == v1 == v2:
            raise SystemExit(f"BUG: {name}: tilesat says {verdict}, CP-SAT {v1} / {v2}")
        rows.append([name, "check-unique", verdict, f"{ours:.3f}", method, sat_text, f"{one:.3f}", f"{many:.3f}", "—",
                     f"{ours / one:.2f}", "—"])
        print("| " + " | ".join(rows[-1]) + " |", flush=True)
    for name in COUNT:
        if args.only and name not in args.only:
            continue
        instance = load_instance(INSTANCES / name)
        counted = count_tilings(instance, "auto").method  # what the defaults pick
        ours, n = median_time(lambda: count_tilings(instance, "auto").count, args.repeat)
        theirs, m = median_time(lambda: xcover_count(instance), args.repeat)
        if n != m:
            raise SystemExit(f"BUG: {name}: tilesat counts {n}, xcover {m}")
        rows.append([name, "count", f"{n:,}", f"{ours:.3f}", counted, "—", "—", "—", f"{theirs:.3f}", "—",
                     f"{ours / theirs:.2f}"])
        print("| " + " | ".join(rows[-1]) + " |", flush=True)
    print(f"\n(run: {' '.join(sys.argv)})", file=sys.stderr)
    if args.json:
        import bench_table

        bench_table.write(args.json, title="tilesat's defaults against OR-Tools CP-SAT and xcover", columns=columns,
                          rows=rows, notes=[f"Medians of {args.repeat} runs, seconds, in one process; everything from "
                                            "the instance to the verified answer inside the timing."],
                          load_at_start=load_at_start, machine_words=bench_table.machine(f"OR-Tools {ortools.__version__}"))


if __name__ == "__main__":
    main()
