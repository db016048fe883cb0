#!/usr/bin/env python3
"""The Polyomino Tiler's heuristics and their SAT analogues, each on and off
(issue 15): check-unique on hard open boards and on designed puzzles, one
configuration at a time, against plain CaDiCaL (tilesat's default) and CP-SAT.

Each configuration is one portfolio member (:class:`tilesat.engines.portfolio.Config`)
run alone, in its own process, under a per-run time limit:

- encoding (the Tiler's "most constrained cell first" has its SAT analogue in
  how the exactly-one constraint of a cell propagates: commander, ladder, bitwise);
- CaDiCaL's options: its default, and the ``--sat`` set
  (stabilizeonly=1, elimreleff=10, subsumereleff=60);
- initial phases: CaDiCaL's default (every placement true first) and all false
  (the Tiler places one piece at a time; "false" lets propagation place them);
- random restarts: the same run with another seed (``seed=7``); a portfolio of
  two seeds is the best of both columns;
- splitting the board into independent regions and at cut cells: counted
  (regions, articulation cells), since it only helps where the board falls apart.

    python scripts/ablation_hard.py --sizes 45 --seeds 1 2 3 4 5 6 --timeout 60
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hard import cpsat_unique  # noqa: E402
from make_hard_boards import random_packing  # noqa: E402

from tilesat import load_instance  # noqa: E402
from tilesat.running.control import TimedOut, time_limit  # noqa: E402
from tilesat.sat.options import SatOptions  # noqa: E402
from tilesat.model.placements import generate_placements  # noqa: E402
from tilesat.engines.portfolio import SAT_OPTIONS, Config, race_tilings  # noqa: E402

INSTANCES = Path(__file__).resolve().parent.parent / "instances"
DESIGNED = ["lpanel-20x20.txt", "lpanel-gen-30x30.txt", "lpanel-gen-40x40.txt"]

CONFIGS = [
    Config("plain (commander)", "commander"),
    Config("ladder", "ladder"),
    Config("bitwise", "bitwise"),
    Config("commander --sat", "commander", SAT_OPTIONS),
    Config("ladder --sat", "ladder", SAT_OPTIONS),
    Config("commander, false phases", "commander", (("phase", 0),)),
    Config("ladder --sat, false phases", "ladder", SAT_OPTIONS + (("phase", 0),)),
    Config("commander, seed 7 (a restart)", "commander", (("seed", 7),)),
]


def one_run(instance, config: Config, timeout: float) -> tuple[str, float]:
    """check-unique by one configuration alone (a portfolio of one), in a child process."""
    placements = generate_placements(instance)
    found: list = []
    t0 = time.perf_counter()
    try:
        with time_limit(timeout):
            race_tilings(placements, 2, [config], SatOptions("auto", "cadical195", "seqcounter"), found)
    except TimedOut:
        return "unknown", time.perf_counter() - t0
    return {0: "none", 1: "unique"}.get(len(found), "multiple"), time.perf_counter() - t0


def regions_and_cuts(instance) -> tuple[int, int]:
    """Edge-connected regions of open cells, and articulation cells (cut cells) among them."""
    import networkx as nx

    open_ = instance.board.open
    g = nx.Graph()
    R, C = open_.shape
    for r in range(R):
        for c in range(C):
            if open_[r, c]:
                g.add_node((r, c))
                for dr, dc in ((0, 1), (1, 0)):
                    if r + dr < R and c + dc < C and open_[r + dr, c + dc]:
                        g.add_edge((r, c), (r + dr, c + dc))
    return nx.number_connected_components(g), sum(1 for _ in nx.articulation_points(g))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pieces", default="L4")
    ap.add_argument("--sizes", type=int, nargs="+", default=[45])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--no-designed", action="store_true", help="skip the designed puzzles")
    ap.add_argument("--only", nargs="+", type=int, metavar="K",
                    help="only these configurations, by their column number from 1 (CP-SAT always runs)")
    args = ap.parse_args(argv)
    configs = [c for k, c in enumerate(CONFIGS, 1) if not args.only or k in args.only]
    cpsat_unique(random_packing(8, args.pieces, 1)[0], 1, 10)  # CP-SAT's first-call set-up, before timing
    boards = [(f"{args.pieces} {n}x{n} s{s}", random_packing(n, args.pieces, s)[0]) for n in args.sizes for s in args.seeds]
    if not args.no_designed:
        boards += [(name, load_instance(INSTANCES / name)) for name in DESIGNED]
    names = [c.name for c in configs] + ["CP-SAT 1 worker"]
    print(f"{os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.2f}; one run each, "
          f"{args.timeout:g} s limit, seconds\n")
    print("| board | regions | cut cells | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    times: dict[str, dict[str, float]] = {n: {} for n in names}
    for k, (label, instance) in enumerate(boards):
        regions, cuts = regions_and_cuts(instance)
        row, verdicts = {}, set()
        order = names[k % len(names):] + names[:k % len(names)]  # rotate: load falls on all alike
        for name in order:
            if name.startswith("CP-SAT"):
                t0 = time.perf_counter()
                verdict, _ = cpsat_unique(instance, 1, args.timeout)
                seconds = time.perf_counter() - t0
            else:
                verdict, seconds = one_run(instance, next(c for c in configs if c.name == name), args.timeout)
            if verdict != "unknown":
                verdicts.add(verdict)
            times[name][label] = seconds if verdict != "unknown" else args.timeout
            row[name] = f">{args.timeout:g}" if verdict == "unknown" else f"{seconds:.1f}"
        if len(verdicts) > 1:
            raise SystemExit(f"BUG: {label}: configurations disagree: {verdicts}")
        print(f"| {label} | {regions} | {cuts} | " + " | ".join(row[n] for n in names) + " |", flush=True)
    hard = [label for label, _ in boards if label not in DESIGNED]
    for group, labels in (("hard boards", hard), ("designed puzzles", [b for b in DESIGNED if not args.no_designed])):
        if not labels:
            continue
        print(f"| **median, {group}** | | | " + " | ".join(
            f"{statistics.median(times[n][b] for b in labels):.1f}" for n in names) + " |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; timeouts count as the limit; run: {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
