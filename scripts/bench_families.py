#!/usr/bin/env python3
"""check-unique on many families of hard boards (issue 29): tilesat against
OR-Tools CP-SAT, one row per family.

The families (scripts/hard_families.py) are boards made differently: random
packings visited in row-major, random, spiral and breadth-first order, with
clusters of tiles removed, random blocked cells (verdict not known in
advance), designed unique puzzles, pieces L4, L3, T4, P5, mixed sets and the
pentominoes with counts, 40-100 wide.  Boards are made here from fixed seeds:
the report set (seeds 1-10) by default, the tuning set (101-105, on which
methods are chosen) with ``--set tuning``.

Each board is run by tilesat (``--jobs 1``, the default method) and by CP-SAT
(1 worker; the shared exact-cover model, scripts/cpsat_model.py), alternately
and in rotating order so that the machine's load falls on both alike; with
``--workers 8``, tilesat ``--jobs 8`` against CP-SAT 8 workers.  Every run has
the same time limit and starts from the instance (placements and model
included); a run past it counts as the limit (ratios with one are bounds).
Every tiling either tool reports passes the independent checker; verdicts
must agree where both answered (a disagreement stops the run).

    pip install -e ".[bench]"
    python scripts/bench_families.py --timeout 120 --json bench-families.json
    python scripts/bench_families.py --families L4-random-60 T4-random-40 --boards 3 --timeout 60
    python scripts/bench_families.py --workers 8 --timeout 120        # needs 16 free cores
    python scripts/bench_families.py --set tuning --tools "tilesat --method sat"  # extra tools, tuning set
    python scripts/bench_families.py --held-out --boards 5 --timeout 30   # families never tuned on

``--held-out`` runs the families of hard_families.HELD_OUT instead: other pieces, sizes
and orders, on which no method or threshold was chosen (a check of what was tuned).
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpsat_model import exact_cover_model  # noqa: E402
from hard_families import FAMILIES, HELD_OUT, REPORT_SEEDS, TUNING_SEEDS  # noqa: E402

from tilesat import check_unique, generate_placements, verify_tiling  # noqa: E402
from tilesat.model.tiling import Tiling  # noqa: E402


ALL_FAMILIES = {**FAMILIES, **HELD_OUT}


def cpsat_unique(instance, workers: int, timeout: float) -> str:
    """CP-SAT's check-unique verdict (``unknown`` at the time limit); its tilings pass the checker."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    placements = generate_placements(instance)
    model, x = exact_cover_model(instance, placements)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    found = 0
    while found < 2:
        left = timeout - (time.perf_counter() - t0)
        if left <= 0:
            return "unknown"
        solver.parameters.max_time_in_seconds = left
        status = solver.Solve(model)
        if status == cp_model.UNKNOWN:
            return "unknown"
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        chosen = [i for i, v in enumerate(x) if solver.Value(v)]
        verify_tiling(instance, Tiling.from_placements(placements, chosen))
        found += 1
        model.AddBoolOr([x[i].Not() for i in chosen])  # not this tiling again
    return {0: "none", 1: "unique", 2: "multiple"}[found]


def run_tool(tool: str, instance, timeout: float) -> tuple[str, float, dict]:
    """(verdict, seconds, tilesat's stats) of one run."""
    t0 = time.perf_counter()
    stats: dict = {}
    if tool.startswith("CP-SAT"):
        verdict = cpsat_unique(instance, int(tool.split()[1]), timeout)
    else:
        words = tool.split()
        method = words[words.index("--method") + 1] if "--method" in words else "auto"
        jobs = int(words[words.index("--jobs") + 1]) if "--jobs" in words else 1
        result = check_unique(instance, method=method, jobs=jobs, timeout=timeout)
        verdict, stats = result.verdict, result.stats
    return verdict, time.perf_counter() - t0, stats


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def family_row(name: str, runs: list[dict], ours: str, theirs: str, timeout: float) -> dict:
    """One family's summary: medians, ratios (a time-out counts as the limit), time-outs, verdicts."""
    t = {tool: [min(r["seconds"][tool], timeout) if r["verdict"][tool] != "unknown" else timeout for r in runs]
         for tool in (ours, theirs)}
    ratios = [a / b for a, b in zip(t[ours], t[theirs])]
    both = [r for r in runs if r["verdict"][ours] != "unknown" and r["verdict"][theirs] != "unknown"]
    agree = sum(r["verdict"][ours] == r["verdict"][theirs] for r in both)
    verdicts = sorted({r["verdict"][ours] for r in runs} | {r["verdict"][theirs] for r in runs})
    return {"family": name, "what": ALL_FAMILIES[name].what, "boards": len(runs),
            "median_s": {ours: round(median(t[ours]), 3), theirs: round(median(t[theirs]), 3)},
            "median_ratio": round(median(ratios), 3), "worst_ratio": round(max(ratios), 3),
            "timeouts": {ours: sum(r["verdict"][ours] == "unknown" for r in runs),
                         theirs: sum(r["verdict"][theirs] == "unknown" for r in runs)},
            "verdicts_agree": f"{agree}/{len(both)}", "verdicts": verdicts,
            "methods": sorted({r["method"].get(ours, "") for r in runs} - {""})}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", choices=list(ALL_FAMILIES), metavar="FAMILY",
                    help=f"a subset of: {', '.join(FAMILIES)} (default: all of them); or of the held-out "
                         f"families: {', '.join(HELD_OUT)}")
    ap.add_argument("--held-out", action="store_true",
                    help="the held-out families (never tuned on) instead, on the report set")
    ap.add_argument("--set", choices=("report", "tuning"), default="report",
                    help="the report set (seeds 1-10, default) or the tuning set (seeds 101-105)")
    ap.add_argument("--boards", type=int, default=None, help="the first N boards of the set per family")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run (default 120)")
    ap.add_argument("--workers", type=int, default=1, help="tilesat --jobs N against CP-SAT N workers (default 1)")
    ap.add_argument("--tools", nargs="*", default=[], metavar="TOOL",
                    help="extra tilesat runs, e.g. 'tilesat --method sat' (shown per board, not in the ratios)")
    ap.add_argument("--json", type=Path, help="write the family table here (scripts/bench_table.py's format), "
                    "and the board-by-board table beside it (NAME-boards.json)")
    ap.add_argument("--force", action="store_true", help="overwrite --json's files")
    args = ap.parse_args(argv)
    held_out = args.held_out or bool(args.families and set(args.families) & set(HELD_OUT))
    if args.families is None:
        args.families = list(HELD_OUT if held_out else FAMILIES)
    if held_out and (set(args.families) - set(HELD_OUT) or args.set == "tuning"):
        sys.exit("error: held-out families run apart from the others, on the report set: nothing is tuned on them")
    if args.json and args.json.exists() and not args.force:
        sys.exit(f"error: {args.json} exists; pass --force to overwrite it")
    seeds = list(REPORT_SEEDS if args.set == "report" else TUNING_SEEDS)[: args.boards]
    ours = "tilesat" if args.workers == 1 else f"tilesat --jobs {args.workers}"
    theirs = f"CP-SAT {args.workers} worker" + ("s" if args.workers > 1 else "")
    tools = [ours, theirs] + [f"{t} --jobs {args.workers}" if args.workers > 1 else t for t in args.tools]
    import ortools

    warm = FAMILIES["L4-row-60"]
    from hard_families import packing
    small = packing(warm.pieces, 12, "random", 1)[0]
    check_unique(small)  # imports and first calls before timing
    cpsat_unique(small, 1, 10)
    load0 = os.getloadavg()
    started = datetime.datetime.now().astimezone()
    from bench_table import machine
    machine_words = machine(f"OR-Tools {ortools.__version__}")
    header = (f"machine: {machine_words}; {started:%Y-%m-%d %H:%M %Z}; load average at start {load0[0]:.2f}; "
              f"{args.set} set, one run per board and tool, {args.timeout:g} s limit per run, seconds")
    print(header + "\n")
    print("| board | open cells | expected | " + " | ".join(tools) + " | tilesat's method |")
    print("|---|---|---|" + "---|" * len(tools) + "---|")
    runs: dict[str, list[dict]] = {}
    rotation = 0
    for name in args.families:
        family = ALL_FAMILIES[name]
        runs[name] = []
        for seed in seeds:
            instance, expected = family.board(seed)
            order = tools[rotation % len(tools):] + tools[: rotation % len(tools)]
            rotation += 1
            run = {"seed": seed, "open_cells": instance.board.area, "expected": expected,
                   "verdict": {}, "seconds": {}, "method": {}, "load": os.getloadavg()[0]}
            for tool in order:
                verdict, seconds, stats = run_tool(tool, instance, args.timeout)
                run["verdict"][tool], run["seconds"][tool] = verdict, round(seconds, 3)
                if stats:
                    run["method"][tool] = stats.get("method", "")
                    run.setdefault("stats", {})[tool] = {k: stats.get(k) for k in ("method", "method_reason", "sweep")
                                                         if stats.get(k) is not None}
            known = {v for v in run["verdict"].values() if v != "unknown"}
            if expected and expected != "tileable":
                known.add(expected)
            if len(known) > 1 or (expected == "tileable" and "none" in known):
                raise SystemExit(f"BUG: {name} seed {seed}: the verdicts disagree: {run['verdict']} "
                                 f"(expected {expected or 'unknown'})")
            runs[name].append(run)
            cells = " | ".join(f">{args.timeout:g}" if run["verdict"][t] == "unknown"
                               else f"{run['seconds'][t]:.1f} {run['verdict'][t]}" for t in tools)
            print(f"| {name} s{seed} | {instance.board.area} | {expected or '?'} | {cells} | "
                  f"{run['method'].get(ours, '')} |", flush=True)
    rows = [family_row(name, rs, ours, theirs, args.timeout) for name, rs in runs.items() if rs]
    load1 = os.getloadavg()
    print(f"\n{ours} / {theirs}, per board; a time-out counts as {args.timeout:g} s\n")
    print(f"| family | boards | {ours} median (s) | {theirs} median (s) | median ratio | worst ratio | "
          f"time-outs ({ours} / {theirs}) | verdicts agree | verdicts | tilesat's method |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['family']} | {row['boards']} | {row['median_s'][ours]:.1f} | {row['median_s'][theirs]:.1f} | "
              f"{row['median_ratio']:.2f} | {row['worst_ratio']:.2f} | {row['timeouts'][ours]} / {row['timeouts'][theirs]} | "
              f"{row['verdicts_agree']} | {', '.join(row['verdicts'])} | {', '.join(row['methods'])} |")
    print(f"\nload average at the end {load1[0]:.2f}; run: {' '.join(sys.argv)}")
    if args.json:
        import bench_table

        tools_note = (f"Every run: check-unique from the instance (placements and model building included), "
                      f"{args.timeout:g} s limit; a run past it counts as {args.timeout:g} s (ratios with one are bounds). "
                      f"Boards made by scripts/hard_families.py ({args.set} set); tilesat and CP-SAT alternate board "
                      "by board in rotating order. Every tiling either tool reports passes the independent checker.")
        bench_table.write(
            args.json, title=(f"held-out families (never tuned on), check-unique: {ours} against {theirs}" if held_out
                               else f"check-unique by family: {ours} against {theirs} ({args.set} set)"),
            columns=["family", "boards", f"{ours} median (s)", f"{theirs} median (s)", "median ratio", "worst ratio",
                     f"time-outs ({ours} / {theirs})", "verdicts agree", "verdicts", "tilesat's method"],
            rows=[[r["family"], r["boards"], round(r["median_s"][ours], 2), round(r["median_s"][theirs], 2),
                   r["median_ratio"], r["worst_ratio"], f"{r['timeouts'][ours]} / {r['timeouts'][theirs]}",
                   r["verdicts_agree"], ", ".join(r["verdicts"]), ", ".join(r["methods"])] for r in rows],
            notes=[tools_note, "What each family is: " + "; ".join(f"`{r['family']}`: {r['what']}" for r in rows) + "."],
            load_at_start=load0[0], machine_words=machine_words)
        boards = args.json.with_name(args.json.stem + "-boards" + args.json.suffix)
        bench_table.write(
            boards, title=f"check-unique board by board: {', '.join(tools)} ({'held-out families' if held_out else args.set + ' set'})",
            columns=["board", "open cells", "expected"] + tools + ["tilesat's method"],
            rows=[[f"{name} s{r['seed']}", r["open_cells"], r["expected"] or "?"]
                  + [f">{args.timeout:g}" if r["verdict"][t] == "unknown" else f"{r['seconds'][t]:.2f} {r['verdict'][t]}"
                     for t in tools] + [r["method"].get(ours, "")] for name, rs in runs.items() for r in rs],
            notes=[tools_note], load_at_start=load0[0], machine_words=machine_words)

if __name__ == "__main__":
    main()
