"""Certificates of "no tiling" from the classic colourings, in milliseconds.

The LP (:func:`tilesat.certify.certificate.lp_certificate`) finds any weighting
that proves a board untileable, but it costs seconds on a 40x40 board (2-4 s
on a loaded 2-core machine) and more on a tileable one, where it finds
nothing.  Most boards with random blocked cells fail for the oldest reason
there is: L-tetrominoes cover two black and two white cells of a
checkerboard, so a board with more of one colour has no tiling (the LP's
certificate on such boards *is* the checkerboard, every cell +-1).  This
module tries a few fixed colourings first, each a sum over the placements
(one array operation), and returns the first that proves "no tiling" as an
ordinary :class:`~tilesat.certify.certificate.Certificate`, checked by
:func:`~tilesat.certify.certificate.check_certificate` like the LP's.

Each colouring ``w`` (+-1 per open cell: checkerboard, rows, columns) is
tried in two forms:

* weighted: every placement covers weight <= 0 and the open cells weigh > 0
  (``w`` or ``-w``; L4 on an unbalanced checkerboard);
* modular (m = 2, 4): every placement covers the same weight ``k`` mod m,
  so with the multiplier ``-k`` each covers 0 mod m, while the open cells
  and the multiplier times the number of pieces are not 0 mod m (the
  T-tetromino's parity argument: each covers +-2 of the checkerboard).  The
  number of pieces must be fixed: one size for every piece (area / size), or
  per-rule multipliers on rules with exact counts.
"""

from __future__ import annotations

import numpy as np

from .certificate import Certificate, CertificateError, check_certificate
from ..model.arrays import unique
from ..model.instance import Instance
from ..model.placements import Placements

MODULI = (2, 4)


def colourings(instance: Instance) -> list[tuple[str, np.ndarray]]:
    """The colourings tried, as (name, +-1 weight per flat cell of the board); flat square boards only."""
    board = instance.board
    if board.open.ndim != 2 or not board.is_square:
        return []
    rows, cols = np.indices(board.open.shape)
    return [("checkerboard", np.where((rows + cols) % 2 == 0, 1, -1).ravel()),
            ("rows", np.where(rows % 2 == 0, 1, -1).ravel()),
            ("columns", np.where(cols % 2 == 0, 1, -1).ravel())]


def colouring_certificate(instance: Instance, placements: Placements) -> Certificate | None:
    """A checked certificate of "no tiling" from a classic colouring, or None."""
    if len(placements) == 0 or not instance.plain:
        return None
    board = instance.board
    open_cells = board.open_cells
    starts = placements.indptr[:-1]
    for name, w in colourings(instance):
        sums = np.add.reduceat(w[placements.cells], starts)
        total = int(w[open_cells].sum())
        for cert in _candidates(instance, placements, w, sums, total):
            try:
                check_certificate(instance, cert)
            except CertificateError:
                continue
            return Certificate(cert.weights, cert.rules, cert.total, cert.modulus, {"colouring": name})
    return None


def _candidates(instance: Instance, placements: Placements, w: np.ndarray, sums: np.ndarray, total: int):
    board = instance.board
    cells = board.cells(board.open_cells)
    weights = dict(zip(cells, w[board.open_cells].tolist()))
    for sign in (1, -1):  # weighted: every placement <= 0, the total > 0
        if (sign * sums).max() <= 0 and sign * total > 0:
            yield Certificate({c: sign * v for c, v in weights.items()}, {}, sign * total)
    used = [k for k, r in enumerate(instance.rules) if r.max > 0]
    sizes = {instance.rules[k].piece.size for k in used}
    for m in MODULI:
        if len(sizes) == 1 and board.area % next(iter(sizes)) == 0:
            residues = unique(sums % m)
            if residues.size != 1:
                continue
            mu = int(-residues[0]) % m
            pieces = board.area // next(iter(sizes))
            value = (total + mu * pieces) % m
            if value:
                rules = {instance.rules[k].name: mu for k in used} if mu else {}
                yield Certificate({c: v % m for c, v in weights.items() if v % m}, rules, value, m)
        else:
            rules, value, ok = {}, total, True
            for k in used:
                r = instance.rules[k]
                residues = unique(sums[placements.rule == k] % m)
                if residues.size > 1 or (residues.size == 1 and residues[0] and r.min != r.max):
                    ok = False
                    break
                if residues.size == 1 and residues[0]:
                    mu = int(-residues[0]) % m
                    rules[r.name] = mu
                    value += mu * int(r.min)
            if ok and value % m:
                yield Certificate({c: v % m for c, v in weights.items() if v % m}, rules, value % m, m)
