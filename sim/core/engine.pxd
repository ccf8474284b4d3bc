# C declarations for sim/engine.py, read by Cython only (issue #18; plain Python ignores this file).
# _Table becomes an extension type: its fields are C struct members and ask/apply are called from
# play_hand without a Python method look-up.  Every field stays readable and writable from Python, and
# the Python subclasses (_StrictTable, _ObservedTable) still override ask and apply.

from cpython.object cimport Py_TYPE, PyTypeObject
from cpython.type cimport PyType_GenericNew

from canasta_sim.core.state cimport HandState


# The event of a move, built from C (CPython's generic __new__ and each field's slot setter: see _new_event).
cdef _new_event(seat, move, laid)


# Sets a field through its slot's descriptor called from C (what the descriptor's __set__ runs), with no look-up
# of the field by name.
cdef inline int _set_slot(descriptor, target, value) except -1:
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_set(descriptor, target, value)


# The phases (sim/phases.py), typed.
cdef str _OVER, _ACQUIRE, _PLAY, _ANSWER


# Whether the hand's phase is ``constant``, one of the phases above.  The hand state only ever sets those very
# objects, so identity answers at once (a string comparison is a call into CPython that compares the characters);
# any other object is compared by value, as phase == constant would.
cdef inline bint _phase_is(object phase, str constant) except -1:
    if phase is constant:
        return True
    if phase is _OVER or phase is _ACQUIRE or phase is _PLAY or phase is _ANSWER:
        return False
    return phase == constant


cdef class _Table:
    cdef public object players, names, seed, time_limit, listeners, clock, graces, monitor, fingerprint
    cdef public object last_call, side_bits, handlers, decisions
    # C integers: tested before and after every call into strategy code.
    cdef public Py_ssize_t called
    cdef public bint guarded
    cdef double[:] cells  # the monitor's floats (see _Table.__init__); None without a monitor
    # The seat a C integer: it indexes the seats' tuples with no boxed int.
    cpdef ask(self, Py_ssize_t seat, decision, method, view)
    cpdef apply(self, HandState state, Py_ssize_t seat, decision, move)
