"""The shuffle and the deal (R3.1): the deck in a random order drawn from the game's generator, then eleven
cards to each seat, one at a time clockwise from the dealer's left."""

from __future__ import annotations

import random

from canasta_sim.core.cards import CARD_COUNT, CARD_KIND

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (card ids, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["DeckGenerator", "shuffled_deck"]

_HAND_SIZE = 11
_DEALT = 4 * _HAND_SIZE
_CARD_KIND = CARD_KIND  # a C array compiled (sim/core/deal.pxd): the deal reads each dealt card's kind


_BIT_LENGTHS = tuple(bound.bit_length() for bound in range(CARD_COUNT + 1))
"""``bound.bit_length()`` of each bound the shuffle draws below: a look-up instead of a method call per card."""

_TOP_SHIFTS = tuple(8 - width for width in _BIT_LENGTHS)
"""How far the shuffle shifts a word's top byte to keep its ``width`` top bits (every width is at most 7); a C
array compiled (sim/core/deal.pxd), read once a word with no module look-up or integer object."""
if max(_BIT_LENGTHS) > 8:  # pragma: no cover - the deck has 108 cards: a width above 8 is not reachable
    raise RuntimeError("the shuffle reads only a word's top byte, so no bound may need more than 8 bits")


# CPython's Mersenne Twister (MT19937, Matsumoto and Nishimura 1998), the generator of random.Random: its
# state of 624 words, the offset of the words mixed into each word's successor, and the masks and matrix of
# its recurrence.  All fit 32 bits: C unsigned integers where compiled (sim/core/deal.pxd), where they wrap
# as the masks with _WORD make Python's integers wrap.
_STATE_WORDS = 624
_MIDDLE = 397
_WORD = 0xFFFFFFFF
_UPPER_BIT = 0x80000000
_LOWER_BITS = 0x7FFFFFFF
_MATRIX = 0x9908B0DF
_TEMPER_B = 0x9D2C5680  # the tempering's masks
_TEMPER_C = 0xEFC60000
_SEEDS = 2**64  # a seed's magnitude is below it: the key is one or two words


class DeckGenerator:
    """A game's deck generator in C: the words ``random.Random(seed)`` draws, in its order.

    ``DeckGenerator(seed)`` is seeded as ``random.Random(seed)`` is, from an integer of at most 64 bits (the
    engine's :func:`~canasta_sim.core.engine.derive_seed` makes them), and draws word for word
    what its ``getrandbits(32)`` draws.  The engine draws the first dealer from it (R2.2, :meth:`below`)
    and deals every hand from it (R3.1, :func:`shuffled_deck`): through ``random.Random`` a shuffle pays
    for method calls and big integers, about 3% of a hand of expert against greedy.
    """

    __slots__ = ("_words", "_index")

    def __init__(self, seed: int) -> None:
        if type(seed) is not int:
            raise TypeError(f"a deck generator's seed is an int, not {type(seed).__name__}")
        if not -_SEEDS < seed < _SEEDS:
            raise ValueError(f"a deck generator's seed has at most 64 bits (engine.derive_seed's), not {seed}")
        self._words = [0] * 624  # _STATE_WORDS as a literal: a C array of that size where compiled
        # random.Random(seed) seeds from the magnitude's 32-bit words, least significant first: one or two here.
        magnitude = abs(seed)
        self._seed(magnitude & _WORD, magnitude >> 32, 1 if magnitude <= _WORD else 2)

    def below(self, bound: int) -> int:
        """A number in ``range(bound)``, as ``random.Random.randrange(bound)`` draws it (``bound`` up to 2**31)."""
        if not 0 < bound <= _UPPER_BIT:
            raise ValueError(f"a deck generator draws below a bound from 1 to 2**31, not {bound}")
        shift = 32 - bound.bit_length()
        drawn = self.next_word() >> shift
        while drawn >= bound:  # rejected: every number equally likely
            drawn = self.next_word() >> shift
        return drawn

    def next_word(self) -> int:
        """The next 32-bit word, as ``random.Random.getrandbits(32)`` draws it (MT19937's tempering)."""
        if self._index >= _STATE_WORDS:
            self._twist()
        word = self._words[self._index]
        self._index += 1
        word ^= word >> 11
        word ^= (word << 7) & _TEMPER_B
        word ^= (word << 15) & _TEMPER_C
        return word ^ (word >> 18)

    def internal_state(self) -> tuple[int, ...]:
        """The state as ``random.Random.getstate()[1]`` holds it: the 624 words and the index of the next."""
        return (*[self._words[place] for place in range(_STATE_WORDS)], self._index)

    def _seed(self, low: int, high: int, length: int) -> None:
        # MT19937's init_by_array, as CPython seeds from an integer: the state from a fixed word, then the
        # key's ``length`` words (``low`` and ``high``) mixed in over 624 steps, then every word mixed once more.
        self._words[0] = 19650218
        for place in range(1, _STATE_WORDS):
            previous = self._words[place - 1]
            self._words[place] = (1812433253 * (previous ^ (previous >> 30)) + place) & _WORD
        place, used = 1, 0
        for _step in range(_STATE_WORDS):  # max(624, the key's length) steps
            previous = self._words[place - 1]
            word = self._words[place] ^ (((previous ^ (previous >> 30)) * 1664525) & _WORD)
            self._words[place] = (word + (high if used else low) + used) & _WORD
            place, used = place + 1, used + 1
            if place >= _STATE_WORDS:
                self._words[0] = self._words[_STATE_WORDS - 1]
                place = 1
            if used >= length:
                used = 0
        for _step in range(_STATE_WORDS - 1):
            previous = self._words[place - 1]
            word = self._words[place] ^ (((previous ^ (previous >> 30)) * 1566083941) & _WORD)
            self._words[place] = (word - place) & _WORD
            place += 1
            if place >= _STATE_WORDS:
                self._words[0] = self._words[_STATE_WORDS - 1]
                place = 1
        self._words[0] = _UPPER_BIT  # a state that is never all zeros
        self._index = _STATE_WORDS

    def _twist(self) -> None:
        # MT19937's recurrence over the whole state in place, in CPython's three loops: they split where
        # place + 397, and then place + 1, pass the state's end and wrap to its start, whose words are new.
        for place in range(_STATE_WORDS - _MIDDLE):
            mixed = (self._words[place] & _UPPER_BIT) | (self._words[place + 1] & _LOWER_BITS)
            self._words[place] = self._words[place + _MIDDLE] ^ (mixed >> 1) ^ (_MATRIX * (mixed & 1))
        for place in range(_STATE_WORDS - _MIDDLE, _STATE_WORDS - 1):
            mixed = (self._words[place] & _UPPER_BIT) | (self._words[place + 1] & _LOWER_BITS)
            self._words[place] = self._words[place + _MIDDLE - _STATE_WORDS] ^ (mixed >> 1) ^ (_MATRIX * (mixed & 1))
        mixed = (self._words[_STATE_WORDS - 1] & _UPPER_BIT) | (self._words[0] & _LOWER_BITS)
        self._words[_STATE_WORDS - 1] = self._words[_MIDDLE - 1] ^ (mixed >> 1) ^ (_MATRIX * (mixed & 1))
        self._index = 0


@cython.locals(
    index=Count, other=Count, bound=Count, width=Count, shift=Count, top=Count, count=Count, tops=bytes,
    generator=DeckGenerator,
)
def shuffled_deck(rng: random.Random | DeckGenerator) -> list[int]:
    """The 108 card ids in a random order drawn from ``rng`` (R3.1: the dealer shuffles).

    A Fisher-Yates shuffle on ``rng.getrandbits``, the very steps ``random.shuffle`` takes in
    CPython 3.10 to 3.13 (checked), written out here so that a deal depends only on the generator's
    bits, never on how a later Python shuffles, and so that it runs compiled.

    For a :class:`random.Random` itself (not a subclass, which may draw its bits otherwise), the words
    are drawn in blocks: CPython's ``getrandbits(k)`` for ``k <= 32`` is the generator's next 32-bit word
    shifted right by ``32 - k``, and ``getrandbits(32 * n)`` holds the next ``n`` words, the first one
    least significant.  Each step left takes at least one word (more when a draw is rejected), so a block
    of as many words as steps are left never draws a word the shuffle does not use: the generator ends
    in the state the one-word-a-step loop leaves it in, and the next hand's deal is the same too.  From a
    :class:`DeckGenerator` (the engine's), each step draws its word as a C call.
    """
    # The cards in a C array where compiled (sim/core/deal.pxd; 108 is CARD_COUNT, a literal so that it fills the
    # array), swapped as C integers and made a list once at the end.
    cards = [0] * 108
    for index in range(CARD_COUNT):
        cards[index] = index
    if type(rng) is DeckGenerator:
        generator = rng
        for index in range(CARD_COUNT - 1, 0, -1):
            bound = index + 1
            shift = 24 + _TOP_SHIFTS[bound]  # getrandbits(width) keeps a word's top ``width`` bits
            other = generator.next_word() >> shift
            while other >= bound:  # rejected: the next word tries this step again
                other = generator.next_word() >> shift
            cards[index], cards[other] = cards[other], cards[index]
        return cards
    if type(rng) is not random.Random:
        getrandbits = rng.getrandbits
        for index in range(CARD_COUNT - 1, 0, -1):
            bound = index + 1
            width = _BIT_LENGTHS[bound]
            other = getrandbits(width)
            # Rejection sampling: every position equally likely.  A generator's bits are never negative; the
            # test keeps the C array's index in range whatever an overriding getrandbits returns.
            while not 0 <= other < bound:
                other = getrandbits(width)
            cards[index], cards[other] = cards[other], cards[index]
        return cards
    index = CARD_COUNT - 1
    while index > 0:
        count = index  # the steps left, index down to 1
        # Every word's top byte (little-endian: byte 3 of each 4), in the order the words were drawn.
        tops = rng.getrandbits(32 * count).to_bytes(4 * count, "little")[3::4]
        for top in tops:
            bound = index + 1
            shift = _TOP_SHIFTS[bound]
            # & 255: compiled, a byte is read as a C char, signed on most platforms; a Python byte is 0-255.
            other = (top & 255) >> shift
            if other < bound:  # else rejected: the next word tries this step again
                cards[index], cards[other] = cards[other], cards[index]
                index -= 1
    return cards


@cython.locals(index=Count, seat=Count, kind=Count, card=Count)
def _deal_hands(deck: tuple[int, ...], first: int, hands: list[list[int]], sizes: list[int]) -> None:
    """Deal the deck's first cards one at a time clockwise from seat ``first`` (R3.1) into empty hands.

    The cards are counted in C integers where compiled (``counts``: seat * 15 + kind, KIND_COUNT = 15 kinds
    written as a literal so that the index is C arithmetic; a C array declared in sim/core/deal.pxd), then
    written to the hands' lists once.
    """
    counts = [0] * 60
    for index in range(_DEALT):
        seat = (first + index) % 4
        card = deck[index]
        kind = _CARD_KIND[card]  # a C array compiled (sim/core/deal.pxd); the deck holds card ids 0-107 only
        counts[seat * 15 + kind] += 1
    for seat in range(4):
        hand = hands[seat]
        for kind in range(15):
            hand[kind] = counts[seat * 15 + kind]
        sizes[seat] = _HAND_SIZE  # the _DEALT cards, one to each seat in turn
