"""The ``tilesat`` command: a thin layer over the library.

Exit statuses: 0 success (``unique`` for check-unique), 1 ``multiple``,
2 bad input or usage, 3 ``none`` (no tiling), 130 interrupted.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .compare import compare, parse_list, plot
from .counting import count_tilings, iter_tilings_by
from .checks import area_check, placement_check, region_check
from .encodings import DEFAULT_ENCODING, ENCODINGS, check_encoding
from .errors import TilesatError
from .formula import CARD_ENCODINGS, DEFAULT_CARD, compile_formula, resolve_encoding
from .generate import generate_unique
from .board import Board
from .instance import Instance, format_instance, load_instance, parse_pieces
from .pictures import save_pictures
from .pieces import SET_SIZES, builtin_names, builtin_piece, piece_set
from .placements import generate_placements
from .render import diff_rows, plain_rows, rich_side_by_side, rich_tiling, side_by_side
from .search import Result, check_unique, choose_search_method, solve
from .solvers import DEFAULT_SOLVER
from .dimacs import blocking_clause, check_model, open_text, placement_map, read_answer, write_dimacs
from .packing import pack
from .proof import ProofError, check_proof_dir, verify_proof, write_pack_proof, write_proof
from .tiling import Tiling, differing_cells, tiling_from_model
from .tromino import check_tromino_array, golomb, ids_from_tiling, tiling_from_ids, write_numbers
from .verify import verify_tiling

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Polyomino tiling compiled to SAT: solve boards, check that a puzzle's solution is unique.",
)

EXIT_UNIQUE, EXIT_MULTIPLE, EXIT_USAGE, EXIT_NONE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

FileArg = Annotated[Path, typer.Argument(help="Instance file (header lines, then a grid of '.' and '#').", show_default=False)]
PiecesOpt = Annotated[Optional[str], typer.Option("--pieces", help="Override the file's 'pieces:' header, e.g. 'L4' or 'pentominoes:1'.")]
WrapOpt = Annotated[Optional[str], typer.Option("--wrap", help="Override 'wrap:': none, rows, columns or both.")]
EncodingOpt = Annotated[str, typer.Option("--encoding", "-e", help=f"Exactly-one encoding: auto (pairwise on tight boards, else commander), {', '.join(ENCODINGS)}.")]
SolverOpt = Annotated[str, typer.Option("--solver", "-s", help="PySAT solver name (cadical195, glucose4, kissat404, ...).")]
MethodOpt = Annotated[str, typer.Option("--method", help="auto (dancing links when each piece is used at most once, else SAT), sat or dlx (dancing links, xcover).")]
CardOpt = Annotated[str, typer.Option("--card", help=f"Cardinality encoding for piece counts: {', '.join(CARD_ENCODINGS)}.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of pictures.")]
TimeoutOpt = Annotated[Optional[float], typer.Option("--timeout", help="Seconds an external (ext:COMMAND) solver may run.")]
SvgOpt = Annotated[Optional[Path], typer.Option("--svg", help="Also draw the tiling(s) as SVG here.")]
PngOpt = Annotated[Optional[Path], typer.Option("--png", help="Also draw the tiling(s) as PNG here.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")]
ProofOpt = Annotated[Optional[Path], typer.Option("--proof", help="Write the CNF and its DRAT proof here when the verdict rests on unsatisfiability.")]


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _err() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def friendly(fn):
    """Bad input -> one line on stderr and exit 2; Ctrl-C -> exit 130."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TilesatError as e:
            _err().print(f"error: {e}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
        except MemoryError:
            _err().print("error: out of memory: the instance is too large for this machine", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt as e:
            found = len(getattr(e, "tilings", []))
            had = f"found {found} tiling{'s' if found != 1 else ''} before stopping" if found else "no tiling found yet"
            _err().print(f"interrupted: {had}; no verdict", markup=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None

    return wrapper


def _load(file: Path, pieces: str | None, wrap: str | None) -> Instance:
    return load_instance(file, pieces=pieces, wrap=wrap)


@contextlib.contextmanager
def _progress():
    """On stderr, when it is a terminal: the current stage, its elapsed time,
    and a bar where the stage is measured (clauses loaded into the solver)."""
    err = _err()
    if not err.is_terminal:
        yield None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        stage = {"message": None, "task": bar.add_task("starting", total=None)}

        def update(message, done=None, total=None):
            if message != stage["message"]:  # a new stage: a new task, its clock from zero
                bar.remove_task(stage["task"])
                stage["message"], stage["task"] = message, bar.add_task(message, total=total, completed=done or 0)
            else:
                bar.update(stage["task"], completed=done or 0)

        yield update


def _json(result: Result) -> str:
    return json.dumps(
        {
            "verdict": result.verdict,
            "tilings": [t.to_json() for t in result.tilings],
            "reason": result.reason,
            "stats": result.stats,
        }
    )


def _stats_line(result: Result) -> str:
    s = result.stats
    if s.get("method") == "dlx":
        return f"dancing links (xcover), {s['placements'] or 0} placements, {s['seconds']:.3f} s"
    size = f"{s['variables']} variables, {s['clauses']} clauses, " if s["variables"] is not None else ""
    return f"{size}{s['encoding']} + {s['solver']}, {s['seconds']:.3f} s"


def _none_text(result: Result) -> str:
    if result.reason:
        return f"none: no tiling exists ({result.reason})"
    if result.stats.get("method") == "dlx":
        return "none: no tiling exists (dancing links tried every placement)"
    return "none: no tiling exists (the solver proved it)"


def _report(instance: Instance, result: Result, headline: str) -> None:
    out = _out()
    tilings = result.tilings
    if result.verdict == "none":
        out.print(_none_text(result), markup=False)
    elif len(tilings) == 1:
        out.print(headline.format(ntiles=len(tilings[0])), markup=False)
        out.print(rich_tiling(instance, tilings[0]) if out.is_terminal else "\n".join(plain_rows(instance, tilings[0])), markup=False)
    else:
        diff = differing_cells(tilings[0], tilings[1])
        out.print(headline.format(ndiff=len(diff)), markup=False)
        titles = ["tiling 1", "tiling 2"]
        if out.is_terminal:
            out.print(rich_side_by_side(instance, tilings, titles, diff))
        else:
            blocks = [plain_rows(instance, t) for t in tilings] + [diff_rows(instance, diff)]
            out.print(side_by_side(blocks, titles + ["differ (*)"]), markup=False)
    if out.is_terminal:
        out.print(_stats_line(result), style="dim", markup=False)
    if result.stats.get("proof"):
        out.print(f"proof written to {result.stats['proof']} (check it with: tilesat verify-proof {result.stats['proof']})", markup=False)


def _check_new(paths, force: bool) -> None:
    for p in paths:
        if p is not None and p.exists() and not force:
            raise TilesatError(f"{p} exists; pass --force to overwrite it")


def _search(task, file, method, encoding, solver, card, pieces, wrap, as_json, timeout, proof, headlines,
            svg=None, png=None, force=False) -> Result:
    """What solve and check-unique share: load, search with progress, prove, draw, show."""
    instance = _load(file, pieces, wrap)
    if proof is not None:
        check_proof_dir(proof)
    _check_new([svg, png], force)
    with _progress() as progress:
        result = task(instance, method, encoding=encoding, solver=solver, card=card, progress=progress, timeout=timeout)
    if proof is not None and result.verdict in ("none", "unique"):
        write_proof(instance, proof, result.verdict, (result.tilings or [None])[0], encoding, card)
        result.stats["proof"] = str(proof)
    if result.tilings:
        marked = differing_cells(*result.tilings) if len(result.tilings) == 2 else None
        save_pictures(instance, result.tilings, [svg, png], marked)
    if as_json:
        print(_json(result))
    else:
        _report(instance, result, headlines.get(result.verdict, ""))
    return result


@app.command("solve")
@friendly
def solve_cmd(
    file: FileArg,
    method: MethodOpt = "auto",
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
    timeout: TimeoutOpt = None,
    proof: ProofOpt = None,
    svg: SvgOpt = None,
    png: PngOpt = None,
    force: ForceOpt = False,
):
    """Find one tiling of the board, or show that there is none (exit 3)."""
    result = _search(solve, file, method, encoding, solver, card, pieces, wrap, as_json, timeout, proof,
                     {"solved": "solved: a tiling with {ntiles} tiles"}, svg, png, force)
    raise typer.Exit(EXIT_NONE if result.verdict == "none" else 0)


@app.command("check-unique")
@friendly
def check_unique_cmd(
    file: FileArg,
    method: MethodOpt = "auto",
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
    timeout: TimeoutOpt = None,
    proof: ProofOpt = None,
    svg: SvgOpt = None,
    png: PngOpt = None,
    force: ForceOpt = False,
):
    """Is the tiling unique? Exit 0 unique, 1 multiple (both shown), 3 none."""
    result = _search(check_unique, file, method, encoding, solver, card, pieces, wrap, as_json, timeout, proof, {
        "unique": "unique: exactly one tiling",
        "multiple": "multiple: at least two tilings; they differ at {ndiff} cells (marked *)",
    }, svg, png, force)
    raise typer.Exit({"unique": EXIT_UNIQUE, "multiple": EXIT_MULTIPLE, "none": EXIT_NONE}[result.verdict])


@app.command("count")
@friendly
def count_cmd(
    file: FileArg,
    method: Annotated[str, typer.Option("--method", help="auto, blocking (SAT + blocking clauses), ganak (exact #SAT), approx (ApproxMC estimate) or dlx (exact cover).")] = "auto",
    up_to_symmetry: Annotated[bool, typer.Option("--up-to-symmetry", help="Also count classes under the board's rotations, reflections (and wrap shifts), by Burnside's lemma.")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="Stop after N tilings and report 'at least N'.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Split the work into independent cubes run in N processes.")] = 1,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
    timeout: TimeoutOpt = None,
    epsilon: Annotated[float, typer.Option("--epsilon", help="approx: the estimate is within a factor (1 + epsilon) ...")] = 0.8,
    delta: Annotated[float, typer.Option("--delta", help="approx: ... with probability at least 1 - delta.")] = 0.2,
):
    """Count the tilings (exactly, or an estimate with --method approx). Ctrl-C prints the count so far as a lower bound."""
    instance = _load(file, pieces, wrap)
    err = _err()
    progress = Progress(SpinnerColumn(), TextColumn("counting: {task.fields[tilings]:,} tilings"),
                        TextColumn("{task.fields[rate]:,.0f}/s"), TextColumn("units {task.completed}/{task.total}"),
                        TimeElapsedColumn(), console=err, disable=not err.is_terminal or as_json, transient=True)
    t0 = time.perf_counter()
    with progress:
        task = progress.add_task("counting", total=None, tilings=0, rate=0.0)

        def report(tilings, done, total):
            progress.update(task, tilings=tilings, completed=done, total=total,
                            rate=tilings / max(time.perf_counter() - t0, 1e-9))

        result = count_tilings(instance, method, up_to_symmetry=up_to_symmetry, limit=limit, jobs=jobs,
                               encoding=encoding, solver=solver, card=card, epsilon=epsilon, delta=delta,
                               timeout=timeout, progress=report)
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        _out().print(_count_text(result), markup=False)
    if result.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)


def _count_text(r) -> str:
    if r.exact:
        amount = f"{r.count:,} tilings"
    elif r.estimate and not r.interrupted:
        amount = (f"about {r.count:,} tilings (ApproxMC estimate: within a factor {1 + r.estimate['epsilon']:g} "
                  f"of the true count with probability at least {1 - r.estimate['delta']:g})")
    else:
        amount = f"at least {r.count:,} tilings ({'interrupted' if r.interrupted else 'stopped at --limit'})"
    if r.group is not None and r.up_to_symmetry is not None:
        about = "" if r.exact else "about "
        amount += (f", {about}{r.up_to_symmetry:,} up to symmetry (a group of order {r.group_order}: "
                   f"{', '.join(r.group)})")
    why = f"; {r.reason}" if r.reason else ""
    split = f", {r.units} units in {r.jobs} processes" if r.jobs > 1 else ""
    return f"count: {amount}, by {r.method} ({r.why}){split}, {r.seconds:.3f} s{why}"


@app.command("list")
@friendly
def list_cmd(
    file: FileArg,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="List at most N tilings.")] = None,
    method: Annotated[str, typer.Option("--method", help="blocking (SAT + blocking clauses) or dlx (exact cover).")] = "blocking",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write one JSON tiling per line here instead of pictures.")] = None,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    timeout: TimeoutOpt = None,
    svg: SvgOpt = None,
    png: PngOpt = None,
    force: ForceOpt = False,
):
    """List tilings one by one (each verified); --svg/--png draw them side by side."""
    instance = _load(file, pieces, wrap)
    _check_new([out, svg, png], force)
    tilings = iter_tilings_by(instance, method, encoding=encoding, solver=solver, card=card, timeout=timeout)
    console = _out()
    found: list[Tiling] = []
    sink = None
    complete = True
    try:
        sink = open(out, "w") if out is not None else None
        try:
            for tiling in tilings:
                if limit is not None and len(found) >= limit:
                    complete = False
                    break
                found.append(tiling)
                if sink is not None:
                    sink.write(json.dumps(tiling.to_json()) + "\n")
                    sink.flush()  # each line is complete as soon as it is found
                else:
                    console.print(f"tiling {len(found)}", markup=False)
                    console.print(rich_tiling(instance, tiling) if console.is_terminal else "\n".join(plain_rows(instance, tiling)), markup=False)
                    console.print()
        except KeyboardInterrupt:
            _err().print(f"interrupted after {len(found)} tilings", markup=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        finally:
            tilings.close()
    except OSError as e:
        raise TilesatError(f"cannot write {out}: {e.strerror or e}") from None
    finally:
        if sink is not None:
            sink.close()
    if found:
        save_pictures(instance, found, [svg, png])
    what = "all" if complete else "the first"
    _err().print(f"listed {what} {len(found)} tilings" + (f" to {out}" if out else ""), markup=False)


@app.command("pack")
@friendly
def pack_cmd(
    file: FileArg,
    objective: Annotated[str, typer.Option("--objective", help="Maximise the number of pieces or of covered cells.")] = "pieces",
    method: Annotated[str, typer.Option("--method", help="incremental (raise a totalizer bound until UNSAT) or rc2 (PySAT's MaxSAT).")] = "incremental",
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
    proof: Annotated[Optional[Path], typer.Option("--proof", help="Write the CNF of 'one more is impossible' and its DRAT proof here.")] = None,
    svg: SvgOpt = None,
    png: PngOpt = None,
    force: ForceOpt = False,
):
    """Maximum packing: as many pieces (or covered cells) as fit, and proof that one more does not.

    Open cells may stay empty; piece counts in the file still hold. Exit 0 with
    the optimum, 3 when no packing keeps the piece counts, 130 interrupted
    (the best packing so far is shown as a lower bound)."""
    instance = _load(file, pieces, wrap)
    if proof is not None:
        check_proof_dir(proof)
    _check_new([svg, png], force)
    with _progress() as progress:
        result = pack(instance, objective, method, encoding=encoding, solver=solver, card=card, progress=progress)
        if proof is not None and result.proved:
            if progress:
                progress("writing the DRAT proof")
            write_pack_proof(instance, proof, result, encoding, card)
            result.proof = str(proof)
    if result.packing is not None:
        save_pictures(instance, [result.packing], [svg, png])
    unit = "covered cells" if objective == "cells" else "pieces"
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        out = _out()
        if result.optimum is None and result.proved:
            out.print("none: no packing keeps the piece counts (the solver proved it)", markup=False)
        elif result.optimum is None:
            out.print("interrupted before the first packing was found", markup=False)
        else:
            if result.proved:
                out.print(f"optimum: {result.optimum} {unit}; {result.optimum + 1} is impossible "
                          f"(proved: {result.stats['solver']}, {result.method})", markup=False)
            else:
                out.print(f"at least {result.optimum} {unit} (interrupted: not proved optimal)", markup=False)
            used = ", ".join(f"{n} x {name}" for name, n in sorted(Counter(t.piece for t in result.packing).items()))
            out.print(f"a packing with {len(result.packing)} pieces ({used}), "
                      f"{sum(len(t.cells) for t in result.packing)} of {instance.board.area} cells covered", markup=False)
            out.print(rich_tiling(instance, result.packing) if out.is_terminal else "\n".join(plain_rows(instance, result.packing)), markup=False)
        s = result.stats
        if out.is_terminal:
            out.print(f"{s['variables']} variables, {s['clauses']} clauses, {s['encoding']} + {s['solver']}, "
                      f"bounds found {result.steps}, {s['seconds']:.3f} s", style="dim", markup=False)
        if result.proof:
            out.print(f"proof written to {result.proof} (check it with: tilesat verify-proof {result.proof})", markup=False)
    if not result.proved:
        raise typer.Exit(EXIT_INTERRUPTED)
    raise typer.Exit(EXIT_NONE if result.optimum is None else 0)


@app.command("compare")
@friendly
def compare_cmd(
    files: Annotated[list[Path], typer.Argument(help="Instance files.", show_default=False)],
    encodings: Annotated[str, typer.Option("--encodings", help="Comma-separated encodings, or all.")] = "all",
    solvers: Annotated[str, typer.Option("--solvers", help="Comma-separated PySAT solvers.")] = "cadical195,glucose4",
    task: Annotated[str, typer.Option("--task", help="solve, unique (check-unique) or count (blocking clauses).")] = "unique",
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Runs per cell; the median is shown, with min and max.")] = 1,
    timeout: Annotated[Optional[float], typer.Option("--timeout", help="Seconds per run; a run past it is shown as a timeout.")] = None,
    card: CardOpt = DEFAULT_CARD,
    csv_out: Annotated[Optional[Path], typer.Option("--csv", help="Also write every cell as CSV here.")] = None,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Also write every cell as JSON here.")] = None,
    plot_out: Annotated[Optional[Path], typer.Option("--plot", help="Also draw solve times per encoding and solver (PNG).")] = None,
    force: ForceOpt = False,
):
    """Run every encoding x solver on the instances; show sizes, times and verdicts.

    Exit 1 when two runs disagree (or one fails): that is a bug found."""
    _check_new([csv_out, json_out, plot_out], force)
    instances = [(f.name, _load(f, None, None)) for f in files]
    enc_list = parse_list(encodings, ENCODINGS, "encodings", check_encoding)
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
        out = Console(highlight=False, soft_wrap=True, width=200)  # a pipe or file: no 80-column squeeze
    table = Table("instance", "encoding", "solver", "variables", "clauses", "literals", "build s",
                  "solve s (median [min-max])", "total s", "x best", "verdict",
                  title=f"tilesat compare --task {task} ({repeat} run{'s' if repeat > 1 else ''} each)",
                  title_justify="left")
    for name, runs in result.by_instance().items():
        best = result.best(name)
        for r in runs:
            if r.status == "ok":
                spread = f" [{min(r.solve):.3f}-{max(r.solve):.3f}]" if repeat > 1 else ""
                cells = [f"{r.variables:,}", f"{r.clauses:,}", f"{r.literals:,}", f"{r.build_median:.3f}",
                         f"{r.solve_median:.3f}{spread}", f"{r.total:.3f}", f"{r.total / best.total:.2f}" if best.total else "1.00",
                         r.verdict]
            else:
                cells = ["", "", "", "", r.status if r.status == "timeout" else "error", "", "", r.error or "timeout"]
            style = "bold green" if r is best else ("red" if r.status == "error" else ("yellow" if r.status == "timeout" else None))
            table.add_row(name, r.encoding, r.solver, *cells, style=style)
    out.print(table)
    try:
        if json_out is not None:
            json_out.write_text(json.dumps({"task": task, "repeat": repeat, "runs": [r.to_json() for r in result.runs]}, indent=1) + "\n")
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
            plot(result, plot_out)
    except OSError as e:
        raise TilesatError(f"cannot write {e.filename}: {e.strerror or e}") from None
    bugs = result.disagreements()
    for line in bugs:
        out.print(f"DISAGREEMENT: {line}", style="bold red", markup=False)
    if bugs:
        raise typer.Exit(1)
    out.print(f"all {sum(r.status == 'ok' for r in result.runs)} finished runs agree"
              + (f"; {sum(r.status == 'timeout' for r in result.runs)} timed out" if any(r.status == "timeout" for r in result.runs) else ""),
              markup=False)


@app.command("export")
@friendly
def export_cmd(
    file: FileArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the CNF (.cnf, .cnf.gz or .cnf.xz).")],
    encoding: EncodingOpt = DEFAULT_ENCODING,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    block: Annotated[Optional[Path], typer.Option("--block", help="A tiling (JSON from solve --json) to forbid: asks 'is there another?'.")] = None,
    map_file: Annotated[Optional[Path], typer.Option("--map", help="Write the variable -> placement map as JSON here instead of 'c placement' lines.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")] = False,
):
    """Write the instance's CNF in DIMACS, for any SAT solver or model counter."""
    instance = _load(file, pieces, wrap)
    _check_new([output, map_file], force)
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding, card)
    extra = []
    if block is not None:
        extra.append(blocking_clause(placements, _read_tiling(block)))
    try:
        with open_text(output, "w") as f:
            n = write_dimacs(formula, f, source=str(file), extra_clauses=extra, placement_comments=map_file is None)
        if map_file is not None:
            map_file.write_text(json.dumps(placement_map(placements)) + "\n")
    except OSError as e:
        raise TilesatError(f"cannot write {e.filename or output}: {e.strerror or e}") from None
    _err().print(f"wrote {output}: {formula.nvars} variables ({len(placements)} placements), {n} clauses", markup=False)


def _read_tiling(path: Path) -> Tiling:
    try:
        data = json.loads(path.read_text())
        if isinstance(data, dict):
            data = data["tilings"][0]
        return Tiling.from_json(data)
    except OSError as e:
        raise TilesatError(f"{path}: cannot read: {e.strerror or e}") from None
    except (ValueError, KeyError, IndexError, TypeError):
        raise TilesatError(f"{path}: not a tiling (expected the JSON of 'tilesat solve --json' or a list of tiles)") from None


@app.command("decode")
@friendly
def decode_cmd(
    file: FileArg,
    model: Annotated[Path, typer.Argument(help="A solver's output: 's'/'v' lines, or a bare list of literals.", show_default=False)],
    encoding: EncodingOpt = DEFAULT_ENCODING,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
):
    """Turn an external solver's answer on an exported CNF back into a verified tiling."""
    instance = _load(file, pieces, wrap)
    try:
        text = model.read_text(errors="replace")
    except OSError as e:
        raise TilesatError(f"{model}: cannot read: {e.strerror or e}") from None
    answer = read_answer(text, where=str(model))
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding, card)
    if answer.status == "unknown":
        raise TilesatError(f"{model}: no answer in it (no 's SATISFIABLE'/'s UNSATISFIABLE' line and no literals)")
    tilings = []
    if answer.status == "sat":
        check_model(formula, answer.model, where=str(model))
        tiling, _ = tiling_from_model(placements, answer.model)
        tilings = [verify_tiling(instance, tiling)]
    result = Result("solved" if tilings else "none", tilings, None if tilings else "the solver said UNSATISFIABLE",
                    {"placements": len(placements), "variables": formula.nvars, "clauses": formula.nclauses,
                     "encoding": encoding, "card": card, "solver": "external", "seconds": 0.0})
    if as_json:
        print(_json(result))
    else:
        _report(instance, result, f"solved: a tiling with {{ntiles}} tiles (decoded from {model})")
    raise typer.Exit(EXIT_NONE if not tilings else 0)


@app.command("verify-proof")
@friendly
def verify_proof_cmd(
    directory: Annotated[Path, typer.Argument(help="A directory written by --proof.", show_default=False)],
    instance: Annotated[Optional[Path], typer.Option("--instance", help="The instance file, if it has moved.")] = None,
):
    """Check a proof: the CNF is the instance's, and its DRAT proof is valid (exit 1 if not)."""
    try:
        _out().print(verify_proof(directory, instance), markup=False)
    except ProofError as e:
        _err().print(f"proof REJECTED: {e}", markup=False)
        raise typer.Exit(1) from None


@app.command("generate")
@friendly
def generate_cmd(
    size: Annotated[str, typer.Option("--size", help="ROWSxCOLS, e.g. 12x12.")],
    pieces: Annotated[str, typer.Option("--pieces", help="Pieces without counts, e.g. L4.")] = "L4",
    seed: Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives the same board.")] = 1,
    blocked: Annotated[Optional[int], typer.Option("--blocked", min=0, help="How many random cells may start black (default 15%).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the instance here instead of printing it.")] = None,
    force: ForceOpt = False,
):
    """Make a board with exactly one tiling (a puzzle), in the instance format."""
    m = re.fullmatch(r"(\d+)[xX](\d+)", size.strip())
    if not m:
        raise TilesatError(f"--size {size!r}: use ROWSxCOLS, e.g. 12x12")
    rows, cols = int(m.group(1)), int(m.group(2))
    if rows * cols > 10_000:
        raise TilesatError(f"--size {size}: at most 10,000 cells")
    _check_new([out], force)
    rules = parse_pieces(pieces)
    t0 = time.perf_counter()
    instance, rounds = generate_unique(rows, cols, rules, seed=seed, blocked=blocked)
    seconds = time.perf_counter() - t0
    text = format_instance(instance, [
        f"Made by tilesat generate --size {rows}x{cols} --pieces '{pieces}' --seed {seed}"
        + (f" --blocked {blocked}" if blocked is not None else "")
        + f": a random packing (empty cells black), then {rounds} tiles blacked out until the tiling was unique.",
        "expect: unique",
    ])
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text)
    _err().print(f"generated a unique {rows}x{cols} board in {seconds:.2f} s (seed {seed})", markup=False)


@app.command("tromino")
@friendly
def tromino_cmd(
    n: Annotated[int, typer.Argument(help="The board is 2^N x 2^N.", show_default=False)],
    hole: Annotated[Optional[str], typer.Option("--hole", help="R,C of the missing cell (0-based); random when omitted.")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed for the random hole.")] = None,
    method: Annotated[str, typer.Option("--method", help="golomb (the construction) or sat (the normal pipeline, practical to N = 8).")] = "golomb",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the numbered board here instead of printing it.")] = None,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    svg: SvgOpt = None,
    png: PngOpt = None,
    force: ForceOpt = False,
):
    """Tile the 2^N x 2^N board minus one cell with numbered L-trominoes (Golomb)."""
    limit = {"golomb": 13, "sat": 10}.get(method)
    if limit is None:
        raise TilesatError(f"unknown tromino method {method!r}; use golomb or sat")
    if not 1 <= n <= limit:
        raise TilesatError(f"N must be between 1 and {limit} for --method {method}")
    if (svg or png) and n > 10:
        raise TilesatError("pictures are drawn up to N = 10 (1024x1024)")
    _check_new([out, svg, png], force)
    size = 1 << n
    if hole is None:
        rng = random.Random(seed)
        cell = (rng.randrange(size), rng.randrange(size))
    else:
        m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", hole)
        if not m:
            raise TilesatError(f"--hole {hole!r}: use R,C, e.g. --hole 3,5")
        cell = (int(m.group(1)), int(m.group(2)))
        if not (cell[0] < size and cell[1] < size):
            raise TilesatError(f"--hole {hole}: off the {size}x{size} board")
    t0 = time.perf_counter()
    # the instance as the general pipeline sees it; built only when needed
    # (for N = 12 its index arrays would cost more than the construction)
    def make_instance() -> Instance:
        grid = np.ones((size, size), dtype=bool)
        grid[cell] = False
        return Instance(Board(grid), parse_pieces("L3"))

    if method == "golomb":
        ids = golomb(n, cell)
    else:
        result = solve(make_instance(), encoding=encoding, solver=solver)
        if result.verdict != "solved":
            raise AssertionError("BUG: a deficient 2^n board has an L-tromino tiling")
        ids = ids_from_tiling(result.tilings[0], size)
    check_tromino_array(ids, cell)  # independent, vectorised
    instance = tiling = None
    if n <= 8 or svg or png:
        instance = make_instance()
        tiling = verify_tiling(instance, tiling_from_ids(ids))
    try:
        if out is None:
            write_numbers(ids, cell, sys.stdout)
        else:
            with open(out, "w") as f:
                write_numbers(ids, cell, f)
    except OSError as e:
        raise TilesatError(f"cannot write: {e.strerror or e}") from None
    if tiling is not None:
        save_pictures(instance, [tiling], [svg, png])
    _err().print(f"{size}x{size} board, hole at {cell}, {(size * size - 1) // 3} trominoes by {method}, "
                 f"verified, {time.perf_counter() - t0:.2f} s", markup=False)


@app.command("info")
@friendly
def info_cmd(
    file: FileArg,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    as_json: JsonOpt = False,
):
    """Cells, pieces, placements, formula sizes per encoding, quick impossibility checks."""
    instance = _load(file, pieces, wrap)
    board = instance.board
    placements = generate_placements(instance)
    per_rule = [int((placements.rule == k).sum()) for k in range(len(instance.rules))]
    checks = {
        "area": area_check(instance),
        "regions": region_check(instance),
        "placements": placement_check(placements),
    }
    sizes = {}
    for name in ENCODINGS:
        f = compile_formula(placements, name, card)
        sizes[name] = {"variables": f.nvars, "clauses": f.nclauses, "literals": f.nliterals}
    data = {
        "board": {"rows": board.rows, "cols": board.cols, "wrap": board.wrap, "open": board.area,
                  "blocked": board.rows * board.cols - board.area},
        "pieces": [
            {"piece": r.name, "size": r.piece.size, "orient": r.orient, "count": r.count_text(),
             "orientations": len(r.piece.orientations(r.orient)), "placements": n}
            for r, n in zip(instance.rules, per_rule)
        ],
        "placements": len(placements),
        "candidates_per_cell": round(placements.candidates_per_cell(), 2),
        "auto_encoding": resolve_encoding("auto", placements),
        "search_method": choose_search_method(instance)[0],
        "encodings": sizes,
        "card": card,
        "checks": checks,
    }
    if as_json:
        print(json.dumps(data))
        return
    out = _out()
    out.print(
        f"board: {board.rows} x {board.cols}, wrap {board.wrap}, {board.area} open cells, "
        f"{data['board']['blocked']} blocked", markup=False,
    )
    t = Table("piece", "size", "orientations", "count", "placements", title="pieces", title_justify="left")
    for p in data["pieces"]:
        t.add_row(p["piece"], str(p["size"]), f"{p['orientations']} ({p['orient']})", p["count"], str(p["placements"]))
    out.print(t)
    out.print(f"placements: {len(placements)}, {data['candidates_per_cell']} per open cell on average: "
              f"--encoding auto picks {data['auto_encoding']}; check-unique's --method auto picks {data['search_method']}",
              markup=False)
    t = Table("encoding", "variables", "clauses", "literals", title=f"formula (counts with {card})", title_justify="left")
    for name, s in sizes.items():
        t.add_row(name, str(s["variables"]), str(s["clauses"]), str(s["literals"]))
    out.print(t)
    for name, reason in checks.items():
        out.print(f"check {name}: {'ok' if reason is None else 'IMPOSSIBLE: ' + reason}", markup=False)


@app.command("pieces")
@friendly
def pieces_cmd(
    name: Annotated[Optional[str], typer.Argument(help="A set (pentominoes, ...) or piece name; all when omitted.")] = None,
):
    """Show built-in pieces as drawn (the 'fixed' orientation)."""
    if name is None:
        items = [builtin_piece(n) for n in builtin_names()]
    elif name.lower() in SET_SIZES:
        items = list(piece_set(name.lower()))
    else:
        try:
            items = [builtin_piece(name)]
        except KeyError:
            raise TilesatError(f"unknown piece or set {name!r}; sets are {', '.join(SET_SIZES)}") from None
    out = _out()
    for p in items:
        out.print(f"{p.name:8} {p.size}  {p.drawing()}", markup=False)


def _version(value: bool):
    if value:
        print(f"tilesat {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
):
    pass


def main() -> None:
    app(prog_name="tilesat")


if __name__ == "__main__":
    sys.exit(main())
