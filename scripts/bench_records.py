"""Issue 31's record counts: the 18 one-sided pentominoes in 5x18, 6x15 and 9x10,
up to symmetry (published: 686,628, 2,567,183 and 10,440,433 classes), on a
local cluster of N workers, with a checkpoint that is the whole state.

    python scripts/bench_records.py 5x18 --workers 2 --checkpoint ck/5x18.json --budget 3600
    python scripts/bench_records.py 5x18 --workers 16 --checkpoint ck/5x18.json   # resumed, elsewhere
    python scripts/bench_records.py 9x10 --cluster dask --workers 16 --checkpoint ck/9x10.json --budget 600
    python scripts/bench_records.py --startup --runs 10   # the whole process: --version, 6x10's 2,339 classes
    python scripts/bench_records.py --startup --vs ../before/src   # ... beside another checkout, run for run

A run counts until it ends or its ``--budget`` (seconds) is spent; the same
command with the same checkpoint file (copied to another machine if need be:
it names the instance, method and plan, and records every unit settled, the
splits included) goes on where it stopped, and the run that finishes checks
its classes against the published total.  Each run prints the checkpoint's
progress: units settled and known, raw tilings so far, the CPU its units have
taken in all runs, and the estimate of what is left (Knuth's estimator:
:mod:`tilesat.questions.balance`).  ``--json OUT`` writes the run as a table
(:mod:`bench_table`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_table import load_average, write  # noqa: E402

from tilesat.model.instance import load_instance  # noqa: E402
from tilesat.questions.count import count_tilings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BOARDS = {  # board: (instance file, published classes)
    "5x18": ("instances/long-counts/pentomino-one-sided-5x18.txt", 686_628),
    "6x15": ("instances/long-counts/pentomino-one-sided-6x15.txt", 2_567_183),
    "9x10": ("instances/long-counts/pentomino-one-sided-9x10.txt", 10_440_433),
    "3x30": ("instances/pentominoes-one-sided-3x30.txt", 46),  # seconds: a check of the script itself
}


def checkpoint_totals(path: Path) -> dict:
    """What the checkpoint holds: units settled (and split), the CPU seconds they took in all runs."""
    settled = splits = 0
    cpu = 0.0
    if path.exists():
        for line in path.read_text().splitlines()[1:]:
            try:
                data = json.loads(line)["data"]
            except (ValueError, KeyError):
                continue  # a torn last line: the next run drops it
            settled += 1
            splits += "split" in data
            cpu += data.get("seconds") or 0.0
    return {"settled": settled, "splits": splits, "cpu_seconds": cpu}


def hms(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


#: The third-party libraries a count imports before any of tilesat's own work: the floor of its start-up.
LIBRARIES = "import numpy, typer, typer._adapters, rich.console, pysat.solvers"


def _child_env(src: Path) -> dict:
    """The environment of a timed process: tilesat from ``src``; bytecode caches
    written and read (a user's install has them: without, every module compiles
    at each start, 0.2-0.3 s more)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(src)
    return env


def _timed(argv: list[str], env: dict) -> tuple[float, float, bytes]:
    """Wall and CPU seconds (user + system) of one whole process, and its stdout."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    run = subprocess.run(argv, capture_output=True, check=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, run.stdout


def startup(runs: int, json_out: str | None, vs: Path | None = None) -> None:
    """Issue 31's one-core targets, as whole processes (median of ``runs``, one core
    by taskset where there is one): ``tilesat --version`` <= 0.15 s and the 6x10
    pentominoes' 2,339 classes <= 0.3 s; with the count's own seconds beside, and
    the libraries it imports as a floor.  ``vs``: another checkout's ``src`` timed
    side by side, run for run (ratio = this / that)."""
    import shutil
    import statistics

    script = "import sys; from tilesat.main import main; sys.argv[0] = 'tilesat'; main()"
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    board = str(ROOT / "instances" / "pentomino-6x10.txt")
    cases = [("tilesat --version", ["-c", script, "--version"], 0.15, None),
             ("tilesat count pentomino-6x10.txt --up-to-symmetry",
              ["-c", script, "count", board, "--up-to-symmetry", "--json"], 0.3, 2339),
             (f"python -c '{LIBRARIES}' (the libraries count imports)", ["-c", LIBRARIES], None, None)]
    sources = {"this": ROOT / "src"} | ({"vs": vs.resolve()} if vs is not None else {})
    envs = {name: _child_env(src) for name, src in sources.items()}
    load_at_start = load_average()
    rows = []
    for label, args, target, classes in cases:
        walls = {name: [] for name in sources}
        cpus = {name: [] for name in sources}
        inside = []
        for k in range(runs + 1):  # the first round writes the bytecode caches: not counted
            for name in sources:
                wall, cpu, out = _timed(pin + [sys.executable, *args], envs[name])
                if classes is not None:
                    answer = json.loads(out)
                    assert answer["up_to_symmetry"] == classes, answer
                if k == 0:
                    continue
                walls[name].append(wall)
                cpus[name].append(cpu)
                if classes is not None and name == "this":
                    inside.append(answer["seconds"])
        med = {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in sources}
        wall, cpu = med["this"]
        row = [label, f"{wall:.3f} s", f"{min(walls['this']):.3f} s", f"{cpu:.3f} s",
               f"{statistics.median(inside):.3f} s" if inside else "—"]
        if vs is not None:
            row += [f"{med['vs'][0]:.3f} s", f"{med['vs'][1]:.3f} s", f"{cpu / med['vs'][1]:.2f}"]
        row += [f"<= {target} s" if target else "—",
                ("met" if wall <= target else "not met") if target else ""]
        print(" | ".join(row), flush=True)
        rows.append(row)
    if json_out:
        columns = ["command", "median wall", "fastest", "median CPU", "count's own seconds"]
        if vs is not None:
            columns += ["before: median wall", "before: median CPU", "CPU ratio"]
        write(json_out, title="Start-up and the enumerator on one core: whole processes",
              columns=columns + ["target (issue 31)", ""], rows=rows, load_at_start=load_at_start,
              notes=[f"Median of {runs} runs of the whole process" + (", pinned to one core (taskset)" if pin else "")
                     + " after one run that writes the bytecode caches; CPU = user + system seconds; the count's "
                     "own seconds are its JSON's (placements to the verified total)."
                     + (" Before: the checkout given by --vs, run for run beside this one." if vs is not None else "")])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("board", nargs="?", choices=sorted(BOARDS))
    ap.add_argument("--startup", action="store_true", help="time whole processes instead: --version and 6x10")
    ap.add_argument("--runs", type=int, default=10, help="--startup: runs of each command (default 10)")
    ap.add_argument("--vs", type=Path, metavar="SRC", help="--startup: also time another checkout's src/, side by side")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    ap.add_argument("--cluster", choices=["dask"], help="a local Dask cluster of --workers workers (default: --jobs)")
    ap.add_argument("--checkpoint", type=Path, help="the checkpoint file: the count's state (required with a board)")
    ap.add_argument("--budget", type=float, help="seconds this run may take (default: to the end)")
    ap.add_argument("--json", metavar="OUT", help="also write this run as a table (scripts/bench_table.py)")
    args = ap.parse_args(argv)
    if args.startup:
        startup(args.runs, args.json, args.vs)
        return 0
    if args.board is None or args.checkpoint is None:
        ap.error("a board and --checkpoint are needed (or --startup)")

    name, published = BOARDS[args.board]
    instance = load_instance(ROOT / name)
    before = checkpoint_totals(args.checkpoint)
    load_at_start = load_average()
    last: dict = {}

    def progress(tilings, done, total, forecast=None):
        last.update(tilings=tilings, done=done, total=total, forecast=forecast)

    t = time.perf_counter()
    result = count_tilings(instance, "native", up_to_symmetry=True, jobs=args.workers, cluster=args.cluster,
                           checkpoint=args.checkpoint, timeout=args.budget, certificates=False, progress=progress)
    wall = time.perf_counter() - t
    after = checkpoint_totals(args.checkpoint)
    forecast = last.get("forecast") or {}
    finished = result.exact and result.up_to_symmetry is not None
    where = f"Dask, {args.workers} workers" if args.cluster else f"--jobs {args.workers}"
    print(f"{args.board} one-sided pentominoes, {where}, load {load_at_start:.1f} at the start")
    print(f"this run: {wall:.1f} s wall, {after['settled'] - before['settled']} units settled "
          f"({after['splits'] - before['splits']} split where they stood)"
          + (f", {result.resumed} resumed from the checkpoint" if result.resumed else ""))
    print(f"checkpoint: {after['settled']:,} units settled of {result.units:,} known, {after['splits']:,} splits, "
          f"{after['cpu_seconds']:.0f} CPU seconds in all runs")
    if finished:
        ok = result.up_to_symmetry == published
        print(f"count: {result.count:,} tilings, {result.up_to_symmetry:,} up to symmetry "
              f"({'the published total' if ok else f'NOT the published {published:,}'})")
    else:
        print(f"so far: {last.get('tilings', result.count):,} raw tilings; "
              f"estimated total {forecast.get('tilings') or 0:,.0f} raw (about {published * 4:,} expected), "
              f"time left {hms(forecast.get('seconds_left'))} on {args.workers} workers")
    if args.json:
        status = ("finished: the published total" if finished and result.up_to_symmetry == published
                  else "finished: WRONG" if finished else "stopped at its budget")
        row = [args.board, where, status, f"{result.up_to_symmetry:,}" if finished else "—", f"{published:,}",
               f"{wall:.0f} s", f"{after['cpu_seconds']:.0f} s", f"{after['settled']:,} / {result.units:,}",
               f"{after['splits']:,}", f"{last.get('tilings', result.count):,}",
               "—" if finished else f"{forecast.get('tilings') or 0:,.0f}",
               "—" if finished else hms(forecast.get("seconds_left"))]
        write(args.json, title=f"The 18 one-sided pentominoes in {args.board}, up to symmetry, with a checkpoint",
              columns=["board", "workers", "status", "classes", "published", "this run (wall)",
                       "units' CPU, all runs", "units settled / known", "splits", "raw tilings so far",
                       "estimated raw total", "estimated time left"],
              rows=[row], load_at_start=load_at_start,
              notes=["The checkpoint is the count's state: the same command resumes it, here or on another machine."])
    return 0 if finished and result.up_to_symmetry == published or not finished else 1


if __name__ == "__main__":
    sys.exit(main())
