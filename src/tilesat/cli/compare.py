"""compare: every encoding x solver on the instances, as a table."""

from __future__ import annotations

import json
from pathlib import Path
from dataclasses import dataclass
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..making.compare import Entry, cactus, compare, load_directory, parse_list, plot
from ..sat.encodings import check_encoding, encoding_names
from ..errors import TilesatError
from ..sat.formula import DEFAULT_CARD
from .groups import Group, with_groups
from .root import app
from .common import CardOpt, ForceOpt, check_outputs, _err, _load, _out, friendly, interrupted_exit

DIRECTORY_TIMEOUT = 60.0  # a family has hard members: each run gets a limit unless one is given


@dataclass(frozen=True)
class Reports:
    """compare's files besides the table on stdout (None: not asked), and whether they may be overwritten."""

    csv_out: Optional[Path] = None
    json_out: Optional[Path] = None
    plot_out: Optional[Path] = None
    force: bool = False


#: compare's files besides the table on stdout.
REPORTS = Group({
    "csv_out": (Annotated[Optional[Path], typer.Option("--csv", help="Also write every cell as CSV here.")], None),
    "json_out": (Annotated[Optional[Path], typer.Option("--json", help="Also write every cell as JSON here.")], None),
    "plot_out": (Annotated[Optional[Path], typer.Option("--plot", help="Also draw solve times per encoding and solver (PNG, SVG); with a directory, a cactus plot: instances solved against time.")], None),
    "force": (ForceOpt, False),
}, lambda v: Reports(**v))


@app.command("compare")
@friendly
@with_groups
def compare_cmd(
    files: Annotated[list[Path], typer.Argument(help="Instance files, or directories (export-family's, or of instance files).", show_default=False)],
    encodings: Annotated[str, typer.Option("--encodings", help="Comma-separated encodings (plugins too: MODULE:FUNCTION, FILE.py:FUNCTION), or all.")] = "all",
    solvers: Annotated[str, typer.Option("--solvers", help="Comma-separated PySAT solvers or plugins (MODULE:CLASS, FILE.py:CLASS).")] = "cadical195,glucose4",
    task: Annotated[str, typer.Option("--task", help="solve, unique (check-unique) or count (blocking clauses).")] = "unique",
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Runs per cell; the median is shown, with min and max.")] = 1,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help=f"Seconds per run; a run past it is shown as a timeout (default with a directory: {DIRECTORY_TIMEOUT:g}).")] = None,
    card: CardOpt = DEFAULT_CARD,
    reports: Reports = REPORTS,
):
    """Run every encoding x solver on the instances; show sizes, times and verdicts.

    Exit 1 when two runs disagree (or one fails), or a run's answer is not the
    one the metadata expects: that is a bug found."""
    csv_out, json_out, plot_out = reports.csv_out, reports.json_out, reports.plot_out
    check_outputs({"--csv": csv_out, "--json": json_out, "--plot": plot_out}, reports.force)
    instances: list[Entry] = []
    directories = [f for f in files if f.is_dir()]
    for f in files:
        if f.is_dir():
            instances += load_directory(f, lambda message: _err().print(f"note: {message}", markup=False))
        else:
            instances.append(Entry(f.name, _load(f, None, None)))
    names = [e.name for e in instances]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise TilesatError(f"two instances are named {twice}; compare them in separate runs")
    if directories and timeout is None:
        timeout = DIRECTORY_TIMEOUT
    enc_list = parse_list(encodings, encoding_names(), "encodings", check_encoding)
    solver_list = parse_list(solvers, [], "solvers")
    err = _err()
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TimeElapsedColumn(), console=err, disable=not err.is_terminal, transient=True)
    with progress:
        bar = progress.add_task("compare", total=None)
        result = compare(instances, enc_list, solver_list, task, repeat, timeout, card,
                         lambda label, done, total: progress.update(bar, description=label, completed=done, total=total))
    out = _out()
    if not out.is_terminal:
        out = _out(width=200)  # a pipe or file: no 80-column squeeze
    table = Table("instance", "encoding", "solver", "variables", "clauses", "literals", "build s",
                  "solve s (median \\[min-max])", "total s", "x best", "verdict",
                  title=f"tilesat compare --task {task} ({repeat} run{'s' if repeat > 1 else ''} each)",
                  title_justify="left")
    for name, runs in result.by_instance().items():
        best = result.best(name)
        for r in runs:
            if r.status == "ok":
                spread = f" [{min(r.solve):.3f}-{max(r.solve):.3f}]" if repeat > 1 else ""
                # no formula when a quick check answered (the board has no tiling): sizes shown as "-"
                cells = [_size(r.variables), _size(r.clauses), _size(r.literals), f"{r.build_median:.3f}",
                         f"{r.solve_median:.3f}{spread}", f"{r.total:.3f}", f"{r.total / best.total:.2f}" if best.total else "1.00",
                         r.verdict]
            else:
                cells = ["", "", "", "", r.status if r.status == "timeout" else "error", "", "", r.error or "timeout"]
            style = "bold green" if r is best else ("red" if r.status == "error" else ("yellow" if r.status == "timeout" else None))
            table.add_row(name, r.encoding, r.solver, *cells, style=style)
    out.print(table)
    try:
        if json_out is not None:
            json_out.write_text(json.dumps({"task": task, "repeat": repeat, "runs": [r.to_json() for r in result.runs],
                                            "wrong_answers": result.wrong_answers()}, indent=1) + "\n")
        if csv_out is not None:
            import csv

            with open(csv_out, "w", newline="") as f:
                fields = ["instance", "encoding", "solver", "status", "verdict", "variables", "clauses", "literals",
                          "build_median", "solve_median", "solve_min", "solve_max", "total", "error"]
                writer = csv.DictWriter(f, fields, extrasaction="ignore")
                writer.writeheader()
                for r in result.runs:
                    writer.writerow(r.to_json())
        if plot_out is not None:
            (cactus if directories else plot)(result, plot_out)
    except OSError as e:
        raise TilesatError(f"cannot write {e.filename}: {e.strerror or e}") from None
    bugs = result.disagreements()
    for line in bugs:
        out.print(f"DISAGREEMENT: {line}", style="bold red", markup=False)
    wrong = result.wrong_answers()
    for line in wrong:
        out.print(f"WRONG ANSWER: {line}", style="bold red", markup=False)
    if bugs or wrong:
        raise typer.Exit(1)
    checked = sum(r.status == "ok" and r.instance in result.expected_names() for r in result.runs)
    out.print(f"all {sum(r.status == 'ok' for r in result.runs)} finished runs agree"
              + (f"; {checked} matched the expected answer" if checked else "")
              + (f"; {sum(r.status == 'timeout' for r in result.runs)} timed out" if any(r.status == "timeout" for r in result.runs) else ""),
              markup=False)
    if result.interrupted:
        cells = len(instances) * len(enc_list) * len(solver_list)
        _err().print(f"interrupted: {len(result.runs)} of {cells} cells finished (shown above)", markup=False)
        raise interrupted_exit()


def _size(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"
