# C declarations for strategies/greedy.py, read by Cython only (issue #18; plain Python ignores this file).
# choose_discard ranks every kind in hand by _usefulness: declared here, the call is a C call (cpdef: still
# an ordinary function from Python, as tests/core/equivalence/test_candidate_order.py uses it).  The decisions read the view
# as a SeatView, whose query methods are then C calls (sim/view.pxd).

cimport cython
from cpython.object cimport Py_TYPE, PyTypeObject

from canasta_sim.core.view cimport SeatView


# A record's field read through its slot's descriptor called from C: what reading the attribute ends in for a
# record of the descriptor's own class exactly (the caller checks the class), without the look-up by name.
cdef object _MELD_GROUPS, _GROUP_CARDS, _GROUP_RANK

cdef inline object _slot(descriptor, record):
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_get(descriptor, record, <object> Py_TYPE(record))


cpdef Py_ssize_t _usefulness(Py_ssize_t kind, hand, own_melds, their_melds) except? -1


# Read by _kind_usefulness and the loops over kinds: C integers and a C array (KIND_COUNT = 15), not module
# attributes, where compiled.
cdef Py_ssize_t _VALUES, _KIND_COUNT, _BLACK_THREE, _TWO, _CANASTA_SIZE
cdef Py_ssize_t _KIND_VALUE[15]


@cython.locals(points=Py_ssize_t)
cdef Py_ssize_t _kind_usefulness(Py_ssize_t kind, Py_ssize_t held, bint melded) except? -1


cdef bint _is_melded(SeatView view, Py_ssize_t kind, Py_ssize_t side, Py_ssize_t other) except -1


# The hand is the view's tuple (SeatView.hand): typed, it is read with CPython's tuple accessors instead of the
# generic indexing protocol.
@cython.locals(kind=Py_ssize_t, held=Py_ssize_t, kinds=Py_ssize_t, last=Py_ssize_t, keys=list)
cdef list _discard_keys(SeatView view, tuple hand, Py_ssize_t side, Py_ssize_t other)


@cython.locals(count=Py_ssize_t)
cdef Py_ssize_t _take_size(move) except? -1


@cython.locals(top=object)
cdef Py_ssize_t _smallest_take(SeatView view) except? -1
