# C declarations for sim/core/asking.py, read by Cython only: see sim/core/melding.pxd.

# The going-out search called from C by going_out_plan, not through the module's Python name.
from canasta_sim.core.going_out cimport _find_meld_out
from canasta_sim.core.pile cimport PileRules

cdef Py_ssize_t _KIND_COUNT, _KEY_BITS, _KEY_LIMIT

# The going-out plan's cache key for a hand (sim/core/asking.py), a C call.
cpdef Py_ssize_t _hand_key(hand) except? -2


cdef class AskingRules(PileRules):
    # Called from C by the hand state, the view and the engine (cpdef: still ordinary methods from Python).
    cpdef going_out_plan(self)
    cpdef can_ask(self, move=*)
    cpdef verify_ask(self, move=*)
    cpdef ask(self, move=*)
    cpdef verify_answer(self, move)
    cpdef answer_ask(self, move)
