# C declarations for sim/core/moves.py, read by Cython only (plain Python ignores this file).
# MeldGroup becomes an extension type: its fields are C members, read-only from Python, set in C by its
# constructor; a module that cimports it reads them as C struct members.

cimport cython


cdef class MeldGroup:
    cdef readonly object rank, cards


# The searches' groups, their cards already in order: built in C without the constructor's sort.
@cython.locals(group=MeldGroup)
cdef MeldGroup _ordered_group(rank, tuple cards)
