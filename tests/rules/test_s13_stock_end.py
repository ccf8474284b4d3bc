"""docs/rules.md §13: the end of the hand when the stock runs out (R13.1-R13.4, D7, D14)."""

from canasta_sim.core.moves import Stop
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import ACQUIRE, END_RED_THREE_LAST_CARD, END_STOCK_EXHAUSTED, OVER, PLAY
from tests.helpers import apply_all, expect_illegal, finish, position


def _last_card(rules, hand="5 5 5 8 9"):
    return position(
        rules,
        hands={0: hand, 2: ""},
        melds={0: "K K K; 8 8 8"},
        stock_top="3r",
        stock_size=1,
        red_threes={1: 3},
        seat=0,
    )


def test_r13_1_d14_red_three_last_card_no_meld_no_discard():
    state = apply_all(_last_card(Rules()), "draw")
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
    expect_illegal(state, "meld 5 5 5", "R12.3")
    result = score_hand(state)
    assert result.sides[0].red_threes == 1 and result.sides[0].hand_penalty == 35


def test_r13_1_britannica_option_may_meld_but_not_discard():
    state = apply_all(_last_card(Rules(last_card_red_three="meld_no_discard")), "draw")
    assert state.phase == PLAY and state.must_stop
    expect_illegal(state, "discard 9", "R13.1")
    apply_all(state, "meld 5 5 5")
    apply_all(state, "meld 8")  # one card left is fine: nothing will be discarded
    assert state.hand_sizes[0] == 1
    result = finish(state, Stop())
    assert result.end_reason == END_RED_THREE_LAST_CARD and result.went_out_seat is None


def test_r13_2_last_card_not_red_three_turn_finishes_normally():
    state = position(hands={0: "5 5 5 9", 1: "4 6 7"}, melds={0: "K K K"}, stock_top="8", stock_size=1, seat=0)
    apply_all(state, "draw", "meld 5 5 5", "discard 9")
    assert state.stock == [] and state.seat == 1 and state.phase == ACQUIRE


def test_r13_3_seed_may_take_if_legal_otherwise_hand_ends():
    state = position(hands={0: "5 6", 1: "Q Q 4"}, melds={1: "K K K"}, pile="7 Q", stock_size=0, seat=1)
    assert state.can_stop(Stop())  # taking is optional in seed mode
    apply_all(state, "take Q Q")
    assert state.melds[1][12] == [3, 0, 0] and state.phase == PLAY
    no_take = position(hands={0: "5 6", 1: "4 8 9"}, melds={1: "K K K"}, pile="7 Q", stock_size=0, seat=1)
    assert finish(no_take, "stop").end_reason == END_STOCK_EXHAUSTED


def test_r13_3_official_must_take_when_top_card_fits_unfrozen_pile():
    rules = Rules(stock_exhausted_rule="official")
    state = position(rules, hands={0: "5 6", 1: "4 8 9"}, melds={1: "Q Q Q"}, pile="7 Q", stock_size=0, seat=1)
    expect_illegal(state, Stop(), "R13.3")
    frozen = position(rules, hands={0: "5 6", 1: "4 8 9"}, melds={1: "Q Q Q"}, pile="2 7 Q", stock_size=0, seat=1)
    assert finish(frozen, "stop").end_reason == END_STOCK_EXHAUSTED  # frozen: not compulsory (nor possible)
    pair = position(rules, hands={0: "5 6", 1: "Q Q 9"}, melds={1: "A A A"}, pile="7 Q", stock_size=0, seat=1)
    assert pair.can_stop(Stop())  # taking with a pair stays optional


def test_r13_3_official_one_card_rule_overrides():
    rules = Rules(stock_exhausted_rule="official")
    state = position(rules, hands={0: "5 6", 1: "4"}, melds={1: "Q Q Q"}, pile="Q", stock_size=0, seat=1)
    assert finish(state, "stop").end_reason == END_STOCK_EXHAUSTED


def test_r13_3_strict_hand_ends_when_a_turn_would_start_on_empty_stock():
    rules = Rules(stock_exhausted_rule="strict")
    state = position(rules, hands={0: "5 5 5 9", 1: "Q Q 4"}, melds={0: "K K K"}, stock_top="8", stock_size=1, seat=0)
    apply_all(state, "draw", "discard 9")
    assert state.phase == OVER and state.end_reason == END_STOCK_EXHAUSTED and state.seat == 1


def test_r13_4_no_going_out_bonus_unless_someone_goes_out():
    state = position(hands={0: "5 6", 1: "4 8 9"}, melds={1: "K K K"}, pile="7 Q", stock_size=0, seat=1)
    result = finish(state, "stop")
    assert result.went_out_seat is None and [side.going_out_bonus for side in result.sides] == [0, 0]
    going = position(hands={0: "5 6", 1: "Q Q 9 9"}, melds={1: "K K K K K K K"}, pile="9 Q", stock_size=0, seat=1)
    result = finish(going, "take Q Q", "meld 9 9 9")
    assert result.went_out_seat == 1 and result.sides[1].going_out_bonus == 100
