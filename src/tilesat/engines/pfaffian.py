"""Domino tilings of planar boards as a determinant (Kasteleyn 1961).

The domino tilings of a board are the perfect matchings of the graph whose
vertices are the open cells and whose edges are the domino placements.  That
graph is planar and bipartite (cells coloured by ``(r + c) % 2``), so with
suitable signs on its edges the number of perfect matchings is ``|det K|``,
``K`` the black-by-white signed biadjacency matrix: no search at all.

The signs (why they are right, for boards with any holes)
---------------------------------------------------------
Expand ``det K`` over permutations: two matchings M1, M2 differ on disjoint
alternating cycles, and the terms of M1 and M2 have the same sign exactly when
every such cycle C, of length 2k, has ``prod(signs on C) = (-1)**(k + 1)``.

1. On the full square lattice take horizontal edges ``+1`` and the vertical
   edge from (r, c) to (r+1, c) ``(-1)**c``.  A unit square then has product
   -1 = (-1)**(2+1), and gluing squares along shared paths gives, for every
   simple lattice cycle C of length 2k enclosing ``n`` lattice points,
   ``prod = (-1)**(k + 1 + n)``.
2. A blocked cell p = (r, c) is a lattice point that is not a vertex.  Draw a
   ray from p half a cell right, then straight up (the line x = c + 1/2): it
   meets no vertex and crosses exactly the horizontal edges (r', c)-(r', c+1)
   with r' < r.  Flip the sign of every edge it crosses: a cycle's product
   flips once per crossing, i.e. an odd number of times exactly when p is
   inside the cycle.  After the flips for every blocked cell,
   ``prod(C) = (-1)**(k + 1 + (open cells strictly inside C))``.  (Points
   outside the board are inside no cycle and need no ray.)
3. An alternating cycle of M1 and M2 encloses only open cells that M1 matches
   among themselves (a matching edge cannot cross the cycle, and the cycle's
   own cells are matched along it), so that number is even and the condition
   of the first paragraph holds for every pair of matchings.

So the horizontal edge (r, c)-(r, c+1) gets ``(-1)**(blocked cells below it
in column c)`` and the vertical edge (r, c)-(r+1, c) gets ``(-1)**c``.  The
plain weighting (no flips) is wrong as soon as a hole encloses an odd number
of cells that another hole balances: tests/test_pfaffian.py keeps a board
where it fails.  The argument uses only that the graph is a subgraph of the
lattice, so fixed orientations (only horizontal dominoes) and several domino
rules (parallel edges: entries add up) are covered too.

Exact arithmetic: ``det K`` modulo several primes below 2**26 (products fit
exactly in float64) by banded Gaussian elimination with partial pivoting, then the
Chinese remainder theorem; Hadamard's bound on ``|det K|`` says how many
primes suffice.  Cells are numbered along the narrower side of the board, so
the matrix is banded with width about ``min(rows, cols) / 2``: elimination
costs ``n * w**2`` per prime instead of ``n**3``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..errors import TilesatError
from ..model.instance import Instance
from ..model.placements import Placements, generate_placements
from ..running.stdout_guard import native_output

DOMINO_SHAPES = {((0, 0), (0, 1)), ((0, 0), (1, 0))}


def _is_domino(rule) -> bool:
    return tuple(rule.piece.cells) in DOMINO_SHAPES


def problem(instance: Instance) -> str | None:
    """Why this engine cannot count this instance (one short sentence), or None when it can."""
    if not instance.board.is_square:
        return f"square boards only (this board is on the {instance.board.grid} grid)"
    from .base import cover_only

    if (why := cover_only(instance, "the Pfaffian method")) is not None:
        return why
    board = instance.board
    if board.wrap != "none":
        return f"the board wraps ({board.wrap}): Kasteleyn's determinant counts planar boards only"
    for rule in instance.rules:
        if not _is_domino(rule):
            return f"{rule.name} is not a domino: the Pfaffian method counts domino tilings only"
    if len(instance.rules) > 1 and any(rule.bounded for rule in instance.rules):
        return "several domino rules with piece counts: the determinant cannot tell the rules apart"
    return None


def count(instance: Instance, placements: Placements | None = None) -> int:
    """The exact number of tilings (Python int: counts exceed 2**63)."""
    why = problem(instance)
    if why is not None:
        raise TilesatError(f"pfaffian: {why}")
    board = instance.board
    area = board.area
    if area % 2:
        return 0
    if len(instance.rules) == 1:
        # one rule: every tiling uses area / 2 dominoes, so its count range is all-or-nothing
        rule = instance.rules[0]
        if not rule.min <= area // 2 <= rule.max:
            return 0
    if area == 0:
        return 1  # the empty tiling
    if placements is None:
        placements = generate_placements(instance)
    return count_matchings(board.open, _edges(placements))


def _edges(placements: Placements) -> np.ndarray:
    """The placements' cell pairs (a, b), a < b, as an (E, 2) int64 array."""
    if len(placements) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = placements.cells.astype(np.int64).reshape(-1, 2)  # dominoes: two sorted cells each
    return pairs


def kasteleyn_signs(open_grid: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The sign (+1/-1) of each edge (a, b), a < b, of the open cells' grid graph
    (the rule of the module docstring)."""
    rows, cols = open_grid.shape
    a = edges[:, 0]
    r, c = a // cols, a % cols
    horizontal = edges[:, 1] == a + 1
    # blocked cells strictly below (r, c) in column c: a suffix count per column
    blocked = (~open_grid).astype(np.int64)
    below = np.zeros((rows + 1, cols), dtype=np.int64)
    below[:-1] = np.cumsum(blocked[::-1], axis=0)[::-1]  # below[r] = blocked in rows >= r
    flips = np.where(horizontal, below[r + 1, c], c)
    return np.where(flips % 2 == 0, 1, -1).astype(np.int64)


def count_matchings(open_grid: np.ndarray, edges: np.ndarray) -> int:
    """Perfect matchings of the open cells of ``open_grid`` (a planar grid, no
    wrap) using the edges ``(a, b)`` (flat cell indices, a < b, adjacent
    cells; an edge given twice counts twice)."""
    open_grid = np.asarray(open_grid, dtype=bool)
    rows, cols = open_grid.shape
    cells = np.flatnonzero(open_grid.ravel())
    if cells.size == 0:
        return 1
    if cells.size % 2:
        return 0
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    signs = kasteleyn_signs(open_grid, edges)
    # black = the even cell of each edge; number cells along the narrower side
    # (column-major on a wide board) so that K is banded with width ~ min(rows, cols) / 2
    r, c = cells // cols, cells % cols
    order_key = c * rows + r if cols > rows else cells
    black_of = ((edges[:, 0] // cols + edges[:, 0] % cols) % 2 == 0)
    b_cell = np.where(black_of, edges[:, 0], edges[:, 1])
    w_cell = np.where(black_of, edges[:, 1], edges[:, 0])
    # components of the graph: the count is the product over them
    index = np.full(rows * cols, -1, dtype=np.int64)
    index[cells] = np.arange(cells.size)
    comp = _components(cells.size, index[edges[:, 0]], index[edges[:, 1]])
    is_black = (r + c) % 2 == 0
    ncomp = int(comp.max()) + 1
    blacks = np.bincount(comp[is_black], minlength=ncomp)
    whites = np.bincount(comp[~is_black], minlength=ncomp)
    if (blacks != whites).any():
        return 0  # some component has more cells of one colour (an isolated cell among them)
    # rank of each cell among the cells of its colour in its component, in order_key order
    rank = np.empty(cells.size, dtype=np.int64)
    for colour in (is_black, ~is_black):
        idx = np.flatnonzero(colour)
        idx = idx[np.lexsort((order_key[idx], comp[idx]))]
        start = np.zeros(ncomp + 1, dtype=np.int64)
        np.cumsum(np.bincount(comp[idx], minlength=ncomp), out=start[1:])
        rank[idx] = np.arange(idx.size) - start[comp[idx]]
    bi, wi = rank[index[b_cell]], rank[index[w_cell]]
    ecomp = comp[index[b_cell]]
    total = 1
    by_comp = np.argsort(ecomp, kind="stable")
    bounds = np.searchsorted(ecomp[by_comp], np.arange(ncomp + 1))
    for k in range(ncomp):
        sel = by_comp[bounds[k] : bounds[k + 1]]
        det = _abs_det(int(blacks[k]), bi[sel], wi[sel], signs[sel])
        if det == 0:
            return 0
        total *= det
    return total


def _components(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Component labels 0..m-1 of the graph on n vertices with edges (u, v)."""
    parent = _union_find(n, u, v)
    _, labels = np.unique(parent, return_inverse=True)
    return labels.astype(np.int64)


@numba.njit(cache=True)
def _union_find(n, u, v):
    # numba: 3600 cells x 7000 edges in Python loops would cost ~10 ms of the 12x12 budget
    parent = np.arange(n)
    for e in range(u.size):
        a, b = u[e], v[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
    for i in range(n):
        root = i
        while parent[root] != root:
            root = parent[root]
        parent[i] = root
    return parent


# --- exact |det| of a sparse banded integer matrix ----------------------------

_PRIMES: list[int] = []


def _is_prime(n: int) -> bool:
    if n % 2 == 0:
        return n == 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return False
        f += 2
    return True


def _primes(k: int) -> np.ndarray:
    """The k largest primes below 2**26 (cached; see _det_mod_primes for the size)."""
    candidate = _PRIMES[-1] - 2 if _PRIMES else 2**26 - 1
    while len(_PRIMES) < k:
        if _is_prime(candidate):
            _PRIMES.append(candidate)
        candidate -= 2
    return np.array(_PRIMES[:k], dtype=np.int64)


def _abs_det(n: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> int:
    """|det| of the n x n integer matrix with entries values at (rows, cols)
    (repeated positions add up)."""
    key = rows * n + cols
    key, inverse = np.unique(key, return_inverse=True)
    vals = np.bincount(inverse, weights=values, minlength=key.size).astype(np.int64)
    keep = vals != 0
    key, vals = key[keep], vals[keep]
    rows, cols = key // n, key % n
    if np.bincount(rows, minlength=n).min(initial=1) == 0 or np.bincount(cols, minlength=n).min(initial=1) == 0:
        return 0  # an empty row or column
    # Hadamard: |det| <= prod of row norms (or of column norms); need primes whose product exceeds 2 |det|
    sq = vals.astype(np.float64) ** 2
    bits = min(
        0.5 * np.log2(np.bincount(rows, weights=sq, minlength=n)).sum(),
        0.5 * np.log2(np.bincount(cols, weights=sq, minlength=n)).sum(),
    )
    nprimes = int(math.ceil((bits + 2) / 25)) + 1  # each prime exceeds 2**25; one spare for rounding
    primes = _primes(nprimes)
    lower = int(max(0, (rows - cols).max()))
    upper = int(max(0, (cols - rows).max()))
    residues = _det_mod_primes(n, lower, upper, rows, cols, vals, primes)
    # Chinese remainder theorem, then the symmetric residue
    value, modulus = 0, 1
    for res, p in zip(residues.tolist(), primes.tolist()):
        t = ((res - value) * pow(modulus, -1, p)) % p
        value += modulus * t
        modulus *= p
    if value > modulus // 2:
        value -= modulus
    return abs(value)


@numba.njit(cache=True)
def _det_mod_primes(n, kl, ku, rows, cols, vals, primes):
    # numba: a 40x40 board (n = 800, 35 primes) is ~35 * 800 * 20 * 40 = 22M
    # modular multiply-adds: minutes in Python loops, 0.08 s compiled.
    # LAPACK-style band storage (as dgbtrf): A[i, j] = band[j, i - j + kl + ku],
    # so the update of column j runs down contiguous memory; partial pivoting
    # fills at most kl more diagonals above.  Residues are kept as float64 with
    # p < 2**26: a product is below 2**52, exact, and x mod p is
    # x - p * floor(x / p) in a few vectorisable instructions instead of an
    # integer division (3.3x faster than int64 % p on 60x60: 0.51 s vs 1.67 s).
    width = 2 * kl + ku + 1
    out = np.zeros(primes.size, dtype=np.int64)
    band = np.zeros((n, width), dtype=np.float64)
    f = np.zeros(kl + 1, dtype=np.float64)
    diag = kl + ku
    for t in range(primes.size):
        p = primes[t]
        pf = float(p)
        pinv = 1.0 / pf
        band[:, :] = 0.0
        for e in range(rows.size):
            band[cols[e], rows[e] - cols[e] + diag] = vals[e] % p
        det = 1
        for k in range(n):
            last_row = min(n - 1, k + kl)
            last_col = min(n - 1, k + kl + ku)
            below = diag - k  # A[i, k] = band[k, i + below]
            piv = -1
            for i in range(k, last_row + 1):
                if band[k, i + below] != 0.0:
                    piv = i
                    break
            if piv < 0:
                det = 0
                break
            if piv != k:
                for j in range(k, last_col + 1):
                    a = band[j, k - j + diag]
                    band[j, k - j + diag] = band[j, piv - j + diag]
                    band[j, piv - j + diag] = a
                det = p - det if det != 0 else 0
            pivot = int(band[k, diag])
            det = det * pivot % p
            inv = _inverse_mod(pivot, p)
            m = last_row - k
            for s in range(m):  # the multipliers A[i, k] / A[k, k], i = k+1..last_row
                f[s] = _reduce(band[k, k + 1 + s + below] * inv, pf, pinv)
            for j in range(k + 1, last_col + 1):
                y = band[j, k - j + diag]  # A[k, j]
                if y == 0.0:
                    continue
                top = k + 1 - j + diag  # A[k+1, j]
                for s in range(m):
                    band[j, top + s] = _reduce(band[j, top + s] - f[s] * y, pf, pinv)
        out[t] = det
    return out


@numba.njit(cache=True, inline="always")
def _reduce(x, pf, pinv):
    # x (an integer-valued float, |x| < 2**52) mod p in [0, p): floor(x / p) is
    # off by at most one, so one correction each way suffices
    r = x - pf * np.floor(x * pinv)
    if r < 0.0:
        r += pf
    elif r >= pf:
        r -= pf
    return r


@numba.njit(cache=True)
def _inverse_mod(a, p):
    # Fermat: a ** (p - 2) mod p, p prime below 2**31 (products fit in int64)
    result = 1
    base = a % p
    e = p - 2
    while e > 0:
        if e & 1:
            result = result * base % p
        base = base * base % p
        e >>= 1
    return result


def warm_up() -> None:
    """Compile (or load from numba's cache) the numba code: call before forking
    so that children inherit it."""
    with native_output():
        count_matchings(np.ones((2, 2), dtype=bool), np.array([[0, 1], [2, 3], [0, 2], [1, 3]]))
