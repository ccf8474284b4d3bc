# C declarations for strategies/expert.py, read by Cython only (issue #18; plain Python ignores this file).
# The expert's memory and its discard table become extension types: every event and every discard
# decision reads and writes their fields as C struct members instead of looking each up by name.  Every
# field stays readable and writable from Python (pimc copies the memory; the tests compare tables).
# The decisions' inner steps are C functions on typed arguments and C locals (the cdef functions below):
# a call between them is a C call, not a method looked up by name and called through Python.

cimport cython
from cpython.object cimport Py_TYPE, PyObject, PyTypeObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from canasta_sim.core.view cimport SeatView


# A field read through its descriptor called from C: what reading the attribute ends in for an object of the
# descriptor's own class exactly, without looking the field up by name (the callers check the class).
cdef inline object _get(descriptor, target):
    return (<PyTypeObject *> Py_TYPE(descriptor)).tp_descr_get(descriptor, target, <object> Py_TYPE(target))


# A slot of a class made with __slots__ (or a dataclass's slots=True) is a member descriptor whose PyMemberDef gives
# where the slot's object pointer is in every instance of that class.
cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
    int T_OBJECT_EX

cdef extern from "Python.h":
    ctypedef struct PyMemberDescrObject:
        PyMemberDef *d_member
    PyTypeObject PyMemberDescr_Type


# Where a slot's object is in its instances: checked once, at import, to be a slot of an object (what __slots__ makes).
cdef inline Py_ssize_t _offset(descriptor) except -1:
    if (Py_TYPE(descriptor) != &PyMemberDescr_Type
            or (<PyMemberDescrObject *> descriptor).d_member.type != T_OBJECT_EX):
        raise TypeError(f"not the descriptor of an object slot: {descriptor!r}")
    return (<PyMemberDescrObject *> descriptor).d_member.offset


# A slot's object read from its place in an instance of the descriptor's own class exactly (the callers check the
# class), as the descriptor would read it; an empty slot is left to the descriptor, which raises AttributeError.
cdef inline object _field(target, Py_ssize_t offset, descriptor):
    cdef PyObject *value = (<PyObject **> ((<char *> <PyObject *> target) + offset))[0]
    if value is NULL:
        return _get(descriptor, target)
    return <object> value


# The record classes, their slots' descriptors and offsets, and the view's property descriptors (strategies/expert.py),
# C globals.
cdef object _EVENT_TYPE, _DRAW_TYPE, _DISCARD_TYPE, _MELD_TYPE, _TAKE_TYPE, _ASK_TYPE, _ANSWER_TYPE, _STOP_TYPE
cdef object _GROUP_TYPE, _EXPERT_TYPE, _VIEW_TYPE
cdef object _EVENT_SEAT, _EVENT_MOVE, _DISCARD_CARD, _MELD_GROUPS, _TAKE_CARDS, _TAKE_EXTRA, _GROUP_CARDS, _MEMORY
cdef Py_ssize_t _EVENT_SEAT_AT, _EVENT_MOVE_AT, _DISCARD_CARD_AT, _MELD_GROUPS_AT, _TAKE_CARDS_AT, _TAKE_EXTRA_AT
cdef Py_ssize_t _GROUP_CARDS_AT, _MEMORY_AT, _MAX_WILDS_AT, _WILD_RATIO_AT
cdef object _RULES_TYPE, _MAX_WILDS, _WILD_RATIO, _VIEW_RULES
cdef object _VIEW_HAND, _VIEW_HAND_NUMBER, _VIEW_TURN_COUNT, _VIEW_PARTNER_ANSWER, _VIEW_PILE_TOP, _VIEW_PILE_SIZE
cdef object _VIEW_HAND_SIZES, _VIEW_STOCK_COUNT


cdef _Memory _memory_of(expert)


cdef class _DiscardTable
cdef class _Costs


cdef class _Memory:
    cdef public list pile, side_melded
    cdef public Py_ssize_t pile_freezers
    # Each seat's known cards by kind (4 seats x KIND_COUNT = 15 kinds), the sum of each seat's, and each
    # seat's avoided ranks as a bit mask: C arrays (Python reads and writes each as a list).
    cdef public Py_ssize_t known_counts[60]
    cdef public Py_ssize_t known_totals[4]
    cdef public Py_ssize_t avoided[4]
    # The expert's answers of the current turn (see _forget_turn): C fields that every decision reads.
    cdef public Py_ssize_t decided_hand, decided_turn, table_hand_number, table_turn
    cdef public bint going_out
    cdef public _DiscardTable table
    cdef public object table_hand
    cdef public _Costs costs
    # The chances of none and of one of the unseen cards of a kind in the taker's hand, by how many are unseen
    # (0 to _COPIES = 8), for the share chances_share; bit n of chances_known set when count n is kept.
    cdef public double chances_share
    # The expert's freeze parameter, read at the hand's first discard costs (-1: not yet).
    cdef public double freeze
    cdef public Py_ssize_t chances_known
    cdef public double none_chances[9], one_chances[9]


cdef _forget_turn(_Memory memory)


cdef class _DiscardTable:
    cdef public Py_ssize_t pile_size, opponent_meld_count, taker
    # Bit masks by rank: the side's melds, the opponents' melds, the ranks the next seat avoids.
    cdef public Py_ssize_t our_ranks, their_ranks, taker_avoids
    cdef public double pile_worth, share, wild_chance
    cdef public bint opponents_melded, we_melded, hand_may_end, taker_melded, frozen
    cdef public dict our_melds, their_melds
    # Cards of each kind accounted for (KIND_COUNT = 15 kinds): a C array counted in C integers; Python reads
    # and writes it as a list.
    cdef public Py_ssize_t seen[15]


cdef _DiscardTable _new_table(_Memory memory, SeatView view, hand)


@cython.locals(
    me=Py_ssize_t, taker=Py_ssize_t, side=Py_ssize_t, opponents=Py_ssize_t, kind=Py_ssize_t, seat=Py_ssize_t,
    unknown=Py_ssize_t, wilds_seen=Py_ssize_t, rank=Py_ssize_t, total=Py_ssize_t, stock_count=Py_ssize_t,
    pile_size=Py_ssize_t, opponents_melded=bint, opponents_canasta=bint, taker_total=Py_ssize_t,
    taker_size=Py_ssize_t, count=Py_ssize_t, naturals=Py_ssize_t, wild=Py_ssize_t, joker=Py_ssize_t, two=Py_ssize_t, share=double,
    base=Py_ssize_t, pile=list, sizes=tuple, meld=tuple, our_melds=dict, opponent_melds=dict, ranks=Py_ssize_t,
    jokers=Py_ssize_t, deuces=Py_ssize_t,
)
cdef _read_table(_DiscardTable table, _Memory memory, SeatView view, hand)


@cython.locals(joker=Py_ssize_t, two=Py_ssize_t, ranks=Py_ssize_t, rank=Py_ssize_t, our_melds=dict)
cdef _update_table(_DiscardTable table, SeatView view, before, after)


# The bodies of Expert.choose_meld and Expert.choose_discard: C calls with the memory and the view typed, so that
# the memory's fields are C struct members.
@cython.locals(hand_number=Py_ssize_t, turn=Py_ssize_t, going_out=bint, size=Py_ssize_t, budget=Py_ssize_t,
               table=_DiscardTable, discard=Py_ssize_t)
cdef _choose_meld(expert, _Memory memory, SeatView view)


@cython.locals(kind=Py_ssize_t, cheapest=Py_ssize_t, table=_DiscardTable, costs=_Costs, hand_number=Py_ssize_t,
               turn=Py_ssize_t)
cdef _choose_discard(expert, _Memory memory, SeatView view)


@cython.locals(kind=Py_ssize_t, naturals=Py_ssize_t, side=Py_ssize_t, frozen=bint, exact=bint)
cdef _best_take(expert, SeatView view)


cdef _opening_take(SeatView view, tuple hand, Py_ssize_t top)


cdef bint _decide_turn(expert, _Memory memory, SeatView view) except -1


cdef bint _decide_turn_of(expert, _Memory memory, SeatView view, Py_ssize_t hand_number, Py_ssize_t turn) except -1


@cython.locals(same=bint)
cdef _DiscardTable _turn_table(_Memory memory, SeatView view, hand, Py_ssize_t hand_number, Py_ssize_t turn)


# Whether two tuples hold the very same objects, item by item: pointer comparisons in C.  Tuples that do are equal.
cdef inline bint _same_items(tuple left, tuple right):
    cdef Py_ssize_t index
    cdef Py_ssize_t size = PyTuple_GET_SIZE(right)
    if PyTuple_GET_SIZE(left) != size:
        return False
    for index in range(size):
        if PyTuple_GET_ITEM(left, index) != PyTuple_GET_ITEM(right, index):
            return False
    return True


@cython.locals(total=Py_ssize_t, count=Py_ssize_t)
cdef Py_ssize_t _card_count(tuple hand) except? -1


@cython.locals(total=Py_ssize_t, count=Py_ssize_t)
cdef bint _holds_one_card(tuple hand) except -1


@cython.locals(usable=list, rest=list, card=Py_ssize_t)
cdef _opening_meld(expert, _Memory memory, SeatView view, hand, Py_ssize_t size, _DiscardTable table)


@cython.locals(
    rank=Py_ssize_t, count=Py_ssize_t, wilds=Py_ssize_t, ours=Py_ssize_t, danger=bint, naturals=Py_ssize_t,
    jokers=Py_ssize_t, deuces=Py_ssize_t, need=Py_ssize_t, room=Py_ssize_t, use=Py_ssize_t, use_jokers=Py_ssize_t,
    worth_it=bint, four=Py_ssize_t, ace=Py_ssize_t, joker=Py_ssize_t, two=Py_ssize_t, jokers_in_hand=Py_ssize_t,
    meld=tuple, melds=dict, most_wilds=Py_ssize_t, wild_ratio=bint, limit=Py_ssize_t, total=Py_ssize_t,
    taken=Py_ssize_t, pick=Py_ssize_t, index=Py_ssize_t, ranks=Py_ssize_t[15], sizes=Py_ssize_t[15],
    counts=Py_ssize_t[15],
)
cdef _first_legal_meld(SeatView view, hand, Py_ssize_t discard, Py_ssize_t budget, _DiscardTable table)


# A hand's discard costs: a C array of doubles by kind, and a bit mask of the kinds in hand.
cdef class _Costs:
    cdef public object table, hand
    cdef public Py_ssize_t present, cheapest
    cdef public double costs[15]


@cython.locals(memo=_Costs, costs=_Costs)
cdef _Costs _hand_costs(expert, _Memory memory, _DiscardTable table, hand)


cdef Py_ssize_t _cheapest_kind(_Costs costs) except -1


@cython.locals(kind=Py_ssize_t)
cdef list _cost_list(_Costs costs)


cdef dict _SINGLE_MELDS, _PILE_TAKES

# The card constants of canasta_sim.core.cards and canasta_sim.core.melds, imported into C integers: comparisons and index
# arithmetic with them are C operations instead of operations on Python ints.
cdef Py_ssize_t ACE, BLACK_THREE, FOUR, JOKER, KIND_COUNT, RED_THREE, TWO, CANASTA_SIZE
cdef tuple KIND_VALUE

# Module constants the discard figures subtract from: C integers, so that the subtractions are C subtractions.
cdef Py_ssize_t _COPIES, _WILDS_IN_DECK


cdef _pile_take(Py_ssize_t top, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces)


cdef _single_meld(Py_ssize_t rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces)


@cython.locals(key=Py_ssize_t)
cdef _shaped(dict moves, build, Py_ssize_t rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces)


@cython.locals(
    kind=Py_ssize_t, count=Py_ssize_t, held=Py_ssize_t, unseen=Py_ssize_t, frozen=bint, taker_melded=bint,
    may_end=bint, we_melded=bint, penalty=Py_ssize_t, value=Py_ssize_t, wilds=Py_ssize_t, joker=Py_ssize_t,
    two=Py_ssize_t, black_three=Py_ssize_t, pile_worth=double, share=double, miss=double, wild_chance=double,
    none=double, one=double, pair=double, chance=double, single=double, keep=double, base=Py_ssize_t, avoids=Py_ssize_t,
    present=Py_ssize_t, theirs=Py_ssize_t, ours=Py_ssize_t, rank=Py_ssize_t, cheapest=Py_ssize_t, lowest=double,
    cost=double,
)
cdef _discard_costs(_Costs result, _DiscardTable table, _Memory memory, hand, double freeze)


@cython.locals(cost=double, ranks=Py_ssize_t, ours=double)
cdef double _special_discard_cost(_DiscardTable table, _Memory memory, Py_ssize_t kind, Py_ssize_t wilds,
                                  double freeze) except? -1.0


@cython.locals(
    mask=Py_ssize_t, index=Py_ssize_t, count=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, needed=Py_ssize_t,
    use_jokers=Py_ssize_t, wilds=Py_ssize_t, joker_left=Py_ssize_t, deuce_left=Py_ssize_t, value=Py_ssize_t,
    cards=Py_ssize_t, forced_table=Py_ssize_t, forced_need=Py_ssize_t, forced_value=Py_ssize_t,
    slot_wilds=Py_ssize_t, limit=Py_ssize_t, best_mask=Py_ssize_t, best_wilds=Py_ssize_t, best_value=Py_ssize_t,
    found=bint, most_wilds=Py_ssize_t, wild_ratio=bint, size=Py_ssize_t, has_forced=bint, final=bint,
    forced_rank=Py_ssize_t, rank=Py_ssize_t, ranks=Py_ssize_t[11], counts=Py_ssize_t[11], points=Py_ssize_t[11],
    placed=Py_ssize_t[8],
)
cdef _opening(rules, hand, Py_ssize_t minimum, forced, Py_ssize_t keep, Py_ssize_t hand_size)


# on_event's updates of the memory, one per kind of move: C calls.
@cython.locals(kind=Py_ssize_t, index=Py_ssize_t)
cdef _remember_discard(_Memory memory, Py_ssize_t seat, Py_ssize_t card)


@cython.locals(pile=list, top=Py_ssize_t)
cdef _remember_draw(_Memory memory, Py_ssize_t seat)


@cython.locals(kind=Py_ssize_t, index=Py_ssize_t, base=Py_ssize_t, avoided=Py_ssize_t, added=Py_ssize_t, pile=list)
cdef _remember_take(_Memory memory, Py_ssize_t seat, move)


@cython.locals(base=Py_ssize_t)
cdef _remember_meld(_Memory memory, Py_ssize_t seat, move)


# on_event's update of a seat's known cards after it laid some: a C call.
@cython.locals(kind=Py_ssize_t, forgotten=Py_ssize_t)
cdef Py_ssize_t _forget_played(_Memory memory, Py_ssize_t base, cards) except -1
