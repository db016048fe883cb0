"""The independent checker: is a tiling a real answer to an instance?

It looks only at the instance (board, rules) and the tiles; it does not use
placements, the formula or the solver, and it computes orientations with its
own code.  Every tiling tilesat reports passes through :func:`verify_tiling`
first; a failure is a bug and raises :class:`VerificationError`.
"""

from __future__ import annotations

from collections import Counter

from .errors import VerificationError
from .instance import Instance
from .tiling import Tiling

# The 8 symmetries of the square as (r, c) -> (a*r + b*c, d*r + e*c);
# the first four are the rotations.
_ROTATIONS = [(1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0)]
_REFLECTIONS = [(a, -b, d, -e) for a, b, d, e in _ROTATIONS]


def _norm(cells) -> frozenset:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def allowed_shapes(cells, orient: str) -> set[frozenset]:
    maps = {"fixed": _ROTATIONS[:1], "one-sided": _ROTATIONS, "free": _ROTATIONS + _REFLECTIONS}[orient]
    return {_norm([(a * r + b * c, d * r + e * c) for r, c in cells]) for a, b, d, e in maps}


def problems(instance: Instance, tiling: Tiling, partial: bool = False) -> list[str]:
    """Everything wrong with the tiling (empty: it is a valid tiling).

    ``partial``: a packing, where open cells may stay uncovered."""
    board = instance.board
    R, C = board.rows, board.cols
    rules = {r.name: r for r in instance.rules}
    shapes = {r.name: allowed_shapes(r.piece.cells, r.orient) for r in instance.rules}
    out: list[str] = []
    covered: Counter = Counter()
    used: Counter = Counter()
    for t in tiling:
        if t.piece not in rules:
            out.append(f"tile {t} uses piece {t.piece!r}, which the instance does not allow")
            continue
        used[t.piece] += 1
        cells = set(t.cells)
        if len(cells) != len(t.cells):
            out.append(f"tile {t} lists a cell twice")
        bad = [c for c in cells if not board.is_open(*c)]
        if bad:
            out.append(f"tile {t} covers {bad[0]}, which is blocked or off the board")
            continue
        covered.update(cells)
        if not _fits(cells, shapes[t.piece], R, C, board.wraps_columns, board.wraps_rows):
            out.append(f"tile {t} is not an allowed orientation of {t.piece}")
    for r in range(R):
        for c in range(C):
            if board.open[r, c] and (covered[(r, c)] > 1 if partial else covered[(r, c)] != 1):
                out.append(f"cell {(r, c)} is covered {covered[(r, c)]} times")
    for name, rule in rules.items():
        if not rule.min <= used[name] <= rule.max:
            out.append(f"piece {name} is used {used[name]} times; allowed {rule.count_text()}")
    return out


def _fits(cells: set, shapes: set[frozenset], R: int, C: int, wrap_r: bool, wrap_c: bool) -> bool:
    if not (wrap_r or wrap_c):
        return _norm(cells) in shapes
    # On a cylinder or torus the tile may cross the seam: try every way of
    # anchoring each allowed shape on one of the tile's cells.
    anchor = next(iter(cells))
    for shape in shapes:
        for dr, dc in shape:
            r0, c0 = anchor[0] - dr, anchor[1] - dc
            image = {((r0 + a) % R if wrap_r else r0 + a, (c0 + b) % C if wrap_c else c0 + b) for a, b in shape}
            if image == cells:
                return True
    return False


def verify_tiling(instance: Instance, tiling: Tiling, partial: bool = False) -> Tiling:
    """Return the tiling if it is valid; raise :class:`VerificationError` if not.

    ``partial``: check a packing (no overlaps, every tile legal, counts kept;
    cells may stay uncovered)."""
    found = problems(instance, tiling, partial)
    if found:
        what = "packing" if partial else "tiling"
        raise VerificationError(
            f"BUG: tilesat produced an invalid {what} of {instance.source}: " + "; ".join(found[:5])
        )
    return tiling
