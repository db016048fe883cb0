"""An independent brute-force tiler: the oracle of the tests and of ``tilesat fuzz``.

It shares no code with tilesat's pipeline: its own orientations, its own
placement of pieces (backtracking on the first uncovered cell), its own wrap.
A tiling is a frozenset of (piece name, frozenset of (row, col)).

Other grids (``lattice`` = ``triangle``, ``hex``, ``cube``): the board is
given as the set of its open cells, and the oracle turns pieces with its own
geometry, not :mod:`tilesat.model.grids`: each cell's centre in the plane, turned
by multiples of 60 degrees (and mirrored) about a lattice point and rounded
back to a cell; on the cube, the 48 signed permutations of the axes.

Optional cells (``optional``: a set of cells) may stay empty: the search
branches on leaving its first undecided cell empty when that cell is
optional.  Colours: a piece given as (name, cells, orient, lo, hi, colours)
has ``colours[i]`` on ``cells[i]`` (0 the default); ``colour`` maps board
cells to their colour; ``pairs`` lists the (piece colour, board colour) that
may meet (None: each colour on itself); the default colour fits anything.
A coloured piece's tile is (name, cells, frozenset of (cell, colour)).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field


def _norm(cells):
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def orientations(cells, orient):
    rots = [lambda r, c: (r, c), lambda r, c: (c, -r), lambda r, c: (-r, -c), lambda r, c: (-c, r)]
    maps = rots[:1] if orient == "fixed" else rots
    shapes = {_norm([f(r, c) for r, c in cells]) for f in maps}
    if orient == "free":
        shapes |= {_norm([f(r, -c) for r, c in cells]) for f in rots}
    return shapes


_H = math.sqrt(3) / 2


def _tri_centre(cell):
    r, c = cell
    return (c + 1) / 2, r * _H + (2 * _H / 3 if (r + c) % 2 == 0 else _H / 3)


def _tri_cell(x, y):
    r = math.floor(y / _H)
    return r, round(2 * x - 1)


def _hex_centre(cell):
    r, c = cell
    return c + r / 2, r * _H


def _hex_cell(x, y):
    r = round(y / _H)
    return r, round(x - r / 2)


def _plane_maps(centre, back, pivot):
    """The 12 maps of a 60-degree lattice: turns by k * 60 degrees about
    ``pivot``, then maybe the mirror x -> 2 * pivot_x - x; (map, turns only?)."""
    maps = []
    for mirror in (False, True):
        for k in range(6):
            a = math.radians(60 * k)

            def f(cell, a=a, mirror=mirror):
                x, y = centre(cell)
                x, y = x - pivot[0], y - pivot[1]
                if mirror:
                    x = -x
                x, y = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
                return back(x + pivot[0], y + pivot[1])
            maps.append((f, not mirror))
    return maps


def _cube_maps():
    maps = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = [[signs[i] if j == perm[i] else 0 for j in range(3)] for i in range(3)]
            det = round(_det3(m))
            maps.append((lambda cell, perm=perm, signs=signs: tuple(signs[i] * cell[perm[i]] for i in range(3)),
                         det == 1))
    return maps


def _det3(m):
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def lattice_maps(lattice):
    """(map of cells, is a rotation) for every point symmetry of the lattice."""
    if lattice == "triangle":
        return _plane_maps(_tri_centre, _tri_cell, (0.5, 0.0))  # (0.5, 0) is a vertex
    if lattice == "hex":
        return _plane_maps(_hex_centre, _hex_cell, (0.0, 0.0))  # the centre of cell (0, 0)
    if lattice == "cube":
        return _cube_maps()
    raise ValueError(lattice)


def _kind(lattice, cell):
    """Cells a translation may exchange have the same kind (up/down triangles)."""
    return (cell[0] + cell[1]) % 2 if lattice == "triangle" else 0


def _key(lattice, cells):
    """The shape up to the lattice's translations."""
    low = min(cells)
    return _kind(lattice, low), frozenset(tuple(a - b for a, b in zip(c, low)) for c in cells)


def lattice_orientations(lattice, cells, orient):
    """The orientations (as translation keys, and one placed copy each)."""
    maps = lattice_maps(lattice)
    if orient == "fixed":
        chosen = maps[:1]
    elif orient == "mirror" or (orient == "free" and lattice != "cube"):
        chosen = maps
    else:  # one-sided; free on the cube (pieces turn in space)
        chosen = [m for m in maps if m[1]]
    out = {}
    for f, _ in chosen:
        image = [f(c) for c in cells]
        out.setdefault(_key(lattice, image), image)
    return list(out.values())


def _lattice_covering(cells, pieces, lattice):
    open_cells = set(map(tuple, cells))
    covering = {cell: set() for cell in open_cells}
    for name, pcells, orient, _, _ in pieces:
        for shape in lattice_orientations(lattice, pcells, orient):
            for target in open_cells:
                for anchor in shape:
                    if _kind(lattice, anchor) != _kind(lattice, target):
                        continue
                    delta = tuple(a - b for a, b in zip(target, anchor))
                    tile = frozenset(tuple(a + d for a, d in zip(c, delta)) for c in shape)
                    if len(tile) == len(shape) and tile <= open_cells:
                        covering[target].add((name, tile))
    return covering


def _square_maps(orient):
    rots = [lambda r, c: (r, c), lambda r, c: (c, -r), lambda r, c: (-r, -c), lambda r, c: (-c, r)]
    maps = rots[:1] if orient == "fixed" else rots
    if orient == "free":
        maps = maps + [lambda r, c, f=f: f(r, -c) for f in rots]
    return [lambda cell, f=f: f(*cell) for f in maps]


def _chosen_maps(lattice, orient):
    if lattice == "square":
        return _square_maps(orient)
    maps = lattice_maps(lattice)
    if orient == "fixed":
        return [maps[0][0]]
    if orient == "mirror" or (orient == "free" and lattice != "cube"):
        return [f for f, _ in maps]
    return [f for f, rot in maps if rot]


def _coloured_covering(covering, pieces, lattice, wrap_size, colour, pairs):
    """Add every placement of the coloured pieces to ``covering`` (cell -> set of tiles)."""
    fits = (lambda p, b: not p or not b or (p, b) in pairs) if pairs is not None else (lambda p, b: not p or not b or p == b)
    open_cells = set(covering)
    for name, pcells, orient, _, _, *rest in pieces:
        colours = rest[0] if rest else None
        if not colours or not any(colours):
            continue
        seen = {}
        for f in _chosen_maps(lattice, orient):
            image = [(tuple(f(c)), k) for c, k in zip(pcells, colours)]
            low = min(c for c, _ in image)
            key = (_kind(lattice, low) if lattice != "square" else 0,
                   frozenset((tuple(a - b for a, b in zip(c, low)), k) for c, k in image))
            seen.setdefault(key, image)
        for image in seen.values():
            for target in open_cells:
                for anchor, _ in image:
                    if lattice != "square" and _kind(lattice, anchor) != _kind(lattice, target):
                        continue
                    delta = tuple(a - b for a, b in zip(target, anchor))
                    moved = []
                    for c, k in image:
                        m = [a + d for a, d in zip(c, delta)]
                        if wrap_size is not None:
                            R, C, wrap_r, wrap_c = wrap_size
                            m[0] = m[0] % R if wrap_r else m[0]
                            m[1] = m[1] % C if wrap_c else m[1]
                        moved.append((tuple(m), k))
                    cells = frozenset(c for c, _ in moved)
                    if len(cells) == len(moved) and cells <= open_cells \
                            and all(fits(k, colour.get(c, 0)) for c, k in moved):
                        tile = (name, cells, frozenset((c, k) for c, k in moved))
                        for c in cells:
                            covering[c].add(tile)


class TooHard(Exception):
    """The brute force would take too long on this instance."""


@dataclass(frozen=True)
class Marks:
    """The board's optional cells, cell colours and colour pairs (see the module's notes)."""

    optional: frozenset = frozenset()
    colour: dict = field(default_factory=dict)
    pairs: frozenset | None = None


def brute_force_tilings(grid, wrap, pieces, cap=None, node_limit=200_000, lattice="square", marks: Marks | None = None):
    """All tilings of ``grid`` (list of strings, '.' open; on another
    ``lattice``, the collection of open cells) by ``pieces``: a list of
    (name, cells, orient, lo, hi[, colours]).  Stops after ``cap`` + 1 tilings.
    ``marks``: optional cells and colours."""
    marks = marks or Marks()
    optional, colour, pairs = marks.optional, marks.colour, marks.pairs
    plain = [p[:5] if len(p) < 6 or not p[5] or not any(p[5]) else (p[0], [], p[2], p[3], p[4]) for p in pieces]
    if lattice != "square":
        covering = _lattice_covering(grid, [p for p in plain if p[1]], lattice)
        _coloured_covering(covering, pieces, lattice, None, colour, pairs)
        return _search(covering, pieces, cap, node_limit, set(optional))
    R, C = len(grid), len(grid[0])
    wrap_r = wrap in ("columns", "both")  # row index modulo R
    wrap_c = wrap in ("rows", "both")
    open_cells = [(r, c) for r in range(R) for c in range(C) if grid[r][c] == "."]
    shapes = {name: orientations(cells, orient) for name, cells, orient, _, _ in plain if cells}

    def put(shape, dr, dc):
        out = set()
        for a, b in shape:
            r, c = a + dr, b + dc
            if wrap_r:
                r %= R
            if wrap_c:
                c %= C
            if not (0 <= r < R and 0 <= c < C) or grid[r][c] != "." or (r, c) in out:
                return None
            out.add((r, c))
        return frozenset(out)

    # every candidate tile covering each cell
    covering = {cell: set() for cell in open_cells}
    for name, orients in shapes.items():
        for shape in orients:
            for (tr, tc) in open_cells:
                for a, b in shape:
                    tile = put(shape, tr - a, tc - b)
                    if tile is not None:
                        covering[(tr, tc)].add((name, tile))

    _coloured_covering(covering, pieces, "square", (R, C, wrap_r, wrap_c), colour, pairs)
    return _search(covering, pieces, cap, node_limit, set(optional))


def _search(covering, pieces, cap, node_limit, optional=frozenset()):
    bounds = {name: (lo, hi) for name, _, _, lo, hi, *_ in pieces}
    if cap == "check":
        return covering, bounds
    open_cells = sorted(covering)
    shapes = bounds
    found = set()
    used = {name: 0 for name in shapes}
    covered: set = set()
    skipped: set = set()  # optional cells left empty
    chosen: list = []
    sizes = {name: len(cells) for name, cells, *_ in pieces}
    nodes = [0]

    def rec():
        if cap is not None and len(found) > cap:
            return
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise TooHard(f"more than {node_limit} search nodes")
        still_needed = sum(max(0, bounds[n][0] - used[n]) * sizes[n] for n in used)
        if still_needed > len(open_cells) - len(covered) - len(skipped):
            return  # the pieces still required no longer fit in what is left
        free = next((cell for cell in open_cells if cell not in covered and cell not in skipped), None)
        if free is None:
            if all(bounds[n][0] <= used[n] for n in used):
                found.add(frozenset(chosen))
            return
        for entry in covering[free]:
            name, tile = entry[0], entry[1]
            if used[name] >= bounds[name][1] or tile & covered or tile & skipped:
                continue
            used[name] += 1
            covered.update(tile)
            chosen.append(entry)
            rec()
            chosen.pop()
            covered.difference_update(tile)
            used[name] -= 1
        if free in optional:
            skipped.add(free)
            rec()
            skipped.discard(free)

    rec()
    return found


def tiling_checker(grid, wrap, pieces, lattice="square"):
    """A function telling whether a set of (name, cells) is a tiling, by the
    oracle's own rules."""
    covering, bounds = brute_force_tilings(grid, wrap, pieces, cap="check", lattice=lattice)

    def is_tiling(tiling):
        cells = [c for _, tile in tiling for c in tile]
        if sorted(cells) != sorted(covering) or len(set(cells)) != len(cells):
            return False
        if not all((name, tile) in covering[min(tile)] for name, tile in tiling):
            return False
        used = {n: sum(1 for name, _ in tiling if name == n) for n in bounds}
        return all(lo <= used[n] <= hi for n, (lo, hi) in bounds.items())

    return is_tiling


def brute_force_max_packing(grid, wrap, pieces, objective="pieces", node_limit=200_000, lattice="square"):
    """The largest number of pieces (or covered cells) that fit without
    overlapping and keep every count, or None when no packing keeps them.
    Backtracking on the first undecided cell: leave it empty or cover it."""
    covering, bounds = brute_force_tilings(grid, wrap, pieces, cap="check", lattice=lattice)
    cells = sorted(covering)
    sizes = {name: len(c) for name, c, *_ in pieces}
    used = {name: 0 for name in bounds}
    covered: set = set()
    best = [None]
    nodes = [0]

    def value():
        return sum(used.values()) if objective == "pieces" else len(covered)

    def rec(i):
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise TooHard(f"more than {node_limit} search nodes")
        while i < len(cells) and cells[i] in covered:
            i += 1
        if i == len(cells):
            if all(bounds[n][0] <= used[n] for n in used) and (best[0] is None or value() > best[0]):
                best[0] = value()
            return
        if best[0] is not None:
            # every remaining cell covered by the smallest piece still cannot beat the best
            left = len(cells) - i
            room = left // min(sizes.values()) if objective == "pieces" else left
            if value() + room <= best[0]:
                return
        for name, tile in covering[cells[i]]:
            if used[name] >= bounds[name][1] or tile & covered or min(tile) != cells[i]:
                continue
            used[name] += 1
            covered.update(tile)
            rec(i + 1)
            covered.difference_update(tile)
            used[name] -= 1
        rec(i + 1)  # leave cells[i] empty (nothing placed later may cover it)

    rec(0)
    return best[0]


def board_maps(grid, wrap, pieces, lattice="square"):
    """The oracle's own symmetries of an instance: rotations and reflections
    of the rectangle, composed with shifts along wrapped axes, that map open
    cells onto open cells and every candidate tile onto a candidate tile of
    the same piece, or of another piece with the same size and counts that
    the map exchanges with it (each a :class:`CellMap`: a dict cell -> cell
    with ``names``, the renaming of pieces; without repeats)."""
    covering, _ = brute_force_tilings(grid, wrap, pieces, cap="check", lattice=lattice)
    candidates = set().union(*covering.values()) if covering else set()
    if lattice != "square":
        return _lattice_board_maps(set(covering), candidates, pieces, lattice)
    R, C = len(grid), len(grid[0])
    point = [lambda r, c: (r, c), lambda r, c: (R - 1 - r, C - 1 - c),
             lambda r, c: (R - 1 - r, c), lambda r, c: (r, C - 1 - c)]
    if R == C:
        point += [lambda r, c: (c, R - 1 - r), lambda r, c: (C - 1 - c, r),
                  lambda r, c: (c, r), lambda r, c: (C - 1 - c, R - 1 - r)]
    cells = [(r, c) for r in range(R) for c in range(C)]
    maps = []
    for f in point:
        for dr in (range(R) if wrap in ("columns", "both") else [0]):
            for dc in (range(C) if wrap in ("rows", "both") else [0]):
                m = {}
                for r, c in cells:
                    a, b = f(r, c)
                    m[(r, c)] = ((a + dr) % R, (b + dc) % C)
                if all(grid[r][c] == grid[a][b] for (r, c), (a, b) in m.items()) and m not in maps:
                    names = _piece_exchange(m, candidates, pieces)
                    if names is not None:
                        maps.append(CellMap(m, names))
    return maps


def _lattice_board_maps(open_cells, candidates, pieces, lattice):
    maps = []
    low = min(open_cells)
    for f, _ in lattice_maps(lattice):
        image = {c: f(c) for c in open_cells}
        target = min(image.values())
        if _kind(lattice, target) != _kind(lattice, low):
            continue
        delta = tuple(a - b for a, b in zip(low, target))
        m = {c: tuple(a + d for a, d in zip(v, delta)) for c, v in image.items()}
        if set(m.values()) != open_cells or m in maps:
            continue
        names = _piece_exchange(m, candidates, pieces)
        if names is not None:
            maps.append(CellMap(m, names))
    return maps


class CellMap(dict):
    """A map of cells (a dict) with the renaming of pieces it comes with."""

    def __init__(self, cells, names):
        super().__init__(cells)
        self.names = names


def _piece_exchange(m, candidates, pieces):
    """The renaming of pieces under which the cell map m sends every
    candidate tile to a candidate tile (each piece to itself if it can, else
    to another with the same counts and size, each used once), or None."""
    bounds = {name: (len(cells), lo, hi) for name, cells, _, lo, hi in pieces}
    tiles = {}
    for name, tile in candidates:
        tiles.setdefault(name, set()).add(tile)
    names, taken = {}, set()
    for name in bounds:
        if bounds[name][2] == 0:  # a piece no tiling uses constrains no symmetry
            names[name] = name
            continue
        image = {frozenset(m[c] for c in tile) for tile in tiles.get(name, ())}
        for other in sorted(bounds, key=lambda n: n != name):
            if other not in taken and bounds[other] == bounds[name] and image == tiles.get(other, set()):
                names[name] = other
                taken.add(other)
                break
        else:
            return None
    return names


def orbit_count(tilings, maps):
    """How many classes the tilings fall into under the maps (by canonical forms)."""
    def image(tiling, m):
        names = getattr(m, "names", {})
        return tuple(sorted((names.get(name, name), tuple(sorted(m[c] for c in tile))) for name, tile in tiling))

    return len({min(image(t, m) for m in maps) for t in tilings})
