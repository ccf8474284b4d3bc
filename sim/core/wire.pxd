# C declarations for sim/core/wire.py, read by Cython only (plain Python ignores this file).
# ViewWire becomes an extension type: it reads the hand state's fields as C struct members
# (sim/core/melding.pxd) and keeps the values it last sent in C members, its counts as C integers.

cimport cython

from canasta_sim.core.kernels cimport CardMemory
from canasta_sim.core.moves cimport Discard, _group_of, _ordered_take
from canasta_sim.core.state cimport HandState
from canasta_sim.core.strategy cimport PublicEvent
from canasta_sim.core.view cimport SeatView


cdef Py_ssize_t _KIND_COUNT


@cython.locals(rows=list, side_rows=list, side=Py_ssize_t, rank=Py_ssize_t, table=list, meld=list,
               naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t)
cpdef list meld_rows(melds)


@cython.locals(table=list, side_rows=list, row=list, meld=list, side=Py_ssize_t, count=Py_ssize_t, index=Py_ssize_t,
               rank=Py_ssize_t, listed=Py_ssize_t)
cdef _set_meld_tables(list tables, rows, rows_seen)

cdef tuple _SET_ASIDE, _KNOWN_FIELDS, _ORDER, _ORDER_CODES
cdef Py_ssize_t _SETTABLE, _ORDERED
cdef dict _CODES

@cython.locals(count=Py_ssize_t, code=Py_ssize_t, unknown=list, position=Py_ssize_t, seek=Py_ssize_t, name=str,
               expected=str)
cpdef set_view_fields(HandState state, Py_ssize_t seat, dict fields, bint whole, melds_seen)
@cython.locals(hands=list, turn=dict, stock=list, size=Py_ssize_t)
cdef _set_field(HandState state, Py_ssize_t seat, Py_ssize_t code, value, melds_seen)
@cython.locals(item=list, text=object, move=object)
cpdef hear_events(player, CardMemory follower, list events, dict moves)

cdef Py_ssize_t _JOKER, _TWO, _WILD_RANK
cdef dict _CANONICAL_KINDS
cpdef move_from_text(text)
@cython.locals(kind=Py_ssize_t, cards=list, order=Py_ssize_t, last=Py_ssize_t)
cdef _canonical_move(str text)
@cython.locals(groups=list)
cdef _canonical_groups(str text)
cdef Py_ssize_t _GROUPS_KEPT
cdef dict _groups
@cython.locals(rank=Py_ssize_t, naturals=Py_ssize_t, jokers=Py_ssize_t, deuces=Py_ssize_t, kind=Py_ssize_t)
cdef _canonical_group(str text)


cdef class ViewWire:
    cdef object _hand_number, _dealer, _scores, _phase, _acquired, _asked, _answer, _must_stop, _hand
    cdef object _hand_sizes, _pile, _melds, _meld_state, _side_has_melded, _red_threes, _minimum_a, _minimum_b
    cdef object _melded_before, _melded, _added, _laid, _new_ranks
    cdef Py_ssize_t _seat_to_move, _turn_count, _stock_count, _pile_freezers, _meld_changes
    cdef bint _sent

    cpdef forget(self)
    cpdef dict whole(self, SeatView view)
    @cython.locals(state=HandState, seat=Py_ssize_t, fresh=bint, out=dict, count=Py_ssize_t)
    cpdef dict changes(self, SeatView view)
    cdef _flags(self, HandState state, bint fresh, dict out)
    @cython.locals(count=Py_ssize_t)
    cdef _cards(self, HandState state, Py_ssize_t seat, bint fresh, dict out)
    @cython.locals(rows=list, first=object, second=object, melded=object)
    cdef _table(self, HandState state, bint fresh, dict out)
    cdef _turn_field(self, HandState state, bint fresh, dict out)


cdef Py_ssize_t _KNOWN_KEPT
cdef dict _known, _texts

cdef object _draw_entry
cdef list _discard_entries
@cython.locals(discard=Discard, entry=tuple)
cdef tuple _entry(move)
cdef tuple _new_entry(move)
cdef object _last_event
cdef bytes _last_line


cdef class EventLog:
    cdef list _lines
    cdef public Py_ssize_t mover, known

    @cython.locals(seat=Py_ssize_t, red_threes=Py_ssize_t, entry=tuple, line=bytes)
    cpdef hear(self, PublicEvent event)
    cpdef bytes take(self)
    cpdef clear(self)
