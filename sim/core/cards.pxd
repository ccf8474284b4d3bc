# C declarations for sim/core/cards.py, read by Cython only (plain Python ignores this file).
# The runs of one kind the move records' groups are joined from (sim/core/moves.py), read by a C call.

cimport cython

cdef Py_ssize_t _MOST_IN_RUN
cdef tuple _KIND_RUNS
cpdef tuple _kind_run(kind, count)
