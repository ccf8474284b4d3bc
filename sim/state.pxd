# C declarations for sim/state.py, read by Cython only (issue #18): see sim/melding.pxd.

from canasta_sim.pile cimport PileRules


cdef class HandState(PileRules):
    pass
