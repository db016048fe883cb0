"""The compiled loop of :mod:`tilesat.engines.prune` (numba; imported on first use)."""

import numba
import numpy as np


@numba.njit(cache=True)
def dead_placements(indptr, cells, cell_indptr, cell_ids, ncells):
    """(alive, lost): which placements survive one step of look-ahead, to a
    fixpoint, and an open cell left without candidates (-1: none).

    For each placement p in a work queue: count, for every cell c outside p,
    how many live candidates of c overlap p; p dies when that is all of them.
    When p dies, every live placement overlapping a candidate of one of p's
    cells is checked again (its count for that cell may now be complete)."""
    P = indptr.size - 1
    alive = np.ones(P, dtype=np.bool_)
    degree = np.zeros(ncells, dtype=np.int64)
    for c in range(ncells):
        degree[c] = cell_indptr[c + 1] - cell_indptr[c]
    seen_by = np.full(P, -1, dtype=np.int64)  # placement q already counted for p
    inside = np.full(ncells, -1, dtype=np.int64)  # cell is one of p's
    count = np.zeros(ncells, dtype=np.int64)
    touched = np.empty(ncells, dtype=np.int64)
    queued = np.ones(P, dtype=np.bool_)
    queue = np.arange(P, dtype=np.int64)  # a ring of P slots: each placement queued at most once
    head, tail, size = 0, 0, P
    lost = -1
    while size > 0 and lost < 0:
        p = queue[head]
        head = (head + 1) % P
        size -= 1
        queued[p] = False
        if not alive[p]:
            continue
        for k in range(indptr[p], indptr[p + 1]):
            inside[cells[k]] = p
        ntouched = 0
        for k in range(indptr[p], indptr[p + 1]):
            x = cells[k]
            for j in range(cell_indptr[x], cell_indptr[x + 1]):
                q = cell_ids[j]
                if not alive[q] or seen_by[q] == p:
                    continue
                seen_by[q] = p
                for kk in range(indptr[q], indptr[q + 1]):
                    c = cells[kk]
                    if inside[c] == p:
                        continue
                    if count[c] == 0:
                        touched[ntouched] = c
                        ntouched += 1
                    count[c] += 1
        dies = False
        for i in range(ntouched):
            c = touched[i]
            if count[c] == degree[c]:
                dies = True
            count[c] = 0
        if not dies:
            continue
        alive[p] = False
        for k in range(indptr[p], indptr[p + 1]):
            x = cells[k]
            degree[x] -= 1
            if degree[x] == 0:
                lost = x
        for k in range(indptr[p], indptr[p + 1]):
            x = cells[k]
            for j in range(cell_indptr[x], cell_indptr[x + 1]):
                q = cell_ids[j]
                if not alive[q]:
                    continue
                for kk in range(indptr[q], indptr[q + 1]):
                    y = cells[kk]
                    for jj in range(cell_indptr[y], cell_indptr[y + 1]):
                        r = cell_ids[jj]
                        if alive[r] and not queued[r]:
                            queued[r] = True
                            queue[tail] = r
                            tail = (tail + 1) % P
                            size += 1
    return alive, lost
