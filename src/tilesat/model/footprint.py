"""What an instance will take in memory, estimated before it is built, and
the guard that refuses what cannot fit (the limit itself: :mod:`tilesat.running.memory`).

Before placements and clauses are built, their size is estimated from the
board and pieces (arithmetic only, no big allocation) and compared with the
memory limit.  Beyond it: one :class:`TilesatError` line saying how big the
instance is and which limit it hit, instead of growing until the kernel
kills the process.

Two checks, each where its figures are known:

* :func:`check_memory` (called first thing in ``generate_placements``): an
  upper bound on the placements from the board and the pieces' orientations,
  plus the formula of the leanest encoding and a solver's copy of it
  (placements are only ever built to be compiled, and the encoding is not
  known there).
* :func:`check_formula_memory` (called in ``compile_formula``, before any
  clause exists): the same with the real placements, the real number of
  placements per cell and the chosen encoding and cardinality encoding.

The estimates are upper bounds within a small factor; the figures behind
the constants are in the comments of :data:`BYTES_PER_PLACEMENT` and below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..errors import TilesatError
from ..running.memory import ALWAYS_FITS, MiB, explicit_limit, format_size, memory_limit
from .pieces import transforms

if TYPE_CHECKING:
    from .instance import Instance
    from .placements import Placements

# --- formula sizes --------------------------------------------------------------


class CnfSize(NamedTuple):
    """Clauses, literals, binary clauses and auxiliary variables of some CNF
    (a named tuple: summed over thousands of cells, a dataclass was slow)."""

    clauses: int = 0
    literals: int = 0
    binary: int = 0
    aux: int = 0

    def __add__(self, other: "CnfSize") -> "CnfSize":  # type: ignore[override]
        return CnfSize(self.clauses + other.clauses, self.literals + other.literals,
                       self.binary + other.binary, self.aux + other.aux)

    def times(self, k: int) -> "CnfSize":
        return CnfSize(self.clauses * k, self.literals * k, self.binary * k, self.aux * k)


def _clause(width: int, count: int = 1) -> CnfSize:
    return CnfSize(count, width * count, count if width == 2 else 0, 0)


def _pairwise(n: int) -> CnfSize:
    return _clause(n) + _clause(2, n * (n - 1) // 2)


def _seqcounter(n: int) -> CnfSize:
    if n <= 2:
        return _pairwise(n)
    return _clause(n) + _clause(2, 3 * n - 4) + CnfSize(aux=n - 1)


def _ladder(n: int) -> CnfSize:
    if n == 1:
        return _clause(1)
    return _clause(2, 3 * n - 2) + _clause(3, n - 2) + CnfSize(aux=n - 1)


def _bitwise(n: int) -> CnfSize:
    if n <= 2:
        return _pairwise(n)
    bits = (n - 1).bit_length()
    return _clause(n) + _clause(2, n * bits) + CnfSize(aux=bits)


@cache
def _commander(n: int) -> CnfSize:
    if n <= 3:
        return _pairwise(n)
    full, rest = divmod(n, 3)
    k = full + (rest > 0)
    size = _clause(4, full) + _clause(2, 6 * full) + CnfSize(aux=k)  # per group: (-c, g), pairs, x -> c
    if rest:
        size += _clause(2, rest * (rest - 1) // 2) + _clause(rest + 1) + _clause(2, rest)
    return size + _commander(k)


@cache
def _product_amo(n: int) -> CnfSize:
    if n < 5:
        return _clause(2, n * (n - 1) // 2)
    p = math.isqrt(n - 1) + 1
    q = -(-n // p)
    return _clause(2, 2 * n) + CnfSize(aux=p + q) + _product_amo(p) + _product_amo(q)


def _product(n: int) -> CnfSize:
    return _clause(n) + _product_amo(n)


#: Sizes of each encoding's exactly-one over n literals, as the code in
#: ``tilesat.sat.encodings`` emits them (tested against it for n = 1..80).
EXACTLY_ONE_SIZES = {
    "pairwise": _pairwise,
    "seqcounter": _seqcounter,
    "ladder": _ladder,
    "product": _product,
    "commander": _commander,
    "bitwise": _bitwise,
    "native": _pairwise,  # a native at-most-one per cell; expanded for most solvers: pairwise, the upper one
}


@cache
def exactly_one_size(encoding: str, n: int) -> CnfSize:
    """Clauses, literals, binary clauses and auxiliaries of ``encoding``'s
    exactly-one over ``n`` literals (``n = 0``: the empty clause)."""
    if n == 0:
        return CnfSize(clauses=1)
    # an encoding registered at run time (a test's): sized as pairwise, the
    # largest for many candidates; tests/test_limits.py keeps this table complete
    return EXACTLY_ONE_SIZES.get(encoding, _pairwise)(n)


def card_clauses(card: str, n: int, lo: int, hi: float) -> int:
    """An upper bound on the clauses ``pysat.card`` makes for "between lo and
    hi of n literals" (what ``formula.count_clauses`` asks for).

    Checked against pysat for n up to 600 (tests/test_limits.py): seqcounter
    about 2nk for a bound k (pysat counts the smaller side, k or n - k),
    totalizer up to 0.6 n^2 whatever the bound, the sorting and cardinality
    networks and the modulo totalizers about n log2(n)^2.
    """
    if lo > n:
        return 1  # more copies required than places: the empty clause
    bounds = ([lo] if lo > 0 else []) + ([int(hi)] if hi < n else [])
    log = max(1, math.ceil(math.log2(max(n, 2))))
    total = 0
    for b in bounds:
        if card == "seqcounter":
            total += 2 * n * max(min(b, n - b), 0) + n
        elif card == "totalizer":
            total += 3 * n * n // 5 + 4 * n
        else:  # sortnetwrk, cardnetwrk, mtotalizer, kmtotalizer
            total += 2 * n * log * log + n
    return total


# --- bytes ------------------------------------------------------------------------
#
# Where the bytes go, from the code (int64: 8 bytes a literal):
#
# * placements (CSR): 4 (rule) + 8 (indptr) + 4 a cell; while generating,
#   the int32 rows of a rule twice (the parts and their concatenation).
# * compile_formula: the cell -> placements index (``by_cell``: owner, order
#   and ids, int64) and the literal matrices, ~32 bytes a placement cell;
#   then every clause block (8 a literal); deduplicating the binary clauses
#   copies them again with their keys (~72 bytes a binary clause).
# * the solver's copy: ~110 bytes a clause and ~340 a variable (CaDiCaL's
#   per-variable arrays, fitted on L4 128x128 with all six encodings).
#
# tests/test_limits.py checks the estimate against the peak resident size of
# real runs: above it, by less than 3x.

BYTES_PER_PLACEMENT = 12
BYTES_PER_PLACEMENT_CELL = 4 + 8  # the CSR's cells, plus the generation's copy
BY_CELL_BYTES_PER_PLACEMENT_CELL = 32
LITERAL_BYTES = 8
DEDUPE_BYTES_PER_BINARY = 72
SOLVER_BYTES_PER_CLAUSE = 110
SOLVER_BYTES_PER_LITERAL = 4
SOLVER_BYTES_PER_VARIABLE = 340
#: A clause of a cardinality constraint lives as Python lists (pysat.card's
#: result, kept in ``Formula.extra``): list, pointer and int objects.
PYTHON_CLAUSE_BYTES = 200
#: Loading into the solver: ``Formula.add_to`` turns up to 200,000 clauses at
#: a time into Python lists (~150 bytes a clause), and the solver starts with
#: a few MiB of its own (added once, by _load_bytes).
LOAD_CHUNK_CLAUSES = 200_000
LOAD_BYTES_PER_CLAUSE = 150
SOLVER_BASE_BYTES = 4 * MiB


def _formula_bytes(size: CnfSize, placement_cells: int, variables: int, python_clauses: int = 0) -> int:
    """Peak bytes of compiling a formula of ``size`` and holding it in a
    solver, beside the placements; linear in the sizes (see _load_bytes)."""
    building = (BY_CELL_BYTES_PER_PLACEMENT_CELL * placement_cells + LITERAL_BYTES * size.literals
                + DEDUPE_BYTES_PER_BINARY * size.binary)
    blocks = LITERAL_BYTES * size.literals + PYTHON_CLAUSE_BYTES * python_clauses
    solver = (SOLVER_BYTES_PER_CLAUSE * (size.clauses + python_clauses) + SOLVER_BYTES_PER_LITERAL * size.literals
              + SOLVER_BYTES_PER_VARIABLE * variables)
    return max(building + PYTHON_CLAUSE_BYTES * python_clauses, blocks + solver)


def _load_bytes(clauses: int) -> int:
    """What loading ``clauses`` into a solver adds once: a chunk of Python
    lists and the solver's own start."""
    return SOLVER_BASE_BYTES + LOAD_BYTES_PER_CLAUSE * min(clauses, LOAD_CHUNK_CLAUSES)


@cache
def _per_literal(encoding: str, n: int) -> float:
    """Formula bytes per placement-cell literal at a cell with n candidates."""
    size = exactly_one_size(encoding, n)
    return _formula_bytes(size, n, size.aux) / n


@cache
def _leanest(n: int) -> str:
    """The encoding needing the fewest bytes at a cell with n candidates."""
    return min(EXACTLY_ONE_SIZES, key=lambda name: _per_literal(name, n))


@dataclass(frozen=True)
class Estimate:
    """What an instance is expected to need, with the figures of the message."""

    cells: int
    placements: int
    clauses: int
    bytes: int
    encoding: str
    from_board: bool = False  # bounds from the board and pieces alone, before placements exist
    leanest: bool = False  # the encoding is the leanest, not one asked for

    def describe(self) -> str:
        up_to = "up to " if self.from_board else ""
        which = f"even with the leanest encoding, {self.encoding}" if self.leanest else self.encoding
        return f"{self.cells:,} open cells, {up_to}{self.placements:,} placements and {self.clauses:,} clauses ({which})"


@cache
def _orientation_boxes(cells: tuple, orient: str, grid: str = "square") -> tuple[tuple[int, ...], ...]:
    """The extent along each axis ((height, width) on planar grids) of each
    orientation of a piece (cached: the check runs before every placement
    generation)."""
    return tuple(tuple(1 + max(cell[i] for cell in s) for i in range(len(s[0])))
                 for s in transforms(cells, orient, grid))


def placement_bounds(instance: "Instance") -> tuple[int, int, int]:
    """Upper bounds on (placements, placement cells, placements covering one
    cell), from the board's size and the pieces' orientations only.

    An orientation has at most one placement per anchor that fits, and at
    most one per open cell (its first cell); it covers a given cell in at
    most ``size`` ways.
    """
    board = instance.board
    R, C, area = board.rows, board.cols, board.area
    wrap_r, wrap_c = board.wraps_columns, board.wraps_rows
    placements = cells = degree = 0
    for rule in instance.rules:
        if rule.max == 0:
            continue
        size = rule.piece.size
        for box in _orientation_boxes(rule.piece.cells, rule.orient, rule.piece.grid):
            if len(box) != 2:  # the cube grid: anchors in the box along every axis
                n = min(math.prod(max(n - e + 1, 0) for n, e in zip(board.shape, box)), area)
                placements += n
                cells += n * size
                degree += size if n else 0
                continue
            h, w = box
            n = min((R if wrap_r else max(R - h + 1, 0)) * (C if wrap_c else max(C - w + 1, 0)), area)
            placements += n
            cells += n * size
            degree += size if n else 0
    return placements, cells, min(degree, placements)


def estimate_run(instance: "Instance", encoding: str | None = None) -> Estimate:
    """Upper bound on placements, formula and solver copy, before any is built.

    ``encoding`` None (or ``auto``): the leanest encoding, so that nothing is
    refused that some ``--encoding`` could run; :func:`estimate_formula` then
    checks the encoding chosen."""
    placements, cells, degree = placement_bounds(instance)
    if degree == 0:  # nothing fits: each cell's covering clause is empty, one a cell
        area = instance.board.area
        return Estimate(area, 0, area, SOLVER_BYTES_PER_CLAUSE * area + _load_bytes(area), encoding or "any", True)
    best = _leanest(degree) if encoding in (None, "auto") else encoding
    clauses = -(-cells // degree) * exactly_one_size(best, degree).clauses
    nbytes = (BYTES_PER_PLACEMENT * placements + BYTES_PER_PLACEMENT_CELL * cells
              + int(cells * _per_literal(best, degree)) + _load_bytes(clauses))
    return Estimate(instance.board.area, placements, clauses, nbytes, best, True, encoding in (None, "auto"))


def estimate_formula(placements: "Placements", encoding: str, card: str, allow_empty: bool = False) -> Estimate:
    """Bytes of compiling these placements with ``encoding`` (concrete, not
    ``auto``) and ``card`` and loading the result into a solver."""
    instance = placements.instance
    board = instance.board
    P = len(placements)
    degree = placements.coverage()[board.open_cells] + (1 if allow_empty else 0)
    counts = np.bincount(degree)
    present = np.flatnonzero(counts)
    table = np.array([exactly_one_size(encoding, n) for n in present.tolist()], dtype=np.int64).reshape(-1, 4)
    size = CnfSize(*(counts[present] @ table).tolist())
    card_total = 0
    if any(rule.bounded for rule in instance.rules):
        per_rule = np.bincount(placements.rule, minlength=len(instance.rules)).tolist()
        card_total = sum(card_clauses(card, per_rule[k], rule.min, rule.max)
                         for k, rule in enumerate(instance.rules) if rule.bounded)
    variables = P + (board.area if allow_empty else 0) + size.aux
    nbytes = (BYTES_PER_PLACEMENT * P + 4 * int(placements.cells.size)
              + _formula_bytes(size, int(degree.sum()), variables, card_total) + _load_bytes(size.clauses + card_total))
    return Estimate(board.area, P, size.clauses + card_total, nbytes, encoding)


# --- checks -----------------------------------------------------------------------


def check_estimate(estimate: Estimate) -> None:
    """A one-line :class:`TilesatError` if ``estimate`` exceeds the memory limit."""
    explicit = explicit_limit()
    if explicit is None and estimate.bytes < ALWAYS_FITS:
        return
    limit, why = explicit if explicit is not None else memory_limit()
    if estimate.bytes > limit:
        raise TilesatError(f"instance too large: {estimate.describe()} need about {format_size(estimate.bytes)} "
                           f"with a solver's copy; the limit is {format_size(limit)} ({why})")


#: Reading a board costs this much a character of its text (the lines, the
#: grid, the board's arrays: 93 MiB for a 6,000,000-cell board, one line or
#: 2450 lines), and every command then holds at least this much a cell
#: (6,000,000 cells where no piece fits: export 61 bytes a cell, check-unique,
#: solve and info 93, count by frontier 290).
PARSE_BYTES_PER_CHAR = 16
RUN_BYTES_PER_CELL = 48


def check_text_memory(nchars: int, ncells: int, source: str = "the instance") -> None:
    """Refuse, before parsing it, an instance text whose board alone cannot
    fit in the memory limit (a 60 MB one-line board: refused at once, not
    after reading it into gigabytes)."""
    need = PARSE_BYTES_PER_CHAR * nchars + RUN_BYTES_PER_CELL * ncells
    explicit = explicit_limit()
    if explicit is None and need < ALWAYS_FITS:
        return
    limit, why = explicit if explicit is not None else memory_limit()
    if need > limit:
        raise TilesatError(f"instance too large: {source} has {nchars:,} characters and up to {ncells:,} open cells, "
                           f"which need about {format_size(need)} before any placement; "
                           f"the limit is {format_size(limit)} ({why})")


def check_memory(instance: "Instance", encoding: str | None = None) -> None:
    """Refuse (one-line :class:`TilesatError`) an instance whose placements,
    formula and solver copy cannot fit in the memory limit.  Arithmetic on
    the board's size and the pieces only: cheap enough before every run."""
    check_estimate(estimate_run(instance, encoding))


def check_formula_memory(placements: "Placements", encoding: str, card: str, allow_empty: bool = False) -> None:
    """The same once the placements exist, for the encoding chosen."""
    check_estimate(estimate_formula(placements, encoding, card, allow_empty))
