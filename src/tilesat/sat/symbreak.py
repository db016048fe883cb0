"""Symmetry breaking: lex-leader constraints over the placement variables.

A symmetry of the instance (:func:`tilesat.model.symmetry.symmetry_group`) maps
tilings onto tilings and packings onto packings of the same value, so for
each permutation ``p`` of the placements it is sound to keep only the
assignments ``x`` with ``x <=lex x o p`` (read along the variables 1..P,
false before true): the lexicographically least member of every orbit
satisfies all of them.  Hence, with the constraints of any set of
symmetries added,

- "is there a tiling" and the optimum of a packing stay exact (every class
  keeps its least member), and every model found is still a real tiling;
- with the constraints of *every* element of the group, each orbit keeps
  exactly one member (its least), so the models are one per class: the
  number of classes, and the raw count as the sum of the classes' sizes
  (``count --method lexleader``, :mod:`tilesat.engines.lexleader`).  A generating set alone may keep several members
  of an orbit: right for yes/no and optimum questions, not for counting;
- uniqueness is lost (a unique answer could hide a symmetric twin):
  ``check-unique`` refuses the option; and the broken formula's models are no
  longer the tilings (the lexleader count recovers their number from the
  classes' sizes).

Which symmetries: for yes/no and optimum answers, the rotations, reflections
and one-cell wrap shifts that are symmetries (:func:`board_map_symmetries`,
at most 9 maps, found in milliseconds); for counting classes, every element
of the group (:func:`tilesat.model.symmetry.symmetry_group`).

The constraints mention placement variables only.  The empty-cell variables
of a packing and the encodings' auxiliaries are functions of (or exist for
every choice of) the placements, so comparing placements alone is enough.

The encoding (Aloul, Markov, Sakallah, "Efficient symmetry breaking for
Boolean satisfiability", 2006; the one of shatter and BreakID): along the
positions ``i`` that ``p`` moves, ``e_k`` says "equal so far"; clauses
``e_{k-1} -> (x_i -> y_i)`` and ``e_{k-1} and x_i = y_i -> e_k`` with
``y_i = x_{p(i)}``; three clauses and one auxiliary per position.  Fixed
positions are skipped, and so is the second position of a 2-cycle (equal
there once equal at the first).  ``e_k`` is only forced one way: the models
projected on the placements are exactly the lex-leaders (tests/test_symbreak.py
checks it by brute force), though the auxiliaries are not determined, so
counting must block placement variables only, as the blocking counter does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .formula import Formula
from ..model.placements import Placements
from ..model.symmetry import Symmetry, _point_maps, symmetry_group

#: The option's modes: some symmetries (:func:`board_map_symmetries`), or every element of the group.
MODES = ("generators", "full")


def lex_leader_clauses(perms: Sequence[np.ndarray], top: int,
                       order: np.ndarray | None = None) -> tuple[list[list[int]], int]:
    """Clauses keeping exactly the assignments of variables ``1..P`` with
    ``x <=lex x o p`` for every permutation ``p`` (``p[i]`` the image of
    variable ``i + 1``, 0-based), and the new top variable (auxiliaries are
    ``top + 1``, ...).  ``order`` (0-based variables) is the order the
    comparison reads them in, 1..P by default: any fixed order is sound."""
    clauses: list[list[int]] = []
    for p in perms:
        p = np.asarray(p, dtype=np.int64)
        seq = np.arange(p.size) if order is None else np.asarray(order, dtype=np.int64)
        rank = np.empty(p.size, dtype=np.int64)
        rank[seq] = np.arange(p.size)
        moved = seq[p[seq] != seq]
        # the second position of a 2-cycle adds nothing: x_j = x_i is already known there
        keep = ~((rank[p[moved]] < rank[moved]) & (p[p[moved]] == moved))
        positions = moved[keep]
        prev = 0  # the "equal so far" variable before this position (0: true)
        for k, i in enumerate(positions.tolist()):
            x, y = i + 1, int(p[i]) + 1
            guard = [-prev] if prev else []
            clauses.append(guard + [-x, y])
            if k == len(positions) - 1:
                break
            top += 1
            clauses.append(guard + [-x, -y, top])
            clauses.append(guard + [x, y, top])
            prev = top
    return clauses, top


# --- a few symmetries, cheaply --------------------------------------------------------
# The whole group of a torus has 8 x rows x cols candidates, each checked
# placement by placement in symmetry.py (6 s on a 10x10 torus, minutes on a
# 30x30 one, with no time limit consulted).  Breaking needs only some true
# symmetries: the rotations and reflections and the one-cell shifts along
# wrapped axes (at most 10 maps; on a torus without holes they generate the
# group), each mapped onto the placements by sorting (vectorised).

def map_named(board, label: str) -> np.ndarray | None:
    """The cell map a symmetry's label names (``"rotate 90"``, ``"flip rows +
    shift 0,1"``, as :mod:`tilesat.model.symmetry` writes them), or None."""
    name, _, shift = label.partition(" + shift ")
    maps = dict(_point_maps(board.rows, board.cols))
    if name not in maps:
        return None
    dr = dc = 0
    if shift:
        try:
            dr, dc = (int(v) for v in shift.split(","))
        except ValueError:
            return None
        if (dr and not board.wraps_columns) or (dc and not board.wraps_rows) or not (
                0 <= dr < board.rows and 0 <= dc < board.cols) or (dr, dc) == (0, 0):
            return None
    R, C = board.rows, board.cols
    r, c = np.divmod(np.arange(R * C), C)
    nr, nc = maps[name](r, c)
    return ((nr + dr) % R) * C + (nc + dc) % C


def placement_map(placements: Placements, image: np.ndarray) -> np.ndarray | None:
    """The permutation of the placements a cell map induces (placement i onto
    the placement of the same rule on exactly the image cells), or None when
    some image is no placement."""
    P = len(placements)
    perm = np.full(P, -1, dtype=np.int64)
    sizes = np.diff(placements.indptr)
    for k in np.unique(placements.rule).tolist():
        idx = np.flatnonzero(placements.rule == k)
        size = int(sizes[idx[0]])
        if not (sizes[idx] == size).all():
            return None
        rows = placements.cells[placements.indptr[idx][:, None] + np.arange(size)].astype(np.int64)
        rows = np.sort(rows, axis=1)
        moved = np.sort(np.asarray(image, dtype=np.int64)[rows], axis=1)
        key = np.ascontiguousarray(rows).view(np.dtype((np.void, 8 * size))).ravel()
        want = np.ascontiguousarray(moved).view(np.dtype((np.void, 8 * size))).ravel()
        order = np.argsort(key)
        at = np.searchsorted(key[order], want)
        at = np.minimum(at, idx.size - 1)
        if not (key[order][at] == want).all():
            return None
        perm[idx] = idx[order[at]]
    return perm


def board_map_symmetries(placements: Placements) -> list[Symmetry]:
    """The rotations, reflections and one-cell wrap shifts that are symmetries
    of the instance (not the identity): some elements of its group, each
    checked with :func:`check_symmetry`."""
    board = placements.instance.board
    labels = [name for name, _ in _point_maps(board.rows, board.cols)]
    labels += [f"identity + shift {dr},{dc}" for dr, dc in ((1, 0), (0, 1))
               if (board.wraps_columns if dr else board.wraps_rows) and (board.rows if dr else board.cols) > 1]
    found, seen = [], set()
    for label in labels:
        image = map_named(board, label)
        if image is None or image.tobytes() in seen or (image == np.arange(image.size)).all():
            continue
        seen.add(image.tobytes())
        if not np.array_equal(board.open.ravel()[image], board.open.ravel()):
            continue
        perm = placement_map(placements, image)
        if perm is None or (perm == np.arange(perm.size)).all():
            continue
        sym = Symmetry(label, image, perm)
        if check_symmetry(placements, sym) is None:
            found.append(sym)
    return found


def check_symmetry(placements: Placements, sym: Symmetry) -> str | None:
    """Why ``sym`` is not a symmetry of the instance (None when it is),
    checked afresh: a permutation of the board's cells that keeps the open
    cells open and, for every placement, maps its cells onto exactly the
    cells of its image, a placement of the same rule (or of one rule it
    exchanges with it, with the same counts); and a permutation of the
    placements.  Written apart from :mod:`tilesat.model.symmetry`, which
    finds the symmetries, so that a proof's breaking is checked by code
    that did not choose it."""
    board = placements.instance.board
    n = board.ncells
    cells, perm = np.asarray(sym.cells), np.asarray(sym.placements)
    if cells.shape != (n,) or not np.array_equal(np.sort(cells), np.arange(n)):
        return f"{sym.name}: not a permutation of the board's cells"
    if not np.array_equal(board.open.ravel()[cells], board.open.ravel()):
        return f"{sym.name}: moves an open cell onto a blocked one"
    P = len(placements)
    if perm.shape != (P,) or not np.array_equal(np.sort(perm), np.arange(P)):
        return f"{sym.name}: not a permutation of the placements"
    # each rule's placements onto one rule's with the same counts (itself, or the
    # mirror image a reflection exchanges it with: F5 and F5' in a one-sided set)
    pairs = np.unique(np.stack([placements.rule, placements.rule[perm]], axis=1), axis=0) if P else np.zeros((0, 2), int)
    rules = placements.instance.rules
    if len(np.unique(pairs[:, 0])) != len(pairs) or len(np.unique(pairs[:, 1])) != len(pairs) or any(
            (rules[a].min, rules[a].max) != (rules[b].min, rules[b].max) for a, b in pairs.tolist()):
        return f"{sym.name}: maps a placement onto one of another piece"
    sizes = np.diff(placements.indptr)
    if not np.array_equal(sizes[perm], sizes):
        return f"{sym.name}: maps a placement onto one of another size"
    # the image cells of every placement, sorted within each placement, against its image's (sorted) cells
    owner = np.repeat(np.arange(P), sizes)
    image = cells[placements.cells]
    image = image[np.lexsort((image, owner))]
    out_start = np.concatenate(([0], np.cumsum(sizes)[:-1])) if P else np.zeros(0, dtype=np.int64)
    at = np.repeat(placements.indptr[:-1][perm], sizes) + (np.arange(owner.size) - np.repeat(out_start, sizes))
    target = placements.cells[at]
    target = target[np.lexsort((target, owner))]
    if not np.array_equal(image, target):
        return f"{sym.name}: maps a placement's cells onto other cells than its image's"
    return None


@dataclass
class Breaking:
    """What was broken: the symmetries' names and the clauses added."""

    names: list[str]
    group_order: int | None  # None: the whole group was not computed (a torus's is large)
    clauses: int
    variables: int  # auxiliaries added
    mode: str

    def describe(self) -> str:
        if not self.names:
            return "no symmetry to break (the group is the identity alone)"
        what = "every element of the group" if self.mode == "full" else "rotations, reflections, one-cell shifts"
        return f"lex-leader for {len(self.names)} symmetries ({what}: {', '.join(self.names)}), {self.clauses:,} clauses"

    def to_json(self) -> dict:
        return {"symmetries": self.names, "group_order": self.group_order, "clauses": self.clauses,
                "variables": self.variables, "mode": self.mode}


def with_clauses(formula: Formula, clauses: list[list[int]], top: int) -> Formula:
    """The formula plus these clauses over variables up to ``top``."""
    return Formula(formula.placements, max(top, formula.nvars), list(formula.blocks), list(formula.extra) + clauses,
                   formula.encoding, formula.card, formula.allow_empty, list(formula.atmost))


def symmetry_breaking(formula: Formula, mode: str = "generators",
                      group: Sequence[Symmetry] | None = None) -> tuple[Formula, Breaking]:
    """The formula with lex-leader clauses for the instance's symmetries,
    their auxiliaries above every variable of the formula, and what was
    broken.  ``generators``: the rotations, reflections and one-cell wrap
    shifts that are symmetries (:func:`board_map_symmetries`: every element
    on a board without wraps, a generating set on a torus without holes;
    enough for yes/no and optimum answers).  ``full``: every element of
    ``group`` (:func:`tilesat.model.symmetry.symmetry_group`), one model per class."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: use one of {MODES}")
    if mode == "full":
        group = symmetry_group(formula.placements) if group is None else group
        chosen = [g for g in group if not g.is_identity]
    else:
        chosen = board_map_symmetries(formula.placements)
    # above every variable the formula uses in any form (a native formula's expansion too)
    clauses, top = lex_leader_clauses([g.placements for g in chosen], formula.top)
    broken = with_clauses(formula, clauses, top)
    return broken, Breaking([g.name for g in chosen], len(group) if group is not None else None, len(clauses),
                            top - formula.top, mode)


def named_breaking(formula: Formula, names: Sequence[str]) -> tuple[Formula, str | None]:
    """The formula with the lex-leader clauses of the symmetries named (as a
    proof lists them), each map rebuilt from its name and checked by
    :func:`check_symmetry`; or the formula and why that cannot be."""
    placements = formula.placements
    chosen = []
    if len(set(names)) != len(names):
        return formula, "a symmetry is named twice"
    for name in names:
        image = map_named(placements.instance.board, name)
        perm = placement_map(placements, image) if image is not None else None
        if perm is None:
            return formula, f"{name!r} is not a symmetry of the instance"
        sym = Symmetry(name, image, perm)
        if (why := check_symmetry(placements, sym)) is not None:
            return formula, why
        chosen.append(sym)
    clauses, top = lex_leader_clauses([g.placements for g in chosen], formula.top)
    return with_clauses(formula, clauses, top), None


# --- counting classes -----------------------------------------------------------

def orbit_size(group: Sequence[Symmetry], chosen: Sequence[int]) -> int:
    """How many distinct tilings the group makes of the one made of ``chosen`` placements."""
    chosen = np.asarray(chosen, dtype=np.int64)
    return len({np.sort(g.placements[chosen]).tobytes() for g in group})


def is_lex_leader(group: Sequence[Symmetry], chosen: Sequence[int], P: int) -> bool:
    """Is the 0/1 assignment of these chosen placements the least of its orbit?
    (The least x with x <=lex x o p: compare x with every x o p directly.)"""
    x = np.zeros(P, dtype=np.int8)
    x[np.asarray(chosen, dtype=np.int64)] = 1
    for g in group:
        y = x[g.placements]
        diff = np.flatnonzero(x != y)
        if diff.size and x[diff[0]] > y[diff[0]]:
            return False
    return True
