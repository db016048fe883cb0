#!/usr/bin/env python3
"""Symmetry breaking (``--break-symmetry``) on symmetric boards: proving
"no tiling" and proving a packing optimal, without and with lex-leader
clauses, in one process, one after the other per case.

    python scripts/bench_symbreak.py [--timeout 120] [--solver cadical195] [--quick]

Cases: SAT proofs of "no tiling" (the certificate LP off, so the solver does
the proving) on T-tetromino rectangles and a torus (T4 tiles a rectangle
only when both sides are multiples of 4) and L-tetromino boards whose area
is not a multiple of 8 (none tile); ``pack`` on n x n boards, n = 10..14,
with pentominoes whose optimum is below the LP bound (the last SAT call,
"one more does not fit", does the proving).  Prints a Markdown table: the
verdict or optimum (which must agree), seconds and conflicts each way, and
the ratio without / with.  A run stopped by ``--timeout`` shows ``>T``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from tilesat import parse_instance
from tilesat.questions.pack import pack
from tilesat.questions.solve import solve

# (question, piece, rows, cols, wrap), by group (--only)
CASES = {
    "none": [("none", "T4", 10, 10, "none"), ("none", "T4", 10, 14, "none"), ("none", "L4", 6, 6, "none"),
             ("none", "L4", 6, 10, "none"), ("none", "L4", 10, 10, "none")],
    "pack": [("pack", "T5", n, n, "none") for n in range(10, 15)] + [("pack", "Z5", n, n, "none") for n in range(10, 14)]
            + [("pack", "W5", n, n, "none") for n in (10, 11, 12)],
    # tori: groups of 8 x rows x cols elements (a generating set is broken)
    "torus": [("none", "T4", 6, 6, "both"), ("none", "T4", 6, 10, "both"), ("pack", "T5", 9, 9, "both"),
              ("pack", "Z5", 9, 9, "both")],
}
QUICK = [("none", "T4", 10, 10, "none"), ("none", "L4", 6, 6, "none"), ("none", "T4", 6, 6, "both"),
         ("pack", "T5", 10, 10, "none"), ("pack", "W5", 10, 10, "none")]


def board(piece: str, rows: int, cols: int, wrap: str = "none"):
    return parse_instance(f"pieces: {piece}\nwrap: {wrap}\n" + ("." * cols + "\n") * rows)


def run_none(instance, broken: bool, solver: str, timeout: float):
    t0 = time.perf_counter()
    r = solve(instance, method="sat", solver=solver, certificates=False, break_symmetry=broken, timeout=timeout)
    seconds = time.perf_counter() - t0
    answer = r.verdict if r.reason is None else f"{r.verdict} ({r.reason})"
    return answer, seconds, r.stats.get("conflicts"), r.verdict == "unknown", r.stats.get("symmetry_breaking")


def run_pack(instance, broken: bool, solver: str, timeout: float):
    t0 = time.perf_counter()
    r = pack(instance, solver=solver, break_symmetry=broken, timeout=timeout)
    seconds = time.perf_counter() - t0
    answer = f"{r.optimum}" + ("" if r.proved else " (not proved)") + (" (LP bound met)" if r.stats.get("lp_bound_met") else "")
    return answer, seconds, None, not r.proved, r.stats.get("symmetry_breaking")


def cell(seconds: float, stopped: bool, timeout: float) -> str:
    return f">{timeout:g}" if stopped else f"{seconds:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0, help="per run (seconds)")
    ap.add_argument("--solver", default="cadical195")
    ap.add_argument("--quick", action="store_true", help="a few small cases (a smoke run)")
    ap.add_argument("--only", default=",".join(CASES), help=f"case groups, of {', '.join(CASES)}")
    args = ap.parse_args()
    chosen = QUICK if args.quick else [c for group in args.only.split(",") for c in CASES[group]]
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.1f}, "
          f"solver {args.solver}, timeout {args.timeout:g} s per run")
    print("| question | board | answer | without: s (conflicts) | with: s (conflicts) | ratio | broken |")
    print("|---|---|---|---|---|---|---|")
    for kind, piece, rows, cols, wrap in chosen:
        question, run = ("solve (none)", run_none) if kind == "none" else ("pack (optimum)", run_pack)
        instance = board(piece, rows, cols, wrap)
        plain = run(instance, False, args.solver, args.timeout)
        broken = run(instance, True, args.solver, args.timeout)
        if not (plain[3] or broken[3]) and plain[0] != broken[0]:
            raise SystemExit(f"BUG: {piece} {rows}x{cols}: {plain[0]} without breaking, {broken[0]} with it")
        answer = plain[0] if not plain[3] else broken[0]
        ratio = "?" if plain[3] and broken[3] else (
            f">{args.timeout / broken[1]:.1f}" if plain[3] else (
                f"<{plain[1] / args.timeout:.2f}" if broken[3] else f"{plain[1] / broken[1]:.2f}"))
        conflicts = lambda x: f" ({x[2]:,})" if x[2] is not None else ""
        what = broken[4] or {}
        where = f"{piece} {rows}x{cols}" + (f" ({wrap} wrap)" if wrap != "none" else "")
        print(f"| {question} | {where} | {answer} | {cell(plain[1], plain[3], args.timeout)}{conflicts(plain)} "
              f"| {cell(broken[1], broken[3], args.timeout)}{conflicts(broken)} | {ratio} "
              f"| {len(what.get('symmetries', []))} symmetries, {what.get('clauses', 0):,} clauses |",
              flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
