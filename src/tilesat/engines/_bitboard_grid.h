/* The search on a grid held in one machine word: included by _bitboard.c once
 * per word type, with WORD (the type), BITS (its width) and SUF(name) (the
 * names of this copy) defined.  Every cell of the grid is a bit (blocked cells
 * set from the start), so a region grows by shifts.  See _bitboard.c. */

static inline int SUF(lowest)(WORD x)
{
#if BITS == 64
    return __builtin_ctzll(x);
#else
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
#endif
}

static inline i64 SUF(popcount)(WORD x)
{
#if BITS == 64
    return __builtin_popcountll(x);
#else
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
#endif
}

/* The grid's geometry: lines of L cells, M lines, wraps, the masks of the
 * first and last cells of the lines, every cell. */
typedef struct {
    WORD full, first, last;
    int L, M, wrap_line, wrap_across;
} SUF(Geometry);

static inline WORD SUF(spread)(WORD x, const SUF(Geometry) *g)
{
    WORD out = x | ((x << 1) & ~g->first) | ((x >> 1) & ~g->last);
    if (g->wrap_line)
        out |= ((x & g->last) >> (g->L - 1)) | ((x & g->first) << (g->L - 1));
    if (g->M > 1) {
        out |= ((x << g->L) & g->full) | (x >> g->L);
        if (g->wrap_across) {
            int across = g->L * (g->M - 1);
            out |= (x >> across) | ((x << across) & g->full);
        }
    }
    return out & g->full;
}

/* The empty region holding ``seed``, or 0 when it still grows after ``cap``
 * steps (big: not judged, which only prunes less). */
static inline WORD SUF(grow)(WORD seed, WORD empty, const SUF(Geometry) *g, i64 cap)
{
    WORD region = seed;
    for (i64 step = 0; step < cap; step++) {
        WORD grown = SUF(spread)(region, g) & empty;
        if (grown == region)
            return region;
        region = grown;
    }
    return 0;
}

/* Whether the empty region of the next cell to fill cannot be filled by the
 * pieces left: its area is not a multiple of the gcd of their sizes, or is
 * smaller than the smallest, or has room for one piece only and no piece of
 * its shape is left. */
static inline int SUF(bad_region)(const Board *b, const Search *s, WORD covered, const SUF(Geometry) *g)
{
    i64 gcd = b->uniform, smallest = b->uniform;
    if (!gcd) {
        smallest = (i64)1 << 40;
        for (i32 k = 0; k < b->nrules; k++)
            if (s->rem[k] > 0) {
                gcd = gcd_i64(gcd, b->rsize[k]);
                if (b->rsize[k] < smallest)
                    smallest = b->rsize[k];
            }
        if (gcd == 0)
            return 1;  /* cells left and no piece left */
    }
    if (gcd <= 1 && smallest <= 1)
        return 0;
    WORD empty = ~covered & g->full;
    if (smallest > 1) {  /* an empty cell with no empty neighbour, anywhere: one shift-spread of the empty cells */
        WORD x = empty, nbr = ((x << 1) & ~g->first) | ((x >> 1) & ~g->last);
        if (g->wrap_line)
            nbr |= ((x & g->last) >> (g->L - 1)) | ((x & g->first) << (g->L - 1));
        if (g->M > 1) {
            nbr |= (x << g->L) | (x >> g->L);
            if (g->wrap_across) {
                int across = g->L * (g->M - 1);
                nbr |= (x >> across) | (x << across);
            }
        }
        if (empty & ~nbr)
            return 1;
    }
    WORD region = SUF(grow)(empty & (covered + 1), empty, g, s->cap);
    if (!region)
        return 0;
    i64 area = SUF(popcount)(region);
    if (area % gcd != 0 || area < smallest)
        return 1;
    if (area < 2 * smallest) {
        const WORD *mask = (const WORD *)b->mask;
        int c0 = SUF(lowest)(region);
        for (i64 j = b->cand_ptr[c0]; j < b->cand_ptr[c0 + 1]; j++) {
            i32 q = b->cand[j];
            if (mask[q] == region && s->rem[b->prule[q]] > 0)
                return 0;
        }
        return 1;
    }
    return 0;
}

static inline WORD SUF(load)(const uint64_t *words)
{
#if BITS == 64
    return words[0];
#else
    return ((WORD)words[1] << 64) | words[0];
#endif
}

static inline void SUF(store)(uint64_t *words, WORD x)
{
#if BITS == 64
    words[0] = x;
#else
    words[0] = (uint64_t)x;
    words[1] = (uint64_t)(x >> 64);
#endif
}

static inline void SUF(geometry)(const Board *b, SUF(Geometry) *g)
{
    g->full = b->n == BITS ? ~(WORD)0 : (((WORD)1 << b->n) - 1);
    g->first = SUF(load)(b->first_cells);
    g->last = SUF(load)(b->last_cells);
    g->L = b->L;
    g->M = b->M;
    g->wrap_line = b->wrap_line;
    g->wrap_across = b->wrap_across;
}

/* The candidate list of the first empty cell: by the cell and the state of
 * the ``window`` cells after it. */
static inline i64 SUF(list_of)(const Board *b, WORD covered, WORD full)
{
    int c = SUF(lowest)(~covered & full);
    WORD wmask = ((WORD)1 << b->window) - 1;
    return ((i64)c << b->window) + (i64)((covered >> c >> 1) & wmask);
}

/* Run (or resume) the search until it ends, ``max_nodes`` nodes have been
 * entered, or (``record`` > 0) that many tilings have been recorded; returns
 * the tilings found by this call. */
static i64 SUF(run)(Search *s, i64 max_nodes, i64 record)
{
    const Board *b = s->b;
    if (s->done)
        return 0;
    SUF(Geometry) g;
    SUF(geometry)(b, &g);
    const WORD *mask = (const WORD *)b->mask;
    const i32 *prule = b->prule, *wcand = b->wcand, *wskip = b->wskip;
    const i64 *psize = b->psize, *rmin = b->rmin, *wptr = b->wptr;
    const uint8_t *banned = s->banned;
    i64 *rem = s->rem, *used = s->used;
    i64 *cell_at = s->cell_at, *idx_at = s->idx_at, *chosen = s->chosen;
    const int regions = s->regions;
    WORD covered = SUF(load)(s->cov);
    i64 need = s->need, left = s->left, room = s->room;
    i64 found = 0, nodes = 0;
    if (!s->started) {
        s->started = 1;
        if (covered == g.full) {  /* the forced placements cover everything */
            s->done = 1;
            if (need == 0) {
                if (record)
                    record_tiling(s, 0);
                return 1;
            }
            return 0;
        }
        s->depth = 0;
        cell_at[0] = SUF(list_of)(b, covered, g.full);
        idx_at[0] = wptr[cell_at[0]];
    }
    i64 d = s->depth;
    for (;;) {
        i64 i = idx_at[d];
        const i64 end = wptr[cell_at[d] + 1];
        int descended = 0;
        while (i < end) {
            const i32 p = wcand[i];
            const i32 k = prule[p];
            if (rem[k] == 0) {
                i = wskip[i];  /* the rest of this piece's placements in the list */
                continue;
            }
            i++;
            const WORD m = mask[p];
            if ((covered & m) || (banned && banned[p]))
                continue;
            const i64 size = psize[p];
            const i64 new_need = used[k] < rmin[k] ? need - size : need;
            const i64 new_left = left - size;
            if (new_need > new_left || room - size < new_left)
                continue;
            covered |= m;
            rem[k]--;
            used[k]++;
            if (regions && new_left > 0 && SUF(bad_region)(b, s, covered, &g)) {
                covered ^= m;
                rem[k]++;
                used[k]--;
                continue;
            }
            chosen[d] = p;
            if (new_left == 0) {  /* every cell covered, every minimum met: a tiling */
                if (record)
                    record_tiling(s, d + 1);
                found++;
                covered ^= m;
                rem[k]++;
                used[k]--;
                if (record && found == record) {
                    idx_at[d] = i;
                    s->depth = d;
                    s->need = need, s->left = left, s->room = room;
                    SUF(store)(s->cov, covered);
                    s->nodes += nodes;
                    return found;
                }
                continue;
            }
            idx_at[d] = i;
            nodes++;
            need = new_need, left = new_left, room -= size;
            d++;
            cell_at[d] = SUF(list_of)(b, covered, g.full);
            idx_at[d] = wptr[cell_at[d]];
            descended = 1;
            break;
        }
        if (descended) {
            if (nodes >= max_nodes) {  /* paused at the start of level d */
                s->depth = d;
                s->need = need, s->left = left, s->room = room;
                SUF(store)(s->cov, covered);
                s->nodes += nodes;
                return found;
            }
            continue;
        }
        if (d == 0) {
            s->done = 1;
            s->depth = 0;
            SUF(store)(s->cov, covered);
            s->nodes += nodes;
            return found;
        }
        d--;
        const i32 p = chosen[d];
        const i32 k = prule[p];
        covered ^= mask[p];
        rem[k]++;
        used[k]--;
        const i64 size = psize[p];
        if (used[k] < rmin[k])
            need += size;
        left += size;
        room += size;
    }
}

/* Knuth's estimate of the search tree below the current root: one random
 * path, each level's viable children counted and one taken at random.
 * Adds the nodes and tilings this path stands for to ``est``. */
static void SUF(probe)(Search *s, uint64_t *rng, double est[2])
{
    const Board *b = s->b;
    SUF(Geometry) g;
    SUF(geometry)(b, &g);
    const WORD *mask = (const WORD *)b->mask;
    i64 *rem = s->rem, *used = s->used;
    WORD covered = SUF(load)(s->cov);
    i64 need = s->need, left = s->left, room = s->room;
    i32 *viable = s->scratch;
    i32 path[s->b->max_depth + 1];
    int depth = 0;
    double weight = 1.0;
    if (s->done)
        return;
    if (covered == g.full) {
        est[1] += need == 0;
        return;
    }
    for (;;) {
        i64 ls = SUF(list_of)(b, covered, g.full);
        int nv = 0, tilings = 0;
        for (i64 i = b->wptr[ls]; i < b->wptr[ls + 1]; i++) {
            const i32 p = b->wcand[i];
            const i32 k = b->prule[p];
            if (rem[k] == 0 || (covered & mask[p]) || (s->banned && s->banned[p]))
                continue;
            const i64 size = b->psize[p];
            const i64 new_need = used[k] < b->rmin[k] ? need - size : need;
            const i64 new_left = left - size;
            if (new_need > new_left || room - size < new_left)
                continue;
            if (new_left == 0) {
                tilings++;
                continue;
            }
            rem[k]--;
            used[k]++;
            int bad = s->regions && SUF(bad_region)(b, s, covered | mask[p], &g);
            rem[k]++;
            used[k]--;
            if (!bad)
                viable[nv++] = p;
        }
        est[1] += weight * tilings;
        if (nv == 0)
            break;
        weight *= nv;
        est[0] += weight;
        const i32 p = viable[xorshift(rng) % (uint64_t)nv];
        const i32 k = b->prule[p];
        const i64 size = b->psize[p];
        if (used[k] < b->rmin[k])
            need -= size;
        covered |= mask[p];
        rem[k]--;
        used[k]++;
        left -= size;
        room -= size;
        path[depth++] = p;
    }
    while (depth > 0) {  /* back to the root */
        const i32 p = path[--depth];
        const i32 k = b->prule[p];
        rem[k]++;
        used[k]--;
    }
}
