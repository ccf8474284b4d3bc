# C declarations for sim/scoring.py, read by Cython only (issue #18; plain Python ignores this file).
# The results' constructors set their frozen fields with CPython's generic attribute setter called from C
# (what object.__setattr__ runs), and score_hand sums the card points in C integers.

from cpython.object cimport Py_TYPE, PyObject_GenericSetAttr, PyTypeObject

from canasta_sim.core.state cimport HandState


# Sets a field through its slot's descriptor called from C (what object.__setattr__ ends in for a record of the
# descriptor's own class), with no look-up of the field by name.
cdef inline int _set_slot(descriptor, target, value) except -1:
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_set(descriptor, target, value)

# The card values by kind (KIND_COUNT = 15).
cdef Py_ssize_t _KIND_VALUE[15]
