"""The ``native`` engine: a compiled exact-cover enumerator for tilings.

A depth-first search in numba over bitboards, in the style of the bitboard
pentomino solvers: the covered cells are a bitset of uint64 words (one word
up to 64 open cells, any number of words beyond); at each step the first
empty cell (in scan order, along the narrower side of the board) must be
covered, so the only candidates are the placements whose first cell it is.
Piece counts are native: a remaining count per rule, and the search gives up
a branch when

* the cells left cannot hold the pieces still required (``min``), or the
  pieces still allowed cannot fill the cells left (all ``max`` finite);
* the empty region of the next cell to fill has an area that the remaining
  pieces cannot make: not a multiple of the gcd of their sizes, or smaller
  than the smallest (pentominoes: every region a multiple of 5), or room
  for one piece only and no piece left of its shape.  Only with connected
  pieces (a custom ``#.#`` spans two regions); regions bigger than a cap
  are not judged, which only prunes less.

Without ``forced``, :func:`count` splits by the piece used exactly once with
the fewest placements (the X pentomino), one search per orbit of its
placements under the board's symmetries: placing the most constrained piece
first is what the fast published 6x10 solvers do.

The search keeps its whole state (depth, candidate cursor per level, board,
counts) in arrays, so :func:`tilings` takes solutions in batches and resumes
where the last batch stopped; :func:`count` runs it without recording them.

Why compiled: the 6x10 pentominoes take about 5 million search nodes (the X
forced to each of its 32 placements) at 100-250 ns a node compiled; the
2,339 classes count in 0.16 s warm, against 8 s for xcover to list the
9,356 tilings (scripts/bench_native.py).  The first call compiles (about
11 s) or loads numba's cache (about 0.7 s); call :func:`warm_up` before
forking so that children inherit the code.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Iterator

import numba
import numpy as np

from ..errors import TilesatError
from ..model.instance import INF, Instance
from ..model.placements import Placements, generate_placements

#: Solutions recorded per compiled call when listing tilings.
BATCH = 1024

#: A flood fill stops after this many cells (one-word grid: growth steps)
#: and calls the region "big" (not checked).  Checking only small regions is
#: sound (it only prunes less) and bounds the cost per node; set from the
#: 6x10 pentomino measurements (16 steps: 5.4M nodes, 8: 9.2M, 64: 5.3M).
REGION_CAP = 64
REGION_STEPS = 16

#: "Any number" as a remaining count (never reached: a board has fewer cells).
UNBOUNDED = 1 << 40

# Indices of the search's scalar state in ``Search.scalars``.
DEPTH, NEED, LEFT, ROOM, DONE, STARTED, STAMP, NODES = range(8)


def problem(instance: Instance) -> str | None:
    """Why this engine cannot count this instance, or None when it can.

    The enumerator takes every board, wrap, orientation and piece count; it
    visits each tiling, so its time grows with the count (the lead's ``auto``
    decides when that is the fastest way)."""
    if not instance.board.is_square:
        return f"square boards only (this board is on the {instance.board.grid} grid)"
    return None


# --- the tables the compiled search reads ---------------------------------

@dataclass(frozen=True, eq=False)
class Tables:
    """An instance's placements as the compiled search wants them.

    Open cells are renumbered 0..N-1 in scan order (bits of the board);
    ``cand[cand_ptr[c]:cand_ptr[c + 1]]`` are the placements whose first bit
    is ``c``; placement ``p`` sets ``pw_bits[j]`` in word ``pw_word[j]`` for
    ``j`` in ``pw_ptr[p]:pw_ptr[p + 1]``; ``nb`` lists the neighbours of
    each cell."""

    placements: Placements
    n: int
    words: int
    cand_ptr: np.ndarray
    cand: np.ndarray
    pw_ptr: np.ndarray
    pw_word: np.ndarray
    pw_bits: np.ndarray
    prule: np.ndarray
    psize: np.ndarray
    nb_ptr: np.ndarray
    nb: np.ndarray
    pc_ptr: np.ndarray  # placement p's cells (bits): pcells[pc_ptr[p]:pc_ptr[p + 1]]
    pcells: np.ndarray
    mask: np.ndarray  # each placement's word, when the board is one word
    uniform: int  # the common size of all pieces (0: sizes differ)
    connected: bool  # every piece edge-connected: region pruning is sound
    base: np.ndarray  # the words at the start: blocked cells set (one-word layout)
    grid: bool  # one word holding every cell of the grid: the fast search
    window: int  # one word: candidate lists by the next ``window`` cells' state
    wptr: np.ndarray  # list (c, w) is wcand[wptr[c * 2**window + w]:...]
    wcand: np.ndarray
    wskip: np.ndarray
    shape: np.ndarray  # one word: L, M, wrap along a line, wrap across lines, first/last-of-line masks
    rsize: np.ndarray
    rmin: np.ndarray
    rmax: np.ndarray  # UNBOUNDED for "any number"
    max_depth: int


def _scan_order(board) -> tuple[np.ndarray, int, int, bool, bool]:
    """Flat indices of all cells in the order the search fills them: along
    the narrower side first (6x10: column by column, 6 cells each), which
    keeps the boundary between filled and empty cells short; with the
    length of a line, the number of lines, and whether each wraps."""
    R, C = board.rows, board.cols
    idx = np.arange(R * C).reshape(R, C)
    if R < C:
        return idx.T.ravel(), R, C, board.wraps_columns, board.wraps_rows
    return idx.ravel(), C, R, board.wraps_rows, board.wraps_columns


def _neighbours(board, bit: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR of each numbered cell's numbered edge-neighbours (honouring wrap)."""
    R, C = board.rows, board.cols
    rr, cc = np.divmod(np.arange(R * C), C)
    pairs = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r2, c2 = rr + dr, cc + dc
        if board.wraps_columns:
            r2 = r2 % R
        if board.wraps_rows:
            c2 = c2 % C
        ok = (r2 >= 0) & (r2 < R) & (c2 >= 0) & (c2 < C)
        src = np.flatnonzero(ok)
        dst = r2[ok] * C + c2[ok]
        pairs.append(np.stack([bit[src], bit[dst]], axis=1))
    pairs = np.concatenate(pairs)
    pairs = pairs[(pairs[:, 0] >= 0) & (pairs[:, 1] >= 0) & (pairs[:, 0] != pairs[:, 1])]
    pairs = np.unique(pairs, axis=0)  # a 2-wide wrap reaches the same cell twice
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs[:, 0], minlength=n), out=ptr[1:])
    return ptr, pairs[:, 1].astype(np.int32)


def _bits_mask(bits) -> np.uint64:
    out = 0
    for b in bits:
        out |= 1 << int(b)
    return np.uint64(out)


#: Candidate lists are indexed by the state of up to this many cells after
#: the first empty one, so that a node loops only over placements that fit
#: there (6x10 pentominoes: about 100 ns a node instead of about 220).
WINDOW = 8
#: ... as long as the lists hold at most this many entries.
WINDOW_ENTRIES = 4_000_000


def _window_lists(first, cand, owner, pbits, rule, n):
    """For each cell c and state w of the ``window`` cells after it, the
    candidates at c whose cells there are all empty in w (in cand's order),
    and where each run of one rule's candidates in each list ends."""
    P = cand.size
    window = WINDOW
    while window > 0 and (P + n) << window > WINDOW_ENTRIES:
        window -= 2
    W = 1 << window
    c = first[cand]
    # each placement's cells among the window after its first cell, as bits
    rel = pbits - first[owner] - 1
    inside = (rel >= 0) & (rel < window)
    ahead_of = np.zeros(P, dtype=np.uint64)
    np.bitwise_or.at(ahead_of, owner[inside], np.left_shift(np.uint64(1), rel[inside].astype(np.uint64)))
    ahead = ahead_of[cand]
    fits = (ahead[:, None] & np.arange(W, dtype=np.uint64)[None, :]) == 0  # (P, W)
    j, w = np.nonzero(fits)
    key = c[j] * W + w
    order = np.lexsort((j, key))
    j, key = j[order], key[order]
    wptr = np.zeros(n * W + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=n * W), out=wptr[1:])
    wcand = cand[j].astype(np.int32)
    run = key * (int(rule.max()) + 1 if rule.size else 1) + rule[wcand]
    ends = np.flatnonzero(np.r_[run[1:] != run[:-1], True]) + 1 if run.size else np.zeros(0, dtype=np.int64)
    wskip = np.repeat(ends, np.diff(np.r_[0, ends])).astype(np.int32)
    return window, wptr, wcand, wskip


def _connected(cells) -> bool:
    """Whether the cells are edge-connected.  A region's area must be a sum
    of piece sizes only when each piece lies within one region; a custom
    shape such as ``#.#`` spans two."""
    cells = set(map(tuple, cells))
    todo = [next(iter(cells))]
    seen = set(todo)
    while todo:
        r, c = todo.pop()
        for x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if x in cells and x not in seen:
                seen.add(x)
                todo.append(x)
    return len(seen) == len(cells)


def build_tables(placements: Placements) -> Tables:
    instance = placements.instance
    board = instance.board
    order, L, M, wrap_line, wrap_across = _scan_order(board)
    # One word: every cell of the grid is a bit (blocked ones set from the
    # start), so that regions grow by shifts.  Else only open cells are bits.
    grid = board.ncells <= 64
    if not grid:
        order = order[board.open.ravel()[order]]
    n = order.size
    words = max(1, (n + 63) // 64)
    bit = np.full(board.ncells, -1, dtype=np.int64)
    bit[order] = np.arange(n)
    base = np.zeros(words, dtype=np.uint64)
    if grid:
        base[0] = _bits_mask(bit[~board.open.ravel()])
    P = len(placements)
    sizes = np.diff(placements.indptr)
    owner = np.repeat(np.arange(P, dtype=np.int64), sizes)
    pbits = bit[placements.cells]
    order = np.lexsort((pbits, owner))  # by placement, then bit
    pbits, owner = pbits[order], owner[order]

    # candidates: placements by their first bit
    first = pbits[placements.indptr[:-1]] if P else np.zeros(0, dtype=np.int64)
    cand = np.argsort(first, kind="stable").astype(np.int32)
    cand_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(first, minlength=n), out=cand_ptr[1:])

    # each placement's bits, one (word, mask) pair per word it touches
    key = owner * words + (pbits >> 6)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, dtype=np.int64)
    masks = np.left_shift(np.uint64(1), (pbits & 63).astype(np.uint64))
    pw_bits = np.bitwise_or.reduceat(masks, starts) if key.size else np.zeros(0, dtype=np.uint64)
    pw_word = (key[starts] % words).astype(np.int32)
    pw_ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[starts], minlength=P), out=pw_ptr[1:])

    # each cell's open neighbours: regions grow along them on many words
    nb_ptr, nb = _neighbours(board, bit, n)

    mask = pw_bits.copy() if grid else np.zeros(0, dtype=np.uint64)
    rules = instance.rules
    rsize = np.array([len(r.piece.cells) for r in rules], dtype=np.int64)
    # counts beyond what fits are clamped (int64; the CLI fuzz test gives 20-digit counts):
    # a minimum above the area still admits no tiling, a maximum above it binds nothing
    fits = board.area + 1
    rmin = np.array([min(int(r.min), fits) for r in rules], dtype=np.int64)
    rmax = np.array([UNBOUNDED if r.max == INF or r.max > fits else int(r.max) for r in rules], dtype=np.int64)
    smallest = int(sizes.min()) if P else 1
    live = {int(x) for x in rsize[rmax > 0]}
    if grid:
        first_pos = _bits_mask(range(0, n, L))
        last_pos = _bits_mask(range(L - 1, n, L))
        shape = np.array([L, M, wrap_line, wrap_across and M > 1, first_pos, last_pos], dtype=np.uint64)
    else:
        shape = np.zeros(6, dtype=np.uint64)
    window, wptr, wcand, wskip = _window_lists(first, cand, owner, pbits, placements.rule, n)
    return Tables(
        placements, n, words, cand_ptr, cand, pw_ptr, pw_word, pw_bits,
        placements.rule.astype(np.int32), sizes.astype(np.int64), nb_ptr, nb,
        placements.indptr, pbits, mask, live.pop() if len(live) == 1 else 0,
        all(_connected(r.piece.cells) for r in rules), base, grid, window, wptr, wcand, wskip, shape,
        rsize, rmin, rmax, n // max(smallest, 1) + 2,
    )


# --- the compiled search ---------------------------------------------------
#
# Two copies of one search: ``_search1`` for boards of at most 64 open cells
# (the board is one uint64 held in a register: 6x10 pentominoes ran 2-3x
# faster than through the general word lists) and ``_search`` for any size.
# Both keep their whole state in arrays between calls; see :class:`Search`.

# the index of the lowest set bit by a de Bruijn multiplication (numba has no ctz)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 & (2**64 - 1)) >> 58] = _i


@numba.njit(cache=True, inline="always")
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@numba.njit(cache=True, inline="always")
def _lowest_bit(x):
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]


@numba.njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True, inline="always")
def _spread(x, full, L, M, wrap_line, wrap_across, first, last):
    """x and its edge-neighbours, on the one-word grid: lines of L cells, M
    lines, whether a line wraps and whether the last line touches the
    first, the masks of the first and last cells of the lines.  Scalars
    only: array arguments cost reference counting on every call (a check
    that did nothing cost 100 ns a node)."""
    one = np.uint64(1)
    out = x | ((x << one) & ~first) | ((x >> one) & ~last)
    if wrap_line:
        out |= ((x & last) >> (L - one)) | ((x & first) << (L - one))
    if M > one:
        out |= ((x << L) & full) | (x >> L)
        if wrap_across:
            out |= (x >> (L * (M - one))) | ((x << (L * (M - one))) & full)
    return out & full


@numba.njit(cache=True, inline="always")
def _grow(seed, empty, full, L, M, wrap_line, wrap_across, first, last, cap):
    """The empty region holding the bit ``seed``, grown by shifts; 0 when it
    still grows after ``cap`` steps (big: not judged, which is sound since
    it only prunes less)."""
    region = seed
    for _ in range(cap):
        grown = _spread(region, full, L, M, wrap_line, wrap_across, first, last) & empty
        if grown == region:
            return region
        region = grown
    return np.uint64(0)


@numba.njit(cache=True)
def _search1(cand_ptr, cand, window, wptr, wcand, wskip, mask, prule, psize, shape, rsize, rmin, uniform,
             regions, cap, cov, rem, used, sc, cell_at, idx_at, chosen, vis, stack, out, out_len, record, limit):
    """The search on one word (at most 64 open cells).  Runs (or resumes)
    until it ends or, with ``record``, until ``limit`` tilings are in
    ``out``; returns how many it found this call."""
    if sc[DONE]:
        return 0
    n = cand_ptr.size - 1
    full = ~np.uint64(0) if n == 64 else (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    covered = cov[0]
    one = np.uint64(1)
    L, M, wrap_line, wrap_across, first_cells, last_cells = shape[0], shape[1], shape[2], shape[3], shape[4], shape[5]
    wmask = (one << np.uint64(window)) - one
    need, left, room = sc[NEED], sc[LEFT], sc[ROOM]
    found = 0
    if not sc[STARTED]:
        sc[STARTED] = 1
        if covered == full:  # the forced placement covers everything
            sc[DONE] = 1
            if need == 0:
                if record:
                    out_len[0] = 0
                return 1
            return 0
        sc[DEPTH] = 0
        c = _lowest_bit(~covered & full)
        ls = (c << window) + ((covered >> np.uint64(c)) >> one & wmask)
        cell_at[0] = ls
        idx_at[0] = wptr[ls]
    d = sc[DEPTH]
    while True:
        i = idx_at[d]
        end = wptr[cell_at[d] + 1]  # cell_at holds the list (cell, window state) here
        descended = False
        while i < end:
            p = wcand[i]
            k = prule[p]
            if rem[k] == 0:
                i = wskip[i]  # the rest of this piece's placements in the list
                continue
            i += 1
            m = mask[p]
            if covered & m:
                continue
            size = psize[p]
            new_need = need - size if used[k] < rmin[k] else need
            new_left = left - size
            if new_need > new_left or room - size < new_left:
                continue
            covered |= m
            rem[k] -= 1
            used[k] += 1
            if regions and new_left > 0:
                # only the region of the next cell to fill: it holds the new
                # small pockets soon enough in scan order, and one growth per
                # node beat growing every region next to p (6x10: 5.3M nodes
                # against 4.9M, but about half the cost per node)
                g, smallest = uniform, uniform
                if not uniform:
                    g, smallest = 0, 1 << 30
                    for k2 in range(rem.size):
                        if rem[k2] > 0:
                            g = _gcd(g, rsize[k2])
                            smallest = min(smallest, rsize[k2])
                bad = g == 0  # cells left and no piece left
                if g > 1 or smallest > 1:
                    empty = ~covered & full
                    region = _grow(empty & (covered + one), empty, full, L, M, wrap_line, wrap_across,
                                   first_cells, last_cells, cap)
                    if region:
                        area = np.int64(_popcount(region))
                        if area % g != 0 or area < smallest:
                            bad = True
                        elif area < 2 * smallest:
                            # room for one piece only: is any piece left this shape?
                            bad = True
                            c0 = _lowest_bit(region)
                            for j in range(cand_ptr[c0], cand_ptr[c0 + 1]):
                                if mask[cand[j]] == region and rem[prule[cand[j]]] > 0:
                                    bad = False
                                    break
                if bad:
                    covered ^= m
                    rem[k] += 1
                    used[k] -= 1
                    continue
            if new_left == 0:  # every cell covered, every minimum met (need <= left = 0): a tiling
                chosen[d] = p
                if record:
                    out[found, :d + 1] = chosen[:d + 1]
                    out_len[found] = d + 1
                found += 1
                covered ^= m
                rem[k] += 1
                used[k] -= 1
                if record and found == limit:
                    idx_at[d] = i
                    sc[DEPTH] = d
                    sc[NEED], sc[LEFT], sc[ROOM] = need, left, room
                    cov[0] = covered
                    return found
                continue
            chosen[d] = p
            idx_at[d] = i
            sc[NODES] += 1
            need, left, room = new_need, new_left, room - size
            d += 1
            c = _lowest_bit(~covered & full)
            ls = (c << window) + ((covered >> np.uint64(c)) >> one & wmask)
            cell_at[d] = ls
            idx_at[d] = wptr[ls]
            descended = True
            break
        if descended:
            continue
        if d == 0:
            sc[DONE] = 1
            cov[0] = covered
            return found
        d -= 1
        p = chosen[d]
        k = prule[p]
        covered ^= mask[p]
        rem[k] += 1
        used[k] -= 1
        size = psize[p]
        if used[k] < rmin[k]:
            need += size
        left += size
        room += size


@numba.njit(cache=True)
def _search(cand_ptr, cand, window, wptr, wcand, wskip, pw_ptr, pw_word, pw_bits, pc_ptr, pcells, prule, psize,
            nb_ptr, nb, rsize, rmin, uniform, regions, cap, covered, rem, used, sc, cell_at, idx_at, chosen,
            vis, stack, out, out_len, record, limit):
    """:func:`_search1` on any number of words (placement p sets
    ``pw_bits[j]`` in word ``pw_word[j]``, ``j`` in ``pw_ptr[p]:pw_ptr[p + 1]``;
    its cells are ``pcells[pc_ptr[p]:pc_ptr[p + 1]]``); regions grow cell by
    cell along the neighbour lists ``nb``, at most ``cap`` cells."""
    if sc[DONE]:
        return 0
    n = nb_ptr.size - 1
    words = covered.size
    one = np.uint64(1)
    wmask = (one << np.uint64(window)) - one
    need, left, room = sc[NEED], sc[LEFT], sc[ROOM]
    stamp = sc[STAMP]
    found = 0
    if not sc[STARTED]:
        sc[STARTED] = 1
        c = 0
        while c < n and (covered[c >> 6] >> np.uint64(c & 63)) & one:
            c += 1
        if c == n:
            sc[DONE] = 1
            if need == 0:
                if record:
                    out_len[0] = 0
                return 1
            return 0
        sc[DEPTH] = 0
        cell_at[0] = c
        idx_at[0] = -1  # the list is chosen on entering the level
    d = sc[DEPTH]
    while True:
        c = cell_at[d]
        # the candidate list for the state of the window after c (the same
        # on entering the level and on coming back to it)
        b = c + 1
        wi, off = b >> 6, b & 63
        state = covered[wi] >> np.uint64(off) if wi < words else np.uint64(0)
        if off + window > 64 and wi + 1 < words:
            state |= covered[wi + 1] << np.uint64(64 - off)
        ls = (c << window) + np.int64(state & wmask)
        i = idx_at[d] if idx_at[d] >= 0 else wptr[ls]
        end = wptr[ls + 1]
        descended = False
        while i < end:
            p = wcand[i]
            k = prule[p]
            if rem[k] == 0:
                i = wskip[i]
                continue
            i += 1
            fits = True
            for j in range(pw_ptr[p], pw_ptr[p + 1]):
                if covered[pw_word[j]] & pw_bits[j]:
                    fits = False
                    break
            if not fits:
                continue
            size = psize[p]
            new_need = need - size if used[k] < rmin[k] else need
            new_left = left - size
            if new_need > new_left or room - size < new_left:
                continue
            for j in range(pw_ptr[p], pw_ptr[p + 1]):
                covered[pw_word[j]] ^= pw_bits[j]
            rem[k] -= 1
            used[k] += 1
            c2 = c
            while c2 < n and (covered[c2 >> 6] >> np.uint64(c2 & 63)) & one:
                c2 += 1
            if regions and new_left > 0:
                # the region of the next cell to fill (as on one word)
                g, smallest = uniform, uniform
                if not uniform:
                    g, smallest = 0, 1 << 30
                    for k2 in range(rem.size):
                        if rem[k2] > 0:
                            g = _gcd(g, rsize[k2])
                            smallest = min(smallest, rsize[k2])
                bad = g == 0
                if g > 1 or smallest > 1:
                    stamp += 1
                    vis[c2] = stamp
                    stack[0] = c2
                    top, area, whole = 1, 0, True
                    while top > 0:
                        if area == cap:
                            whole = False
                            break
                        top -= 1
                        x = stack[top]
                        area += 1
                        for e in range(nb_ptr[x], nb_ptr[x + 1]):
                            y = nb[e]
                            if vis[y] != stamp and not (covered[y >> 6] >> np.uint64(y & 63)) & one:
                                vis[y] = stamp
                                stack[top] = y
                                top += 1
                    if whole:
                        if area % g != 0 or area < smallest:
                            bad = True
                        elif area < 2 * smallest:
                            bad = True  # room for one piece only: is any piece left this shape?
                            for j in range(cand_ptr[c2], cand_ptr[c2 + 1]):
                                q = cand[j]
                                if psize[q] == area and rem[prule[q]] > 0:
                                    same = True
                                    for e in range(pc_ptr[q], pc_ptr[q + 1]):
                                        if vis[pcells[e]] != stamp:
                                            same = False
                                            break
                                    if same:
                                        bad = False
                                        break
                if bad:
                    for j in range(pw_ptr[p], pw_ptr[p + 1]):
                        covered[pw_word[j]] ^= pw_bits[j]
                    rem[k] += 1
                    used[k] -= 1
                    continue
            chosen[d] = p
            if new_left == 0:
                if record:
                    out[found, :d + 1] = chosen[:d + 1]
                    out_len[found] = d + 1
                found += 1
                for j in range(pw_ptr[p], pw_ptr[p + 1]):
                    covered[pw_word[j]] ^= pw_bits[j]
                rem[k] += 1
                used[k] -= 1
                if record and found == limit:
                    idx_at[d] = i
                    sc[DEPTH] = d
                    sc[NEED], sc[LEFT], sc[ROOM], sc[STAMP] = need, left, room, stamp
                    return found
                continue
            idx_at[d] = i
            need, left, room = new_need, new_left, room - size
            d += 1
            cell_at[d] = c2
            idx_at[d] = -1
            descended = True
            break
        if descended:
            continue
        if d == 0:
            sc[DONE] = 1
            return found
        d -= 1
        p = chosen[d]
        k = prule[p]
        for j in range(pw_ptr[p], pw_ptr[p + 1]):
            covered[pw_word[j]] ^= pw_bits[j]
        rem[k] += 1
        used[k] -= 1
        size = psize[p]
        if used[k] < rmin[k]:
            need += size
        left += size
        room += size


# --- the Python face -------------------------------------------------------

class Search:
    """One resumable search over an instance's tilings (with ``forced``:
    those holding that placement)."""

    def __init__(self, tables: Tables, forced: int | None = None, regions: bool = True, cap: int | None = None,
                 general: bool = False):
        t = self.t = tables
        self.forced = forced
        self.general = general  # the any-size search even on one word (tests compare the two)
        self.regions = regions and t.connected
        self.cap = cap if cap is not None else REGION_STEPS if t.grid and not general else REGION_CAP
        self.covered = t.base.copy()
        self.rem = t.rmax.copy()
        self.used = np.zeros_like(self.rem)
        self.sc = np.zeros(8, dtype=np.int64)
        self.sc[NEED] = int((t.rmin * t.rsize).sum())
        self.sc[LEFT] = t.placements.instance.board.area
        bounded = bool((t.rmax < UNBOUNDED).all())
        self.sc[ROOM] = int((t.rmax * t.rsize).sum()) if bounded else UNBOUNDED * 4
        self.cell_at = np.zeros(t.max_depth, dtype=np.int64)
        self.idx_at = np.zeros(t.max_depth, dtype=np.int64)
        self.chosen = np.zeros(t.max_depth, dtype=np.int64)
        self.vis = np.zeros(t.n, dtype=np.int64)
        self.stack = np.zeros(t.n + 1, dtype=np.int64)
        # ``forced``: one placement or several (a unit of a split count); each is put down first
        self.forced = () if forced is None else tuple(int(p) for p in np.atleast_1d(forced))
        for p in self.forced:
            if not 0 <= p < len(t.placements):
                raise TilesatError(f"forced placement {p} out of range 0..{len(t.placements) - 1}")
            k, size = int(t.prule[p]), int(t.psize[p])
            words, bits = t.pw_word[t.pw_ptr[p]:t.pw_ptr[p + 1]], t.pw_bits[t.pw_ptr[p]:t.pw_ptr[p + 1]]
            if (self.covered[words] & bits).any() or self.rem[k] <= 0:
                self.sc[DONE] = 1  # forced placements that overlap, or a piece forced too often: no tiling
            self.covered[words] |= bits
            if self.used[k] < t.rmin[k]:
                self.sc[NEED] -= size
            self.used[k] += 1
            self.rem[k] -= 1
            self.sc[LEFT] -= size
            self.sc[ROOM] -= size
        if self.sc[NEED] > self.sc[LEFT] or self.sc[ROOM] < self.sc[LEFT]:
            self.sc[DONE] = 1

    def _run(self, out, out_len, record: bool, limit: int) -> int:
        t = self.t
        if t.grid and not self.general:
            found = _search1(t.cand_ptr, t.cand, t.window, t.wptr, t.wcand, t.wskip, t.mask, t.prule, t.psize,
                             t.shape, t.rsize, t.rmin, t.uniform, self.regions, self.cap,
                             self.covered, self.rem, self.used, self.sc, self.cell_at, self.idx_at,
                             self.chosen, self.vis, self.stack, out, out_len, record, limit)
        else:
            found = _search(t.cand_ptr, t.cand, t.window, t.wptr, t.wcand, t.wskip, t.pw_ptr, t.pw_word,
                            t.pw_bits, t.pc_ptr, t.pcells, t.prule, t.psize,
                            t.nb_ptr, t.nb, t.rsize, t.rmin, t.uniform, self.regions,
                            self.cap, self.covered, self.rem, self.used, self.sc, self.cell_at, self.idx_at,
                            self.chosen, self.vis, self.stack, out, out_len, record, limit)
        return int(found)

    def count(self) -> int:
        dummy = np.zeros((1, 1), dtype=np.int64)
        return self._run(dummy, np.zeros(1, dtype=np.int64), False, 0)

    def batches(self, batch: int = BATCH) -> Iterator[np.ndarray]:
        out = np.zeros((batch, self.t.max_depth), dtype=np.int64)
        out_len = np.zeros(batch, dtype=np.int64)
        while not self.sc[DONE]:
            k = self._run(out, out_len, True, batch)
            for i in range(k):
                sol = out[i, :out_len[i]].copy()
                yield np.append(sol, self.forced) if self.forced else sol


#: Tables built per Placements object, kept while it lives: the lead counts
#: units (one forced placement each) on the same placements, and building
#: the tables (~10 ms on 6x10) would cost more than counting a unit.
_TABLES: "weakref.WeakKeyDictionary[Placements, Tables]" = weakref.WeakKeyDictionary()


def _tables(instance: Instance, placements: Placements | None) -> Tables:
    if placements is None:
        placements = generate_placements(instance)
    elif placements.instance is not instance:
        raise TilesatError("the placements belong to another instance")
    tables = _TABLES.get(placements)
    if tables is None:
        tables = _TABLES[placements] = build_tables(placements)
    return tables


def _split_rule(tables: Tables) -> int | None:
    """The piece used exactly once with the fewest placements (None: no
    piece is used exactly once).  Every tiling holds exactly one of its
    placements, so the counts with each of them forced add up to the
    whole; placing the most constrained piece first cuts the search
    (6x10 pentominoes, the X forced to each of its 32 placements: 3.5 s of
    CPU against 13 s for one search from the empty board)."""
    P = tables.placements
    once = [k for k, r in enumerate(P.instance.rules) if r.min == r.max == 1]
    if not once:
        return None
    sizes = np.bincount(P.rule, minlength=len(P.instance.rules))
    return min(once, key=lambda k: sizes[k])


def _point_maps(board) -> list[np.ndarray]:
    """The rotations and reflections of the rectangle that map open cells
    to open cells, as arrays cell -> image cell (identity excluded)."""
    R, C = board.rows, board.cols
    r, c = np.divmod(np.arange(R * C), C)
    maps = [(R - 1 - r, C - 1 - c), (R - 1 - r, c), (r, C - 1 - c)]
    if R == C:
        maps += [(c, R - 1 - r), (C - 1 - c, r), (c, r), (C - 1 - c, R - 1 - r)]
    open_flat = board.open.ravel()
    out = []
    for nr, nc in maps:
        image = nr * C + nc
        if np.array_equal(open_flat[image], open_flat):
            out.append(image)
    return out


def _orbits(placements: Placements, k: int) -> list[tuple[int, int]]:
    """(representative, orbit size) of rule k's placements under the point
    symmetries of the instance: the maps of the board under which every
    rule's placements map onto placements of the same rule (one-sided and
    fixed pieces may forbid reflections or rotations).  Unwrapped boards
    only; wrapped ones are one orbit per placement."""
    ids = placements.of_rule(k)
    if placements.instance.board.wrap != "none":
        return [(int(p), 1) for p in ids]
    rows = {}
    for j in range(len(placements.instance.rules)):
        block = placements.of_rule(j)
        if block.size:
            size = int(placements.indptr[block[0] + 1] - placements.indptr[block[0]])
            rows[j] = placements.cells[placements.indptr[block[0]]:placements.indptr[block[-1] + 1]].reshape(-1, size)
    group = []
    for image in _point_maps(placements.instance.board):
        ok = True
        for j, A in rows.items():
            B = np.sort(image[A], axis=1)
            a = np.unique(A.astype(np.int64), axis=0)
            b = np.unique(B.astype(np.int64), axis=0)
            if a.shape != b.shape or not np.array_equal(a, b):
                ok = False
                break
        if ok:
            group.append(image)
    index = {rows[k][i].astype(np.int64).tobytes(): int(p) for i, p in enumerate(ids)}
    seen, out = set(), []
    for i, p in enumerate(ids):
        if int(p) in seen:
            continue
        orbit = {int(p)} | {index[np.sort(g[rows[k][i]]).astype(np.int64).tobytes()] for g in group}
        seen |= orbit
        out.append((int(p), len(orbit)))
    return out


def count(instance: Instance, placements: Placements | None = None, forced=None) -> int:
    """The exact number of tilings (with ``forced``, a placement or a
    sequence of them: of those holding them), counted without materialising them.

    Without ``forced``, and with a piece used exactly once: the sum over its
    placements of the tilings holding each, one per orbit under the board's
    symmetries times the orbit's size (a symmetry maps the tilings holding
    p one to one onto those holding its image).  6x10 pentominoes: 0.4 s
    instead of 1.5 s for the 32 X placements."""
    tables = _tables(instance, placements)
    if forced is None:
        k = _split_rule(tables)
        if k is not None:
            return sum(size * Search(tables, p).count() for p, size in _orbits(tables.placements, k))
    return Search(tables, forced).count()


def tilings(instance: Instance, placements: Placements | None = None,
            forced=None) -> Iterator[np.ndarray]:
    """The placement indices of every tiling (with ``forced``, a placement or
    a sequence of them: of those holding them, which then come last), in search order; not
    verified here."""
    tables = _tables(instance, placements)
    if forced is None:
        k = _split_rule(tables)
        if k is not None:
            for p in tables.placements.of_rule(k):
                yield from Search(tables, int(p)).batches()
            return
    yield from Search(tables, forced).batches()


def warm_up() -> None:
    """Compile (or load from the cache) the search on a tiny instance, so
    that forked children inherit the code instead of each loading it."""
    from ..model.instance import parse_instance
    from ..running.stdout_guard import native_output

    inst = parse_instance("pieces: L3:0..1, I2\n...\n.#.\n")
    tables = _tables(inst, None)
    with native_output():
        for general in (False, True):  # the one-word search and the any-size one
            list(Search(tables, general=general).batches())
            Search(tables, general=general).count()
