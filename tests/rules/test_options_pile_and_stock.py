"""Rule-set options that change the deal, the pile and the stock (docs/rules.md §17): each against its default.

Black 3s freezing the pile (R3.4, R5.2), which wild cards block it (R8.1a), dealt red 3s (R3.5), the
one-card rule (R8.2d) and the empty stock (R13.3), each on a constructed position or a stacked deck.
"""

from __future__ import annotations

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    RED_THREE,
    parse_kind,
)
from canasta_sim.core.moves import parse_move
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    ACQUIRE,
    END_STOCK_EXHAUSTED,
    END_WENT_OUT,
    OVER,
    PLAY,
    HandState,
)
from tests.rules.option_positions import KING, NINE, QUEEN, bare_position, deck_dealing, play_moves, refused_rule

# --------------------------------------------------------------------------- R3.4, R5.2: black 3 freezing


def test_black_three_freezes_pile_true_after_a_discard_r5_2():
    """R5.2/D5: a discarded black 3 blocks while on top; with ``true`` it also freezes the pile (R8.2b)."""
    hands = {0: "3b 5", 1: "6 7", 2: "9 JK 8 8"}
    melds = {0: "K K K", 1: "Q Q Q"}
    for rules, frozen in ((DEFAULT_RULES, False), (Rules(black_three_freezes_pile=True), True)):
        state = bare_position(rules, hands=hands, melds=melds, pile="5 8", stock="4 9 10")
        play_moves(state, "draw", "discard 3b")
        assert state.is_pile_blocked()
        assert refused_rule(state, "take") == "R5.2"
        play_moves(state, "draw", "discard 9")  # seat 1 covers the black 3
        assert not state.is_pile_blocked()
        assert state.is_pile_frozen() is frozen
        if frozen:
            assert refused_rule(state, "take 9 JK") == "R8.2b"
        else:
            play_moves(state, "take 9 JK")
            assert state.melds[0][NINE] == [2, 1, 0]


def test_black_three_freezes_pile_true_as_upcard_r3_4():
    """R3.4: a black 3 upcard stays on top and blocks; it freezes the pile only with ``true``."""
    deck = deck_dealing({}, dealer=0, after="3b 4 5 6")
    default = HandState.from_deck(DEFAULT_RULES, deck, dealer=0)
    assert default.pile == [BLACK_THREE] and default.is_pile_blocked() and not default.is_pile_frozen()
    frozen = HandState.from_deck(Rules(black_three_freezes_pile=True), deck, dealer=0)
    assert frozen.pile == [BLACK_THREE] and frozen.is_pile_blocked() and frozen.is_pile_frozen()


# --------------------------------------------------------------------------- R8.1a: which wild cards block


def test_blocking_wild_cards_joker_only_r8_1a():
    """R8.1a/D6: a deuce on top blocks by default; under ``joker_only`` it does not block, but still
    cannot be taken because no natural pair matches a wild card (R8.2a).  A joker blocks under both."""
    hands = {0: "2 2 9 9"}
    melds = {0: "K K K"}
    default = bare_position(hands=hands, melds=melds, pile="5 2")
    assert default.is_pile_blocked()
    assert refused_rule(default, "take 2 2") == "R8.1a"
    joker_only = bare_position(Rules(blocking_wild_cards="joker_only"), hands=hands, melds=melds, pile="5 2")
    assert not joker_only.is_pile_blocked()
    assert joker_only.is_pile_frozen()
    assert refused_rule(joker_only, "take 2 2") == "R8.2a"
    for rules in (DEFAULT_RULES, Rules(blocking_wild_cards="joker_only")):
        state = bare_position(rules, hands=hands, melds=melds, pile="5 JK")
        assert state.is_pile_blocked()
        assert refused_rule(state, "take") == "R8.1a"


# --------------------------------------------------------------------------- R3.5: dealt red 3s


def test_dealt_red_three_timing_first_turn_r3_5():
    """R3.5/D4: dealt red 3s are replaced right after the deal by default, at the owner's first turn
    with ``first_turn``; the stock cards therefore go to different players."""
    deck = deck_dealing({2: "3r"}, dealer=0, after="8 K Q J 10")
    dealt_to_two = [CARD_KIND[deck[index]] for index in range(44) if (1 + index) % 4 == 2]
    after_deal = HandState.from_deck(DEFAULT_RULES, deck, dealer=0)
    assert after_deal.red_threes[2] == 1 and after_deal.hands[2][RED_THREE] == 0
    assert after_deal.hands[2][KING] == dealt_to_two.count(KING) + 1  # replaced by the first stock card
    play_moves(after_deal, "draw")
    assert after_deal.history[-1][2] and CARD_KIND[after_deal.history[-1][2][0]] == QUEEN  # seat 1 then draws Q

    first_turn = HandState.from_deck(Rules(dealt_red_three_timing="first_turn"), deck, dealer=0)
    assert first_turn.red_threes[2] == 0 and first_turn.hands[2][RED_THREE] == 1
    play_moves(first_turn, "draw")
    assert CARD_KIND[first_turn.history[-1][2][0]] == KING  # seat 1 draws K
    play_moves(first_turn, "discard K")
    # Seat 2's first turn begins: the red 3 is laid and replaced (by Q) before seat 2 draws.
    assert first_turn.seat == 2 and first_turn.red_threes[2] == 1 and first_turn.hands[2][RED_THREE] == 0
    assert first_turn.hands[2][QUEEN] == dealt_to_two.count(QUEEN) + 1
    assert len(first_turn.stock) == 64 - 1 - 1 - 1
    play_moves(first_turn, "draw")
    assert CARD_KIND[first_turn.history[-1][2][0]] == parse_kind("J")


# --------------------------------------------------------------------------- R8.2d: the one-card rule


def test_one_card_single_pile_block_false_r8_2d():
    """R8.2d/D15, X1: one card in hand and a one-card pile: refused by default, allowed with ``false``."""
    melds = {0: "9 9 9 9 9 9 9"}
    default = bare_position(hands={0: "Q"}, melds=melds, pile="9")
    assert refused_rule(default, "take") == "R8.2d"
    bigger = bare_position(hands={0: "Q"}, melds=melds, pile="5 9")
    play_moves(bigger, "take")  # a pile of two cards is fine
    loose = bare_position(Rules(one_card_single_pile_block=False), hands={0: "Q"}, melds=melds, pile="9")
    play_moves(loose, "take", "discard Q")
    assert loose.end_reason == END_WENT_OUT


# --------------------------------------------------------------------------- R13.3: empty stock


def test_stock_exhausted_rule_strict_ends_the_hand_at_once_r13_3():
    """R13.3: after the last stock card, ``seed`` lets the next player try the pile; ``strict`` ends the hand."""
    hands = {0: "5 6", 1: "9 9 J 5 6"}
    melds = {1: "Q Q Q"}
    seed = play_moves(bare_position(hands=hands, melds=melds, stock="9", rest_to=3), "draw", "discard 9")
    assert seed.phase == ACQUIRE and seed.seat == 1 and not seed.stock
    assert refused_rule(seed, "draw") == "R13.3"
    play_moves(seed, "take 9 9")  # seed mode: the pile may still be taken
    assert seed.phase == PLAY
    strict = play_moves(
        bare_position(Rules(stock_exhausted_rule="strict"), hands=hands, melds=melds, stock="9", rest_to=3),
        "draw",
        "discard 9",
    )
    assert strict.phase == OVER and strict.end_reason == END_STOCK_EXHAUSTED
    assert score_hand(strict).sides[0].going_out_bonus == 0  # R13.4


def test_stock_exhausted_rule_official_forces_a_lay_off_take_r13_3():
    """R13.3/D7, X3: on an empty stock ``seed`` lets the player stop; ``official`` forces the take when
    the top card of an unfrozen pile fits a meld of the side.  A take with a pair stays optional,
    a frozen pile is never forced, and R8.2d still overrides."""
    melds = {1: "9 9 9"}
    seed = bare_position(hands={1: "Q J"}, melds=melds, pile="5 9", seat=1, rest_to=3)
    assert not seed.stock and seed.can_stop()
    play_moves(seed, "stop")
    assert seed.end_reason == END_STOCK_EXHAUSTED
    official = Rules(stock_exhausted_rule="official")
    forced = bare_position(official, hands={1: "Q J"}, melds=melds, pile="5 9", seat=1, rest_to=3)
    assert forced.must_take_pile()
    assert refused_rule(forced, "stop") == "R13.3"
    play_moves(forced, "take", "discard Q")
    assert forced.seat == 2 and forced.phase == ACQUIRE  # play continues on the empty stock
    pair_only = bare_position(official, hands={1: "K K J"}, melds=melds, pile="5 K", seat=1, rest_to=3)
    assert pair_only.can_take_pile(parse_move("take K K")) and pair_only.can_stop()
    frozen = bare_position(official, hands={1: "Q J"}, melds=melds, pile="2 5 9", seat=1, rest_to=3)
    assert frozen.can_stop()
    one_card = bare_position(official, hands={1: "Q"}, melds={1: "9 9 9 9 9 9 9"}, pile="9", seat=1, rest_to=3)
    assert one_card.can_stop()


