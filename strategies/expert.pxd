# C declarations for strategies/expert.py, read by Cython only (issue #18; plain Python ignores this file).
# The expert's memory and its discard table become extension types: every event and every discard
# decision reads and writes their fields as C struct members instead of looking each up by name.  Every
# field stays readable and writable from Python (pimc copies the memory; the tests compare tables).

cimport cython


cdef class _Memory:
    cdef public list pile, known, avoids, side_melded
    cdef public Py_ssize_t pile_freezers


cdef class _DiscardTable:
    cdef public Py_ssize_t pile_size, opponent_meld_count, taker
    cdef public double pile_worth, share, wild_chance
    cdef public bint opponents_melded, we_melded, hand_may_end, taker_melded, frozen
    cdef public dict our_melds, their_melds
    # Cards of each kind accounted for (KIND_COUNT = 15 kinds): a C array counted in C integers; Python reads
    # and writes it as a list.
    cdef public Py_ssize_t seen[15]


# The least (cost, kind) pair of a discard cost list, as a C call on C doubles (see _cheapest).
@cython.locals(index=Py_ssize_t, best=Py_ssize_t, lowest=double, cost=double)
cpdef tuple _cheapest(list costs)


# on_event's update of a seat's known cards after it laid some: a C call.
@cython.locals(kind=Py_ssize_t)
cdef _forget_played(list known, cards)
