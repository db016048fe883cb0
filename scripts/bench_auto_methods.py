#!/usr/bin/env python3
"""Which method is fastest, command by command: every file in ``instances/``
(check-unique) and every ``tilesat count`` / ``check-unique`` / ``solve``
example of the README and the docs that names an instance file and leaves
``--method`` to auto, timed with each method that can take it, as the
commands a user types (whole processes, wall clock: start-up included).

    python scripts/bench_auto_methods.py --json-dir docs/benchmarks/data/auto

Writes two tables (``01-find.json``, ``02-count.json``, the format of
``scripts/bench_table.py``): a row per case, a column per method (seconds,
the best of ``--rounds`` runs taken in alternation so that a slow spell of a
shared machine hits every method; ``>N`` where it ran past its cap, ``—``
where the method cannot take the case), the fastest, and what ``auto``
picks today.  ``tests/test_auto_choice.py`` reads them: auto's pick must be
within 2x of the fastest on every row, and every instance file and docs
example must have its row.  ``--only SUBSTRING`` measures some cases again
(the other rows are kept from the existing tables).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIND_METHODS = ("sat", "sweep", "dlx", "xcc")
COUNT_METHODS = ("native", "frontier", "pfaffian", "dlx", "xcc", "ganak", "blocking")
#: Instance files the docs count (Known answers of the grids page, the counting pages) besides
#: their console examples: each counted plainly and --up-to-symmetry.
COUNTED = ("soma-cube.txt", "solid-pentominoes-2x3x10.txt", "hexiamonds-6x6-rhombus.txt", "lozenge-hexagon-3x3x3.txt",
           "tetrahexes-4x7-rhombus.txt", "pentominoes-one-sided-3x30.txt", "pentomino-3x20.txt", "pentomino-4x15.txt",
           "pentomino-5x12.txt", "pentomino-6x10.txt", "pentomino-8x8-center.txt", "torus-x5-5x5.txt",
           "lpanel-12x12.txt", "lpanel-4x8-multiple.txt", "single-pentomino-8x8-L5.txt", "tromino-16x16-hole.txt")
#: Flags of a docs example that make a case of their own (the rest are output options).
CASE_FLAGS = ("--up-to-symmetry", "--pieces", "--wrap", "--limit")


def loads(path: Path) -> bool:
    """Whether tilesat reads the file as an instance (BurrTools files it cannot say yet are left out)."""
    from tilesat import load_instance
    from tilesat.errors import TilesatError

    try:
        load_instance(path)
    except TilesatError:
        return False
    return True


def instance_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "instances").rglob("*")
                  if p.suffix in (".txt", ".py", ".xmpuzzle") and p.is_file() and loads(p))


def docs_examples() -> list[tuple[str, list[str]]]:
    """(command, arguments) of each auto example in the README and docs on an instance file."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_docs import command_lines

    found = []
    for _, args in command_lines():
        if not args or args[0] not in ("count", "check-unique", "solve") or "--method" in args:
            continue
        if any(a in ("--jobs", "-j", "--cluster", "--break-symmetry") for a in args):
            continue  # (--checkpoint does not change the method: such an example is the plain count)
        files = [a for a in args[1:] if a.startswith("instances/")]
        if len(files) != 1 or not (ROOT / files[0]).exists() or not loads(ROOT / files[0]):
            continue  # (an example of an error message)
        case = case_args(args[1:])
        question = "count" if args[0] == "count" else "find"
        if (question, case) not in [(q, c) for q, c in found]:
            found.append((question, case))
    return found


def case_args(args: list[str]) -> list[str]:
    """The instance file and the flags that change the question (values included)."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a.startswith("instances/"):
            out.insert(0, a)
        elif a in CASE_FLAGS:
            out.append(a)
            if a != "--up-to-symmetry":
                out.append(args[i + 1])
                i += 1
        i += 1
    return out


def cases() -> list[tuple[str, list[str]]]:
    found = [("find", [f]) for f in instance_files()]
    found += [("count", [f, "--up-to-symmetry"]) for f in instance_files() if f.endswith(".py")]
    for name in COUNTED:
        found += [("count", [f"instances/{name}"]), ("count", [f"instances/{name}", "--up-to-symmetry"])]
    for case in docs_examples():
        if case not in found:
            found.append(case)
    return found


def label(question: str, args: list[str]) -> str:
    return f"{'check-unique' if question == 'find' else 'count'} {' '.join(args)}"


def applicable(question: str, args: list[str]) -> tuple[list[str], str]:
    """The methods that can take the case, and auto's pick (from the rules, without running)."""
    from tilesat import load_instance
    from tilesat.engines.auto import choose
    from tilesat.engines.base import Job
    from tilesat.engines.registry import get_engine

    file, flags = args[0], args[1:]
    opts = {flag: flags[i + 1] for i, flag in enumerate(flags) if flag in CASE_FLAGS and flag != "--up-to-symmetry"}
    instance = load_instance(ROOT / file, pieces=opts.get("--pieces"), wrap=opts.get("--wrap"))
    limit = int(opts["--limit"]) if "--limit" in opts else None
    job = Job(question, instance, limit=limit, up_to_symmetry="--up-to-symmetry" in flags)
    picked, _ = choose(job)
    names = FIND_METHODS if question == "find" else COUNT_METHODS
    usable = []
    for name in names:
        engine = get_engine(name)
        if question in engine.questions and engine.problem(instance) is None:
            usable.append(name)
    return usable, picked.name


def run_once(question: str, args: list[str], method: str, cap: float) -> float | None:
    """Wall-clock seconds of the command with ``--method``; None past ``cap`` (killed)."""
    command = [sys.executable, "-m", "tilesat", "check-unique" if question == "find" else "count", *args,
               "--method", method, "--timeout", f"{cap:g}"]
    t0 = time.perf_counter()
    try:
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=cap + 30)
    except subprocess.TimeoutExpired:
        return None
    seconds = time.perf_counter() - t0
    if run.returncode == 2:  # the method refused the case after all (a usage error)
        return -1.0
    if run.returncode == 124 or "unknown" in run.stdout.split("\n", 1)[0] or "time limit" in run.stdout:
        return None
    return seconds


def measure(question: str, args: list[str], methods: list[str], rounds: int, cap: float) -> dict:
    best: dict[str, float | None] = {m: None for m in methods}
    capped = set()
    for r in range(rounds):
        for method in methods:
            if method in capped:
                continue
            fastest = min((t for t in best.values() if t and t > 0), default=None)  # finished runs only
            limit = cap if fastest is None else min(cap, max(5.0, 4 * fastest))
            t = run_once(question, args, method, limit)
            if t is None:
                capped.add(method)
                best[method] = -limit  # negative: ran past this many seconds
                continue
            if t < 0:
                capped.add(method)
                best[method] = float("nan")
                continue
            best[method] = t if best[method] is None or best[method] < 0 else min(best[method], t)
        if r == 0 and min((t for t in best.values() if t and t > 0), default=0) > 20:
            break  # slow cases: one round is enough to tell the methods apart
    return best


def cell(t: float | None) -> float | str:
    if t is None or t != t:
        return "—"
    if t < 0:
        return f">{-t:.0f}"
    return round(t, 2)


NOTES = ["Each figure is a whole command's wall clock (start-up included: what a user waits for), the best of "
         "`--rounds` runs taken in alternation; `>N`: stopped after N s (the cap is 4x the fastest so far, at least "
         "5 s); `—`: the method cannot take the case.",
         "`auto` is what `--method auto` picks by the rules of `tilesat.engines.auto` at the commit named; "
         "`tests/test_auto_choice.py` asks the rules again and checks their pick is within 2x of the fastest on "
         "every row."]
TABLES = (("find", "01-find.json", "check-unique on every instance file, by each method", FIND_METHODS),
          ("count", "02-count.json", "count on every counting example of the docs, by each method", COUNT_METHODS))


def write_tables(json_dir: Path, tables: dict, load: float, measured: set[str]) -> None:
    """Write the tables this run measured rows of; a table whose rows were all kept stays as it was
    (its command, load and date are those of the run that measured it)."""
    json_dir.mkdir(parents=True, exist_ok=True)
    for question, name, title, names in TABLES:
        if question not in measured:
            continue
        bench_table.write(json_dir / name, title=title, columns=["case", *names, "fastest", "auto"],
                          rows=tables[question], notes=NOTES, load_at_start=load)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json-dir", type=Path, default=ROOT / "docs" / "benchmarks" / "data" / "auto")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cap", type=float, default=60.0, help="seconds a run may take (then it is stopped)")
    ap.add_argument("--only", help="measure only the cases whose label contains this; keep the other rows")
    ap.add_argument("--resume", action="store_true", help="keep the rows measured already, measure the others")
    args = ap.parse_args(argv)
    load = bench_table.load_average()
    old = {}
    for question, name, _, _ in TABLES:
        path = args.json_dir / name
        if (args.only or args.resume) and path.exists():
            for row in bench_table.load(path)["rows"]:
                old[(question, row[0])] = row
    tables = {"find": [], "count": []}
    measured: set[str] = set()
    for question, case in cases():
        key = label(question, case)
        if (question, key) in old and (args.resume or (args.only and args.only not in key)):
            tables[question].append(old[(question, key)])
            continue
        if args.only and args.only not in key:
            continue
        methods, picked = applicable(question, case)
        best = measure(question, case, methods, args.rounds, args.cap)
        names = FIND_METHODS if question == "find" else COUNT_METHODS
        times = {m: best.get(m) for m in names}
        finite = {m: t for m, t in times.items() if t is not None and t == t and t > 0}
        fastest = min(finite, key=finite.get) if finite else "—"
        row = [key] + [cell(times[m]) for m in names] + [fastest, picked]
        print(json.dumps(row, ensure_ascii=False), flush=True)
        tables[question].append(row)
        measured.add(question)
        write_tables(args.json_dir, tables, load, measured)  # after every row: an interrupted run resumes (--resume)
    write_tables(args.json_dir, tables, load, measured)


if __name__ == "__main__":
    main()
