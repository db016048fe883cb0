"""solve and check-unique: one search each, reported as pictures or JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..model.instance import Instance
from ..showing.printing import Drawings
from ..showing.tiling_files import write_tilings
from ..sat.proof import check_proof_dir, write_certificate_proof, write_proof
from ..showing.render import diff_rows, plain_rows, rich_side_by_side, rich_tiling, rich_weights, side_by_side, weight_rows
from ..sat.options import SatOptions
from ..errors import TilesatError, plural
from ..engines.portfolio import check_jobs
from ..certify.schedule import certificate_mode
from ..questions.solve import UNIQUE_REFUSAL, FindRequest, Result
from ..reports.found import Look, look as answer
from ..model.tiling import differing_cells
from .groups import FOUND, SAT, SOURCE, Group, Show, Source, with_groups
from .root import app
from .common import (
    EXIT_MULTIPLE, EXIT_NONE, EXIT_TIMEOUT, EXIT_UNIQUE, JobsOpt, MethodOpt, ProofOpt, answered, check_draw, _err, in_colour,
    _out, _progress, friendly, run_limit, writing,
)


#: How many deductions --explain prints.
EXPLAINED = 10

#: Boards wider than this show the certificate's sentence, not its grid of weights.
WEIGHTS_SHOWN_COLUMNS = 40

CertificateOpt = Annotated[Optional[bool], typer.Option(
    "--certificate/--no-certificate", show_default=False,
    help="Look for a weighted colouring proving 'no tiling' (linear programming) before the search "
         "(--certificate), or never (--no-certificate). By default: where it is worth it, after the search "
         "has run for as long as the LP is expected to take (see info).")]


BreakSymmetryOpt = Annotated[bool, typer.Option(
    "--break-symmetry",
    help="Add lex-leader clauses for the board's symmetries (rotations, reflections, wrap shifts): "
         "the same verdict, often a faster proof of 'none' or of an optimum (see the docs: guide/packing.md, 'Symmetry breaking').")]


def _stats_line(result: Result) -> str:
    s = result.stats
    seconds = s.get("seconds", 0.0)
    if s.get("method") == "dlx":
        return f"dancing links (xcover), {s.get('placements') or 0} placements, {seconds:.3f} s"
    size = f"{s['variables']} variables, {s['clauses']} clauses, " if s.get("variables") is not None else ""
    conflicts = f", {s['conflicts']:,} conflicts" if s.get("conflicts") else ""
    won = ""
    if (race := s.get("portfolio")) and race.get("winner"):
        won = f", won by {race['winner']} ({race.get('winner_config')}) of {race['jobs']} racing"
    return f"{size}{s.get('encoding')} + {s.get('solver')}{conflicts}{won}, {seconds:.3f} s"


def _unknown_text(result: Result) -> str:
    limit = f"the time limit of {result.stats['timeout']:g} s passed" if result.stats.get("timeout") else "time ran out"
    if result.tilings:
        return f"unknown: {limit} after one tiling (shown); whether there is another is not known"
    return f"unknown: {limit} before a tiling was found or ruled out"


def _none_text(result: Result) -> str:
    if result.reason:
        return f"none: no tiling exists ({result.reason})"
    if result.stats.get("method") == "dlx":
        return "none: no tiling exists (dancing links tried every placement)"
    if (broken := result.stats.get("symmetry_breaking")) and broken["symmetries"]:
        return (f"none: no tiling exists (the solver proved it on the symmetry-broken formula: lex-leader "
                f"clauses for {', '.join(broken['symmetries'])})")
    return "none: no tiling exists (the solver proved it)"


def _show_certificate(instance: Instance, cert) -> None:
    out = _out()
    if instance.board.cols > WEIGHTS_SHOWN_COLUMNS:
        out.print(f"(the weights of the {instance.board.area} open cells: see --json, --svg or --png)", markup=False)
        return
    what = f"cell weights mod {cert.modulus}" if cert.modulus is not None else "cell weights"
    rules = ", ".join(f"{name} {mu:+d}" for name, mu in sorted(cert.rules.items()))
    out.print(f"{what}{'; piece multipliers: ' + rules if rules else ''}:", markup=False)
    out.print(rich_weights(instance, cert.weights) if in_colour(out) else "\n".join(weight_rows(instance, cert.weights)),
              markup=False)


def _report(instance: Instance, result: Result, headline: str) -> None:
    out = _out()
    tilings = result.tilings
    if result.verdict == "none":
        out.print(_none_text(result), markup=False)
        if result.certificate is not None:
            _show_certificate(instance, result.certificate)
    elif result.verdict == "unknown":
        out.print(_unknown_text(result), markup=False)
        if tilings:
            out.print(rich_tiling(instance, tilings[0]) if in_colour(out) else "\n".join(plain_rows(instance, tilings[0])), markup=False)
    elif len(tilings) == 1:
        out.print(headline.format(tiles=plural(len(tilings[0]), "tile")), markup=False)
        out.print(rich_tiling(instance, tilings[0]) if in_colour(out) else "\n".join(plain_rows(instance, tilings[0])), markup=False)
    else:
        diff = differing_cells(tilings[0], tilings[1])
        out.print(headline.format(ndiff=len(diff)), markup=False)
        titles = ["tiling 1", "tiling 2"]
        if in_colour(out):
            out.print(rich_side_by_side(instance, tilings, titles, diff))
        else:
            blocks = [plain_rows(instance, t) for t in tilings] + [diff_rows(instance, diff)]
            out.print(side_by_side(blocks, titles + ["differ (*)"]), markup=False)
    if out.is_terminal:
        out.print(_stats_line(result), style="dim", markup=False)
    if result.stats.get("proof"):
        out.print(f"proof written to {result.stats['proof']} (check it with: tilesat verify-proof {result.stats['proof']})", markup=False)



#: The first line of each verdict that has tilings to show.
HEADLINES = {"solved": "solved: a tiling with {tiles}", "unique": "unique: exactly one tiling",
             "multiple": "multiple: at least two tilings; they differ at {ndiff} cells (marked *)"}


def _search(look: Look, source: Source, sat: SatOptions, show: Show, proof: Optional[Path]) -> Result:
    """What solve and check-unique share: load, search with progress (and grade), prove, draw, show."""
    check_draw(show.draw)
    instance = source.load()
    if proof is not None:
        check_proof_dir(proof)
    show.check()
    with _progress() as progress, run_limit(sat.timeout):
        found = answer(instance, look, sat, progress)
    result, graded = found.result, found.graded
    if proof is not None and result.certificate is not None:
        write_certificate_proof(instance, proof, result.certificate)
        result.stats["proof"] = str(proof)
    elif proof is not None and result.verdict in ("none", "unique"):
        broken = (result.stats.get("symmetry_breaking") or {}).get("symmetries") or None
        write_proof(instance, proof, result.verdict, (result.tilings or [None])[0], sat.encoding, sat.card,
                    symmetries=broken)
        result.stats["proof"] = str(proof)
    drawings = Drawings(show.svg, show.png, show.pdf, show.draw or "solution", show.draw or "both", show.cell)
    unwritten = found.draw(drawings, Path(source.file).stem)
    if show.out is not None and result.tilings:
        with writing(show.out):
            write_tilings(instance, result.tilings, show.out)
    elif show.out is not None:
        unwritten.append(show.out)
    answered()  # a Ctrl-C from here neither cuts the answer short nor says there was none
    if show.json:
        print(json.dumps(found.document()))
    else:
        _report(instance, result, HEADLINES.get(result.verdict, ""))
        if graded is not None:
            _out().print(graded.sentence(), markup=False)
            if found.explain:
                for i, step in enumerate(graded.steps, 1):
                    _out().print(f"  {i}. {step}", markup=False)
    for path in unwritten:
        what = "write" if path == show.out else "draw"
        hint = "" if path == show.out else " (--draw puzzle draws the board)"
        _err().print(f"note: {path} not written: there is no tiling to {what}{hint}", markup=False)
    if proof is not None and "proof" not in result.stats:
        _err().print(f"note: --proof {proof}: nothing written: {NOTHING_TO_PROVE.get(result.verdict, 'nothing to prove')}",
                     markup=False)
    return result


#: Why --proof writes nothing for a verdict that does not rest on unsatisfiability.
NOTHING_TO_PROVE = {
    "solved": "a tiling is its own proof (shown), there is no unsatisfiability to prove",
    "multiple": "two tilings are their own proof (shown), there is no unsatisfiability to prove",
    "unknown": "the time limit passed before anything was proved",
}


def _find(v: dict) -> FindRequest:
    return FindRequest(v["method"], certificate_mode(v["certificate"]), check_jobs(v["jobs"]))


#: solve's and check-unique's shared options: how to look for tilings.
FIND = Group({"method": (MethodOpt, "auto"), "certificate": (CertificateOpt, None), "jobs": (JobsOpt, "1")}, _find)


@app.command("solve")
@friendly
@with_groups
def solve_cmd(
    source: Source = SOURCE,
    find: FindRequest = FIND,
    sat: SatOptions = SAT,
    show: Show = FOUND,
    proof: ProofOpt = None,
    break_symmetry: BreakSymmetryOpt = False,
):
    """Find one tiling of the board, or show that there is none (exit 3); 124 when --timeout passed first."""
    result = _search(Look("solve", replace(find, break_symmetry=break_symmetry)), source, sat, show, proof)
    raise typer.Exit({"solved": 0, "none": EXIT_NONE, "unknown": EXIT_TIMEOUT}[result.verdict])


@app.command("check-unique")
@friendly
@with_groups
def check_unique_cmd(
    source: Source = SOURCE,
    find: FindRequest = FIND,
    sat: SatOptions = SAT,
    show: Show = FOUND,
    proof: ProofOpt = None,
    grading: Annotated[bool, typer.Option("--grade/--no-grade", help="Grade a unique board: how far deduction goes before any guess (easy, medium, hard).")] = True,
    explain: Annotated[bool, typer.Option("--explain", help=f"Also print the first {EXPLAINED} deductions in words (with --json: the grade's 'steps').")] = False,
    # hidden: refused (one tiling per symmetry class cannot tell unique from multiple), but said why when given
    break_symmetry: Annotated[bool, typer.Option("--break-symmetry", hidden=True)] = False,
):
    """Is the tiling unique? Exit 0 unique, 1 multiple (both shown), 3 none, 124 unknown (--timeout passed)."""
    if break_symmetry:
        raise TilesatError(UNIQUE_REFUSAL)
    result = _search(Look("check-unique", find, (EXPLAINED if explain else 0) if grading else None), source, sat, show, proof)
    raise typer.Exit({"unique": EXIT_UNIQUE, "multiple": EXIT_MULTIPLE, "none": EXIT_NONE,
                      "unknown": EXIT_TIMEOUT}[result.verdict])
