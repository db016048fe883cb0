"""count --burrtools-count (a BurrTools file's assemblies counted as BurrTools
counts them: :mod:`tilesat.questions.burrtools`) and export --xmpuzzle (an
instance written as a BurrTools file: :mod:`tilesat.model.xmpuzzle`).

Imported by ``count`` and ``export`` only when asked, so that counting a
BurrTools file loads the reader, the cover and its C search, not tilesat's SAT
machinery.
"""

from __future__ import annotations

import json
import time
from dataclasses import fields, replace

import typer

from ..errors import TilesatError, plural
from .common import EXIT_TIMEOUT, _err, _out, interrupted_exit, run_limit

#: count's options that ask for tilesat's own counting, with what they are called on the command line.
_TILESAT_ONLY = {"method": "--method", "up_to_symmetry": "--up-to-symmetry", "limit": "--limit", "jobs": "--jobs",
                 "approx": "--epsilon/--delta", "certificates": "--certificate", "checkpoint": "--checkpoint",
                 "cluster": "--cluster", "address": "--address", "encoding": "--encoding", "solver": "--solver",
                 "card": "--card", "pieces": "--pieces", "wrap": "--wrap"}


def check_burrtools_count(source, request, sat, default_request) -> None:
    """One line, before any work, for what --burrtools-count cannot go with."""
    from ..model.xmpuzzle import xmpuzzle_path

    if xmpuzzle_path(source.file) is None:
        raise TilesatError(f"--burrtools-count counts BurrTools files (FILE.xmpuzzle[:PROBLEM]); {source.file} is not one")
    asked = [f.name for f in fields(request) if getattr(request, f.name) != getattr(default_request, f.name)
             and not (f.name == "method" and request.method == "xcc")]
    asked += sat.asked() + [k for k in ("pieces", "wrap") if getattr(source, k) is not None]
    if asked:
        raise TilesatError(f"--burrtools-count counts with the compiled exact cover in one process, as BurrTools "
                           f"counts: it cannot go with {', '.join(_TILESAT_ONLY.get(k, k) for k in asked)}")


def burrtools_count(source, timeout: float | None, keep_mirror: bool, as_json: bool) -> None:
    """Count, print the count and the conventions it follows, exit 124 at the timeout, 130 on Ctrl-C."""
    from ..model.xmpuzzle import read_xmpuzzle, xmpuzzle_path
    from ..questions.burrtools import count_assemblies

    path, which = xmpuzzle_path(source.file)
    err = _err()
    with run_limit(timeout) as limit, _progress(err, not as_json) as report:
        puzzle = read_xmpuzzle(path)
        left = limit.remaining()
        deadline = None if left is None else time.monotonic() + max(left, 0.0)
        result = count_assemblies(puzzle, which, keep_mirror=keep_mirror, deadline=deadline, progress=report)
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        _out().print(result.text(), markup=False)
    if result.stopped == "interrupted":
        raise interrupted_exit()
    if result.stopped == "timeout":
        raise typer.Exit(EXIT_TIMEOUT)


class _progress:
    """A spinner with the count so far on a terminal's stderr (rich's progress, loaded only there)."""

    def __init__(self, err, wanted: bool):
        self.bar = None
        if wanted and err.is_terminal:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.bar = Progress(SpinnerColumn(), TextColumn("counting: {task.fields[found]:,} assemblies"),
                                TimeElapsedColumn(), console=err, transient=True)

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.__enter__()
        task = self.bar.add_task("counting", total=None, found=0)
        return lambda found: self.bar.update(task, found=found)

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc) if self.bar is not None else False


def export_xmpuzzle(source, out, force: bool) -> None:
    """Write the source as a BurrTools file: a BurrTools file as it was read (one problem
    with FILE:PROBLEM), any other instance as a puzzle of one problem, its ``;`` comments kept."""
    from pathlib import Path

    from ..model.instance import read_instance_text
    from ..model.xmpuzzle import instance_puzzle, is_xmpuzzle, read_xmpuzzle, write_xmpuzzle, xmpuzzle_path
    from .common import check_outputs

    if not is_xmpuzzle(out):
        raise TilesatError(f"--xmpuzzle {out}: the file name must end in .xmpuzzle (BurrTools opens only those)")
    check_outputs({"--xmpuzzle": out}, force)
    burr = xmpuzzle_path(source.file)
    if burr is not None and source.pieces is None and source.wrap is None:
        puzzle = read_xmpuzzle(burr[0])
        if burr[1] is not None:
            index, problem = puzzle.problem(burr[1])
            puzzle = replace(puzzle, problems=(problem,))
        what = plural(len(puzzle.problems), "problem")
    else:
        instance = source.load()
        comments = []
        if burr is None and not str(source.file).endswith(".py"):  # Polyform Puzzler's files have no ';' lines
            comments = [line.strip()[1:].strip() for line in read_instance_text(source.file).splitlines()
                        if line.strip().startswith(";")]
        puzzle = instance_puzzle(instance, Path(source.file).stem, "\n".join(comments))
        what = f"{plural(len(puzzle.problems[0].parts), 'piece')} on a board of {instance.board.area} cells"
    try:
        write_xmpuzzle(puzzle, out)
    except OSError as e:
        raise TilesatError(f"cannot write {out}: {e.strerror or e}") from None
    _err().print(f"wrote {out}: BurrTools file, {what}", markup=False)
