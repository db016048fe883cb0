/* The clauses of one window of the repairing sweep (tilesat.engines.repair_sweep).

   Each cell the window's placements touch gets "exactly one of its placements or its
   'left empty' variable", encoded pairwise, by ladder or by commander: the clauses of
   tilesat.sat.encodings' encoders, in their order, cells grouped by degree as the
   Python path groups them (tests/test_repair_sweep.py compares the two).  The Python
   path builds them with a few numpy calls per degree and per commander level: on a
   P5 40x40 board that was half of the sweep's time.

   With PySAT's CaDiCaL 1.9.5 the clauses go into the solver from here
   (add_window_clauses): one Python call per clause cost as much again as building
   them.  Its Solver::add is looked up by name in PySAT's own library (dlsym); where it
   is not found the caller adds the clauses window_clauses returns. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include "../sat/_cadical_add.h"

typedef int64_t i64;

enum { PAIRWISE = 0, LADDER = 1, COMMANDER = 2 };
#define GROUP 3

/* The clauses so far: literals back to back, and where each clause ends. */
typedef struct {
    i64 *lits, *ends;
    Py_ssize_t nlits, nclauses, cap_lits, cap_clauses;
    int failed;
} Clauses;

static void add(Clauses *out, const i64 *lits, int n) {
    if (out->failed)
        return;
    if (out->nlits + n > out->cap_lits) {
        Py_ssize_t cap = (out->cap_lits + n) * 2;
        i64 *p = realloc(out->lits, (size_t)cap * sizeof(i64));
        if (!p) {
            out->failed = 1;
            return;
        }
        out->lits = p, out->cap_lits = cap;
    }
    if (out->nclauses + 1 > out->cap_clauses) {
        Py_ssize_t cap = (out->cap_clauses + 1) * 2;
        i64 *p = realloc(out->ends, (size_t)cap * sizeof(i64));
        if (!p) {
            out->failed = 1;
            return;
        }
        out->ends = p, out->cap_clauses = cap;
    }
    for (int i = 0; i < n; i++)
        out->lits[out->nlits++] = lits[i];
    out->ends[out->nclauses++] = out->nlits;
}

static void add2(Clauses *out, i64 a, i64 b) {
    i64 c[2] = {a, b};
    add(out, c, 2);
}

/* lits is m rows of n literals (row-major).  pairs(): each row's (-a, -b), a before b. */
static void pairs(Clauses *out, const i64 *lits, i64 m, i64 n) {
    for (i64 r = 0; r < m; r++)
        for (i64 i = 0; i < n; i++)
            for (i64 j = i + 1; j < n; j++)
                add2(out, -lits[r * n + i], -lits[r * n + j]);
}

static void rows(Clauses *out, const i64 *lits, i64 m, i64 n) {
    for (i64 r = 0; r < m; r++)
        add(out, lits + r * n, (int)n);
}

static void pairwise(Clauses *out, const i64 *lits, i64 m, i64 n) {
    rows(out, lits, m, n);
    if (n > 1)
        pairs(out, lits, m, n);
}

static void ladder(Clauses *out, const i64 *x, i64 m, i64 n, i64 *top) {
    if (n == 1) {
        rows(out, x, m, n);
        return;
    }
    i64 k = n - 1, y0 = *top + 1;
    *top += m * k;
#define Y(r, i) (y0 + (r) * k + (i))
#define X(r, i) (x[(r) * n + (i)])
    for (i64 r = 0; r < m; r++)
        for (i64 i = 1; i < k; i++)
            add2(out, -Y(r, i), Y(r, i - 1));
    for (i64 r = 0; r < m; r++)
        add2(out, X(r, 0), Y(r, 0));
    for (i64 r = 0; r < m; r++)
        add2(out, -X(r, 0), -Y(r, 0));
    for (i64 r = 0; r < m; r++)
        add2(out, -X(r, n - 1), Y(r, n - 2));
    for (i64 r = 0; r < m; r++)
        add2(out, X(r, n - 1), -Y(r, n - 2));
    for (i64 r = 0; r < m; r++)
        for (i64 i = 1; i < n - 1; i++)
            add2(out, -X(r, i), Y(r, i - 1));
    for (i64 r = 0; r < m; r++)
        for (i64 i = 1; i < n - 1; i++)
            add2(out, -X(r, i), -Y(r, i));
    for (i64 r = 0; r < m; r++)
        for (i64 i = 1; i < n - 1; i++) {
            i64 c[3] = {X(r, i), -Y(r, i - 1), Y(r, i)};
            add(out, c, 3);
        }
#undef X
#undef Y
}

static int commander(Clauses *out, const i64 *x, i64 m, i64 n, i64 *top) {
    if (n <= GROUP) {
        rows(out, x, m, n);
        if (n > 1)
            pairs(out, x, m, n);
        return 1;
    }
    i64 full = n / GROUP, rest = n % GROUP, k = full + (rest > 0), c0 = *top + 1;
    *top += m * k;
#define C(r, g) (c0 + (r) * k + (g))
#define X(r, i) (x[(r) * n + (i)])
    for (i64 g = 0; g < full; g++)
        for (i64 r = 0; r < m; r++) {
            i64 cl[GROUP + 1] = {-C(r, g), X(r, GROUP * g), X(r, GROUP * g + 1), X(r, GROUP * g + 2)};
            add(out, cl, GROUP + 1);
        }
    for (i64 g = 0; g < full; g++) {
        for (i64 r = 0; r < m; r++)
            for (int i = 0; i < GROUP; i++)
                for (int j = i + 1; j < GROUP; j++)
                    add2(out, -X(r, GROUP * g + i), -X(r, GROUP * g + j));
        for (i64 r = 0; r < m; r++)
            for (int j = 0; j < GROUP; j++)
                add2(out, -X(r, GROUP * g + j), C(r, g));
    }
    if (rest) {
        i64 b = GROUP * full;
        if (rest > 1)
            for (i64 r = 0; r < m; r++)
                for (i64 i = 0; i < rest; i++)
                    for (i64 j = i + 1; j < rest; j++)
                        add2(out, -X(r, b + i), -X(r, b + j));
        for (i64 r = 0; r < m; r++) {
            i64 cl[GROUP + 1] = {-C(r, full), 0, 0, 0};
            for (i64 j = 0; j < rest; j++)
                cl[1 + j] = X(r, b + j);
            add(out, cl, (int)(1 + rest));
        }
        for (i64 r = 0; r < m; r++)
            for (i64 j = 0; j < rest; j++)
                add2(out, -X(r, b + j), C(r, full));
    }
    i64 *cmd = malloc((size_t)(m * k) * sizeof(i64));
    if (!cmd)
        return 0;
    for (i64 i = 0; i < m * k; i++)
        cmd[i] = c0 + i;
    int ok = commander(out, cmd, m, k, top);
    free(cmd);
    return ok;
#undef X
#undef C
}

static int cmp_i64(const void *a, const void *b) {
    i64 x = *(const i64 *)a, y = *(const i64 *)b;
    return (x > y) - (x < y);
}

/* Every cell's clauses, cells grouped by degree (ascending) as the Python path groups them. */
static int build(Clauses *out, const i64 *own, const i64 *st, const i64 *deg, const i64 *emp, Py_ssize_t ncells,
                 int encoding, i64 *top) {
    i64 *kinds = malloc((size_t)(ncells ? ncells : 1) * sizeof(i64)), *lits = NULL, maxdeg = 0;
    int ok = 0;
    if (!kinds)
        goto done;
    for (Py_ssize_t i = 0; i < ncells; i++) {
        kinds[i] = deg[i];
        if (deg[i] > maxdeg)
            maxdeg = deg[i];
    }
    qsort(kinds, (size_t)ncells, sizeof(i64), cmp_i64);
    lits = malloc((size_t)(ncells ? ncells : 1) * (size_t)(maxdeg + 1) * sizeof(i64));
    if (!lits)
        goto done;
    for (Py_ssize_t a = 0; a < ncells; a++) {
        if (a > 0 && kinds[a] == kinds[a - 1])
            continue;
        i64 d = kinds[a], n = d + 1, m = 0;
        for (Py_ssize_t i = 0; i < ncells; i++) {
            if (deg[i] != d)
                continue;
            for (i64 j = 0; j < d; j++)
                lits[m * n + j] = own[st[i] + j] + 1;
            lits[m * n + d] = emp[i];
            m++;
        }
        if (encoding == PAIRWISE)
            pairwise(out, lits, m, n);
        else if (encoding == LADDER)
            ladder(out, lits, m, n, top);
        else if (!commander(out, lits, m, n, top))
            goto done;
    }
    ok = !out->failed;
done:
    free(kinds);
    free(lits);
    return ok;
}

/* Parses (owner, start, degree, empty, encoding, top) from args[first:] and builds the clauses. */
static int parse_and_build(PyObject *args, Py_ssize_t first, Clauses *out, i64 *top) {
    Py_buffer b[4] = {{0}};
    int encoding, ok = 0;
    long long top_in;
    PyObject *rest = PyTuple_GetSlice(args, first, PyTuple_GET_SIZE(args));
    if (!rest)
        return 0;
    if (!PyArg_ParseTuple(rest, "y*y*y*y*iL", &b[0], &b[1], &b[2], &b[3], &encoding, &top_in)) {
        Py_DECREF(rest);
        return 0;
    }
    Py_DECREF(rest);
    if (b[1].len != b[2].len || b[3].len != b[2].len || encoding < PAIRWISE || encoding > COMMANDER) {
        PyErr_SetString(PyExc_ValueError, "start, degree and empty: one int64 per cell; encoding 0, 1 or 2");
        goto done;
    }
    *top = top_in;
    if (!build(out, b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[2].len / (Py_ssize_t)sizeof(i64), encoding, top)) {
        PyErr_NoMemory();
        goto done;
    }
    ok = 1;
done:
    for (int i = 0; i < 4; i++)
        PyBuffer_Release(&b[i]);
    return ok;
}

static PyObject *window_clauses(PyObject *self, PyObject *args) {
    (void)self;
    Clauses out = {0};
    i64 top = 0;
    PyObject *list = NULL;
    if (!parse_and_build(args, 0, &out, &top))
        goto done;
    list = PyList_New(out.nclauses);
    if (!list)
        goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t c = 0; c < out.nclauses; c++) {
        Py_ssize_t end = out.ends[c];
        PyObject *clause = PyList_New(end - at);
        if (!clause)
            goto fail;
        PyList_SET_ITEM(list, c, clause);
        for (Py_ssize_t i = 0; at < end; i++, at++) {
            PyObject *v = PyLong_FromLongLong(out.lits[at]);
            if (!v)
                goto fail;
            PyList_SET_ITEM(clause, i, v);
        }
    }
    goto done;
fail:
    Py_CLEAR(list);
done:
    free(out.lits);
    free(out.ends);
    return list;
}

static PyObject *add_window_clauses(PyObject *self, PyObject *args) {
    (void)self;
    if (PyTuple_GET_SIZE(args) != 7) {
        PyErr_SetString(PyExc_TypeError, "add_window_clauses(solver, owner, start, degree, empty, encoding, top)");
        return NULL;
    }
    cadical_add_fn add_lit;
    void *solver = cadical_solver(PyTuple_GET_ITEM(args, 0), &add_lit);
    if (!solver)
        return NULL;
    Clauses out = {0};
    i64 top = 0;
    PyObject *result = NULL;
    if (parse_and_build(args, 1, &out, &top)) {
        cadical_reserve_up_to(solver, top);
        Py_ssize_t at = 0;
        for (Py_ssize_t c = 0; c < out.nclauses; c++) {
            for (; at < out.ends[c]; at++)
                add_lit(solver, (int)out.lits[at]);
            add_lit(solver, 0);
        }
        result = PyLong_FromSsize_t(out.nclauses);
    }
    free(out.lits);
    free(out.ends);
    return result;
}

static PyMethodDef methods[] = {
    {"window_clauses", window_clauses, METH_VARARGS,
     "window_clauses(owner, start, degree, empty, encoding, top) -> clauses: int64 arrays; each cell's "
     "placements are owner[start:start + degree] (0-based, variable = owner + 1), its 'left empty' variable "
     "empty; encoding 0 pairwise, 1 ladder, 2 commander; auxiliaries after top"},
    {"add_window_clauses", add_window_clauses, METH_VARARGS,
     "add_window_clauses(solver, owner, start, degree, empty, encoding, top) -> how many: the same clauses "
     "added to a PySAT CaDiCaL 1.9.5 solver (its .cadical handle)"},
    {"can_add_directly", can_add_directly, METH_NOARGS, "whether add_window_clauses found CaDiCaL 1.9.5's add()"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef window_module = {PyModuleDef_HEAD_INIT, "_window",
                                           "The repairing sweep's window clauses", -1, methods};

PyMODINIT_FUNC PyInit__window(void) { return PyModule_Create(&window_module); }
