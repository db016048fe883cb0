"""Certificates of "no tiling" that a person can check with additions.

A **weighted certificate** gives every open cell an integer weight and every
piece rule an integer multiplier such that

- every placement covers total weight <= 0 (its cells' weights plus its
  piece's multiplier), while
- ``total`` = the open cells' weights + each rule's multiplier times its
  required count (its minimum for a positive multiplier, its maximum for a
  negative one) is > 0.

A tiling would cover each open cell once, so summing over its tiles gives
``total <= 0``: no tiling exists.  The mutilated chessboard's colouring
(+1 on one colour, -1 on the other) is one.  They come from linear
programming: when the exact-cover LP relaxation ("every open cell covered
once, each placement used a fraction >= 0 of a time, the piece counts kept")
is infeasible, Farkas' lemma gives such weights; :func:`lp_certificate`
solves the LP "maximise total, every placement <= 0, weights in [-1, 1]"
with HiGHS (``highspy``: it loads in 0.2 s, scipy.optimize in 0.6 s), turns its rational solution into
small integers and keeps it only when :func:`check_certificate` accepts it.

A **modular certificate** (``modulus`` m) answers some boards whose LP is
feasible (the T-tetromino on 6x6): every placement covers weight = 0 mod m
and the total is not 0 mod m, where the counts in the total must be fixed:
rules with ``min == max``, or one multiplier shared by every rule when all
pieces have the same size (then the number of pieces is area / size).
Found by Gaussian elimination over GF(p) for small primes p.

A **bound certificate** (:class:`BoundCertificate`) proves an upper bound
on packings (``tilesat pack``): the packing LP's dual solution, weights >= 0
on cells and multipliers on piece counts over a common denominator D, with
every placement covering at least D times its value; no packing is worth
more than floor(total / D).  When a packing meets that bound, it is optimal.

:func:`check_certificate` and :func:`check_bound_certificate` use neither
the LP nor :mod:`tilesat.model.placements`: they put every allowed orientation
(:func:`tilesat.certify.verify.allowed_shapes`, the independent checker's) at every
position with array sums over the weight grid, in exact integer arithmetic.

Every grid: a cell is the grid's tuple (``(row, col)``, on the cube
``(layer, row, col)``), written in JSON as ``[*cell, weight]``.  On the
triangle, hex and cube grids the checker turns each piece with the grid's
point maps (:meth:`tilesat.model.grids.Grid.orient_maps`, as :mod:`tilesat.certify.verify`
does) and puts it at every grid translation itself, so it still shares
nothing with :mod:`tilesat.model.placements`.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..model.board import Board
from ..running.control import call_in_child, deadline
from ..model.instance import INF, Instance
from ..model.placements import Placements
from ..running.stdout_guard import native_output
from .verify import allowed_shapes

# The LP runs in this process up to this many placement-cell incidences
# (about 0.05 s of HiGHS, stopped by its own time limit); larger ones run in
# a forked child that a timeout or Ctrl-C kills at once (HiGHS does not
# return to Python until it is done).
IN_PROCESS_NONZEROS = 40_000
# Modular certificates are looked for on boards up to this many open cells
# (the elimination is cubic).
# (the elimination is cubic: pentominoes on 6x10 took 0.4 s, L-trominoes on 16x16 1.2 s)
MODULAR_MAX_CELLS = 64
MODULAR_MAX_PLACEMENTS = 1_000
MODULAR_PRIMES = (2, 3, 5)
# The LP's rational solution is turned into integers with denominators up to these.
DENOMINATORS = (1, 2, 6, 12, 60, 420, 2520, 27720)


class CertificateError(Exception):
    """A certificate that does not check out, in one line."""


@dataclass(frozen=True)
class Certificate:
    """Weights of open cells (``{(row, col): w}``, zeros left out), rule
    multipliers (``{piece name: mu}``, zeros left out) and the total; a
    modular one has ``modulus`` m and everything taken mod m."""

    weights: dict
    rules: dict
    total: int
    modulus: int | None = None
    stats: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict:
        data = {
            "weights": _weights_json(self.weights),
            "rules": dict(sorted(self.rules.items())),
            "total": self.total,
        }
        if self.modulus is not None:
            data["modulus"] = self.modulus
        return data

    @classmethod
    def from_json(cls, data) -> "Certificate":
        """Read strictly: any deviation from the format is a :class:`CertificateError`."""
        if not isinstance(data, dict):
            raise CertificateError("the certificate is not a JSON object")
        allowed = {"weights", "rules", "total", "modulus"}
        if not {"weights", "rules", "total"} <= data.keys() <= allowed:
            raise CertificateError(f"the certificate must have the fields weights, rules, total (and modulus); it has {sorted(data)}")
        weights = {}
        if not isinstance(data["weights"], list):
            raise CertificateError("the certificate's weights are not a list of [row, col, weight]")
        for item in data["weights"]:
            # [row, col, weight]; [layer, row, col, weight] on the cube grid
            if not (isinstance(item, list) and len(item) in (3, 4) and all(_is_int(x) for x in item)):
                raise CertificateError(f"the certificate has the weight {str(item)[:40]}, not [row, col, weight]")
            key = tuple(item[:-1])
            if key in weights:
                raise CertificateError(f"the certificate gives cell {key} two weights")
            weights[key] = item[-1]
        rules = data["rules"]
        if not (isinstance(rules, dict) and all(isinstance(k, str) and _is_int(v) for k, v in rules.items())):
            raise CertificateError("the certificate's rules are not {PIECE: integer multiplier}")
        if not _is_int(data["total"]):
            raise CertificateError("the certificate's total is not an integer")
        modulus = data.get("modulus")
        if modulus is not None and not (_is_int(modulus) and modulus >= 2):
            raise CertificateError("the certificate's modulus is not an integer of at least 2")
        return cls(weights, dict(rules), data["total"], modulus)

    def sentence(self) -> str:
        """What it shows, in one sentence."""
        counts = " with the piece counts" if self.rules else ""
        if self.modulus is not None:
            return (f"every placement covers weight divisible by {self.modulus}, the open cells{counts} weigh "
                    f"{self.total} mod {self.modulus}: no tiling")
        return f"every placement covers weight <= 0, the open cells{counts} weigh {self.total:+d}: no tiling"


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _weights_json(weights: dict) -> list:
    return [[*cell, w] for cell, w in sorted(weights.items())]


# -- checking (no LP, no placements module) --------------------------------------

def _required_total(instance: Instance, cert: Certificate) -> int:
    """The certificate's total, recomputed: open cells' weights plus each
    rule's multiplier times the count it stands for."""
    rules = {r.name: r for r in instance.rules}
    unknown = sorted(set(cert.rules) - set(rules))
    if unknown:
        raise CertificateError(f"the certificate has a multiplier for {unknown[0]!r}, which the instance does not use")
    total = sum(cert.weights.values())
    if cert.modulus is None:
        for name, mu in cert.rules.items():
            rule = rules[name]
            if mu > 0:
                total += mu * rule.min
            elif mu < 0:
                if rule.max == INF:
                    raise CertificateError(f"piece {name} has a negative multiplier but no maximum count")
                total += mu * int(rule.max)
        return total
    m = cert.modulus
    used = [r for r in instance.rules if r.max > 0]
    mus = {cert.rules.get(r.name, 0) % m for r in used}
    sizes = {r.piece.size for r in used}
    if len(mus) == 1 and len(sizes) == 1 and instance.board.area % next(iter(sizes)) == 0:
        # one multiplier for every piece, all of one size: the number of pieces is fixed
        return (total + mus.pop() * (instance.board.area // sizes.pop())) % m
    for r in used:
        mu = cert.rules.get(r.name, 0) % m
        if mu and r.min != r.max:
            raise CertificateError(f"piece {r.name} has a multiplier mod {m} but no fixed count")
        total += mu * r.min
    return total % m


def _weight_grid(instance: Instance, cert, margin: int = 0) -> np.ndarray:
    """The certificate's cell weights on the board (any other cell weighed is
    an error); int64 when no placement's sum, nor ``margin`` beside it, can
    overflow, else Python integers."""
    board = instance.board
    big = max((abs(w) for w in cert.weights.values()), default=0)
    big = max(big, max((abs(v) for v in cert.rules.values()), default=0)) + margin
    size = max(r.piece.size for r in instance.rules)
    exact = big * (size + 1) < 2**62  # int64 sums cannot overflow; else Python integers
    grid = np.zeros(board.shape, dtype=np.int64 if exact else object)
    for cell, w in cert.weights.items():
        if not board.is_open(*cell):
            raise CertificateError(f"the certificate weighs cell {_cell_text(cell)}, which is not an open cell of the board")
        grid[cell] = w
    return grid


def _cell_text(cell) -> str:
    return "(" + ", ".join(str(x) for x in cell) + ")"


def _shape_sums(board: Board, grid: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray] | None:
    """For every anchor of ``shape``: the weight its cells cover and whether
    they are all open (None when the shape wraps onto itself: no placement)."""
    R, C = board.rows, board.cols
    cells = sorted(shape)
    h = max(a for a, _ in cells) + 1
    w = max(b for _, b in cells) + 1
    wr, wc = board.wraps_columns, board.wraps_rows  # row indices mod R / column indices mod C
    if len({(a % R if wr else a, b % C if wc else b) for a, b in cells}) < len(cells):
        return None
    ar = R if wr else R - h + 1
    ac = C if wc else C - w + 1
    if ar <= 0 or ac <= 0:
        return None
    total = np.zeros((ar, ac), dtype=grid.dtype)
    fits = np.ones((ar, ac), dtype=bool)
    for a, b in cells:
        g, o = grid, board.open
        if wr:
            g, o = np.roll(g, -a, axis=0), np.roll(o, -a, axis=0)
            ra = slice(0, R)
        else:
            ra = slice(a, a + ar)
        if wc:
            g, o = np.roll(g, -b, axis=1), np.roll(o, -b, axis=1)
            cb = slice(0, C)
        else:
            cb = slice(b, b + ac)
        total = total + g[ra, cb]
        fits &= o[ra, cb]
    return total, fits


def _lattice_shapes(lattice, cells, orient: str) -> set[tuple]:
    """Every allowed orientation of a piece on a triangle, hex or cube grid:
    its images under the rule's point maps, each moved by a grid translation
    to a canonical place (two that coincide there are one orientation)."""
    return {lattice.normalize([f(tuple(c)) for c in cells]) for f in lattice.orient_maps(orient)}


def _lattice_sums(board: Board, grid: np.ndarray, shape: tuple):
    """``_shape_sums`` on the other grids: the shape's first cell put on
    every cell of the box that a grid translation takes it to (on the
    triangle grid, triangles pointing the same way); the weight its cells
    cover and whether they are all open cells of the board, as arrays over
    the box (anchors that no translation reaches do not fit)."""
    lattice = board.lattice
    box = np.array(board.shape)
    anchors = np.indices(board.shape).reshape(len(box), -1).T
    first = np.array(shape[0])
    fits = np.array([lattice.translation_ok(tuple(d)) for d in (anchors - first).tolist()], dtype=bool)
    total = np.zeros(len(anchors), dtype=grid.dtype)
    for cell in shape:
        target = anchors + (np.array(cell) - first)
        inside = ((target >= 0) & (target < box)).all(axis=1)
        fits &= inside
        where = tuple(np.where(inside[:, None], target, 0).T)
        fits &= board.open[where]
        total = total + np.where(inside, grid[where], 0)
    return total.reshape(board.shape), fits.reshape(board.shape)


def _placement_values(instance: Instance, grid: np.ndarray, multipliers: dict):
    """Every placement of every allowed orientation, by anchor: ``(rule,
    value, fits, tile)``, value the weight its cells cover plus its rule's
    multiplier, fits whether that anchor is a placement on the board, and
    ``tile(anchor)`` the cells it covers."""
    board = instance.board
    for rule in instance.rules:
        if rule.max == 0:
            continue
        mu = multipliers.get(rule.name, 0)
        if not board.is_square:
            for shape in _lattice_shapes(board.lattice, rule.piece.cells, rule.orient):
                covered, fits = _lattice_sums(board, grid, shape)
                yield rule, covered + mu, fits, (
                    lambda anchor, shape=shape: sorted(tuple(a + c - f for a, c, f in zip(anchor, cell, shape[0]))
                                                       for cell in shape))
            continue
        for shape in allowed_shapes(rule.piece.cells, rule.orient):
            sums = _shape_sums(board, grid, shape)
            if sums is not None:
                covered, fits = sums
                yield rule, covered + mu, fits, (
                    lambda anchor, shape=shape: sorted(((anchor[0] + a) % board.rows, (anchor[1] + b) % board.cols)
                                                       for a, b in shape))


def _first_placement(bad: np.ndarray, tile) -> tuple[tuple, list]:
    """The first anchor marked in ``bad`` and the cells its placement covers."""
    anchor = tuple(int(x) for x in np.argwhere(bad)[0])
    return anchor, tile(anchor)


#: why no certificate of "no tiling" is looked for (nor accepted) on boards with optional or coloured cells
NOT_PLAIN = ("cells that may stay empty (+) or colours: a certificate's weights sum over every open cell "
             "and every placement, which these boards do not all need")


def check_certificate(instance: Instance, cert: Certificate) -> None:
    """Accept the certificate or raise :class:`CertificateError` saying why
    not, in one line.  Every placement of every allowed orientation is
    summed, in exact integer arithmetic."""
    board = instance.board
    if not instance.plain:
        raise CertificateError(NOT_PLAIN)
    grid = _weight_grid(instance, cert)
    total = _required_total(instance, cert)
    if total != (cert.total if cert.modulus is None else cert.total % cert.modulus):
        raise CertificateError(f"the certificate's total is {cert.total}, but its weights and multipliers add up to {total}")
    if (total <= 0) if cert.modulus is None else (total % cert.modulus == 0):
        raise CertificateError(f"the certificate's total {cert.total} proves nothing "
                               + ("(it must be > 0)" if cert.modulus is None else f"(it is 0 mod {cert.modulus})"))
    for rule, value, fits, tile in _placement_values(instance, grid, cert.rules):
        bad = fits & ((value > 0) if cert.modulus is None else (value % cert.modulus != 0))
        if bad.any():
            anchor, cells = _first_placement(bad, tile)
            got = value[anchor] if cert.modulus is None else f"{value[anchor] % cert.modulus} mod {cert.modulus}"
            raise CertificateError(f"the {rule.name} on {cells} covers weight {got}"
                                   + (" > 0" if cert.modulus is None else ", not 0"))


# -- the LP ---------------------------------------------------------------------

def _lp_matrix(placements: Placements):
    """The LP "maximise total; every placement covers weight <= 0": its rows
    (placements) in CSR over the columns (open cells, then rule multipliers),
    the objective, the columns' bounds, and what each multiplier column is."""
    instance = placements.instance
    board = instance.board
    column = np.full(board.ncells, -1, dtype=np.int64)
    column[board.open_cells] = np.arange(board.area)
    n, P = board.area, len(placements)
    # each bounded rule: mu_plus (counted at its minimum) if min > 0, mu_minus
    # (at its maximum) if the maximum is finite; at most the piece's size each
    # (beyond it a multiplier only loosens rows that are already slack)
    extra = []  # (rule index, sign, objective coefficient, upper bound)
    for k, rule in enumerate(instance.rules):
        if rule.min > 0:
            extra.append((k, 1, rule.min, rule.piece.size))
        if rule.max != INF and rule.max > 0:
            extra.append((k, -1, -int(rule.max), rule.piece.size))
    sizes = np.diff(placements.indptr)
    per_row = sizes.copy()
    for k, _, _, _ in extra:
        per_row += placements.rule == k
    start = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(per_row, out=start[1:])
    index = np.empty(int(start[-1]), dtype=np.int64)
    value = np.ones(int(start[-1]), dtype=np.float64)
    # cells first in each row, then its rule's multiplier columns
    offset = np.repeat(start[:-1] - placements.indptr[:-1], sizes) + np.arange(placements.cells.size)
    index[offset] = column[placements.cells]
    fill = start[:-1] + sizes
    for j, (k, sign, _, _) in enumerate(extra):
        rows = np.flatnonzero(placements.rule == k)
        index[fill[rows]] = n + j
        value[fill[rows]] = sign
        fill[rows] += 1
    cost = np.concatenate([np.ones(n), np.array([e[2] for e in extra], dtype=float)])
    lower = np.concatenate([-np.ones(n), np.zeros(len(extra))])
    upper = np.concatenate([np.ones(n), np.array([e[3] for e in extra], dtype=float)])
    return (start, index, value), cost, (lower, upper), extra


def load_lp() -> None:
    """Load HiGHS into this process now (0.2 s the first time), when the LP
    will run here: so that a time limit on the LP measures the LP, not the import."""
    if "ortools" not in sys.modules:
        try:
            import highspy  # noqa: F401
        except ImportError:
            pass


def _in_process(nonzeros: int) -> bool:
    """Small LPs run here; large ones, and any once OR-Tools is loaded, in a
    child.  OR-Tools bundles its own HiGHS, whose symbols clash with
    highspy's: whichever library is loaded second fails to import."""
    return nonzeros <= IN_PROCESS_NONZEROS and "ortools" not in sys.modules


def _scipy_lp(cost, A_ub, b_ub, A_eq, b_eq, bounds, time_limit):
    """The same LP through scipy's copy of HiGHS (it coexists with OR-Tools'),
    where highspy cannot be loaded."""
    from scipy.optimize import linprog

    res = linprog(-cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs",
                  options={} if time_limit is None else {"time_limit": max(0.01, float(time_limit))})
    return res


def _csr(matrix, shape):
    import scipy.sparse as sp

    start, index, value = matrix
    return sp.csr_matrix((value, index, start), shape=shape)


def _highs(highspy):
    """A quiet HiGHS model: its constructor prints a banner (1.16) before
    ``output_flag`` can be set."""
    with native_output():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


def _solve_lp(matrix, cost, bounds, time_limit, vertex: bool = False):
    """HiGHS's optimum of max cost.x, A x <= 0, within the bounds, as
    (status, value, x); status 0 when optimal.  In a child for large LPs.

    By interior point without crossover unless ``vertex``: the LP's value is
    what matters first (0 where the relaxation is feasible, as on any board
    with a tiling), and IPX finds it 2-3x sooner than the simplex on the
    hard packings (an 80x80 L4 board: 1.0 s against 3.4 s); its point on the
    optimal face usually rounds to a certificate too.  ``vertex``: the dual
    simplex's vertex, for when it does not."""
    try:
        import highspy
    except ImportError:  # OR-Tools' HiGHS is loaded: scipy's
        A = _csr(matrix, (matrix[0].size - 1, cost.size))
        res = _scipy_lp(cost, A, np.zeros(A.shape[0]), None, None, list(zip(*bounds)), time_limit)
        return (0, -float(res.fun), res.x) if res.status == 0 else (1, None, None)

    start, index, value = matrix
    lower, upper = bounds
    h = _highs(highspy)
    h.setOptionValue("presolve", "off")  # measured: 100x100 mutilated 0.25 s without, 0.45 s with
    if not vertex:
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.01, float(time_limit)))
    lp = highspy.HighsLp()
    lp.num_col_ = int(cost.size)
    lp.num_row_ = int(start.size - 1)
    lp.col_cost_ = cost
    lp.col_lower_ = lower
    lp.col_upper_ = upper
    lp.row_lower_ = np.full(lp.num_row_, -highspy.kHighsInf)
    lp.row_upper_ = np.zeros(lp.num_row_)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    with native_output():
        h.passModel(lp)
        h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return 1, None, None
    return 0, float(h.getInfo().objective_function_value), np.array(h.getSolution().col_value)


def _integral(values: np.ndarray, denominator: int) -> list[int] | None:
    """The values as integers over a common denominator (each the nearest
    fraction with a denominator dividing it), divided by their gcd."""
    scaled = np.rint(values * denominator).astype(np.int64)
    if np.abs(values * denominator - scaled).max(initial=0) > 1e-6 * denominator:
        # not a multiple of 1/denominator: rationalise value by value
        fracs = [Fraction(float(v)).limit_denominator(denominator) for v in values]
        lcm = math.lcm(*(f.denominator for f in fracs)) if fracs else 1
        ints = [int(f * lcm) for f in fracs]
    else:
        ints = scaled.tolist()
    g = math.gcd(*ints) if ints else 0
    return [x // g for x in ints] if g > 1 else ints


def _lp_optimum(matrix, cost, bounds, vertex: bool):
    """:func:`_solve_lp` here or, when large, in a child, under the current deadline."""
    remaining = deadline().remaining()
    if _in_process(matrix[1].size):
        answer = _solve_lp(matrix, cost, bounds, remaining, vertex)
        deadline().check()
        return answer
    return call_in_child(_solve_lp, matrix, cost, bounds, remaining, vertex, what="the LP (HiGHS)")


def _rounded_certificate(instance: Instance, x: np.ndarray, extra: list) -> Certificate | None:
    """The LP's solution as small integers that :func:`check_certificate` accepts, or None."""
    board = instance.board
    names = [r.name for r in instance.rules]
    for denominator in DENOMINATORS:
        ints = _integral(x, denominator)
        weights = {cell: w for cell, w in zip(board.cells(board.open_cells), ints) if w}
        rules: dict[str, int] = {}
        for (k, sign, _, _), v in zip(extra, ints[board.area:]):
            if v:
                rules[names[k]] = rules.get(names[k], 0) + sign * v
        rules = {k: v for k, v in rules.items() if v}
        cert = Certificate(weights, rules, 0)
        try:
            cert = Certificate(weights, rules, _required_total(instance, cert))
            check_certificate(instance, cert)
        except CertificateError:
            continue
        return cert
    return None


def lp_certificate(instance: Instance, placements: Placements) -> Certificate | None:
    """A checked weighted certificate that the instance has no tiling, or
    None when the LP relaxation is feasible (or no integer rounding of its
    answer checks).  Honours the current deadline and Ctrl-C.

    Interior point first (its value says whether there is anything to
    find); where its point on the optimal face rounds to no certificate
    that checks, the simplex's vertex."""
    t0 = time.perf_counter()
    matrix, cost, bounds, extra = _lp_matrix(placements)
    for vertex, method in ((False, "interior point"), (True, "interior point, then simplex")):
        status, value, x = _lp_optimum(matrix, cost, bounds, vertex)
        if status != 0 or value is None or value <= 1e-7:
            return None
        t1 = time.perf_counter()
        cert = _rounded_certificate(instance, x, extra)
        if cert is not None:
            stats = {"lp_seconds": round(t1 - t0, 6), "lp_value": round(value, 6), "lp_method": method,
                     "check_seconds": round(time.perf_counter() - t1, 6)}
            return Certificate(cert.weights, cert.rules, cert.total, None, stats)
    return None


# -- modular certificates ---------------------------------------------------------

def _nullvector(B: np.ndarray, target: np.ndarray, p: int) -> np.ndarray | None:
    """A z with B z = 0 and target . z != 0 (mod p), or None (then target is
    in B's row space)."""
    B = B.copy() % p
    rows, cols = B.shape
    pivots = []
    r = 0
    for col in range(cols):
        if r == rows:
            break
        nz = np.flatnonzero(B[r:, col])
        if nz.size == 0:
            continue
        k = r + nz[0]
        if k != r:
            B[[r, k]] = B[[k, r]]
        B[r] = (B[r] * pow(int(B[r, col]), -1, p)) % p
        others = np.flatnonzero(B[:, col])
        others = others[others != r]
        if others.size:
            B[others] = (B[others] - np.outer(B[others, col], B[r])) % p
        pivots.append(col)
        r += 1
    pivot_set = set(pivots)
    for free in range(cols):
        if free in pivot_set:
            continue
        z = np.zeros(cols, dtype=np.int64)
        z[free] = 1
        for i, col in enumerate(pivots):
            z[col] = (-B[i, free]) % p
        if int(target @ z) % p:
            return z
    return None


def modular_certificate(instance: Instance, placements: Placements) -> Certificate | None:
    """A checked modular certificate (weights mod a small prime), or None."""
    board = instance.board
    if board.area > MODULAR_MAX_CELLS or not 0 < len(placements) <= MODULAR_MAX_PLACEMENTS:
        return None
    used = [k for k, r in enumerate(instance.rules) if r.max > 0]
    sizes = {instance.rules[k].piece.size for k in used}
    column = np.full(board.ncells, -1, dtype=np.int64)
    column[board.open_cells] = np.arange(board.area)
    n, P = board.area, len(placements)
    # multiplier columns: one shared by all rules (pieces of one size: their number is fixed),
    # else one per rule with a fixed count
    if len(sizes) == 1 and board.area % next(iter(sizes)) == 0:
        groups = [(used, board.area // next(iter(sizes)))]
    else:
        groups = [([k], instance.rules[k].min) for k in used if instance.rules[k].min == instance.rules[k].max]
    B = np.zeros((P, n + len(groups)), dtype=np.int64)
    rows = np.repeat(np.arange(P), np.diff(placements.indptr))
    np.add.at(B, (rows, column[placements.cells]), 1)
    target = np.concatenate([np.ones(n, dtype=np.int64), np.array([cnt for _, cnt in groups], dtype=np.int64)])
    for j, (ks, _) in enumerate(groups):
        B[np.isin(placements.rule, ks), n + j] = 1
    for p in MODULAR_PRIMES:
        deadline().check()
        z = _nullvector(B, target, p)
        if z is None:
            continue
        weights = {cell: int(w) for cell, w in zip(board.cells(board.open_cells), z[:n].tolist()) if w}
        rules = {}
        for (ks, _), mu in zip(groups, z[n:].tolist()):
            for k in ks:
                if mu:
                    rules[instance.rules[k].name] = int(mu)
        cert = Certificate(weights, rules, int(target @ z) % p, p)
        try:
            check_certificate(instance, cert)
        except CertificateError:
            continue
        return cert
    return None


# -- the quick check before a search ------------------------------------------------

#: The LP is skipped on boards where at least this share of the open cells
#: can be covered only one way (clues).
FORCED_SHARE = 0.02
#: ... and above this many placement-cell incidences (a 300x300 board has 0.54 million).
MAX_NONZEROS = 5_000_000


def lp_gate(placements: Placements) -> tuple[bool, str]:
    """(run, why): whether the LP check is worth running before this search.

    Skipped when 2% or more of the open cells have a single candidate
    placement: boards with clues (the L-Panel puzzles: 4-25%) are decided by
    unit propagation in a few milliseconds, less than the LP takes (on
    check-unique of the L-Panel boards it would cost 50-150%).  Boards
    without such cells (the mutilated chessboard) are where CDCL needs
    exponentially long and the LP answers in one step."""
    board = placements.instance.board
    if not placements.instance.plain:
        return False, NOT_PLAIN
    if len(placements) == 0:
        return False, "there are no placements"
    nonzeros = int(placements.cells.size)
    if nonzeros > MAX_NONZEROS:
        return False, f"the LP would have {nonzeros:,} nonzeros (more than {MAX_NONZEROS:,})"
    coverage = placements.coverage()[board.open_cells]
    forced = int((coverage == 1).sum())
    if forced >= FORCED_SHARE * board.area:
        return False, (f"{forced} of {board.area} open cells can be covered only one way: "
                       "unit propagation decides such boards faster than the LP")
    return True, ("few open cells are forced: the search runs first for as long as the LP is expected to take "
                  f"({lp_estimate(placements):.2f} s), then the LP if it has not finished")


#: The LP's cost when it proves "no tiling", fitted to this machine's
#: measurements (mutilated 100x100: 0.25 s for 40,000 placement-cell
#: incidences; 300x300: 7.5 s for 540,000): seconds = A * (incidences / 40,000) ** B.
#: A feasible LP takes longer (L-trominoes 64x64: 1.7 s for 48,000).
LP_SECONDS_AT_40K, LP_EXPONENT, LP_SECONDS_MIN = 0.25, 1.3, 0.02


def lp_estimate(placements: Placements) -> float:
    """Seconds the LP is expected to take when it finds a certificate."""
    return max(LP_SECONDS_MIN, LP_SECONDS_AT_40K * (placements.cells.size / 40_000) ** LP_EXPONENT)


def quick_check(instance: Instance, placements: Placements, gated: bool = True) -> Certificate | None:
    """The certificate check: the LP (when :func:`lp_gate` says so, or
    always when not ``gated``), then modular colourings on small boards."""
    if gated and not lp_gate(placements)[0]:
        return None
    if len(placements) == 0:
        return None
    cert = lp_certificate(instance, placements)
    if cert is None:
        cert = modular_certificate(instance, placements)
    return cert



# -- the LP bound for packings ------------------------------------------------------

def _solve_pack_lp(matrix, cost, row_bounds, time_limit):
    """HiGHS's optimum of max cost.x, row_lower <= A x <= row_upper,
    0 <= x <= 1 (A column-wise), as (status, value, row duals, column
    duals).  A dual is >= 0 where an upper bound holds its row or column,
    <= 0 where a lower bound does."""
    try:
        import highspy
    except ImportError:  # OR-Tools' HiGHS is loaded: scipy's
        import scipy.sparse as sp

        start, index = matrix
        lower, upper = row_bounds
        A = sp.csc_matrix((np.ones(index.size), index, start), shape=(lower.size, cost.size)).tocsr()
        finite_hi, finite_lo = np.isfinite(upper), lower > 0
        A_ub = sp.vstack([A[finite_hi], -A[finite_lo]])
        b_ub = np.concatenate([upper[finite_hi], -lower[finite_lo]])
        res = _scipy_lp(cost, A_ub, b_ub, None, None, (0, 1), time_limit)
        if res.status == 2:
            return "infeasible", None, None, None
        if res.status != 0:
            return "unknown", None, None, None
        # scipy minimises -cost: its marginals are <= 0, the multipliers of "A_ub x <= b_ub" are their negations
        marginals = np.asarray(res.ineqlin.marginals)
        duals = np.zeros(lower.size)
        hi = int(finite_hi.sum())
        duals[finite_hi] -= marginals[:hi]
        duals[finite_lo] += marginals[hi:]
        return "optimal", -float(res.fun), duals, -np.asarray(res.upper.marginals)

    start, index = matrix
    lower, upper = row_bounds
    h = _highs(highspy)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.01, float(time_limit)))
    lp = highspy.HighsLp()
    lp.num_col_ = int(cost.size)
    lp.num_row_ = int(lower.size)
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(cost.size)
    lp.col_upper_ = np.ones(cost.size)  # implied by the cells' rows, but measured: HiGHS is up to 2x faster with it
    lp.row_lower_ = lower
    lp.row_upper_ = upper
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = np.ones(index.size)
    with native_output():
        h.passModel(lp)
        h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return "infeasible", None, None, None
    if status != highspy.HighsModelStatus.kOptimal:
        return "unknown", None, None, None
    solution = h.getSolution()
    return "optimal", float(h.getInfo().objective_function_value), np.array(solution.row_dual), np.array(solution.col_dual)


@dataclass(frozen=True)
class PackLP:
    """The packing LP's answer: ``bound`` is its optimum rounded down (a
    packing's value is an integer); ``duals`` its row duals (open cells in
    board order, then the bounded rules in the instance's order)."""

    bound: int
    value: float
    duals: np.ndarray


def solve_pack_lp(placements: Placements, objective: str) -> PackLP | None:
    """The LP relaxation "each open cell covered at most once, piece counts
    kept, each placement used a fraction of a time" (between 0 and 1),
    maximising pieces or covered cells.  None when
    it was not solved (too large, infeasible, or stopped by the time limit)."""
    instance = placements.instance
    board = instance.board
    if len(placements) == 0 or placements.cells.size > MAX_NONZEROS:
        return None
    column = np.full(board.ncells, -1, dtype=np.int64)
    column[board.open_cells] = np.arange(board.area)
    n, P = board.area, len(placements)
    bounded = [k for k, r in enumerate(instance.rules) if r.bounded]
    rule_row = np.full(len(instance.rules), -1, dtype=np.int64)
    rule_row[bounded] = n + np.arange(len(bounded))
    sizes = np.diff(placements.indptr)
    has_row = rule_row[placements.rule] >= 0
    per_col = sizes + has_row
    start = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(per_col, out=start[1:])
    index = np.empty(int(start[-1]), dtype=np.int64)
    offset = np.repeat(start[:-1] - placements.indptr[:-1], sizes) + np.arange(placements.cells.size)
    index[offset] = column[placements.cells]
    index[start[1:][has_row] - 1] = rule_row[placements.rule[has_row]]
    rules = [instance.rules[k] for k in bounded]
    lower = np.concatenate([np.zeros(n), np.array([r.min for r in rules], dtype=float)])
    upper = np.concatenate([np.ones(n), np.array([float(r.max) if r.max != INF else np.inf for r in rules])])
    cost = sizes.astype(float) if objective == "cells" else np.ones(P)
    args = ((start, index), cost, (lower, upper), deadline().remaining())
    if _in_process(index.size):
        status, value, duals, col_duals = _solve_pack_lp(*args)
    else:
        status, value, duals, col_duals = call_in_child(_solve_pack_lp, *args, what="the LP (HiGHS)")
    if status != "optimal":
        return None
    # A placement's "at most once" dual z > 0 moves onto its first cell: every
    # placement over that cell gains z, and the dual's total is the same.
    z = np.clip(col_duals, 0, None)
    held = np.flatnonzero(z > 0)
    duals = duals.copy()
    np.add.at(duals, column[placements.cells[placements.indptr[held]]], z[held])
    return PackLP(math.floor(value + 1e-6), value, duals)  # HiGHS's optimality tolerance is 1e-7


def lp_pack_bound(placements: Placements, objective: str) -> int | None:
    """An upper bound on the best packing's value (pieces, or covered cells):
    the packing LP's optimum rounded down; None when it was not solved."""
    lp = solve_pack_lp(placements, objective)
    return lp.bound if lp is not None else None


# -- certificates of packing bounds (LP duality) --------------------------------------

@dataclass(frozen=True)
class BoundCertificate:
    """An upper bound on every packing's value, checkable with additions.

    Weights ``{(row, col): w}`` (w >= 0, zeros left out) on open cells and
    multipliers ``{piece name: mu}`` (any sign) on piece rules, over a
    common ``denominator`` D >= 1, such that every placement's cells'
    weights plus its piece's multiplier add up to at least D times its value
    (1 for ``pieces``, its number of cells for ``cells``).  Summed over the
    tiles of a packing, which covers each cell at most once and uses n_k
    pieces of rule k: D x value <= the covered cells' weights + sum mu_k n_k
    <= ``total`` = the open cells' weights + each multiplier times the count
    that bounds it (the maximum for mu > 0, the minimum for mu < 0).  So no
    packing is worth more than floor(total / D).  A dual solution of the
    packing LP, scaled to integers."""

    weights: dict
    rules: dict
    denominator: int
    total: int

    @property
    def bound(self) -> int:
        return self.total // self.denominator

    def to_json(self) -> dict:
        return {
            "weights": _weights_json(self.weights),
            "rules": dict(sorted(self.rules.items())),
            "denominator": self.denominator,
            "total": self.total,
        }

    @classmethod
    def from_json(cls, data) -> "BoundCertificate":
        """Read strictly: any deviation from the format is a :class:`CertificateError`."""
        if not isinstance(data, dict):
            raise CertificateError("the bound certificate is not a JSON object")
        if set(data) != {"weights", "rules", "denominator", "total"}:
            raise CertificateError("the bound certificate must have the fields weights, rules, denominator, total; "
                                   f"it has {sorted(data)}")
        base = Certificate.from_json({k: data[k] for k in ("weights", "rules", "total")})
        if not (_is_int(data["denominator"]) and data["denominator"] >= 1):
            raise CertificateError(f"the bound certificate's denominator {str(data['denominator'])[:20]} is not a positive integer")
        return cls(base.weights, base.rules, data["denominator"], base.total)

    def sentence(self, objective: str) -> str:
        value = "its number of cells" if objective == "cells" else "1"
        counts = " with the piece counts" if self.rules else ""
        return (f"every placement covers weight >= {self.denominator} x {value}, the open cells{counts} weigh "
                f"{self.total}: no packing is worth more than {self.total}/{self.denominator}, so {self.bound}")


def _bound_total(instance: Instance, cert: BoundCertificate) -> int:
    """The certificate's total, recomputed: open cells' weights plus each
    rule's multiplier times the count that bounds it."""
    rules = {r.name: r for r in instance.rules}
    unknown = sorted(set(cert.rules) - set(rules))
    if unknown:
        raise CertificateError(f"the certificate has a multiplier for {unknown[0]!r}, which the instance does not use")
    total = sum(cert.weights.values())
    for name, mu in cert.rules.items():
        rule = rules[name]
        if mu > 0:
            if rule.max == INF:
                raise CertificateError(f"piece {name} has a positive multiplier but no maximum count")
            total += mu * int(rule.max)
        elif mu < 0:
            total += mu * rule.min
    return total


def check_bound_certificate(instance: Instance, cert: BoundCertificate, objective: str) -> int:
    """The bound floor(total / denominator) the certificate proves, or
    :class:`CertificateError` saying in one line why it proves nothing.
    Like :func:`check_certificate`: every allowed orientation at every
    position, in exact integer arithmetic, without the LP or the placement
    generator."""
    if objective not in ("pieces", "cells"):
        raise CertificateError(f"unknown objective {objective!r}")
    board = instance.board
    D = cert.denominator
    if not (_is_int(D) and D >= 1):
        raise CertificateError(f"the denominator {D} is not a positive integer")
    negative = sorted(cell for cell, w in cert.weights.items() if w < 0)
    if negative:
        raise CertificateError(f"cell {_cell_text(negative[0])} has the negative weight {cert.weights[negative[0]]}")
    total = _bound_total(instance, cert)
    if total != cert.total:
        raise CertificateError(f"the certificate's total is {cert.total}, but its weights and multipliers add up to {total}")
    grid = _weight_grid(instance, cert, margin=D)  # the weights are >= 0 (checked above)
    for rule, value, fits, tile in _placement_values(instance, grid, cert.rules):
        need = D * (rule.piece.size if objective == "cells" else 1)
        bad = fits & (value < need)
        if bad.any():
            anchor, cells = _first_placement(bad, tile)
            raise CertificateError(f"the {rule.name} on {cells} covers weight {value[anchor]} < {need}")
    return total // D


def bound_certificate(instance: Instance, objective: str, lp: PackLP, target: int) -> BoundCertificate | None:
    """The packing LP's duals as a checked :class:`BoundCertificate` proving
    no packing is worth more than ``target``, or None when no integer
    scaling of them checks (then the caller proves it otherwise)."""
    board = instance.board
    n = board.area
    y = np.clip(lp.duals[:n], 0, None)
    bounded = [r.name for r in instance.rules if r.bounded]
    mus = lp.duals[n:]
    cells = board.cells(board.open_cells)

    def attempt(Y, M, D):
        g = math.gcd(D, *Y, *M)
        weights = {cell: w // g for cell, w in zip(cells, Y) if w}
        rules = {name: m // g for name, m in zip(bounded, M) if m}
        cert = BoundCertificate(weights, rules, D // g, 0)
        try:
            cert = BoundCertificate(weights, rules, D // g, _bound_total(instance, cert))
            if check_bound_certificate(instance, cert, objective) == target:
                return cert
        except CertificateError:
            pass
        return None

    # a vertex's duals are fractions with small denominators: rounding finds them exactly
    for D in DENOMINATORS:
        cert = attempt(np.rint(y * D).astype(np.int64).tolist(), np.rint(mus * D).astype(np.int64).tolist(), D)
        if cert is not None:
            return cert
    # else round up, with a margin for HiGHS's tolerance (1e-7), and keep it if the floor is unchanged
    D = 10**7
    Y = (np.ceil(y * D) + 10).astype(np.int64).tolist()
    M = np.ceil(mus * D).astype(np.int64).tolist()
    return attempt(Y, M, D)


