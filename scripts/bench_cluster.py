"""Issue 19's benchmark: a count's units on a local Dask cluster of 1 and 2
workers, against the serial run and ``--jobs 2`` (forked processes).

    python scripts/bench_cluster.py            # the three rows of the docs' table (--json OUT: as JSON too)
    python scripts/bench_cluster.py --quick    # 6x10 and 5x12 only
    python scripts/bench_cluster.py --long     # also the 18 one-sided pentominoes in 5x18 (an hour of CPU)
    python scripts/bench_cluster.py --scaling --workers 1,2,4,8,16   # issue 31: parallel efficiency

``--scaling``: the 12 pentominoes and the square in 8x8 up to symmetry (16,146
classes: seconds, for a small machine), the 12 pentominoes and two dominoes in
8x8 (8,946,360 tilings) and the 18 one-sided pentominoes in 5x18 up to symmetry
(686,628 classes) (``--only`` picks one),
each counted with ``--jobs N`` and on a local Dask cluster of N workers for
each N of ``--workers``, in one run: wall seconds, speed-up over the 1-worker
run of the same kind and parallel efficiency (speed-up / N).  A row with
more workers than the machine has cores is written "not measured".

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
SCALING = [("long-counts/pentomino-square-8x8.txt", "native", True, 129_168, 16_146),  # seconds: a 2-core machine
           ("long-counts/pentominoes-dominoes-8x8.txt", "native", False, 8_946_360, None),
           ("long-counts/pentomino-one-sided-5x18.txt", "native", True, 4 * 686_628, 686_628)]


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


def scaling(workers: list[int], kinds: list[str], json_out: str | None, only: str | None) -> None:
    """Issue 31's rows: each instance by --jobs N and Dask N for every N, efficiency against N = 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load_at_start = os.getloadavg()[0]
    print(f"load average before: {load_at_start:.2f} ({cores} cores); python {sys.version.split()[0]}")
    print("| instance | kind | workers | seconds | units (splits) | speed-up | efficiency |")
    print("|---|---|---|---|---|---|---|")
    table = []
    for name, method, sym, raw, classes in SCALING:
        if only and only not in name:
            continue
        inst = load_instance(ROOT / "instances" / name)
        label = Path(name).stem + (", up to symmetry" if sym else "")
        for kind in kinds:
            base = None
            for n in workers:
                if n > cores:
                    row = [label, kind, n, "not measured", "", "", ""]
                    cells = row[3:]
                else:
                    kw = {"jobs": n} if kind == "--jobs" else {"jobs": n, "cluster": "dask"}
                    r, seconds = timed_count(inst, method, sym, **kw)
                    assert r.exact and r.count == raw and (classes is None or r.up_to_symmetry == classes), (n, r)
                    base = seconds if n == 1 else base
                    speedup = base / seconds if base else None
                    cells = [f"{seconds:.1f}", f"{r.units} ({r.splits})",
                             f"{speedup:.2f}" if speedup else "", f"{speedup / n:.0%}" if speedup else ""]
                    row = [label, kind, n] + cells
                table.append(row)
                print("| " + " | ".join(str(c) for c in row) + " |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if json_out:
        import bench_table

        bench_table.write(json_out, title="Parallel efficiency: one count on 1 to 16 workers",
                          columns=["instance", "kind", "workers", "seconds", "units (splits)", "speed-up",
                                   "efficiency"], rows=table,
                          notes=["Wall seconds of the whole library call (placements, estimates, starting the "
                                 "cluster, the units); every count checked against the known answer; one run. "
                                 "Speed-up: the 1-worker run of the same kind over this one; efficiency: "
                                 "speed-up / workers.",
                                 f"Rows with more workers than this machine's {cores} cores: not measured."],
                          load_at_start=load_at_start)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="6x10 and 5x12 only")
    ap.add_argument("--long", action="store_true", help="also the 18 one-sided pentominoes in 5x18")
    ap.add_argument("--scaling", action="store_true", help="issue 31's rows: parallel efficiency by workers")
    ap.add_argument("--workers", default="1,2,4,8,16", help="--scaling: the numbers of workers (default 1,2,4,8,16)")
    ap.add_argument("--kinds", default="--jobs,dask", help="--scaling: --jobs, dask or both (default both)")
    ap.add_argument("--only", help="--scaling: only the instance whose file name holds this")
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON (scripts/bench_table.py's format)")
    args = ap.parse_args(argv)
    if args.scaling:
        scaling([int(w) for w in args.workers.split(",")], args.kinds.split(","), args.json, args.only)
        return
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
