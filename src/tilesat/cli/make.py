"""generate and tromino: commands that make boards rather than read them."""

from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from ..model.board import Board
from ..running.control import check_timeout
from ..sat.options import SatOptions
from ..sat.encodings import DEFAULT_ENCODING
from ..errors import TilesatError
from ..making.generate import DIFFICULTIES, PuzzleSpec
from ..reports.generate import GenerateRequest, board_of, generate
from ..model.grids import GRIDS
from ..model.instance import Instance, parse_pieces
from ..showing.pictures import save_pictures
from ..showing.printing import Drawings, save_drawings
from ..questions.solve import solve
from ..sat.solvers import DEFAULT_SOLVER
from ..making.tromino import check_tromino_array, golomb, ids_from_tiling, tiling_from_ids, write_numbers
from ..certify.verify import verify_tiling
from .groups import DRAWINGS, PICTURES, Group, Show, with_groups
from .root import app
from .common import (
    EXIT_TIMEOUT, EncodingOpt, SolverOpt, TimeoutOpt, _err, _progress, friendly, interrupted_exit, one_of,
    run_limit, writing
)


DifficultyOpt = Annotated[Optional[str], typer.Option(
    "--difficulty", help=f"Make a puzzle of this grade: {one_of(DIFFICULTIES)} (see check-unique's grade); "
                         "by default whatever is quickest (easy).")]


#: generate's options: what kind of puzzle.
SPEC = Group({
    "seed": (Annotated[int, typer.Option("--seed", help="Random seed: the same seed gives the same board.")], 1),
    "blocked": (Annotated[Optional[int], typer.Option("--blocked", min=0, help="Pack by SAT, letting this many random cells stay black (default: a greedy random packing; with piece counts, 15%).")], None),
    "difficulty": (DifficultyOpt, None),
    "grid": (Annotated[str, typer.Option("--grid", help=f"The grid: {one_of(GRIDS)}.")], "square"),
}, lambda v: PuzzleSpec(**v))


@app.command("generate")
@friendly
@with_groups
def generate_cmd(
    size: Annotated[str, typer.Option("--size", help="ROWSxCOLS, e.g. 12x12 (cube grid: LAYERSxROWSxCOLS, e.g. 3x4x4).")],
    pieces: Annotated[str, typer.Option("--pieces", help="Pieces, e.g. L4, 'L3, I3' or pentominoes:1 (counts: each try a new packing).")] = "L4",
    spec: PuzzleSpec = SPEC,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the instance here instead of printing it.")] = None,
    timeout: TimeoutOpt = None,
    show: Show = DRAWINGS,
):
    """Make a board with exactly one tiling (a puzzle), in the instance format, and grade it. Exit 124 at --timeout, 130 on Ctrl-C (nothing written)."""
    check_timeout(timeout)
    request = GenerateRequest(size, pieces, spec)
    board_of(request)  # the size and difficulty, before the outputs are checked
    show.check(**{"--out": out})
    try:
        with _progress() as progress, run_limit(timeout):
            made = generate(request, timeout, progress)
    except KeyboardInterrupt:
        _err().print("interrupted: no unique board yet; nothing written", markup=False)
        raise interrupted_exit() from None
    if made.puzzle is None:
        if show.json:
            print(json.dumps(made.document()))
        else:
            _err().print(made.message, markup=False)
        raise typer.Exit(EXIT_TIMEOUT)
    if out is not None:
        with writing(out):
            out.write_text(made.text)
    drawings = Drawings(show.svg, show.png, show.pdf, show.draw or "puzzle", show.draw or "both", show.cell)
    save_drawings(made.puzzle.instance, [made.puzzle.solution], drawings, title=made.title,
                  notes=[made.puzzle.grade.sentence()])
    if show.json:
        print(json.dumps(made.document(out)))
    elif out is None:
        sys.stdout.write(made.text)
    _err().print(made.message, markup=False)


@app.command("tromino")
@friendly
@with_groups
def tromino_cmd(
    n: Annotated[int, typer.Argument(help="The board is 2^N x 2^N.", show_default=False)],
    hole: Annotated[Optional[str], typer.Option("--hole", help="R,C of the missing cell (0-based); random when omitted.")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed for the random hole.")] = None,
    method: Annotated[str, typer.Option("--method", help="golomb (the construction) or sat (the normal pipeline, practical to N = 8).")] = "golomb",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the numbered board here instead of printing it.")] = None,
    encoding: EncodingOpt = DEFAULT_ENCODING,
    solver: SolverOpt = DEFAULT_SOLVER,
    pictures: Show = PICTURES,
):
    """Tile the 2^N x 2^N board minus one cell with numbered L-trominoes (Golomb)."""
    svg, png = pictures.svg, pictures.png
    limit = {"golomb": 13, "sat": 10}.get(method)
    if limit is None:
        raise TilesatError(f"unknown tromino method {method!r}; use golomb or sat")
    asked = [name for name, value, default in (("encoding", encoding, DEFAULT_ENCODING), ("solver", solver, DEFAULT_SOLVER))
             if value != default]
    if method == "golomb" and asked:
        raise TilesatError(f"--{', --'.join(asked)}: --method golomb is a construction and uses no SAT solver; "
                           "they are for --method sat")
    SatOptions(encoding, solver)  # the names, checked before any work
    if not 1 <= n <= limit:
        raise TilesatError(f"N must be between 1 and {limit} for --method {method}")
    if (svg or png) and n > 10:
        raise TilesatError("pictures are drawn up to N = 10 (1024x1024)")
    pictures.check(**{"--out": out})
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
    if out is None:
        write_numbers(ids, cell, sys.stdout)
        sys.stdout.flush()  # a full disk is reported before the summary line, not after
    else:
        with writing(out), open(out, "w") as f:
            write_numbers(ids, cell, f)
    if tiling is not None:
        save_pictures(instance, [tiling], [svg, png])
    _err().print(f"{size}x{size} board, hole at {cell}, {(size * size - 1) // 3} trominoes by {method}, "
                 f"verified, {time.perf_counter() - t0:.2f} s", markup=False)
