"""Scoring a finished hand (RULES.md §14) and the records kept for each side.

The identity ``score = meld_points + canasta_bonus + going_out_bonus +
red_three_bonus - hand_penalty`` holds for every :class:`SideHandResult`
by construction, and the tests check it over thousands of hands.
"""

from __future__ import annotations

import dataclasses

from canasta_sim.cards import KIND_VALUE
from canasta_sim.melds import CANASTA_SIZE, meld_value
from canasta_sim.state import HandState

__all__ = ["HandResult", "SideHandResult", "score_hand"]


@dataclasses.dataclass(frozen=True, slots=True)
class SideHandResult:
    """One side's result for one hand, with the facts recorded while it was played.

    Points are in game points; counts are numbers of events or cards.
    """

    side: int
    """0 for side A (seats 0 and 2), 1 for side B (seats 1 and 3)."""
    score: int
    """The hand's result for the side (R14.1), may be negative (R14.2)."""
    meld_points: int
    """R14.1a: card points of the side's melds."""
    canasta_natural: int
    """Natural canastas (no wild card) on the table at the end (R11.2)."""
    canasta_mixed: int
    """Mixed canastas on the table at the end (R11.2)."""
    canasta_bonus: int
    """R14.1b: 500 per natural and 300 per mixed canasta (by default)."""
    went_out: bool
    """A player of this side went out (R12)."""
    concealed: bool
    """That player went out concealed (R12.6)."""
    going_out_bonus: int
    """R14.1c: 100, or 200 in total when concealed (by default)."""
    red_threes: int
    """Red 3s laid down by the side's two players (R4)."""
    red_three_bonus: int
    """R14.1d: +100 each or +800 for all four; negative when the side melded nothing."""
    hand_penalty: int
    """R14.1e: card points left in both partners' hands, subtracted (a positive number)."""
    melded: bool
    """The side made its initial meld this hand."""
    initial_requirement: int
    """The side's initial-meld minimum this hand (R10.2)."""
    pile_takes: int
    """How many times the side took the discard pile."""
    pile_cards_taken: int
    """Cards those takes brought, top cards included."""
    frozen_pile_takes: int
    """Takes of a pile frozen by its content (R8.1b)."""
    pile_freezes: int
    """Discards by the side that froze an unfrozen pile."""
    turns: int
    """Turns the side's players began this hand."""
    cards_left: tuple[int, int] = (0, 0)
    """Cards left in each partner's hand at the end: (the side's first seat, its second), i.e. seats (0, 2)
    for side A and (1, 3) for side B."""


@dataclasses.dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: why it ended and both sides' results."""

    hand_number: int
    dealer: int
    end_reason: str
    """``went_out``, ``stock_exhausted``, ``red_three_last_card`` or ``turn_cap``."""
    turns: int
    went_out_seat: int | None
    sides: tuple[SideHandResult, SideHandResult]
    totals_after: tuple[int, int]
    """Both sides' running totals after this hand (R14.2, R15.1)."""


def score_hand(state: HandState) -> HandResult:
    """Score both sides of a finished hand (R14.1, R14.4).

    :raises ValueError: if the hand is not over.
    """
    if not state.is_over:
        raise ValueError("R14.4: a hand is scored once, after it ends; this one is still being played")
    rules = state.rules
    sides = []
    for side in (0, 1):
        meld_points = 0
        natural = mixed = 0
        for rank, meld in enumerate(state.melds[side]):
            naturals, jokers, deuces = meld
            meld_points += meld_value(rank, naturals, jokers, deuces)
            if naturals + jokers + deuces >= CANASTA_SIZE:
                if jokers + deuces:
                    mixed += 1
                else:
                    natural += 1
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
        if red_threes == 4:
            red_three_bonus = rules.all_four_red_threes_total
        else:
            red_three_bonus = red_threes * rules.red_three_value
        melded = state.side_has_melded[side]
        if not melded and rules.red_three_negative_if_no_meld:
            red_three_bonus = -red_three_bonus
        hand_penalty = 0
        for seat in (side, side + 2):
            hand = state.hands[seat]
            hand_penalty += sum(count * value for count, value in zip(hand, KIND_VALUE, strict=True))
        score = meld_points + canasta_bonus + going_out_bonus + red_three_bonus - hand_penalty
        sides.append(
            SideHandResult(
                side=side,
                score=score,
                meld_points=meld_points,
                canasta_natural=natural,
                canasta_mixed=mixed,
                canasta_bonus=canasta_bonus,
                went_out=went_out,
                concealed=concealed,
                going_out_bonus=going_out_bonus,
                red_threes=red_threes,
                red_three_bonus=red_three_bonus,
                hand_penalty=hand_penalty,
                melded=melded,
                initial_requirement=state.requirements[side],
                pile_takes=state.pile_takes[side],
                pile_cards_taken=state.pile_cards_taken[side],
                frozen_pile_takes=state.frozen_pile_takes[side],
                pile_freezes=state.pile_freezes[side],
                turns=state.side_turns[side],
                cards_left=(sum(state.hands[side]), sum(state.hands[side + 2])),
            )
        )
    return HandResult(
        hand_number=state.hand_number,
        dealer=state.dealer,
        end_reason=state.end_reason or "",
        turns=state.turn_count,
        went_out_seat=state.went_out_seat,
        sides=(sides[0], sides[1]),
        totals_after=(state.scores_before[0] + sides[0].score, state.scores_before[1] + sides[1].score),
    )
