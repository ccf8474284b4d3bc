# C declarations for sim/core/melds.py, read by Cython only (plain Python ignores this file).
# The meld checks the rule checks and the searches call on C integers (cpdef: still ordinary functions).

cimport cython

from canasta_sim.core.moves cimport MeldGroup

cpdef Py_ssize_t wild_limit(Py_ssize_t naturals, Py_ssize_t most_wilds, bint wild_ratio) except? -1

# The rule set's wild-card rules, read once per rule set (see wild_rules).
cdef object _rules_seen
cdef Py_ssize_t _most_wilds
cdef bint _wild_ratio, _wild_only
cdef void _read_wild_rules(rules) except *
cpdef tuple wild_rules(rules)

@cython.locals(wilds=Py_ssize_t)
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
