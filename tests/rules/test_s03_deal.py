"""docs/rules.md §3: the deal, the stock, the upcard and dealt red 3s (R3.1-R3.5)."""

import random

import pytest

from canasta_sim.core.cards import BLACK_THREE, CARD_KIND, JOKER, KIND_COUNT, RED_THREE, TWO, parse_kind
from canasta_sim.core.deal import DeckGenerator
from canasta_sim.core.moves import Discard
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import HandState, shuffled_deck
from tests.helpers import apply_all, expect_illegal, first_card, stacked_deck, verify_card_accounting

K, Q, A = (parse_kind(name) for name in "KQA")


def _deck_without_dealt_red_threes():
    # Red 3s go to the bottom so that nothing is replaced and the deal can be read off directly.
    return sorted(range(108), key=lambda card_id: CARD_KIND[card_id] == RED_THREE)


@pytest.mark.parametrize("seed", range(0, 400, 7))
def test_r3_1_the_shuffle_takes_the_steps_of_the_standard_library_shuffle(seed):
    expected = list(range(108))
    random.Random(seed).shuffle(expected)
    assert shuffled_deck(random.Random(seed)) == expected


def test_r3_1_a_deal_depends_only_on_the_generators_bits():
    # Pinned, so that a Python whose random.shuffle changed could not change a single deal.
    assert shuffled_deck(random.Random(0))[:8] == [23, 102, 3, 73, 54, 44, 24, 101]
    assert sorted(shuffled_deck(random.Random(1))) == list(range(108))


@pytest.mark.parametrize("dealer", range(4))
def test_r3_1_eleven_cards_one_at_a_time_from_dealers_left(dealer):
    deck = _deck_without_dealt_red_threes()
    state = HandState.from_deck(Rules(), deck, dealer=dealer)
    expected = [[0] * KIND_COUNT for _ in range(4)]
    for index in range(44):
        expected[(dealer + 1 + index) % 4][CARD_KIND[deck[index]]] += 1
    assert state.hands == expected
    assert state.hand_sizes == [11, 11, 11, 11]


def test_r3_2_remaining_64_cards_form_the_stock():
    deck = _deck_without_dealt_red_threes()
    state = HandState.from_deck(Rules(), deck, dealer=0)
    assert len(state.stock) + len(state.pile) == 64
    # The stock is face down in deck order: its top card (the last element) is deck[45].
    assert state.stock[-1] == deck[45] and state.stock[0] == deck[-1]


def test_r3_3_wild_and_red_three_upcards_stay_and_freeze_until_a_plain_card():
    deck = stacked_deck({}, dealer=3, upcards="JK 3r 2 9")
    state = HandState.from_deck(Rules(), deck, dealer=3)
    assert state.pile == [JOKER, RED_THREE, TWO, 9]
    assert state.is_pile_frozen() and not state.is_pile_blocked()
    assert len(state.stock) == 64 - 4
    verify_card_accounting(state)


def test_r3_3_plain_upcard_does_not_freeze():
    state = HandState.from_deck(Rules(), stacked_deck({}, dealer=3, upcards="9"), dealer=3)
    assert state.pile == [9] and not state.is_pile_frozen()


def test_r3_4_black_three_upcard_blocks_but_does_not_freeze():
    deck = stacked_deck({0: "3b 3b K K"}, dealer=3, upcards="3b")
    state = HandState.from_deck(Rules(), deck, dealer=3)
    assert state.pile == [BLACK_THREE] and state.is_pile_blocked() and not state.is_pile_frozen()
    expect_illegal(state, "take 3b 3b", "R5.2")
    frozen = HandState.from_deck(Rules(black_three_freezes_pile=True), deck, dealer=3)
    assert frozen.is_pile_frozen()


def test_r3_5_d4_dealt_red_threes_laid_and_replaced_from_dealers_left():
    deck = stacked_deck({0: "3r", 2: "3r"}, dealer=3, upcards="9", stock_top="3r K Q A")
    state = HandState.from_deck(Rules(), deck, dealer=3)
    # Seat 0 goes first: its red 3 is replaced by a red 3, laid in turn and replaced by K.
    assert state.red_threes == [2, 0, 1, 0]
    assert state.hands[0][RED_THREE] == 0 and state.hands[2][RED_THREE] == 0
    assert state.hand_sizes[0] == 11 and state.hand_sizes[2] == 11
    assert state.stock[-1] == deck[48]  # A is next: K went to seat 0, Q to seat 2
    assert CARD_KIND[state.stock[-1]] == A
    verify_card_accounting(state)


def test_r3_5_first_turn_alternative_replaces_at_each_players_first_turn():
    rules = Rules(dealt_red_three_timing="first_turn")
    deck = stacked_deck({0: "3r", 2: "3r"}, dealer=3, upcards="9", stock_top="K Q A")
    state = HandState.from_deck(rules, deck, dealer=3)
    # Seat 0 moves first, so its red 3 is laid at once; seat 2 still holds its own.
    assert state.red_threes[0] == 1 and state.hands[2][RED_THREE] == 1
    assert CARD_KIND[state.stock[-1]] == Q  # seat 0's red 3 took the K
    apply_all(state, "draw", "discard Q", "draw")
    apply_all(state, Discard(first_card(state.hands[1])))
    # Seat 2's turn has begun: its red 3 is laid and replaced before it draws.
    assert state.seat == 2 and state.hands[2][RED_THREE] == 0 and state.red_threes[2] == 1
    verify_card_accounting(state)


def _out_before_the_red_threes_are_laid(timing: str) -> HandState:
    # Seat 0 moves first and goes out concealed at once; seat 1 was dealt one red 3, seat 2 two.
    deck = stacked_deck({0: "Q Q Q Q Q Q Q 5 5 5 5", 1: "3r", 2: "3r 3r"}, dealer=3, upcards="8",
                        stock_top="9 9 9 9")
    state = HandState.from_deck(Rules(dealt_red_three_timing=timing), deck, dealer=3)
    return apply_all(state, "draw", "meld Q Q Q Q Q Q Q; 5 5 5 5", "discard 9")


def test_r3_5_d22_first_turn_red_threes_held_when_the_hand_ends_are_laid_unreplaced_and_scored():
    state = _out_before_the_red_threes_are_laid("first_turn")
    # R4.1: no red 3 stays in a hand; R14.1d: they score for their sides, minus for side B, which melded
    # nothing (R4.5: laying them is no meld); nothing replaces them, the hand being over.
    assert state.red_threes == [0, 1, 2, 0] and [hand[RED_THREE] for hand in state.hands] == [0, 0, 0, 0]
    assert state.hand_sizes == [0, 10, 9, 11] and len(state.stock) == 64 - 1 - 1
    verify_card_accounting(state)
    side_a, side_b = score_hand(state).sides
    assert (side_a.red_threes, side_a.red_three_bonus, side_a.cards_left) == (2, 200, (0, 9))
    assert (side_b.red_threes, side_b.red_three_bonus, side_b.cards_left) == (1, -100, (10, 11))
    assert not side_b.melded
    # The same bonuses as when the red 3s were laid right after the deal (D4 moves only the replacements).
    dealt = score_hand(_out_before_the_red_threes_are_laid("after_deal")).sides
    assert [side.red_three_bonus for side in dealt] == [200, -100]


class _OwnBitsRandom(random.Random):
    """A subclass: the shuffle draws its bits one call a card from it, as random.shuffle does."""


@pytest.mark.parametrize("seed", range(0, 300, 11))
def test_r3_1_the_shuffle_leaves_the_generator_where_the_standard_library_shuffle_does(seed):
    # The deck's generator deals every hand of a game: the words drawn in blocks must be exactly the
    # words random.shuffle draws one at a time, or the next hand's deal would differ.
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(3):
        expected = list(range(108))
        theirs.shuffle(expected)
        assert shuffled_deck(ours) == expected
        assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("seed", range(0, 100, 13))
def test_r3_1_a_generator_subclass_gets_the_same_shuffle_drawn_a_card_at_a_time(seed):
    ours, theirs = _OwnBitsRandom(seed), random.Random(seed)
    expected = list(range(108))
    theirs.shuffle(expected)
    assert shuffled_deck(ours) == expected
    assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("seed", [0, 1, -18, 2**31, 2**32, 2**64 - 1, 1 - 2**64, 0x1234_5678_9ABC_DEF0])
def test_r3_1_the_deck_generator_is_seeded_and_draws_as_random_random(seed):
    # Seeds of one and two words and negative ones; 2,000 words cross three twists of the state.
    ours, theirs = DeckGenerator(seed), random.Random(seed)
    assert ours.internal_state() == theirs.getstate()[1]
    assert [ours.next_word() for _ in range(2_000)] == [theirs.getrandbits(32) for _ in range(2_000)]
    assert ours.internal_state() == theirs.getstate()[1]


@pytest.mark.parametrize("seed", range(0, 300, 11))
def test_r3_1_a_game_dealt_from_the_deck_generator_is_dealt_as_from_random_random(seed):
    # Every hand of a game comes from one generator: each deck, and where the generator is left, must match.
    ours, theirs = DeckGenerator(seed), random.Random(seed)
    assert ours.below(4) == theirs.randrange(4)
    for _ in range(8):
        expected = list(range(108))
        theirs.shuffle(expected)
        assert shuffled_deck(ours) == expected
        assert ours.internal_state() == theirs.getstate()[1]


def test_r3_1_the_engine_deals_each_hand_as_random_random_deals_it():
    ours, theirs = DeckGenerator(5), random.Random(5)
    for hand_number in range(1, 4):
        dealt = HandState.deal(Rules(), ours, dealer=hand_number % 4, hand_number=hand_number)
        expected = HandState.deal(Rules(), theirs, dealer=hand_number % 4, hand_number=hand_number)
        assert (dealt.hands, dealt.stock, dealt.pile, dealt.red_threes) == (
            expected.hands, expected.stock, expected.pile, expected.red_threes)


@pytest.mark.parametrize("seed", [1.0, "7", True, None])
def test_r3_1_the_deck_generator_is_seeded_from_an_int(seed):
    with pytest.raises(TypeError, match="a deck generator's seed is an int, not"):
        DeckGenerator(seed)


@pytest.mark.parametrize("seed", [2**64, -(2**64), 2**100])
def test_r3_1_the_deck_generator_is_seeded_from_64_bits_at_most(seed):
    with pytest.raises(ValueError, match="a deck generator's seed has at most 64 bits"):
        DeckGenerator(seed)
