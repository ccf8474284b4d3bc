# C declarations for sim/core/state.py, read by Cython only: see sim/core/melding.pxd.  The methods
# below are called from C by the view and the engine (cpdef: still ordinary methods from Python).

cimport cython

# The deal's count of the hands, a C call from _set_up_deal.
from canasta_sim.core.deal cimport _deal_hands
# The move records, their exact types tested in C and their fields read as C members.
from canasta_sim.core.moves cimport Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.stock cimport StockRules

# The card constants the counts and checks below compare with, as C integers.
cdef Py_ssize_t BLACK_THREE, KIND_COUNT, TWO, CANASTA_SIZE

# The phases' own strings, compared by identity (see _is_phase, which the engine and the view call from C).
cdef str _ACQUIRE, _PLAY, _ANSWER, _OVER
cpdef bint _is_phase(phase, str wanted) except -1


cdef class HandState(StockRules):
    cpdef _init_fields(self, rules, dealer, scores, hand_number)
    cpdef _reset_turn(self)
    cpdef is_legal(self, move)
    cpdef bint _verify_move(self, move) except -1
    cpdef apply(self, move)
    cpdef dict meld_table(self, Py_ssize_t side)
    cpdef tuple control(self)
    @cython.locals(naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, count=Py_ssize_t)
    cpdef Py_ssize_t canasta_count(self, Py_ssize_t side) except? -1
    cpdef _start_turn(self)
    cpdef bint verify_discard(self, move) except -1
    cpdef bint can_discard(self, move) except -1
    cpdef discard(self, move)


# The deal's set-up, called by HandState._from_checked_deck with the new state typed.
cdef _set_up_deal(HandState state, tuple deck, Py_ssize_t dealer)

# HandState.__init__'s work on a typed state, and the engine's deal's constructor.
cdef _init_state(HandState state, rules, dealer, scores, hand_number)
cdef HandState _new_state(rules, dealer, scores, hand_number)
