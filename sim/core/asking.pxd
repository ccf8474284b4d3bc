# C declarations for sim/core/asking.py, read by Cython only: see sim/core/melding.pxd.

cimport cython

# The going-out search and its quick reject called from C by going_out_plan, not through the module's Python names.
from canasta_sim.core.going_out cimport _as_list, _search_meld_out, _two_cards_stranded
# Whether a hand holds the very counts the going-out plan was kept for, and that copy refreshed, C calls.
from canasta_sim.core.identities cimport refresh, same_list
from canasta_sim.core.pile cimport PileRules

# The phases the checks compare with, typed: compared as strings, the same object at once.
cdef str ANSWER, PLAY

# The rules can_ask reads, kept as C values per rule set (sim/core/asking.py).
cdef class _AskingRulesRead:
    cdef readonly object rules
    cdef readonly bint asking_off, yes_forces_out

cdef _AskingRulesRead _last_read
@cython.locals(last=_AskingRulesRead)
cdef _AskingRulesRead _asking_rules(rules)


cdef class AskingRules(PileRules):
    # Called from C by the hand state, the view and the engine (cpdef: still ordinary methods from Python).
    cpdef going_out_plan(self)
    @cython.locals(kept=_AskingRulesRead)
    cpdef can_ask(self, move=*)
    cpdef verify_ask(self, move=*)
    cpdef ask(self, move=*)
    cpdef verify_answer(self, move)
    cpdef answer_ask(self, move)
