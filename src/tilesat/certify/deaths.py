"""The look-ahead's "no tiling", checked by code that did not find it.

The look-ahead (tilesat.engines.prune, compiled) logs why each placement it rules out
is in no tiling: put down, it leaves some open cell without a candidate, directly or
after the placements it forces (a cell left with one candidate must take it).  Here
that log is replayed in order, each step checked against the placements still alive
at that point; the board has no tiling when, at the end, an open cell has none left.
"""

from __future__ import annotations

import numpy as np

from ..model.placements import Placements
from .certificate import CertificateError


def check_deaths(placements: Placements, deaths, lost: int) -> None:
    """Raise :class:`CertificateError` unless ``deaths`` (engines.prune.Deaths) proves
    each death in turn and leaves the open cell ``lost`` without a live placement."""
    alive = replay_deaths(placements, deaths)
    board = placements.instance.board
    owners = np.repeat(np.arange(len(placements)), np.diff(placements.indptr))
    if not board.open.ravel()[lost] or alive[owners[placements.cells == lost]].any():
        raise CertificateError(f"cell {lost} keeps a candidate")


def replay_deaths(placements: Placements, deaths) -> np.ndarray:
    """The placements alive after ``deaths``, each death checked in turn (else
    :class:`CertificateError`): sound for tilings of boards without optional cells."""
    board = placements.instance.board
    if not board.exact:
        raise CertificateError("a board with optional cells: a cell may stay empty")
    cells = [frozenset(placements.cells_of(p).tolist()) for p in range(len(placements))]
    on_cell: dict[int, list[int]] = {}
    for p, own in enumerate(cells):
        for c in own:
            on_cell.setdefault(c, []).append(p)
    alive = np.ones(len(placements), dtype=bool)

    def live_on(c: int) -> list[int]:
        return [q for q in on_cell.get(c, ()) if alive[q]]

    for k, p in enumerate(deaths.placement.tolist()):
        if not alive[p]:
            raise CertificateError(f"death {k}: placement {p} is dead already")
        down = set(cells[p])
        for q, x in deaths.forced(k):
            if x in down or not alive[q] or x not in cells[q] or cells[q] & down:
                raise CertificateError(f"death {k}: placement {q} cannot be forced onto cell {x}")
            if any(not (cells[r] & down) for r in live_on(x) if r != q):
                raise CertificateError(f"death {k}: cell {x} has another candidate than {q}")
            down |= cells[q]
        empty = int(deaths.cell[k])
        if empty in down or not board.open.ravel()[empty]:
            raise CertificateError(f"death {k}: cell {empty} is not an open cell left to cover")
        if any(not (cells[r] & down) for r in live_on(empty)):
            raise CertificateError(f"death {k}: cell {empty} keeps a candidate")
        alive[p] = False
    return alive
