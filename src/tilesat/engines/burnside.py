"""Classes of tilings for the whole-instance engines (frontier, pfaffian), by Burnside.

classes = (1/|G|) * sum over g in G of fix(g), G the instance's symmetry
group (:func:`tilesat.model.symmetry.symmetry_group`, the same group every other
``--up-to-symmetry`` path averages over) and fix(g) the tilings g maps to
themselves.  fix(identity) is the engine's plain count; every other fix(g)
is the number of exact covers of the *quotient by g*, counted by the
frontier DP (:func:`tilesat.engines.frontier.plan_items`):

- items: the orbits of the open cells under the cyclic group <g>;
- options: the orbits of the placements under <g> whose members are
  pairwise disjoint; an orbit of k placements of rule t covers the cell
  orbits its members touch and uses k pieces of rule t.

Why the g-fixed tilings are exactly the quotient's exact covers
(with their piece counts):

1. g fixes a tiling T (a set of placements) iff g(T) = T iff T is a union of
   placement orbits under <g>: g permutes T, so T holds the whole orbit of
   each of its placements, and a union of orbits is mapped onto itself.
   (So fix(g) depends on <g> only: g and g^-1 share it, and so do conjugates
   h g h^-1, since h maps the tilings g fixes onto those h g h^-1 fixes.)
2. The members of an orbit in T are pairwise disjoint (T is a tiling), so
   only disjoint orbits can take part.  The union U of a disjoint orbit's
   cells is g-invariant (g permutes the members), hence a union of whole
   cell orbits: the orbit covers every cell of each cell orbit it touches.
3. T covers every cell once iff every cell orbit lies in exactly one chosen
   placement orbit: if two chosen orbits touched one cell orbit both would
   cover all of it (2.), overlapping; conversely each cell of a cell orbit
   that exactly one chosen orbit covers is covered by exactly one of that
   orbit's members (they are disjoint).
4. Piece counts: a placement orbit of size k of rule t puts k pieces of
   rule t down (g maps placements onto placements of the same rule).

So T <-> the set of its placement orbits is a bijection between g-fixed
tilings and exact covers of the quotient meeting every rule's count with
orbit sizes as multiplicities.  tests/test_burnside.py checks it against a
brute force (every tiling listed, those g fixes counted).

The scan order of the quotient's items decides the DP's window: each cell
orbit is placed at the smallest key any of its cells has, for three keys
(row-major, column-major, and rings around the centre then angle), and the
order with the narrowest window is used.  Row-major keeps a half turn or a
reflection local (the orbit representatives are the top or left half);
quarter turns fold a rectangle's edges onto each other, and rings keep those
folds short (a quarter of each ring, the ends of the arc adjacent).  A
quotient too wide for a 62-bit state runs the pure-Python DP (exact; the
tilings a quarter turn fixes are few, so its states are few too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import frontier
from ..errors import TilesatError
from ..model.instance import Instance
from ..model.placements import Placements
from ..model.symmetry import Symmetry

#: Conjugacy classes are found for groups up to this order (|G|^2 compositions); beyond, only g ~ g^-1.
CONJUGATE_UP_TO = 64


@dataclass(frozen=True)
class Quotient:
    """The exact-cover problem whose solutions are the tilings a symmetry fixes."""

    items: int  # cell orbits (open cells only)
    pos: np.ndarray  # CSR: scan positions of the cell orbits each option covers
    indptr: np.ndarray
    rule: np.ndarray  # rule of each option
    copies: np.ndarray  # pieces each option puts down (its orbit's size)
    width: int  # the DP's window: largest last - first position of an option
    uncoverable: bool  # some cell orbit has no option: nothing is fixed

    def plan(self, instance: Instance) -> frontier.Plan:
        return frontier.plan_items(instance, self.items, self.pos, self.indptr, self.rule, self.copies)


def _orbit_min(perm: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each x, the smallest ``values`` over the orbit of x under <perm>."""
    ident = np.arange(perm.size)
    best = values.copy()
    cur = perm
    while not np.array_equal(cur, ident):
        np.minimum(best, values[cur], out=best)
        cur = perm[cur]
    return best


def _scan_keys(rows: int, cols: int) -> list[np.ndarray]:
    """Candidate scan keys of the flat cells (smaller first)."""
    r, c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    row_major = r * cols + c
    col_major = c * rows + r
    # rings around the centre (doubled coordinates: integers), then the angle
    dr, dc = 2 * r - (rows - 1), 2 * c - (cols - 1)
    ring = np.maximum(np.abs(dr), np.abs(dc))
    angle = np.arctan2(dr, dc) % (2 * np.pi)
    angle_rank = np.unique(angle, return_inverse=True)[1].astype(np.int64)
    rings = ring * (rows * cols + 1) + angle_rank
    return [row_major, col_major, rings]


def quotient(placements: Placements, g: Symmetry) -> Quotient:
    """The quotient of the instance by <g> (module docstring), in the scan order with the narrowest window."""
    board = placements.instance.board
    ncells = board.ncells
    cell_label = _orbit_min(g.cells, np.arange(ncells))
    open_cells = board.open_cells
    place_label = _orbit_min(g.placements, np.arange(len(placements)))
    orbit_size = np.bincount(place_label, minlength=len(placements))

    # every placement's cells, tagged with its orbit (the smallest member's index)
    sizes = np.diff(placements.indptr)
    owner = np.repeat(place_label, sizes)
    cells = placements.cells.astype(np.int64)
    order = np.lexsort((cells, owner))
    owner_s, cells_s = owner[order], cells[order]
    repeat = (owner_s[1:] == owner_s[:-1]) & (cells_s[1:] == cells_s[:-1])
    overlapping = np.unique(owner_s[1:][repeat])  # orbits whose members overlap: never in a fixed tiling
    reps = np.flatnonzero(place_label == np.arange(len(placements)))
    reps = reps[~np.isin(reps, overlapping)]

    # the cell orbits each kept orbit covers (a union of whole cell orbits: docstring, 2.)
    keep = np.isin(owner_s, reps)
    pairs = np.unique(owner_s[keep] * ncells + cell_label[cells_s[keep]])
    opt_owner, opt_item = pairs // ncells, pairs % ncells
    cell_orbit_size = np.bincount(cell_label, minlength=ncells)
    covered = np.bincount(np.searchsorted(reps, opt_owner), weights=cell_orbit_size[opt_item], minlength=reps.size)
    if not np.array_equal(covered.astype(np.int64), sizes[reps] * orbit_size[reps]):
        raise AssertionError("BUG: a disjoint placement orbit does not cover whole cell orbits")
    indptr = np.zeros(reps.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.searchsorted(reps, opt_owner), minlength=reps.size), out=indptr[1:])

    item_labels = np.unique(cell_label[open_cells])
    uncoverable = not np.isin(item_labels, opt_item).all()
    best = None
    for key in _scan_keys(board.rows, board.cols):
        orbit_key = _orbit_min(g.cells, key)[item_labels]
        position = np.empty(ncells, dtype=np.int64)
        position[item_labels] = np.argsort(np.argsort(orbit_key, kind="stable"), kind="stable")
        pos = position[opt_item]
        if reps.size:
            first = np.minimum.reduceat(pos, indptr[:-1])
            width = int((np.maximum.reduceat(pos, indptr[:-1]) - first).max())
        else:
            width = 0
        if best is None or width < best[0]:
            best = (width, pos)
    width, pos = best
    return Quotient(int(item_labels.size), pos, indptr, placements.rule[reps].astype(np.int64),
                    orbit_size[reps].astype(np.int64), width, uncoverable)


def exchanges_counted_pieces(placements: Placements, g: Symmetry) -> bool:
    """Does g map placements of one rule onto another's where a count is
    bounded (a reflection exchanging one-sided F5 and F5', each used once)?
    Point 4 of the module docstring fails then: the quotient cannot say how
    many pieces of each rule an orbit uses."""
    moved = placements.rule[g.placements] != placements.rule
    if not moved.any():
        return False
    rules = placements.instance.rules
    return any(rules[int(k)].bounded for k in np.unique(placements.rule[moved]).tolist())


EXCHANGE_REFUSAL = ("a symmetry of this instance exchanges pieces whose counts are bounded (mirror images in a "
                    "one-sided set); the frontier and pfaffian engines cannot count its classes: use --method dlx")


def count_fixed(placements: Placements, g: Symmetry) -> int:
    """The tilings g maps to themselves, as the exact covers of the quotient by <g>."""
    q = quotient(placements, g)
    if q.uncoverable:
        return 0
    return frontier.count_plan(q.plan(placements.instance))


def _inverse(perm: np.ndarray) -> np.ndarray:
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    return inv


def _class_keys(group: list[Symmetry]) -> list[bytes]:
    """A key per symmetry, equal for symmetries whose fixed tilings are equally
    many: g, g^-1 and (for small groups) their conjugates h g h^-1."""
    inverses = [_inverse(g.cells) for g in group]
    keys = []
    for g, g_inv in zip(group, inverses):
        variants = [g.cells, g_inv]
        if len(group) <= CONJUGATE_UP_TO:
            variants = [h.cells[v[h_inv]] for h, h_inv in zip(group, inverses) for v in variants]
        keys.append(min(v.astype(np.int64).tobytes() for v in variants))
    return keys


def fixed_counts(engine, placements: Placements, group: list[Symmetry]) -> list[int]:
    """fix(g) for each g of ``group``: the identity by ``engine.count`` (the
    frontier or pfaffian module), the others by their quotients, each class
    of symmetries with equal counts (:func:`_class_keys`) once."""
    instance = placements.instance
    if any(exchanges_counted_pieces(placements, g) for g in group):
        raise TilesatError(EXCHANGE_REFUSAL)
    done: dict[bytes, int] = {}
    out = []
    for g, key in zip(group, _class_keys(group)):
        if key not in done:
            done[key] = engine.count(instance, placements) if g.is_identity else count_fixed(placements, g)
        out.append(done[key])
    return out


def widest(placements: Placements, group: list[Symmetry]) -> int:
    """The widest window among the quotients by the non-identity symmetries
    (0 when there are none): what ``auto`` checks before choosing an engine."""
    seen, width = set(), 0
    if any(exchanges_counted_pieces(placements, g) for g in group):
        return 1 << 30  # no quotient counts these classes: never chosen
    for g, key in zip(group, _class_keys(group)):
        if not g.is_identity and key not in seen:  # symmetries with equal counts: one quotient
            seen.add(key)
            width = max(width, quotient(placements, g).width)
    return width
