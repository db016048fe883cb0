"""Issue 19's benchmark: a count's units on a local Dask cluster of 1 and 2
workers, against the serial run and ``--jobs 2`` (forked processes).

    python scripts/bench_cluster.py            # the three rows of the docs' table (--json OUT: as JSON too)
    python scripts/bench_cluster.py --quick    # 6x10 and 5x12 only
    python scripts/bench_cluster.py --long     # also the 18 one-sided pentominoes in 5x18 (an hour of CPU)

Each row: the instance, the method, the count (checked against the known
answer), and seconds (wall, the whole library call: placements, starting
the cluster, the units): serial, ``--jobs 2``, Dask with 1 worker, Dask with
2 workers, and the ratio dask-1 / dask-2.  Then the units' sizes (seconds
each, measured where they ran: min, median, 90th percentile, max, and the
sum, i.e. the CPU the count needs) and Dask's overhead per unit: (wall of
the 1-worker run - starting the cluster - the units' own seconds) / units.
Starting a local cluster is timed alone first.  The machine's load average
is printed: the figures are ratios measured in one run, under that load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from tilesat.running.cluster import DaskRunner
from tilesat.questions.count import count_tilings
from tilesat.model.instance import load_instance

ROOT = Path(__file__).resolve().parent.parent
# (instance file, method, up to symmetry, known raw count, known classes)
ROWS = [
    ("pentomino-6x10.txt", "native", True, 9356, 2339),
    ("pentomino-5x12.txt", "native", True, 4040, 1010),
    ("long-counts/pentomino-square-8x8.txt", "dlx", False, 129168, None),  # 16,146 classes (Scott's problem, square anywhere)
]
LONG = [("long-counts/pentomino-one-sided-5x18.txt", "native", False, 4 * 686628, None)]


def timed_count(inst, method, sym, **kw):
    t = time.perf_counter()
    r = count_tilings(inst, method, up_to_symmetry=sym, certificates=False, **kw)
    return r, time.perf_counter() - t


def cluster_start_seconds(workers: int) -> float:
    t = time.perf_counter()
    with DaskRunner(workers) as runner:
        runner.start()
        return time.perf_counter() - t


def sizes(seconds: list[float]) -> str:
    s = sorted(x for x in seconds if x is not None)
    p90 = s[min(len(s) - 1, int(0.9 * len(s)))]
    return (f"{len(s)} units: min {s[0]:.3f} s, median {statistics.median(s):.3f} s, p90 {p90:.3f} s, "
            f"max {s[-1]:.3f} s, sum {sum(s):.1f} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="6x10 and 5x12 only")
    ap.add_argument("--long", action="store_true", help="also the 18 one-sided pentominoes in 5x18")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    rows = ROWS[:2] if args.quick else ROWS + (LONG if args.long else [])
    load_at_start = os.getloadavg()[0]
    print(f"load average before: {load_at_start:.2f} ({os.cpu_count()} cores); python {sys.version.split()[0]}")
    start = {w: cluster_start_seconds(w) for w in (1, 2)}
    table = []
    print(f"starting a local cluster: {start[1]:.2f} s (1 worker), {start[2]:.2f} s (2 workers)")
    print()
    print("| instance | method | count | serial | --jobs 2 | dask, 1 worker | dask, 2 workers | 1 / 2 workers |")
    print("|---|---|---|---|---|---|---|---|")
    details = []
    for name, method, sym, raw, classes in rows:
        inst = load_instance(ROOT / "instances" / name)
        runs = {}
        for label, kw in (("serial", {}), ("jobs2", {"jobs": 2}), ("dask1", {"cluster": "dask", "jobs": 1}),
                          ("dask2", {"cluster": "dask", "jobs": 2})):
            r, seconds = timed_count(inst, method, sym, **kw)
            assert r.exact and r.count == raw and (classes is None or r.up_to_symmetry == classes), (label, r)
            runs[label] = (r, seconds)
        what = f"{raw:,}" + (f" ({classes:,} classes)" if classes else "")
        cells = " | ".join(f"{runs[k][1]:.1f} s" for k in ("serial", "jobs2", "dask1", "dask2"))
        ratio = runs["dask1"][1] / runs["dask2"][1]
        print(f"| {name} | {method} | {what} | {cells} | {ratio:.2f} |", flush=True)
        table.append([name, method, what] + [f"{runs[k][1]:.1f} s" for k in ("serial", "jobs2", "dask1", "dask2")]
                     + [f"{ratio:.2f}"])
        one, wall = runs["dask1"]
        work = sum(x for x in one.unit_seconds if x is not None)
        overhead = (wall - start[1] - work) / one.units
        details.append(f"{name}: {sizes(one.unit_seconds)}; dask overhead per unit {overhead * 1000:.0f} ms "
                       f"(1 worker: {wall:.1f} s wall - {start[1]:.1f} s start - {work:.1f} s in units, "
                       f"over {one.units} units)")
    print()
    for line in details:
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        import bench_table

        bench_table.write(args.json, title="Units on --jobs and on a Dask cluster",
                          columns=["instance", "method", "count", "serial", "`--jobs 2`", "dask, 1 worker",
                                   "dask, 2 workers", "1 / 2 workers"], rows=table,
                          notes=["Wall seconds of the whole library call, placements and starting the cluster "
                                 "included; every count checked against the known answer; one run.",
                                 f"Starting a local cluster took {start[1]:.1f} s (1 worker) and {start[2]:.1f} s "
                                 "(2 workers)."] + [f"Units (1 worker), {line}" for line in details],
                          load_at_start=load_at_start)


if __name__ == "__main__":
    main()
