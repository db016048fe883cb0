/* The look-ahead's loop (tilesat.engines.prune): placements in no tiling, to a fixpoint.

   For each placement p in a work queue: count, for every cell c outside p, how many live
   candidates of c overlap p; p dies when that is all of them.  When p dies, every live
   placement that may now die of one of p's cells is queued again (its count for that
   cell may now be complete).

   The loop runs in slices of about `budget` steps and keeps all its state in arrays the
   caller owns, so that the caller can check its deadline and Ctrl-C between slices. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef int64_t i64;

enum { HEAD, TAIL, SIZE, LOST, EXAMS };

static int want(Py_buffer *b, Py_ssize_t n, const char *what) {
    if (b->len != n * (Py_ssize_t)sizeof(i64)) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", what, b->len, n * (Py_ssize_t)sizeof(i64));
        return 0;
    }
    return 1;
}

/* One slice; 1 when the fixpoint is reached (or a cell is lost), 0 when the budget ran out. */
static int run_slice(const i64 *indptr, const i64 *cells, const i64 *cell_indptr, const i64 *cell_ids, i64 P,
                     i64 *alive, i64 *degree, i64 *seen_by, i64 *inside, i64 *count, i64 *touched, i64 *queued,
                     i64 *queue, i64 *ring, i64 budget) {
    i64 work = 0;
    while (ring[SIZE] > 0 && ring[LOST] < 0) {
        if (work >= budget)
            return 0;
        i64 p = queue[ring[HEAD]];
        ring[HEAD] = (ring[HEAD] + 1) % P;
        ring[SIZE]--;
        queued[p] = 0;
        if (!alive[p])
            continue;
        /* this examination's own mark (p may be examined again: its earlier marks must not skip) */
        i64 exam = ring[EXAMS]++;
        for (i64 k = indptr[p]; k < indptr[p + 1]; k++)
            inside[cells[k]] = p;
        i64 ntouched = 0;
        int dies = 0; /* a cell outside p all of whose live candidates overlap p: counted to the end */
        for (i64 k = indptr[p]; k < indptr[p + 1] && !dies; k++) {
            i64 x = cells[k];
            for (i64 j = cell_indptr[x]; j < cell_indptr[x + 1] && !dies; j++) {
                i64 q = cell_ids[j];
                if (!alive[q] || seen_by[q] == exam)
                    continue;
                seen_by[q] = exam;
                for (i64 kk = indptr[q]; kk < indptr[q + 1]; kk++) {
                    i64 c = cells[kk];
                    work++;
                    if (inside[c] == p)
                        continue;
                    if (count[c] == 0)
                        touched[ntouched++] = c;
                    if (++count[c] == degree[c])
                        dies = 1;
                }
            }
        }
        for (i64 i = 0; i < ntouched; i++)
            count[touched[i]] = 0;
        if (!dies)
            continue;
        alive[p] = 0;
        for (i64 k = indptr[p]; k < indptr[p + 1]; k++) {
            i64 x = cells[k];
            if (--degree[x] == 0)
                ring[LOST] = x;
        }
        /* p's cells lost a candidate: a placement r may die of one of them, x, only if
           r does not cover x and every live candidate of x overlaps r, so r overlaps the
           first of them, q (r is found through q's cells), and the last, ql (ql's cells
           marked in `inside` and r seen in `seen_by` with a stamp below -1 for this x:
           the examinations' marks are >= 0, and -1 is "none yet") */
        for (i64 k = indptr[p]; k < indptr[p + 1]; k++) {
            i64 x = cells[k], q = -1, ql = -1;
            for (i64 j = cell_indptr[x]; j < cell_indptr[x + 1] && q < 0; j++)
                if (alive[cell_ids[j]])
                    q = cell_ids[j];
            if (q < 0)
                continue;
            for (i64 j = cell_indptr[x + 1] - 1; ql < 0; j--)
                if (alive[cell_ids[j]])
                    ql = cell_ids[j];
            i64 stamp = -2 - k;
            for (i64 kk = indptr[ql]; kk < indptr[ql + 1]; kk++)
                inside[cells[kk]] = stamp;
            for (i64 kk = indptr[q]; kk < indptr[q + 1]; kk++) {
                i64 y = cells[kk];
                for (i64 jj = cell_indptr[y]; jj < cell_indptr[y + 1]; jj++) {
                    i64 r = cell_ids[jj];
                    work++;
                    if (!alive[r] || queued[r] || seen_by[r] == stamp)
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
                    queued[r] = 1;
                    queue[ring[TAIL]] = r;
                    ring[TAIL] = (ring[TAIL] + 1) % P;
                    ring[SIZE]++;
                }
            }
        }
    }
    return 1;
}

static PyObject *dead_placements_slice(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer b[13];
    long long budget;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*w*w*w*w*w*w*w*L", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &budget))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t P = b[0].len / (Py_ssize_t)sizeof(i64) - 1, ncells = b[2].len / (Py_ssize_t)sizeof(i64) - 1;
    if (P < 1 || ncells < 0 || !want(&b[4], P, "alive") ||
        !want(&b[5], ncells, "degree") || !want(&b[6], P, "seen_by") || !want(&b[7], ncells, "inside") ||
        !want(&b[8], ncells, "count") || !want(&b[9], ncells, "touched") || !want(&b[10], P, "queued") ||
        !want(&b[11], P, "queue") || !want(&b[12], 5, "ring")) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "no placements");
        goto done;
    }
    int finished;
    Py_BEGIN_ALLOW_THREADS
    finished = run_slice(b[0].buf, b[1].buf, b[2].buf, b[3].buf, (i64)P, b[4].buf, b[5].buf, b[6].buf, b[7].buf,
                         b[8].buf, b[9].buf, b[10].buf, b[11].buf, b[12].buf, (i64)budget);
    Py_END_ALLOW_THREADS
    out = PyBool_FromLong(finished);
done:
    for (int i = 0; i < 13; i++)
        PyBuffer_Release(&b[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"dead_placements_slice", dead_placements_slice, METH_VARARGS,
     "dead_placements_slice(indptr, cells, cell_indptr, cell_ids, alive, degree, seen_by, inside, count, touched, "
     "queued, queue, ring, budget) -> True when done (int64 arrays; the last nine are the loop's state, updated)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef prune_module = {PyModuleDef_HEAD_INIT, "_prune", "The look-ahead's compiled loop", -1,
                                          methods};

PyMODINIT_FUNC PyInit__prune(void) { return PyModule_Create(&prune_module); }
