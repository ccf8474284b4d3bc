# C types for sim/core/meld_planning.py (Cython reads this file beside the module; plain Python ignores it).
# The searches run on C integers and C arrays; the view is typed, so view.can is a C call (sim/core/view.pxd).

cimport cython

from canasta_sim.core.melds cimport wild_limit
from canasta_sim.core.moves cimport Meld, MeldGroup, _group_of
from canasta_sim.core.view cimport SeatView


cdef Py_ssize_t ACE, BLACK_THREE, FOUR, JOKER, TWO, CANASTA_SIZE
cdef tuple KIND_VALUE


@cython.locals(
    ranks=Py_ssize_t[11], counts=Py_ssize_t[11], points=Py_ssize_t[11], placed=Py_ssize_t[8], size=Py_ssize_t,
    jokers=Py_ssize_t, deuces=Py_ssize_t, forced_table=Py_ssize_t, forced_value=Py_ssize_t,
    most_wilds=Py_ssize_t, wild_ratio=bint, found=bint, best_mask=Py_ssize_t, best_wilds=Py_ssize_t,
    best_value=Py_ssize_t, mask=Py_ssize_t, value=Py_ssize_t, wilds=Py_ssize_t, cards=Py_ssize_t,
    index=Py_ssize_t,
)
cpdef opening(rules, hand, Py_ssize_t minimum, forced, Py_ssize_t keep, Py_ssize_t hand_size)
@cython.locals(joker_left=Py_ssize_t, wilds=Py_ssize_t, use_jokers=Py_ssize_t, index=Py_ssize_t, groups=list)
cdef tuple _opening_groups(hand, forced, Py_ssize_t size, Py_ssize_t *ranks, Py_ssize_t *counts,
                           Py_ssize_t *placed, Py_ssize_t mask)
@cython.locals(size=Py_ssize_t, rank=Py_ssize_t, count=Py_ssize_t, value=Py_ssize_t, index=Py_ssize_t)
cdef Py_ssize_t _pair_slots(hand, Py_ssize_t forced_rank, Py_ssize_t *ranks, Py_ssize_t *counts,
                            Py_ssize_t *points) except -1
@cython.locals(
    forced_need=Py_ssize_t, needed=Py_ssize_t, value=Py_ssize_t, index=Py_ssize_t, count=Py_ssize_t,
    use_jokers=Py_ssize_t, wilds=Py_ssize_t, joker_left=Py_ssize_t, deuce_left=Py_ssize_t,
    slot_wilds=Py_ssize_t, limit=Py_ssize_t,
)
cdef (Py_ssize_t, Py_ssize_t) _fill_subset(
    Py_ssize_t jokers, Py_ssize_t deuces, Py_ssize_t forced_table, Py_ssize_t forced_value, Py_ssize_t most_wilds,
    bint wild_ratio, Py_ssize_t minimum, Py_ssize_t size, Py_ssize_t *counts, Py_ssize_t *points, Py_ssize_t mask,
    Py_ssize_t *placed,
) noexcept


@cython.locals(
    counts=Py_ssize_t[15], rank=Py_ssize_t, count=Py_ssize_t, jokers_in_hand=Py_ssize_t, wilds=Py_ssize_t,
    most_wilds=Py_ssize_t, wild_ratio=bint, naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t,
    room=Py_ssize_t, use=Py_ssize_t, use_jokers=Py_ssize_t, meld=tuple,
)
cpdef first_legal_meld(SeatView view, hand, Py_ssize_t discard, Py_ssize_t budget, dict melds, bint hand_may_end)
@cython.locals(
    ranks=Py_ssize_t[15], sizes=Py_ssize_t[15], total=Py_ssize_t, ours=Py_ssize_t, rank=Py_ssize_t, meld=tuple,
    taken=Py_ssize_t, pick=Py_ssize_t, index=Py_ssize_t, naturals=Py_ssize_t, jokers=Py_ssize_t,
    deuces=Py_ssize_t, need=Py_ssize_t, room=Py_ssize_t, worth_it=bint, use_jokers=Py_ssize_t,
)
cdef _canasta_meld(SeatView view, dict melds, Py_ssize_t jokers_in_hand, Py_ssize_t wilds, Py_ssize_t budget,
                   bint hand_may_end, Py_ssize_t most_wilds, bint wild_ratio)


@cython.locals(size=Py_ssize_t, canastas=Py_ssize_t, needed=Py_ssize_t, stock=Py_ssize_t, side=Py_ssize_t,
               laid=Py_ssize_t, rank=Py_ssize_t, after=Py_ssize_t, old=Py_ssize_t, meld=Meld, group=MeldGroup)
cpdef first_legal(SeatView view, moves)
