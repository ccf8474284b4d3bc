# C declarations for sim/core/strategy.py, read by Cython only (plain Python ignores this file).
# PublicEvent becomes an extension type: the engine builds one per move.

cdef class PublicEvent:
    cdef object _seat, _move, _red_threes
