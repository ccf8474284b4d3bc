# C declarations for sim/state.py, read by Cython only (issue #18): see sim/melding.pxd.  The methods
# below are called from C by the view and the engine (cpdef: still ordinary methods from Python).

from canasta_sim.pile cimport PileRules


cdef class HandState(PileRules):
    cpdef is_legal(self, move)
    cpdef apply(self, move)
    cpdef going_out_plan(self)
    cpdef can_ask(self, move=*)
    cpdef meld_table(self, side)
