# C declarations for sim/core/asking.py, read by Cython only: see sim/core/melding.pxd.

# The going-out search called from C by going_out_plan, not through the module's Python name.
from canasta_sim.core.going_out cimport _find_meld_out
# Whether a hand holds the very counts the going-out plan was kept for, and that copy refreshed, C calls.
from canasta_sim.core.moves cimport _refresh, _same_list
from canasta_sim.core.pile cimport PileRules

# The phases the checks compare with, typed: compared as strings, the same object at once.
cdef str ANSWER, PLAY

# The rules can_ask reads, kept as C values per rule set (sim/core/asking.py).
cdef object _rules_seen
cdef bint _asking_off, _yes_forces_out
cdef void _read_asking_rules(rules) except *


cdef class AskingRules(PileRules):
    # Called from C by the hand state, the view and the engine (cpdef: still ordinary methods from Python).
    cpdef going_out_plan(self)
    cpdef can_ask(self, move=*)
    cpdef verify_ask(self, move=*)
    cpdef ask(self, move=*)
    cpdef verify_answer(self, move)
    cpdef answer_ask(self, move)
