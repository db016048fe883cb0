"""Counting tilings by dynamic programming over the frontier (transfer matrix).

The open cells are numbered 0..A-1 in a scan order (row-major, or
column-major when that gives a narrower window; blocked cells get no
number).  The first uncovered cell in scan order must be covered by a
placement whose first cell it is, so a tiling is a sequence of such
choices, and the tilings that agree on everything before cell ``i``
continue alike.  The state before cell ``i`` is therefore

- ``mask``: which of the cells ``i, i+1, ..., i+W`` are already covered
  (W = the largest reach of a placement: last cell - first cell in scan
  order), and
- ``code``: how many of each *counted* piece are used so far (a rule with
  ``min > 0`` or a finite ``max``), as a mixed-radix number; a rule with no
  upper bound is only counted up to its minimum.

and the DP keeps, cell by cell, a map state -> number of partial tilings.
Its cost grows with the number of distinct states, not with the count.
This is exact for any set of placements (holes, wraps, any pieces): a wrap
only makes the window wider, so the scan order with the narrower window is
taken and a board whose window cannot fit in a machine word is refused
(:func:`problem`).

Counts are exact Python ints.  The compiled step keeps each count as limbs
of 62 bits (int64 arrays), adding a limb between cells when the total could
overflow the top one: no modular arithmetic, no object arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import TilesatError
from ..model.instance import INF, Instance
from ..model.placements import Placements, generate_placements

#: A state is one int64 key: ``code << (W + 1) | mask``.
KEY_BITS = 62
#: Pruning by counts (cells left against pieces still needed / still allowed)
#: uses a table over all codes; above this many codes it is skipped.
MAX_PRUNE_CODES = 1 << 22
LIMB_BITS = 62
LIMB_MASK = (1 << LIMB_BITS) - 1


@dataclass(frozen=True)
class Plan:
    """The instance relabelled in scan order, ready for the DP."""

    area: int  # open cells
    width: int  # W: the largest reach of a placement, in scan positions
    transposed: bool  # scanned column by column
    starts: list  # starts[i]: (offset masks, rule indices, copies) of the options first at i
    stride: np.ndarray  # int64 (rules,): 1 << offset of each counted rule's bit field in the code, 0 if not counted
    offset: np.ndarray  # int64 (rules,): where each counted rule's bit field starts
    field: np.ndarray  # int64 (rules,): the bit field's mask (after shifting), 0 if not counted
    cap: np.ndarray  # int64 (rules,): the largest digit of each counted rule
    saturate: np.ndarray  # bool (rules,): no upper bound, the digit stops at the minimum
    codes: int  # how many codes there are
    need: np.ndarray | None  # int64 (codes,): cells the still-required pieces cover
    room: np.ndarray | None  # int64 (codes,): cells the still-allowed pieces can cover (-1: no limit)
    final_ok: np.ndarray  # bool (codes,): every minimum is met

    @property
    def key_bits(self) -> int:
        return (self.width + 1) + max(self.codes - 1, 0).bit_length()


def _scan_positions(instance: Instance, transposed: bool) -> np.ndarray:
    """Position in scan order of each flat cell r*cols+c (-1 for blocked)."""
    grid = instance.board.open
    order = grid.T if transposed else grid
    rank = np.full(order.shape, -1, dtype=np.int64)
    rank[order] = np.arange(int(order.sum()))
    return (rank.T if transposed else rank).ravel()


def _relabel(placements: Placements, transposed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first position, last position, positions in CSR) of each placement."""
    pos = _scan_positions(placements.instance, transposed)[placements.cells]
    sizes = np.diff(placements.indptr)
    if len(placements) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, pos
    starts = placements.indptr[:-1]
    first = np.minimum.reduceat(pos, starts) if pos.size else np.zeros(0, dtype=np.int64)
    last = np.maximum.reduceat(pos, starts) if pos.size else np.zeros(0, dtype=np.int64)
    first[sizes == 0] = 0
    last[sizes == 0] = 0
    return first, last, pos


def _codes(instance: Instance, area: int):
    """Bit-field layout of the piece counts: stride, offset, field, cap,
    saturate, codes.  Why bit fields, not a mixed radix: a digit is a shift
    and a mask instead of two divisions in the compiled inner loop."""
    n = len(instance.rules)
    stride = np.zeros(n, dtype=np.int64)
    offset = np.zeros(n, dtype=np.int64)
    field = np.zeros(n, dtype=np.int64)
    cap = np.zeros(n, dtype=np.int64)
    saturate = np.zeros(n, dtype=bool)
    codes = 1
    for k, rule in enumerate(instance.rules):
        if not rule.bounded:
            continue
        most = area // max(rule.piece.size, 1)  # never more copies than fit
        if rule.max < most:
            top, sat = int(rule.max), False
        else:
            # no maximum that can bind: count up to the minimum only
            # (a minimum above `most` is refused before: no tiling)
            top, sat = min(rule.min, most + 1), True
        if top == 0 and sat:
            continue  # min 0 and no effective max: nothing to count
        bits = top.bit_length()
        if (codes << bits).bit_length() > KEY_BITS:  # found by the CLI fuzz test: heptominoes:0..1
            raise TilesatError(f"the piece counts need more than {KEY_BITS} bits of state "
                               "(count fewer pieces, or use dlx or native)")
        offset[k] = codes.bit_length() - 1
        stride[k] = codes
        field[k] = (1 << bits) - 1
        cap[k] = top
        saturate[k] = sat
        codes <<= bits
    return stride, offset, field, cap, saturate, codes


def make_plan(instance: Instance, placements: Placements | None = None) -> Plan:
    if placements is None:
        placements = generate_placements(instance)
    board = instance.board
    # the scan order with the narrower window (ties: along the narrower side)
    best = None
    for transposed in (board.cols > board.rows, board.cols <= board.rows):
        first, last, pos = _relabel(placements, transposed)
        width = int((last - first).max()) if first.size else 0
        if best is None or width < best[0]:
            best = (width, transposed, first, pos)
    width, transposed, first, pos = best
    return plan_items(instance, board.area, pos, placements.indptr, placements.rule, transposed=transposed)


def plan_items(instance: Instance, items: int, pos: np.ndarray, indptr: np.ndarray, rule: np.ndarray,
               copies: np.ndarray | None = None, transposed: bool = False) -> Plan:
    """The plan of a generic exact cover in scan order: ``items`` positions
    0..items-1, option p covering positions ``pos[indptr[p]:indptr[p + 1]]``
    and using ``copies[p]`` pieces (default 1) of ``instance.rules[rule[p]]``.
    A placement is the case items = open cells, copies = 1; a Burnside
    quotient (:mod:`tilesat.engines.burnside`) has cell orbits as items and placement
    orbits of k pieces as options.  The count pruning (cells left against
    pieces still needed) assumes one item per cell, so it is on only when
    every option uses one piece (the pieces' cells then are the items)."""
    n = len(rule)
    sizes = np.diff(indptr)
    if copies is None:
        copies = np.ones(n, dtype=np.int64)
    if n and pos.size:
        first = np.minimum.reduceat(pos, indptr[:-1])
        last = np.maximum.reduceat(pos, indptr[:-1])
        first[sizes == 0] = 0
        last[sizes == 0] = 0
        width = int((last - first).max())
    else:
        first = np.zeros(n, dtype=np.int64)
        width = 0
    area = instance.board.area
    stride, offset, field, cap, saturate, codes = _codes(instance, area)
    if codes > MAX_PRUNE_CODES:
        raise TilesatError(f"the piece counts make {codes} count states; the frontier engine tracks at most "
                           f"{MAX_PRUNE_CODES} (count fewer pieces, or use dlx)")
    # per code: cells the still-required pieces need, cells the still-allowed
    # pieces can cover (None: some piece is unlimited), every minimum met;
    # one rule at a time, so memory is O(codes), not O(codes x rules)
    codes_range = np.arange(codes, dtype=np.int64)
    need = np.zeros(codes, dtype=np.int64)
    room = np.zeros(codes, dtype=np.int64)
    has_placements = np.bincount(rule, minlength=len(instance.rules)) > 0
    unlimited = False
    for k, r in enumerate(instance.rules):
        digit = (codes_range >> offset[k]) & field[k]
        size = r.piece.size
        if stride[k]:
            # a minimum beyond what fits is clamped (found by the CLI fuzz test: L4:99999999999999999999
            # overflowed int64); need then exceeds the area and the count is 0
            least = min(int(r.min), area // max(size, 1) + 1)
            need += np.maximum(least - digit, 0) * size
        if stride[k] and not saturate[k]:
            room += (cap[k] - digit) * size
        elif has_placements[k]:
            unlimited = True
    final_ok = need == 0
    prune = items == area and bool((copies == 1).all())
    if unlimited or not prune:
        room = None
    if not prune:
        need = None

    # options grouped by their first position, as offset masks
    by_start: list = [([], [], []) for _ in range(items)]
    for p in range(n):
        cells = pos[indptr[p]:indptr[p + 1]]
        if cells.size == 0:
            continue
        f = int(first[p])
        m = 0
        for x in cells.tolist():
            m |= 1 << (x - f)
        by_start[f][0].append(m)
        by_start[f][1].append(int(rule[p]))
        by_start[f][2].append(int(copies[p]))
    return Plan(items, width, transposed, by_start, stride, offset, field, cap, saturate, codes, need, room, final_ok)


def problem(instance: Instance) -> str | None:
    """Why this engine cannot count this instance (one short sentence), or None when it can."""
    if not instance.board.is_square:
        return f"square boards only (this board is on the {instance.board.grid} grid)"
    from .base import cover_only

    if (why := cover_only(instance, "the frontier method")) is not None:
        return why
    try:
        plan = make_plan(instance)
    except TilesatError as e:
        return str(e)
    if plan.key_bits > KEY_BITS:
        return (f"the frontier is {plan.width + 1} cells wide and the piece counts need "
                f"{plan.key_bits - plan.width - 1} bits: more than a {KEY_BITS}-bit state"
                + (" (a wrap across the scan makes the window span the board)" if instance.board.wrap != "none" else ""))
    return None


# --- the reference DP, in pure Python -----------------------------------------

def count_python(instance: Instance, placements: Placements | None = None) -> int:
    """The same DP with a dict of Python ints (any width; slow): the reference."""
    plan = make_plan(instance, placements)
    return _run_python(plan)


def _run_python(plan: Plan) -> int:
    stride, cap, saturate = plan.stride.tolist(), plan.cap.tolist(), plan.saturate.tolist()
    offset, field = plan.offset.tolist(), plan.field.tolist()
    states = {(0, 0): 1}
    for i in range(plan.area):
        masks, rules, copies = plan.starts[i]
        left = plan.area - i - 1  # cells after i
        nxt: dict = {}
        for (mask, code), ways in states.items():
            if mask & 1:
                key = (mask >> 1, code)
                nxt[key] = nxt.get(key, 0) + ways
                continue
            for m, k, copy in zip(masks, rules, copies):
                if m & mask:
                    continue
                c = code
                if stride[k]:
                    d = (code >> offset[k]) & field[k]
                    nd = d + copy
                    if nd > cap[k]:
                        if not saturate[k]:
                            continue  # beyond the maximum
                        nd = cap[k]  # counted up to the minimum only
                    c += (nd - d) * stride[k]
                nm = (mask | m) >> 1
                if plan.need is not None:
                    uncovered = left - bin(nm).count("1")
                    if uncovered < plan.need[c] or (plan.room is not None and uncovered > plan.room[c]):
                        continue
                key = (nm, c)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
        if not states:
            return 0
    return sum(ways for (mask, code), ways in states.items() if plan.final_ok[code])


# --- the compiled DP (tilesat.engines.frontier_jit) -----------------------------------

def _compile():
    """The compiled step, imported on first use (numba takes ~0.5 s to import)."""
    from .frontier_jit import step

    return step


def warm_up() -> None:
    """Compile or load the compiled step now (call before forking workers, so
    that children inherit it instead of each loading it again)."""
    from ..model.board import Board
    from ..model.instance import PieceRule
    from ..model.pieces import builtin_piece

    tiny = Instance(Board.rectangle(2, 2), (PieceRule(builtin_piece("domino"), "free", 0, 2),))
    _run_compiled(make_plan(tiny))


def _limbs_to_int(row) -> int:
    return sum(int(v) << (LIMB_BITS * j) for j, v in enumerate(row.tolist()))


def _run_compiled(plan: Plan) -> int:
    step = _compile()
    shift = plan.width + 1
    keys = np.zeros(1, dtype=np.int64)
    vals = np.zeros((1, 1), dtype=np.int64)
    vals[0, 0] = 1
    n = 1
    use_need = plan.need is not None
    use_room = plan.room is not None
    need = plan.need if use_need else np.zeros(1, dtype=np.int64)
    room = plan.room if use_room else np.zeros(1, dtype=np.int64)
    stride = plan.stride.astype(np.int64)
    offset = plan.offset.astype(np.int64)
    field = plan.field.astype(np.int64)
    cap = plan.cap.astype(np.int64)
    saturate = plan.saturate.astype(np.bool_)
    empty = np.zeros(0, dtype=np.int64)
    for i in range(plan.area):
        masks, rules, copies = plan.starts[i]
        fan = len(masks) + 1  # one state's count reaches at most this many new states
        top = int(vals[:n, -1].sum()) if n else 0
        # (carries from the lower limbs add at most one per state)
        if (top + n + 1) * fan >= 1 << (LIMB_BITS - 1):
            # the top limb could overflow at this cell: one more limb first
            vals = np.concatenate([vals, np.zeros((vals.shape[0], 1), dtype=np.int64)], axis=1)
        m = np.array(masks, dtype=np.int64) if masks else empty
        r = np.array(rules, dtype=np.int64) if rules else empty
        k = np.array(copies, dtype=np.int64) if copies else empty
        keys, vals, n = step(keys, vals, n, m, r, k, shift, stride, offset, field, cap, saturate, need, room,
                             use_need, use_room, plan.area - i - 1)
        if n == 0:
            return 0
    total = 0
    codes = (keys[:n] >> shift).tolist()
    for t in range(n):
        if plan.final_ok[codes[t]]:
            total += _limbs_to_int(vals[t])
    return total


def _area_splits(instance: Instance, placements: Placements) -> bool:
    """Whether the area is a multiple of the gcd of the sizes of the pieces
    that have placements.  Why: the DP would find out only at the last cell,
    after exploring every frontier (21 s for trominoes on a 5x14 cylinder)."""
    sizes = {instance.rules[k].piece.size for k in np.unique(placements.rule).tolist()}
    area = instance.board.area
    return area % math.gcd(*sizes) == 0 if sizes else area == 0


def count(instance: Instance, placements: Placements | None = None) -> int:
    """The exact number of tilings (Python int: counts exceed 2**63)."""
    if placements is None:
        placements = generate_placements(instance)
    if not _area_splits(instance, placements):
        return 0
    return count_plan(make_plan(instance, placements))


def count_plan(plan: Plan) -> int:
    """The DP of a plan: compiled when its states fit in a 62-bit key, else the pure-Python reference."""
    if plan.key_bits > KEY_BITS:
        return _run_python(plan)  # problem() refuses these; the reference still counts them
    return _run_compiled(plan)
