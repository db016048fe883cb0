"""export, decode, verify-proof: the CNF in DIMACS for outside solvers, and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..sat.dimacs import decode_answer, read_answer
from ..sat.encodings import DEFAULT_ENCODING
from ..errors import TilesatError, plural
from ..running.inputs import read_json, read_text
from ..sat.formula import DEFAULT_CARD
from ..model.instance import Instance
from ..reports.export import ExportRequest, export_formula
from ..sat.options import SatOptions
from ..sat.proof import ProofError, verify_proof
from ..questions.solve import Result
from ..model.tiling import Tiling
from ..certify.verify import problems
from .groups import SOURCE, Source, with_groups
from .root import app
from .common import (
    EXIT_MULTIPLE, EXIT_NONE, EXIT_UNIQUE, CardOpt, EncodingOpt, FileArg, JsonOpt, PiecesOpt, WrapOpt, check_outputs,
    _err, _load, _out, friendly,
)
from .search import _report


#: What the files export and decode read may hold (a tiling lists each cell
#: once; a model each variable once: a 1000x1000 board's are ~20 MB and ~60 MB).
MAX_TILING_BYTES, MAX_MODEL_BYTES = 64 << 20, 256 << 20


@app.command("export")
@friendly
@with_groups
def export_cmd(
    source: Source = SOURCE,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Where to write the CNF (.cnf, .cnf.gz or .cnf.xz).")] = None,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    card: CardOpt = DEFAULT_CARD,
    block: Annotated[Optional[Path], typer.Option("--block", help="A tiling (JSON from solve --json) to forbid: asks 'is there another?'.")] = None,
    map_file: Annotated[Optional[Path], typer.Option("--map", help="Write the variable -> placement map as JSON here instead of 'c placement' lines.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")] = False,
    xmpuzzle: Annotated[Optional[Path], typer.Option("--xmpuzzle", help="Instead of the CNF: write the instance as a BurrTools file (.xmpuzzle) here; a BurrTools file is written back whole (with FILE:PROBLEM, that problem only).")] = None,
):
    """Write the instance's CNF in DIMACS, for any SAT solver or model counter (or, with --xmpuzzle, a BurrTools file)."""
    if (output is None) == (xmpuzzle is None):
        raise TilesatError("export writes the CNF (--output FILE) or a BurrTools file (--xmpuzzle FILE): give one of them")
    if xmpuzzle is not None:
        from .burrtools import export_xmpuzzle

        if block is not None or map_file is not None:
            raise TilesatError("--block and --map are about the CNF; --xmpuzzle writes the puzzle only")
        export_xmpuzzle(source, xmpuzzle, force)
        return
    instance = source.load()
    check_outputs({"--output": output, "--map": map_file}, force)
    blocked = _read_tiling(block, instance) if block is not None else None
    message = export_formula(instance, ExportRequest(output, encoding, card, blocked, map_file, str(source.file)))
    _err().print(message, markup=False)


def _read_tiling(path: Path, instance: Instance) -> Tiling:
    """--block's tiling (the JSON of solve --json, or its list of tiles), checked to be a
    tiling of this instance: another board's tiling is one line, not a traceback."""
    data = read_json(path, MAX_TILING_BYTES, what="tiling file", why="a tiling is a few bytes a cell of its board")
    if isinstance(data, dict) and isinstance(data.get("tilings"), list) and data["tilings"]:
        data = data["tilings"][0]
    if not (isinstance(data, list) and all(_is_tile(t) for t in data)):
        raise TilesatError(f"{path}: not a tiling (expected the JSON of 'tilesat solve --json' or a list of tiles "
                           '{"piece": NAME, "cells": [[ROW, COL], ...]})')
    if not data:
        raise TilesatError(f"{path}: the tiling has no tile: blocking it would make the formula unsatisfiable")
    tiling = Tiling.from_json(data)
    not_this_board = f"{path}: the blocked tiling is not a tiling of {instance.source}"
    for tile in tiling:
        if off := next((cell for cell in tile.cells if not instance.board.contains(cell)), None):
            raise TilesatError(f"{not_this_board}: {tile.piece} covers {off}, off the board")
    if wrong := problems(instance, tiling):
        raise TilesatError(f"{not_this_board}: {wrong[0]}")
    return tiling


def _is_tile(tile) -> bool:
    if not isinstance(tile, dict):
        return False
    cells = tile.get("cells")
    return (isinstance(tile.get("piece"), str) and isinstance(cells, list) and bool(cells)
            and all(isinstance(c, list) and 2 <= len(c) <= 3 and all(type(x) is int for x in c) for c in cells))


@app.command("decode")
@friendly
def decode_cmd(
    file: FileArg,
    model: Annotated[Path, typer.Argument(help="A solver's output: 's'/'v' lines, or a bare list of literals.", show_default=False)],
    encoding: EncodingOpt = DEFAULT_ENCODING,
    card: CardOpt = DEFAULT_CARD,
    pieces: PiecesOpt = None,
    wrap: WrapOpt = None,
    block: Annotated[Optional[Path], typer.Option("--block", help="The tiling the CNF was exported with --block: UNSAT then means 'no other tiling' (exit 0), SAT 'another tiling' (exit 1), as check-unique.")] = None,
    as_json: JsonOpt = False,
):
    """Turn an external solver's answer on an exported CNF back into a verified tiling (exit 0; 3 none).
    With --block: 'no other tiling' (exit 0) or 'another tiling' (exit 1)."""
    instance = _load(file, pieces, wrap)
    blocked = _read_tiling(block, instance) if block is not None else None
    text = read_text(model, MAX_MODEL_BYTES, what="solver's output",
                     why="a solver's model of a tilesat formula is a few bytes a variable")
    answer = read_answer(text, where=str(model))
    verdict, tilings, formula = decode_answer(instance, answer, encoding, card, blocked, where=str(model))
    reason = {"none": "the solver said UNSATISFIABLE",
              "unique": f"the solver said UNSATISFIABLE with the tiling of {block} forbidden"}.get(verdict)
    result = Result(verdict, tilings, reason,
                    {"placements": formula.nplacements, "variables": formula.nvars,
                     "clauses": formula.nclauses + (block is not None), "encoding": formula.encoding, "card": card,
                     "solver": "external", "seconds": 0.0})
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        _report(instance, result, {
            "solved": f"solved: a tiling with {{tiles}} (decoded from {model})",
            "unique": f"unique: no other tiling: the one in {block} is the only one (the solver said UNSATISFIABLE)",
            "multiple": f"multiple: another tiling (decoded from {model}); it differs from the one in {block} at {{ndiff}} cells (marked *)",
        }.get(verdict, ""))
    raise typer.Exit({"solved": 0, "none": EXIT_NONE, "unique": EXIT_UNIQUE, "multiple": EXIT_MULTIPLE}[verdict])


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


@app.command("export-family")
@friendly
def export_family_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="lpanel, hard-packing, mutilated, pentomino-rectangles or packing.", show_default=False)],
    sizes: Annotated[str, typer.Option("--sizes", help="Comma-separated sizes: N (N x N; for pentomino-rectangles N x 60/N) or RxC.")],
    out: Annotated[Path, typer.Option("--out", help="The directory to write into (created if need be).")],
    seed: Annotated[int, typer.Option("--seed", help="Random seed (lpanel, hard-packing).")] = 1,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    card: CardOpt = DEFAULT_CARD,
    piece: Annotated[Optional[str], typer.Option("--piece", help="The piece of hard-packing (default Y5) and packing (default T5).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
):
    """Write a benchmark family: DIMACS files, a metadata JSON per instance (expected answer, how it is known), an index."""
    from ..making.families import INDEX, parse_sizes, write_family

    parsed = parse_sizes(sizes, name)
    err = _err()
    index = write_family(name, parsed, out, seed=seed, piece=piece, force=force, options=SatOptions(encoding, card=card),
                         progress=lambda message: err.print(f"making {message}", markup=False) if err.is_terminal else None)
    for item in index:
        exp = item["expected"]
        count = f", {plural(exp['tilings'], 'tiling')}" if exp["tilings"] is not None else ""
        _out().print(f"{out / item['cnf']}: expected {exp['answer']}{count}", markup=False)
    err.print(f"wrote {plural(len(index), 'instance')} and {out / INDEX.format(family=name)}", markup=False)
