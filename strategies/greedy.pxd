# C declarations for strategies/greedy.py, read by Cython only (issue #18; plain Python ignores this file).
# choose_discard ranks every kind in hand by _usefulness: declared here, the call is a C call (cpdef: still
# an ordinary function from Python, as tests/test_candidate_order.py uses it).

cimport cython


cpdef Py_ssize_t _usefulness(Py_ssize_t kind, hand, own_melds, their_melds) except? -1


@cython.locals(kind=Py_ssize_t)
cpdef list _discard_keys(hand, own_melds, their_melds)


@cython.locals(count=Py_ssize_t)
cdef Py_ssize_t _take_size(move) except? -1


cdef Py_ssize_t _smallest_take(view) except? -1
