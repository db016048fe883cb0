#!/usr/bin/env python3
"""check-unique on hard open boards (issue 15): tilesat --jobs 1 and --jobs 2
(the default method, a sweep on these boards; or ``--method sat``, one CDCL
run over the whole board) against OR-Tools CP-SAT with 1 and 2 workers, one
run each per board.

The boards are random packings with their empty cells blocked
(scripts/make_hard_boards.py, fixed seeds, made here in memory): one tiling
by construction and many others, so check-unique's work is finding two.
CP-SAT gets the exact-cover model of the published L-Panel solver (a
Boolean per placement, ``AddExactlyOne`` per cell, the piece-count
constraints; solve, forbid that tiling, solve again).  Every run starts from
the instance (placements and model building included) and has the same
time limit; a run that passes it counts as the limit in the medians (so
they are then lower bounds) and is shown as ``>T``.  The four runs of a
board go in a rotating order, so that a change in the machine's load (other
users) falls on every tool alike.

    pip install -e ".[bench]"
    python scripts/bench_hard.py --sizes 60 --seeds 1 2 3 4 5 6 7 8 9 10 --timeout 300
    python scripts/bench_hard.py --quick              # 30x30, 3 seeds, 60 s limit: a smoke run
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpsat_model import exact_cover_model  # noqa: E402
from make_hard_boards import random_packing  # noqa: E402

from tilesat import check_unique, generate_placements, verify_tiling  # noqa: E402
from tilesat.model.tiling import Tiling  # noqa: E402


def cpsat_unique(instance, workers: int, timeout: float) -> tuple[str, list]:
    """CP-SAT's check-unique: the verdict (``unknown`` at the time limit) and the tilings, as placement lists."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    placements = generate_placements(instance)
    model, x = exact_cover_model(instance, placements)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    found = []
    while len(found) < 2:
        left = timeout - (time.perf_counter() - t0)
        if left <= 0:
            return "unknown", found
        solver.parameters.max_time_in_seconds = left
        status = solver.Solve(model)
        if status == cp_model.UNKNOWN:
            return "unknown", found
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        chosen = [i for i, v in enumerate(x) if solver.Value(v)]
        verify_tiling(instance, Tiling.from_placements(placements, chosen))  # its answers are checked too
        found.append(chosen)
        model.AddBoolOr([x[i].Not() for i in chosen])  # not this tiling again
    return {0: "none", 1: "unique", 2: "multiple"}[len(found)], found


TOOLS = ("tilesat --jobs 1", "tilesat --jobs 2", "CP-SAT 1 worker", "CP-SAT 2 workers",
         "tilesat --method sat --jobs 1", "tilesat --method sat --jobs 2")


def run_tool(tool: str, instance, timeout: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    if tool.startswith("tilesat"):
        jobs = int(tool.rsplit(" ", 1)[1])
        method = "sat" if "--method sat" in tool else "auto"
        verdict = check_unique(instance, method=method, jobs=jobs, timeout=timeout).verdict
    else:
        verdict, _ = cpsat_unique(instance, int(tool.split()[1]), timeout)
    return verdict, time.perf_counter() - t0


def cell(seconds: float, verdict: str, timeout: float) -> str:
    return f">{timeout:g}" if verdict == "unknown" else f"{seconds:.1f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4")
    ap.add_argument("--sizes", type=int, nargs="+", default=[60])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    ap.add_argument("--tools", nargs="+", default=list(TOOLS[:4]), choices=TOOLS, metavar="TOOL",
                    help=f"a subset of: {', '.join(repr(t) for t in TOOLS)}")
    ap.add_argument("--quick", action="store_true", help="30x30, seeds 1-3, 60 s per run")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.seeds, args.timeout = [30], [1, 2, 3], 60.0
    import ortools

    check_unique(random_packing(8, args.pieces, 1)[0], method="sat", jobs=2)  # imports and first calls before timing
    cpsat_unique(random_packing(8, args.pieces, 1)[0], 1, 10)
    load_at_start = os.getloadavg()[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"OR-Tools {ortools.__version__}; load average at start {os.getloadavg()[0]:.2f}; "
          f"one run per board and tool, {args.timeout:g} s limit per run, seconds\n")
    tools = args.tools
    print("| board | open cells | " + " | ".join(tools) + " |")
    print("|---|---|" + "---|" * len(tools))
    times: dict[str, list[float]] = {t: [] for t in tools}
    rotation = 0
    rows, notes = [], [f"One run per board and tool in rotating order, {args.timeout:g} s limit per run, seconds; "
                        f"a run past the limit counts as the limit in the medians."]
    for n in args.sizes:
        for seed in args.seeds:
            instance, _ = random_packing(n, args.pieces, seed)
            row: dict[str, str] = {}
            order = tools[rotation % len(tools):] + tools[:rotation % len(tools)]
            rotation += 1
            verdicts = {}
            for tool in order:
                verdict, seconds = run_tool(tool, instance, args.timeout)
                verdicts[tool] = verdict
                times[tool].append(min(seconds, args.timeout) if verdict != "unknown" else args.timeout)
                row[tool] = cell(seconds, verdict, args.timeout)
            known = {v for v in verdicts.values() if v != "unknown"}
            if len(known) > 1:
                raise SystemExit(f"BUG: {args.pieces} {n}x{n} seed {seed}: the tools disagree: {verdicts}")
            rows.append([f"{args.pieces} {n}x{n} s{seed}", instance.board.area] + [row[t] for t in tools])
            print(f"| {args.pieces} {n}x{n} s{seed} | {instance.board.area} | " + " | ".join(row[t] for t in tools)
                  + " |", flush=True)
    print("\n| | " + " | ".join(tools) + " |")
    print("|---|" + "---|" * len(tools))
    medians = [f"{statistics.median(times[t]):.1f}" for t in tools]
    solved = [f"{sum(x < args.timeout for x in times[t])}/{len(times[t])}" for t in tools]
    rows += [["**median (s)**", ""] + medians, ["**solved in time**", ""] + solved]
    print("| median (s) | " + " | ".join(medians) + " |")
    print("| solved in time | " + " | ".join(solved) + " |")
    pairs = [("tilesat --jobs 1", "CP-SAT 1 worker"), ("tilesat --jobs 2", "CP-SAT 2 workers")]
    for ours, theirs in pairs:
        if ours in times and theirs in times:
            ratios = [a / b for a, b in zip(times[ours], times[theirs])]
            notes.append(f"{ours} / {theirs}: median ratio {statistics.median(ratios):.2f}, worst {max(ratios):.2f}, "
                         f"ratio of medians {statistics.median(times[ours]) / statistics.median(times[theirs]):.2f}")
            print(f"\n{notes[-1]}")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; run: {' '.join(sys.argv)}")
    if args.json:
        import bench_table

        sizes = ", ".join(f"{n}x{n}" for n in args.sizes)
        bench_table.write(args.json, title=f"check-unique on {args.pieces} random-packing boards ({sizes}): "
                          + ", ".join(tools), columns=["board", "open cells"] + tools, rows=rows, notes=notes,
                          load_at_start=load_at_start,
                          machine_words=bench_table.machine(f"OR-Tools {ortools.__version__}"))


if __name__ == "__main__":
    main()
