# C declarations for sim/core/pile.py, read by Cython only: see sim/core/melding.pxd.

from canasta_sim.core.going_out cimport _as_list
from canasta_sim.core.melding cimport MeldingRules
from canasta_sim.core.melds cimport _natural_counts, meld_fits
from canasta_sim.core.moves cimport TakePile

# The card constants the checks compare with, as C integers.
cdef Py_ssize_t BLACK_THREE, FOUR, JOKER, KIND_COUNT, RED_THREE, TWO

# One count of a take's packed counts (melds._natural_counts), unpacked in C.
cdef Py_ssize_t _COUNT_MASK

# The initial meld's card values by kind (KIND_COUNT = 15), summed in C integers.
cdef Py_ssize_t _KIND_VALUE[15]


cdef class PileRules(MeldingRules):
    # Called from C by the hand state's checks and moves (cpdef: still ordinary methods from Python).
    cpdef bint is_pile_blocked(self)
    cpdef bint is_pile_frozen_for(self, side)
    cpdef bint verify_take_pile(self, move) except -1
    cpdef bint _is_plain_take_legal(self, move, Py_ssize_t top) except -1
    cpdef _verify_pile_open(self, move)
    cpdef _verify_top_card_meld(self, move, top, Py_ssize_t side, Py_ssize_t naturals, Py_ssize_t jokers,
                                Py_ssize_t deuces)
    cpdef bint can_take_pile(self, move) except -1
    cpdef take_pile(self, move)
    cpdef must_take_pile(self)
