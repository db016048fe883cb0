"""Benchmark families: DIMACS instances with known answers, for solver competitions.

``write_family(NAME, sizes, DIR)`` writes, per member, ``NAME-RxC….cnf``
(the tiling formula, or for ``packing`` the packing formula plus "at least
k pieces") and ``….json`` (its metadata: generator, parameters, the instance
text, the question, the expected answer and how it is known), and one
``index-NAME.json`` listing them.  The families:

- ``lpanel``: L-Panel puzzles made by :func:`tilesat.making.generate.generate_unique`
  (L-tetrominoes, unique by construction, confirmed by check-unique): SAT, 1 tiling;
- ``hard-packing``: a random dense packing of one piece (SAT with random
  phases), the cells it leaves empty blocked: SAT by construction (the
  packing, kept in the metadata, is a tiling); the count is not known;
- ``mutilated``: the n x n board without two opposite corners, dominoes:
  UNSAT (both corners have one colour, every domino covers one of each);
- ``pentomino-rectangles``: the 12 pentominoes once each in 3x20, 4x15,
  5x12, 6x10 (and Scott's 8x8 without its centre): SAT, with the published counts;
- ``packing``: copies of one pentomino on an n x n board, "at least k
  placed", at k = the proved optimum (SAT) and k = optimum + 1 (UNSAT).

Everything is deterministic for a seed, so a family can be written again.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import __version__
from ..model.board import Board
from ..sat.dimacs import open_text, write_dimacs
from ..sat.encodings import DEFAULT_ENCODING
from ..errors import TilesatError
from ..sat.formula import DEFAULT_CARD, compile_formula
from ..model.instance import Instance, format_instance, parse_instance, parse_pieces
from ..model.placements import generate_placements
from ..model.tiling import Tile, Tiling
from ..sat.options import SatOptions
from ..certify.verify import verify_tiling

FAMILIES = ("lpanel", "hard-packing", "mutilated", "pentomino-rectangles", "packing")
INDEX = "index-{family}.json"  # one per family: several families may share a directory

#: The 12 pentominoes once each: tilings of each board (all of them, not up
#: to symmetry: 4 per class on a rectangle, 8 on the square), as published
#: (6x10: Haselgrove 1960; 3x20 .. 5x12 and Scott's 8x8: Knuth, "Dancing Links", 2000).
PENTOMINO_COUNTS = {(3, 20): 8, (4, 15): 1472, (5, 12): 4040, (6, 10): 9356, (8, 8): 520}

#: The most copies of a pentomino on an n x n board: docs/benchmarks/packing.md
#: (``scripts/packing_table.py``, each optimum proved by tilesat pack; the 8x8 row is the published one).
PACKING_OPTIMA = {
    "T5": {5: 4, 6: 5, 7: 8, 8: 10, 9: 13, 10: 17, 11: 21, 12: 25},
    "X5": {5: 2, 6: 4, 7: 6, 8: 8, 9: 10, 10: 13, 11: 17, 12: 20},
}
DEFAULT_PIECE = {"hard-packing": "Y5", "packing": "T5"}  # Y5: CaDiCaL needs seconds from 16x16 on (P5: 0.1 s)


@dataclass
class Member:
    """One instance of a family, before it is written."""

    name: str
    instance: Instance
    answer: str  # "SAT" or "UNSAT"
    how: str  # how the answer is known
    tilings: int | None = None  # the number of tilings, when known
    at_least: int | None = None  # packing: the question is "at least this many pieces"
    parameters: dict = field(default_factory=dict)
    generator: str = ""
    extra: dict = field(default_factory=dict)  # e.g. the intended tiling of a random packing


def parse_sizes(text: str, family: str) -> list[tuple[int, int]]:
    """``10,12`` (squares) or ``6x10,5x12``; each size checked for the family."""
    if family not in FAMILIES:
        raise TilesatError(f"unknown family {family!r}; use one of: {', '.join(FAMILIES)}")
    sizes = []
    for token in (t.strip() for t in text.split(",")):
        m = re.fullmatch(r"([0-9]{1,4})(?:x([0-9]{1,4}))?", token)
        if not m:
            raise TilesatError(f"--sizes: {token!r} is not a size (use N or RxC, comma-separated)")
        rows = int(m.group(1))
        cols = int(m.group(2)) if m.group(2) else rows
        if family == "pentomino-rectangles" and not m.group(2) and rows in (3, 4, 5, 6):
            cols = 60 // rows  # "6" is the 6x10 rectangle
        sizes.append(_check_size(family, rows, cols))
    if len(set(sizes)) != len(sizes):
        raise TilesatError("--sizes: a size is given twice")
    return sizes


def _check_size(family: str, rows: int, cols: int) -> tuple[int, int]:
    if rows < 1 or cols < 1:
        raise TilesatError(f"--sizes: {rows}x{cols} is empty")
    if family == "mutilated" and (rows != cols or rows % 2 or rows < 2 or rows > 1000):
        raise TilesatError(f"--sizes: mutilated boards are even squares (2, 4, 6, … 1000), not {rows}x{cols}")
    if family == "pentomino-rectangles" and (min(rows, cols), max(rows, cols)) not in PENTOMINO_COUNTS:
        raise TilesatError(f"--sizes: the pentomino boards are 3x20, 4x15, 5x12, 6x10 and 8x8 (centre blocked), not {rows}x{cols}")
    if family in ("lpanel", "hard-packing") and (rows < 4 or cols < 4 or rows * cols > 200 * 200):
        raise TilesatError(f"--sizes: {family} boards are 4x4 to 200x200, not {rows}x{cols}")
    if family == "packing" and (rows != cols or rows < 3 or rows > 30):
        raise TilesatError(f"--sizes: packing boards are squares 3 to 30, not {rows}x{cols}")
    return rows, cols


def member_names(family: str, sizes: list[tuple[int, int]]) -> list[str]:
    """The members' names (file stems) in order, known before any work."""
    names = []
    for rows, cols in sizes:
        base = f"{family}-{rows}x{cols}"
        names += [f"{base}-optimum", f"{base}-beyond"] if family == "packing" else [base]
    return names


def _piece(family: str, piece: str | None) -> str:
    if piece is None:
        return DEFAULT_PIECE.get(family, "")
    if family not in DEFAULT_PIECE:
        raise TilesatError(f"--piece: the {family} family has fixed pieces")
    rules = parse_pieces(piece)  # a clear error for a bad name
    if len(rules) != 1 or rules[0].bounded:
        raise TilesatError("--piece: give one piece name without a count (e.g. T5)")
    return rules[0].name


def family_members(family: str, sizes: list[tuple[int, int]], seed: int = 1, piece: str | None = None,
                   progress: Callable[[str], None] | None = None):
    """The members of the family at these sizes, one at a time."""
    progress = progress or (lambda message: None)
    piece = _piece(family, piece)
    for rows, cols in sizes:
        progress(f"{family} {rows}x{cols}")
        if family == "lpanel":
            yield _lpanel(rows, cols, seed)
        elif family == "hard-packing":
            yield _hard_packing(rows, cols, seed, piece)
        elif family == "mutilated":
            yield _mutilated(rows)
        elif family == "pentomino-rectangles":
            yield _pentominoes(rows, cols)
        else:
            yield from _packing(rows, piece)


def _lpanel(rows: int, cols: int, seed: int) -> Member:
    from .generate import generate_unique

    instance, blacked = generate_unique(rows, cols, parse_pieces("L4"), seed=seed)
    return Member(f"lpanel-{rows}x{cols}", instance, "SAT",
                  "by construction (a random L4 packing, tiles blacked out until deduction settled the board), "
                  "confirmed unique by tilesat check-unique", tilings=1,
                  parameters={"rows": rows, "cols": cols, "pieces": "L4", "seed": seed, "blacked_out_tiles": blacked},
                  generator="tilesat.generate.generate_unique")


def _hard_packing(rows: int, cols: int, seed: int, piece: str) -> Member:
    """A random packing leaving few cells empty: SAT with random phases, where
    only a random ~8% of the cells may stay empty; the empty ones are blocked."""
    from pysat.solvers import Solver

    rng = random.Random(f"{seed}:{rows}x{cols}:{piece}")
    full = Instance(Board.rectangle(rows, cols), parse_pieces(piece))
    placements = generate_placements(full)
    formula = compile_formula(placements, "commander", allow_empty=True)
    n = rows * cols
    optional = max(4, n * 8 // 100)
    P = len(placements)
    for _ in range(50):
        may_skip = set(rng.sample(range(n), min(optional, n)))
        with Solver(name="cadical195") as solver:
            formula.add_to(solver.add_clause)
            for cell, v in enumerate(formula.empty_vars.tolist()):
                if cell not in may_skip:
                    solver.add_clause([-v])
            solver.set_phases([v if rng.random() < 0.5 else -v for v in range(1, P + 1)])
            if solver.solve():
                chosen = [v - 1 for v in solver.get_model()[:P] if v > 0]
                break
        optional += max(1, optional // 2)  # too tight: let more cells stay empty
    else:
        raise TilesatError(f"could not pack {piece} into {rows}x{cols}")
    mask = np.zeros(n, dtype=bool)
    tiles = []
    for p in chosen:
        cells = placements.cells_of(p)
        mask[cells] = True
        tiles.append(Tile(placements.piece_of(p).name, tuple(sorted(divmod(int(c), cols) for c in cells))))
    instance = Instance(Board(mask.reshape(rows, cols)), parse_pieces(piece))
    tiling = verify_tiling(instance, Tiling(tuple(sorted(tiles))))  # the witness: SAT for certain
    return Member(f"hard-packing-{rows}x{cols}", instance, "SAT",
                  "by construction: the random packing (intended_tiling) is a tiling, checked by tilesat's verifier",
                  parameters={"rows": rows, "cols": cols, "pieces": piece, "seed": seed,
                              "blocked_cells": int(n - mask.sum())},
                  generator="tilesat.families (random dense packing: SAT with random phases)",
                  extra={"intended_tiling": tiling.to_json()})


def _mutilated(n: int) -> Member:
    grid = np.ones((n, n), dtype=bool)
    grid[0, 0] = grid[n - 1, n - 1] = False
    return Member(f"mutilated-{n}x{n}", Instance(Board(grid), parse_pieces("I2")), "UNSAT",
                  "the colouring argument: both removed corners are one colour, every domino covers one of each",
                  tilings=0, parameters={"rows": n, "cols": n, "pieces": "I2", "removed": [[0, 0], [n - 1, n - 1]]},
                  generator="tilesat.families (mutilated chessboard)")


def _pentominoes(rows: int, cols: int) -> Member:
    grid = np.ones((rows, cols), dtype=bool)
    if (rows, cols) == (8, 8):
        grid[3:5, 3:5] = False  # Scott's problem
    count = PENTOMINO_COUNTS[(min(rows, cols), max(rows, cols))]
    return Member(f"pentomino-rectangles-{rows}x{cols}", Instance(Board(grid), parse_pieces("pentominoes:1")), "SAT",
                  "published counts (Haselgrove 1960 for 6x10; Knuth, Dancing Links, 2000), all tilings (not up to symmetry)",
                  tilings=count, parameters={"rows": rows, "cols": cols, "pieces": "pentominoes:1",
                                             "centre_blocked": (rows, cols) == (8, 8)},
                  generator="tilesat.families (the 12 pentominoes once each)")


def _packing(n: int, piece: str) -> list[Member]:
    instance = Instance(Board.rectangle(n, n), parse_pieces(piece))
    optimum = PACKING_OPTIMA.get(piece, {}).get(n)
    how = "tilesat pack, proved optimal (the table in docs/benchmarks/packing.md)"
    if optimum is None:
        from ..questions.pack import pack

        result = pack(instance, "pieces")
        if not result.proved:
            raise TilesatError(f"the optimum of {piece} on {n}x{n} was not proved")
        optimum, how = result.optimum, "computed now by tilesat pack, proved optimal"
    params = {"rows": n, "cols": n, "pieces": piece, "optimum": optimum}
    generator = "tilesat.packing (packing formula + 'at least k pieces')"
    return [Member(f"packing-{n}x{n}-optimum", instance, "SAT", how, at_least=optimum,
                   parameters={**params, "at_least": optimum}, generator=generator),
            Member(f"packing-{n}x{n}-beyond", instance, "UNSAT", how, at_least=optimum + 1,
                   parameters={**params, "at_least": optimum + 1}, generator=generator)]


def member_formula(instance: Instance, at_least: int | None, encoding: str = DEFAULT_ENCODING,
                   card: str = DEFAULT_CARD):
    """The formula and the clauses beyond it: the tiling formula, or the
    packing formula plus "at least ``at_least`` pieces" (its auxiliaries after the formula's)."""
    if at_least is None:
        return compile_formula(generate_placements(instance), encoding, card), []
    from ..sat.objectives import better_than, compile_packing

    formula, goal = compile_packing(instance, "pieces", encoding, card)
    return formula, better_than(formula, goal, at_least - 1, card)


def write_family(family: str, sizes: list[tuple[int, int]], out: Path, *, seed: int = 1, piece: str | None = None,
                 force: bool = False, progress: Callable[[str], None] | None = None,
                 options: SatOptions = SatOptions()) -> list[dict]:
    """Write the family into ``out`` (created if need be); the metadata of each member.
    ``options``: the ``encoding`` and ``card`` of its DIMACS files."""
    encoding, card = options.encoding, options.card
    _piece(family, piece)
    names = member_names(family, sizes)
    targets = [out / f"{n}{ext}" for n in names for ext in (".cnf", ".json")] + [out / INDEX.format(family=family)]
    if out.exists() and not out.is_dir():
        raise TilesatError(f"--out {out}: not a directory")
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        raise TilesatError(f"{existing[0]} exists; pass --force to overwrite")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TilesatError(f"cannot create {out}: {e.strerror or e}") from None
    index = []
    for member in family_members(family, sizes, seed, piece, progress):
        meta = _write_member(member, family, out, encoding, card)
        index.append({k: meta[k] for k in ("name", "cnf", "metadata", "question", "at_least", "expected")})
    _write_json(out / INDEX.format(family=family), {"family": family, "tilesat": __version__, "seed": seed, "encoding": encoding,
                              "card": card, "sizes": [f"{r}x{c}" for r, c in sizes], "instances": index})
    return index


def _write_member(member: Member, family: str, out: Path, encoding: str, card: str) -> dict:
    text = format_instance(member.instance, [f"{member.name}: tilesat export-family {family} ({member.generator})"])
    instance = parse_instance(text, source=member.name)  # what the metadata says is what was compiled
    formula, extra = member_formula(instance, member.at_least, encoding, card)
    cnf = out / f"{member.name}.cnf"
    try:
        with open_text(cnf, "w") as f:
            nclauses = write_dimacs(formula, f, source=f"family {family} {member.name}", extra_clauses=extra)
    except OSError as e:
        raise TilesatError(f"cannot write {cnf}: {e.strerror or e}") from None
    nvars, nclauses = _header(cnf)  # as written (a native encoding is expanded to clauses there)
    meta = {
        "name": member.name, "family": family, "tilesat": __version__, "generator": member.generator,
        "parameters": member.parameters, "instance": text,
        "question": "pack" if member.at_least is not None else "tile", "at_least": member.at_least,
        "cnf": cnf.name, "metadata": f"{member.name}.json", "encoding": formula.encoding, "card": card,
        "variables": nvars, "clauses": nclauses, "placements": formula.nplacements,
        "expected": {"answer": member.answer, "tilings": member.tilings, "how": member.how},
        **member.extra,
    }
    _write_json(out / meta["metadata"], meta)
    return meta


def _header(cnf: Path) -> tuple[int, int]:
    """The variables and clauses a DIMACS file's ``p cnf`` line declares (it comes after a few comments)."""
    with open(cnf) as f:
        for line in f:
            if line.startswith("p cnf"):
                _, _, nvars, nclauses = line.split()
                return int(nvars), int(nclauses)
    raise AssertionError(f"BUG: no 'p cnf' line in {cnf}")


def _write_json(path: Path, data: dict) -> None:
    try:
        path.write_text(json.dumps(data, indent=1) + "\n")
    except OSError as e:
        raise TilesatError(f"cannot write {path}: {e.strerror or e}") from None
