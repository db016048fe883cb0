"""DIMACS out and solver answers back in.

:func:`write_dimacs` streams a formula to ``.cnf``, ``.cnf.gz`` or
``.cnf.xz`` (by the file name) a chunk of clauses at a time, so a 256x256
board never becomes one Python list of clause strings.  :func:`read_answer`
reads a solver's output (SAT-competition ``s``/``v`` lines or a bare list of
literals); :func:`check_model` confirms that a model satisfies the formula, and
:func:`decode_answer` turns a checked answer into verified tilings and a
verdict (with ``--block``: whether the blocked tiling is the only one).
:func:`read_dimacs` reads DIMACS back strictly (proofs rely on it).
"""

from __future__ import annotations

import gzip
import lzma
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable

import numpy as np

from .. import __version__
from .encodings import DEFAULT_ENCODING
from ..errors import TilesatError
from .formula import DEFAULT_CARD, Formula, block_tiling, compile_formula
from ..model.instance import Instance, instance_digest
from ..model.placements import Placements, generate_placements
from ..model.tiling import Tiling, tiling_from_model
from ..certify.verify import problems, verify_tiling

CHUNK = 65536  # clauses formatted at a time


def open_text(path: str | Path, mode: str) -> IO[str]:
    """Open plain, ``.gz`` or ``.xz`` text by the file ending."""
    name = str(path)
    if name.endswith(".gz"):
        return gzip.open(name, mode + "t", encoding="ascii", compresslevel=6)  # 9 is 3x slower for 3% less
    if name.endswith(".xz"):
        return lzma.open(name, mode + "t", encoding="ascii")
    return open(name, mode, encoding="ascii")


def _format_block(block: np.ndarray) -> str:
    """One clause per row, "l1 l2 ... 0".  A single %-format over the whole
    chunk runs in C: 5x faster than np.savetxt's loop over rows."""
    row = " ".join(["%d"] * block.shape[1]) + " 0\n"
    return (row * block.shape[0]) % tuple(block.ravel().tolist())


def blocking_clause(placements: Placements, tiling: Tiling) -> list[int]:
    """The clause "not this tiling again" (:func:`~tilesat.sat.formula.block_tiling`)."""
    index = {}
    board = placements.instance.board
    wanted = {(t.piece, tuple(board.index(cell) for cell in t.cells), tuple(t.colours)) for t in tiling}
    for i in range(len(placements)):
        key = (placements.piece_of(i).name, tuple(int(x) for x in placements.cells_of(i)), placements.colours_of(i))
        if key in wanted:
            index[key] = i
    missing = wanted - set(index)
    if missing:
        piece, cells, _ = sorted(missing)[0]
        raise TilesatError(f"the tiling has a tile ({piece} on cells {board.cells(cells)}) that is no placement of this instance")
    return sorted(block_tiling(placements, sorted(index.values())))


def write_dimacs(
    formula: Formula,
    out: IO[str],
    *,
    source: str = "",
    extra_clauses: Iterable[list[int]] = (),
    placement_comments: bool = True,
) -> int:
    """Write the formula (plus ``extra_clauses``) as DIMACS; return the clause count.
    A native formula is written as its CNF expansion (``Formula.cnf``: DIMACS
    has no at-most constraints), said in a comment line."""
    extra_clauses = [list(c) for c in extra_clauses]
    native, formula = formula.native, formula.cnf()
    placements = formula.placements
    instance = placements.instance
    nclauses = formula.nclauses + len(extra_clauses)
    nvars = dimacs_nvars(formula, extra_clauses)  # extra clauses may bring auxiliary variables
    P = len(placements)
    out.write(f"c tilesat {__version__}\n")
    out.write(f"c source {source or instance.source} sha256 {instance_digest(instance)}\n")
    out.write(f"c encoding {formula.encoding} card {formula.card}\n")
    if native:
        out.write(f"c native at-most constraints expanded to CNF: at-most-one pairwise, piece counts {formula.card}\n")
    out.write(f"c placements {P} variables {nvars} clauses {nclauses}\n")
    out.write(f"p cnf {nvars} {nclauses}\n")
    # the projection set for model counters: the placement variables
    for start in range(1, P + 1, 1000):
        out.write("c p show " + " ".join(map(str, range(start, min(start + 1000, P + 1)))) + " 0\n")
    if placement_comments:
        board = instance.board
        for i in range(P):
            cells = " ".join(",".join(map(str, cell)) for cell in board.cells(placements.cells_of(i)))
            out.write(f"c placement {i + 1} {placements.piece_of(i).name} {cells}\n")
    for block in formula.blocks:
        for start in range(0, block.shape[0], CHUNK):
            out.write(_format_block(block[start : start + CHUNK]))
    for clause in list(formula.extra) + extra_clauses:
        out.write(" ".join(map(str, clause)) + (" 0\n" if clause else "0\n"))
    return nclauses


def placement_map(placements: Placements) -> dict:
    """The variable -> placement map as JSON-ready data."""
    return {
        "placements": [
            {"var": i + 1, "piece": placements.piece_of(i).name, "cells": [list(c) for c in placements.coords_of(i)]}
            for i in range(len(placements))
        ]
    }


def dimacs_nvars(formula: Formula, extra_clauses: Iterable[list[int]] = ()) -> int:
    """The variable count :func:`write_dimacs` declares for these clauses."""
    formula = formula.cnf()
    return max([formula.nvars] + [abs(lit) for clause in extra_clauses for lit in clause])


_LITERAL = re.compile(r"-?[0-9]{1,19}")  # int() of a 5000-digit token would raise


def parse_dimacs(lines: Iterable[str], where: str = "the CNF") -> tuple[int, list[list[int]]]:
    """(number of variables, clauses) of DIMACS text, read strictly: ``c``
    lines are comments; one ``p cnf V C`` line comes before any clause; then
    integer literals naming variables 1..V, each clause ended by ``0``, and
    exactly C clauses.  Anything else is a :class:`TilesatError` naming the line."""
    header, clauses, current = None, [], []
    for n, line in enumerate(lines, 1):
        if line.startswith("c") or not line.strip():
            continue
        tokens = line.split()
        if tokens[0] == "p":
            if header is not None or clauses or current:
                raise TilesatError(f"{where}, line {n}: a 'p' line after the header or a clause")
            if len(tokens) != 4 or tokens[1] != "cnf" or not all(_LITERAL.fullmatch(t) and t[0] != "-" for t in tokens[2:]):
                raise TilesatError(f"{where}, line {n}: expected 'p cnf VARIABLES CLAUSES'")
            header = (int(tokens[2]), int(tokens[3]))
            continue
        if header is None:
            raise TilesatError(f"{where}, line {n}: a clause before the 'p cnf' line")
        for tok in tokens:
            if not _LITERAL.fullmatch(tok):
                raise TilesatError(f"{where}, line {n}: {tok[:20]!r} is not a literal")
            lit = int(tok)
            if lit == 0:
                clauses.append(current)
                current = []
            elif abs(lit) > header[0]:
                raise TilesatError(f"{where}, line {n}: literal {lit} is beyond the {header[0]} variables the header declares")
            else:
                current.append(lit)
    if header is None:
        raise TilesatError(f"{where}: no 'p cnf' line")
    if current:
        raise TilesatError(f"{where}: the last clause is not ended by 0")
    if len(clauses) != header[1]:
        raise TilesatError(f"{where}: {len(clauses)} clauses, but the header declares {header[1]}")
    return header[0], clauses


def read_dimacs(path: str | Path) -> tuple[int, list[list[int]]]:
    """(number of variables, clauses) of a DIMACS file (``.gz``/``.xz`` too),
    read strictly (:func:`parse_dimacs`)."""
    try:
        with open_text(path, "r") as f:
            return parse_dimacs(f, str(path))
    except UnicodeDecodeError:
        raise TilesatError(f"{path}: not a DIMACS file (not ASCII text)") from None
    except (OSError, EOFError, lzma.LZMAError) as e:  # gzip.BadGzipFile is an OSError
        raise TilesatError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


@dataclass
class Answer:
    status: str  # "sat", "unsat" or "unknown"
    model: list[int]
    last_line: str = ""


_STATUS = {"SATISFIABLE": "sat", "SAT": "sat", "UNSATISFIABLE": "unsat", "UNSAT": "unsat"}


def read_answer(text: str, where: str = "the model", strict: bool = True) -> Answer:
    """Parse a solver's output: ``s``/``v`` lines, MiniSat's result file
    (``SAT``/``UNSAT`` then literals), or a bare list of literals.  With
    ``strict=False`` other lines (a solver's statistics) are skipped."""
    status, lits, last = "unknown", [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        last = line
        if line.startswith("c ") or line == "c":
            continue
        word = line[2:].strip() if line.startswith("s ") else line
        if word.upper() in _STATUS:
            status = _STATUS[word.upper()]
            continue
        body = line[2:] if line.startswith("v ") else line
        if not re.fullmatch(r"-?\d+(\s+-?\d+)*", body):
            if strict:
                raise TilesatError(f"{where}: cannot read line {line[:60]!r}: expected 's …', 'v …' or literals")
            continue
        lits.extend(int(t) for t in body.split() if t != "0")
    if status == "unknown" and lits:
        status = "sat"
    return Answer(status, lits, last)


def check_model(formula: Formula, model: list[int], where: str = "the model",
                extra_clauses: Iterable[list[int]] = ()) -> None:
    """Raise a clear error if the model names unknown variables or falsifies a
    clause of the formula or of ``extra_clauses`` (a ``--block`` clause)."""
    extra_clauses = [list(c) for c in extra_clauses]
    formula = formula.cnf()  # native: checked against what it stands for (the same models)
    nvars = dimacs_nvars(formula, extra_clauses)
    values = np.zeros(nvars + 1, dtype=np.int8)
    for lit in model:
        v = abs(lit)
        if v > nvars:
            raise TilesatError(f"{where} names variable {v}, but the formula has only {nvars}")
        value = 1 if lit > 0 else -1
        if values[v] == -value:
            raise TilesatError(f"{where} gives variable {v} both true and false")
        values[v] = value
    for block in formula.blocks:
        sat = (np.sign(block) * values[np.abs(block)] > 0).any(axis=1)
        if not sat.all():
            bad = block[np.argmin(sat)].tolist()
            raise TilesatError(f"{where} does not satisfy the formula: clause {bad} is false")
    for clause in list(formula.extra) + extra_clauses:
        if not any((1 if lit > 0 else -1) * values[abs(lit)] > 0 for lit in clause):
            raise TilesatError(f"{where} does not satisfy the formula: clause {clause} is false")


def decode_answer(instance: Instance, answer: Answer, encoding: str = DEFAULT_ENCODING, card: str = DEFAULT_CARD,
                  block: Tiling | None = None, where: str = "the model") -> tuple[str, list[Tiling], Formula]:
    """What a solver's answer on the exported CNF says, checked: the verdict,
    the verified tilings and the formula (compiled again, as exported).

    Without ``block``: ``solved`` (one tiling) or ``none``.  With the tiling
    the CNF forbade (``export --block``): ``multiple`` (the blocked tiling and
    another) or ``unique`` (UNSAT: the blocked tiling is the only one, so it
    must itself be a tiling of the instance)."""
    if answer.status == "unknown":
        raise TilesatError(f"{where}: no answer in it (no 's SATISFIABLE'/'s UNSATISFIABLE' line and no literals)")
    placements = generate_placements(instance)
    formula = compile_formula(placements, encoding, card).cnf()  # as exported (native: expanded)
    extra = []
    if block is not None:
        wrong = problems(instance, block)
        if wrong:
            raise TilesatError(f"the blocked tiling is not a tiling of {instance.source}: {wrong[0]}")
        extra = [blocking_clause(placements, block)]
    if answer.status == "unsat":
        return ("unique", [block], formula) if block is not None else ("none", [], formula)
    check_model(formula, answer.model, where=where, extra_clauses=extra)
    tiling = verify_tiling(instance, tiling_from_model(placements, answer.model)[0])
    return ("multiple", [block, tiling], formula) if block is not None else ("solved", [tiling], formula)
