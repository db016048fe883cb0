"""tilesat against BurrTools' command-line solver ``burrTxt`` on BurrTools files.

Every problem of every ``.xmpuzzle`` file given (folders: their files) that
tilesat counts (the cube grid) is counted twice, one process after the other
on the same machine: ``burrTxt -q -r -o N FILE`` (BurrTools' count of
assemblies, with its placement reduction ``-r``) and the command a user runs,
``tilesat count FILE:N --burrtools-count --json`` (Python's start, the
command line's imports, reading the file, the placements, the symmetry tables
and the compiled exact cover).  The counts must be equal; the times are whole
processes (wall clock, and the CPU time each used), the ratio tilesat / burrTxt.

    python scripts/bench_burrtools.py FOLDER... [--burrtxt PATH] [--timeout 300] [--json OUT]
    python scripts/bench_burrtools.py FOLDER... --methods xcc dlx blocking ganak [--json OUT]

The second form measures tilesat's own count methods against each other on
the problems tilesat's instances can say (every assembly, whole commands).

``burrTxt`` is not part of tilesat: build it from BurrTools' public
repository (docs/guide/burrtools.md says how) and give its path with
``--burrtxt`` or put it on PATH.  Without it the benchmark says so and times
tilesat alone.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_table  # noqa: E402


def timed(command: list[str], timeout: float) -> tuple[str | None, float, float]:
    """(stdout, wall seconds, CPU seconds) of a whole process; stdout None when it ran past the timeout or failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t, float("nan")
    seconds = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return (run.stdout if run.returncode == 0 else None), seconds, cpu


def burrtxt_count(burrtxt: str, path: Path, problem: int, timeout: float) -> tuple[int | None, float, float]:
    out, seconds, cpu = timed([burrtxt, "-q", "-r", "-o", str(problem), str(path)], timeout)
    m = re.search(r"(\d+) assemblies", out or "")
    return (int(m.group(1)) if m else None), seconds, cpu


def tilesat_count(path: Path, problem: int, timeout: float) -> tuple[int | None, float, float]:
    out, seconds, cpu = timed([sys.executable, "-m", "tilesat", "count", f"{path}:{problem}", "--burrtools-count",
                               "--json"], timeout)
    return (json.loads(out)["count"] if out else None), seconds, cpu


def command_count(path: Path, problem: int, method: str, timeout: float) -> tuple[int | str, float]:
    """``tilesat count FILE.xmpuzzle:N --method M --json`` (every assembly: the problem as an instance):
    (the count, or "refused" / "timeout", seconds)."""
    t = time.perf_counter()
    try:
        run = subprocess.run([sys.executable, "-m", "tilesat", "count", f"{path}:{problem}", "--method", method,
                              "--json"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t
    seconds = time.perf_counter() - t
    if run.returncode == 2:
        return "refused", seconds  # the method cannot take the piece counts (one error line)
    data = json.loads(run.stdout)
    return (data["count"] if data.get("exact") else "timeout"), seconds


def compare_methods(files: list[Path], methods: list[str], timeout: float, json_out: str | None) -> None:
    """Each problem tilesat's instances can say (no variable voxels, no colours), counted by
    ``tilesat count`` with each method: whole commands, every assembly, counts compared."""
    from tilesat.errors import TilesatError
    from tilesat.model.instance import load_instance

    load = bench_table.load_average()
    rows, unequal, left_out = [], [], []
    for path in files:
        found = problems(path)
        if isinstance(found, str):
            continue
        for k, name in found:
            label = f"{path.parent.name}/{path.stem}" + (f" #{k}" if len(found) > 1 else "")
            try:
                load_instance(f"{path}:{k}")
            except TilesatError as e:
                left_out.append(f"{label} ({str(e).rsplit(': ', 1)[-1].split(',')[0]})")
                continue
            counts, times = {}, {}
            for method in methods:
                counts[method], times[method] = command_count(path, k, method, timeout)
            known = {c for c in counts.values() if isinstance(c, int)}
            if len(known) > 1:
                unequal.append(f"{label}: {counts}")
            first = methods[0]
            row = [label, next(iter(known)) if len(known) == 1 else "-"]
            for method in methods:
                row.append(f"{times[method]:.2f}" if isinstance(counts[method], int)
                           else (f">{timeout:g}" if counts[method] == "timeout" else "refused"))
            for method in methods[1:]:
                if isinstance(counts[method], int) and isinstance(counts[first], int):
                    row.append(f"{times[method] / times[first]:.1f}")
                elif counts[method] == "timeout" and isinstance(counts[first], int):
                    row.append(f">{timeout / times[first]:.0f}")
                else:
                    row.append("-")
            rows.append(row)
            print(" | ".join(str(c) for c in row), flush=True)
    for line in unequal:
        print(f"COUNTS DIFFER {line}", file=sys.stderr)
    if json_out:
        notes = [
            f"Whole commands one after the other, wall clock: `tilesat count FILE.xmpuzzle:N --method M --json` for M in "
            f"{', '.join(methods)}; the count is every assembly (the problem as a tilesat instance, every rotation apart). "
            f"Ratio: the method's time over {methods[0]}'s. `>T`: no count within the limit; refused: the method cannot take the piece counts (one error line).",
            ("Every count equal." if not unequal else "COUNTS DIFFER: " + "; ".join(unequal)),
        ] + ([f"Left out (tilesat's instances cannot say them yet): {'; '.join(left_out)}."] if left_out else [])
        bench_table.write(json_out, title=f"BurrTools problems as tilesat instances: {', '.join(methods)}",
                          rows=rows, notes=notes, load_at_start=load,
                          columns=["file", "assemblies"] + [f"{m} s" for m in methods]
                          + [f"{m} / {methods[0]}" for m in methods[1:]])
    if unequal:
        sys.exit(1)


def problems(path: Path) -> list[tuple[int, str]] | str:
    """The problems tilesat counts, or why none."""
    from tilesat.errors import TilesatError
    from tilesat.model.xmpuzzle import GRID_NAMES, read_xmpuzzle

    try:
        puzzle = read_xmpuzzle(path)
    except TilesatError as e:
        return str(e)
    if puzzle.grid_type != 0:
        return f"grid type {puzzle.grid_type} ({GRID_NAMES.get(puzzle.grid_type, '?')})"
    return [(k, p.name) for k, p in enumerate(puzzle.problems)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help=".xmpuzzle files or folders of them")
    ap.add_argument("--burrtxt", help="burrTxt's path (default: burrTxt on PATH)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per process (default 300)")
    ap.add_argument("--json", metavar="OUT", help="write the table (scripts/bench_table.py's format)")
    ap.add_argument("--methods", nargs="+", metavar="METHOD",
                    help="instead of burrTxt: tilesat count with these methods on the problems its instances can say")
    args = ap.parse_args()
    files = sorted({f for p in args.paths for f in ([p] if p.is_file() else sorted(p.rglob("*.xmpuzzle")))})
    if args.methods:
        compare_methods(files, args.methods, args.timeout, args.json)
        return
    burrtxt = shutil.which(args.burrtxt or "burrTxt")
    if burrtxt is None:
        print("burrTxt not found (give --burrtxt PATH or put it on PATH): timing tilesat alone", file=sys.stderr)
    load = bench_table.load_average()
    rows, skipped, unequal = [], [], []
    for path in files:
        found = problems(path)
        if isinstance(found, str):
            skipped.append(f"{path.name}: {found}")
            continue
        for k, name in found:
            label = f"{path.parent.name}/{path.stem}" + (f" #{k}" if len(found) > 1 else "")
            ours, t_ours, cpu_ours = tilesat_count(path, k, args.timeout)
            theirs, t_theirs, cpu_theirs = (burrtxt_count(burrtxt, path, k, args.timeout) if burrtxt
                                            else (None, None, None))
            if ours is not None and theirs is not None and ours != theirs:
                unequal.append(f"{label}: tilesat {ours}, burrTxt {theirs}")
            ratio = f"{t_ours / t_theirs:.2f}" if ours is not None and theirs is not None and t_theirs else "-"
            row = [label, name or "-", "-" if theirs is None else theirs, "-" if ours is None else ours,
                   "-" if t_theirs is None else (f"{t_theirs:.2f}" if theirs is not None else f">{args.timeout:g}"),
                   f"{t_ours:.2f}" if ours is not None else f">{args.timeout:g}", ratio,
                   f"{cpu_theirs:.2f}" if theirs is not None else "-", f"{cpu_ours:.2f}" if ours is not None else "-"]
            rows.append(row)
            print(" | ".join(str(c) for c in row), flush=True)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    for line in unequal:
        print(f"COUNTS DIFFER {line}", file=sys.stderr)
    if args.json:
        notes = [
            "Whole processes, one after the other: `burrTxt -q -r -o N FILE` against `tilesat count FILE:N "
            "--burrtools-count --json`; wall clock, and the CPU time (user + system) each process used; ratio = "
            "tilesat / burrTxt, wall clock (below 1: tilesat faster). `-` : no count within the timeout.",
            ("Every count equal." if not unequal else "COUNTS DIFFER: " + "; ".join(unequal)),
        ] + ([f"Not counted by tilesat: {'; '.join(skipped)}."] if skipped else [])
        bench_table.write(args.json, title="BurrTools files: tilesat against burrTxt", rows=rows,
                          columns=["file", "problem", "burrTxt count", "tilesat count", "burrTxt s", "tilesat s",
                                   "ratio", "burrTxt CPU s", "tilesat CPU s"], notes=notes, load_at_start=load)
    if unequal:
        sys.exit(1)


if __name__ == "__main__":
    main()
