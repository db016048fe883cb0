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


def symmetry_group(placements: Placements) -> list[Symmetry]:
    """The symmetries of the instance, identity first."""
    board = placements.instance.board
    R, C = board.rows, board.cols
    r, c = np.divmod(np.arange(R * C), C)
    shifts_r = range(R) if board.wraps_columns else [0]
    shifts_c = range(C) if board.wraps_rows else [0]
    open_flat = board.open.ravel()
    sizes = np.diff(placements.indptr)
    # a placement's identity: its rule and its sorted cells, as one byte string
    keys = {}
    for i in range(len(placements)):
        keys[(int(placements.rule[i]), placements.cells_of(i).astype(np.int64).tobytes())] = i
    group: list[Symmetry] = []
    seen: set[bytes] = set()
    for name, f in _point_maps(R, C):
        for dr in shifts_r:
            for dc in shifts_c:
                nr, nc = f(r, c)
                image = ((nr + dr) % R) * C + (nc + dc) % C
                if image.tobytes() in seen:
                    continue  # the same map of cells reached another way
                seen.add(image.tobytes())
                if not np.array_equal(open_flat[image], open_flat):
                    continue
                perm = np.empty(len(placements), dtype=np.int64)
                ok = True
                for i in range(len(placements)):
                    cells = np.sort(image[placements.cells[placements.indptr[i] : placements.indptr[i] + sizes[i]]])
                    j = keys.get((int(placements.rule[i]), cells.astype(np.int64).tobytes()))
                    if j is None:
                        ok = False
                        break
                    perm[i] = j
                if ok:
                    label = name + (f" + shift {dr},{dc}" if dr or dc else "")
                    group.append(Symmetry(label, image, perm))
    group.sort(key=lambda g: not g.is_identity)
    return group
