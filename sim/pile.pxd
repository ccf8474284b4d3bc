# C declarations for sim/pile.py, read by Cython only (issue #18): see sim/melding.pxd.

from canasta_sim.melding cimport MeldingRules


cdef class PileRules(MeldingRules):
    pass
