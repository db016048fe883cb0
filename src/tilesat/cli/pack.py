"""pack: a maximum packing, and proof that one more piece does not fit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import plural
from ..sat.options import SatOptions
from ..sat.objectives import OBJECTIVES
from ..questions.pack import METHODS, PackRequest, answer_pack
from ..showing.pictures import save_pictures
from ..engines.portfolio import check_jobs
from ..sat.proof import check_proof_dir, write_pack_proof
from ..showing.render import plain_rows, rich_tiling
from .groups import SAT, SHOW, SOURCE, Group, Show, Source, with_groups
from .root import app
from .search import BreakSymmetryOpt
from .common import EXIT_NONE, EXIT_TIMEOUT, JobsOpt, _out, _progress, friendly, in_colour, interrupted_exit, run_limit


def _pack_request(v: dict) -> PackRequest:
    return PackRequest(v["objective"], v["method"], check_jobs(v["jobs"]), v["break_symmetry"])


#: pack's options: what to maximise, and how.
PACK = Group({
    "objective": (Annotated[str, typer.Option("--objective", help=f"{' or '.join(OBJECTIVES)}: maximise the number of pieces or of covered cells.")], "pieces"),
    "method": (Annotated[str, typer.Option("--method", help=f"{' or '.join(METHODS)}: incremental raises a totalizer bound until UNSAT, rc2 is PySAT's MaxSAT.")], "incremental"),
    "jobs": (JobsOpt, "1"),
    "break_symmetry": (BreakSymmetryOpt, False),
}, _pack_request)


@app.command("pack")
@friendly
@with_groups
def pack_cmd(
    source: Source = SOURCE,
    request: PackRequest = PACK,
    sat: SatOptions = SAT,
    show: Show = SHOW,
    proof: Annotated[Optional[Path], typer.Option("--proof", help="Write the proof that one more is impossible here: an LP-duality certificate when the LP bound is met, else the CNF and its DRAT proof.")] = None,
):
    """Maximum packing: as many pieces (or covered cells) as fit, and proof that one more does not.

    Open cells may stay empty; piece counts in the file still hold. Exit 0 with
    the optimum, 3 when no packing keeps the piece counts, 130 interrupted,
    124 at --timeout (the best packing so far is shown as a lower bound)."""
    instance = source.load()
    if proof is not None:
        check_proof_dir(proof)
    show.check()
    with _progress() as progress:
        with run_limit(sat.timeout):
            result = answer_pack(instance, request, sat, progress)
        if proof is not None and result.proved:
            if progress:
                progress("writing the LP-duality certificate" if result.bound_certificate is not None
                         else "writing the DRAT proof")
            write_pack_proof(instance, proof, result, sat.encoding, sat.card)
            result.proof = str(proof)
    if result.packing is not None:
        save_pictures(instance, [result.packing], show.pictures)
    unit = "covered cells" if request.objective == "cells" else "pieces"
    if show.json:
        print(json.dumps(result.to_json()))
    else:
        out = _out()
        if result.optimum is None and result.proved:
            out.print("none: no packing keeps the piece counts (the solver proved it)", markup=False)
        elif result.optimum is None:
            out.print(f"{_stopped(result)} before the first packing was found", markup=False)
        else:
            if result.proved:
                how = ("the LP relaxation's bound" if result.stats.get("lp_bound_met")
                       else f"{result.stats['solver']}, {result.method}")
                if not result.stats.get("lp_bound_met") and (result.stats.get("symmetry_breaking") or {}).get("symmetries"):
                    how += ", on the symmetry-broken formula"
                out.print(f"optimum: {result.optimum} {unit}; {result.optimum + 1} is impossible "
                          f"(proved: {how})", markup=False)
            else:
                out.print(f"at least {result.optimum} {unit} ({_stopped(result)}: not proved optimal)", markup=False)
            used = ", ".join(f"{n} x {name}" for name, n in sorted(Counter(t.piece for t in result.packing).items()))
            out.print(f"a packing with {plural(len(result.packing), 'piece')} ({used}), "
                      f"{sum(len(t.cells) for t in result.packing)} of {instance.board.area} cells covered", markup=False)
            out.print(rich_tiling(instance, result.packing) if in_colour(out) else "\n".join(plain_rows(instance, result.packing)), markup=False)
        s = result.stats
        if out.is_terminal and "variables" in s:
            out.print(f"{s['variables']} variables, {s['clauses']} clauses, {s['encoding']} + {s['solver']}, "
                      f"bounds found {result.steps}, {s['seconds']:.3f} s", style="dim", markup=False)
        if result.proof:
            kind = "an LP-duality certificate, no SAT call; " if result.bound_certificate is not None else ""
            out.print(f"proof written to {result.proof} ({kind}check it with: tilesat verify-proof {result.proof})", markup=False)
    if not result.proved:
        raise typer.Exit(EXIT_TIMEOUT) if result.stopped == "timeout" else interrupted_exit()
    raise typer.Exit(EXIT_NONE if result.optimum is None else 0)


def _stopped(result) -> str:
    return "time limit reached" if result.stopped == "timeout" else "interrupted"
