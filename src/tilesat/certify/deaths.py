"""The look-ahead's deaths, checked by code that did not find them.

The look-ahead (tilesat.engines.prune, compiled) logs why each placement it rules out
is in no tiling: put down, it leaves some open cell without a candidate, directly or
after the placements it forces (a cell left with one candidate must take it).  Here
that log is replayed, each step checked against the placements still alive at that
point (those that die later in the log, or never); the board has no tiling when, at
the end, an open cell has none left.  Nothing of the look-ahead is trusted but the
order of its log: the placements' cells come from the placements themselves.

The steps are checked all at once with array operations (a step's live candidates are
those the log kills later; whether one overlaps what a death put down, by comparing their
cells), not one by one: a few milliseconds for one step's log on 40x40 to 100x100 boards,
where a loop over the deaths took 10-60 ms (docs/benchmarks/hard-families.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.placements import Placements
from .certificate import CertificateError

#: Checks at a time (memory: each compares its cell's candidates with what its death put down).
CHUNK = 1 << 15


def check_deaths(placements: Placements, deaths, lost: int | None = None) -> np.ndarray:
    """The placements alive after ``deaths`` (engines.prune.Deaths), which must prove each
    death in turn and leave the open cell ``lost`` (when given) without a live placement
    (else :class:`CertificateError`)."""
    alive = replay_deaths(placements, deaths)
    if lost is None:
        return alive
    board = placements.instance.board
    if not 0 <= lost < board.ncells or not board.open.ravel()[lost]:
        raise CertificateError(f"cell {lost} is not an open cell")
    owners = np.repeat(np.arange(len(placements)), np.diff(placements.indptr))
    if alive[owners[placements.cells == lost]].any():
        raise CertificateError(f"cell {lost} keeps a candidate")
    return alive


def replay_deaths(placements: Placements, deaths) -> np.ndarray:
    """The placements alive after ``deaths``, each death checked in turn (else
    :class:`CertificateError`): sound for tilings of boards without optional cells.

    The k-th death puts down its placement p and the placements its chain forces,
    q_1, q_2, ... (each onto a cell x_i): p alive; each q_i alive, covering x_i, disjoint
    from what is down; every other live candidate of x_i overlapping p, q_1 .. q_(i-1);
    and the death's cell, open and not covered, left with no live candidate that does
    not overlap what is down.  "Live" at step k: not killed by a death before k."""
    board = placements.instance.board
    if not board.exact:
        raise CertificateError("a board with optional cells: a cell may stay empty")
    count, ncells = len(placements), board.ncells
    indptr = np.asarray(placements.indptr, dtype=np.int64)
    cells = np.asarray(placements.cells, dtype=np.int64)
    dead, empty, forced, onto, owner = _read(deaths, count, ncells)
    n = dead.size
    # died[r]: the step that kills r (n: none); a placement dies once
    died = np.full(count, n, dtype=np.int64)
    np.minimum.at(died, dead, np.arange(n))  # with repeats, the first death stays
    again = np.flatnonzero(died[dead] != np.arange(n))
    if again.size:
        k = int(again[0])
        raise CertificateError(f"death {k}: placement {int(dead[k])} is dead already")
    # what each death with a chain puts down: part 0 is p, part i its i-th forced placement
    # (a death without one puts down p alone: its cells are compared directly)
    chain_len = np.bincount(owner, minlength=n)
    chained = np.flatnonzero(chain_len)
    level = np.arange(forced.size) - np.searchsorted(owner, owner) + 1  # i, for each forced
    parts = np.concatenate([dead[chained], forced])
    part_death = np.concatenate([chained, owner])
    part_level = np.concatenate([np.zeros(chained.size, dtype=np.int64), level])
    lens = np.diff(indptr)
    down = _Down(np.repeat(part_death, lens[parts]), cells[_positions(indptr, parts)],
                 np.repeat(part_level, lens[parts]), ncells)
    if down.overlap is not None:
        k = int(down.overlap)
        raise CertificateError(f"death {k}: the placements it puts down overlap")
    # each forced q is alive, and covers its cell x first at its own level
    bad = (died[forced] < owner) | (down.level(owner, onto) != level)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise CertificateError(f"death {int(owner[j])}: placement {int(forced[j])} cannot be forced onto cell {int(onto[j])}")
    rows = _rows(indptr, cells, -1)
    bad = ~board.open.ravel()[empty] | (down.level(np.arange(n), empty) < _NEVER) | _covers(rows[dead], empty)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise CertificateError(f"death {k}: cell {int(empty[k])} is not an open cell left to cover")
    # every other live candidate of each cell checked overlaps what is down before it
    steps = _Steps(*_by_cell(cells, indptr, ncells), died, rows, _rows(indptr, cells, -2), dead, chain_len > 0, down)
    checked = (np.concatenate([owner, np.arange(n, dtype=np.int64)]), np.concatenate([onto, empty]),
               np.concatenate([forced, np.full(n, -1, dtype=np.int64)]), np.concatenate([level - 1, chain_len]))
    for start in range(0, checked[0].size, CHUNK):
        death, cell, other_than, upto = (a[start:start + CHUNK] for a in checked)
        keeps = steps.keep_a_candidate(death, cell, other_than, upto)
        if keeps.size:
            j = int(keeps[np.argmin(death[keeps])])
            k, x = int(death[j]), int(cell[j])
            if other_than[j] >= 0:
                raise CertificateError(f"death {k}: cell {x} has another candidate than {int(other_than[j])}")
            raise CertificateError(f"death {k}: cell {x} keeps a candidate")
    return died == n


#: The level of a cell that nothing put down covers.
_NEVER = np.iinfo(np.int64).max


class _Down:
    """The cells each death puts down, and at which level (0: its placement, i: its i-th forced)."""

    def __init__(self, death: np.ndarray, cell: np.ndarray, level: np.ndarray, ncells: int):
        self.stride = ncells + 1  # a row's padding (-1) looks up (death - 1, ncells): no cell
        key = death * self.stride + cell
        order = np.lexsort((level, key))
        key, level, death = key[order], level[order], death[order]
        same = np.flatnonzero(key[1:] == key[:-1])
        # the same cell twice at one level is one placement's (a wrapped board): not an overlap
        clash = same[level[same + 1] != level[same]]
        self.overlap = int(death[clash].min()) if clash.size else None
        first = np.ones(key.size, dtype=bool)
        first[same + 1] = False
        self.keys, self.levels = key[first], level[first]

    def level(self, death: np.ndarray, cell: np.ndarray) -> np.ndarray:
        """The level at which each death covers each cell (_NEVER: not at all)."""
        key = death * self.stride + cell
        at = np.minimum(np.searchsorted(self.keys, key), max(self.keys.size - 1, 0))
        if not self.keys.size:
            return np.full(key.size, _NEVER, dtype=np.int64)
        return np.where(self.keys[at] == key, self.levels[at], _NEVER)


@dataclass(frozen=True)
class _Steps:
    """What the checks of the log's steps look up: the cells' placements (CSR), the step that
    kills each placement, each placement's cells as a row (padded with -1, and with -2 to
    compare with those), each death's placement, whether it has a chain, and what it put down."""

    cell_indptr: np.ndarray
    on_cell: np.ndarray
    died: np.ndarray
    rows: np.ndarray
    part_rows: np.ndarray
    dead: np.ndarray
    chained: np.ndarray
    down: _Down

    def keep_a_candidate(self, death, cell, other_than, upto) -> np.ndarray:
        """Which checks (indices) find a candidate of their cell, alive at their death's step and
        not ``other_than``, that nothing its death put down at levels 0 .. ``upto`` overlaps."""
        degree = self.cell_indptr[cell + 1] - self.cell_indptr[cell]
        check = np.repeat(np.arange(cell.size), degree)
        candidate = self.on_cell[_positions(self.cell_indptr, cell)]
        live = (self.died[candidate] >= death[check]) & (candidate != other_than[check])
        check, candidate = check[live], candidate[live]
        overlapped = np.zeros(check.size, dtype=bool)
        # a death without a chain put down its placement alone: compare their cells (a few times
        # faster than looking each cell up)
        alone = np.flatnonzero(~self.chained[death[check]])
        theirs = self.rows[candidate[alone]]
        meets = np.zeros(alone.size, dtype=bool)
        for cell_down in self.part_rows[self.dead[death[check[alone]]]].T:
            meets |= _covers(theirs, cell_down)
        overlapped[alone[meets]] = True
        # else the earliest level at which the death covers one of its cells
        chained = np.flatnonzero(self.chained[death[check]])
        theirs = self.rows[candidate[chained]]
        covered = self.down.level(np.repeat(death[check[chained]], theirs.shape[1]), theirs.ravel())
        covered = covered.reshape(theirs.shape).min(axis=1, initial=_NEVER)
        overlapped[chained[covered <= upto[check[chained]]]] = True
        return np.unique(check[~overlapped])


def _covers(rows: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """Whether each row has its cell, column by column (a few times faster than one 2-d comparison)."""
    has = np.zeros(cell.size, dtype=bool)
    for column in rows.T:
        has |= column == cell
    return has


def _rows(indptr: np.ndarray, cells: np.ndarray, pad: int) -> np.ndarray:
    """Each placement's cells as a row, padded with ``pad`` to the longest."""
    lens = np.diff(indptr)
    width = int(lens.max()) if lens.size else 1
    if (lens == width).all():
        return cells.reshape(-1, width)
    rows = np.full((lens.size, width), pad, dtype=np.int64)
    rows[np.repeat(np.arange(lens.size), lens), np.arange(cells.size) - np.repeat(indptr[:-1], lens)] = cells
    return rows


def _positions(indptr: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Positions, in the CSR array behind ``indptr``, of the rows ``ids``, row after row."""
    lens = indptr[ids + 1] - indptr[ids]
    before = np.cumsum(lens) - lens
    return np.repeat(indptr[ids] - before, lens) + np.arange(int(lens.sum()), dtype=np.int64)


def _by_cell(cells: np.ndarray, indptr: np.ndarray, ncells: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells to placements (CSR), from the placements' cells."""
    owner = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    order = np.argsort(cells)
    cell_indptr = np.zeros(ncells + 1, dtype=np.int64)
    np.cumsum(np.bincount(cells, minlength=ncells), out=cell_indptr[1:])
    return cell_indptr, owner[order]


def _read(deaths, count: int, ncells: int) -> tuple[np.ndarray, ...]:
    """The log as arrays, in range: dead placements, their cells, the forced placements,
    the cells they are forced onto, and the death each forced one belongs to."""
    dead = np.asarray(deaths.placement, dtype=np.int64)
    empty = np.asarray(deaths.cell, dtype=np.int64)
    ends = np.asarray(deaths.ends, dtype=np.int64)
    chain = np.asarray(deaths.chain, dtype=np.int64)
    if not (dead.ndim == empty.ndim == ends.ndim == 1 and dead.size == empty.size == ends.size):
        raise CertificateError("the log's arrays differ in length")
    used = int(ends[-1]) if ends.size else 0
    if (np.diff(ends, prepend=0) < 0).any() or 2 * used > chain.size:
        raise CertificateError("the log's chains do not follow each other")
    pairs = chain[:2 * used].reshape(-1, 2)
    forced, onto = pairs[:, 0], pairs[:, 1]
    for what, ids, top in (("placement", dead, count), ("cell", empty, ncells), ("placement", forced, count),
                           ("cell", onto, ncells)):
        if ids.size and (ids.min() < 0 or ids.max() >= top):
            raise CertificateError(f"the log names a {what} that does not exist")
    owner = np.repeat(np.arange(dead.size, dtype=np.int64), np.diff(ends, prepend=0))
    return dead, empty, forced, onto, owner
