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
    if (PyObject_GetBuffer(rows, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    PyObject *result = NULL;
    if (view.ndim != 2 || view.itemsize != 8 || !view.format || view.format[0] == '\0' ||
        strchr("lq", view.format[0]) == NULL || view.format[1] != '\0' || view.shape[1] == 0) {
        PyErr_SetString(PyExc_TypeError, "add_rows: a 2-D C-contiguous int64 matrix of rows of 1 or more");
        goto done;
    }
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

static PyMethodDef methods[] = {
    {"add_rows", add_rows, METH_VARARGS,
     "add_rows(solver, rows, top) -> how many: each row of a 2-D int64 matrix as a clause of a PySAT "
     "CaDiCaL 1.9.5 solver (its .cadical handle); top: the highest variable, reserved first"},
    {"can_add_directly", can_add_directly, METH_NOARGS, "whether CaDiCaL 1.9.5's add() was found"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef clauses_module = {PyModuleDef_HEAD_INIT, "_clauses",
                                            "A formula's clause blocks straight into CaDiCaL", -1, methods};

PyMODINIT_FUNC PyInit__clauses(void) { return PyModule_Create(&clauses_module); }
