# C declarations for sim/core/meld_search.py, read by Cython only (plain Python ignores this file).
# The searches are C functions calling each other (cpdef: still ordinary functions from Python).

cimport cython

from canasta_sim.core.melds cimport WildRules, wild_limit, wild_rules_of
from canasta_sim.core.moves cimport _group_of
from canasta_sim.core.state cimport HandState

# The card constants the searches index counts with, as C integers.
cdef Py_ssize_t _JOKER, _TWO, _FOUR, _KIND_COUNT

# The card values by kind (KIND_COUNT = 15), for the searches' points in C integers.
cdef Py_ssize_t _KIND_VALUE[15]
cdef Py_ssize_t _JOKER_POINTS, _DEUCE_POINTS

@cython.locals(
    minimum=Py_ssize_t, hand_size=Py_ssize_t, index=Py_ssize_t, seat=Py_ssize_t, buckets=list, ordered=list,
    options=list, most_points=list, most_cards=list, best_points=list, best_cards=list,
)
cpdef list _openings_most_laid_first(HandState state)




# The openings' and the extra melds' search, a C function calling itself (plain Python runs the def).
@cython.locals(
    joker_points=Py_ssize_t, deuce_points=Py_ssize_t, rank_points=Py_ssize_t, naturals=Py_ssize_t,
    jokers=Py_ssize_t, deuces=Py_ssize_t, bucket=Py_ssize_t, shapes=list, shape=tuple, rank=Py_ssize_t,
    most_more_points=Py_ssize_t, most_more_cards=Py_ssize_t,
)
cdef void _walk_sets(list options, Py_ssize_t index, Py_ssize_t jokers_left, Py_ssize_t deuces_left,
                     Py_ssize_t cards, Py_ssize_t points, list chosen, Py_ssize_t depth, list most_points, list most_cards,
                     Py_ssize_t minimum, Py_ssize_t hand_size, bint by_cards, list buckets) except *


@cython.locals(
    rank=Py_ssize_t, most_wilds=Py_ssize_t, joker_limit=Py_ssize_t, deuce_limit=Py_ssize_t, held=Py_ssize_t,
    excluded=Py_ssize_t, options=list, shapes=list, held_jokers=Py_ssize_t, held_deuces=Py_ssize_t,
    black_three=Py_ssize_t, bounded=bint, found=tuple, wild=WildRules,
)
cpdef list _group_options(rules, counts, exclude, list best_points=*, list best_cards=*)


# Each natural rank's shapes, kept in the rule set's record by rank, count held and wild-card limits.
cdef Py_ssize_t _SHAPE_HELD, _SHAPE_JOKERS, _SHAPE_DEUCES, _SHAPE_TABLE_SIZE

@cython.locals(
    naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, most_wilds=Py_ssize_t, wilds=Py_ssize_t,
    wild_ratio=bint, small=bint, key=Py_ssize_t, shapes=list, found=tuple, rank_points=Py_ssize_t, index=Py_ssize_t,
    joker_points=Py_ssize_t, deuce_points=Py_ssize_t, points=Py_ssize_t, best_points=Py_ssize_t,
    best_cards=Py_ssize_t, table=list,
)
cdef tuple _rank_shapes(WildRules wild, Py_ssize_t rank, Py_ssize_t held, Py_ssize_t joker_limit,
                        Py_ssize_t deuce_limit)


@cython.locals(index=Py_ssize_t, most_points=list, most_cards=list)
cdef tuple _option_bounds(list best_points, list best_cards)


@cython.locals(options=list, most_points=list, most_cards=list, found=list, best_points=list, best_cards=list)
cpdef list _extra_melds(HandState state, list counts, Py_ssize_t exclude, Py_ssize_t needed)
