/* Exact cover with piece counts and optional cells: the compiled counting engine.
 *
 * Items are cells and shapes.  A cell must be covered exactly once (a fixed
 * cell) or at most once (an optional cell); shape s must be used between
 * lo[s] and hi[s] times.  An option (a placement) covers some cells and uses
 * its shape once.  Once placements are built the grid no longer matters.
 *
 * Before the search, the live options of every item are a sparse set
 * ("dancing cells"): a segment of node ids whose first len[i] are live;
 * killing an option swaps each of its nodes behind its item's live prefix,
 * and reviving the options in reverse order only lengthens the prefixes
 * again.  In the search, each node may keep its live options as a list (its
 * parent's, filtered over the options' column bitsets) with len[i] only
 * counting them: where pieces are large, a choice kills hundreds of options,
 * and moving each in every list it is on costs more than the filter.  Where
 * a choice kills few of the many live options (small pieces on a large
 * board), the filter costs more, and the search kills in the sparse sets.
 *
 * Branching (each node partitions the completions below it):
 *   - a fixed cell: which option covers it (the cell with the fewest live options);
 *   - a shape still short of lo[s] (when it has fewer live options than any cell):
 *     which is the smallest-numbered option of s still to come; in that branch
 *     the smaller ones of s are killed;
 *   - when every fixed cell is covered and every minimum met, a shape with room
 *     left: either no more of it, or the smallest-numbered one still to come.
 * A node where nothing is left to decide is one assembly.
 *
 * Symmetry: the first branch may be restricted to a set R of options of one
 * item every assembly holds exactly once (the pivot: a fixed cell or a shape
 * used exactly once), one per orbit, and an assembly found is counted only if
 * no valid image under the checked group elements that also has its pivot in
 * R is smaller (sorted option ids, lexicographically): among the members of
 * an orbit the search finds, exactly the smallest is counted.
 *
 * The search is an explicit stack, so it pauses (a batch of assemblies, a
 * deadline, Ctrl-C, stop()) and resumes where it stopped; ``path`` forces the
 * branch taken at the first levels, which makes independent units.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "structmember.h"
#include <stdint.h>
#include <string.h>
#include <time.h>
static double now(void);
static void *zalloc(size_t n, size_t item); /* NULL with MemoryError set */

typedef int32_t i32;

enum { K_CELL = 0, K_SHAPE = 1, K_OPTIONAL = 2 };
#define NO_MORE (-1)
#define CHECK_EVERY 4096

typedef struct {
    i32 kind, item;      /* what this level branches on */
    i32 b0, b1, next;    /* its branches: bbuf[b0..b1), the next to try */
    i32 trail_mark, act_mark;
    i32 l0, l1;          /* the live options at this node: lbuf[l0..l1), ascending */
    i32 chosen;          /* the option of the branch now applied, or -1 */
    i32 applied;         /* a branch is applied */
} Level;

typedef struct {
    PyObject_HEAD
    /* the problem */
    i32 n_cells, n_cols, n_shapes, n_opts, n_items, nnz;
    i32 *opt_ptr, *opt_item, *node_opt, *opt_shape;
    uint8_t *fixed;              /* per cell: 1 must be covered, 0 optional */
    i32 *cell_col, *col_w;       /* cells with the same options are one column of col_w cells */
    uint8_t *col_fixed;
    i32 *lo, *hi, *vmin, *vmax;  /* per shape: bounds, smallest and largest option */
    i32 max_holes;               /* -1: any number of optional cells may stay empty */
    /* sparse sets */
    i32 *start, *len, *set, *where;
    /* state */
    i32 *used, *owner, *act, *act_pos, n_act, act_w, free_optional; /* owner: per column */
    i32 *mark, *hit, *seen, stamp;  /* scratch of the dead-option tests: per item, per item, per option */
    uint64_t *obits;                /* while dropping dead options: each option's columns as a bitset */
    i32 words, *witness;
    i32 *optcols, n_optcols;        /* the optional columns */
    int64_t req_vol, cap_vol;    /* volume the minima still need; volume the maxima still allow */
    int cap_finite;
    i32 *trail, trail_len;
    uint64_t *cbits;             /* in the search: each option's columns as a bitset of cwords words */
    i32 cwords, *lbuf;           /* the live options of every level on the path */
    size_t lbuf_len, lbuf_cap;
    i32 *len_sets, *snap;        /* len: the sets' own array, or in the search each level's counts */
    int sets;                    /* the search kills options in the sparse sets (many options) */
    size_t snap_cap;
    Level *lv;
    i32 depth, max_depth;
    i32 *bbuf, bbuf_len, bbuf_cap;
    i32 *opt_list;               /* scratch */
    /* symmetry */
    i32 pivot, n_pivot, *pivot_opts;
    uint8_t *in_r;
    i32 n_checks, *perm, *src, *sigma;
    uint8_t *count_check;
    i32 *sol, *img;
    /* units */
    i32 *path, path_len;
    int probing;                 /* branches() is walking a path: levels in canonical order */
    /* results */
    unsigned long long count, found, nodes;
    i32 dropped;
    i32 *sols, n_sols, sols_cap;
    int finished, at_leaf, started;
    volatile int stop_flag;
} Search;

/* --- sparse sets ------------------------------------------------------ */

static inline void kill_option(Search *s, i32 p) {
    for (i32 n = s->opt_ptr[p]; n < s->opt_ptr[p + 1]; n++) {
        i32 i = s->opt_item[n];
        i32 pos = s->where[n];
        i32 last = s->start[i] + s->len[i] - 1;
        i32 m = s->set[last];
        s->set[pos] = m;
        s->where[m] = pos;
        s->set[last] = n;
        s->where[n] = last;
        s->len[i]--;
    }
    s->trail[s->trail_len++] = p;
}

static inline void revive_to(Search *s, i32 mark) {
    i32 *restrict len = s->len;
    const i32 *restrict item = s->opt_item, *restrict ptr = s->opt_ptr, *restrict trail = s->trail;
    for (i32 t = s->trail_len - 1; t >= mark; t--) {
        i32 p = trail[t];
        for (i32 n = ptr[p], end = ptr[p + 1]; n < end; n++)
            len[item[n]]++;
    }
    s->trail_len = mark < s->trail_len ? mark : s->trail_len;
}

static inline void kill_all(Search *s, i32 item) {
    while (s->len[item] > 0)
        kill_option(s, s->node_opt[s->set[s->start[item]]]);
}

/* kill the live options of a shape numbered below p */
static inline void kill_below(Search *s, i32 item, i32 p) {
    i32 j = 0;
    while (j < s->len[item]) {
        i32 q = s->node_opt[s->set[s->start[item] + j]];
        if (q < p)
            kill_option(s, q);
        else
            j++;
    }
}

/* --- choosing an option ------------------------------------------------ */

static void choose(Search *s, i32 p) {
    i32 sh = s->opt_shape[p];
    i32 end = s->opt_ptr[p + 1] - 1; /* the last node is the shape's */
    for (i32 n = s->opt_ptr[p]; n < end; n++) {
        i32 c = s->opt_item[n];
        if (s->sets)
            kill_all(s, c);
        s->owner[c] = p;
        if (s->col_fixed[c]) {
            i32 pos = s->act_pos[c], last = s->n_act - 1, d = s->act[last];
            s->act[pos] = d;
            s->act_pos[d] = pos;
            s->act[last] = c;
            s->act_pos[c] = last;
            s->n_act--;
            s->act_w -= s->col_w[c];
        } else {
            s->free_optional -= s->col_w[c];
        }
    }
    if (s->used[sh] < s->lo[sh])
        s->req_vol -= s->vmin[sh];
    s->cap_vol -= s->vmax[sh];
    s->used[sh]++;
    if (s->sets && s->used[sh] >= s->hi[sh])
        kill_all(s, s->n_cols + sh);
}

static void unchoose(Search *s, i32 p) {
    i32 sh = s->opt_shape[p];
    i32 end = s->opt_ptr[p + 1] - 1;
    for (i32 n = s->opt_ptr[p]; n < end; n++) {
        i32 c = s->opt_item[n];
        s->owner[c] = -1;
        if (s->col_fixed[c])
            s->act_w += s->col_w[c];
        else
            s->free_optional += s->col_w[c];
    }
    s->used[sh]--;
    s->cap_vol += s->vmax[sh];
    if (s->used[sh] < s->lo[sh])
        s->req_vol += s->vmin[sh];
}

/* an option leaves the search below this node: its items count it no more
 * (revive_to counts it again) */
static inline void drop_option(Search *s, i32 q) {
    i32 *restrict len = s->len;
    const i32 *restrict item = s->opt_item;
    for (i32 n = s->opt_ptr[q], end = s->opt_ptr[q + 1]; n < end; n++)
        len[item[n]]--;
    s->trail[s->trail_len++] = q;
}

/* The live options below branch b of node L: those of L that meet neither b's
 * columns nor a shape with no room left (and, for a shape's branch, none of
 * its options numbered below b; for NO_MORE, none of it), in order.  A filter
 * over the options' column bitsets, since in the sparse sets every option
 * killed would be moved in each of its items' lists. */
static int live_below(Search *s, Level *L, i32 b) {
    size_t need = s->lbuf_len + (size_t)(L->l1 - L->l0);
    if (need > s->lbuf_cap) {
        size_t cap = need * 2 + 1024;
        i32 *nb = PyMem_RawRealloc(s->lbuf, cap * sizeof(i32));
        if (!nb)
            return -1;
        s->lbuf = nb;
        s->lbuf_cap = cap;
    }
    i32 W = s->cwords, words[64], nw = 0;
    uint64_t bw[64], *bb = NULL;
    i32 sh = -1, full = 0, below = -1;
    if (b >= 0) {
        bb = s->cbits + (size_t)b * W;
        for (i32 w = 0; w < W && nw >= 0; w++)
            if (bb[w]) {
                if (nw == 64) {
                    nw = -1; /* spread over many words: test them all */
                    break;
                }
                words[nw] = w;
                bw[nw++] = bb[w];
            }
        sh = s->opt_shape[b];
        full = s->used[sh] + 1 >= s->hi[sh];
    }
    i32 item_shape = L->kind == K_CELL ? -1 : L->item - s->n_cols;
    if (L->kind != K_CELL)
        below = b == NO_MORE ? INT32_MAX : b;
    i32 *out = s->lbuf + s->lbuf_len, k = 0;
    const i32 *in = s->lbuf + L->l0;
    for (i32 j = 0, m = L->l1 - L->l0; j < m; j++) {
        i32 q = in[j], t = s->opt_shape[q];
        int dead = (t == item_shape && q < below) || (t == sh && full) || q == b;
        if (!dead && nw) {
            const uint64_t *bq = s->cbits + (size_t)q * W;
            uint64_t hit = 0;
            if (nw > 0)
                for (i32 w = 0; w < nw; w++)
                    hit |= bq[words[w]] & bw[w];
            else
                for (i32 w = 0; w < W; w++)
                    hit |= bq[w] & bb[w];
            dead = hit != 0;
        }
        if (dead)
            drop_option(s, q);
        else
            out[k++] = q;
    }
    Level *next = L + 1;
    next->l0 = (i32)s->lbuf_len;
    next->l1 = next->l0 + k;
    return 0;
}

/* Where there are few items (snap_items, 4096 by default), each level keeps
 * its own counts: a copy of its parent's, cheaper than counting the killed
 * options back in on the way up. */

static int apply_branch(Search *s, Level *L, i32 b) {
    L->trail_mark = s->trail_len;
    L->act_mark = s->n_act;
    L->chosen = -1;
    L->applied = 1;
    if (s->sets) {
        /* the sparse sets' way (many options): kill what the branch excludes */
        if (L->kind != K_CELL) {
            if (b == NO_MORE) {
                kill_all(s, L->item);
                return 0;
            }
            kill_below(s, L->item, b);
        }
        choose(s, b);
        L->chosen = b;
        return 0;
    }
    s->lbuf_len = (size_t)L->l1;
    if (s->snap) {
        size_t n = (size_t)s->n_items, d = (size_t)(L - s->lv);
        if ((d + 2) * n > s->snap_cap) {
            size_t cap = (d + 2) * n * 2;
            i32 *ns = PyMem_RawRealloc(s->snap, cap * sizeof(i32));
            if (!ns)
                return -1;
            s->snap = ns;
            s->snap_cap = cap;
        }
        memcpy(s->snap + (d + 1) * n, s->snap + d * n, n * sizeof(i32));
        s->len = s->snap + (d + 1) * n;
    }
    if (live_below(s, L, b) < 0)
        return -1;
    if (b != NO_MORE) {
        choose(s, b);
        L->chosen = b;
    }
    return 0;
}

static void undo_branch(Search *s, Level *L) {
    if (s->snap) {
        s->len = s->snap + (size_t)(L - s->lv) * (size_t)s->n_items;
        s->trail_len = L->trail_mark;
    } else {
        revive_to(s, L->trail_mark);
    }
    s->n_act = L->act_mark;
    if (L->chosen >= 0)
        unchoose(s, L->chosen);
    L->chosen = -1;
    L->applied = 0;
}

/* --- branching ----------------------------------------------------------- */

static int push_branch(Search *s, i32 b) {
    if (s->bbuf_len >= s->bbuf_cap) {
        i32 cap = s->bbuf_cap * 2 + 64;
        i32 *nb = PyMem_RawRealloc(s->bbuf, (size_t)cap * sizeof(i32));
        if (!nb)
            return -1;
        s->bbuf = nb;
        s->bbuf_cap = cap;
    }
    s->bbuf[s->bbuf_len++] = b;
    return 0;
}

/* Decide the node at level L: returns 1 to branch (L filled in), 0 for an
 * assembly, -1 for a dead end, -2 when out of memory. */
static void sort_ids(i32 *a, i32 n);

static int decide(Search *s, Level *L) {
    /* The levels a unit's path names are decided in a canonical order (the
     * item: fewest options, then lowest number; its branches by option
     * number), since the sparse sets' order depends on the runs before. */
    int canon = s->depth < s->path_len || s->probing;
    /* volume: what the minima need must fit, what the cells need must be allowed */
    /* optional cells nothing can cover any more stay empty */
    i32 dead = 0;
    for (i32 j = 0; j < s->n_optcols; j++) {
        i32 c = s->optcols[j];
        if (s->owner[c] < 0 && s->len[c] == 0)
            dead += s->col_w[c];
    }
    if (s->req_vol > (int64_t)s->act_w + s->free_optional - dead)
        return -1;
    if (s->cap_finite && s->cap_vol < s->act_w)
        return -1;
    if (s->max_holes >= 0 && dead > s->max_holes)
        return -1;
    i32 best = INT32_MAX, item = -1, kind = K_CELL;
    if (s->depth == 0 && s->pivot >= 0) {
        item = s->pivot;
        kind = item < s->n_cols ? K_CELL : K_SHAPE;
        best = -1;
    } else {
        for (i32 j = 0; j < s->n_act; j++) {
            i32 c = s->act[j], l = s->len[c];
            if (l < best || (canon && l == best && c < item)) {
                best = l;
                item = c;
                if (l <= 1 && !canon)
                    break;
            }
        }
        if (best == 0)
            return -1;
        for (i32 sh = 0; sh < s->n_shapes; sh++) {
            i32 need = s->lo[sh] - s->used[sh];
            if (need <= 0)
                continue;
            i32 l = s->len[s->n_cols + sh];
            if (l < need)
                return -1;
            if (l < best) {
                best = l;
                item = s->n_cols + sh;
                kind = K_SHAPE;
            }
        }
        if (item < 0) {
            /* every fixed cell covered, every minimum met: more copies into optional cells? */
            for (i32 sh = 0; sh < s->n_shapes; sh++)
                if (s->len[s->n_cols + sh] > 0) {
                    item = s->n_cols + sh;
                    kind = K_OPTIONAL;
                    break;
                }
            if (item < 0)
                return 0;
        }
    }
    L->kind = kind;
    L->item = item;
    L->b0 = s->bbuf_len;
    if (s->depth == 0 && s->pivot >= 0) {
        for (i32 j = 0; j < s->n_pivot; j++) {
            i32 p = s->pivot_opts[j];
            if (s->opt_ptr[p] < s->opt_ptr[p + 1] && push_branch(s, p) < 0) /* dropped options have no nodes */
                return -2;
        }
    } else {
        if (kind == K_OPTIONAL && push_branch(s, NO_MORE) < 0)
            return -2;
        /* the live options on the item, in order */
        const i32 *live = s->lbuf + L->l0;
        i32 m = L->l1 - L->l0;
        if (s->sets) {
            for (i32 j = 0; j < s->len[item]; j++)
                if (push_branch(s, s->node_opt[s->set[s->start[item] + j]]) < 0)
                    return -2;
        } else if (kind == K_CELL) {
            i32 w = item >> 6;
            uint64_t bit = (uint64_t)1 << (item & 63);
            for (i32 j = 0; j < m; j++)
                if (s->cbits[(size_t)live[j] * s->cwords + w] & bit && push_branch(s, live[j]) < 0)
                    return -2;
        } else {
            i32 sh = item - s->n_cols;
            for (i32 j = 0; j < m; j++)
                if (s->opt_shape[live[j]] == sh && push_branch(s, live[j]) < 0)
                    return -2;
        }
    }
    L->b1 = s->bbuf_len;
    L->next = L->b0;
    if (canon && !(s->depth == 0 && s->pivot >= 0))
        sort_ids(s->bbuf + L->b0, L->b1 - L->b0); /* NO_MORE (-1) stays first */
    if (s->depth < s->path_len) {
        i32 k = s->path[s->depth];
        if (k < 0 || k >= L->b1 - L->b0) {
            L->next = L->b1; /* no such branch: an empty unit */
        } else {
            L->next = L->b0 + k;
            L->b1 = L->next + 1;
        }
    }
    return 1;
}

static inline int option_live(Search *s, i32 p) {
    i32 n0 = s->opt_ptr[p];
    if (n0 == s->opt_ptr[p + 1])
        return 0;
    i32 item = s->opt_item[n0];
    return s->where[n0] < s->start[item] + s->len[item];
}

/* --- dead options ---------------------------------------------------------- */

/* Would choosing option p leave a fixed column, or a shape's minimum, without
 * options, or the volumes unable to meet?  Each column is asked for one live
 * option that does not meet p (its last such witness first), over the
 * options' column bitsets; nothing changes. */
static inline int meets(const uint64_t *a, const uint64_t *b, i32 words) {
    for (i32 w = 0; w < words; w++)
        if (a[w] & b[w])
            return 1;
    return 0;
}

static int doomed(Search *s, i32 p) {
    i32 W = s->words, sh = s->opt_shape[p];
    const uint64_t *bp = s->obits + (size_t)p * W;
    i32 end = s->opt_ptr[p + 1] - 1;
    int64_t act_w = s->act_w, free_opt = s->free_optional;
    for (i32 n = s->opt_ptr[p]; n < end; n++) {
        i32 d = s->opt_item[n];
        if (s->col_fixed[d])
            act_w -= s->col_w[d];
        else
            free_opt -= s->col_w[d];
    }
    int64_t req = s->req_vol - (s->used[sh] < s->lo[sh] ? s->vmin[sh] : 0);
    int64_t cap = s->cap_vol - s->vmax[sh];
    if (req > act_w + free_opt || (s->cap_finite && cap < act_w))
        return 1;
    int full = s->used[sh] + 1 >= s->hi[sh];
    for (i32 j = 0; j < s->n_act; j++) {
        i32 e = s->act[j];
        if (bp[e >> 6] >> (e & 63) & 1)
            continue; /* p covers it */
        i32 q = s->witness[e];
        if (q >= 0 && q != p && option_live(s, q) && !(full && s->opt_shape[q] == sh) &&
            !meets(bp, s->obits + (size_t)q * W, W))
            continue;
        i32 found = 0;
        for (i32 k = 0; k < s->len[e]; k++) {
            q = s->node_opt[s->set[s->start[e] + k]];
            if (q == p || (full && s->opt_shape[q] == sh) || meets(bp, s->obits + (size_t)q * W, W))
                continue;
            s->witness[e] = q;
            found = 1;
            break;
        }
        if (!found)
            return 1;
    }
    for (i32 t = 0; t < s->n_shapes; t++) {
        i32 need = s->lo[t] - s->used[t] - (t == sh);
        if (need <= 0 || (t == sh && full))
            continue;
        i32 item = s->n_cols + t, have = 0;
        for (i32 k = 0; k < s->len[item] && have < need; k++) {
            i32 q = s->node_opt[s->set[s->start[item] + k]];
            if (q != p && !meets(bp, s->obits + (size_t)q * W, W))
                have++;
        }
        if (have < need)
            return 1;
    }
    return 0;
}

/* Every option of an item that must be covered (a fixed column, or a shape
 * used at least once) covers column e: then the options on e that are not
 * the item's are in no assembly.  Returns how many died. */
static i32 drop_dominated(Search *s) {
    i32 dropped = 0;
    for (i32 c = 0; c < s->n_items; c++) {
        if ((c < s->n_cols ? !s->col_fixed[c] : s->lo[c - s->n_cols] < 1) || s->len[c] == 0)
            continue;
        i32 stamp = ++s->stamp, l = s->len[c];
        for (i32 j = 0; j < l; j++) {
            i32 q = s->node_opt[s->set[s->start[c] + j]];
            for (i32 m = s->opt_ptr[q]; m < s->opt_ptr[q + 1] - 1; m++) {
                i32 e = s->opt_item[m];
                if (s->mark[e] != stamp) {
                    s->mark[e] = stamp;
                    s->hit[e] = 0;
                }
                s->hit[e]++;
            }
        }
        /* the columns every option of c covers (those of its first option with a full count) */
        i32 q0 = s->node_opt[s->set[s->start[c]]];
        for (i32 m = s->opt_ptr[q0]; m < s->opt_ptr[q0 + 1] - 1; m++) {
            i32 e = s->opt_item[m];
            if (e == c || s->hit[e] != l || s->len[e] == l)
                continue;
            i32 stamp2 = ++s->stamp;
            for (i32 j = 0; j < s->len[c]; j++)
                s->seen[s->node_opt[s->set[s->start[c] + j]]] = stamp2;
            i32 j = 0;
            while (j < s->len[e]) {
                i32 q = s->node_opt[s->set[s->start[e] + j]];
                if (s->seen[q] != stamp2) {
                    kill_option(s, q);
                    dropped++;
                } else {
                    j++;
                }
            }
            s->trail_len = 0;
        }
    }
    return dropped;
}

/* Kill for good the options that no assembly holds; repeat until none is
 * left (an option in no assembly changes no count). */
static i32 drop_dead(Search *s) {
    i32 dropped = 0;
    s->words = (s->n_cols + 63) / 64;
    s->obits = zalloc((size_t)s->n_opts * s->words, 8);
    s->witness = zalloc((size_t)s->n_cols, 4);
    if (!s->obits || !s->witness)
        return -1;
    for (i32 c = 0; c < s->n_cols; c++)
        s->witness[c] = -1;
    for (i32 q = 0; q < s->n_opts; q++)
        for (i32 m = s->opt_ptr[q]; m < s->opt_ptr[q + 1] - 1; m++) {
            i32 e = s->opt_item[m];
            s->obits[(size_t)q * s->words + (e >> 6)] |= (uint64_t)1 << (e & 63);
        }
    for (;;) {
        i32 d = drop_dominated(s);
        dropped += d;
        i32 live = 0, killed = 0;
        for (i32 p = 0; p < s->n_opts; p++) {
            if (!option_live(s, p))
                continue;
            live++;
            if (!doomed(s, p))
                continue;
            kill_option(s, p);
            s->trail_len = 0;
            killed++;
        }
        dropped += killed;
        /* another look pays while the last one killed a good share */
        if (!d && killed * 10 <= live)
            break;
    }
    PyMem_RawFree(s->obits);
    PyMem_RawFree(s->witness);
    s->obits = NULL;
    s->witness = NULL;
    return dropped;
}

/* --- building ------------------------------------------------------------ */

/* the sparse sets of the items (columns, then shapes) from opt_item */
static void build_sets(Search *s) {
    s->n_items = s->n_cols + s->n_shapes;
    memset(s->start, 0, ((size_t)s->n_items + 1) * sizeof(i32));
    memset(s->len, 0, (size_t)s->n_items * sizeof(i32));
    for (i32 n = 0; n < s->nnz; n++)
        s->start[s->opt_item[n] + 1]++;
    for (i32 i = 0; i < s->n_items; i++)
        s->start[i + 1] += s->start[i];
    for (i32 n = 0; n < s->nnz; n++) {
        i32 i = s->opt_item[n], pos = s->start[i] + s->len[i]++;
        s->set[pos] = n;
        s->where[n] = pos;
    }
}

/* the root: nothing chosen */
static void init_state(Search *s) {
    s->n_optcols = 0;
    for (i32 c = 0; c < s->n_cols; c++)
        if (!s->col_fixed[c])
            s->optcols[s->n_optcols++] = c;
    s->n_act = 0;
    s->act_w = 0;
    s->free_optional = 0;
    for (i32 c = 0; c < s->n_cols; c++) {
        s->owner[c] = -1;
        if (s->col_fixed[c]) {
            s->act_pos[c] = s->n_act;
            s->act[s->n_act++] = c;
            s->act_w += s->col_w[c];
        } else {
            s->free_optional += s->col_w[c];
        }
    }
    memset(s->used, 0, (size_t)s->n_shapes * sizeof(i32));
    s->req_vol = 0;
    s->cap_vol = 0;
    s->cap_finite = 1;
    for (i32 sh = 0; sh < s->n_shapes; sh++) {
        s->req_vol += (int64_t)s->lo[sh] * s->vmin[sh];
        /* a bound above the options' number is no bound */
        if (s->hi[sh] > s->n_opts)
            s->cap_finite = 0;
        else
            s->cap_vol += (int64_t)s->hi[sh] * s->vmax[sh];
    }
    if (!s->cap_finite)
        s->cap_vol = INT64_MAX / 2;
    s->trail_len = 0;
    s->depth = 0;
    s->bbuf_len = 0;
}

static uint64_t list_hash(const i32 *a, i32 n, uint64_t h) {
    for (i32 i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)a[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Only the live options stay, and the columns that the same live options
 * cover become one column (it weighs its cells; fixed if one of them is). */
static int compact(Search *s) {
    i32 nc = s->n_cols, np = s->n_opts;
    uint8_t *live = zalloc((size_t)np, 1), *fixed = zalloc((size_t)nc, 1);
    i32 *cptr = zalloc((size_t)nc + 1, 4), *fill = zalloc((size_t)nc, 4), *newcol = zalloc((size_t)nc, 4);
    i32 *weight = zalloc((size_t)nc, 4);
    i32 *table = NULL, *opts_of = NULL, *new_item = NULL, *new_node = NULL, *new_ptr = NULL;
    uint64_t *hash = NULL;
    int ok = -1;
    if (!live || !fixed || !cptr || !fill || !newcol || !weight)
        goto done;
    i32 total = 0;
    for (i32 p = 0; p < np; p++) {
        live[p] = (uint8_t)option_live(s, p);
        if (live[p])
            for (i32 n = s->opt_ptr[p]; n < s->opt_ptr[p + 1] - 1; n++) {
                cptr[s->opt_item[n] + 1]++;
                total++;
            }
    }
    for (i32 c = 0; c < nc; c++)
        cptr[c + 1] += cptr[c];
    if (!(opts_of = zalloc((size_t)total + 1, 4)) || !(hash = zalloc((size_t)nc, 8)))
        goto done;
    for (i32 p = 0; p < np; p++) /* ascending: each column's list is sorted */
        if (live[p])
            for (i32 n = s->opt_ptr[p]; n < s->opt_ptr[p + 1] - 1; n++) {
                i32 c = s->opt_item[n];
                opts_of[cptr[c] + fill[c]++] = p;
            }
    i32 size = 1;
    while (size < 2 * nc + 2)
        size *= 2;
    if (!(table = zalloc((size_t)size, 4)))
        goto done;
    for (i32 j = 0; j < size; j++)
        table[j] = -1;
    i32 n_cols = 0;
    for (i32 c = 0; c < nc; c++) {
        i32 len = cptr[c + 1] - cptr[c];
        hash[c] = list_hash(opts_of + cptr[c], len, 1469598103934665603ULL ^ (uint64_t)len);
        i32 j = (i32)(hash[c] & (uint64_t)(size - 1));
        for (;;) {
            i32 r = table[j];
            if (r < 0) {
                table[j] = c;
                newcol[c] = n_cols;
                weight[n_cols] = s->col_w[c];
                fixed[n_cols] = s->col_fixed[c];
                n_cols++;
                break;
            }
            if (hash[r] == hash[c] && cptr[r + 1] - cptr[r] == len &&
                !memcmp(opts_of + cptr[r], opts_of + cptr[c], (size_t)len * sizeof(i32))) {
                i32 col = newcol[r];
                newcol[c] = col;
                weight[col] += s->col_w[c];
                fixed[col] |= s->col_fixed[c];
                break;
            }
            j = (j + 1) & (size - 1);
        }
    }
    /* the options again, over the new columns */
    if (!(new_ptr = zalloc((size_t)np + 1, 4)) || !(new_item = zalloc((size_t)s->nnz, 4)) ||
        !(new_node = zalloc((size_t)s->nnz, 4)))
        goto done;
    i32 at = 0;
    for (i32 p = 0; p < np; p++) {
        new_ptr[p] = at;
        if (!live[p])
            continue;
        i32 first = at;
        for (i32 n = s->opt_ptr[p]; n < s->opt_ptr[p + 1] - 1; n++) {
            i32 col = newcol[s->opt_item[n]], dup = 0;
            for (i32 k = first; k < at; k++)
                if (new_item[k] == col) { dup = 1; break; }
            if (!dup) {
                new_item[at] = col;
                new_node[at++] = p;
            }
        }
        new_item[at] = n_cols + s->opt_shape[p];
        new_node[at++] = p;
    }
    new_ptr[np] = at;
    PyMem_RawFree(s->opt_ptr);
    PyMem_RawFree(s->opt_item);
    PyMem_RawFree(s->node_opt);
    s->opt_ptr = new_ptr;
    s->opt_item = new_item;
    s->node_opt = new_node;
    new_ptr = new_item = new_node = NULL;
    s->nnz = at;
    for (i32 c = 0; c < s->n_cells; c++)
        s->cell_col[c] = newcol[s->cell_col[c]];
    memcpy(s->col_w, weight, (size_t)n_cols * sizeof(i32));
    memcpy(s->col_fixed, fixed, (size_t)n_cols);
    s->n_cols = n_cols;
    build_sets(s);
    ok = 0;
done:
    if (ok < 0)
        PyErr_NoMemory();
    PyMem_RawFree(live);
    PyMem_RawFree(fixed);
    PyMem_RawFree(cptr);
    PyMem_RawFree(fill);
    PyMem_RawFree(newcol);
    PyMem_RawFree(weight);
    PyMem_RawFree(table);
    PyMem_RawFree(opts_of);
    PyMem_RawFree(hash);
    PyMem_RawFree(new_item);
    PyMem_RawFree(new_node);
    PyMem_RawFree(new_ptr);
    return ok;
}

/* --- symmetry ------------------------------------------------------------ */

static int cmp_ids(const void *a, const void *b) {
    i32 x = *(const i32 *)a, y = *(const i32 *)b;
    return (x > y) - (x < y);
}

static void sort_ids(i32 *a, i32 n) {
    if (n > 32) {
        qsort(a, (size_t)n, sizeof(i32), cmp_ids);
        return;
    }
    for (i32 i = 1; i < n; i++) {
        i32 v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

/* Is the assembly now on the stack the one counted of its orbit? */
static int canonical(Search *s, i32 k) {
    for (i32 g = 0; g < s->n_checks; g++) {
        const i32 *pg = s->perm + (size_t)g * s->n_opts;
        if (s->pivot >= 0) {
            i32 from = -1;
            if (s->pivot < s->n_cols) {
                from = s->owner[s->cell_col[s->src[g]]];
            } else {
                for (i32 i = 0; i < k; i++)
                    if (s->opt_shape[s->sol[i]] == s->src[g]) {
                        if (from >= 0) { from = -1; break; }
                        from = s->sol[i];
                    }
            }
            if (from < 0)
                continue;
            i32 to = pg[from];
            if (to < 0 || !s->in_r[to])
                continue; /* the image is not an assembly the search finds */
        }
        if (s->count_check[g]) {
            const i32 *sg = s->sigma + (size_t)g * s->n_shapes;
            int ok = 1;
            for (i32 sh = 0; sh < s->n_shapes && ok; sh++) {
                i32 c = s->used[sg[sh]];
                ok = c >= s->lo[sh] && c <= s->hi[sh];
            }
            if (!ok)
                continue;
        }
        int ok = 1;
        for (i32 i = 0; i < k; i++) {
            i32 m = pg[s->sol[i]];
            if (m < 0) { ok = 0; break; }
            s->img[i] = m;
        }
        if (!ok)
            continue;
        sort_ids(s->img, k);
        for (i32 i = 0; i < k; i++) {
            if (s->img[i] < s->sol[i])
                return 0;
            if (s->img[i] > s->sol[i])
                break;
        }
    }
    return 1;
}

static int record(Search *s, i32 k) {
    if (s->n_sols + k + 1 > s->sols_cap) {
        i32 cap = (s->sols_cap + k + 1) * 2;
        i32 *ns = PyMem_RawRealloc(s->sols, (size_t)cap * sizeof(i32));
        if (!ns)
            return -1;
        s->sols = ns;
        s->sols_cap = cap;
    }
    s->sols[s->n_sols++] = k;
    memcpy(s->sols + s->n_sols, s->sol, (size_t)k * sizeof(i32));
    s->n_sols += k;
    return 0;
}

/* an assembly: returns its number of options when counted, -1 when not */
static i32 leaf(Search *s) {
    if (s->max_holes >= 0 && s->free_optional > s->max_holes)
        return -1;
    i32 k = 0;
    for (i32 d = 0; d < s->depth; d++)
        if (s->lv[d].chosen >= 0)
            s->sol[k++] = s->lv[d].chosen;
    sort_ids(s->sol, k);
    s->found++;
    if (s->n_checks && !canonical(s, k))
        return -1;
    s->count++;
    return k;
}

/* --- the search ------------------------------------------------------- */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* back to the root, every branch undone */
static void reset_state(Search *s) {
    for (;;) {
        Level *L = &s->lv[s->depth];
        if (L->applied)
            undo_branch(s, L);
        if (s->depth == 0)
            break;
        s->depth--;
    }
    s->bbuf_len = 0;
    s->lv[0].kind = -1;
    s->lv[0].applied = 0;
    s->lbuf_len = (size_t)s->lv[0].l1;
    s->finished = 0;
    s->at_leaf = 0;
}

/* the node at this depth is done: up one level, undoing the branch that led here */
static int pop(Search *s) {
    if (s->depth == 0) {
        s->finished = 1;
        return 0;
    }
    s->depth--;
    undo_branch(s, &s->lv[s->depth]);
    return 1;
}

enum { R_DONE, R_PAUSED, R_TIMEOUT, R_STOPPED, R_SIGNAL, R_NOMEM };

/* Run until done, or max_sols more assemblies recorded (0: count only), or
 * the deadline (0: none), stop() or a signal. */
static int search(Search *s, long long max_sols, double deadline, PyThreadState **ts) {
    unsigned long tick = 0;
    long long recorded = 0;
    if (s->finished)
        return R_DONE;
    if (s->at_leaf) {
        s->at_leaf = 0;
        if (!pop(s))
            return R_DONE;
    }
    for (;;) {
        Level *L = &s->lv[s->depth];
        if (L->kind == -1) {
            /* a node not decided yet */
            if (++tick % CHECK_EVERY == 0) {
                if (s->stop_flag)
                    return R_STOPPED;
                if (deadline > 0 && now() > deadline)
                    return R_TIMEOUT;
                PyEval_RestoreThread(*ts);
                int sig = PyErr_CheckSignals();
                *ts = PyEval_SaveThread();
                if (sig)
                    return R_SIGNAL;
            }
            s->nodes++;
            int r = decide(s, L);
            if (r == -2)
                return R_NOMEM;
            if (r <= 0) {
                if (r == 0) {
                    i32 k = leaf(s);
                    if (k >= 0 && max_sols > 0) {
                        if (record(s, k) < 0)
                            return R_NOMEM;
                        if (++recorded >= max_sols) {
                            s->at_leaf = 1;
                            return R_PAUSED;
                        }
                    }
                }
                if (!pop(s))
                    return R_DONE;
                continue;
            }
        }
        if (L->next >= L->b1) {
            s->bbuf_len = L->b0;
            L->kind = -1;
            if (!pop(s))
                return R_DONE;
            continue;
        }
        i32 b = s->bbuf[L->next++];
        if (apply_branch(s, L, b) < 0)
            return R_NOMEM;
        s->depth++;
        s->lv[s->depth].kind = -1;
        s->lv[s->depth].applied = 0;
    }
}

/* The search's own structures where it filters lists (lists: 1 yes, 0 no, -1
 * by the rule): the options' column bitsets and the root's live options.  The
 * rule: a node's filter reads every live option (n_live), while killing in the
 * sets moves about (options per column) x (option size) = nnz^2 / (columns x
 * n_live) nodes for each column of the choice; lists when n_live <= 4096 or
 * n_live^2 x columns <= 2 nnz^2 (the filter at most twice a column's kills;
 * measured in docs/benchmarks/burrtools.md). */
static int search_lists(Search *s, i32 snap_items, int lists) {
    i32 n_live = 0;
    int64_t nnz = 0;
    for (i32 q = 0; q < s->n_opts; q++)
        if (s->opt_ptr[q] < s->opt_ptr[q + 1]) {
            n_live++;
            nnz += s->opt_ptr[q + 1] - s->opt_ptr[q] - 1;
        }
    s->lv[0].l0 = s->lv[0].l1 = 0;
    if (lists < 0)
        lists = n_live <= 4096 || (double)n_live * n_live * s->n_cols <= 2.0 * (double)nnz * (double)nnz;
    s->sets = !lists;
    if (s->sets)
        return 0;
    s->cwords = (s->n_cols + 63) / 64;
    if (!(s->cbits = zalloc((size_t)s->n_opts * s->cwords, 8)) || !(s->lbuf = zalloc((size_t)s->n_opts + 1024, 4)))
        return -1;
    s->lbuf_cap = (size_t)s->n_opts + 1024;
    i32 k = 0;
    for (i32 q = 0; q < s->n_opts; q++) {
        if (s->opt_ptr[q] == s->opt_ptr[q + 1])
            continue; /* dropped: no nodes */
        for (i32 m = s->opt_ptr[q]; m < s->opt_ptr[q + 1] - 1; m++) {
            i32 e = s->opt_item[m];
            s->cbits[(size_t)q * s->cwords + (e >> 6)] |= (uint64_t)1 << (e & 63);
        }
        s->lbuf[k++] = q;
    }
    s->lv[0].l0 = 0;
    s->lv[0].l1 = k;
    s->lbuf_len = (size_t)k;
    if (s->n_items <= snap_items) {
        s->snap_cap = (size_t)s->n_items * 64;
        if (!(s->snap = zalloc(s->snap_cap, 4)))
            return -1;
        memcpy(s->snap, s->len, (size_t)s->n_items * sizeof(i32));
        s->len = s->snap;
    }
    return 0;
}

/* --- the Python type ------------------------------------------------------ */

static void Search_dealloc(Search *s) {
    void *bufs[] = {s->opt_ptr, s->opt_item, s->node_opt, s->opt_shape, s->fixed, s->lo, s->hi, s->vmin, s->vmax,
                    s->start, s->len_sets, s->set, s->where, s->used, s->owner, s->act, s->act_pos, s->trail,
                    s->lv, s->bbuf, s->opt_list, s->pivot_opts, s->in_r, s->perm, s->src, s->sigma,
                    s->count_check, s->sol, s->img, s->path, s->sols,
                    s->cell_col, s->col_w, s->col_fixed, s->mark, s->hit, s->seen, s->optcols, s->cbits, s->lbuf,
                    s->snap};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        PyMem_RawFree(bufs[i]);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static void *copy_buffer(Py_buffer *b, Py_ssize_t want, size_t item, const char *what) {
    if (want >= 0 && b->len != want * (Py_ssize_t)item) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", what, b->len, want * (Py_ssize_t)item);
        return NULL;
    }
    void *p = PyMem_RawMalloc(b->len ? (size_t)b->len : 1);
    if (!p) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(p, b->buf, (size_t)b->len);
    return p;
}


static void *zalloc(size_t n, size_t item) {
    void *p = PyMem_RawCalloc(n ? n : 1, item);
    if (!p)
        PyErr_NoMemory();
    return p;
}

static int Search_init(Search *s, PyObject *args, PyObject *kw) {
    static char *names[] = {"fixed", "opt_ptr", "opt_cells", "opt_shape", "lo", "hi", "max_holes",
                            "pivot", "pivot_options", "perm", "src", "sigma", "count_check", "snap_items", "lists", NULL};
    Py_buffer fixed, opt_ptr, opt_cells, opt_shape, lo, hi, pivot_opts, perm, src, sigma, count_check;
    int max_holes, pivot, snap_items = 4096, lists = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*y*y*y*y*y*iiy*y*y*y*y*|ii", names, &fixed, &opt_ptr, &opt_cells,
                                     &opt_shape, &lo, &hi, &max_holes, &pivot, &pivot_opts, &perm, &src, &sigma,
                                     &count_check, &snap_items, &lists))
        return -1;
    Py_buffer *all[] = {&fixed, &opt_ptr, &opt_cells, &opt_shape, &lo, &hi, &pivot_opts, &perm, &src, &sigma,
                        &count_check};
    int ok = 0;
    i32 nc = (i32)fixed.len, ns = (i32)(lo.len / 4), np = (i32)(opt_shape.len / 4);
    i32 nnz_cells = (i32)(opt_cells.len / 4);
    s->n_cells = nc;
    s->n_shapes = ns;
    s->n_opts = np;
    s->n_items = nc + ns;
    s->nnz = nnz_cells + np;
    s->max_holes = max_holes;
    s->pivot = pivot;
    s->n_pivot = (i32)(pivot_opts.len / 4);
    s->n_checks = np ? (i32)(perm.len / 4 / np) : 0;
    if (!(s->fixed = copy_buffer(&fixed, nc, 1, "fixed")) || !(s->lo = copy_buffer(&lo, ns, 4, "lo")) ||
        !(s->hi = copy_buffer(&hi, ns, 4, "hi")) || !(s->opt_shape = copy_buffer(&opt_shape, np, 4, "opt_shape")))
        goto out;
    i32 *cptr = (i32 *)opt_ptr.buf, *cells = (i32 *)opt_cells.buf;
    if (opt_ptr.len != (Py_ssize_t)(np + 1) * 4 || cptr[0] != 0 || cptr[np] != nnz_cells) {
        PyErr_SetString(PyExc_ValueError, "opt_ptr does not match opt_cells");
        goto out;
    }
    if (pivot < -1 || pivot >= s->n_items) {
        PyErr_SetString(PyExc_ValueError, "pivot out of range");
        goto out;
    }
    if (!(s->pivot_opts = copy_buffer(&pivot_opts, -1, 4, "pivot_options")) ||
        !(s->perm = copy_buffer(&perm, (Py_ssize_t)s->n_checks * np, 4, "perm")) ||
        !(s->src = copy_buffer(&src, s->n_checks, 4, "src")) ||
        !(s->sigma = copy_buffer(&sigma, (Py_ssize_t)s->n_checks * ns, 4, "sigma")) ||
        !(s->count_check = copy_buffer(&count_check, s->n_checks, 1, "count_check")))
        goto out;
    /* options: their cells, then their shape item */
    if (!(s->opt_ptr = zalloc((size_t)np + 1, 4)) || !(s->opt_item = zalloc((size_t)s->nnz, 4)) ||
        !(s->node_opt = zalloc((size_t)s->nnz, 4)) || !(s->vmin = zalloc((size_t)ns, 4)) ||
        !(s->vmax = zalloc((size_t)ns, 4)))
        goto out;
    for (i32 p = 0; p < np; p++) {
        i32 a = cptr[p], b = cptr[p + 1], sh = s->opt_shape[p];
        if (b < a || sh < 0 || sh >= ns) {
            PyErr_SetString(PyExc_ValueError, "bad option");
            goto out;
        }
        i32 at = a + p;
        s->opt_ptr[p] = at;
        for (i32 j = a; j < b; j++) {
            if (cells[j] < 0 || cells[j] >= nc) {
                PyErr_SetString(PyExc_ValueError, "option cell out of range");
                goto out;
            }
            s->opt_item[at] = cells[j];
            s->node_opt[at++] = p;
        }
        s->opt_item[at] = nc + sh;
        s->node_opt[at] = p;
        if (!s->vmax[sh] || b - a < s->vmin[sh])
            s->vmin[sh] = b - a;
        if (b - a > s->vmax[sh])
            s->vmax[sh] = b - a;
    }
    s->opt_ptr[np] = s->nnz;
    for (i32 j = 0; j < s->n_pivot; j++)
        if (s->pivot_opts[j] < 0 || s->pivot_opts[j] >= np) {
            PyErr_SetString(PyExc_ValueError, "pivot option out of range");
            goto out;
        }
    for (Py_ssize_t j = 0; j < (Py_ssize_t)s->n_checks * np; j++)
        if (s->perm[j] < -1 || s->perm[j] >= np) {
            PyErr_SetString(PyExc_ValueError, "perm out of range");
            goto out;
        }
    for (i32 j = 0; j < s->n_checks; j++)
        if (s->src[j] < -1 || s->src[j] >= (pivot >= 0 && pivot < nc ? nc : ns)) {
            PyErr_SetString(PyExc_ValueError, "src out of range");
            goto out;
        }
    for (Py_ssize_t j = 0; j < (Py_ssize_t)s->n_checks * ns; j++)
        if (s->sigma[j] < 0 || s->sigma[j] >= ns) {
            PyErr_SetString(PyExc_ValueError, "sigma out of range");
            goto out;
        }
    for (i32 sh = 0; sh < ns; sh++)
        if (s->lo[sh] < 0 || s->hi[sh] < s->lo[sh]) {
            PyErr_SetString(PyExc_ValueError, "bad shape bounds");
            goto out;
        }
    if (!(s->cell_col = zalloc((size_t)nc, 4)) || !(s->col_w = zalloc((size_t)nc, 4)) ||
        !(s->col_fixed = zalloc((size_t)nc, 1)) || !(s->start = zalloc((size_t)nc + ns + 1, 4)) ||
        !(s->len = s->len_sets = zalloc((size_t)nc + ns, 4)) || !(s->set = zalloc((size_t)s->nnz, 4)) ||
        !(s->where = zalloc((size_t)s->nnz, 4)) || !(s->used = zalloc((size_t)ns, 4)) ||
        !(s->owner = zalloc((size_t)nc, 4)) || !(s->act = zalloc((size_t)nc, 4)) ||
        !(s->act_pos = zalloc((size_t)nc, 4)) || !(s->trail = zalloc((size_t)np, 4)) ||
        !(s->lv = zalloc((size_t)nc + (size_t)ns + 2, sizeof(Level))) || !(s->sol = zalloc((size_t)np + 1, 4)) ||
        !(s->img = zalloc((size_t)np + 1, 4)) || !(s->in_r = zalloc((size_t)np, 1)) || !(s->path = zalloc(1, 4)) ||
        !(s->mark = zalloc((size_t)nc + ns, 4)) || !(s->hit = zalloc((size_t)nc + ns, 4)) ||
        !(s->seen = zalloc((size_t)np, 4)) || !(s->optcols = zalloc((size_t)nc, 4)))
        goto out;
    /* first every cell is a column; then the options in no assembly go, and
     * the cells the same options cover become one column */
    s->n_cols = nc;
    for (i32 c = 0; c < nc; c++) {
        s->cell_col[c] = c;
        s->col_w[c] = 1;
        s->col_fixed[c] = s->fixed[c];
    }
    build_sets(s);
    init_state(s);
    for (i32 sh = 0; sh < ns; sh++)
        if (s->hi[sh] == 0)
            kill_all(s, s->n_cols + sh);
    s->trail_len = 0; /* shapes with no room are dead for good */
    if (compact(s) < 0) /* first: fewer nodes make drop_dead faster */
        goto out;
    init_state(s);
    s->dropped = drop_dead(s);
    if (s->dropped < 0) {
        PyErr_NoMemory();
        goto out;
    }
    if (compact(s) < 0)
        goto out;
    init_state(s);
    if (search_lists(s, snap_items, lists) < 0)
        goto out;
    if (pivot >= 0)
        s->pivot = pivot < nc ? s->cell_col[pivot] : s->n_cols + (pivot - nc);
    for (i32 j = 0; j < s->n_pivot; j++)
        s->in_r[s->pivot_opts[j]] = 1;
    s->lv[0].kind = -1;
    s->path_len = 0;
    ok = 1;
out:
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        PyBuffer_Release(all[i]);
    return ok ? 0 : -1;
}

static PyObject *status_name(int r) {
    static const char *names[] = {"done", "paused", "timeout", "stopped", "interrupted", "memory"};
    return PyUnicode_FromString(names[r]);
}

static PyObject *Search_run(Search *s, PyObject *args, PyObject *kw) {
    static char *names[] = {"max_solutions", "deadline", NULL};
    long long max_sols = 0;
    double deadline = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Ld", names, &max_sols, &deadline))
        return NULL;
    s->stop_flag = 0;
    PyThreadState *ts = PyEval_SaveThread();
    int r = search(s, max_sols, deadline, &ts);
    PyEval_RestoreThread(ts);
    if (r == R_SIGNAL)
        return NULL; /* the signal's exception (KeyboardInterrupt): the counts so far stay readable */
    if (r == R_NOMEM)
        return PyErr_NoMemory();
    return status_name(r);
}

/* restart from the root, the first levels forced to the branches of ``path`` */
static PyObject *Search_reset(Search *s, PyObject *args) {
    Py_buffer path;
    if (!PyArg_ParseTuple(args, "y*", &path))
        return NULL;
    i32 n = (i32)(path.len / 4);
    i32 *np = PyMem_RawRealloc(s->path, (size_t)(n ? n : 1) * 4);
    if (!np) {
        PyBuffer_Release(&path);
        return PyErr_NoMemory();
    }
    s->path = np;
    memcpy(s->path, path.buf, (size_t)n * 4);
    s->path_len = n;
    PyBuffer_Release(&path);
    reset_state(s);
    s->count = s->found = s->nodes = 0;
    s->n_sols = 0;
    Py_RETURN_NONE;
}

/* the number of branches at the node ``path`` leads to (0: an assembly or a dead end) */
static PyObject *Search_branches(Search *s, PyObject *args) {
    Py_buffer path;
    if (!PyArg_ParseTuple(args, "y*", &path))
        return NULL;
    i32 n = (i32)(path.len / 4), *p = (i32 *)path.buf;
    reset_state(s);
    s->path_len = 0;
    s->probing = 1;
    long result = 0;
    int dead = 0;
    for (i32 d = 0; d <= n; d++) {
        Level *L = &s->lv[s->depth];
        int r = decide(s, L);
        if (r == -2) {
            reset_state(s);
            s->probing = 0;
            PyBuffer_Release(&path);
            return PyErr_NoMemory();
        }
        if (r <= 0) {
            dead = 1;
            break;
        }
        if (d == n) {
            result = L->b1 - L->b0;
            break;
        }
        if (p[d] < 0 || p[d] >= L->b1 - L->b0) {
            dead = 1;
            break;
        }
        if (apply_branch(s, L, s->bbuf[L->b0 + p[d]]) < 0) {
            reset_state(s);
            s->probing = 0;
            PyBuffer_Release(&path);
            return PyErr_NoMemory();
        }
        s->depth++;
        s->lv[s->depth].kind = -1;
        s->lv[s->depth].applied = 0;
    }
    reset_state(s);
    s->probing = 0;
    PyBuffer_Release(&path);
    return PyLong_FromLong(dead ? 0 : result);
}

static PyObject *Search_take(Search *s, PyObject *unused) {
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    i32 at = 0;
    while (at < s->n_sols) {
        i32 k = s->sols[at++];
        PyObject *t = PyTuple_New(k);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        for (i32 i = 0; i < k; i++)
            PyTuple_SET_ITEM(t, i, PyLong_FromLong(s->sols[at + i]));
        at += k;
        if (PyList_Append(out, t) < 0) {
            Py_DECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(t);
    }
    s->n_sols = 0;
    return out;
}

/* Where a search stopped by its deadline stands: per level above the node it
 * stopped at, (kind, column or shape, option chosen, options tried there with
 * the chosen one, branches left); None when it is done or at an assembly. */
static PyObject *Search_frontier(Search *s, PyObject *unused) {
    (void)unused;
    if (s->finished || s->at_leaf)
        Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    for (i32 d = 0; out && d < s->depth; d++) {
        Level *L = &s->lv[d];
        PyObject *tried = PyTuple_New(L->next - L->b0);
        for (i32 j = L->b0; tried && j < L->next; j++) {
            PyObject *v = PyLong_FromLong(s->bbuf[j]);
            if (!v) {
                Py_CLEAR(tried);
                break;
            }
            PyTuple_SET_ITEM(tried, j - L->b0, v);
        }
        PyObject *level = tried ? Py_BuildValue("(iiiNi)", L->kind, L->kind == K_CELL ? L->item : L->item - s->n_cols,
                                                L->chosen, tried, L->b1 - L->next)
                                : NULL;
        if (!level || PyList_Append(out, level) < 0)
            Py_CLEAR(out);
        Py_XDECREF(level);
    }
    return out;
}

static PyObject *Search_stop(Search *s, PyObject *unused) {
    s->stop_flag = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Search_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Search_run, METH_VARARGS | METH_KEYWORDS,
     "run(max_solutions=0, deadline=0.0): search on; 'done', 'paused' (max_solutions recorded), 'timeout' "
     "(time.monotonic() passed deadline) or 'stopped'; a signal's exception (Ctrl-C) is raised as it is"},
    {"reset", (PyCFunction)Search_reset, METH_VARARGS, "reset(path): start again, the first levels forced"},
    {"branches", (PyCFunction)Search_branches, METH_VARARGS,
     "branches(path): how many branches the node at the end of path has (0: none)"},
    {"take_solutions", (PyCFunction)Search_take, METH_NOARGS, "the assemblies recorded since the last call"},
    {"stop", (PyCFunction)Search_stop, METH_NOARGS, "ask a running search (in another thread) to stop"},
    {"frontier", (PyCFunction)Search_frontier, METH_NOARGS,
     "frontier(): per level above where a stopped search stands, (kind: 0 cell, 1 shape, 2 optional, column or "
     "shape, chosen option, options tried with it, branches left); None when done or at an assembly"},
    {NULL}};

static PyMemberDef Search_members[] = {
    {"count", T_ULONGLONG, offsetof(Search, count), READONLY, "assemblies counted (one per orbit)"},
    {"found", T_ULONGLONG, offsetof(Search, found), READONLY, "assemblies the search reached"},
    {"nodes", T_ULONGLONG, offsetof(Search, nodes), READONLY, "search nodes"},
    {"dropped", T_INT, offsetof(Search, dropped), READONLY, "options dropped before the search (in no assembly)"},
    {"finished", T_INT, offsetof(Search, finished), READONLY, "the search is complete"},
    {"columns", T_INT, offsetof(Search, n_cols), READONLY, "the search's columns (cells the same options cover are one)"},
    {"sparse_sets", T_INT, offsetof(Search, sets), READONLY, "the search kills options in sparse sets (1) or filters lists (0)"},
    {NULL}};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tilesat.engines._xcc.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An exact cover search with piece counts, optional cells and symmetry (see _xcc.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_members = Search_members,
};

static struct PyModuleDef xcc_module = {PyModuleDef_HEAD_INIT, "_xcc", "The compiled exact cover engine", -1, NULL};

PyMODINIT_FUNC PyInit__xcc(void) {
    if (PyType_Ready(&SearchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&xcc_module);
    if (!m)
        return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
