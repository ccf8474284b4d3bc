# C declarations for strategies/greedy.py, read by Cython only (issue #18; plain Python ignores this file).
# choose_discard ranks every kind in hand by _usefulness: declared here, the call is a C call (cpdef: still
# an ordinary function from Python, as tests/test_candidate_order.py uses it).

cimport cython


cpdef Py_ssize_t _usefulness(Py_ssize_t kind, hand, own_melds, their_melds) except? -1


# Read by _kind_usefulness and the loops over kinds: C integers and a C array (KIND_COUNT = 15), not module
# attributes, where compiled.
cdef Py_ssize_t _VALUES, _KIND_COUNT, _BLACK_THREE, _TWO
cdef Py_ssize_t _KIND_VALUE[15]


@cython.locals(points=Py_ssize_t)
cdef Py_ssize_t _kind_usefulness(Py_ssize_t kind, Py_ssize_t held, bint melded) except? -1


# The melds are the view's fresh dicts and the hand its tuple (SeatView.melds, SeatView.hand): typed, they are
# read with CPython's dict and tuple accessors instead of the generic iteration and indexing protocols.
@cython.locals(rank=Py_ssize_t, melded=Py_ssize_t)
cdef Py_ssize_t _melded_ranks(dict own_melds, dict their_melds) except? -1


@cython.locals(kind=Py_ssize_t, held=Py_ssize_t, kinds=Py_ssize_t, last=Py_ssize_t, keys=list)
cdef list _discard_keys(tuple hand, Py_ssize_t melded)


@cython.locals(kind=Py_ssize_t, held=Py_ssize_t, kinds=Py_ssize_t, last=Py_ssize_t, key=Py_ssize_t, least=Py_ssize_t)
cdef Py_ssize_t _least_key(tuple hand, Py_ssize_t melded) except? -2


@cython.locals(kind=Py_ssize_t, cards=Py_ssize_t)
cdef bint _holds_more_than_one(tuple hand) except -1


@cython.locals(count=Py_ssize_t)
cdef Py_ssize_t _take_size(move) except? -1


cdef Py_ssize_t _smallest_take(view) except? -1
