# C declarations for sim/legal.py, read by Cython only (issue #18; plain Python ignores this file).
# The listings reach the hand state's fields as C struct members (sim/melding.pxd) instead of looking each
# up by name, and the helpers below are C calls (cpdef: still ordinary functions from Python).

cimport cython

from canasta_sim.state cimport HandState


@cython.locals(
    most_wilds=Py_ssize_t, joker_limit=Py_ssize_t, deuce_limit=Py_ssize_t, rank=Py_ssize_t, held=Py_ssize_t,
    old_naturals=Py_ssize_t, old_jokers=Py_ssize_t, old_deuces=Py_ssize_t, existing=Py_ssize_t, lowest=Py_ssize_t,
    naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, count=Py_ssize_t, total_naturals=Py_ssize_t,
    wilds=Py_ssize_t, wild_ratio=bint, small=bint, has_wilds=bint, laid=Py_ssize_t, index=Py_ssize_t,
    cache=dict, shapes=list, buckets=list, extra=list,
)
cpdef list _addition_melds(HandState state, bint largest_first)


@cython.locals(
    cards=Py_ssize_t, value=Py_ssize_t, minimum=Py_ssize_t, hand_size=Py_ssize_t, rank=Py_ssize_t,
    naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, index=Py_ssize_t, joker_points=Py_ssize_t,
    deuce_points=Py_ssize_t, seat=Py_ssize_t, buckets=list, ordered=list,
)
cpdef list _openings_most_laid_first(HandState state)


cpdef list _shape_sets(list options, Py_ssize_t jokers, Py_ssize_t deuces)


# _shape_sets' search, a C function calling itself (plain Python runs the def).
@cython.locals(naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, shapes=list)
cdef void _walk_shapes(list options, Py_ssize_t index, Py_ssize_t jokers_left, Py_ssize_t deuces_left, list chosen,
                       list found) except *


@cython.locals(total=Py_ssize_t, kind=Py_ssize_t)
cpdef Py_ssize_t _groups_value(tuple groups) except? -1
