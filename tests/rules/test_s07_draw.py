"""docs/rules.md §7: drawing from the stock (R7.1, R7.2)."""

from canasta_sim.core.cards import CARD_KIND, parse_kind
from canasta_sim.core.state import END_RED_THREE_LAST_CARD, OVER, PLAY
from tests.helpers import apply_all, expect_illegal, position

K = parse_kind("K")


def test_r7_1_draw_takes_exactly_the_top_card():
    state = position(hands={0: "5 6 7"}, stock_top="K 9", seat=0)
    stock_before = list(state.stock)
    apply_all(state, "draw")
    assert state.stock == stock_before[:-1]
    assert state.hands[0][K] == 1 and state.hand_sizes[0] == 4 and state.phase == PLAY
    assert [CARD_KIND[card] for card in state.history[-1][2]] == [K]


def test_r7_2_empty_stock_at_turn_start_refuses_a_draw():
    state = position(hands={0: "5 6 7"}, stock_size=0, seat=0)
    expect_illegal(state, "draw", "R13.3")


def test_r7_2_stock_running_out_during_red_three_replacement_ends_hand():
    state = position(hands={0: "5 6 7"}, stock_top="3r 3r", stock_size=2, red_threes={1: 2}, seat=0)
    apply_all(state, "draw")
    assert state.red_threes[0] == 2
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
