# C declarations for sim/core/fingerprint.py, read by Cython only (plain Python ignores this file).
# The fingerprint is an extension type: the engine asks holds() and after_move() from C around every move of a
# hand a checked strategy plays, and both read the hand state's C fields and the copies' typed lists.

cimport cython

from canasta_sim.core.identities cimport refresh, same_list
from canasta_sim.core.state cimport HandState


cdef class GameFingerprint:
    cdef public HandState state
    cdef public list hands, stock, pile, melds, red_threes, hand_sizes, melded
    cdef public Py_ssize_t meld_changes, seat, pile_freezers
    cdef public object phase, rules, requirements, scores_before, dealer

    cpdef take(self)
    cpdef after_move(self, Py_ssize_t seat)
    cpdef _take_control(self)
    cpdef bint holds(self) except -1
    cpdef str changed(self)


cdef list _sized_list(live, Py_ssize_t size)
cdef bint _same_lists(live, list copied) except -1
cdef bint _same_melds(live, list flat) except -1
cdef list _flat_melds(side)
cdef _refresh_melds(list flat, live)
