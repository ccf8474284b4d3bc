"""Scoring a finished hand (docs/rules.md §14) and the records kept for each side.

The identity ``score = meld_points + canasta_bonus + going_out_bonus +
red_three_bonus - hand_penalty`` holds for every :class:`SideHandResult`
by construction, and the tests check it over thousands of hands.
"""

from __future__ import annotations

from canasta_sim.core.cards import JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import WILD_RANK, refuse_change
from canasta_sim.core.state import HandState

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, points of one hand: all far below 2**31), a Python int otherwise."""

_KIND_VALUE = KIND_VALUE  # a C array compiled (sim/core/scoring.pxd)
# C integers where compiled (sim/core/scoring.pxd): the loops over kinds are C loops, the reads by index C reads.
_KIND_COUNT = KIND_COUNT
_JOKER = JOKER
_TWO = TWO
_WILD_RANK = WILD_RANK
_CANASTA_SIZE = CANASTA_SIZE

__all__ = ["HandResult", "SideHandResult", "meld_totals", "score_hand", "side_hand_penalty", "side_red_three_bonus"]


class _Result:
    """What the hand's results share: immutable, equal and hashable by their fields' values (``values()``, in the
    order of ``FIELDS``), shown and copied as a dataclass would be, and pickled as their constructor's
    arguments (a run's results cross from worker to parent)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        refuse_change(self, name, value)

    def replace(self, **changes: object):
        """A copy with the fields named in ``changes`` given those values.

        :raises TypeError: a name is no field.
        """
        return _replaced(self, changes)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return _fields_repr(self)

    def __reduce__(self):
        return (type(self), self.values())


class SideHandResult(_Result):
    """One side's result for one hand, with the facts recorded while it was played.

    Immutable, equal and hashable by its fields (in the order of :attr:`FIELDS`).  Points are in game
    points; counts are numbers of events or cards.

    :ivar side: 0 for side A (seats 0 and 2), 1 for side B (seats 1 and 3).
    :ivar score: the hand's result for the side (R14.1), may be negative (R14.2).
    :ivar meld_points: R14.1a: card points of the side's melds.
    :ivar canasta_natural: natural canastas (no wild card) on the table at the end (R11.2).
    :ivar canasta_mixed: mixed canastas on the table at the end (R11.2).
    :ivar canasta_bonus: R14.1b: 500 per natural and 300 per mixed canasta (by default).
    :ivar went_out: a player of this side went out (R12).
    :ivar concealed: that player went out concealed (R12.6).
    :ivar going_out_bonus: R14.1c: 100, or 200 in total when concealed (by default).
    :ivar red_threes: red 3s laid down by the side's two players (R4).
    :ivar red_three_bonus: R14.1d: +100 each or +800 for all four; negative when the side melded nothing.
    :ivar hand_penalty: R14.1e: card points left in both partners' hands, subtracted (a positive number).
    :ivar melded: the side made its initial meld this hand.
    :ivar initial_requirement: the side's initial-meld minimum this hand (R10.2).
    :ivar pile_takes: how many times the side took the discard pile.
    :ivar pile_cards_taken: cards those takes brought, top cards included.
    :ivar frozen_pile_takes: takes of a pile frozen by its content (R8.1b).
    :ivar pile_freezes: discards by the side that froze an unfrozen pile.
    :ivar turns: turns the side's players began this hand.
    :ivar cards_left: cards left in each partner's hand at the end: (the side's first seat, its second),
        i.e. seats (0, 2) for side A and (1, 3) for side B.
    """

    FIELDS = (
        "side", "score", "meld_points", "canasta_natural", "canasta_mixed", "canasta_bonus", "went_out",
        "concealed", "going_out_bonus", "red_threes", "red_three_bonus", "hand_penalty", "melded",
        "initial_requirement", "pile_takes", "pile_cards_taken", "frozen_pile_takes", "pile_freezes", "turns",
        "cards_left",
    )
    """The fields' names, in the constructor's order."""

    # An extension type where compiled (sim/core/scoring.pxd): two are built every hand.
    __slots__ = FIELDS

    def __init__(
        self, side: int, score: int, meld_points: int, canasta_natural: int, canasta_mixed: int, canasta_bonus: int,
        went_out: bool, concealed: bool, going_out_bonus: int, red_threes: int, red_three_bonus: int,
        hand_penalty: int, melded: bool, initial_requirement: int, pile_takes: int, pile_cards_taken: int,
        frozen_pile_takes: int, pile_freezes: int, turns: int, cards_left: tuple[int, int] = (0, 0),
    ) -> None:
        self.side = side
        self.score = score
        self.meld_points = meld_points
        self.canasta_natural = canasta_natural
        self.canasta_mixed = canasta_mixed
        self.canasta_bonus = canasta_bonus
        self.went_out = went_out
        self.concealed = concealed
        self.going_out_bonus = going_out_bonus
        self.red_threes = red_threes
        self.red_three_bonus = red_three_bonus
        self.hand_penalty = hand_penalty
        self.melded = melded
        self.initial_requirement = initial_requirement
        self.pile_takes = pile_takes
        self.pile_cards_taken = pile_cards_taken
        self.frozen_pile_takes = frozen_pile_takes
        self.pile_freezes = pile_freezes
        self.turns = turns
        self.cards_left = cards_left

    def values(self) -> tuple:
        """The fields' values, in the order of :attr:`FIELDS`."""
        return (
            self.side, self.score, self.meld_points, self.canasta_natural, self.canasta_mixed, self.canasta_bonus,
            self.went_out, self.concealed, self.going_out_bonus, self.red_threes, self.red_three_bonus,
            self.hand_penalty, self.melded, self.initial_requirement, self.pile_takes, self.pile_cards_taken,
            self.frozen_pile_takes, self.pile_freezes, self.turns, self.cards_left,
        )



class HandResult(_Result):
    """A finished hand: why it ended and both sides' results.

    Immutable, equal and hashable by its fields (in the order of :attr:`FIELDS`).

    :ivar hand_number: the hand's number in the game, from 1.
    :ivar dealer: the seat that dealt it.
    :ivar end_reason: ``went_out``, ``stock_exhausted``, ``red_three_last_card`` or ``turn_cap``.
    :ivar turns: the turns played.
    :ivar went_out_seat: the seat that went out, or ``None``.
    :ivar sides: both sides' :class:`SideHandResult`.
    :ivar totals_after: both sides' running totals after this hand (R14.2, R15.1).
    """

    FIELDS = ("hand_number", "dealer", "end_reason", "turns", "went_out_seat", "sides", "totals_after")
    """The fields' names, in the constructor's order."""

    # An extension type where compiled (sim/core/scoring.pxd): one is built every hand.
    __slots__ = FIELDS

    def __init__(
        self, hand_number: int, dealer: int, end_reason: str, turns: int, went_out_seat: int | None,
        sides: tuple[SideHandResult, SideHandResult], totals_after: tuple[int, int],
    ) -> None:
        self.hand_number = hand_number
        self.dealer = dealer
        self.end_reason = end_reason
        self.turns = turns
        self.went_out_seat = went_out_seat
        self.sides = sides
        self.totals_after = totals_after

    def values(self) -> tuple:
        """The fields' values, in the order of :attr:`FIELDS`."""
        return (self.hand_number, self.dealer, self.end_reason, self.turns, self.went_out_seat, self.sides,
                self.totals_after)



def _replaced(record, changes: dict):
    """``record``'s type built from its values with ``changes`` applied (the results' ``replace``)."""
    unknown = changes.keys() - set(record.FIELDS)
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {', '.join(sorted(unknown))}")
    return type(record)(*[changes.get(name, value) for name, value in zip(record.FIELDS, record.values(), strict=True)])


def _fields_repr(record) -> str:
    """``Name(field=value, ...)``, as a dataclass shows itself."""
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(record.FIELDS, record.values(), strict=True))
    return f"{type(record).__name__}({shown})"


@cython.locals(meld_points=Count, natural=Count, mixed=Count, hand_penalty=Count, side=Count, state=HandState)
def score_hand(state: HandState) -> HandResult:
    """Score both sides of a finished hand (R14.1, R14.4).

    :raises TypeError: if ``state`` is not a :class:`~canasta_sim.core.state.HandState`.
    :raises ValueError: if the hand is not over.
    """
    # Compiled, the state is typed (sim/core/scoring.pxd): its fields are read as C struct members, not by name.
    if not isinstance(state, HandState):
        raise TypeError(f"score_hand scores a HandState, not {type(state).__name__}")
    if not state.is_over:
        raise ValueError("R14.4: a hand is scored once, after it ends; this one is still being played")
    rules = state.rules
    sides = []
    for side in range(2):
        meld_points, natural, mixed = meld_totals(state, side)
        canasta_bonus = natural * rules.natural_canasta_bonus + mixed * rules.mixed_canasta_bonus
        went_out = state.went_out_seat is not None and state.went_out_seat & 1 == side
        concealed = went_out and state.went_out_concealed
        if not went_out:
            going_out_bonus = 0
        elif concealed:
            going_out_bonus = rules.concealed_going_out_bonus
        else:
            going_out_bonus = rules.going_out_bonus
        red_threes = state.red_threes[side] + state.red_threes[side + 2]
        red_three_bonus = side_red_three_bonus(state, side)
        melded = state.side_has_melded[side]
        hand_penalty = side_hand_penalty(state, side)
        score = meld_points + canasta_bonus + going_out_bonus + red_three_bonus - hand_penalty
        # The fields in their order (positional arguments: no keyword matching for each result).
        sides.append(
            SideHandResult(
                side,  # side
                score,  # score
                meld_points,  # meld_points
                natural,  # canasta_natural
                mixed,  # canasta_mixed
                canasta_bonus,  # canasta_bonus
                went_out,  # went_out
                concealed,  # concealed
                going_out_bonus,  # going_out_bonus
                red_threes,  # red_threes
                red_three_bonus,  # red_three_bonus
                hand_penalty,  # hand_penalty
                melded,  # melded
                state.requirements[side],  # initial_requirement
                state.pile_takes[side],  # pile_takes
                state.pile_cards_taken[side],  # pile_cards_taken
                state.frozen_pile_takes[side],  # frozen_pile_takes
                state.pile_freezes[side],  # pile_freezes
                state.side_turns[side],  # turns
                (sum(state.hands[side]), sum(state.hands[side + 2])),  # cards_left
            )
        )
    return HandResult(
        state.hand_number,  # hand_number
        state.dealer,  # dealer
        state.end_reason or "",  # end_reason
        state.turn_count,  # turns
        state.went_out_seat,  # went_out_seat
        (sides[0], sides[1]),  # sides
        (state.scores_before[0] + sides[0].score, state.scores_before[1] + sides[1].score),  # totals_after
    )


def meld_totals(state: HandState, side: int) -> tuple[int, int, int]:
    """R14.1a-b: the points of the cards ``side`` has melded, and its natural and mixed canastas, so far.

    :func:`score_hand` scores a finished hand with it; a search may value a hand in its middle with it too.
    """
    meld_points = natural = mixed = 0
    melds = state.melds[side]
    for rank in range(_KIND_COUNT):
        naturals, jokers, deuces = melds[rank]
        # melds.meld_value (R1.4, R14.1a), in C integers.
        if rank != _WILD_RANK:
            meld_points += naturals * _KIND_VALUE[rank]
        meld_points += jokers * _KIND_VALUE[_JOKER] + deuces * _KIND_VALUE[_TWO]
        if naturals + jokers + deuces >= _CANASTA_SIZE:
            if jokers + deuces:
                mixed += 1
            else:
                natural += 1
    return meld_points, natural, mixed


def side_red_three_bonus(state: HandState, side: int) -> int:
    """R14.1d: the side's red 3s laid down so far, worth ``red_three_value`` each or ``all_four_red_threes_total``
    for all four; negative while the side has melded nothing (R14.1d with ``red_three_negative_if_no_meld``)."""
    rules = state.rules
    red_threes = state.red_threes[side] + state.red_threes[side + 2]
    if red_threes == 4:
        bonus = rules.all_four_red_threes_total
    else:
        bonus = red_threes * rules.red_three_value
    if not state.side_has_melded[side] and rules.red_three_negative_if_no_meld:
        return -bonus
    return bonus


def side_hand_penalty(state: HandState, side: int) -> int:
    """R14.1e: the card points left in both partners' hands (a positive number)."""
    penalty = 0
    for seat in (side, side + 2):
        hand = state.hands[seat]
        if len(hand) != _KIND_COUNT:  # as zip(..., strict=True) refused a hand of another length
            raise ValueError(f"a hand holds {KIND_COUNT} counts, one per kind; seat {seat}'s holds {len(hand)}")
        for kind in range(_KIND_COUNT):
            count = hand[kind]
            penalty += count * _KIND_VALUE[kind]
    return penalty
