# C types for sim/core/kernels.py (Cython reads this file beside the module; plain Python ignores it).
# The memory, the discard risk and the costs are extension types whose counts are C arrays and whose
# figures are C integers and doubles.  The view is typed, so its query methods are C calls (sim/core/view.pxd).

cimport cython

from canasta_sim.core.moves cimport Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.view cimport SeatView


cdef Py_ssize_t BLACK_THREE, FOUR, JOKER, KIND_COUNT, RED_THREE, TWO, CANASTA_SIZE
cdef tuple KIND_VALUE, _REMEMBERED, _DISCARDS
cdef Py_ssize_t _COPIES, _WILDS_IN_DECK


cdef class DiscardRisk


cdef class CardMemory:
    cdef public list pile, side_melded
    cdef public Py_ssize_t pile_freezers
    # 4 seats x KIND_COUNT = 15 kinds, the sums by seat, the avoided ranks by seat (bit masks).
    cdef public Py_ssize_t known_counts[60]
    cdef public Py_ssize_t known_totals[4]
    cdef public Py_ssize_t avoided[4]
    # This turn's discard risk, the hand it is up to date with, and the turn.
    cdef public DiscardRisk risk
    cdef public object risk_hand
    cdef public Py_ssize_t risk_hand_number, risk_turn

    @cython.locals(risk=DiscardRisk, hand_number=Py_ssize_t, turn=Py_ssize_t)
    cpdef DiscardRisk turn_risk(self, SeatView view, tuple snapshot)
    # Called by the engine for every move of a hand when a strategy names this memory its event follower.
    @cython.locals(discard=Discard, meld=Meld)
    cpdef follow(self, Py_ssize_t seat, move)


@cython.locals(index=Py_ssize_t)
cdef _remember_discard(CardMemory memory, Py_ssize_t seat, Py_ssize_t kind)
@cython.locals(pile=list, top=Py_ssize_t)
cdef _remember_draw(CardMemory memory, Py_ssize_t seat)
@cython.locals(base=Py_ssize_t, avoided=Py_ssize_t, added=Py_ssize_t, index=Py_ssize_t, kind=Py_ssize_t, pile=list)
cdef _remember_take(CardMemory memory, Py_ssize_t seat, TakePile move)
@cython.locals(base=Py_ssize_t)
cdef _remember_meld(CardMemory memory, Py_ssize_t seat, groups)
@cython.locals(forgotten=Py_ssize_t, kind=Py_ssize_t)
cdef Py_ssize_t _forget_played(CardMemory memory, Py_ssize_t base, cards) except -1


cdef class DiscardCosts:
    cdef public object hand
    cdef public double freeze, lowest
    cdef public Py_ssize_t present, cheapest
    cdef public double costs[15]

    cpdef double cost(self, Py_ssize_t kind) except? -1.0
    cpdef Py_ssize_t cheapest_kind(self) except -1
    cpdef list pairs(self)
    cpdef list order(self)
    @cython.locals(cheapest=Py_ssize_t, kind=Py_ssize_t, pair=tuple)
    cpdef cheapest_legal(self, SeatView view)


cdef class DiscardRisk:
    cdef public CardMemory memory
    cdef public Py_ssize_t side, pile_size, opponent_meld_count, taker, our_ranks, their_ranks, taker_avoids
    cdef public double pile_worth, share, wild_chance
    cdef public bint opponents_melded, we_melded, hand_may_end, taker_melded, frozen
    # The engine's shared meld tables of the two sides (never handed out) and the copies handed out, made when
    # first read (None before).
    cdef dict _our_table, _their_table, _our_copy, _their_copy
    cdef public Py_ssize_t seen[15]
    cdef public DiscardCosts kept
    # The chances that the taker holds none or one of the unseen cards of a kind, by their count (0 to 8);
    # bit n of chances_known set once count n is computed.
    cdef public Py_ssize_t chances_known
    cdef public double none_chances[9]
    cdef public double one_chances[9]

    @cython.locals(side=Py_ssize_t, ranks=Py_ssize_t, rank=Py_ssize_t, our_melds=dict)
    cpdef update_own_melds(self, SeatView view, before, after)
    @cython.locals(kept=DiscardCosts, costs=DiscardCosts)
    cpdef DiscardCosts costs(self, hand, double freeze)


@cython.locals(first=tuple, second=tuple, size=Py_ssize_t, index=Py_ssize_t)
cpdef bint _equal_counts(before, after) except -1
cdef _new_risk(DiscardRisk risk)
cdef _start_risk(DiscardRisk risk, CardMemory memory, SeatView view, tuple snapshot)
@cython.locals(
    hand=tuple, pile_size=Py_ssize_t, sizes=tuple, stock_count=Py_ssize_t, me=Py_ssize_t, side=Py_ssize_t,
    opponents=Py_ssize_t, taker=Py_ssize_t, wilds_seen=Py_ssize_t, ranks=Py_ssize_t, rank=Py_ssize_t,
    naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, wild=Py_ssize_t, kind=Py_ssize_t, meld=tuple,
    opponents_melded=bint, opponents_canasta=bint, our_melds=dict, opponent_melds=dict,
)
cdef _read_risk(DiscardRisk risk, CardMemory memory, SeatView view, tuple snapshot)
@cython.locals(
    taker=Py_ssize_t, unknown=Py_ssize_t, seat=Py_ssize_t, taker_total=Py_ssize_t, base=Py_ssize_t,
    total=Py_ssize_t, kind=Py_ssize_t, count=Py_ssize_t, taker_size=Py_ssize_t, share=double,
    wilds_unseen=Py_ssize_t,
)
cdef _read_unseen(DiscardRisk risk, CardMemory memory, Py_ssize_t me, tuple sizes, Py_ssize_t stock_count,
                  Py_ssize_t wilds_seen)
@cython.locals(wilds=Py_ssize_t, present=Py_ssize_t, cheapest=Py_ssize_t, kind=Py_ssize_t, count=Py_ssize_t,
               lowest=double, cost=double)
cdef _discard_costs(DiscardCosts result, DiscardRisk risk, CardMemory memory, hand, double freeze)
@cython.locals(held=Py_ssize_t, unseen=Py_ssize_t, value=Py_ssize_t, penalty=Py_ssize_t, chance=double,
               miss=double, none=double, one=double, single=double, keep=double)
cdef double _natural_cost(DiscardRisk risk, CardMemory memory, Py_ssize_t kind, Py_ssize_t count) except? -1.0
@cython.locals(cost=double, ours=double)
cdef double _special_cost(DiscardRisk risk, CardMemory memory, Py_ssize_t kind, Py_ssize_t wilds,
                          double freeze) except? -1.0
