/* A formula's clause blocks into PySAT's CaDiCaL 1.9.5 from C (tilesat.sat.solvers).

   A formula holds its clauses as integer matrices, one clause a row
   (tilesat.sat.formula).  Through PySAT each clause is a Python list and a call:
   about half a microsecond a clause, 0.2 s of a 460,000-clause P5 80x80 board's
   1.1 s; from here the rows go into Solver::add directly (sat/_cadical_add.h). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_cadical_add.h"

/* The buffer of a 2-D C-contiguous int64 matrix whose rows have `width` literals (any number
   but 0 when width is 0): 1; else 0, the buffer released and a TypeError saying `wanted`. */
static int int64_rows(PyObject *matrix, Py_buffer *view, Py_ssize_t width, const char *wanted) {
    if (PyObject_GetBuffer(matrix, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return 0;
    if (view->ndim != 2 || view->itemsize != 8 || !view->format || view->format[0] == '\0' ||
        strchr("lq", view->format[0]) == NULL || view->format[1] != '\0' ||
        (width ? view->shape[1] != width : view->shape[1] == 0)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, wanted);
        return 0;
    }
    return 1;
}

/* add_rows(solver, rows, top): every row of an int64 C-contiguous matrix as a clause; nothing
   is added unless every literal is a nonzero int within CaDiCaL's range (and no width-0 matrix:
   its rows would be empty clauses). */
static PyObject *add_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *rows;
    long long top;
    if (!PyArg_ParseTuple(args, "OOL", &capsule, &rows, &top))
        return NULL;
    cadical_add_fn add_lit;
    void *solver = cadical_solver(capsule, &add_lit);
    if (!solver)
        return NULL;
    Py_buffer view;
    if (!int64_rows(rows, &view, 0, "add_rows: a 2-D C-contiguous int64 matrix of rows of 1 or more"))
        return NULL;
    PyObject *result = NULL;
    const int64_t *lits = (const int64_t *)view.buf;
    Py_ssize_t n = view.shape[0] * view.shape[1], width = view.shape[1];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (lits[i] == 0 || lits[i] > INT32_MAX || lits[i] < -INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "add_rows: literal %lld is not a nonzero 32-bit int", (long long)lits[i]);
            goto done;
        }
    }
    cadical_reserve_up_to(solver, top);
    for (Py_ssize_t i = 0; i < n; i += width) {
        for (Py_ssize_t j = 0; j < width; j++)
            add_lit(solver, (int)lits[i + j]);
        add_lit(solver, 0);
    }
    result = PyLong_FromSsize_t(view.shape[0]);
done:
    PyBuffer_Release(&view);
    return result;
}

/* unique_pairs(blocks, n, keys, scratch, out) -> (k, r): the binary clauses of these blocks whose
   two literals are both placement literals (|l| <= n), each once, sorted by (smaller, larger)
   literal, in out[:k]; the other rows, in their order, in out[k:k+r].  keys and scratch: int64
   buffers of at least the rows in all; out: a (rows, 2) int64 buffer.  What formula's
   _dedupe_binary did with numpy, in one pass over memory a quarter the size (its temporaries'
   first touches were most of its 0.08 s on a P5 80x80 board). */
static PyObject *unique_pairs(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *blocks, *keys_obj, *scratch_obj, *out_obj;
    long long n;
    if (!PyArg_ParseTuple(args, "O!LOOO", &PyList_Type, &blocks, &n, &keys_obj, &scratch_obj, &out_obj))
        return NULL;
    if (n < 0 || n > (1LL << 30)) {
        PyErr_SetString(PyExc_ValueError, "unique_pairs: n out of range");
        return NULL;
    }
    Py_buffer keys_view, scratch_view, out_view;
    if (PyObject_GetBuffer(keys_obj, &keys_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(scratch_obj, &scratch_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&keys_view);
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&keys_view);
        PyBuffer_Release(&scratch_view);
        return NULL;
    }
    PyObject *result = NULL;
    uint64_t *keys = (uint64_t *)keys_view.buf, *tmp = (uint64_t *)scratch_view.buf;
    int64_t *out = (int64_t *)out_view.buf;
    Py_ssize_t room = keys_view.len / 8;
    if (scratch_view.len / 8 < room)
        room = scratch_view.len / 8;
    if (out_view.len / 16 < room)
        room = out_view.len / 16;
    Py_ssize_t nblocks = PyList_GET_SIZE(blocks), m = 0, r = 0;
    /* one pass over the blocks: the keys of placement pairs; the other rows, in order, at the
       start of out (moved behind the pairs once their number is known) */
    uint64_t base = 2 * (uint64_t)n + 1, top = 0;
    for (Py_ssize_t b = 0; b < nblocks; b++) {
        Py_buffer view;
        if (!int64_rows(PyList_GET_ITEM(blocks, b), &view, 2, "unique_pairs: 2-D C-contiguous int64 matrices of width 2"))
            goto done;
        const int64_t *rows = (const int64_t *)view.buf;
        for (Py_ssize_t i = 0; i < view.shape[0]; i++) {
            int64_t a = rows[2 * i], c = rows[2 * i + 1];
            if (m + r >= room) {
                PyBuffer_Release(&view);
                PyErr_SetString(PyExc_ValueError, "unique_pairs: buffers smaller than the rows");
                goto done;
            }
            if (a >= -n && a <= n && c >= -n && c <= n) {
                int64_t lo = a < c ? a : c, hi = a < c ? c : a;
                uint64_t key = (uint64_t)(lo + n) * base + (uint64_t)(hi + n);
                keys[m++] = key;
                if (key > top)
                    top = key;
            } else {
                out[2 * r] = a;
                out[2 * r + 1] = c;
                r++;
            }
        }
        PyBuffer_Release(&view);
    }
    /* the other rows to the end of the rows (the pairs, at most m, go before them) */
    memmove(out + 2 * m, out, (size_t)r * 2 * sizeof *out);
    /* LSD radix sort, 16 bits a pass, as many passes as the largest key needs */
    static Py_ssize_t count[1 << 16];
    for (int shift = 0; shift < 64 && (top >> shift); shift += 16) {
        memset(count, 0, sizeof count);
        for (Py_ssize_t i = 0; i < m; i++)
            count[(keys[i] >> shift) & 0xffff]++;
        Py_ssize_t sum = 0;
        for (int d = 0; d < (1 << 16); d++) {
            Py_ssize_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (Py_ssize_t i = 0; i < m; i++)
            tmp[count[(keys[i] >> shift) & 0xffff]++] = keys[i];
        uint64_t *swap = keys;
        keys = tmp;
        tmp = swap;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (i && keys[i] == keys[i - 1])
            continue;
        out[2 * k] = (int64_t)(keys[i] / base) - n;
        out[2 * k + 1] = (int64_t)(keys[i] % base) - n;
        k++;
    }
    memmove(out + 2 * k, out + 2 * m, (size_t)r * 2 * sizeof *out);
    result = Py_BuildValue("nn", k, r);
done:
    PyBuffer_Release(&keys_view);
    PyBuffer_Release(&scratch_view);
    PyBuffer_Release(&out_view);
    return result;
}

static PyMethodDef methods[] = {
    {"unique_pairs", unique_pairs, METH_VARARGS,
     "unique_pairs(blocks, n, keys, scratch, out) -> (k, r): the binary clauses over placement literals, "
     "each once and sorted, in out[:k], the other rows in out[k:k+r]"},
    {"add_rows", add_rows, METH_VARARGS,
     "add_rows(solver, rows, top) -> how many: each row of a 2-D int64 matrix as a clause of a PySAT "
     "CaDiCaL 1.9.5 solver (its .cadical handle); top: the highest variable, reserved first"},
    {"can_add_directly", can_add_directly, METH_NOARGS, "whether CaDiCaL 1.9.5's add() was found"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef clauses_module = {PyModuleDef_HEAD_INIT, "_clauses",
                                            "A formula's clause blocks straight into CaDiCaL", -1, methods};

PyMODINIT_FUNC PyInit__clauses(void) { return PyModule_Create(&clauses_module); }
