/* CaDiCaL 1.9.5's Solver::add(int) and Solver::reserve(int), looked up by name in PySAT's own
   library (dlsym): clauses go into its solver from C, not one Python call per clause.
   Included by tilesat/sat/_clauses.c (a formula's clause blocks) and
   tilesat/engines/_window.c (the repairing sweep's windows). */

#ifndef TILESAT_CADICAL_ADD_H
#define TILESAT_CADICAL_ADD_H

#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>

/* CaDiCaL 1.9.5's Solver::add(int), as PySAT's library exports it (NULL: not found), and its
   Solver::reserve(int), which sizes the variables' tables once instead of doubling them as the
   clauses name new variables (NULL where not exported: then the tables grow as before). */
typedef void (*cadical_add_fn)(void *solver, int lit);
typedef void (*cadical_reserve_fn)(void *solver, int max_var);
static cadical_reserve_fn cadical_reserve = NULL;
static cadical_add_fn cadical_add(void) {
    static int looked = 0;
    static cadical_add_fn found = NULL;
    if (looked)
        return found;
    looked = 1;
    PyObject *module = PyImport_ImportModule("pysolvers");
    if (!module) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *file = PyObject_GetAttrString(module, "__file__");
    Py_DECREF(module);
    const char *path = file ? PyUnicode_AsUTF8(file) : NULL;
    void *lib = path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (lib) {
        found = (cadical_add_fn)dlsym(lib, "_ZN10CaDiCaL1956Solver3addEi");
        cadical_reserve = (cadical_reserve_fn)dlsym(lib, "_ZN10CaDiCaL1956Solver7reserveEi");
    }
    Py_XDECREF(file);
    PyErr_Clear();
    return found;
}

/* Size the solver's variable tables for variables up to top at once (where reserve() was found). */
static void cadical_reserve_up_to(void *solver, long long top) {
    if (cadical_reserve && top > 0 && top <= INT32_MAX)
        cadical_reserve(solver, (int)top);
}

/* The CaDiCaL solver behind a PySAT CaDiCaL 1.9.5 handle (its .cadical capsule), with *add set to
   its add(); NULL with a Python error set where either is missing. */
static void *cadical_solver(PyObject *capsule, cadical_add_fn *add) {
    void *solver = PyCapsule_CheckExact(capsule) ? PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule)) : NULL;
    *add = cadical_add();
    if (!solver || !*add) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "not a PySAT CaDiCaL 1.9.5 solver, or its add() not found");
        return NULL;
    }
    return solver;
}

/* can_add_directly() -> whether CaDiCaL 1.9.5's add() was found: the module function of both users. */
static PyObject *can_add_directly(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyBool_FromLong(cadical_add() != NULL);
}

#endif
