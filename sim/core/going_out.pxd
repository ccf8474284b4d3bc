# C declarations for sim/core/going_out.py, read by Cython only (plain Python ignores this file).
# The search's parts call each other as C functions instead of through the module's Python names (the
# strategies' find_meld_out included); every one stays an ordinary function from Python.  The hand state's going-out
# plan (sim/core/asking.pxd) cimports the quick reject and the search, so this module is linked with it (LINKED_MODULES
# in sim/core/_compiled/accelerator.py).
#
# The search works on counts by kind in C arrays of KIND_COUNT (15) integers: the hand's, and the natural
# and wild cards of each meld of the side, read once per question (_read_counts).  Plain Python runs the
# same code on lists.

cimport cython

# MeldGroup.of as a C call, for the plan's groups.
from canasta_sim.core.moves cimport _group_of

# The R9.2 wild-card limit, a C call from the search, and the rule set's wild-card rules read as C values.
from canasta_sim.core.melds cimport WildRules, wild_limit, wild_rules_of

cdef Py_ssize_t _KIND_VALUE[15]

# The kinds, ranks and sizes the search reads, as C integers: each index into a hand or a count array is then C.
cdef Py_ssize_t BLACK_THREE, FOUR, JOKER, KIND_COUNT, RED_THREE, TWO, CANASTA_SIZE, WILD_RANK

cpdef _find_meld_out(rules, hand, melds, minimum, allow_no_discard, allow_discard, laid)
# The search past the quick reject, called from C by the hand state's going-out plan after its own reject.
@cython.locals(held=Py_ssize_t[15], naturals=Py_ssize_t[15], wilds=Py_ssize_t[15])
cpdef _search_meld_out(rules, list hand, list melds, minimum, allow_no_discard, allow_discard, laid)

# The hand and the melds as lists (typed: read with the list's own fast indexing), here and in the single-group
# verdict (sim/core/melding.py).
cpdef list _as_list(values)

# Whether two of the hand's cards can go nowhere (answered before _read_counts reads everything).
@cython.locals(stranded=Py_ssize_t, rank=Py_ssize_t, count=Py_ssize_t, naturals=Py_ssize_t, jokers=Py_ssize_t,
               deuces=Py_ssize_t)
cpdef bint _two_cards_stranded(list hand, list melds) except -1

@cython.locals(kind=Py_ssize_t)
cdef _read_counts(list hand, list melds, Py_ssize_t *held, Py_ssize_t *naturals, Py_ssize_t *wilds)

@cython.locals(held=Py_ssize_t[15], naturals=Py_ssize_t[15], wilds=Py_ssize_t[15])
cpdef list _leftover_candidates(rules, hand, melds, allow_discard, allow_no_discard)

cdef list _candidates(rules, Py_ssize_t *held, Py_ssize_t *naturals, Py_ssize_t *wilds, allow_discard,
                      allow_no_discard)

@cython.locals(held=Py_ssize_t[15], naturals=Py_ssize_t[15], wilds=Py_ssize_t[15])
cpdef _lay_all(rules, list counts, melds, minimum, no_discard)

@cython.locals(in_plan=Py_ssize_t[15], given=Py_ssize_t[15], rooms=Py_ssize_t[15], sizes=Py_ssize_t[15], wild=WildRules)
cdef _lay(rules, Py_ssize_t *held, Py_ssize_t *naturals, Py_ssize_t *wilds, minimum, bint no_discard, laid)

# R12.2's canasta from the hand under going_out_without_discard=only_if_hand_holds_canasta: the move check
# (sim/core/melding.py) asks these too.
cpdef bint needs_hand_canasta(rules) except -1
@cython.locals(rank=Py_ssize_t, count=Py_ssize_t, before=Py_ssize_t)
cpdef bint lays_hand_canasta(laid, list laying) except -1

# The plan's canastas completed with wild cards, and its groups, on the same C arrays.
@cython.locals(deficits=Py_ssize_t[15])
cdef Py_ssize_t _complete_canastas(Py_ssize_t *in_plan, Py_ssize_t *given, Py_ssize_t *rooms, Py_ssize_t *sizes,
                                   Py_ssize_t canastas, Py_ssize_t needed, Py_ssize_t budget) except? -2
cdef tuple _plan_groups(Py_ssize_t *held, Py_ssize_t *in_plan, Py_ssize_t *given, Py_ssize_t black_threes,
                        Py_ssize_t wild_only)
