/* The look-ahead's loop (tilesat.engines.prune): placements in no tiling, to a fixpoint.

   A live placement r dies of a cell x outside it when it meets every live candidate of x.
   Each cell is checked once (every r that dies of it killed), and again each time it loses
   a candidate (a death among its placements): only then can more placements die of it.
   Checking cells, not placements, finds the same fixpoint (deaths only make more
   placements die) 2.5-9 times faster (docs/benchmarks/hard-families.md).

   Probing (probe_slice), after that fixpoint: put p down and propagate, cell by cell,
   what that forces (a cell left with one candidate gets it); p dies when some open cell
   is left with none.  Rounds over every live placement, until one kills nothing or the
   caller's cap on rounds (prune.ROUNDS).

   Each death is logged with its reason (the cell left with no candidate and the forced
   placements that led there), so that code other than this file can replay it
   (tilesat.certify.deaths) before "no tiling" is said on its strength.

   The loops run in slices of about `budget` steps and keep all their state in arrays the
   caller owns, so that the caller can check its deadline and Ctrl-C between slices. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef int64_t i64;

enum { HEAD, TAIL, SIZE, LOST, CHECKS };
/* the death log's counters (shared by both loops): deaths so far, chain entries used */
enum { NKILLS, CHAIN };

/* A death: p, the cell its placing leaves without a candidate, and where its forced
   chain (placement, cell it was forced for) ends in `chain`. */
static void log_kill(i64 *kill_p, i64 *kill_cell, i64 *kill_end, i64 *logc, i64 p, i64 cell) {
    kill_p[logc[NKILLS]] = p;
    kill_cell[logc[NKILLS]] = cell;
    kill_end[logc[NKILLS]++] = logc[CHAIN];
}

static int want(Py_buffer *b, Py_ssize_t n, const char *what) {
    if (b->len != n * (Py_ssize_t)sizeof(i64)) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", what, b->len, n * (Py_ssize_t)sizeof(i64));
        return 0;
    }
    return 1;
}

/* `touched` entries are 0 but for the cells of the placement whose meeting is being checked */
#define MARK 1

/* The queue's entries: a cell to check (x >= 0) or a dead placement whose cells lost a candidate (-1 - p). */
static void push(i64 *queue, i64 *ring, i64 Q, i64 entry) {
    queue[ring[TAIL]] = entry;
    ring[TAIL] = (ring[TAIL] + 1) % Q;
    ring[SIZE]++;
}

/* Cell x's check: every live r that does not cover x and meets all of x's live candidates
   dies (of x), and its cells are queued for a check.  Such an r meets the first of them,
   q (r is found through q's cells), and the last, ql (ql's cells marked in `inside` with
   this check's stamp, below -1; r seen in `seen_by` with it); the others are checked for
   the few that get that far (r's cells marked in `touched`).  Returns the work done. */
static i64 check_cell(i64 x, const i64 *indptr, const i64 *cells, const i64 *cell_indptr, const i64 *cell_ids,
                      i64 Q, i64 *alive, i64 *degree, i64 *seen_by, i64 *inside, i64 *touched, i64 *queue,
                      i64 *ring, i64 *kill_p, i64 *kill_cell, i64 *kill_end, i64 *logc) {
    i64 work = 1, q = -1, ql = -1;
    for (i64 j = cell_indptr[x]; j < cell_indptr[x + 1] && q < 0; j++)
        if (alive[cell_ids[j]])
            q = cell_ids[j];
    if (q < 0)
        return work;
    for (i64 j = cell_indptr[x + 1] - 1; ql < 0; j--)
        if (alive[cell_ids[j]])
            ql = cell_ids[j];
    i64 stamp = -2 - ring[CHECKS]++;
    for (i64 k = indptr[ql]; k < indptr[ql + 1]; k++)
        inside[cells[k]] = stamp;
    for (i64 k = indptr[q]; k < indptr[q + 1]; k++) {
        i64 y = cells[k];
        for (i64 j = cell_indptr[y]; j < cell_indptr[y + 1]; j++) {
            i64 r = cell_ids[j];
            work++;
            if (!alive[r] || seen_by[r] == stamp)
                continue;
            seen_by[r] = stamp;
            int covers_x = 0, meets_last = 0;
            for (i64 m = indptr[r]; m < indptr[r + 1]; m++) {
                i64 c = cells[m];
                work++;
                covers_x |= c == x;
                meets_last |= inside[c] == stamp;
            }
            if (covers_x || !meets_last)
                continue;
            for (i64 m = indptr[r]; m < indptr[r + 1]; m++)
                touched[cells[m]] = MARK;
            int meets_all = 1;
            for (i64 jx = cell_indptr[x]; jx < cell_indptr[x + 1] && meets_all; jx++) {
                i64 o = cell_ids[jx];
                if (!alive[o] || o == q || o == ql)
                    continue;
                int meets = 0;
                for (i64 m = indptr[o]; m < indptr[o + 1] && !meets; m++) {
                    work++;
                    meets = touched[cells[m]] == MARK;
                }
                meets_all = meets;
            }
            for (i64 m = indptr[r]; m < indptr[r + 1]; m++)
                touched[cells[m]] = 0;
            if (!meets_all)
                continue;
            alive[r] = 0;
            log_kill(kill_p, kill_cell, kill_end, logc, r, x);
            for (i64 m = indptr[r]; m < indptr[r + 1]; m++)
                if (--degree[cells[m]] == 0)
                    ring[LOST] = cells[m];
            push(queue, ring, Q, -1 - r);
        }
    }
    return work;
}

/* One slice; 1 when the fixpoint is reached (or a cell is lost), 0 when the budget ran out.
   The caller queues every cell first; each placement is queued at most once more, when it
   dies, so a queue of Q = placements + cells entries never overflows. */
static int run_slice(const i64 *indptr, const i64 *cells, const i64 *cell_indptr, const i64 *cell_ids, i64 Q,
                     i64 *alive, i64 *degree, i64 *seen_by, i64 *inside, i64 *touched, i64 *queue, i64 *ring,
                     i64 *kill_p, i64 *kill_cell, i64 *kill_end, i64 *logc, i64 budget) {
    i64 work = 0;
    while (ring[SIZE] > 0 && ring[LOST] < 0) {
        if (work >= budget)
            return 0;
        i64 entry = queue[ring[HEAD]];
        ring[HEAD] = (ring[HEAD] + 1) % Q;
        ring[SIZE]--;
        if (entry >= 0) {
            work += check_cell(entry, indptr, cells, cell_indptr, cell_ids, Q, alive, degree, seen_by, inside, touched,
                               queue, ring, kill_p, kill_cell, kill_end, logc);
            continue;
        }
        i64 p = -1 - entry;
        for (i64 k = indptr[p]; k < indptr[p + 1] && ring[LOST] < 0; k++)
            work += check_cell(cells[k], indptr, cells, cell_indptr, cell_ids, Q, alive, degree, seen_by, inside,
                               touched, queue, ring, kill_p, kill_cell, kill_end, logc);
    }
    return 1;
}

static PyObject *dead_placements_slice(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer b[15];
    long long budget;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*w*w*w*w*w*w*w*w*w*L", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &b[14], &budget))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t P = b[0].len / (Py_ssize_t)sizeof(i64) - 1, ncells = b[2].len / (Py_ssize_t)sizeof(i64) - 1;
    if (P < 1 || ncells < 0 || !want(&b[4], P, "alive") || !want(&b[5], ncells, "degree") ||
        !want(&b[6], P, "seen_by") || !want(&b[7], ncells, "inside") || !want(&b[8], ncells, "touched") ||
        !want(&b[9], P + ncells, "queue") || !want(&b[10], 5, "ring") || !want(&b[11], P, "kill_p") ||
        !want(&b[12], P, "kill_cell") || !want(&b[13], P, "kill_end") || !want(&b[14], 2, "log")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "no placements");
        goto done;
    }
    int finished;
    Py_BEGIN_ALLOW_THREADS
    finished = run_slice(b[0].buf, b[1].buf, b[2].buf, b[3].buf, (i64)(P + ncells), b[4].buf, b[5].buf, b[6].buf,
                         b[7].buf, b[8].buf, b[9].buf, b[10].buf, b[11].buf, b[12].buf, b[13].buf, b[14].buf,
                         (i64)budget);
    Py_END_ALLOW_THREADS
    out = PyBool_FromLong(finished);
done:
    for (int i = 0; i < 15; i++)
        PyBuffer_Release(&b[i]);
    return out;
}

/* ---- probing ---- */

/* the probing loop's counters: next placement of this round, deaths in this round,
   rounds done, the last probe's stamp, probes made, the lost cell (-1: none) */
enum { NEXT, ROUND_KILLS, ROUNDS, STAMP, PROBES, PLOST };

typedef struct {
    const i64 *indptr, *cells, *cell_indptr, *cell_ids;
    i64 *alive, *degree, *covered, *blocked, *avail, *avail_at, *stack;
    i64 top, stamp, work;
} Probe;

/* Put q down: its cells covered, every live placement meeting them blocked, and each open
   cell's count of unblocked candidates lowered; a cell left with one is stacked (forced).
   Returns a cell left with none, or -1. */
static i64 place(Probe *s, i64 q) {
    s->blocked[q] = s->stamp;
    for (i64 k = s->indptr[q]; k < s->indptr[q + 1]; k++)
        s->covered[s->cells[k]] = s->stamp;
    for (i64 k = s->indptr[q]; k < s->indptr[q + 1]; k++) {
        i64 x = s->cells[k];
        for (i64 j = s->cell_indptr[x]; j < s->cell_indptr[x + 1]; j++) {
            i64 r = s->cell_ids[j];
            if (!s->alive[r] || s->blocked[r] == s->stamp)
                continue;
            s->blocked[r] = s->stamp;
            for (i64 m = s->indptr[r]; m < s->indptr[r + 1]; m++) {
                i64 d = s->cells[m];
                s->work++;
                if (s->covered[d] == s->stamp)
                    continue;
                if (s->avail_at[d] != s->stamp) {
                    s->avail_at[d] = s->stamp;
                    s->avail[d] = s->degree[d];
                }
                if (--s->avail[d] == 0)
                    return d;
                if (s->avail[d] == 1)
                    s->stack[s->top++] = d;
            }
        }
    }
    return -1;
}

/* p's probe: the cell left without a candidate (the forced chain appended to `chain`), or -1. */
static i64 probe(Probe *s, i64 p, i64 *chain, i64 *logc) {
    s->stamp++;
    s->top = 0;
    i64 used = logc[CHAIN];
    i64 empty = place(s, p);
    while (empty < 0 && s->top > 0) {
        i64 d = s->stack[--s->top];
        if (s->covered[d] == s->stamp)
            continue;
        i64 q = -1;
        for (i64 j = s->cell_indptr[d]; j < s->cell_indptr[d + 1] && q < 0; j++) {
            i64 r = s->cell_ids[j];
            s->work++;
            if (s->alive[r] && s->blocked[r] != s->stamp)
                q = r;
        }
        chain[used++] = q;
        chain[used++] = d;
        empty = place(s, q);
    }
    if (empty >= 0)
        logc[CHAIN] = used; /* kept only for a death */
    return empty;
}

/* One slice of probing rounds: 1 when done (a round killed nothing, `rounds` rounds ran or a
   cell is lost), 0 when the budget ran out, 2 when `chain` needs more room first. */
static int run_probes(Probe *s, i64 P, i64 ncells, i64 *kill_p, i64 *kill_cell, i64 *kill_end, i64 *logc,
                      i64 *chain, i64 chain_size, i64 *pst, i64 rounds, i64 budget) {
    s->stamp = pst[STAMP];
    s->work = 0;
    int status = 1;
    while (pst[PLOST] < 0) {
        if (pst[NEXT] >= P) {
            pst[ROUNDS]++;
            if (pst[ROUND_KILLS] == 0 || pst[ROUNDS] >= rounds)
                break;
            pst[NEXT] = pst[ROUND_KILLS] = 0;
        }
        if (s->work >= budget) {
            status = 0;
            break;
        }
        if (chain_size - logc[CHAIN] < 2 * ncells + 2) { /* a chain covers each cell once at most */
            status = 2;
            break;
        }
        i64 p = pst[NEXT]++;
        if (!s->alive[p])
            continue;
        pst[PROBES]++;
        i64 empty = probe(s, p, chain, logc);
        if (empty < 0)
            continue;
        s->alive[p] = 0;
        pst[ROUND_KILLS]++;
        log_kill(kill_p, kill_cell, kill_end, logc, p, empty);
        for (i64 k = s->indptr[p]; k < s->indptr[p + 1]; k++)
            if (--s->degree[s->cells[k]] == 0)
                pst[PLOST] = s->cells[k];
    }
    pst[STAMP] = s->stamp;
    return status;
}

static PyObject *probe_slice(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer b[17];
    long long rounds, budget;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*w*w*w*w*w*w*w*w*w*w*w*LL", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &b[14], &b[15], &b[16],
                          &rounds, &budget))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t P = b[0].len / (Py_ssize_t)sizeof(i64) - 1, ncells = b[2].len / (Py_ssize_t)sizeof(i64) - 1;
    if (P < 1 || ncells < 0 || !want(&b[4], P, "alive") || !want(&b[5], ncells, "degree") ||
        !want(&b[6], ncells, "covered") || !want(&b[7], P, "blocked") || !want(&b[8], ncells, "avail") ||
        !want(&b[9], ncells, "avail_at") || !want(&b[10], ncells, "stack") || !want(&b[11], P, "kill_p") ||
        !want(&b[12], P, "kill_cell") || !want(&b[13], P, "kill_end") || !want(&b[14], 2, "log") ||
        !want(&b[16], 6, "probing")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "no placements");
        goto done;
    }
    Probe s = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf,
               b[9].buf, b[10].buf, 0, 0, 0};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run_probes(&s, (i64)P, (i64)ncells, b[11].buf, b[12].buf, b[13].buf, b[14].buf, b[15].buf,
                        (i64)(b[15].len / (Py_ssize_t)sizeof(i64)), b[16].buf, (i64)rounds, (i64)budget);
    Py_END_ALLOW_THREADS
    out = PyLong_FromLong(status);
done:
    for (int i = 0; i < 17; i++)
        PyBuffer_Release(&b[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"dead_placements_slice", dead_placements_slice, METH_VARARGS,
     "dead_placements_slice(indptr, cells, cell_indptr, cell_ids, alive, degree, seen_by, inside, touched, queue, "
     "ring, kill_p, kill_cell, kill_end, log, budget) -> True when done (int64 arrays; the ones after cell_ids are "
     "the loop's state and the death log, updated; queue: placements + cells entries, the cells first)"},
    {"probe_slice", probe_slice, METH_VARARGS,
     "probe_slice(indptr, cells, cell_indptr, cell_ids, alive, degree, covered, blocked, avail, avail_at, stack, "
     "kill_p, kill_cell, kill_end, log, chain, probing, rounds, budget) -> 1 done, 0 budget spent, 2 chain full "
     "(int64 arrays; the ones after cell_ids are the loop's state and the death log, updated)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef prune_module = {PyModuleDef_HEAD_INIT, "_prune", "The look-ahead's compiled loops", -1,
                                          methods};

PyMODINIT_FUNC PyInit__prune(void) { return PyModule_Create(&prune_module); }
