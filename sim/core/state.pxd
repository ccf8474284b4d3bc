# C declarations for sim/state.py, read by Cython only (issue #18): see sim/melding.pxd.  The methods
# below are called from C by the view and the engine (cpdef: still ordinary methods from Python).

cimport cython

# The going-out search called from C by going_out_plan, not through the module's Python name.
from canasta_sim.core.going_out cimport _find_meld_out
from canasta_sim.core.pile cimport PileRules


# The shuffle's cards (CARD_COUNT = 108) in a C array, returned as a list.
@cython.locals(cards=Py_ssize_t[108])
cpdef list shuffled_deck(rng)


# Each card id's kind (CARD_COUNT = 108), read by the deal.
cdef Py_ssize_t _CARD_KIND[108]


# The deal's count of each seat's cards (4 seats x KIND_COUNT = 15 kinds) in a C array.
@cython.locals(counts=Py_ssize_t[60])
cdef _deal_hands(tuple deck, Py_ssize_t first, list hands, list sizes)


cdef class HandState(PileRules):
    cpdef _init_fields(self, rules, dealer, scores, hand_number)
    cpdef _reset_turn(self)
    cpdef is_legal(self, move)
    cpdef apply(self, move)
    cpdef going_out_plan(self)
    cpdef can_ask(self, move=*)
    cpdef dict meld_table(self, Py_ssize_t side)
    @cython.locals(naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, count=Py_ssize_t)
    cpdef Py_ssize_t canasta_count(self, Py_ssize_t side) except? -1
    cpdef _turn_upcard(self)
    cpdef _lay_dealt_red_threes(self, seat)
    cpdef _start_turn(self)
    cpdef verify_draw(self, move=*)
    cpdef draw(self, move=*)
    cpdef verify_stop(self, move=*)
    cpdef stop(self, move=*)
    cpdef verify_ask(self, move=*)
    cpdef ask(self, move=*)
    cpdef verify_answer(self, move)
    cpdef answer_ask(self, move)
    cpdef verify_discard(self, move)
    cpdef discard(self, move)


# The deal's set-up, called by HandState._from_checked_deck with the new state typed.
cdef _set_up_deal(HandState state, tuple deck, Py_ssize_t dealer)

# HandState.__init__'s work on a typed state, and the engine's deal's constructor.
cdef _init_state(HandState state, rules, dealer, scores, hand_number)
cdef HandState _new_state(rules, dealer, scores, hand_number)
