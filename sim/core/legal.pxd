# C declarations for sim/core/legal.py, read by Cython only (plain Python ignores this file).
# The listings reach the hand state's fields as C struct members (sim/core/melding.pxd) instead of looking each
# up by name, and the helpers below are C calls (cpdef: still ordinary functions from Python).

cimport cython

from canasta_sim.core.going_out cimport _as_list
from canasta_sim.core.meld_search cimport _extra_melds, _openings_most_laid_first
from canasta_sim.core.moves cimport MeldGroup, _group_of
from canasta_sim.core.melds cimport WildRules, wild_limit, wild_rules_of
from canasta_sim.core.state cimport HandState

# The shared records: C calls from the listings (cpdef: still ordinary functions from Python).
cdef list _SINGLE_MELD_TABLE, _PILE_TAKE_TABLE
cdef tuple _DISCARDS, _DISCARD_KEYS
cdef Py_ssize_t _TABLE_NATURALS, _TABLE_JOKERS, _TABLE_DEUCES

cdef Py_ssize_t _table_index(Py_ssize_t rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces)
@cython.locals(key=Py_ssize_t)
cdef object _kept(object move, dict cache, list table, Py_ssize_t index, Py_ssize_t rank, Py_ssize_t naturals,
                  Py_ssize_t jokers, Py_ssize_t deuces)

@cython.locals(index=Py_ssize_t)
cpdef object single_group_meld(Py_ssize_t rank, Py_ssize_t naturals=*, Py_ssize_t jokers=*, Py_ssize_t deuces=*)

@cython.locals(index=Py_ssize_t)
cpdef object pile_take(Py_ssize_t top, Py_ssize_t naturals=*, Py_ssize_t jokers=*, Py_ssize_t deuces=*)

# The listings the view calls most (sim/core/view.pxd): C calls from it, ordinary functions from Python.
@cython.locals(top=Py_ssize_t, side=Py_ssize_t, frozen=bint, has_meld=bint, hand_held=Py_ssize_t, seat=Py_ssize_t)
cpdef object legal_takes(HandState state)

cpdef object meld_candidates(HandState state, bint largest_first=*)
@cython.locals(seat=Py_ssize_t, kind=Py_ssize_t, moves=list, hand=list)
cpdef object legal_discards(HandState state)


# The card constants the listings index hands with, as C integers.
cdef Py_ssize_t _JOKER, _TWO, _BLACK_THREE, _FOUR, _KIND_COUNT


@cython.locals(
    most_wilds=Py_ssize_t, joker_limit=Py_ssize_t, deuce_limit=Py_ssize_t, rank=Py_ssize_t, held=Py_ssize_t,
    old_naturals=Py_ssize_t, old_jokers=Py_ssize_t, old_deuces=Py_ssize_t, lowest=Py_ssize_t,
    naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, total_naturals=Py_ssize_t,
    wilds=Py_ssize_t, wild_ratio=bint, small=bint, laid=Py_ssize_t, table=list, shapes=list, laids=list,
    held_jokers=Py_ssize_t, held_deuces=Py_ssize_t, hand=list, melds=list, wild=WildRules, seat=Py_ssize_t,
    ordered=bint, last=Py_ssize_t, most=Py_ssize_t, old_wilds=Py_ssize_t, low=Py_ssize_t, high=Py_ssize_t,
)
cpdef list _addition_melds(HandState state, bint largest_first)


cdef object _shape_group(tuple shape)

# The addition listing's helpers, C calls from it (cpdef: still ordinary functions from Python).
@cython.locals(naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, found=list, black_threes=Py_ssize_t,
               laid_threes=Py_ssize_t)
cpdef list _rare_melds(HandState state, list hand, list melds, bint wild_only, Py_ssize_t held_jokers,
                       Py_ssize_t held_deuces)
@cython.locals(index=Py_ssize_t, count=Py_ssize_t, size=Py_ssize_t, ordered=list)
cpdef list _most_laid_first(list shapes, list laids, Py_ssize_t most)


# legal_melds' iterator (and the checked discards'): an extension type, made and dropped in C.
cdef class _Checked:
    cdef HandState _state
    cdef object _candidates
    cdef bint _melds
