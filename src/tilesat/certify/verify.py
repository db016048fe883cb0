"""The independent checker: is a tiling a real answer to an instance?

It looks only at the instance (board, rules) and the tiles; it does not use
placements, the formula or the solver, and it computes orientations with its
own code.  Every tiling tilesat reports passes through :func:`verify_tiling`
first; a failure is a bug and raises :class:`VerificationError`.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..errors import VerificationError
from ..model.instance import Instance
from ..model.tiling import Tiling
from ..model.arrays import unique

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

    ``partial``: a packing, where open cells may stay uncovered.

    The tiles' cells go into flat numpy arrays once and the checks are array
    operations over all tiles: check-unique verifies two tilings of a 40x40
    board, and the per-tile Python loop this replaced took a tenth of its run.
    """
    board = instance.board
    if not board.is_square:
        return _grid_problems(instance, tiling, partial)
    R, C = board.rows, board.cols
    rules = {r.name: r for r in instance.rules}
    tiles = list(tiling)
    said: dict[int, list[str]] = {}  # tile index -> what is wrong with it

    def say(i: int, text: str) -> None:
        said.setdefault(i, []).append(f"tile {tiles[i]} {text}")

    known = []
    for i, t in enumerate(tiles):
        if t.piece in rules:
            known.append(i)
            if not t.cells:
                say(i, "covers no cells")
        else:
            say(i, f"uses piece {t.piece!r}, which the instance does not allow")
    sizes = np.array([len(tiles[i].cells) for i in known], dtype=np.int64)
    coords = np.array([cell for i in known for cell in tiles[i].cells], dtype=np.int64).reshape(-1, 2)
    owner = np.repeat(np.arange(len(known)), sizes)  # position in `known` of each cell's tile
    # Each tile's cells in (row, col) order; a repeated cell is reported and counted once.
    order = np.lexsort((coords[:, 1], coords[:, 0], owner))
    owner, r, c = owner[order], coords[order, 0], coords[order, 1]
    new = np.ones(owner.size, dtype=bool)
    new[1:] = (owner[1:] != owner[:-1]) | (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    for k in unique(owner[~new]).tolist():
        say(known[k], "lists a cell twice")
    owner, r, c = owner[new], r[new], c[new]
    inside = (r >= 0) & (r < R) & (c >= 0) & (c < C)
    flat = np.where(inside, r * C + c, 0)
    usable = inside & board.open.ravel()[flat]
    bad = np.bincount(owner[~usable], minlength=len(known)) > 0
    first_bad = {}
    for k, a, b in zip(owner[~usable].tolist(), r[~usable].tolist(), c[~usable].tolist()):
        first_bad.setdefault(k, (a, b))
    for k, cell in first_bad.items():
        say(known[k], f"covers {cell}, which is blocked or off the board")
    placed = ~bad[owner]  # cells of the tiles that lie on open cells
    for k in _misfits(instance, [tiles[i].piece for i in known], owner[placed], r[placed], c[placed]):
        say(known[k], f"is not an allowed orientation of {tiles[known[k]].piece}")
    out = [text for i in sorted(said) for text in said[i]]
    out += _colour_problems(instance, tiles)
    covered = np.bincount(flat[placed], minlength=R * C).reshape(R, C)
    may_be_empty = board.optional if board.optional is not None else False
    wrong = board.open & ((covered > 1) | ((covered != 1) & ~np.asarray(may_be_empty) if not partial else False))
    out += [f"cell {(a, b)} is covered {covered[a, b]} times" for a, b in np.argwhere(wrong).tolist()]
    used = Counter(tiles[i].piece for i in known)
    for name, rule in rules.items():
        if not rule.min <= used[name] <= rule.max:
            out.append(f"piece {name} is used {used[name]} times; allowed {rule.count_text()}")
    return out


def _misfits(instance: Instance, piece: list[str], owner: np.ndarray, r: np.ndarray, c: np.ndarray) -> list[int]:
    """The tiles (positions in ``piece``) whose cells are no allowed
    orientation of their piece; cells sorted by (owner, r, c), on the board."""
    board = instance.board
    shapes = {rule.name: allowed_shapes(rule.piece.cells, rule.orient) for rule in instance.rules}
    tiles = unique(owner)
    start = np.searchsorted(owner, tiles)
    end = np.append(start[1:], owner.size)
    bounds = zip(tiles.tolist(), start.tolist(), end.tolist())
    if board.wraps_rows or board.wraps_columns:
        # On a cylinder or torus a tile may cross the seam: set logic per tile.
        rl, cl = r.tolist(), c.tolist()
        return [k for k, a, b in bounds if not _fits(set(zip(rl[a:b], cl[a:b])), shapes[piece[k]], board.rows,
                                                      board.cols, board.wraps_columns, board.wraps_rows)]
    # Flat board: shift each tile to its top-left corner and compare cell
    # codes (row * width + col, in row-major order) with the allowed shapes'.
    if not tiles.size:
        return []
    nr = r - r[start].repeat(end - start)  # rows are sorted within a tile: its first is its top
    nc = c - np.minimum.reduceat(c, start).repeat(end - start)
    width = 1 + max(int(nc.max()), max(col for s in shapes.values() for shape in s for _, col in shape))
    codes = (nr * width + nc).tolist()
    allowed = {name: {tuple(sorted(a * width + b for a, b in shape)) for shape in s} for name, s in shapes.items()}
    return [k for k, a, b in bounds if tuple(codes[a:b]) not in allowed[piece[k]]]


def _fits(cells: set, shapes: set[frozenset], R: int, C: int, wrap_r: bool, wrap_c: bool) -> bool:
    # Try every way of anchoring each allowed shape on one of the tile's cells.
    anchor = next(iter(cells))
    for shape in shapes:
        for dr, dc in shape:
            r0, c0 = anchor[0] - dr, anchor[1] - dc
            image = {((r0 + a) % R if wrap_r else r0 + a, (c0 + b) % C if wrap_c else c0 + b) for a, b in shape}
            # a piece wrapped onto itself (a domino round a 1-wide cylinder) is no tile
            if len(image) == len(shape) and image == cells:
                return True
    return False


def _grid_problems(instance: Instance, tiling: Tiling, partial: bool) -> list[str]:
    """``problems`` on the triangle, hex and cube grids, tile by tile.

    A tile is an allowed orientation of its piece when one of the grid's
    point maps allowed by the rule, followed by a translation of the grid,
    carries the piece's cells onto the tile's cells (checked here from the
    maps alone, not from tilesat's orientation lists)."""
    board = instance.board
    lattice = board.lattice
    rules = {r.name: r for r in instance.rules}
    out: list[str] = []
    covered: Counter = Counter()
    used: Counter = Counter()
    for t in tiling:
        cells = [tuple(c) for c in t.cells]
        if t.piece not in rules:
            out.append(f"tile {t} uses piece {t.piece!r}, which the instance does not allow")
            continue
        if not cells:
            out.append(f"tile {t} covers no cells")
            continue
        used[t.piece] += 1
        if len(set(cells)) != len(cells):
            out.append(f"tile {t} lists a cell twice")
        bad = next((c for c in cells if not board.is_open(*c)), None)
        if bad is not None:
            out.append(f"tile {t} covers {bad}, which is blocked or off the board")
            continue
        rule = rules[t.piece]
        if not _grid_fits(lattice, rule.piece.cells, rule.orient, set(cells)):
            out.append(f"tile {t} is not an allowed orientation of {t.piece}")
        covered.update(set(cells))
    out += _colour_problems(instance, list(tiling))
    optional = set(board.optional_cells.tolist())
    for index in board.open_cells.tolist():
        cell = board.cell(index)
        n = covered[cell]
        if n > 1 or (n != 1 and not partial and index not in optional):
            out.append(f"cell {cell} is covered {n} times")
    for name, rule in rules.items():
        if not rule.min <= used[name] <= rule.max:
            out.append(f"piece {name} is used {used[name]} times; allowed {rule.count_text()}")
    return out


def _grid_fits(lattice, piece_cells, orient: str, cells: set) -> bool:
    if len(piece_cells) != len(cells):
        return False
    target = min(cells)
    for f in lattice.orient_maps(orient):
        image = [f(c) for c in piece_cells]
        low = min(image)
        delta = tuple(a - b for a, b in zip(target, low))
        if lattice.translation_ok(delta) and {tuple(a + d for a, d in zip(c, delta)) for c in image} == cells:
            return True
    return False


def _colour_problems(instance: Instance, tiles: list) -> list[str]:
    """Coloured pieces: each tile's colours must be its piece's, turned the way
    its cells are (an allowed map and a translation carry the piece's coloured
    cells onto the tile's), and each piece colour must be allowed on the board
    colour under it (the default colour 0 fits anything)."""
    if not any(r.piece.colours for r in instance.rules) and not any(t.colours for t in tiles):
        return []  # nothing coloured (every plain tiling, on the hot path of every check)
    board = instance.board
    rules = {r.name: r for r in instance.rules}
    pairs = instance.pairs if instance.pairs is not None else {(k, k) for k in range(1, 27)}
    out = []
    for t in tiles:
        rule = rules.get(t.piece)
        if rule is None or not t.cells:
            continue
        if not rule.piece.colours:
            if any(t.colours):
                out.append(f"tile {t} has colours, but piece {t.piece} has none")
            continue
        colours = t.colours or (0,) * len(t.cells)
        if len(colours) != len(t.cells):
            out.append(f"tile {t} gives {len(colours)} colours for {len(t.cells)} cells")
            continue
        if not _coloured_image(board, rule, dict(zip(map(tuple, t.cells), colours))):
            out.append(f"tile {t} is not an allowed orientation of {t.piece} with its colours")
        for cell, p in zip(t.cells, colours):
            if board.contains(cell) and p and (b := board.colour_of(board.index(cell))) and (p, b) not in pairs:
                out.append(f"tile {t} puts piece colour {p} on {tuple(cell)}, of board colour {b}, which do not pair")
    return out


def _coloured_image(board, rule, tile: dict) -> bool:
    """Is ``tile`` (cell -> colour) the image of the rule's coloured piece under
    a map its orientation allows and a translation of the grid (on a wrapped
    square board, modulo its size)?"""
    piece = rule.piece
    if board.is_square:
        maps = {"fixed": _ROTATIONS[:1], "one-sided": _ROTATIONS, "free": _ROTATIONS + _REFLECTIONS}[rule.orient]
        funcs = [lambda cell, m=m: (m[0] * cell[0] + m[1] * cell[1], m[2] * cell[0] + m[3] * cell[1]) for m in maps]
    else:
        funcs = board.lattice.orient_maps(rule.orient)
    anchor = min(tile)
    for f in funcs:
        image = [(tuple(f(c)), colour) for c, colour in zip(piece.cells, piece.colours)]
        for cell, colour in image:
            if colour != tile[anchor]:
                continue
            delta = tuple(a - b for a, b in zip(anchor, cell))
            if not board.is_square and not board.lattice.translation_ok(delta):
                continue
            moved = {}
            for c, col in image:
                m = [a + d for a, d in zip(c, delta)]
                if board.is_square and board.wraps_columns:
                    m[0] %= board.rows
                if board.is_square and board.wraps_rows:
                    m[1] %= board.cols
                moved[tuple(m)] = col
            if moved == tile:
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
