# C declarations for sim/core/deal.py, read by Cython only (plain Python ignores this file).

cimport cython


# The shuffle's cards (CARD_COUNT = 108) in a C array, returned as a list.
@cython.locals(cards=Py_ssize_t[108])
cpdef list shuffled_deck(rng)


# Each card id's kind (CARD_COUNT = 108), read by the deal.
cdef Py_ssize_t _CARD_KIND[108]


# How far the shuffle shifts each word's top byte, by bound (CARD_COUNT + 1 = 109 bounds), read once a word.
cdef Py_ssize_t _TOP_SHIFTS[109]


# The deal's count of each seat's cards (4 seats x KIND_COUNT = 15 kinds) in a C array.
@cython.locals(counts=Py_ssize_t[60])
cpdef _deal_hands(tuple deck, Py_ssize_t first, list hands, list sizes)
