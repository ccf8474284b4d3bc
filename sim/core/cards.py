"""Cards, kinds and count vectors (docs/rules.md §1).

The engine never handles card objects.  Every rule of classic canasta
depends only on a card's *kind*: its rank, except that the colour of a 3
matters (R1.3).  A hand is therefore a list of ``KIND_COUNT`` integers, one
count per kind, and the stock is a list of card ids whose kind is a table
look-up.  Suits survive only in the card ids of the stock, so that whatever
shows a card to a person (logs, narration, errors) can print ``K♠``.

Kind indices, chosen so that every natural rank is a contiguous range::

    0 JK   1 2   2 black 3   3 red 3   4 4  5 5  6 6  7 7  8 8  9 9
    10 10  11 J  12 Q  13 K  14 A
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

from canasta_sim.errors import CardParseError

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = [
    "ACE",
    "BLACK_THREE",
    "CARD_COUNT",
    "CARD_KIND",
    "CARD_SUIT",
    "DECK_COUNTS",
    "JOKER",
    "KIND_COUNT",
    "KIND_NAMES",
    "KIND_VALUE",
    "NATURAL_KINDS",
    "RED_THREE",
    "SUITS",
    "TWO",
    "WILD_KINDS",
    "card_text",
    "counts_from_kinds",
    "counts_text",
    "counts_value",
    "count_words",
    "is_natural",
    "is_wild",
    "kind_plural",
    "kind_text",
    "kind_words",
    "kinds_from_counts",
    "kinds_text",
    "parse_kind",
    "parse_kinds",
]

JOKER = 0
TWO = 1
BLACK_THREE = 2
RED_THREE = 3
FOUR = 4
ACE = 14
KIND_COUNT = 15
NATURAL_KINDS = tuple(range(FOUR, ACE + 1))
"""The eleven natural ranks 4 to A (R1.3), the only ranks an ordinary meld can have."""
WILD_KINDS = (JOKER, TWO)
"""Jokers and deuces (R1.2)."""

KIND_NAMES = ("JK", "2", "3b", "3r", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""Text of each kind; black and red 3s are told apart by a suffix."""

# R1.4: the one table of card values, used for melds, minimums and penalties.
KIND_VALUE = (50, 20, 5, 0, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)

SUITS = "♠♥♦♣"
_RED_SUITS = frozenset((1, 2))
_RANK_ORDER = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

CARD_COUNT = 108
"""R1.1: two 52-card packs and four jokers."""


def _build_card_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    # Card id = pack * 52 + suit * 13 + rank position for ids 0-103; 104-107 are jokers.
    kinds: list[int] = []
    suits: list[int] = []
    for _pack in range(2):
        for suit in range(4):
            for rank_text in _RANK_ORDER:
                if rank_text == "3":
                    kinds.append(RED_THREE if suit in _RED_SUITS else BLACK_THREE)
                else:
                    kinds.append(KIND_NAMES.index(rank_text))
                suits.append(suit)
    kinds.extend([JOKER] * 4)
    suits.extend([-1] * 4)
    return tuple(kinds), tuple(suits)


CARD_KIND, CARD_SUIT = _build_card_tables()
"""``CARD_KIND[card_id]`` and ``CARD_SUIT[card_id]`` (-1 for jokers), built once at import."""

DECK_COUNTS = tuple(CARD_KIND.count(kind) for kind in range(KIND_COUNT))
"""How many cards of each kind the 108-card deck holds (4 jokers, 8 deuces, 4 black 3s, ...)."""

_KIND_ALIASES: dict[str, int] = {}
for _kind, _name in enumerate(KIND_NAMES):
    _KIND_ALIASES[_name.upper()] = _kind
_KIND_ALIASES.update(
    {
        "JOKER": JOKER,
        "T": 10,
        "3S": BLACK_THREE,
        "3C": BLACK_THREE,
        "3♠": BLACK_THREE,
        "3♣": BLACK_THREE,
        "3H": RED_THREE,
        "3D": RED_THREE,
        "3♥": RED_THREE,
        "3♦": RED_THREE,
    }
)
_SUIT_LETTERS = {"♠": 0, "♥": 1, "♦": 2, "♣": 3, "S": 0, "H": 1, "D": 2, "C": 3}


def is_wild(kind: int) -> bool:
    """Return whether ``kind`` is a joker or a deuce (R1.2)."""
    return kind <= TWO


def is_natural(kind: int) -> bool:
    """Return whether ``kind`` is a natural rank 4 to A (R1.3)."""
    return kind >= FOUR


def kind_text(kind: int) -> str:
    """Return the text of one kind, e.g. ``'K'``, ``'JK'``, ``'3b'``.

    :raises TypeError: for a kind that is no whole number.
    :raises ValueError: for one outside 0 to 14 (``-1`` would otherwise name the ace, as Python indexes from the end).
    """
    if isinstance(kind, bool) or not isinstance(kind, numbers.Integral):
        raise TypeError(f"kind_text takes a card kind, a whole number from 0 to {KIND_COUNT - 1}; got {kind!r}")
    if not 0 <= kind < KIND_COUNT:
        raise ValueError(f"kind_text takes a card kind, a whole number from 0 to {KIND_COUNT - 1}; got {kind!r}")
    return KIND_NAMES[kind]


def _require_text(value: object, reader: str) -> None:
    """Refuse what a reader of card or move text is given that is no text: its methods would fail from inside."""
    if not isinstance(value, str):
        raise TypeError(f"{reader} reads text (a str); got {value!r}")


_KIND_WORDS = ("joker", "deuce", "black 3", "red 3", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
               "queen", "king", "ace")
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def kind_words(kind: int, count: int | None = None) -> str:
    """Return a kind in words for the messages a person reads.

    Without ``count``, one card of it with its article (``'a king'``, ``'an eight'``, ``'a black 3'``); with it,
    counted, the plural where English wants one (``'no kings'``, ``'one king'``, ``'three sixes'``; numbers above
    ten as digits).

    >>> kind_words(13), kind_words(8), kind_words(6, 3), kind_words(0, 1), kind_words(2, 0)
    ('a king', 'an eight', 'three sixes', 'one joker', 'no black 3s')
    """
    word = _KIND_WORDS[kind]
    if count is None:
        return ("an " if word[0] in "ae" else "a ") + word
    return count_words(count, word, kind_plural(kind))


def count_words(count: int, noun: str | None = None, plural: str | None = None) -> str:
    """Return a count in words for the messages a person reads: with ``noun``, the count of it (``'no cards'``,
    ``'one card'``, ``'two natural cards'``; ``plural`` where an ``s`` does not make it); without, the number alone
    (``'none'``, ``'one'``, ``'three'``).  Numbers above ten stay digits.

    >>> count_words(0, "card"), count_words(1, "wild card"), count_words(3), count_words(12, "card")
    ('no cards', 'one wild card', 'three', '12 cards')
    """
    number = _NUMBER_WORDS[count] if 0 <= count < len(_NUMBER_WORDS) else str(count)
    if noun is None:
        return "none" if count == 0 else number
    return f"{number} {noun if count == 1 else plural or noun + 's'}"


def kind_plural(kind: int) -> str:
    """Return a kind's plural in words: ``'kings'``, ``'sixes'``, ``'black 3s'``, ``'jokers'``."""
    word = _KIND_WORDS[kind]
    return word + ("es" if word.endswith("x") else "s")


def card_text(card_id: int) -> str:
    """Return a card with its suit, e.g. ``'K♠'``, ``'10♥'``, ``'JK'``."""
    kind = CARD_KIND[card_id]
    if kind == JOKER:
        return "JK"
    name = "3" if kind in (BLACK_THREE, RED_THREE) else KIND_NAMES[kind]
    return name + SUITS[CARD_SUIT[card_id]]


def parse_kind(text: str) -> int:
    """Parse one card or kind: ``'K'``, ``'K♠'``, ``'ks'``, ``'10'``, ``'T'``, ``'JK'``, ``'3b'``, ``'3♥'``.

    A suit other than a 3's is accepted and ignored, since only the colour of 3s matters.

    :raises CardParseError: if the text names no card.
    :raises TypeError: for something else than text.
    """
    _require_text(text, "parse_kind")
    token = text.strip().upper()
    kind = _KIND_ALIASES.get(token)
    if kind is None and len(token) >= 2 and token[-1] in _SUIT_LETTERS and token[:-1] != "3":
        kind = _KIND_ALIASES.get(token[:-1])
        if kind == JOKER and token != "JK":
            kind = None
    if kind is None:
        raise CardParseError(
            f"{text!r} is not a card; use a rank 4-10, J, Q, K, A, 2 or JK, and 3b/3r (or 3♠ 3♣ / 3♥ 3♦) for threes"
        )
    return kind


def parse_kinds(text: str) -> tuple[int, ...]:
    """Parse space- or comma-separated cards into a tuple of kinds (see :func:`parse_kind`)."""
    _require_text(text, "parse_kinds")
    # A list comprehension, not a generator: compiled, it is a C loop; a generator is an object resumed per card.
    return tuple([parse_kind(token) for token in text.replace(",", " ").split()])


def counts_from_kinds(kinds: Iterable[int]) -> list[int]:
    """Return the count vector of a sequence of kinds."""
    counts = [0] * KIND_COUNT
    for kind in kinds:
        counts[kind] += 1
    return counts


def kinds_from_counts(counts: Sequence[int]) -> list[int]:
    """Return the kinds of a count vector, highest rank first, jokers and deuces last."""
    kinds: list[int] = []
    for kind in range(KIND_COUNT - 1, -1, -1):
        kinds.extend([kind] * counts[kind])
    return kinds


def kinds_text(kinds: Iterable[int]) -> str:
    """Return kinds as text separated by spaces, e.g. ``'K K JK'``."""
    return " ".join([KIND_NAMES[kind] for kind in kinds])


def counts_text(counts: Sequence[int]) -> str:
    """Return a count vector as text, highest rank first (``'A K K 7 2'``); ``'-'`` when empty.

    :raises ValueError: for a vector that does not hold one count per kind (15).
    """
    if len(counts) != KIND_COUNT:
        raise ValueError(f"counts_text takes one count per kind, {KIND_COUNT} in all; got {len(counts)}")
    return kinds_text(kinds_from_counts(counts)) or "-"


def counts_value(counts: Sequence[int]) -> int:
    """Return the total card value (R1.4) of a count vector."""
    return sum(count * value for count, value in zip(counts, KIND_VALUE, strict=True))


_MOST_IN_RUN = 9  # runs of 0-8 cards: two decks hold 8 cards of a rank (R1.1), 4 jokers and 8 deuces
_KIND_RUNS = tuple((kind,) * count for kind in range(KIND_COUNT) for count in range(_MOST_IN_RUN))
"""``(kind,) * count`` at ``kind * 9 + count`` for each kind and each count two decks hold of it."""


@cython.locals(index=cython.Py_ssize_t, number=cython.Py_ssize_t)
def _kind_run(kind: int, count: int) -> tuple[int, ...]:
    """``(kind,) * count``, one shared tuple for each count two decks hold of a kind: the move records' groups are
    joined from these runs (``moves._group_of``), with no tuple built for a run."""
    if type(kind) is int and type(count) is int:
        try:
            index = kind
            number = count
        except OverflowError:  # compiled, an int too large for a C integer: a run of no kind two decks hold
            return (kind,) * count
        if 0 <= number < _MOST_IN_RUN and 0 <= index < len(_KIND_RUNS) // _MOST_IN_RUN:  # a kind's run
            return _KIND_RUNS[index * _MOST_IN_RUN + number]
    return (kind,) * count
