# C declarations for sim/core/deal.py, read by Cython only (plain Python ignores this file).

cimport cython


# The Mersenne Twister's constants as C unsigned integers.
cdef Py_ssize_t _STATE_WORDS, _MIDDLE
cdef unsigned int _WORD, _UPPER_BIT, _LOWER_BITS, _MATRIX, _TEMPER_B, _TEMPER_C


# The generator's 624 words in a C array (_STATE_WORDS), each drawn with a C call (final: no override to look for).
@cython.final
cdef class DeckGenerator:
    cdef unsigned int _words[624]
    cdef Py_ssize_t _index

    @cython.locals(word=cython.uint)
    cpdef unsigned int next_word(self) noexcept
    @cython.locals(place=Py_ssize_t, used=Py_ssize_t, _step=Py_ssize_t, previous=cython.uint, word=cython.uint)
    cdef void _seed(self, unsigned int low, unsigned int high, Py_ssize_t length) noexcept
    @cython.locals(place=Py_ssize_t, mixed=cython.uint)
    cdef void _twist(self) noexcept


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
