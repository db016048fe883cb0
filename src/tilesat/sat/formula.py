"""The formula: CNF for "every open cell is covered by exactly one placement"
plus the piece-count rules, with the map variable <-> placement.

Variables 1..P are the placements (variable ``i + 1`` is placement ``i``);
auxiliary variables of the encodings come after them, always.  For packing
(``allow_empty``) each open cell may stay uncovered: variable ``P + 1 + j``
says "the j-th open cell is empty" and joins that cell's exactly-one, so the
same encodings serve tilings and packings.  A board's optional cells
(``+``: at most once) are such cells too, with their "empty" variables
``P + 1 + j`` for the j-th optional cell: exactly one of (the placements
covering it, "empty") is at most one placement, with every encoding, and
the "empty" variable is determined by the placements, so models and tilings
stay one to one (what blocking clauses and model counters count).

With the ``native`` encoding the at-most parts are not clauses but
constraints "at most k of these literals" (``Formula.atmost``), given to
solvers that take them (minicard, gluecard3/4: ``add_to(..., add_atmost=)``);
``Formula.cnf()`` expands them to clauses for everything else, and the
callers that ask for clauses of a native formula without expanding it (DRAT
proofs, model counters, RC2, plugin solvers) get :data:`NEEDS_CNF`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import repeat
from typing import Iterator

import numpy as np

from .encodings import AUTO, DEFAULT_ENCODING, NATIVE_ENCODINGS, choose_encoding, get_encoding
from .encodings._util import pairs
from ..errors import TilesatError, did_you_mean
from ..model.arrays import unique
from ..model.footprint import check_formula_memory
from ..model.placements import Placements
from ..running.control import deadline

#: Cardinality encodings of ``pysat.card`` usable for any bound (``--card``).
CARD_ENCODINGS = ("seqcounter", "sortnetwrk", "cardnetwrk", "totalizer", "mtotalizer", "kmtotalizer")
DEFAULT_CARD = "seqcounter"

#: Solvers that take at-most constraints natively (PySAT's ``supports_atmost``).
NATIVE_SOLVERS = ("minicard", "gluecard3", "gluecard4")

#: The one-line refusal of a consumer that needs clauses and got a native formula.
NEEDS_CNF = ("encoding native keeps its at-most-one constraints outside CNF, and {what} needs clauses "
             "(DRAT proofs, ganak, ApproxMC, RC2 and plugin solvers do): choose a CNF encoding "
             "(--encoding auto, pairwise, commander, ...)")


class NeedsCnf(TilesatError):
    """A native formula where only clauses will do (see :data:`NEEDS_CNF`)."""

    def __init__(self, what: str = "this command"):
        super().__init__(NEEDS_CNF.format(what=what))


@dataclass(eq=False)
class Formula:
    """CNF as blocks of equal-width clauses (numpy) plus a few ragged ones."""

    placements: Placements
    nvars: int
    blocks: list[np.ndarray] = field(default_factory=list)
    extra: list[list[int]] = field(default_factory=list)
    encoding: str = DEFAULT_ENCODING
    card: str = DEFAULT_CARD
    allow_empty: bool = False
    #: native encoding only: (rows, k), each row "at most k of these literals"
    atmost: list[tuple[np.ndarray, int]] = field(default_factory=list)
    _cnf: "Formula | None" = field(default=None, repr=False)

    @property
    def native(self) -> bool:
        """Whether some constraints are native at-most constraints, not clauses."""
        return bool(self.atmost)

    @property
    def nconstraints(self) -> int:
        """Native at-most constraints (0 unless the encoding is native)."""
        return sum(rows.shape[0] for rows, _ in self.atmost)

    @property
    def empty_vars(self) -> np.ndarray:
        """The "cell left empty" variables (packing formulas only), one per
        open cell in ``board.open_cells`` order."""
        if not self.allow_empty:
            return np.zeros(0, dtype=np.int64)
        return empty_variables(self.placements, True)

    @property
    def nplacements(self) -> int:
        return len(self.placements)

    @property
    def nclauses(self) -> int:
        """Clauses, a native constraint counting as one (what a solver is given)."""
        return sum(b.shape[0] for b in self.blocks) + len(self.extra) + self.nconstraints

    @property
    def nliterals(self) -> int:
        return sum(b.size for b in self.blocks) + sum(len(c) for c in self.extra) + sum(r.size for r, _ in self.atmost)

    def clauses(self) -> Iterator[list[int]]:
        """Every clause as a list of ints (blocks first, then the rest).
        A native formula refuses (:class:`NeedsCnf`): expand it with :meth:`cnf`."""
        if self.native:
            raise NeedsCnf()
        for b in self.blocks:
            yield from b.tolist()
        yield from self.extra

    def cnf(self) -> "Formula":
        """This formula as clauses only: itself, or (native) its at-most-one
        constraints expanded pairwise (no auxiliaries: same variables, same
        models; see encodings/native.py) and the piece-count ones with the
        formula's cardinality encoding ``card``.  Built once."""
        if not self.native:
            return self
        if self._cnf is None:
            from pysat.card import CardEnc, EncType  # (here: a count by the compiled engines needs no clauses)

            blocks, extra, top = list(self.blocks), list(self.extra), self.nvars
            enc = getattr(EncType, self.card)
            for rows, k in self.atmost:
                if k == 1:
                    blocks.append(pairs(rows))
                    continue
                for row in rows.tolist():
                    made = CardEnc.atmost(lits=row, bound=k, top_id=top, encoding=enc)
                    extra.extend(made.clauses)
                    top = max(top, made.nv)
            blocks = _dedupe_binary(blocks, self.nplacements)
            self._cnf = Formula(self.placements, top, [b for b in blocks if b.size], extra, self.encoding, self.card,
                                self.allow_empty)
        return self._cnf

    @property
    def top(self) -> int:
        """The highest variable any form of this formula uses: a native
        formula's expansion (:meth:`cnf`) adds auxiliaries for the piece
        counts, so clauses made later (a packing's bound) start above them."""
        return self.cnf().nvars if self.native else self.nvars

    def add_to(self, add_clause, progress=None, chunk: int = 200_000, add_atmost=None, add_rows=None) -> None:
        """Call ``add_clause`` on every clause, and ``add_atmost(lits, k)`` on
        every native constraint (a native formula without ``add_atmost``
        refuses: :class:`NeedsCnf`); ``progress(done)`` after each
        ``chunk`` clauses (loading 10^7 clauses takes many seconds).
        ``add_rows(matrix)``, where given, adds a block's int64 rows at once
        (CaDiCaL from C: sat/_clauses.c).

        ``deque(map(...))`` runs the loop in C: with PySAT, building the
        Python lists and crossing into the solver cost about 1.5 us a clause,
        which this keeps from growing (append_formula adds 25%).
        """
        if self.native and add_atmost is None:
            raise NeedsCnf()
        done = 0
        limit = deadline()
        for b in self.blocks:
            for start in range(0, b.shape[0], chunk):
                limit.check()
                part = b[start : start + chunk]
                if add_rows is not None and part.ndim == 2 and part.shape[1]:  # (empty clauses: one by one)
                    add_rows(np.ascontiguousarray(part, dtype=np.int64))
                else:
                    deque(map(add_clause, part.tolist()), maxlen=0)
                done += part.shape[0]
                if progress is not None:
                    progress(done)
        deque(map(add_clause, self.extra), maxlen=0)
        for rows, k in self.atmost:
            deque(map(add_atmost, rows.tolist(), repeat(k)), maxlen=0)
            if progress is not None:
                done += rows.shape[0]
                progress(done)


def empty_variables(placements: Placements, allow_empty: bool = False) -> np.ndarray:
    """For each open cell (``board.open_cells`` order) its "empty" variable,
    0 where it must be covered: every open cell with ``allow_empty``, else
    the optional cells, numbered from ``P + 1`` in their order."""
    board = placements.instance.board
    P = len(placements)
    if allow_empty:
        return np.arange(P + 1, P + 1 + board.area, dtype=np.int64)
    out = np.zeros(board.area, np.int64)
    if board.optional is not None:
        optional = board.optional.ravel()[board.open_cells]
        out[optional] = np.arange(P + 1, P + 1 + int(optional.sum()), dtype=np.int64)
    return out


def cell_constraints(placements: Placements, allow_empty: bool = False) -> list[np.ndarray]:
    """The placements covering each open cell, as literal matrices grouped by
    how many there are (one ``(cells, n)`` matrix per distinct n).  With
    ``allow_empty`` each row ends with the cell's "empty" variable, and so
    does an optional cell's row always (:func:`empty_variables`)."""
    board = placements.instance.board
    indptr, ids = placements.by_cell()
    cells = board.open_cells
    degree = (indptr[cells + 1] - indptr[cells]).astype(np.int64)
    empty = empty_variables(placements, allow_empty)
    groups = []
    for d in unique(degree):
        rank = np.flatnonzero(degree == d)  # position among the open cells
        cols = np.arange(d, dtype=np.int64)
        for part in (rank[empty[rank] == 0], rank[empty[rank] > 0]):  # one of them empty unless some cells may stay empty
            if not part.size:
                continue
            sel = cells[part]
            lits = ids[indptr[sel][:, None] + cols[None, :]].astype(np.int64) + 1
            if empty[part[0]]:
                lits = np.hstack([lits, empty[part][:, None]])
            groups.append(lits)
    return groups


def block_tiling(placements: Placements, chosen) -> list[int]:
    """The clause "not this tiling again": not all of its placements, and, on a
    board with optional cells, not all the optional cells it leaves empty
    either (a tiling that also covers one of them holds all of this one's
    placements).  Only placement and "empty" variables, which every model of
    the same tiling gives the same values."""
    chosen = [int(i) for i in chosen]
    clause = [-(i + 1) for i in chosen]
    board = placements.instance.board
    if board.optional is not None:
        covered = np.zeros(board.ncells, bool)
        for i in chosen:
            covered[placements.cells_of(i)] = True
        empty = empty_variables(placements)
        open_rank = np.flatnonzero(empty)
        left = open_rank[~covered[board.open_cells[open_rank]]]
        clause += (-empty[left]).tolist()
    return clause


def empty_count(placements: Placements, allow_empty: bool = False) -> int:
    """How many "empty" variables follow the placements' (:func:`empty_variables`)."""
    board = placements.instance.board
    return board.area if allow_empty else int(board.optional_cells.size)


def _dedupe_binary(blocks: list[np.ndarray], nplacements: int) -> list[np.ndarray]:
    """Drop repeated binary clauses over placement variables.

    Two placements sharing k cells produce the same clause (-a, -b) k times
    in pairwise-style at-most-one constraints; one copy is enough.  The copies
    kept are sorted by (smaller, larger) literal, the other binary rows follow
    in their order (sat/_clauses.c: one pass in C, where numpy's temporaries
    took 0.08 s of a fresh process on a P5 80x80 board).
    """
    from ._clauses import unique_pairs

    binary = [np.ascontiguousarray(b, dtype=np.int64) for b in blocks if b.ndim == 2 and b.shape[1] == 2]
    if not binary:
        return blocks
    rest = [b for b in blocks if not (b.ndim == 2 and b.shape[1] == 2)]
    rows = sum(b.shape[0] for b in binary)
    out = np.empty((rows, 2), dtype=np.int64)
    shared, other = unique_pairs(binary, nplacements, np.empty(rows, np.int64), np.empty(rows, np.int64), out)
    out.resize((shared + other, 2), refcheck=False)  # the repeats' rows freed (no other reference to out yet)
    return rest + [out[:shared], out[shared:]]


def check_card_name(card: str) -> str:
    if card not in CARD_ENCODINGS:
        raise TilesatError(f"unknown cardinality encoding {card!r}{did_you_mean(card, CARD_ENCODINGS)}; choose one of: {', '.join(CARD_ENCODINGS)}")
    return card


def count_clauses(placements: Placements, top: int, card: str) -> tuple[list[list[int]], int]:
    """Piece-count rules (``:N``, ``:A..B``) with a ``pysat.card`` encoding."""
    check_card_name(card)
    clauses: list[list[int]] = []
    for k, rule in enumerate(placements.instance.rules):
        if not rule.bounded:
            continue
        lits = (placements.of_rule(k) + 1).tolist()
        high = rule.max if rule.min == rule.max or rule.max < most_tiles(placements, rule) else len(lits)
        more, top = between(lits, rule.min, high, top, card)  # an upper count no tiling can break: none
        clauses.extend(more)
    return clauses, top


def between(lits: list[int], low: int, high: int, top: int, card: str = DEFAULT_CARD) -> tuple[list[list[int]], int]:
    """(clauses, last variable): at least ``low`` and at most ``high`` of ``lits`` true, with the
    ``pysat.card`` encoding ``card`` (auxiliaries after ``top``); bounds that hold whatever the
    literals are get no clauses, and bounds nothing meets (``low`` above ``high`` or
    ``len(lits)``) the empty clause."""
    from pysat.card import CardEnc, EncType

    n = len(lits)
    low, high = max(low, 0), min(high, n)
    if low > high:  # also a negative high: no count is below 0
        return [[]], top
    if high == 0:
        return [[-v] for v in lits], top
    if low == high:
        wanted = [(CardEnc.equals, low)]
    else:
        wanted = ([(CardEnc.atleast, low)] if low > 0 else []) + ([(CardEnc.atmost, high)] if high < n else [])
    clauses: list[list[int]] = []
    for make, bound in wanted:
        cnf = make(lits=lits, bound=bound, top_id=top, encoding=getattr(EncType, card))
        clauses.extend(cnf.clauses)
        top = max(top, cnf.nv)
    return clauses, top


def most_tiles(placements: Placements, rule) -> int:
    """How many tiles of this rule's piece fit on the board at most (tiles do not overlap): an upper
    count at least this large holds in every tiling (loose upper counts often are)."""
    return placements.instance.board.area // max(1, rule.piece.size)


def native_count_constraints(placements: Placements) -> tuple[list[list[int]], list[tuple[np.ndarray, int]]]:
    """Piece-count rules as native constraints: "at most B" on the rule's
    placements and "at least A" as "at most n - A of their negations";
    clauses only where a bound is trivial (0: unit clauses) or impossible."""
    clauses: list[list[int]] = []
    atmost: list[tuple[np.ndarray, int]] = []
    for k, rule in enumerate(placements.instance.rules):
        if not rule.bounded:
            continue
        lits = (placements.of_rule(k) + 1).astype(np.int64)
        n, lo, hi = len(lits), rule.min, rule.max
        if lo > n:
            clauses.append([])  # more copies required than there are places
            continue
        for side, bound in ((lits, hi), (-lits, n - lo)):
            if bound >= n or (side is lits and bound >= most_tiles(placements, rule)):
                continue
            if bound == 0:
                clauses.extend([[-int(x)] for x in side.tolist()])
            else:
                atmost.append((side[None, :], int(bound)))
    return clauses, atmost


def resolve_encoding(encoding: str, placements: Placements) -> str:
    """The concrete encoding ``encoding`` names for these placements (``auto``:
    chosen from the average number of placements covering an open cell)."""
    if encoding != AUTO:
        get_encoding(encoding)  # unknown names fail here
        return encoding
    return choose_encoding(placements.candidates_per_cell())


#: Cells encoded in one call: small enough that a deadline is checked every few
#: tenths of a second on a large board, large enough that numpy does the work.
ENCODE_ROWS = 4096


def compile_formula(
    placements: Placements, encoding: str = DEFAULT_ENCODING, card: str = DEFAULT_CARD,
    allow_empty: bool = False,
) -> Formula:
    """Compile the tiling constraints of an instance's placements to CNF
    (with ``allow_empty``: the packing constraints, each cell covered at most once)."""
    encoding = resolve_encoding(encoding, placements)
    encode = get_encoding(encoding)
    check_formula_memory(placements, encoding, check_card_name(card), allow_empty)  # before any clause exists
    P = len(placements)
    top = P + empty_count(placements, allow_empty)
    blocks: list[np.ndarray] = []
    extra: list[list[int]] = []
    if encoding in NATIVE_ENCODINGS:
        return _compile_native(placements, encoding, card, allow_empty)
    limit = deadline()
    for lits in cell_constraints(placements, allow_empty):
        if lits.shape[1] == 0:
            extra.append([])  # an open cell no placement covers
            continue
        for start in range(0, lits.shape[0], ENCODE_ROWS):  # slices: a --timeout acts between them
            limit.check()
            more, top = encode(lits[start : start + ENCODE_ROWS], top)
            blocks.extend(more)
    blocks = _dedupe_binary(blocks, P)
    counts, top = count_clauses(placements, top, card)
    extra.extend(counts)
    return Formula(placements, top, [b for b in blocks if b.size], extra, encoding, card, allow_empty)


def _compile_native(placements: Placements, encoding: str, card: str, allow_empty: bool) -> Formula:
    """Each cell: its at-least-one clause and one native at-most-one; the
    piece counts natively too (:func:`native_count_constraints`)."""
    P = len(placements)
    blocks: list[np.ndarray] = []
    extra: list[list[int]] = []
    atmost: list[tuple[np.ndarray, int]] = []
    for lits in cell_constraints(placements, allow_empty):
        if lits.shape[1] == 0:
            extra.append([])  # an open cell no placement covers
            continue
        blocks.append(lits)
        if lits.shape[1] > 1:
            atmost.append((lits, 1))
    counts, more = native_count_constraints(placements)
    extra.extend(counts)
    top = P + empty_count(placements, allow_empty)
    return Formula(placements, top, blocks, extra, encoding, card, allow_empty, atmost + more)
