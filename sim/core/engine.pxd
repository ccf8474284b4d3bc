# C declarations for sim/core/engine.py, read by Cython only (plain Python ignores this file).
# play_hand asks the seats (sim/core/seats.pxd, an extension type) for decisions and applies their answers
# through its C methods, without a Python method look-up.

cimport cython

# The move records' types: play_hand's exact-type tests compare the type in C.
from canasta_sim.core.moves cimport Answer, Discard, Draw, Meld
from canasta_sim.core.seats cimport Seats
from canasta_sim.core.state cimport HandState, _is_phase


# The phases play_hand tests (sim/core/phases.py), typed.
cdef str _OVER, _ACQUIRE
# The decisions' monitor codes (sim/arbiter/monitor.py), typed: published with a C store.
cdef Py_ssize_t _ACQUIRE_CALL, _ASK_CALL, _ANSWER_CALL, _MELD_CALL, _DISCARD_CALL
cdef Py_ssize_t _HAND_START_CALL, _HAND_END_CALL
