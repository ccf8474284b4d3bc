"""docs/rules.md §4: red 3s are laid down, replaced when drawn, never melded or kept (R4.1-R4.6)."""

from canasta_sim.core.cards import CARD_KIND, RED_THREE, parse_kind
from canasta_sim.core.moves import Discard, Meld, MeldGroup
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import END_RED_THREE_LAST_CARD, OVER, PLAY
from tests.helpers import apply_all, expect_illegal, finish, position

K = parse_kind("K")


def test_r4_1_red_three_is_never_melded_nor_kept_in_hand():
    state = position(hands={0: "5 6 7 8"}, melds={0: "K K K"}, seat=0, phase=PLAY, red_threes={0: 1})
    expect_illegal(state, Meld((MeldGroup(RED_THREE, (RED_THREE, RED_THREE, RED_THREE)),)), "R9.8")
    expect_illegal(state, Discard(RED_THREE), "R6.1")
    assert state.red_threes[0] == 1 and state.hands[0][RED_THREE] == 0


def test_r4_2_drawn_red_threes_laid_and_replaced_in_the_same_draw():
    state = position(hands={0: "5 6 7 8"}, stock_top="3r 3r 9", seat=0)
    apply_all(state, "draw")
    assert state.red_threes[0] == 2 and state.hands[0][RED_THREE] == 0
    assert state.hands[0][9] == 1 and state.hand_sizes[0] == 5
    seat, move, drawn = state.history[-1]
    assert seat == 0 and [CARD_KIND[card] for card in drawn] == [RED_THREE, RED_THREE, 9]
    assert state.phase == PLAY


def test_r4_3_red_three_in_a_taken_pile_is_laid_without_replacement():
    state = position(hands={0: "8 8 4 5"}, melds={0: "K K K"}, pile="3r 5 8", seat=0)
    stock_before = list(state.stock)
    apply_all(state, "take 8 8")
    assert state.red_threes[0] == 1 and state.hands[0][RED_THREE] == 0
    assert state.stock == stock_before
    assert state.hands[0][5] == 2 and state.hand_sizes[0] == 3


def test_r4_4_red_three_as_last_stock_card_ends_the_hand():
    state = position(hands={0: "5 6 7 8"}, stock_top="3r", stock_size=1, red_threes={1: 3}, seat=0)
    apply_all(state, "draw")
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
    assert state.red_threes[0] == 1


def test_r4_5_red_threes_are_not_a_meld():
    state = position(hands={0: "9 2 4 5", 2: "K K 7"}, pile="5 9", seat=0, red_threes={0: 2, 2: 1})
    assert not state.side_has_melded[0] and state.is_pile_frozen_for(0)  # R8.1c
    expect_illegal(state, "take 9 2", "R8.2b")


def test_r4_5_red_threes_do_not_break_concealment_or_count_toward_minimum():
    state = position(
        hands={0: "4 4 4 4 4 4 4 9", 2: "K K 7"}, seat=0, phase=PLAY, red_threes={0: 1}
    )
    # 35 points: short of 50, allowed only because this goes out concealed (R10.7).
    result = finish(state, "meld 4 4 4 4 4 4 4", "discard 9")
    assert result.sides[0].concealed and result.sides[0].red_three_bonus == 100


def test_r4_6_each_red_three_scores_100_for_a_side_that_melded():
    state = position(
        hands={0: "5 5 5 9", 1: "", 2: "", 3: ""},
        melds={0: "Q Q Q Q Q Q Q", 1: "K K K"},
        red_threes={0: 1, 2: 1, 1: 1},
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
    )
    result = score_hand(apply_all(state, "meld 5 5 5", "discard 9"))
    assert result.sides[0].red_three_bonus == 200 and result.sides[1].red_three_bonus == 100
    assert result.sides[0].red_threes == 2
