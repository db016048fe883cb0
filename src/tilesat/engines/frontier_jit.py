"""The compiled step of :mod:`tilesat.engines.frontier` (numba; imported on first use).

Why compiled: the pure-Python dict version (``frontier.count_python``) takes
0.79 s on Project Euler 161 and 27 s on the 6x10 pentominoes (4096 count
codes x 24-bit windows); this step takes 0.08 s and 2.3 s (docs/benchmarks/
counting.md).  A state is one int64
key ``code << (W + 1) | mask`` in an open-addressing hash table (linear
probing) rebuilt at each cell; counts are rows of int64 limbs of 62 bits
(the caller adds a limb before the top one could overflow).
"""

import numba
import numpy as np

_GOLDEN = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit integer



@numba.njit(cache=True)
def _insert(tkeys, tvals, tmask, key, vals, row):
    h = key * _GOLDEN  # wraps modulo 2**64, as intended
    h = (h ^ (h >> 32)) & tmask
    while True:
        k = tkeys[h]
        if k == -1:
            tkeys[h] = key
            for j in range(tvals.shape[1]):
                tvals[h, j] = vals[row, j]
            return 1
        if k == key:
            carry = 0
            for j in range(tvals.shape[1]):
                s = tvals[h, j] + vals[row, j] + carry
                carry = s >> 62
                tvals[h, j] = s & 0x3FFFFFFFFFFFFFFF
            return 0
        h = (h + 1) & tmask

@numba.njit(cache=True)
def _popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@numba.njit(cache=True)
def step(keys, vals, n, masks, rules, copies, shift, stride, offset, field, cap, saturate, need, room, use_need,
         use_room, left):
    """Advance the n states (keys, vals) past one cell; returns the new
    (keys, vals, n).  Option j covers ``masks[j]`` and uses ``copies[j]``
    pieces of rule ``rules[j]`` (more than 1 in a Burnside quotient)."""
    limbs = vals.shape[1]
    size = 1024
    while size < 2 * n + 2:
        size *= 2
    tkeys = np.full(size, -1, np.int64)
    tvals = np.empty((size, limbs), np.int64)
    tmask = size - 1
    used = 0
    low = (np.int64(1) << shift) - 1
    for s in range(n):
        key = keys[s]
        mask = key & low
        code = key >> shift
        if mask & 1:
            used += _insert(tkeys, tvals, tmask, (code << shift) | (mask >> 1), vals, s)
        else:
            for j in range(masks.size):
                m = masks[j]
                if m & mask:
                    continue
                k = rules[j]
                c = code
                if stride[k] != 0:
                    d = (code >> offset[k]) & field[k]
                    nd = d + copies[j]
                    if nd > cap[k]:
                        if not saturate[k]:
                            continue  # beyond the maximum
                        nd = cap[k]  # counted up to the minimum only
                    c += (nd - d) * stride[k]
                nm = (mask | m) >> 1
                if use_need:
                    uncovered = left - _popcount(nm)
                    if uncovered < need[c] or (use_room and uncovered > room[c]):
                        continue
                used += _insert(tkeys, tvals, tmask, (c << shift) | nm, vals, s)
        if 2 * used > size:
            # grow: rehash into a table twice the size
            size *= 2
            nkeys = np.full(size, -1, np.int64)
            nvals = np.empty((size, limbs), np.int64)
            tmask = size - 1
            for h in range(tkeys.size):
                if tkeys[h] != -1:
                    _insert(nkeys, nvals, tmask, tkeys[h], tvals, h)
            tkeys, tvals = nkeys, nvals
    out_keys = np.empty(used, np.int64)
    out_vals = np.empty((used, limbs), np.int64)
    t = 0
    for h in range(tkeys.size):
        if tkeys[h] != -1:
            out_keys[t] = tkeys[h]
            for j in range(limbs):
                out_vals[t, j] = tvals[h, j]
            t += 1
    return out_keys, out_vals, used

