#!/usr/bin/env python3
"""What each part of the find path buys on the many-family boards (issue 29):
time (and conflicts) to the first tiling, on the TUNING set of
scripts/hard_families.py (the report set is bench_families.py's), one run
each per board and variant in rotating order.

Variants, each from the placements (made before the clock starts):

* ``one CDCL run``: the whole-board formula, CaDiCaL as ``--method sat`` runs it
  (encoding auto, its default options), no look-ahead;
* ``one CDCL run + look-ahead``: the same with "not p" for every placement the
  look-ahead (tilesat.engines.prune) finds in no tiling (its time included);
* ``first sweep``: tilesat.engines.sweep.Sweep, the anti-diagonal sweep that undoes
  whole steps and widens (issue 15's), no look-ahead;
* ``repairing sweep``: tilesat.engines.repair_sweep.RepairSweep without the look-ahead, its
  tiling's piece counts mended box by box (tilesat.engines.local_change.mend_counts);
* ``repairing sweep + look-ahead``: what ``--method sweep`` runs now.

    python scripts/ablation_families.py --families L4-random-60 L4-clusters-60 --boards 3 --timeout 60
    python scripts/ablation_families.py --json docs/benchmarks/data/hard-families/02-ablation.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hard_families import FAMILIES, TUNING_SEEDS  # noqa: E402

from tilesat.certify.verify import verify_tiling  # noqa: E402
from tilesat.engines.local_change import mend_counts  # noqa: E402
from tilesat.engines.prune import prune  # noqa: E402
from tilesat.engines.repair_sweep import RepairSweep  # noqa: E402
from tilesat.engines.sweep import Sweep, SweepStats, counts_hold, window_encoding  # noqa: E402
from tilesat.model.placements import generate_placements  # noqa: E402
from tilesat.model.tiling import Tiling, tiling_from_model  # noqa: E402
from tilesat.running.control import TimedOut, time_limit  # noqa: E402
from tilesat.sat.formula import compile_formula, resolve_encoding  # noqa: E402
from tilesat.sat.solvers import default_options, make_solver  # noqa: E402

VARIANTS = ("one CDCL run", "one CDCL run + look-ahead", "first sweep", "repairing sweep",
            "repairing sweep + look-ahead")


def first_tiling(variant: str, placements, timeout: float) -> tuple[float | None, int, bool]:
    """(seconds to a checked first tiling or None, conflicts, whether the time limit passed)."""
    instance = placements.instance
    encoding = resolve_encoding("auto", placements)
    t0 = time.perf_counter()
    conflicts = 0
    try:
        with time_limit(timeout):
            alive = prune(placements).alive if variant.endswith("look-ahead") else None
            if variant.startswith("one CDCL run"):
                with make_solver("cadical195") as solver:
                    solver.configure(default_options("cadical195", placements.candidates_per_cell()))
                    solver.add_formula(compile_formula(placements, encoding))
                    for p in [] if alive is None else np.flatnonzero(~alive).tolist():
                        solver.add_clause([-(p + 1)])
                    found = solver.solve()
                    conflicts = int(solver.stats().get("conflicts") or 0)
                    chosen = tiling_from_model(placements, solver.model())[1] if found else None
            else:
                stats = SweepStats()
                if variant == "first sweep":
                    chosen = Sweep(placements, window_encoding(encoding), stats=stats).run()
                else:
                    chosen = RepairSweep(placements, window_encoding(encoding), stats=stats, alive=alive).run()
                if chosen is not None and variant.startswith("repairing sweep"):  # as the search mends them
                    chosen = mend_counts(placements, chosen, window_encoding(encoding), stats, alive=alive)
                conflicts = stats.conflicts
                if chosen is not None and not counts_hold(placements, chosen):
                    chosen = None
    except TimedOut:
        return None, conflicts, True
    if chosen is None:
        return None, conflicts, False  # gave up: the whole-board run would go on (not timed here)
    verify_tiling(instance, Tiling.from_placements(placements, chosen))
    return time.perf_counter() - t0, conflicts, False


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=[f for f, fam in FAMILIES.items() if fam.order not in
                                                      ("designed", "blocked", "blocked-balanced")],
                    choices=list(FAMILIES), metavar="FAMILY")
    ap.add_argument("--boards", type=int, default=3, help="the first N boards of the tuning set (default 3)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS, metavar="VARIANT")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    import bench_table

    load0 = bench_table.load_average()
    variants = args.variants
    print(f"load average {load0:.2f}; tuning set, first {args.boards} boards; {args.timeout:g} s limit; "
          "seconds to the first tiling (conflicts); '-' the method gave up (proves nothing)\n")
    print("| family | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    rows, rotation = [], 0
    for name in args.families:
        times: dict[str, list] = {v: [] for v in variants}
        cells: dict[str, list[str]] = {v: [] for v in variants}
        for seed in TUNING_SEEDS[: args.boards]:
            placements = generate_placements(FAMILIES[name].board(seed)[0])
            order = variants[rotation % len(variants):] + variants[: rotation % len(variants)]
            rotation += 1
            for v in order:
                seconds, conflicts, late = first_tiling(v, placements, args.timeout)
                times[v].append(args.timeout if seconds is None else seconds)
                cells[v].append(f">{args.timeout:g}" if late else "-" if seconds is None
                                else f"{seconds:.1f} ({conflicts:,})")
        row = [name] + [f"{statistics.median(times[v]):.1f}: " + ", ".join(cells[v]) for v in variants]
        rows.append(row)
        print("| " + " | ".join(row) + " |", flush=True)
    if args.json:
        bench_table.write(
            args.json, title="What each part of the find path buys: time to the first tiling by family (tuning set)",
            columns=["family"] + variants, rows=rows,
            notes=["Each cell: the median in seconds (a run past the limit or a sweep that gave up counts as the "
                   "limit), then each board's seconds (conflicts); '-' a sweep that gave up (the whole-board run "
                   "would go on), '>T' past the limit. Placements are made before the clock starts; the look-ahead's "
                   "time is inside it. Boards: scripts/hard_families.py, tuning seeds."],
            load_at_start=load0)


if __name__ == "__main__":
    main()
