"""docs/rules.md §1: the deck, wild cards, natural cards and card values (R1.1-R1.4)."""

from collections import Counter

import pytest

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    CARD_SUIT,
    DECK_COUNTS,
    JOKER,
    KIND_VALUE,
    NATURAL_KINDS,
    RED_THREE,
    TWO,
    card_text,
    counts_from_kinds,
    counts_value,
    is_natural,
    is_wild,
    parse_kinds,
)
from canasta_sim.core.moves import Meld, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY, HandState
from tests.helpers import expect_illegal, position


def test_r1_1_deck_has_108_cards_each_suit_rank_twice():
    assert len(CARD_KIND) == 108 and sum(DECK_COUNTS) == 108
    pairs = Counter(card_text(card_id) for card_id in range(104))
    assert len(pairs) == 52 and set(pairs.values()) == {2}
    assert [card_text(card_id) for card_id in range(104, 108)] == ["JK"] * 4


def test_r1_1_a_stacked_deck_must_hold_every_card_once():
    deck = list(range(108))
    deck[5] = deck[6]
    with pytest.raises(ValueError, match="R1.1"):
        HandState.from_deck(Rules(), deck, dealer=0)
    state = HandState.from_deck(Rules(), list(range(108)), dealer=0)
    assert state.card_total() == 108


def test_r1_2_wild_cards_are_four_jokers_and_eight_deuces():
    assert [kind for kind in range(15) if is_wild(kind)] == [JOKER, TWO]
    assert DECK_COUNTS[JOKER] == 4 and DECK_COUNTS[TWO] == 8


def test_r1_3_naturals_are_four_to_ace_threes_by_colour():
    assert [kind for kind in range(15) if is_natural(kind)] == list(NATURAL_KINDS) == list(range(4, 15))
    assert DECK_COUNTS[RED_THREE] == 4 and DECK_COUNTS[BLACK_THREE] == 4
    for card_id in range(104):
        if CARD_KIND[card_id] == RED_THREE:
            assert CARD_SUIT[card_id] in (1, 2)  # hearts, diamonds
        elif CARD_KIND[card_id] == BLACK_THREE:
            assert CARD_SUIT[card_id] in (0, 3)  # spades, clubs


def test_r1_3_wild_card_never_stands_in_for_a_three():
    state = position(hands={0: "3b 3b JK 9"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    # Even as the going-out meld, black 3s take no wild card (R5.3), and red 3s make no meld at all.
    expect_illegal(state, Meld((MeldGroup(BLACK_THREE, (BLACK_THREE, BLACK_THREE, JOKER)),)), "R5.3")
    expect_illegal(state, Meld((MeldGroup(RED_THREE, (JOKER, JOKER, JOKER)),)), "R9.8")


def test_r1_4_point_values():
    expected = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
                "7": 5, "6": 5, "5": 5, "4": 5, "3b": 5, "3r": 0}
    for text, value in expected.items():
        (kind,) = parse_kinds(text)
        assert KIND_VALUE[kind] == value, text
    assert counts_value(counts_from_kinds(parse_kinds("JK 2 A K 7 3b"))) == 50 + 20 + 20 + 10 + 5 + 5
