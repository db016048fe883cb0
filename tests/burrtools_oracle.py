"""A slow, independent count of a BurrTools problem, as BurrTools counts it.

Written from BurrTools' rules (docs/guide/burrtools.md), sharing no code with
tilesat.questions.burrtools or the compiled engine: the rotations come from composing
quarter turns, every assembly is listed by trying each placement in or out,
and the assemblies that count as one are joined explicitly (a union-find over
the images of every assembly), so a count here says nothing about the
engine's pivot or its canonical test.  For puzzles of a few cells only.
"""

from __future__ import annotations

from itertools import product

from tilesat.model.xmpuzzle import FILLED, VARIABLE, BurrPuzzle


def _turn_x(p):
    x, y, z = p
    return (x, -z, y)


def _turn_z(p):
    x, y, z = p
    return (-y, x, z)


def _rotations():
    """The 24 rotations of the cube as functions, closed under composition of quarter turns."""
    seen = {}
    frontier = [(lambda p: p, "")]
    probe = ((1, 2, 3), (4, 5, 6))
    while frontier:
        f, name = frontier.pop()
        key = tuple(f(q) for q in probe)
        if key in seen:
            continue
        seen[key] = f
        for g in (_turn_x, _turn_z):
            frontier.append(((lambda f, g: lambda p: g(f(p)))(f, g), name))
    assert len(seen) == 24
    return list(seen.values())


ROTATIONS = _rotations()
MIRRORS = [(lambda r: lambda p: r((-p[0], p[1], p[2])))(r) for r in ROTATIONS]


def _normal(voxels):
    """Voxels {(x, y, z): value} moved to the origin, as a frozenset."""
    low = [min(c[i] for c in voxels) for i in range(3)]
    return frozenset((tuple(a - b for a, b in zip(c, low)), v) for c, v in voxels.items())


def _moved(voxels, f):
    return _normal({f(c): v for c, v in voxels.items()})


def count(puzzle: BurrPuzzle, index: int = 0, keep_mirror: bool = False, keep_rotations: bool = False) -> int:
    problem = puzzle.problems[index]
    ncol = len(puzzle.colours)
    result = {c: v for c, v in puzzle.shapes[problem.result].cells().items()}
    pieces = []
    for part in problem.parts:
        pieces.append({c: col for c, (state, col) in puzzle.shapes[part.shape].cells().items() if state == FILLED})

    def fits(pc, rc):
        return ncol == 0 or pc == 0 or rc == 0 or (pc - 1, rc - 1) in problem.pairs

    # placements: (piece, frozenset of (cell, colour))
    placements = []
    top = [max(c[i] for c in result) for i in range(3)]
    for k, piece in enumerate(pieces):
        if problem.parts[k].max == 0:
            continue
        seen = set()
        for r in ROTATIONS:
            turned = {r(c): col for c, col in piece.items()}
            low = [min(c[i] for c in turned) for i in range(3)]
            turned = {tuple(a - b for a, b in zip(c, low)): col for c, col in turned.items()}
            size = [max(c[i] for c in turned) for i in range(3)]
            for shift in product(*(range(-size[i], top[i] + 1) for i in range(3))):
                cells = {tuple(a + b for a, b in zip(c, shift)): col for c, col in turned.items()}
                if all(c in result and fits(col, result[c][1]) for c, col in cells.items()):
                    key = frozenset(cells.items())
                    if key not in seen:
                        seen.add(key)
                        placements.append((k, key))

    fixed = {c for c, (state, _) in result.items() if state == FILLED}
    optional = {c for c, (state, _) in result.items() if state == VARIABLE}
    volume = [len(p) for p in pieces]
    low_vol = sum(v * p.min for v, p in zip(volume, problem.parts))
    high_vol = sum(v * p.max for v, p in zip(volume, problem.parts))
    holes = problem.max_holes if problem.max_holes is not None and low_vol != high_vol else None

    assemblies = []

    def walk(i, covered, used, chosen):
        if i == len(placements):
            if fixed <= covered and all(p.min <= u <= p.max for p, u in zip(problem.parts, used)):
                if holes is None or len(optional - covered) <= holes:
                    assemblies.append(frozenset(chosen))
            return
        walk(i + 1, covered, used, chosen)
        k, cells = placements[i]
        where = {c for c, _ in cells}
        if used[k] < problem.parts[k].max and not (where & covered):
            used[k] += 1
            walk(i + 1, covered | where, used, chosen + [(k, cells)])
            used[k] -= 1

    walk(0, frozenset(), [0] * len(pieces), [])
    if keep_rotations:
        return len(assemblies)

    # the result's symmetries, and the pieces' mirror partners
    target = _normal(result)
    rotations = [r for r in ROTATIONS if _moved(result, r) == target]
    mirrors = [m for m in MIRRORS if _moved(result, m) == target]
    used_parts = [k for k, p in enumerate(problem.parts) if p.max > 0]
    shapes_of = [{_moved(piece, r) for r in ROTATIONS} for piece in pieces]
    partner = {}
    for k in used_parts:
        if _moved(pieces[k], MIRRORS[0]) in shapes_of[k]:
            partner[k] = k
    for k in used_parts:
        if k in partner:
            continue
        for j in used_parts:
            if j > k and j not in partner and _moved(pieces[k], MIRRORS[0]) in shapes_of[j]:
                partner[k], partner[j] = j, k
                break
    ranges = any(p.min != p.max for p in problem.parts)
    everyone = all(k in partner for k in used_parts)
    maps = [(r, None) for r in rotations]
    if mirrors and not keep_mirror and (everyone or ranges):
        maps += [(m, partner) for m in mirrors]

    low = [min(c[i] for c in result) for i in range(3)]

    def image(assembly, f, swap):
        out = []
        for k, cells in assembly:
            if swap is not None:
                if k not in swap:
                    return None
                k = swap[k]
            moved = {f(c): col for c, col in cells}
            out.append((k, moved))
        # the result moved back onto itself
        turned = [f(c) for c in result]
        shift = [lo - min(c[i] for c in turned) for i, lo in enumerate(low)]
        placed = frozenset((k, frozenset((tuple(a + b for a, b in zip(c, shift)), col) for c, col in cells.items()))
                           for k, cells in out)
        counts = [0] * len(pieces)
        for k, _ in placed:
            counts[k] += 1
        if not all(p.min <= n <= p.max for p, n in zip(problem.parts, counts)):
            return None
        return placed

    index_of = {a: i for i, a in enumerate(assemblies)}
    parent = list(range(len(assemblies)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(assemblies):
        for f, swap in maps:
            b = image(a, f, swap)
            if b is None:
                continue
            j = index_of[b]  # an image is an assembly
            parent[root(i)] = root(j)
    return len({root(i) for i in range(len(assemblies))})
