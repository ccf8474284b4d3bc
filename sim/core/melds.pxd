# C declarations for sim/core/melds.py, read by Cython only (plain Python ignores this file).
# The meld checks the rule checks and the searches call on C integers (cpdef: still ordinary functions).

cimport cython

from canasta_sim.core.moves cimport MeldGroup

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

# The card constants the counts below compare with, as C integers.
cdef Py_ssize_t FOUR, JOKER, KIND_COUNT, TWO

# A group's or a take's cards counted in C integers for the hand state's commonest meld and take (sim/core/melding.py,
# sim/core/pile.py), packed in one C integer; the cards read from a typed tuple.
cdef Py_ssize_t _MOST_COUNTED
@cython.locals(items=tuple, kind=Py_ssize_t, index=Py_ssize_t, naturals=Py_ssize_t, jokers=Py_ssize_t,
               deuces=Py_ssize_t)
cpdef Py_ssize_t _natural_counts(rank, cards) except? -2
@cython.locals(record=MeldGroup, counts=Py_ssize_t)
cpdef Py_ssize_t _natural_group_counts(group) except? -2

# A side's meld table (HandState.meld_table) with a rank new to it, built by the lay (sim/core/melding.py) in C.
@cython.locals(known=Py_ssize_t, placed=bint)
cpdef dict _with_rank(dict table, Py_ssize_t rank, tuple counts)
