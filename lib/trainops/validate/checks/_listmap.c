/* trainops.validate.checks._listmap: the list-map check's pre-test in C.
 *
 * all_distinct(plan, value) -> bool
 *
 * `plan` is a tuple of nodes, node 0 the root; a node is a tuple
 *   (props: dict[str, tuple[int, ...]], items: tuple[int, ...], additional: tuple[int, ...],
 *    names: tuple[str, ...] | None, defaults: tuple[object, ...] | None)
 * made by list_map.ListMapChecker from its pruned schema graph (children by index, so recursive schemas
 * need no cycles of tuples). The walk is list_map._walk's; at every map list of two or more items it asks
 * list_map._distinct's question: does every mapping item have key values that are strings (one key) or
 * strings and integers (several keys, missing keys as their default), all different? True means the
 * Python walk would find no duplicate; False means "walk in Python" (a duplicate, or a key value the
 * pre-test does not compare). Property-tested against the Python walk in tests/test_listmap_native.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_NEST 200

static int walk(PyObject *plan, Py_ssize_t index, PyObject *value, int depth);

static int walk_all(PyObject *plan, PyObject *indexes, PyObject *value, int depth) {
    Py_ssize_t n = PyTuple_GET_SIZE(indexes);
    for (Py_ssize_t i = 0; i < n; i++) {
        int ok = walk(plan, PyLong_AsSsize_t(PyTuple_GET_ITEM(indexes, i)), value, depth);
        if (ok != 1) return ok;
    }
    return 1;
}

/* list_map._distinct: 1 when the key values are plain and all different, 0 otherwise, -1 on error. */
static int distinct(PyObject *names, PyObject *defaults, PyObject *items) {
    PyObject *seen = PySet_New(NULL);
    if (seen == NULL) return -1;
    int result = 1;
    Py_ssize_t n = PyList_GET_SIZE(items), keys = PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < n && result == 1; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyDict_CheckExact(item)) continue;
        PyObject *token;
        if (keys == 1) {
            PyObject *v = PyDict_GetItemWithError(item, PyTuple_GET_ITEM(names, 0));
            if (v == NULL && PyErr_Occurred()) {
                result = -1;
                break;
            }
            if (v == NULL || !PyUnicode_CheckExact(v)) {
                result = 0;
                break;
            }
            token = Py_NewRef(v);
        } else {
            token = PyTuple_New(keys);
            if (token == NULL) {
                result = -1;
                break;
            }
            for (Py_ssize_t k = 0; k < keys; k++) {
                PyObject *v = PyDict_GetItemWithError(item, PyTuple_GET_ITEM(names, k));
                if (v == NULL) {
                    if (PyErr_Occurred()) {
                        result = -1;
                        break;
                    }
                    v = PyTuple_GET_ITEM(defaults, k);
                }
                if (!PyUnicode_CheckExact(v) && !PyLong_CheckExact(v)) {
                    result = 0;
                    break;
                }
                PyTuple_SET_ITEM(token, k, Py_NewRef(v));
            }
            if (result != 1) {
                Py_DECREF(token);
                break;
            }
        }
        int found = PySet_Contains(seen, token);
        if (found != 0 || PySet_Add(seen, token) < 0) result = found > 0 ? 0 : -1;
        Py_DECREF(token);
    }
    Py_DECREF(seen);
    return result;
}

static int walk(PyObject *plan, Py_ssize_t index, PyObject *value, int depth) {
    if (depth > MAX_NEST) return 0;
    if (index < 0 || index >= PyTuple_GET_SIZE(plan)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "list-map plan: node index out of range");
        return -1;
    }
    PyObject *node = PyTuple_GET_ITEM(plan, index);
    if (PyDict_Check(value)) {
        PyObject *props = PyTuple_GET_ITEM(node, 0), *additional = PyTuple_GET_ITEM(node, 2);
        PyObject *name, *children;
        Py_ssize_t at = 0;
        while (PyDict_Next(props, &at, &name, &children)) {
            PyObject *child = PyDict_GetItemWithError(value, name);
            if (child == NULL) {
                if (PyErr_Occurred()) return -1;
                continue;
            }
            if (child == Py_None) continue;
            int ok = walk_all(plan, children, child, depth + 1);
            if (ok != 1) return ok;
        }
        if (PyTuple_GET_SIZE(additional) > 0) {
            PyObject *child;
            at = 0;
            while (PyDict_Next(value, &at, &name, &child)) {
                if (child == Py_None) continue;
                int known = PyDict_Contains(props, name);
                if (known < 0) return -1;
                if (known) continue;
                int ok = walk_all(plan, additional, child, depth + 1);
                if (ok != 1) return ok;
            }
        }
    } else if (PyList_Check(value)) {
        PyObject *names = PyTuple_GET_ITEM(node, 3), *items = PyTuple_GET_ITEM(node, 1);
        if (names != Py_None && PyList_GET_SIZE(value) > 1) {
            int ok = distinct(names, PyTuple_GET_ITEM(node, 4), value);
            if (ok != 1) return ok;
        }
        if (PyTuple_GET_SIZE(items) > 0) {
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
                int ok = walk_all(plan, items, PyList_GET_ITEM(value, i), depth + 1);
                if (ok != 1) return ok;
            }
        }
    }
    return 1;
}

static PyObject *all_distinct(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) == 0) {
        PyErr_SetString(PyExc_TypeError, "all_distinct(plan: tuple, value) takes a non-empty plan and a value");
        return NULL;
    }
    int ok = walk(args[0], 0, args[1], 0);
    if (ok < 0) return NULL;
    return PyBool_FromLong(ok);
}

static PyMethodDef METHODS[] = {
    {"all_distinct", (PyCFunction)(void (*)(void))all_distinct, METH_FASTCALL,
     "all_distinct(plan, value) -> bool\n\n"
     "Whether list_map's walk over value finds only map lists whose keys are plain and all different "
     "(see the module source for the plan's shape)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_listmap", "The list-map check's pre-test (see all_distinct).", -1, METHODS,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__listmap(void) { return PyModule_Create(&MODULE); }
