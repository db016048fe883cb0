/* The compiled core of the ``native`` enumerator (tilesat.engines.enumerator).
 *
 * A depth-first search over bitboards in the style of the fast pentomino
 * solvers: the covered cells are a bitset; at each step the first empty cell
 * (in the scan order the tables chose) must be covered, so the only
 * candidates are the placements whose first cell it is, listed by the state
 * of the ``window`` cells after it (only those that fit there).  Piece counts
 * are a remaining count per rule; a branch is given up when the cells left
 * cannot hold the pieces still required or the pieces still allowed cannot
 * fill them, and when the empty region of the next cell to fill has an area
 * the pieces left cannot make.
 *
 * Three copies of one search: the grid in one 64-bit word, the grid in one
 * 128-bit word (boards up to 128 cells: regions grow by shifts), and any
 * number of 64-bit words (regions grow by a flood fill along neighbour
 * lists).  The tables are built by the Python side (numpy) and copied here
 * once per instance (a Board); a Search keeps its whole state in its own
 * arrays, so that it
 *
 *   - runs in slices (``run(max_nodes, record)``): it returns to Python every
 *     so many nodes, where the deadline, Ctrl-C and a time budget are checked;
 *   - records tilings in batches for listing;
 *   - says where it stands (``split()``): the untried rest of each level of
 *     its path, as (placements to force, placements to exclude), which is how
 *     a unit that runs too long is split into sub-units without losing the
 *     work done;
 *   - estimates the size of its tree (``estimate()``: Knuth's random probes).
 *
 * Placements may be forced (put down first) or excluded (never used): a
 * unit of a split count is a set of each.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef int32_t i32;
typedef unsigned __int128 u128;

static inline i64 gcd_i64(i64 a, i64 b)
{
    while (b) {
        i64 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static inline uint64_t xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* --- the tables of one instance -------------------------------------------- */

enum { KIND_WORDS = 0, KIND_64 = 1, KIND_128 = 2 };

typedef struct {
    PyObject_HEAD
    int kind;            /* KIND_64 / KIND_128: every grid cell a bit of one word; KIND_WORDS: any size */
    i32 n, words, window, nrules, nplace, max_depth;
    i64 uniform;         /* the common size of every piece still allowed (0: sizes differ) */
    int connected;       /* every piece edge-connected: region pruning is sound */
    int L, M, wrap_line, wrap_across;
    uint64_t first_cells[2], last_cells[2];
    i64 *cand_ptr;  i32 *cand;                 /* placements by their first cell */
    i64 *wptr;      i32 *wcand, *wskip;        /* by first cell and window state */
    void *mask;                                /* KIND_64: uint64 per placement; KIND_128: u128 */
    i64 *pw_ptr;    i32 *pw_word; uint64_t *pw_bits;  /* placement p: words and bits */
    i64 *pc_ptr;    i32 *pcells;               /* placement p: its cells */
    i64 *nb_ptr;    i32 *nb;                   /* each cell's neighbours */
    i32 *prule;     i64 *psize;
    i64 *rsize, *rmin, *rmax;
    uint64_t *base;                            /* the words at the start (blocked cells set) */
    i32 longest;                               /* the longest candidate list */
} Board;

typedef struct {
    PyObject_HEAD
    Board *b;
    int general;        /* the any-size search even on one word */
    int regions;
    i64 cap;
    int done, started, empty;  /* empty: the forced placements admit no tiling */
    uint64_t *cov, *cov0;      /* covered cells now; after the forced placements */
    i64 *rem, *used, *rem0, *used0;
    i64 need, left, room, need0, left0, room0;
    i64 depth;
    i64 *cell_at, *idx_at, *chosen;
    i64 *vis, *stack, stamp;
    uint8_t *banned;           /* excluded placements (NULL: none) */
    i32 *scratch;
    i64 nodes;
    i64 *out;                  /* recorded tilings: out[t * max_depth + j] */
    i64 *out_len;
    i64 out_cap, out_n;
} Search;

static void record_tiling(Search *s, i64 len)
{
    if (s->out_n >= s->out_cap)
        return;
    memcpy(s->out + s->out_n * s->b->max_depth, s->chosen, (size_t)len * sizeof(i64));
    s->out_len[s->out_n++] = len;
}

#define WORD uint64_t
#define BITS 64
#define SUF(name) name##_64
#include "_bitboard_grid.h"
#undef WORD
#undef BITS
#undef SUF

#define WORD u128
#define BITS 128
#define SUF(name) name##_128
#include "_bitboard_grid.h"
#undef WORD
#undef BITS
#undef SUF

/* --- the search on any number of words ------------------------------------- */

static inline int covered_bit(const uint64_t *cov, i64 c)
{
    return (cov[c >> 6] >> (c & 63)) & 1;
}

static inline int fits_words(const Board *b, const uint64_t *cov, i32 p)
{
    for (i64 j = b->pw_ptr[p]; j < b->pw_ptr[p + 1]; j++)
        if (cov[b->pw_word[j]] & b->pw_bits[j])
            return 0;
    return 1;
}

static inline void flip_words(const Board *b, uint64_t *cov, i32 p)
{
    for (i64 j = b->pw_ptr[p]; j < b->pw_ptr[p + 1]; j++)
        cov[b->pw_word[j]] ^= b->pw_bits[j];
}

static inline i64 first_empty(const Board *b, const uint64_t *cov, i64 c)
{
    while (c < b->n && covered_bit(cov, c))
        c++;
    return c;
}

/* The candidate list of cell c: by the state of the window after it. */
static inline i64 list_words(const Board *b, const uint64_t *cov, i64 c)
{
    i64 bit = c + 1;
    i64 wi = bit >> 6, off = bit & 63;
    uint64_t state = wi < b->words ? cov[wi] >> off : 0;
    if (off + b->window > 64 && wi + 1 < b->words)
        state |= cov[wi + 1] << (64 - off);
    return (c << b->window) + (i64)(state & ((1ull << b->window) - 1));
}

/* The flood-fill check of the empty region of cell c2 (as bad_region_64). */
static int bad_region_words(const Board *b, Search *s, const uint64_t *cov, i64 c2)
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
            return 1;
    }
    if (gcd <= 1 && smallest <= 1)
        return 0;
    i64 stamp = ++s->stamp;
    i64 *vis = s->vis, *stack = s->stack;
    vis[c2] = stamp;
    stack[0] = c2;
    i64 top = 1, area = 0;
    while (top > 0) {
        if (area == s->cap)
            return 0;  /* big: not judged */
        i64 x = stack[--top];
        area++;
        for (i64 e = b->nb_ptr[x]; e < b->nb_ptr[x + 1]; e++) {
            i64 y = b->nb[e];
            if (vis[y] != stamp && !covered_bit(cov, y)) {
                vis[y] = stamp;
                stack[top++] = y;
            }
        }
    }
    if (area % gcd != 0 || area < smallest)
        return 1;
    if (area < 2 * smallest) {  /* room for one piece only: is any piece left this shape? */
        for (i64 j = b->cand_ptr[c2]; j < b->cand_ptr[c2 + 1]; j++) {
            i32 q = b->cand[j];
            if (b->psize[q] != area || s->rem[b->prule[q]] <= 0)
                continue;
            int same = 1;
            for (i64 e = b->pc_ptr[q]; e < b->pc_ptr[q + 1]; e++)
                if (vis[b->pcells[e]] != stamp) {
                    same = 0;
                    break;
                }
            if (same)
                return 0;
        }
        return 1;
    }
    return 0;
}

static i64 run_words(Search *s, i64 max_nodes, i64 record)
{
    const Board *b = s->b;
    if (s->done)
        return 0;
    uint64_t *cov = s->cov;
    i64 *rem = s->rem, *used = s->used;
    i64 *cell_at = s->cell_at, *idx_at = s->idx_at, *chosen = s->chosen;
    const uint8_t *banned = s->banned;
    i64 need = s->need, left = s->left, room = s->room;
    i64 found = 0, nodes = 0;
    if (!s->started) {
        s->started = 1;
        i64 c = first_empty(b, cov, 0);
        if (c == b->n) {
            s->done = 1;
            if (need == 0) {
                if (record)
                    record_tiling(s, 0);
                return 1;
            }
            return 0;
        }
        s->depth = 0;
        cell_at[0] = c;
        idx_at[0] = -1;  /* the list is chosen on entering the level */
    }
    i64 d = s->depth;
    for (;;) {
        const i64 c = cell_at[d];
        const i64 ls = list_words(b, cov, c);
        i64 i = idx_at[d] >= 0 ? idx_at[d] : b->wptr[ls];
        const i64 end = b->wptr[ls + 1];
        int descended = 0;
        while (i < end) {
            const i32 p = b->wcand[i];
            const i32 k = b->prule[p];
            if (rem[k] == 0) {
                i = b->wskip[i];
                continue;
            }
            i++;
            if ((banned && banned[p]) || !fits_words(b, cov, p))
                continue;
            const i64 size = b->psize[p];
            const i64 new_need = used[k] < b->rmin[k] ? need - size : need;
            const i64 new_left = left - size;
            if (new_need > new_left || room - size < new_left)
                continue;
            flip_words(b, cov, p);
            rem[k]--;
            used[k]++;
            const i64 c2 = first_empty(b, cov, c);
            if (s->regions && new_left > 0 && bad_region_words(b, s, cov, c2)) {
                flip_words(b, cov, p);
                rem[k]++;
                used[k]--;
                continue;
            }
            chosen[d] = p;
            if (new_left == 0) {
                if (record)
                    record_tiling(s, d + 1);
                found++;
                flip_words(b, cov, p);
                rem[k]++;
                used[k]--;
                if (record && found == record) {
                    idx_at[d] = i;
                    s->depth = d;
                    s->need = need, s->left = left, s->room = room;
                    s->nodes += nodes;
                    return found;
                }
                continue;
            }
            idx_at[d] = i;
            nodes++;
            need = new_need, left = new_left, room -= size;
            d++;
            cell_at[d] = c2;
            idx_at[d] = -1;
            descended = 1;
            break;
        }
        if (descended) {
            if (nodes >= max_nodes) {
                s->depth = d;
                s->need = need, s->left = left, s->room = room;
                s->nodes += nodes;
                return found;
            }
            continue;
        }
        if (d == 0) {
            s->done = 1;
            s->depth = 0;
            s->nodes += nodes;
            return found;
        }
        d--;
        const i32 p = chosen[d];
        const i32 k = b->prule[p];
        flip_words(b, cov, p);
        rem[k]++;
        used[k]--;
        const i64 size = b->psize[p];
        if (used[k] < b->rmin[k])
            need += size;
        left += size;
        room += size;
    }
}

static void probe_words(Search *s, uint64_t *rng, double est[2])
{
    const Board *b = s->b;
    uint64_t *cov = s->cov;
    i64 *rem = s->rem, *used = s->used;
    i64 need = s->need, left = s->left, room = s->room;
    i32 *viable = s->scratch;
    i32 path[b->max_depth + 1];
    int depth = 0;
    double weight = 1.0;
    if (s->done)
        return;
    i64 c = first_empty(b, cov, 0);
    if (c == b->n) {
        est[1] += need == 0;
        return;
    }
    for (;;) {
        i64 ls = list_words(b, cov, c);
        int nv = 0, tilings = 0;
        for (i64 i = b->wptr[ls]; i < b->wptr[ls + 1]; i++) {
            const i32 p = b->wcand[i];
            const i32 k = b->prule[p];
            if (rem[k] == 0 || (s->banned && s->banned[p]) || !fits_words(b, cov, p))
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
            flip_words(b, cov, p);
            rem[k]--;
            used[k]++;
            int bad = s->regions && bad_region_words(b, s, cov, first_empty(b, cov, c));
            flip_words(b, cov, p);
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
        flip_words(b, cov, p);
        rem[k]--;
        used[k]++;
        left -= size;
        room -= size;
        path[depth++] = p;
        c = first_empty(b, cov, c);
    }
    while (depth > 0) {
        const i32 p = path[--depth];
        flip_words(b, cov, p);
        rem[b->prule[p]]++;
        used[b->prule[p]]--;
    }
}

/* --- Board: the tables, copied from the Python side ------------------------- */

static void *copy_array(PyObject *obj, Py_ssize_t itemsize, Py_ssize_t *count, const char *name)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (view.itemsize != itemsize || view.len % itemsize != 0) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected, got %zd", name, itemsize, view.itemsize);
        PyBuffer_Release(&view);
        return NULL;
    }
    void *out = malloc(view.len ? (size_t)view.len : 1);
    if (!out) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(out, view.buf, (size_t)view.len);
    if (count)
        *count = view.len / itemsize;
    PyBuffer_Release(&view);
    return out;
}

static void Board_dealloc(Board *b)
{
    void *arrays[] = {b->cand_ptr, b->cand, b->wptr, b->wcand, b->wskip, b->mask, b->pw_ptr, b->pw_word,
                      b->pw_bits, b->pc_ptr, b->pcells, b->nb_ptr, b->nb, b->prule, b->psize, b->rsize,
                      b->rmin, b->rmax, b->base};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static int Board_init(Board *b, PyObject *args, PyObject *kw)
{
    static char *names[] = {"kind", "n", "words", "window", "max_depth", "uniform", "connected", "shape",
                            "cand_ptr", "cand", "wptr", "wcand", "wskip", "mask", "pw_ptr", "pw_word",
                            "pw_bits", "pc_ptr", "pcells", "nb_ptr", "nb", "prule", "psize", "rsize",
                            "rmin", "rmax", "base", NULL};
    PyObject *a[19];
    int kind, n, words, window, max_depth, connected;
    long long uniform;
    int L, M, wrap_line, wrap_across;
    unsigned long long f0, f1, l0, l1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iiiiiLp(iippKKKK)OOOOOOOOOOOOOOOOOOO", names, &kind, &n, &words,
                                     &window, &max_depth, &uniform, &connected, &L, &M, &wrap_line,
                                     &wrap_across, &f0, &f1, &l0, &l1, &a[0], &a[1], &a[2], &a[3], &a[4],
                                     &a[5], &a[6], &a[7], &a[8], &a[9], &a[10], &a[11], &a[12], &a[13], &a[14],
                                     &a[15], &a[16], &a[17], &a[18]))
        return -1;
    if (kind < KIND_WORDS || kind > KIND_128 || n < 0 || words < 1 || window < 0 || window > 16
        || max_depth < 1 || (kind == KIND_64 && n > 64) || (kind == KIND_128 && n > 128)) {
        PyErr_SetString(PyExc_ValueError, "Board: inconsistent sizes");
        return -1;
    }
    b->kind = kind, b->n = n, b->words = words, b->window = window, b->max_depth = max_depth;
    b->uniform = uniform, b->connected = connected;
    b->L = L, b->M = M, b->wrap_line = wrap_line, b->wrap_across = wrap_across;
    b->first_cells[0] = f0, b->first_cells[1] = f1, b->last_cells[0] = l0, b->last_cells[1] = l1;
    Py_ssize_t nc, np_, nw, nr, nm, nbase;
    if (!(b->cand_ptr = copy_array(a[0], 8, &nc, "cand_ptr")) || !(b->cand = copy_array(a[1], 4, NULL, "cand"))
        || !(b->wptr = copy_array(a[2], 8, &nw, "wptr")) || !(b->wcand = copy_array(a[3], 4, NULL, "wcand"))
        || !(b->wskip = copy_array(a[4], 4, NULL, "wskip")) || !(b->mask = copy_array(a[5], 8, &nm, "mask"))
        || !(b->pw_ptr = copy_array(a[6], 8, &np_, "pw_ptr"))
        || !(b->pw_word = copy_array(a[7], 4, NULL, "pw_word"))
        || !(b->pw_bits = copy_array(a[8], 8, NULL, "pw_bits"))
        || !(b->pc_ptr = copy_array(a[9], 8, NULL, "pc_ptr"))
        || !(b->pcells = copy_array(a[10], 4, NULL, "pcells"))
        || !(b->nb_ptr = copy_array(a[11], 8, NULL, "nb_ptr")) || !(b->nb = copy_array(a[12], 4, NULL, "nb"))
        || !(b->prule = copy_array(a[13], 4, NULL, "prule")) || !(b->psize = copy_array(a[14], 8, NULL, "psize"))
        || !(b->rsize = copy_array(a[15], 8, &nr, "rsize")) || !(b->rmin = copy_array(a[16], 8, NULL, "rmin"))
        || !(b->rmax = copy_array(a[17], 8, NULL, "rmax")) || !(b->base = copy_array(a[18], 8, &nbase, "base")))
        return -1;
    b->nplace = (i32)(np_ - 1);
    b->nrules = (i32)nr;
    if (nc != n + 1 || nw != ((i64)n << window) + 1 || nbase != words
        || (kind == KIND_64 && nm != b->nplace) || (kind == KIND_128 && nm != 2 * b->nplace)
        || (kind != KIND_WORDS && words != (kind == KIND_64 ? 1 : 2))) {
        PyErr_SetString(PyExc_ValueError, "Board: inconsistent tables");
        return -1;
    }
    if (kind == KIND_128) {  /* (lo, hi) pairs into 16-byte words, aligned */
        u128 *wide = aligned_alloc(16, (size_t)(b->nplace ? b->nplace : 1) * sizeof(u128));
        if (!wide) {
            PyErr_NoMemory();
            return -1;
        }
        const uint64_t *pairs = b->mask;
        for (i32 p = 0; p < b->nplace; p++)
            wide[p] = ((u128)pairs[2 * p + 1] << 64) | pairs[2 * p];
        free(b->mask);
        b->mask = wide;
    }
    b->longest = 0;
    for (i64 ls = 0; ls < ((i64)n << window); ls++)
        if (b->wptr[ls + 1] - b->wptr[ls] > b->longest)
            b->longest = (i32)(b->wptr[ls + 1] - b->wptr[ls]);
    return 0;
}

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tilesat.engines._bitboard.Board",
    .tp_basicsize = sizeof(Board),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An instance's placements as the search reads them (tables built by enumerator.build_tables).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Board_init,
    .tp_dealloc = (destructor)Board_dealloc,
};

/* --- Search ----------------------------------------------------------------- */

static void Search_dealloc(Search *s)
{
    void *arrays[] = {s->cov, s->cov0, s->rem, s->used, s->rem0, s->used0, s->cell_at, s->idx_at, s->chosen,
                      s->vis, s->stack, s->banned, s->scratch, s->out, s->out_len};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    Py_XDECREF(s->b);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int int_list(PyObject *seq, i32 nplace, i32 **out, Py_ssize_t *count, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, "a sequence of placement indices is expected");
    if (!fast)
        return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
    *out = malloc((size_t)(m ? m : 1) * sizeof(i32));
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v >= nplace) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_IndexError, "%s placement %lld out of range 0..%d", what, v, nplace - 1);
            return -1;
        }
        (*out)[i] = (i32)v;
    }
    *count = m;
    Py_DECREF(fast);
    return 0;
}

static int Search_init(Search *s, PyObject *args, PyObject *kw)
{
    static char *names[] = {"board", "forced", "excluded", "regions", "cap", "general", NULL};
    PyObject *board, *forced = NULL, *excluded = NULL;
    int regions = 1, general = 0;
    long long cap = 16;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|OOpLp", names, &BoardType, &board, &forced, &excluded,
                                     &regions, &cap, &general))
        return -1;
    if (s->b) {
        PyErr_SetString(PyExc_RuntimeError, "Search: initialised twice");
        return -1;
    }
    Board *b = (Board *)board;
    Py_INCREF(b);
    s->b = b;
    s->general = general || b->kind == KIND_WORDS;
    s->regions = regions && b->connected;
    s->cap = cap;
    size_t K = (size_t)(b->nrules ? b->nrules : 1), D = (size_t)b->max_depth + 1, W = (size_t)b->words;
    s->cov = calloc(W, 8), s->cov0 = calloc(W, 8);
    s->rem = calloc(K, 8), s->used = calloc(K, 8), s->rem0 = calloc(K, 8), s->used0 = calloc(K, 8);
    s->cell_at = calloc(D, 8), s->idx_at = calloc(D, 8), s->chosen = calloc(D, 8);
    s->vis = calloc((size_t)b->n + 1, 8), s->stack = calloc((size_t)b->n + 1, 8);
    s->scratch = calloc((size_t)b->longest + 1, 4);
    if (!s->cov || !s->cov0 || !s->rem || !s->used || !s->rem0 || !s->used0 || !s->cell_at || !s->idx_at
        || !s->chosen || !s->vis || !s->stack || !s->scratch) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(s->cov, b->base, W * 8);
    memcpy(s->rem, b->rmax, (size_t)b->nrules * 8);
    s->need = 0, s->left = 0, s->room = 0;
    int bounded = 1;
    for (i32 k = 0; k < b->nrules; k++) {
        s->need += b->rmin[k] * b->rsize[k];
        if (b->rmax[k] >= ((i64)1 << 40))
            bounded = 0;
        else
            s->room += b->rmax[k] * b->rsize[k];
    }
    if (!bounded)
        s->room = (i64)1 << 42;
    s->left = 0;
    for (i32 c = 0; c < b->n; c++)
        s->left += !covered_bit(b->base, c);
    /* the forced placements go down first; overlapping ones, or a piece forced too often: no tiling */
    if (forced && forced != Py_None) {
        i32 *f;
        Py_ssize_t m;
        if (int_list(forced, b->nplace, &f, &m, "forced") < 0)
            return -1;
        for (Py_ssize_t j = 0; j < m; j++) {
            i32 p = f[j], k = b->prule[p];
            i64 size = b->psize[p];
            if (!fits_words(b, s->cov, p) || s->rem[k] <= 0)
                s->empty = 1;
            for (i64 e = b->pw_ptr[p]; e < b->pw_ptr[p + 1]; e++)
                s->cov[b->pw_word[e]] |= b->pw_bits[e];
            if (s->used[k] < b->rmin[k])
                s->need -= size;
            s->used[k]++;
            s->rem[k]--;
            s->left -= size;
            s->room -= size;
        }
        free(f);
    }
    if (excluded && excluded != Py_None) {
        i32 *e;
        Py_ssize_t m;
        if (int_list(excluded, b->nplace, &e, &m, "excluded") < 0)
            return -1;
        if (m) {
            s->banned = calloc((size_t)b->nplace, 1);
            if (!s->banned) {
                free(e);
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t j = 0; j < m; j++)
                s->banned[e[j]] = 1;
        }
        free(e);
    }
    if (s->need > s->left || s->room < s->left)
        s->empty = 1;
    s->done = s->empty;
    memcpy(s->cov0, s->cov, W * 8);
    memcpy(s->rem0, s->rem, K * 8);
    memcpy(s->used0, s->used, K * 8);
    s->need0 = s->need, s->left0 = s->left, s->room0 = s->room;
    return 0;
}

static i64 search_run(Search *s, i64 max_nodes, i64 record)
{
    if (s->general)
        return run_words(s, max_nodes, record);
    return s->b->kind == KIND_64 ? run_64(s, max_nodes, record) : run_128(s, max_nodes, record);
}

static PyObject *Search_run(Search *s, PyObject *args, PyObject *kw)
{
    static char *names[] = {"max_nodes", "record", NULL};
    long long max_nodes = -1, record = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|LL", names, &max_nodes, &record))
        return NULL;
    if (max_nodes < 0)
        max_nodes = INT64_MAX;
    if (record < 0) {
        PyErr_SetString(PyExc_ValueError, "record must be at least 0");
        return NULL;
    }
    if (record > s->out_cap) {
        free(s->out);
        free(s->out_len);
        s->out = malloc((size_t)record * (size_t)s->b->max_depth * sizeof(i64));
        s->out_len = malloc((size_t)record * sizeof(i64));
        if (!s->out || !s->out_len) {
            s->out_cap = 0;
            return PyErr_NoMemory();
        }
        s->out_cap = record;
    }
    s->out_n = 0;
    i64 found;
    Py_BEGIN_ALLOW_THREADS
    found = search_run(s, max_nodes, record);
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong(found);
}

static PyObject *Search_take(Search *s, PyObject *unused)
{
    /* The tilings the last run recorded: a tuple of placement-index tuples. */
    PyObject *all = PyTuple_New(s->out_n);
    if (!all)
        return NULL;
    for (i64 t = 0; t < s->out_n; t++) {
        PyObject *one = PyTuple_New(s->out_len[t]);
        if (!one) {
            Py_DECREF(all);
            return NULL;
        }
        for (i64 j = 0; j < s->out_len[t]; j++)
            PyTuple_SET_ITEM(one, j, PyLong_FromLongLong(s->out[t * s->b->max_depth + j]));
        PyTuple_SET_ITEM(all, t, one);
    }
    return all;
}

/* Whether placement p can go down on ``cov`` with the counts ``rem`` (overlap, count, exclusion). */
static inline int open_choice(const Search *s, const uint64_t *cov, const i64 *rem, i32 p)
{
    return rem[s->b->prule[p]] > 0 && !(s->banned && s->banned[p]) && fits_words(s->b, cov, p);
}

static PyObject *Search_split(Search *s, PyObject *unused)
{
    /* Where the search stands, as the work left: a list of (prefix, tried), one per level d
     * of the current path whose untried rest may hold tilings.  The rest of level d holds
     * exactly the tilings that hold the unit's forced placements and ``prefix`` (the path's
     * placements above d) and none of the excluded ones nor of ``tried`` (the placements on
     * level d's cell already tried, the one in progress included).  Their union with the
     * tilings found so far is the unit's. */
    const Board *b = s->b;
    PyObject *out = PyList_New(0);
    if (!out || s->done || !s->started)
        return out;
    size_t W = (size_t)b->words, K = (size_t)b->nrules;
    uint64_t cov[W ? W : 1];
    i64 rem[K ? K : 1];
    memcpy(cov, s->cov0, W * 8);
    memcpy(rem, s->rem0, K * 8);
    for (i64 d = 0; d <= s->depth; d++) {
        i64 start, end, next = s->idx_at[d];
        if (s->general) {
            i64 ls = list_words(b, cov, s->cell_at[d]);
            start = b->wptr[ls], end = b->wptr[ls + 1];
            if (next < 0)
                next = start;
        } else {
            start = b->wptr[s->cell_at[d]], end = b->wptr[s->cell_at[d] + 1];
        }
        int more = 0;
        for (i64 i = next; i < end && !more; i++)
            more = open_choice(s, cov, rem, b->wcand[i]);
        if (more) {
            PyObject *prefix = PyTuple_New(d), *tried = PyList_New(0);
            if (!prefix || !tried) {
                Py_XDECREF(prefix);
                Py_XDECREF(tried);
                Py_DECREF(out);
                return NULL;
            }
            for (i64 j = 0; j < d; j++)
                PyTuple_SET_ITEM(prefix, j, PyLong_FromLongLong(s->chosen[j]));
            for (i64 i = start; i < next; i++) {
                i32 p = b->wcand[i];
                if (open_choice(s, cov, rem, p)) {
                    PyObject *v = PyLong_FromLong(p);
                    PyList_Append(tried, v);
                    Py_DECREF(v);
                }
            }
            PyObject *pair = Py_BuildValue("(NN)", prefix, tried);
            if (!pair || PyList_Append(out, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(pair);
        }
        if (d < s->depth) {  /* down the path */
            i32 p = (i32)s->chosen[d];
            for (i64 e = b->pw_ptr[p]; e < b->pw_ptr[p + 1]; e++)
                cov[b->pw_word[e]] |= b->pw_bits[e];
            rem[b->prule[p]]--;
        }
    }
    return out;
}

static PyObject *Search_estimate(Search *s, PyObject *args)
{
    /* Knuth's estimate of the search from its start: (nodes, tilings), the mean of
     * ``probes`` random paths (seeded); only before the search has started. */
    long long probes, seed;
    if (!PyArg_ParseTuple(args, "LL", &probes, &seed))
        return NULL;
    if (s->started) {
        PyErr_SetString(PyExc_RuntimeError, "estimate() before the search runs");
        return NULL;
    }
    double est[2] = {0.0, 0.0};
    uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0xBF58476D1CE4E5B9ull);
    if (!rng)
        rng = 1;
    Py_BEGIN_ALLOW_THREADS
    for (long long i = 0; i < probes; i++) {
        if (s->general)
            probe_words(s, &rng, est);
        else if (s->b->kind == KIND_64)
            probe_64(s, &rng, est);
        else
            probe_128(s, &rng, est);
    }
    Py_END_ALLOW_THREADS
    if (probes > 0)
        est[0] /= (double)probes, est[1] /= (double)probes;
    return Py_BuildValue("(dd)", est[0], est[1]);
}

static PyObject *Search_get_done(Search *s, void *unused) { return PyBool_FromLong(s->done); }
static PyObject *Search_get_empty(Search *s, void *unused) { return PyBool_FromLong(s->empty); }
static PyObject *Search_get_nodes(Search *s, void *unused) { return PyLong_FromLongLong(s->nodes); }

static PyGetSetDef Search_getset[] = {
    {"done", (getter)Search_get_done, NULL, "the search is over", NULL},
    {"empty", (getter)Search_get_empty, NULL, "the forced placements admit no tiling", NULL},
    {"nodes", (getter)Search_get_nodes, NULL, "nodes entered so far", NULL},
    {NULL},
};

static PyMethodDef Search_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Search_run, METH_VARARGS | METH_KEYWORDS,
     "run(max_nodes=-1, record=0): search on; the tilings found by this call"},
    {"take", (PyCFunction)Search_take, METH_NOARGS, "the tilings the last run recorded"},
    {"split", (PyCFunction)Search_split, METH_NOARGS, "the work left, as (prefix, tried) per level"},
    {"estimate", (PyCFunction)Search_estimate, METH_VARARGS, "estimate(probes, seed): (nodes, tilings)"},
    {NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tilesat.engines._bitboard.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(board, forced=(), excluded=(), regions=True, cap=16, general=False): one resumable search.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bitboard", "The compiled core of the native enumerator.", -1, NULL,
};

PyMODINIT_FUNC PyInit__bitboard(void)
{
    if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&SearchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&BoardType);
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Board", (PyObject *)&BoardType) < 0
        || PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0)
        return NULL;
    PyModule_AddIntConstant(m, "KIND_WORDS", KIND_WORDS);
    PyModule_AddIntConstant(m, "KIND_64", KIND_64);
    PyModule_AddIntConstant(m, "KIND_128", KIND_128);
    return m;
}
