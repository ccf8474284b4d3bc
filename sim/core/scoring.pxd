# C declarations for sim/core/scoring.py, read by Cython only (plain Python ignores this file).
# score_hand sums the card points in C integers.

cimport cython

from canasta_sim.core.state cimport HandState


# The card values by kind (KIND_COUNT = 15).
cdef Py_ssize_t _KIND_VALUE[15]

# Constants as C integers: the loops over kinds are C loops.
cdef Py_ssize_t _KIND_COUNT, _JOKER, _TWO, _WILD_RANK, _CANASTA_SIZE

# R14's parts of a side's score, C calls from score_hand (cpdef: still ordinary functions from Python).
@cython.locals(meld_points=Py_ssize_t, natural=Py_ssize_t, mixed=Py_ssize_t, rank=Py_ssize_t, naturals=Py_ssize_t,
               jokers=Py_ssize_t, deuces=Py_ssize_t)
cpdef tuple meld_totals(HandState state, Py_ssize_t side)

@cython.locals(red_threes=Py_ssize_t)
cpdef object side_red_three_bonus(HandState state, Py_ssize_t side)

@cython.locals(seat=Py_ssize_t, kind=Py_ssize_t, count=Py_ssize_t, penalty=Py_ssize_t)
cpdef Py_ssize_t side_hand_penalty(HandState state, Py_ssize_t side) except? -1


# The results become extension types: their fields are C members, read-only from Python, set in C by
# their constructors.
cdef class _Result:
    pass


cdef class SideHandResult(_Result):
    cdef readonly object side, score, meld_points, canasta_natural, canasta_mixed, canasta_bonus, went_out
    cdef readonly object concealed, going_out_bonus, red_threes, red_three_bonus, hand_penalty, melded
    cdef readonly object initial_requirement, pile_takes, pile_cards_taken, frozen_pile_takes, pile_freezes
    cdef readonly object turns, cards_left


cdef class HandResult(_Result):
    cdef readonly object hand_number, dealer, end_reason, turns, went_out_seat, sides, totals_after
