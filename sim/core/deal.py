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

__all__ = ["shuffled_deck"]

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


@cython.locals(index=Count, other=Count, bound=Count, width=Count, shift=Count, top=Count, count=Count, tops=bytes)
def shuffled_deck(rng: random.Random) -> list[int]:
    """The 108 card ids in a random order drawn from ``rng`` (R3.1: the dealer shuffles).

    A Fisher-Yates shuffle on ``rng.getrandbits``, the very steps ``random.shuffle`` takes in
    CPython 3.10 to 3.13 (checked), written out here so that a deal depends only on the generator's
    bits, never on how a later Python shuffles, and so that it runs compiled.

    For a :class:`random.Random` itself (not a subclass, which may draw its bits otherwise), the words
    are drawn in blocks: CPython's ``getrandbits(k)`` for ``k <= 32`` is the generator's next 32-bit word
    shifted right by ``32 - k``, and ``getrandbits(32 * n)`` holds the next ``n`` words, the first one
    least significant.  Each step left takes at least one word (more when a draw is rejected), so a block
    of as many words as steps are left never draws a word the shuffle does not use: the generator ends
    in the state the one-word-a-step loop leaves it in, and the next hand's deal is the same too.
    """
    # The cards in a C array where compiled (sim/state.pxd; 108 is CARD_COUNT, a literal so that it fills the
    # array), swapped as C integers and made a list once at the end.
    cards = [0] * 108
    for index in range(CARD_COUNT):
        cards[index] = index
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
