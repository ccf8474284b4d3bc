# C declarations for sim/moves.py, read by Cython only (issue #18; plain Python ignores this file).
# The move records' constructors set their frozen fields with CPython's generic attribute setter called
# from C (what object.__setattr__ runs), and MeldGroup.of makes its bare instance with CPython's generic
# __new__ (what object.__new__ runs); see the note above MeldGroup in sim/moves.py.

cimport cython
from cpython.object cimport Py_TYPE, PyObject_GenericSetAttr, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.type cimport PyType_GenericNew


# Sets a field through its slot's descriptor called from C (what object.__setattr__ ends in for a record of the
# descriptor's own class), with no look-up of the field by name: MeldGroup.of builds groups by the thousand.
cdef inline int _set_slot(descriptor, target, value) except -1:
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_set(descriptor, target, value)


# A group's cards, ``naturals`` of ``natural``, then the jokers, then the 2s, as one tuple filled from C.
@cython.locals(position=Py_ssize_t)
cdef tuple _group_cards(natural, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces)
