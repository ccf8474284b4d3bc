# C declarations for sim/core/melding.py, read by Cython only (plain Python ignores this file).
# The hand state is one extension type built in five modules: MeldingRules (here, with every field of
# the hand), PileRules (sim/core/pile.py), AskingRules (sim/core/asking.py), StockRules (sim/core/stock.py)
# and HandState (sim/core/state.py).  Its methods then reach the fields
# as C struct members instead of looking each up by name.  Every field stays readable and writable
# from Python under the names HandState.__slots__ lists; the counters below are C integers.

cimport cython

from canasta_sim.core.melds cimport _natural_group_counts, _with_rank, meld_fits
from canasta_sim.core.going_out cimport _as_list
# The vouch's record keys (sim/core/identities.py), as C calls from the checks below.
from canasta_sim.core.identities cimport field_objects, same_field_objects
from canasta_sim.core.moves cimport Meld, MeldGroup

# The card constants the single-group verdict reads, as C integers.
cdef Py_ssize_t BLACK_THREE, CANASTA_SIZE, JOKER, KIND_COUNT, TWO, WILD_RANK

# The initial meld's card values by kind (KIND_COUNT = 15), summed in C integers.
cdef Py_ssize_t _KIND_VALUE[15]

# The most entries _list keeps, compared with the list's size in C.
cdef Py_ssize_t _MOST_LISTED

# One count of a group's packed counts (melds._natural_counts), unpacked in C.
cdef Py_ssize_t _COUNT_MASK

cdef class MeldingRules:
    cdef public object _collected, _listed, _meld_tables, _plan_cache, _vouched, _vouched_key, acquired, added_to_existing, answer, asked
    cdef public object dealer, deck, end_reason, first_turn_done, frozen_pile_takes, hand_number, hand_sizes
    cdef public object hands, history, melded_before_turn, melded_this_turn, melds, must_stop, phase, pile
    cdef public object pile_cards_taken, pile_freezes, pile_takes, red_threes, requirements, rules
    cdef public object scores_before, seat_has_melded, side_has_melded, side_turns, stock, turn_laid
    cdef public object turn_new_ranks, went_out_concealed, went_out_seat
    cdef public Py_ssize_t seat, turn_count, pile_freezers, meld_changes
    # The last going-out plan's key (sim/core/asking.py): the turn and meld changes, must_stop and the hand's counts.
    cdef public Py_ssize_t _plan_turn, _plan_changes
    cdef public object _plan_stop, _plan_hand
    cdef public bint _probing

    # Called from C by the hand state's own checks and moves (cpdef: still ordinary methods from Python).
    cpdef _malformed(self, move, value)
    cpdef _fail(self, rule, reason, move)
    cpdef _verify_phase(self, move, phase)
    cpdef _go_out(self)
    cpdef _end(self, reason)
    cpdef _vouch(self, move)
    cpdef bint _take_vouch(self, move)
    cpdef _list(self, move)
    cpdef _list_keyed(self, move, key)
    cpdef _verify_in_hand(self, move, list used)
    cpdef _collect(self, move, groups, dict additions, list used)
    cpdef _verify_additions(self, move, dict additions)
    cpdef bint _verify_black_three_timing(self, move, dict additions, hand_after) except -1
    @cython.locals(sizes=Py_ssize_t[15])
    cpdef bint _verify_going_out(self, move, hand_after, dict additions) except -1
    cpdef _lay(self, dict additions, Py_ssize_t top)
    cpdef _lay_group(self, Py_ssize_t rank, Py_ssize_t naturals, Py_ssize_t jokers, Py_ssize_t deuces, Py_ssize_t taken)
    cpdef bint verify_meld(self, move) except -1
    # The hand and the melds as typed lists (going_out._as_list): each count read with the list's own indexing.
    @cython.locals(hand=list, melds=list, meld=list)
    cpdef Py_ssize_t _single_group_verdict(self, group) except? -2
    cpdef _verify_still_going_out(self, move, dict additions, list used)
    cpdef bint can_meld(self, move) except -1
    cpdef meld(self, move)
    # The dispatch to the move's check (HandState's) and the probe every can_x asks.
    cpdef bint _verify_move(self, move) except -1
    cpdef bint _probe(self, move) except -1
