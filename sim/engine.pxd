# C declarations for sim/engine.py, read by Cython only (issue #18; plain Python ignores this file).
# _Table becomes an extension type: its fields are C struct members and ask/apply are called from
# play_hand without a Python method look-up.  Every field stays readable and writable from Python, and
# the Python subclasses (_StrictTable, _ObservedTable) still override ask and apply.

from cpython.object cimport Py_TYPE, PyTypeObject
from cpython.type cimport PyType_GenericNew

from canasta_sim.state cimport HandState


# The event of a move, built from C (CPython's generic __new__ and each field's slot setter: see _new_event).
cdef _new_event(seat, move, laid)


# Sets a field through its slot's descriptor called from C (what the descriptor's __set__ runs), with no look-up
# of the field by name.
cdef inline int _set_slot(descriptor, target, value) except -1:
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_set(descriptor, target, value)


cdef class _Table:
    cdef public object players, names, seed, time_limit, listeners, clock, graces, monitor, fingerprint
    cdef public object called, last_call, side_bits, guarded, handlers, decisions
    cdef double[:] cells  # the monitor's floats (see _Table.__init__); None without a monitor
    cpdef ask(self, seat, decision, method, view)
    cpdef apply(self, HandState state, seat, decision, move)
