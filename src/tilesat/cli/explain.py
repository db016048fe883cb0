"""explain: where a board is ambiguous and what makes it unique, or where it fails."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..explain import explain
from ..explain.backbone import BACKBONE_METHODS, DEFAULT_METHOD
from ..explain.show import report_lines, rich_report, save_explanation_pictures, to_json
from ..explain.solver import ASSUMING_SOLVERS, DEFAULT
from ..errors import TilesatError
from .groups import SOURCE, Show, Source, outputs, with_groups
from .root import app
from .common import (
    EXIT_MULTIPLE, EXIT_NONE, EXIT_TIMEOUT, EXIT_UNIQUE, _err, _out, _progress, friendly, interrupted_exit, one_of,
    run_limit
)


@app.command("explain")
@friendly
@with_groups
def explain_cmd(
    source: Source = SOURCE,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="Seconds the whole run may take; then it prints what it had, labelled (partial, best found), and exits 124.")] = None,
    show: Show = outputs("as_json", "svg", "png", "force",
                         svg=(Annotated[Optional[Path], typer.Option("--svg", help="Also draw the explanation as SVG here.")], None),
                         png=(Annotated[Optional[Path], typer.Option("--png", help="Also draw the explanation as PNG here.")], None)),
    repairs: Annotated[int, typer.Option("--repairs", min=0, max=50, help="How many repairs to show (the smallest first); on a unique board, how many black cells that could be opened; 0: neither.")] = 3,
    backbone: Annotated[str, typer.Option("--backbone", help=f"How to find the tiles in every tiling: {one_of(BACKBONE_METHODS)} (see the docs' explain page).")] = DEFAULT_METHOD,
    solver: Annotated[str, typer.Option("--solver", "-s", help=f"The SAT solver asked under assumptions: {one_of(ASSUMING_SOLVERS)}.")] = DEFAULT,
):
    """Which cells every tiling covers alike, the ambiguous regions and their ways, the fewest clues or black cells
    that make the board unique (each checked by check-unique); for no tiling, the cells that cannot all be covered.
    Exit as check-unique: 0 unique, 1 multiple, 3 none; 124 when --timeout cut the explanation short, 130 on Ctrl-C
    (both print what was found)."""
    if backbone not in BACKBONE_METHODS:
        raise TilesatError(f"--backbone {backbone!r}: choose one of {', '.join(BACKBONE_METHODS)}")
    if solver not in ASSUMING_SOLVERS:
        raise TilesatError(f"--solver {solver!r}: explain asks one of {', '.join(ASSUMING_SOLVERS)} under assumptions")
    instance = source.load()
    show.check()
    if show.png is not None and not instance.board.is_square:
        raise TilesatError(f"--png: explain draws a {instance.board.grid} board as SVG only; use --svg")
    with _progress() as progress, run_limit(timeout):  # from the command's start; explain's own from its own
        say = (lambda message: progress(message)) if progress is not None else None
        e = explain(instance, repairs=repairs, solver=solver, backbone_method=backbone, timeout=timeout, progress=say)
    save_explanation_pictures(e, show.pictures)
    if show.json:
        print(to_json(e))
    else:
        out = _out()
        if out.is_terminal:
            for part in rich_report(e):
                out.print(part)
        else:
            out.print("\n".join(report_lines(e)), markup=False)
    if e.stopped == "interrupted":
        _err().print(f"interrupted: stopped while explaining ({_stage(e)}); what was found is shown", markup=False)
        raise interrupted_exit()
    if e.stopped == "timeout":
        raise typer.Exit(EXIT_TIMEOUT)
    raise typer.Exit({"unique": EXIT_UNIQUE, "multiple": EXIT_MULTIPLE, "none": EXIT_NONE,
                      "unknown": EXIT_TIMEOUT}[e.verdict])


def _stage(e) -> str:
    stages = e.stats.get("stages") or {}
    return f"at {list(stages)[-1]}" if stages else "while starting"
