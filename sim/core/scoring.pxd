# C declarations for sim/scoring.py, read by Cython only (issue #18; plain Python ignores this file).
# The results' constructors set their frozen fields with CPython's generic attribute setter called from C
# (what object.__setattr__ runs), and score_hand sums the card points in C integers.

from canasta_sim.core.state cimport HandState


# The card values by kind (KIND_COUNT = 15).
cdef Py_ssize_t _KIND_VALUE[15]
