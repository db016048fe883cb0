"""fuzz: encodings x solvers against the brute-force oracle on random instances."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from dataclasses import dataclass
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

from ..making.compare import parse_list
from ..sat.encodings import encoding_names
from ..errors import TilesatError
from ..sat.solvers import solver_names
from ..making.fuzz import DEFAULT_MAX_CELLS, DEFAULT_SOLVERS, FUZZ_GRIDS, check_grids, check_names, fuzz, new_seed, write_finding
from .groups import Group, with_groups
from .root import app
from .common import (
    EXIT_TIMEOUT, _err, _out, friendly, interrupted_exit, run_limit,
)

EXIT_DISAGREE = 1


@dataclass(frozen=True)
class FuzzReport:
    """Where fuzz reports: the folder for a disagreement's files (None: fuzz-SEED), JSON on stdout,
    and whether that folder's files may be replaced."""

    out: Optional[Path] = None
    json_out: bool = False
    force: bool = False


#: where fuzz reports: a disagreement's files, JSON on stdout.
REPORT = Group({
    "out": (Annotated[Optional[Path], typer.Option("--out", help="Directory for a disagreement's instance.txt, formula.cnf and report.txt (default: fuzz-SEED).")], None),
    "json_out": (Annotated[bool, typer.Option("--json", help="Print a JSON summary (seed, examples, answers, the disagreement) instead of the text.")], False),
    "force": (Annotated[bool, typer.Option("--force", help="Write into an existing non-empty --out directory (its instance.txt, formula.cnf and report.txt are replaced).")], False),
}, lambda v: FuzzReport(**v))


@app.command("fuzz")
@friendly
@with_groups
def fuzz_cmd(
    encodings: Annotated[str, typer.Option("--encodings", help="Comma-separated encodings (plugins too: MODULE:FUNCTION, FILE.py:FUNCTION), or all.")] = "all",
    solvers: Annotated[str, typer.Option("--solvers", help="Comma-separated solvers: PySAT names, ext:COMMAND, plugins (MODULE:CLASS, FILE.py:CLASS); all: every PySAT solver that works here.")] = ",".join(DEFAULT_SOLVERS),
    examples: Annotated[int, typer.Option("--examples", min=1, help="Random instances to check (hypothesis's max_examples).")] = 200,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, help="Seed of the random instances (printed at the start; the same seed draws the same instances).")] = None,
    max_cells: Annotated[int, typer.Option("--max-cells", min=1, help="Largest board, in cells (rows x columns; each at most 8).")] = DEFAULT_MAX_CELLS,
    grid: Annotated[str, typer.Option("--grid", help=f"Draw boards on these grids (comma-separated): {', '.join(FUZZ_GRIDS)}, or all.")] = "square",
    report: FuzzReport = REPORT,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="Seconds the whole run may take; then exit 124 with the number of examples checked.")] = None,
):
    """Differential testing: random boards and piece sets; every encoding x solver must agree
    with a brute-force oracle and dancing links on solve, check-unique and count.

    Exit 0 when everything agreed; 1 on a disagreement, shrunk to a minimal instance and
    written to --out; 124 at --timeout, 130 on Ctrl-C (with what was checked)."""
    out, json_out, force = report.out, report.json_out, report.force
    # every name checked (plugins loaded) before the run says anything
    enc_list, solver_list = check_names(parse_list(encodings, encoding_names(), "encodings"),
                                        parse_list(solvers, solver_names(), "solvers"))
    grids = check_grids([g.strip() for g in grid.split(",") if g.strip()])
    seed = new_seed() if seed is None else seed
    out_dir = out if out is not None else Path(f"fuzz-{seed}")
    _check_out_dir(out_dir, force)
    command = _command_line(enc_list, solver_list, examples, seed, max_cells, grids)
    err = _err()
    err.print(f"fuzz: seed {seed} (the same instances again: --seed {seed})", markup=False)
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TimeElapsedColumn(), console=err, disable=not err.is_terminal, transient=True)
    try:
        with run_limit(timeout), progress:
            bar = progress.add_task("checking", total=examples)
            result = fuzz(enc_list, solver_list, examples, seed, max_cells,
                          progress=lambda stage, done, total: progress.update(bar, description=stage, completed=done, total=total),
                          grids=grids)
    except KeyboardInterrupt:  # before the run began (fuzz() reports one during it in its result)
        err.print(f"interrupted: after 0 examples (seed {seed})", markup=False)
        raise interrupted_exit() from None
    written = []
    if not result.agreed:
        try:
            written = write_finding(result, out_dir, command)
        except OSError as e:
            raise TilesatError(f"cannot write {e.filename or out_dir}: {e.strerror or e}") from None
    if json_out:
        data = result.to_json()
        data["files"] = [str(p) for p in written]
        _out().print(json.dumps(data), markup=False)
    elif not result.agreed:
        _out().print((out_dir / "report.txt").read_text().rstrip(), markup=False, soft_wrap=True)
        _out().print(f"wrote {', '.join(str(p) for p in written)}", markup=False)
    else:
        checked = f"{result.examples} example{'s' if result.examples != 1 else ''}"
        answers = ", ".join(f"{n} {k}" for k, n in sorted(result.truths.items()))
        line = (f"{'all agreed' if not result.stopped else 'all agreed so far'}: {checked} ({answers}) x "
                f"{len(result.encodings)} encoding{'s' if len(result.encodings) != 1 else ''} x "
                f"{len(result.solvers)} solver{'s' if len(result.solvers) != 1 else ''}, and dancing links, "
                + ("" if tuple(result.grids) == ("square",) else f"on {', '.join(result.grids)} boards, ")
                + f"against the oracle in {result.seconds:.1f} s (seed {seed})")
        _out().print(line, markup=False)
    if result.stopped:
        cut = "; the disagreement above was not fully shrunk" if result.finding and not result.finding.shrunk else ""
        said = "interrupted" if result.stopped == "interrupted" else "time limit reached"
        err.print(f"{said}: after {result.examples} examples (seed {seed}){cut}", markup=False)
    if not result.agreed:  # a bug found outranks the interruption
        raise typer.Exit(EXIT_DISAGREE)
    if result.stopped == "interrupted":
        raise interrupted_exit()
    if result.stopped == "timeout":
        raise typer.Exit(EXIT_TIMEOUT)


def _check_out_dir(path: Path, force: bool) -> None:
    """Before any work: --out is a new or empty directory (or --force), in a writable place."""
    if path.exists():
        if not path.is_dir():
            raise TilesatError(f"--out {path}: exists and is not a directory")
        if any(path.iterdir()) and not force:
            raise TilesatError(f"--out {path}: exists and is not empty; pass --force to write into it")
        if not os.access(path, os.W_OK | os.X_OK):
            raise TilesatError(f"--out {path}: cannot write in it (permission denied)")
        return
    parent = path.parent
    if not parent.is_dir():
        raise TilesatError(f"--out {path}: no such directory: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TilesatError(f"--out {path}: cannot write in {parent} (permission denied)")


def _command_line(encodings, solvers, examples, seed, max_cells, grids=("square",)) -> str:
    return " ".join(["tilesat", "fuzz", "--encodings", shlex.quote(",".join(encodings)), "--solvers",
                     shlex.quote(",".join(solvers)), "--examples", str(examples), "--seed", str(seed),
                     "--max-cells", str(max_cells)]
                    + (["--grid", ",".join(grids)] if tuple(grids) != ("square",) else []))
