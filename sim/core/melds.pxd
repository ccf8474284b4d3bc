# C declarations for sim/core/melds.py, read by Cython only (plain Python ignores this file).
# The meld checks the rule checks and the searches call on C integers (cpdef: still ordinary functions).

cimport cython

cpdef Py_ssize_t wild_limit(Py_ssize_t naturals, Py_ssize_t most_wilds, bint wild_ratio) except? -1

@cython.locals(wilds=Py_ssize_t)
cpdef bint meld_fits(rules, rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces) except -1
