# C declarations for sim/core/melds.py, read by Cython only (plain Python ignores this file).
# The meld checks the rule checks and the searches call on C integers (cpdef: still ordinary functions).

cimport cython

cpdef Py_ssize_t wild_limit(Py_ssize_t naturals, Py_ssize_t most_wilds, bint wild_ratio) except? -1

# One rule set's wild-card rules as C values (see WildRules), and the record given last.
cdef class WildRules:
    cdef readonly object rules
    cdef readonly Py_ssize_t most_wilds
    cdef readonly bint wild_ratio, wild_only
    cdef readonly dict shapes
    cdef public list shape_table

cdef WildRules _last_wild
@cython.locals(last=WildRules)
cpdef WildRules wild_rules_of(rules)
@cython.locals(wild=WildRules)
cpdef tuple wild_rules(rules)

@cython.locals(wilds=Py_ssize_t, wild=WildRules)
cpdef bint meld_fits(rules, rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces) except -1
