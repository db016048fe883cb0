"""One benchmark table as JSON: what the bench scripts write with ``--json OUT`` and what
``scripts/bench_pages.py`` renders into the pages of ``docs/benchmarks/``.

    {
      "title":   "check-unique on twenty 60x60 L4 boards",     what was measured
      "command": "python scripts/bench_hard.py --sizes 60 ...",  how to measure it again
      "machine": "x86_64, 2 cores, Python 3.11.7, OR-Tools 9.15",
      "load":    "load average 0.59 at the start, 1.01 at the end",
      "date":    "2026-11-23",                                    or "not stated"
      "commit":  "54c21ac",                                       the code measured (optional)
      "columns": ["board", "open cells", "tilesat --jobs 1"],
      "rows":    [["L4 60x60 s1", 3356, 3.5], ...],               cells shown as written
      "notes":   ["what the figures say, how they were taken"]   markdown, one item each
    }

A table goes on the page named by its folder: ``docs/benchmarks/data/PAGE/NAME.json``, in the
order of the file names.  Figures are never edited by hand in the pages: measure, write the
JSON (``--json``), put it in its folder and run ``python scripts/bench_pages.py``.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

KEYS = ("title", "command", "machine", "load", "date", "columns", "rows", "notes")
OPTIONAL = ("commit",)
ROOT = Path(__file__).resolve().parent.parent


def machine(*extra: str) -> str:
    """The machine in words: architecture, CPU, cores, Python, and what the caller adds (versions)."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    words = [platform.machine(), cpu, f"{cores} cores", f"Python {platform.python_version()}", *extra]
    return ", ".join(w for w in words if w)


def load_average() -> float:
    return os.getloadavg()[0]


def commit() -> str:
    """The code measured: the work tree's commit, marked ``+changes`` when it has uncommitted edits."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("+changes" if dirty else "")


def command_line() -> str:
    """How this script was run, as a command to type again."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(ROOT)
    except ValueError:
        pass
    return shlex.join(["python", str(script), *sys.argv[1:]])


def write(path: str | os.PathLike, *, title: str, columns: list[str], rows: list[list], notes=(),
          load_at_start: float, machine_words: str | None = None) -> None:
    """Write one table in the format above; the command, machine, date and commit are this run's."""
    table = {
        "title": title,
        "command": command_line(),
        "machine": machine_words or machine(),
        "load": f"load average {load_at_start:.2f} at the start, {load_average():.2f} at the end",
        "date": time.strftime("%Y-%m-%d"),
        "commit": commit(),
        "columns": list(columns),
        "rows": [list(row) for row in rows],
        "notes": list(notes),
    }
    validate(table, path)
    Path(path).write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")


def validate(table: dict, where) -> None:
    """Raise ValueError naming ``where`` unless ``table`` has the format above."""
    missing = [k for k in KEYS if k not in table]
    unknown = [k for k in table if k not in KEYS + OPTIONAL]
    if missing or unknown:
        raise ValueError(f"{where}: missing {missing}, unknown {unknown}")
    for key in ("title", "command", "machine", "load", "date"):
        if not isinstance(table[key], str) or not table[key].strip():
            raise ValueError(f"{where}: {key!r} must be a non-empty string (say 'not stated' if unknown)")
    if not table["columns"] or not all(isinstance(c, str) for c in table["columns"]):
        raise ValueError(f"{where}: 'columns' must be a list of strings")
    for i, row in enumerate(table["rows"]):
        if len(row) != len(table["columns"]):
            raise ValueError(f"{where}: row {i} has {len(row)} cells for {len(table['columns'])} columns")
        if not all(isinstance(cell, (str, int, float)) and not isinstance(cell, bool) for cell in row):
            raise ValueError(f"{where}: row {i}: cells are strings or numbers")
    if not isinstance(table["notes"], list) or not all(isinstance(n, str) for n in table["notes"]):
        raise ValueError(f"{where}: 'notes' must be a list of strings")


def load(path: str | os.PathLike) -> dict:
    table = json.loads(Path(path).read_text())
    validate(table, path)
    return table
