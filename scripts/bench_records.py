"""Issue 31's record counts: the 18 one-sided pentominoes in 5x18, 6x15 and 9x10,
up to symmetry (published: 686,628, 2,567,183 and 10,440,433 classes), on a
local cluster of N workers, with a checkpoint that is the whole state.

    python scripts/bench_records.py 5x18 --workers 2 --checkpoint ck/5x18.json --budget 3600
    python scripts/bench_records.py 5x18 --workers 16 --checkpoint ck/5x18.json   # resumed, elsewhere
    python scripts/bench_records.py 9x10 --cluster dask --workers 16 --checkpoint ck/9x10.json --budget 600
    python scripts/bench_records.py --startup --runs 10   # the whole process: --version, 6x10's 2,339 classes
    python scripts/bench_records.py --startup --vs ../before/src   # ... beside another checkout, run for run
    python scripts/bench_records.py 9x10 --forecast --before OLD --budget 120 --workers 2   # the forecast, old vs this
    python scripts/bench_records.py --peer 'PEER {board}' --runs 5   # the pentomino rectangles beside other enumerators

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
LIBRARIES = "import numpy, typer, pysat.solvers"


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


#: The 12 pentominoes' boards a peer enumerator is timed on: (instance, classes).
PEER_BOARDS = {"6x10": ("pentomino-6x10.txt", 2339), "5x12": ("pentomino-5x12.txt", 1010),
               "4x15": ("pentomino-4x15.txt", 368), "3x20": ("pentomino-3x20.txt", 2),
               "8x8": ("pentomino-8x8-center.txt", 65)}


def peer(commands: list[str], runs: int, json_out: str | None) -> None:
    """tilesat's native enumerator beside other pentomino enumerators, whole processes pinned to
    one core (median of ``runs``, interleaved): each command, with ``{board}`` (6x10, 5x12, 4x15,
    3x20, 8x8: the 2x2 hole in the centre), counts the classes up to symmetry and prints, as its
    last line, the count then its own search seconds; tilesat's own seconds are its JSON's."""
    import shlex
    import statistics
    import subprocess

    tilesat = [sys.executable, "-c", "import sys; from tilesat.main import main; sys.argv[0] = 'tilesat'; main()"]
    pin = ["taskset", "-c", "0"] if subprocess.run(["which", "taskset"], capture_output=True).returncode == 0 else []
    load_at_start = load_average()
    rows = []
    for board, (name, classes) in PEER_BOARDS.items():
        who = {"tilesat": tilesat + ["count", str(ROOT / "instances" / name), "--method", "native",
                                     "--up-to-symmetry", "--json"]}
        who.update((c, shlex.split(c.format(board=board))) for c in commands)
        times = {w: ([], []) for w in who}
        for _ in range(runs):  # interleaved: a change of load hits every tool alike
            for w, args in who.items():
                t = time.perf_counter()
                out = subprocess.run(pin + args, capture_output=True, text=True, check=True).stdout
                times[w][0].append(time.perf_counter() - t)
                if w == "tilesat":
                    answer = json.loads(out)
                    found, inside = answer["up_to_symmetry"], answer["seconds"]
                else:
                    found, inside = out.strip().splitlines()[-1].split()[:2]
                    found, inside = int(found), float(inside)
                assert found == classes, (w, board, found)
                times[w][1].append(inside)
        tw, ti = (statistics.median(v) for v in times["tilesat"])
        for c in commands:
            pw, pi = (statistics.median(v) for v in times[c])
            row = [board, f"{classes:,}", c.split()[0], f"{ti:.3f} s", f"{pi:.3f} s", f"{ti / pi:.2f}",
                   f"{tw:.3f} s", f"{pw:.3f} s", f"{tw / pw:.2f}"]
            print(" | ".join(row), flush=True)
            rows.append(row)
    if json_out:
        write(json_out, title="The 12 pentominoes' rectangles: tilesat's enumerator beside published ones",
              columns=["board", "classes", "peer", "tilesat's own seconds", "peer's own seconds", "ratio",
                       "tilesat whole process", "peer whole process", "ratio"],
              rows=rows, load_at_start=load_at_start,
              notes=[f"Median of {runs} runs of each whole process, interleaved"
                     + (", pinned to one core (taskset)" if pin else "")
                     + "; own seconds: tilesat's JSON (placements to the verified count), the peer's own timer "
                     "(its search); ratio: tilesat / peer. Every count checked against the published one."])


#: A count run for its forecasts: each progress report as a JSON line (seconds, raw tilings, forecast).
FORECAST_CHILD = """
import json, sys, time
from tilesat.model.instance import load_instance
from tilesat.questions.count import count_tilings
name, workers, budget, checkpoint = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
t0 = time.perf_counter()
def progress(tilings, done, total, forecast=None):
    print(json.dumps([time.perf_counter() - t0, tilings, forecast]), flush=True)
count_tilings(load_instance(name), "native", up_to_symmetry=True, jobs=workers, checkpoint=checkpoint,
              timeout=budget, certificates=False, progress=progress)
"""


def forecasts(board: str, workers: int, budget: float, before: Path, json_out: str | None) -> None:
    """The forecast of a count from an empty checkpoint, by the code in ``before`` (a checkout
    whose src/ has its extensions built) and by this checkout, one after the other: at a few
    moments of each run, the raw tilings counted, the expected raw total and the time left,
    against the published total (its raw tilings are at most 4 a class: Burnside's lemma)."""
    import subprocess
    import tempfile

    name, published = BOARDS[board]
    truth = 4 * published
    marks = [m for m in (15, 30, 60, 120, 240, 480) if m < budget] + [budget]
    load_at_start = load_average()
    rows = []
    for label, src in (("before", before / "src"), ("this code", ROOT / "src")):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PYTHONPATH": str(src)}
            run = subprocess.run([sys.executable, "-c", FORECAST_CHILD, str(ROOT / name), str(workers), str(budget),
                                  str(Path(tmp) / "c.jsonl")], capture_output=True, text=True, env=env, check=True)
        reports = [json.loads(line) for line in run.stdout.splitlines()]
        for mark in marks:
            seen = [r for r in reports if r[0] <= mark + 1 and r[2]]
            if not seen:
                continue
            t, tilings, forecast = seen[-1]
            row = [label, f"{mark:.0f} s", f"{tilings:,}", f"{forecast['tilings']:,.0f}",
                   f"{forecast['tilings'] / truth:.1%}", hms(forecast["seconds_left"])]
            print(" | ".join(row), flush=True)
            rows.append(row)
    if json_out:
        write(json_out, title=f"The forecast of the {board} count: the expected total and time left, before and now",
              columns=["code", "into the run", "raw tilings counted", "forecast raw total",
                       f"of {truth:,} (4 x published)", "forecast time left"],
              rows=rows, load_at_start=load_at_start,
              notes=[f"Two runs of {budget:.0f} s, one after the other, each from an empty checkpoint, --jobs {workers}: "
                     f"'before' is the code checked out in --before ({before.name}), 'this code' this checkout; "
                     "each row is the last progress report at that moment."])


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
    ap.add_argument("--peer", metavar="COMMAND", action="append",
                    help="time another enumerator beside tilesat's ({board} in it); repeat for more")
    ap.add_argument("--forecast", action="store_true",
                    help="the forecast by the code in --before and by this checkout, side by side (with --budget)")
    ap.add_argument("--before", type=Path, help="--forecast: a checkout of the code to compare with")
    ap.add_argument("--json", metavar="OUT", help="also write this run as a table (scripts/bench_table.py)")
    args = ap.parse_args(argv)
    if args.startup:
        startup(args.runs, args.json, args.vs)
        return 0
    if args.peer:
        peer(args.peer, args.runs, args.json)
        return 0
    if args.forecast:
        if args.board is None or args.before is None or args.budget is None:
            ap.error("--forecast needs a board, --before and --budget")
        forecasts(args.board, args.workers, args.budget, args.before, args.json)
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
