# C declarations for sim/core/view.py, read by Cython only (plain Python ignores this file).
# SeatView becomes an extension type: its properties are C getters instead of Python calls, and it reaches
# the hand state's fields (sim/core/melding.pxd) as C struct members.

cimport cython

from canasta_sim.core.legal cimport legal_discards, legal_takes, meld_candidates
from canasta_sim.core.state cimport HandState, _is_phase


cdef Py_ssize_t _KIND_COUNT
cdef str _ANSWER

# Each side question's check, a C call.
cdef int _verify_side(object side) except -1


cdef class SeatView:
    cdef public HandState _state
    cdef public Py_ssize_t _seat
    cdef public object _scores

    # The queries the bots ask most, C calls from a caller that cimports SeatView (the core's helpers for strategies,
    # sim/core/kernels.pxd and sim/core/meld_planning.pxd); still ordinary methods from Python (cpdef), MessageView
    # (sim/plugins/messages.py) included.
    cpdef dict melds(self, side)
    cpdef Py_ssize_t canasta_count(self, side) except? -1
    @cython.locals(melds=list, side_melds=list, meld=list, naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t)
    cpdef Py_ssize_t meld_size(self, Py_ssize_t side, Py_ssize_t rank) except? -1
    @cython.locals(ranks=Py_ssize_t, rank=Py_ssize_t)
    cpdef Py_ssize_t melded_ranks(self, Py_ssize_t side) except? -1
    cpdef has_melded(self, side)
    cpdef bint is_pile_frozen_for(self, side) except -1
    cpdef legal_takes(self)
    cpdef legal_discards(self)
    cpdef meld_candidates(self, bint largest_first=*)
    cpdef bint can(self, move) except -1
    cpdef going_out_plan(self)
    @cython.locals(state=HandState, hands=list, hand=list, sizes=list, pile=list)
    cpdef tuple snapshot(self)
