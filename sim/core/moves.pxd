# C declarations for sim/core/moves.py, read by Cython only (plain Python ignores this file).
# MeldGroup becomes an extension type: its fields are C members, read-only from Python, set in C by its
# constructor; a module that cimports it reads them as C struct members.

cimport cython

from canasta_sim.core.cards cimport _kind_run


cdef class MeldGroup:
    cdef readonly object rank, cards


# The move records, extension types too: the engine, the listings and the searches read their fields as C members
# where they declare a record's type, and build them without Python's attribute machinery.
cdef class _MoveBase:
    cpdef tuple _values(self)

cdef class Draw(_MoveBase):
    pass

cdef class TakePile(_MoveBase):
    cdef readonly object cards, extra
    cpdef tuple _values(self)

cdef class Meld(_MoveBase):
    cdef readonly object groups
    cpdef tuple _values(self)

cdef class Ask(_MoveBase):
    pass

cdef class Answer(_MoveBase):
    cdef readonly object yes
    cpdef tuple _values(self)

cdef class Discard(_MoveBase):
    cdef readonly object card
    cpdef tuple _values(self)

cdef class Stop(_MoveBase):
    pass


# The constructors' kinds as ints (a numpy integer converted), a C call from each.
cdef tuple _plain_kinds(tuple kinds)

# MeldGroup.of as a C call for the searches, and their groups with the cards already in order, built in C without
# the constructor's sort.
cpdef MeldGroup _group_of(rank, naturals, jokers, deuces)
@cython.locals(group=MeldGroup)
cdef MeldGroup _ordered_group(rank, tuple cards)
# A take read from its canonical text, its cards in order already: built in C without the constructor's sort.
@cython.locals(take=TakePile)
cpdef TakePile _ordered_take(tuple cards, tuple extra)

# record_problem's helpers, C calls: the bot server judges every answer its strategy gives with it.
cdef object _groups(object move)
cdef bint _are_groups(object groups) except -1
cdef object _kinds_problem(object move, object values)
