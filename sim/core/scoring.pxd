# C declarations for sim/core/scoring.py, read by Cython only (plain Python ignores this file).
# score_hand sums the card points in C integers.

from canasta_sim.core.state cimport HandState


# The card values by kind (KIND_COUNT = 15).
cdef Py_ssize_t _KIND_VALUE[15]
