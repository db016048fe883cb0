"""The symmetries of an instance: board maps that carry its placements onto
its placements.

Candidates are the rotations and reflections of the rectangle (all 8 on a
square, 4 otherwise), each composed with every translation along a wrapped
axis (a cylinder turns, a torus shifts both ways).  A candidate is kept when
it maps the open cells onto the open cells and every placement onto a
placement of the same piece rule; the kept ones form a group (the
stabiliser of the instance), which :mod:`tilesat.counting` uses for
Burnside's lemma.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .placements import Placements


@dataclass(frozen=True, eq=False)
class Symmetry:
    name: str
    cells: np.ndarray  # cells[x] = image of flat cell x
    placements: np.ndarray  # placements[i] = index of the image of placement i

    def fixes(self, chosen: np.ndarray) -> bool:
        """Does this symmetry map the tiling made of ``chosen`` placements to itself?"""
        chosen = np.asarray(chosen)
        return bool(np.array_equal(np.sort(self.placements[chosen]), np.sort(chosen)))

    @property
    def is_identity(self) -> bool:
        return bool((self.placements == np.arange(self.placements.size)).all())


def _point_maps(R: int, C: int):
    """(name, function of row/col arrays) for the rotations and reflections."""
    maps = [
        ("identity", lambda r, c: (r, c)),
        ("rotate 180", lambda r, c: (R - 1 - r, C - 1 - c)),
        ("flip rows", lambda r, c: (R - 1 - r, c)),
        ("flip columns", lambda r, c: (r, C - 1 - c)),
    ]
    if R == C:
        maps += [
            ("rotate 90", lambda r, c: (c, R - 1 - r)),
            ("rotate 270", lambda r, c: (C - 1 - c, r)),
            ("transpose", lambda r, c: (c, r)),
            ("anti-transpose", lambda r, c: (C - 1 - c, R - 1 - r)),
        ]
    return maps


def _grid_maps(board) -> list[tuple[str, np.ndarray]]:
    """Candidate cell maps on the triangle, hex and cube grids: each point
    symmetry of the grid followed by the translation of the grid that lays
    the image of the open cells on the open cells (if there is one).
    Blocked cells map to themselves (no placement covers them)."""
    lattice = board.lattice
    open_cells = board.cells(board.open_cells)
    target = lattice.normalize(open_cells)
    out = []
    for k, f in enumerate(lattice.symmetries()):
        image = [f(c) for c in open_cells]
        if lattice.normalize(image) != target:
            continue
        low = tuple(min(c[i] for c in image) for i in range(lattice.dims))
        high = tuple(min(c[i] for c in open_cells) for i in range(lattice.dims))
        # the translation normalize used differs from low -> high only by its
        # parity fix, the same on both sides: aligning the minima is right
        delta = tuple(h - lo for h, lo in zip(high, low))
        if not lattice.translation_ok(delta):
            continue
        cells = np.arange(board.ncells)
        moved = [tuple(a + d for a, d in zip(c, delta)) for c in image]
        cells[board.open_cells] = [board.index(c) for c in moved]
        kind = "rotation" if k < lattice.rotations else "reflection"
        out.append(("identity" if k == 0 else f"{kind} {k}", cells))
    return out


def _square_maps(board) -> list[tuple[str, np.ndarray]]:
    R, C = board.rows, board.cols
    r, c = np.divmod(np.arange(R * C), C)
    shifts_r = range(R) if board.wraps_columns else [0]
    shifts_c = range(C) if board.wraps_rows else [0]
    out = []
    for name, f in _point_maps(R, C):
        for dr in shifts_r:
            for dc in shifts_c:
                nr, nc = f(r, c)
                label = name + (f" + shift {dr},{dc}" if dr or dc else "")
                out.append((label, ((nr + dr) % R) * C + (nc + dc) % C))
    return out


def symmetry_group(placements: Placements) -> list[Symmetry]:
    """The symmetries of the instance, identity first.

    A symmetry may exchange two piece rules with the same counts (a
    one-sided F5 and its mirror image F5' under a reflection): it maps
    every placement of one onto a placement of the other, so it still maps
    tilings onto tilings."""
    board = placements.instance.board
    rules = placements.instance.rules
    open_flat = board.open.ravel()
    # a placement's identity: its sorted cells, as one byte string -> {rule: index}
    keys: dict[bytes, dict[int, int]] = {}
    for i in range(len(placements)):
        keys.setdefault(placements.cells_of(i).astype(np.int64).tobytes(), {})[int(placements.rule[i])] = i
    by_rule = [placements.of_rule(k) for k in range(len(rules))]
    group: list[Symmetry] = []
    seen: set[bytes] = set()
    candidates = _square_maps(board) if board.is_square else _grid_maps(board)
    for label, image in candidates:
        if image.tobytes() in seen:
            continue  # the same map of cells reached another way
        seen.add(image.tobytes())
        if not np.array_equal(open_flat[image], open_flat):
            continue
        perm = _placement_map(placements, image, keys, by_rule, rules)
        if perm is not None:
            group.append(Symmetry(label, image, perm))
    group.sort(key=lambda g: not g.is_identity)
    return group


def _placement_map(placements: Placements, image: np.ndarray, keys, by_rule, rules) -> np.ndarray | None:
    """The placement permutation a cell map induces, each rule's placements
    going onto one rule's (itself if it can, else another with the same
    counts, each taken once), or None."""
    perm = np.empty(len(placements), dtype=np.int64)
    taken: set[int] = set()

    def images(i):
        return keys.get(np.sort(image[placements.cells_of(i)]).astype(np.int64).tobytes(), {})

    for k, ids in enumerate(by_rule):
        if not ids.size:
            continue
        first = images(int(ids[0]))
        options = sorted(first, key=lambda j: j != k)
        for j in options:
            if j in taken or (rules[j].min, rules[j].max, rules[j].piece.size) != (rules[k].min, rules[k].max, rules[k].piece.size):
                continue
            if by_rule[j].size != ids.size:
                continue
            ok = True
            for i in ids.tolist():
                hit = images(i).get(j)
                if hit is None:
                    ok = False
                    break
                perm[i] = hit
            if ok:
                taken.add(j)
                break
        else:
            return None
    return perm
