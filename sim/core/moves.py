"""Move records: small frozen values with a text form that round-trips.

============================  ===========================================================
text                          move
============================  ===========================================================
``draw``                      :class:`Draw` the top card of the stock (R7.1)
``take 7 7``                  :class:`TakePile` melding the top card with 7 7 (R8.2)
``take``                      :class:`TakePile` laying the top card off on the side's meld
``take K K; A A 2``           :class:`TakePile` plus extra melds for the minimum (R8.3)
``meld K K K; 8 8 2; 7:JK``   :class:`Meld` of one or more groups; ``7:JK`` adds a joker to the 7s
``ask``                       :class:`Ask` the partner "may I go out?" (R12.5)
``answer yes``                :class:`Answer` from the partner
``discard 4``                 :class:`Discard` one card (R6.1)
``stop``                      :class:`Stop`: decline the pile on an empty stock (R13.3), or end
                              a turn that may not discard (R13.1 ``meld_no_discard``)
============================  ===========================================================

>>> parse_move("meld K K K; 8 8 2")
parse_move('meld K K K; 8 8 2')
>>> str(parse_move("take 7♥ 7♦"))
'take 7 7'
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Sequence
from typing import Any

from canasta_sim.core.cards import (
    JOKER,
    KIND_COUNT,
    KIND_NAMES,
    TWO,
    _kind_run,
    _require_text,
    kinds_text,
    parse_kind,
    parse_kinds,
)
from canasta_sim.errors import CardParseError, MoveParseError, UserInterrupt

__all__ = [
    "ASK",
    "Answer",
    "Ask",
    "DRAW",
    "Discard",
    "Draw",
    "Meld",
    "MeldGroup",
    "Move",
    "STOP",
    "Stop",
    "TakePile",
    "WILD_RANK",
    "is_kind",
    "kind_problem",
    "move_text",
    "parse_move",
    "plain_record",
    "record_problem",
]

WILD_RANK = JOKER
"""The rank slot of a meld made only of wild cards (allowed only by ``allow_wild_only_melds``)."""


def _card_order(kind: int) -> int:
    """A card's place in a move's canonical order: the naturals by kind, then jokers, then deuces."""
    return kind + KIND_COUNT if kind <= TWO else kind


def _plain_kind(value: object) -> Any:
    """``value`` as an int when it is a whole number of another type (a numpy integer, say), else as it is.

    A strategy may compute kinds with numpy: its records hold them as the ints they equal, so that no numpy scalar
    reaches the hand's pile or another seat's events (a bot process's JSON holds none).  ``True`` and floats are kept
    as they are, for the checks to refuse (E1)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return value


def _plain_kinds(kinds: tuple) -> tuple[int, ...]:
    """``kinds`` with each kind as :func:`_plain_kind` makes it; the same tuple when they are all ints already."""
    for kind in kinds:
        if type(kind) is not int:
            return tuple([_plain_kind(each) for each in kinds])
    return kinds


def refuse_change(record: object, name: str, value: object) -> None:
    """A record's ``__setattr__``: each field is set once, by its constructor, and never changed after.

    Compiled, the records are extension types whose fields are read-only C members, set in C by the
    constructor; as plain Python they keep their fields in ``__slots__``, and this lets the constructor fill
    an empty slot once.  Either way ``record.field = value`` on a built record raises.

    :raises dataclasses.FrozenInstanceError: ``name`` is no field, or the field already holds a value (an
        ``AttributeError``).
    """
    if name not in type(record).__slots__ or hasattr(record, name):
        raise dataclasses.FrozenInstanceError(f"cannot assign to {name!r}: {type(record).__name__} is immutable")
    object.__setattr__(record, name, value)


class MeldGroup:
    """Cards from hand laid on one rank: a new meld, or an addition to the side's meld of that rank (R9.6).

    Immutable, equal and hashable by its fields.  A kind given as another whole-number type (a numpy integer) is
    held as the int it equals.

    :ivar rank: a natural kind (4 to A), ``BLACK_THREE`` (R5.3) or ``WILD_RANK``.
    :ivar cards: the kinds taken from hand, naturals first, then jokers, then deuces.
    """

    # An extension type where compiled (sim/core/moves.pxd): the searches build groups by the thousand.
    __slots__ = ("rank", "cards")

    def __init__(self, rank: int, cards: tuple[int, ...]) -> None:
        self.rank: int = rank if type(rank) is int else _plain_kind(rank)
        self.cards: tuple[int, ...] = _plain_kinds(tuple(sorted(cards, key=_card_order)))

    def __setattr__(self, name: str, value: object) -> None:
        refuse_change(self, name, value)

    @classmethod
    def of(cls, rank: int, naturals: int = 0, jokers: int = 0, deuces: int = 0) -> MeldGroup:
        """Build a group from counts: ``MeldGroup.of(KING, naturals=2, jokers=1)``."""
        if cls is not MeldGroup:  # a subclass: its own constructor
            return cls(rank, _group_of(rank, naturals, jokers, deuces).cards)
        return _group_of(rank, naturals, jokers, deuces)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self.rank, self.cards) == (other.rank, other.cards)

    def __hash__(self) -> int:
        return hash((self.rank, self.cards))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank!r}, cards={self.cards!r})"

    def __reduce__(self):
        return (type(self), (self.rank, self.cards))

    @property
    def naturals(self) -> int:
        """How many cards of the group's own rank it holds."""
        return 0 if self.rank == WILD_RANK else self.cards.count(self.rank)

    @property
    def jokers(self) -> int:
        """How many jokers it holds."""
        return self.cards.count(JOKER)

    @property
    def deuces(self) -> int:
        """How many 2s it holds."""
        return self.cards.count(TWO)

    def __str__(self) -> str:
        if _reads_as_cards(self.rank, self.cards):
            return kinds_text(self.cards)
        rank_name = "wild" if self.rank == WILD_RANK else KIND_NAMES[self.rank]
        return f"{rank_name}:{kinds_text(self.cards)}"

    @classmethod
    def from_text(cls, text: str) -> MeldGroup:
        """Parse ``'K K JK'`` or ``'K:JK'`` (``'wild:JK JK 2'`` for a wild-only meld).

        :raises MoveParseError: when no rank can be told or a card is not understood.
        :raises TypeError: for something else than text.
        """
        _require_text(text, "MeldGroup.from_text")
        rank_text, sep, cards_text = text.partition(":")
        try:
            if sep:
                rank = WILD_RANK if rank_text.strip().lower() == "wild" else parse_kind(rank_text)
                cards = parse_kinds(cards_text)
            else:
                cards = parse_kinds(text)
                ranks = {kind for kind in cards if kind > TWO}
                if len(ranks) != 1:
                    raise MoveParseError(
                        f"meld group {text!r} must hold cards of exactly one rank; "
                        "write RANK:CARDS (e.g. K:JK) to add only wild cards"
                    )
                (rank,) = ranks
        except CardParseError as error:
            raise MoveParseError(f"meld group {text!r}: {error}") from None
        if not cards:
            raise MoveParseError(f"meld group {text!r} holds no card")
        return cls(rank, cards)


def _reads_as_cards(rank: int, cards: tuple[int, ...]) -> bool:
    """Whether ``cards`` alone, as text, read back as a group of ``rank``: they hold a card of that rank (a natural
    rank or a 3) and no other card but wild cards.  Any other group writes its rank (``K:7 K``, ``2:2``): its cards
    alone would read as another rank's, or as none."""
    if rank <= TWO or rank not in cards:
        return False
    for card in cards:  # a loop, not all() of a generator: compiled, a generator is an object made each call
        if card != rank and card > TWO:
            return False
    return True


# Lists, not generators, in both: compiled, a list comprehension is a C loop, a generator an object resumed per item.
def _groups_text(groups: tuple[MeldGroup, ...]) -> str:
    return "; ".join([str(group) for group in groups])


def _parse_groups(text: str) -> tuple[MeldGroup, ...]:
    return tuple([MeldGroup.from_text(part) for part in text.split(";") if part.strip()])


def _group_of(rank: int, naturals: int, jokers: int, deuces: int) -> MeldGroup:
    """:meth:`MeldGroup.of` for the record type itself, its cards joined from shared runs: a C call compiled."""
    cards = _kind_run(JOKER, jokers) + _kind_run(TWO, deuces)
    if rank != WILD_RANK:
        cards = _kind_run(rank, naturals) + cards
        if rank <= TWO:  # no rank a meld can have: the constructor puts the cards in order
            return MeldGroup(rank, cards)
    return _ordered_group(rank, cards)  # the cards in their canonical order already: naturals, jokers, deuces


def _ordered_group(rank: int, cards: tuple[int, ...]) -> MeldGroup:
    """A group of cards already in their canonical order (naturals, jokers, deuces), built without the sort."""
    group = MeldGroup.__new__(MeldGroup)
    group.rank = rank
    group.cards = cards
    return group


def _ordered_take(cards: tuple[int, ...], extra: tuple[MeldGroup, ...]) -> TakePile:
    """A take whose cards are in their canonical order already (naturals, jokers, deuces), built without the
    constructor's sort: the bot protocol reads takes from their canonical texts."""
    take = TakePile.__new__(TakePile)
    take.cards = cards
    take.extra = extra
    return take


class _MoveBase:
    """What the move records share: equality, hashing and pickling by their fields, immutability, the text form."""

    # Extension types where compiled (sim/core/moves.pxd): the engine, the listings and the strategies build and
    # read records by the thousand a hand, and a module that cimports them reads their fields as C members.
    __slots__ = ()
    __match_args__ = ()

    def __init__(self) -> None:
        pass  # a record without fields takes no argument (compiled, the type's own allocator would accept any)

    def _values(self) -> tuple:
        return ()

    def __setattr__(self, name: str, value: object) -> None:
        refuse_change(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete {name!r}: {type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self):
        return (type(self), self._values())

    def __repr__(self) -> str:
        text = move_text(self)
        if text is not None:
            return f"parse_move({text!r})"
        # A record built by hand with a value that is no card kind has no text form to re-parse.
        values = zip(self.__match_args__, self._values(), strict=True)
        fields = ", ".join(f"{name}={value!r}" for name, value in values)
        return f"{type(self).__name__}({fields})"


class Draw(_MoveBase):
    """Draw the top card of the stock (R7.1); red 3s drawn are laid down and replaced (R4.2)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "draw"


class TakePile(_MoveBase):
    """Take the whole discard pile (R8.2, R8.3).

    :ivar cards: the hand cards melded with the top card (empty: lay it off on the side's meld); a numpy integer
        given is held as the int it equals.
    :ivar extra: further melds from hand laid with the take to reach the initial minimum (R8.2e, R8.3).
    """

    __slots__ = ("cards", "extra")
    __match_args__ = ("cards", "extra")

    def __init__(self, cards: tuple[int, ...] = (), extra: tuple[MeldGroup, ...] = ()) -> None:
        self.cards: tuple[int, ...] = _plain_kinds(tuple(sorted(cards, key=_card_order)))
        # A list, the usual slip, would leave the record unhashable and changing with the list.
        self.extra: tuple[MeldGroup, ...] = tuple(extra) if type(extra) is list else extra

    def _values(self) -> tuple:
        return (self.cards, self.extra)

    def __str__(self) -> str:
        text = "take"
        if self.cards:
            text += " " + kinds_text(self.cards)
        if self.extra:
            text += ("; " if self.cards else " ; ") + _groups_text(self.extra)
        return text


class Meld(_MoveBase):
    """Lay one or more groups from hand; validated together (R6.5, R10.3).

    :ivar groups: the :class:`MeldGroup` records laid.
    """

    __slots__ = ("groups",)
    __match_args__ = ("groups",)

    def __init__(self, groups: tuple[MeldGroup, ...]) -> None:
        self.groups: tuple[MeldGroup, ...] = tuple(groups) if type(groups) is list else groups  # as TakePile's extra

    def _values(self) -> tuple:
        return (self.groups,)

    def __str__(self) -> str:
        return "meld " + _groups_text(self.groups)


class Ask(_MoveBase):
    """Ask the partner "may I go out?" (R12.5)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "ask"


class Answer(_MoveBase):
    """The partner's binding answer to :class:`Ask` (R12.5).

    :ivar yes: whether the partner lets the player go out.
    """

    __slots__ = ("yes",)
    __match_args__ = ("yes",)

    def __init__(self, yes: bool) -> None:
        # Kept as given, whatever it is: the checks refuse anything but True or False (E1), since Answer("no") read as
        # true would be a yes.
        self.yes: bool = yes

    def _values(self) -> tuple:
        return (self.yes,)

    def __str__(self) -> str:
        return "answer yes" if self.yes else "answer no"


class Discard(_MoveBase):
    """Discard one card of this kind (R6.1, R6.3).

    :ivar card: the kind discarded (a numpy integer given is held as the int it equals).
    """

    __slots__ = ("card",)
    __match_args__ = ("card",)

    def __init__(self, card: int) -> None:
        self.card: int = card if type(card) is int else _plain_kind(card)

    def _values(self) -> tuple:
        return (self.card,)

    def __str__(self) -> str:
        # A record built by hand may hold no kind at all (E1); show it as it is rather than fail.
        return f"discard {KIND_NAMES[self.card] if is_kind(self.card) else repr(self.card)}"


class Stop(_MoveBase):
    """End the turn without acquiring (empty stock, R13.3) or without discarding (R13.1)."""

    __slots__ = ()

    def __str__(self) -> str:
        return "stop"


Move = Draw | TakePile | Meld | Ask | Answer | Discard | Stop

DRAW = Draw()
"""The one draw move (records are immutable, so one instance serves everywhere)."""
ASK = Ask()
"""The one ask move."""
STOP = Stop()
"""The one stop move."""
"""Any move record."""

_SIMPLE = {"draw": DRAW, "ask": ASK, "stop": STOP, "answer yes": Answer(True), "answer no": Answer(False)}


def parse_move(text: str) -> Move:
    """Parse the text form of a move (see the module's table); ``str(parse_move(t))`` normalises ``t``.

    :raises MoveParseError: naming the text and the accepted forms.
    :raises TypeError: for something else than text.
    """
    _require_text(text, "parse_move")
    normal = " ".join(text.strip().split())
    simple = _SIMPLE.get(normal.lower())
    if simple is not None:
        return simple
    verb, _, rest = normal.partition(" ")
    verb = verb.lower()
    try:
        if verb == "take":
            first, _, extra_text = rest.partition(";")
            return TakePile(parse_kinds(first), _parse_groups(extra_text))
        if verb == "meld":
            groups = _parse_groups(rest)
            if not groups:
                raise MoveParseError(f"move {text!r}: a meld needs at least one group of cards")
            return Meld(groups)
        if verb == "discard":
            cards = parse_kinds(rest)
            if len(cards) != 1:
                raise MoveParseError(f"move {text!r}: discard exactly one card, e.g. 'discard 4'")
            return Discard(cards[0])
    except CardParseError as error:
        raise MoveParseError(f"move {text!r}: {error}") from None
    raise MoveParseError(
        f"move {text!r} is not understood; use draw, take [CARDS][; GROUPS], meld GROUP[; GROUP...], "
        "ask, answer yes|no, discard CARD, or stop"
    )


def _groups(move: Move) -> object:
    """A record's groups as it holds them: a meld's, a take's extra melds; none for the other records."""
    if isinstance(move, Meld):
        return move.groups
    if isinstance(move, TakePile):
        return move.extra
    return ()


def _are_groups(groups: object) -> bool:
    """Whether ``groups`` is a tuple or list of :class:`MeldGroup` records, as every record but one built by hand holds
    (E1: such a record is checked, not trusted)."""
    if not isinstance(groups, (tuple, list)):
        return False
    for group in groups:  # a loop, not all() of a generator: compiled, a generator is an object made each call
        if not isinstance(group, MeldGroup):
            return False
    return True


def is_kind(value: object) -> bool:
    """Whether ``value`` is a card kind 0-14 (E1: records built by hand are checked, not trusted).

    Any integral type passes (a strategy may compute kinds with numpy; the records' constructors hold such a kind as
    the int it equals) but ``bool``: ``True`` is no card, though Python counts it as 1, the kind of a 2.  Floats and
    text do not.
    """
    return (type(value) is int or isinstance(value, numbers.Integral) and not isinstance(value, bool)) and (
        0 <= value < KIND_COUNT)


def kind_problem(move: Move, value: object) -> str:
    """What is wrong with ``move`` holding ``value`` where a card kind goes (E1), naming the record's type only: the
    record cannot be printed."""
    return f"a {type(move).__name__} holds {value!r}, which is not a card kind (a whole number 0-{KIND_COUNT - 1})"


def record_problem(move: Move) -> str | None:
    """What makes a record built by hand no move (E1): groups that are no :class:`MeldGroup` records, or a value that
    is no card kind; ``None`` for a record whose every field holds what it should."""
    groups = _groups(move)
    if not _are_groups(groups):
        return f"a {type(move).__name__}'s groups are MeldGroup records in a tuple; it holds {_shown(groups)}"
    # Every value that should be a card kind (the groups' ranks included), checked in loops: the bot server judges
    # every answer its strategy gives, and a generator's frame per record cost it a twentieth of its work.
    if isinstance(move, Discard):
        problem = _kinds_problem(move, (move.card,))
    elif isinstance(move, TakePile):
        problem = _kinds_problem(move, move.cards)
    elif isinstance(move, Answer) and type(move.yes) is not bool:
        return f"an {type(move).__name__}'s yes is True or False; it holds {_shown(move.yes)}"
    else:
        problem = None
    if problem is None:
        for group in groups:
            problem = _kinds_problem(move, (group.rank,)) or _kinds_problem(move, group.cards)
            if problem is not None:
                break
    return problem


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _kinds_problem(move: Move, values: Sequence[object]) -> str | None:
    """:func:`kind_problem` for the first of ``values`` that is no card kind, or ``None``."""
    for value in values:
        if not (type(value) is int and 0 <= value < KIND_COUNT) and not is_kind(value):  # a plain int without a call
            return kind_problem(move, value)
    return None


def plain_record(move: Move) -> Move:
    """``move``, which the rules accepted, as the engine's own records hold it: its groups records of
    :class:`MeldGroup` itself, in a tuple.  A record whose groups a strategy built otherwise (a list it could change
    after the move, a subclass of :class:`MeldGroup` whose code would run in whichever seat reads the move next) is
    rebuilt, so that the history and the other seats' events hold nothing of the strategy's own; any other record is
    returned as it is.  Reading the groups to rebuild them may run that code: the caller charges what it raises to
    the seat that made the move."""
    if type(move) is Meld:
        if _plain_groups(move.groups):
            return move
        return Meld(_rebuilt_groups(move.groups))
    if type(move) is TakePile:
        if _plain_groups(move.extra):
            return move
        return TakePile(move.cards, _rebuilt_groups(move.extra))
    return move


def _plain_groups(groups: object) -> bool:
    if type(groups) is not tuple:
        return False
    for group in groups:  # a loop, not all() of a generator: compiled, a generator is an object made each call
        if type(group) is not MeldGroup:
            return False
    return True


def _rebuilt_groups(groups) -> tuple[MeldGroup, ...]:
    return tuple([MeldGroup(group.rank, tuple(group.cards)) for group in groups])


_RECORD_TYPES = frozenset((Draw, TakePile, Meld, Ask, Answer, Discard, Stop))


def move_text(value: object) -> str | None:
    """``value`` in the notation :func:`parse_move` reads when it is a move, else ``None`` (a record holding a value
    that is no card kind, or groups that are no :class:`MeldGroup` records, has no notation)."""
    # The records' own types only: a strategy's subclass is no move (E1), and its __str__ is the strategy's code.
    if type(value) not in _RECORD_TYPES:
        return None
    try:
        if record_problem(value) is None:
            return str(value)
    except UserInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - groups of the strategy's own classes failed when read: no notation
        return None
    return None
