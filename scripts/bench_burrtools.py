"""tilesat against BurrTools' command-line solver ``burrTxt`` on BurrTools files.

Every problem of every ``.xmpuzzle`` file given (folders: their files) that
tilesat counts (the cube grid) is counted twice, one process after the other
on the same machine: ``burrTxt -q -r -o N FILE`` (BurrTools' count of
assemblies, with its placement reduction ``-r``) and a tilesat process doing
the same (this script with ``--one FILE N``: Python's start, tilesat's
imports, reading the file, the placements, the symmetry tables and the
compiled exact cover, ``tilesat.questions.burrtools``).  The counts must be
equal; the times are whole processes (wall clock), the ratio tilesat / burrTxt.

    python scripts/bench_burrtools.py FOLDER... [--burrtxt PATH] [--timeout 300] [--json OUT]

``burrTxt`` is not part of tilesat: build it from BurrTools' public
repository (docs/guide/burrtools.md says how) and give its path with
``--burrtxt`` or put it on PATH.  Without it the benchmark says so and times
tilesat alone.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_table  # noqa: E402


def one(path: str, problem: int) -> None:
    """The tilesat side, in a process of its own: print the count."""
    from tilesat.engines.xcc import count
    from tilesat.model.xmpuzzle import read_xmpuzzle
    from tilesat.questions.burrtools import burr_cover

    print(count(burr_cover(read_xmpuzzle(path), problem).cover).count)


def timed(command: list[str], timeout: float) -> tuple[str | None, float]:
    """(stdout, seconds) of a whole process; stdout None when it ran past the timeout or failed."""
    t = time.perf_counter()
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t
    seconds = time.perf_counter() - t
    return (run.stdout if run.returncode == 0 else None), seconds


def burrtxt_count(burrtxt: str, path: Path, problem: int, timeout: float) -> tuple[int | None, float]:
    out, seconds = timed([burrtxt, "-q", "-r", "-o", str(problem), str(path)], timeout)
    m = re.search(r"(\d+) assemblies", out or "")
    return (int(m.group(1)) if m else None), seconds


def tilesat_count(path: Path, problem: int, timeout: float) -> tuple[int | None, float]:
    out, seconds = timed([sys.executable, __file__, "--one", str(path), str(problem)], timeout)
    return (int(out.split()[-1]) if out and out.split() else None), seconds


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
    ap.add_argument("--one", nargs=2, metavar=("FILE", "PROBLEM"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]))
        return
    burrtxt = shutil.which(args.burrtxt or "burrTxt")
    if burrtxt is None:
        print("burrTxt not found (give --burrtxt PATH or put it on PATH): timing tilesat alone", file=sys.stderr)
    files = sorted({f for p in args.paths for f in ([p] if p.is_file() else sorted(p.rglob("*.xmpuzzle")))})
    load = bench_table.load_average()
    rows, skipped, unequal = [], [], []
    for path in files:
        found = problems(path)
        if isinstance(found, str):
            skipped.append(f"{path.name}: {found}")
            continue
        for k, name in found:
            label = f"{path.parent.name}/{path.stem}" + (f" #{k}" if len(found) > 1 else "")
            ours, t_ours = tilesat_count(path, k, args.timeout)
            theirs, t_theirs = burrtxt_count(burrtxt, path, k, args.timeout) if burrtxt else (None, None)
            if ours is not None and theirs is not None and ours != theirs:
                unequal.append(f"{label}: tilesat {ours}, burrTxt {theirs}")
            ratio = f"{t_ours / t_theirs:.2f}" if ours is not None and theirs is not None and t_theirs else "-"
            row = [label, name or "-", "-" if theirs is None else theirs, "-" if ours is None else ours,
                   "-" if t_theirs is None else (f"{t_theirs:.2f}" if theirs is not None else f">{args.timeout:g}"),
                   f"{t_ours:.2f}" if ours is not None else f">{args.timeout:g}", ratio]
            rows.append(row)
            print(" | ".join(str(c) for c in row), flush=True)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    for line in unequal:
        print(f"COUNTS DIFFER {line}", file=sys.stderr)
    if args.json:
        notes = [
            "Whole processes, one after the other, wall clock: `burrTxt -q -r -o N FILE` against a Python "
            "process that reads the file and counts the problem with tilesat (`--one FILE N`); ratio = tilesat / burrTxt "
            "(below 1: tilesat faster). `-` : no count within the timeout.",
            ("Every count equal." if not unequal else "COUNTS DIFFER: " + "; ".join(unequal)),
        ] + ([f"Not counted by tilesat: {'; '.join(skipped)}."] if skipped else [])
        bench_table.write(args.json, title="BurrTools files: tilesat against burrTxt", rows=rows,
                          columns=["file", "problem", "burrTxt count", "tilesat count", "burrTxt s", "tilesat s",
                                   "ratio"], notes=notes, load_at_start=load)
    if unequal:
        sys.exit(1)


if __name__ == "__main__":
    main()
