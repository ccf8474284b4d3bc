"""Positions and decks for the rule-set option tests (``test_options_*.py``, ``test_rule_set.py``).

A *bare* position differs from :func:`tests.helpers.position`: seats not given hold nothing and every card not
placed lies in the stock (or, with ``rest_to``, in one seat's hand), so an option's test controls every card
that can matter to it.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    JOKER,
    KIND_COUNT,
    KIND_NAMES,
    RED_THREE,
    TWO,
    parse_kind,
    parse_kinds,
)
from canasta_sim.core.moves import MeldGroup, parse_move
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.state import (
    ACQUIRE,
    HandState,
)
from canasta_sim.errors import IllegalMoveError

KING = parse_kind("K")
QUEEN = parse_kind("Q")
NINE = parse_kind("9")
SEVEN = parse_kind("7")



# --------------------------------------------------------------------------- position helper


def bare_position(
    rules: Rules = DEFAULT_RULES,
    *,
    hands: dict[int, str] | None = None,
    melds: dict[int, str] | None = None,
    pile: str = "",
    stock: str = "",
    red_threes: dict[int, int] | None = None,
    melded_seats: tuple[int, ...] | None = None,
    seat: int = 0,
    scores: tuple[int, int] = (0, 0),
    rest_to: int | None = None,
) -> HandState:
    """Build a position at the start of ``seat``'s turn that still holds all 108 cards (R1.1).

    ``hands`` maps seats to their exact hands (others hold nothing), ``melds`` maps sides to groups
    such as ``'K K K; 8 8 2'``, ``pile`` lists the discard pile bottom first, ``stock`` the next
    stock cards in the order they will be drawn.  Unplaced cards go below them in the stock, red 3s
    at the very bottom; with ``rest_to`` they go to that seat's hand instead (red 3s to its row),
    so that the stock holds exactly the ``stock`` cards.  ``melded_seats`` defaults to every seat
    of a side with melds on the table.
    """
    state = HandState.from_deck(rules, list(range(108)), dealer=(seat - 1) % 4, scores=scores)
    pool: list[list[int]] = [[] for _ in range(KIND_COUNT)]
    for card in range(107, -1, -1):
        pool[CARD_KIND[card]].append(card)

    def take(kind: int) -> int:
        if not pool[kind]:
            raise ValueError(f"the position uses more {KIND_NAMES[kind]} than the deck holds")
        return pool[kind].pop()

    state.hands = [[0] * KIND_COUNT for _ in range(4)]
    for owner, text in (hands or {}).items():
        for kind in parse_kinds(text):
            take(kind)
            state.hands[owner][kind] += 1
    state.melds = [[[0, 0, 0] for _ in range(KIND_COUNT)] for _ in range(2)]
    for side, text in (melds or {}).items():
        for part in text.split(";"):
            group = MeldGroup.from_text(part)
            for kind in group.cards:
                take(kind)
            meld = state.melds[side][group.rank]
            meld[0] += group.naturals
            meld[1] += group.jokers
            meld[2] += group.deuces
    state.pile = list(parse_kinds(pile))
    for kind in state.pile:
        take(kind)
    state.pile_freezers = sum(
        1
        for kind in state.pile
        if kind <= TWO or kind == RED_THREE or (kind == BLACK_THREE and rules.black_three_freezes_pile)
    )
    state.red_threes = [0, 0, 0, 0]
    for owner, count in (red_threes or {}).items():
        for _ in range(count):
            take(RED_THREE)
        state.red_threes[owner] = count
    top = [take(kind) for kind in parse_kinds(stock)]
    rest = sorted((card for ids in pool for card in ids), key=lambda card: (CARD_KIND[card] == RED_THREE, card))
    if rest_to is None:
        state.stock = list(reversed(top + rest))
    else:
        state.stock = list(reversed(top))
        for card in rest:
            if CARD_KIND[card] == RED_THREE:
                state.red_threes[rest_to] += 1
            else:
                state.hands[rest_to][CARD_KIND[card]] += 1
    state.hand_sizes = [sum(hand) for hand in state.hands]
    state.side_has_melded = [any(sum(meld) for meld in state.melds[side]) for side in (0, 1)]
    if melded_seats is None:
        melded_seats = tuple(owner for owner in range(4) if state.side_has_melded[owner & 1])
    state.seat_has_melded = [owner in melded_seats for owner in range(4)]
    state.first_turn_done = [True] * 4
    state.history = []
    state.seat = seat
    state._reset_turn()
    state.phase = ACQUIRE
    assert state.card_total() == 108
    return state


def play_moves(state: HandState, *moves: str) -> HandState:
    """Apply moves given in their text form (canasta_sim.core.moves) and check that no card was lost (R1.1)."""
    for text in moves:
        state.apply(parse_move(text))
    assert state.card_total() == 108
    return state


def refused_rule(state: HandState, move: str) -> str:
    """Return the rule ID an illegal move breaks; the move must also be reported illegal by ``is_legal``."""
    parsed = parse_move(move)
    assert not state.is_legal(parsed)
    with pytest.raises(IllegalMoveError) as caught:
        state.apply(parsed)
    return caught.value.rule


def deck_dealing(dealt: dict[int, str], *, dealer: int, after: str) -> list[int]:
    """A deck (index 0 on top) dealing ``dealt`` (R3.1) then ``after`` (upcard, then stock, top first).

    Seats' hands are topped up to 11 with natural cards; red 3s are kept to the bottom of the deck.
    """
    pool: list[list[int]] = [[] for _ in range(KIND_COUNT)]
    for card in range(107, -1, -1):
        pool[CARD_KIND[card]].append(card)
    hands = {seat: [pool[kind].pop() for kind in parse_kinds(dealt.get(seat, ""))] for seat in range(4)}
    top = [pool[kind].pop() for kind in parse_kinds(after)]
    naturals = sorted(card for kind in range(4, KIND_COUNT) for card in pool[kind])
    others = sorted(
        (card for kind in (JOKER, TWO, BLACK_THREE, RED_THREE) for card in pool[kind]),
        key=lambda card: (CARD_KIND[card] == RED_THREE, card),
    )
    filler = naturals + others
    for seat in range(4):
        while len(hands[seat]) < 11:
            hands[seat].append(filler.pop(0))
    deck = [hands[(dealer + 1 + index) % 4][index // 4] for index in range(44)]
    return deck + top + filler


