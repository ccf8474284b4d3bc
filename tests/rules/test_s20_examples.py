"""The worked examples T01-T14 and the edge cases X1-X6 of the rule sheet the engine was written from (its rules
are those of docs/rules.md), each variant a test.

T15 (the seed-000 game) lives in test_s19_seed_000.py.  Positions are built with
:func:`tests.helpers.position`; "after drawing" means the play phase of a turn begun by a draw.
"""

import pytest

from canasta_sim.core.cards import JOKER, RED_THREE, TWO, parse_kind
from canasta_sim.core.moves import WILD_RANK, Draw, Meld, MeldGroup, Stop, TakePile, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    ACQUIRE,
    END_RED_THREE_LAST_CARD,
    END_STOCK_EXHAUSTED,
    END_WENT_OUT,
    OVER,
    PLAY,
    HandState,
)
from canasta_sim.core.view import SeatView
from tests.helpers import apply_all, expect_illegal, finish, position, stacked_deck, table_value

K, Q, J, A = (parse_kind(name) for name in "KQJA")
DEFAULT = Rules()


# --------------------------------------------------------------------------- T01


def _t01(hand):
    return position(hands={0: hand}, melds={0: "Q Q Q"}, pile="2 9 7", seat=0)


def test_t01_frozen_pile_one_natural_and_joker_is_illegal():
    state = _t01("7 JK K 4 5")
    assert state.is_pile_frozen()
    expect_illegal(state, "take 7 JK", "R8.2b")


def test_t01_variant_frozen_pile_natural_pair_takes_it():
    state = _t01("7 7 K 4 5")
    apply_all(state, "take 7 7")
    assert state.melds[0][7] == [3, 0, 0]
    assert state.hands[0][TWO] == 1 and state.hands[0][9] == 1 and state.hands[0][7] == 0
    assert state.pile == [] and not state.is_pile_frozen()
    assert state.phase == PLAY


# --------------------------------------------------------------------------- T02


def test_t02_black_three_on_top_blocks_then_cover_unblocks():
    state = position(
        hands={0: "3b 3b 8 8 9", 1: "9 9 5 6 K"},
        melds={0: "Q Q Q", 1: "A A A"},
        pile="5 8 3b",
        stock_top="6",
        seat=0,
    )
    for move in ("take", "take 8 8", "take 3b 3b"):
        expect_illegal(state, move, "R5.2")
    assert state.can_draw()
    apply_all(state, "draw", "discard 9")
    assert state.seat == 1 and state.pile[-1] == 9
    assert not state.is_pile_blocked() and not state.is_pile_frozen()
    apply_all(state, "take 9 9")
    assert state.melds[1][9] == [3, 0, 0]


# --------------------------------------------------------------------------- T03


def _t03(seat_three_hand):
    state = position(
        hands={1: "2 5 6 7", 2: "2 2 K K", 3: seat_three_hand},
        melds={1: "A A A"},
        pile="5 8",
        stock_top="4",
        seat=1,
        phase=PLAY,
    )
    apply_all(state, "discard 2")
    return state


def test_t03_wild_card_on_top_blocks():
    state = _t03("K JK 6 7")
    assert state.seat == 2 and state.is_pile_blocked()
    expect_illegal(state, TakePile((TWO, TWO)), "R8.1a")
    expect_illegal(state, "take K K", "R8.1a")


def test_t03_covered_wild_card_leaves_pile_frozen_pair_needed():
    state = _t03("K JK 6 7")
    apply_all(state, "draw", "discard K")
    assert state.seat == 3 and not state.is_pile_blocked() and state.is_pile_frozen()
    expect_illegal(state, "take K JK", "R8.2b")


def test_t03_covered_wild_card_natural_pair_takes():
    state = _t03("K K 6 7")
    apply_all(state, "draw", "discard K", "take K K")
    assert state.melds[1][K] == [3, 0, 0]
    assert state.hands[3][TWO] == 1


# --------------------------------------------------------------------------- T04


def test_t04a_unfrozen_pile_natural_plus_wild_is_legal():
    state = position(hands={0: "9 2 4"}, melds={0: "K K K"}, pile="5 9", seat=0)
    assert not state.is_pile_frozen_for(0)
    apply_all(state, "take 9 2")
    assert state.melds[0][9] == [2, 0, 1]
    assert state.hands[0][5] == 1 and state.hands[0][4] == 1


@pytest.mark.parametrize(("hand", "move"), [("9 2 4", "take 9 2"), ("9 JK 4", "take 9 JK")])
def test_t04b_side_without_meld_needs_natural_pair(hand, move):
    # 9 + 9 + JK = 70 would meet the minimum: the count is not the obstacle (R8.1c).
    state = position(hands={0: hand}, pile="5 9", seat=0)
    assert not state.is_pile_frozen() and state.is_pile_frozen_for(0)
    expect_illegal(state, move, "R8.2b")


# --------------------------------------------------------------------------- T05


def test_t05_take_by_laying_top_card_on_own_meld():
    state = position(hands={2: "5 6 9 K"}, melds={0: "J J J"}, pile="6 J", seat=2)
    apply_all(state, "take")
    assert state.melds[0][J] == [4, 0, 0]
    assert state.hands[2][6] == 2


def test_t05_variant_buried_joker_refuses_lay_off():
    state = position(hands={2: "5 6 9 K"}, melds={0: "J J J"}, pile="JK 6 J", seat=2)
    expect_illegal(state, "take", "R8.2b")


# --------------------------------------------------------------------------- T06


def test_t06_joker_on_natural_canasta_makes_it_mixed():
    state = position(hands={0: "JK 5 6 7"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    assert table_value(state, 0) == 570
    apply_all(state, "meld K:JK")
    assert state.melds[0][K] == [7, 1, 0]
    assert table_value(state, 0) == 420


def test_t06_further_fourth_wild_is_illegal_natural_is_legal():
    state = position(hands={0: "2 K 5 6 7"}, melds={0: "K K K K 2 2 JK"}, seat=0, phase=PLAY)
    expect_illegal(state, "meld K:2", "R9.2")
    apply_all(state, "meld K")
    assert state.melds[0][K] == [5, 1, 2]


# --------------------------------------------------------------------------- T07


def test_t07_seven_natural_kings_score_570():
    state = position(
        hands={0: "5 5 5 9", 1: "", 2: "", 3: ""},
        melds={0: "Q Q Q Q Q Q Q", 1: "K K K K K K K"},
        seat=0,
        phase=PLAY,
        melded_seats=(0, 1),
    )
    result = finish(state, "meld 5 5 5", "discard 9")
    assert result.went_out_seat == 0
    assert result.sides[1].score == 570


# --------------------------------------------------------------------------- T08


def _t08(side_b_melds, hands_b, red_threes_b):
    hands = {0: "5 5 5 9", 1: hands_b[0], 2: "", 3: hands_b[1]}
    state = position(
        hands=hands,
        melds={0: "10 10 10 10 10 10 10", 1: side_b_melds},
        red_threes=red_threes_b,
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
    )
    return finish(state, "meld 5 5 5", "discard 9").sides[1]


def test_t08a_four_red_threes_give_800():
    side = _t08("Q Q Q", ("6", "J"), {1: 2, 3: 2})
    assert side.red_three_bonus == 800
    assert side.score == 815


def test_t08b_four_red_threes_without_meld_give_minus_800():
    side = _t08("", ("Q Q Q", "6 J"), {1: 2, 3: 2})
    assert side.red_three_bonus == -800
    assert side.score == -845


def test_t08c_two_red_threes_without_meld_give_minus_200():
    side = _t08("", ("A A K K", "K 5 5 5"), {1: 1, 3: 1})
    assert side.hand_penalty == 85
    assert side.score == -285


# --------------------------------------------------------------------------- T09


def _t09(score, hand, groups):
    state = position(hands={0: hand}, scores=(score, 0), seat=0, phase=PLAY)
    return state, parse_move("meld " + groups)


def test_t09_minus_forty_needs_15():
    state, move = _t09(-40, "4 4 4 9 9", "4 4 4")
    apply_all(state, move)
    assert state.side_has_melded[0]


def test_t09_zero_needs_50():
    state, move = _t09(0, "4 4 4 9 9", "4 4 4")
    expect_illegal(state, move, "R10.2")


@pytest.mark.parametrize(
    ("score", "minimum"), [(-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120)]
)
def test_t09_boundaries(score, minimum):
    assert Rules().initial_requirement(score) == minimum
    assert position(scores=(score, score)).requirement(0) == minimum


def test_t09_at_1600_sixty_five_is_short():
    state, move = _t09(1600, "6 6 6 K K K 2 9 9", "6 6 6; K K K 2")
    expect_illegal(state, move, "R10.2")


def test_t09_at_1600_ninety_five_is_enough():
    state, move = _t09(1600, "6 6 6 A A A 2 9 9", "6 6 6; A A A 2")
    apply_all(state, move)
    assert state.side_has_melded[0]


def test_t09_at_3000_ninety_five_is_short():
    state, move = _t09(3000, "6 6 6 A A A 2 9 9", "6 6 6; A A A 2")
    expect_illegal(state, move, "R10.2")


# --------------------------------------------------------------------------- T10


def _t10(**extra):
    return position(hands={0: "K K A A 2 7"}, pile="Q Q K K K", seat=0, **extra)


def test_t10a_pile_cards_below_top_never_count():
    expect_illegal(_t10(), "take K K", "R8.2e")


def test_t10b_extra_melds_from_hand_reach_minimum():
    state = _t10()
    apply_all(state, "take K K; A A 2")
    assert state.melds[0][K] == [3, 0, 0] and state.melds[0][A] == [2, 0, 1]
    assert state.hands[0][K] == 2 and state.hands[0][Q] == 2 and state.hands[0][7] == 1


def test_t10c_natural_and_wild_not_enough_for_unmelded_side():
    expect_illegal(_t10(), "take K 2", "R8.2b")


def test_t10d_red_threes_never_add_to_count():
    state = _t10(red_threes={0: 2, 2: 2})
    expect_illegal(state, "take K K", "R8.2e")


# --------------------------------------------------------------------------- T11


def _t11(extra_meld=""):
    return position(
        hands={0: "9 9 9 4"}, melds={0: "8 8 8; 5 5 5 2" + extra_meld}, seat=0, phase=PLAY, melded_seats=(0,)
    )


def test_t11_no_going_out_without_canasta():
    state = _t11()
    expect_illegal(state, "meld 9 9 9", "R6.4")


def test_t11_legal_alternatives_discard_or_keep_three():
    state = _t11()
    assert state.can_discard(parse_move("discard 4"))
    apply_all(state, "discard 4")
    assert state.hand_sizes[0] == 3 and state.seat == 1


def test_t11_variant_with_canasta_goes_out_for_100():
    state = _t11("; K K K K K K K")
    result = finish(state, "meld 9 9 9", "discard 4")
    assert result.end_reason == END_WENT_OUT
    assert result.sides[0].going_out_bonus == 100


# --------------------------------------------------------------------------- T12

_T12_HAND = "Q Q Q Q Q Q 2 5 5 5 5 9"


def test_t12_concealed_going_out_scores_575():
    state = position(hands={0: _T12_HAND, 2: "K K 7"}, seat=0, phase=PLAY)
    assert state.hand_sizes[0] == 12
    result = finish(state, "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9")
    side = result.sides[0]
    assert side.concealed and side.going_out_bonus == 200
    assert (side.meld_points, side.canasta_bonus, side.hand_penalty) == (100, 300, 25)
    assert side.score == 575


def test_t12_control_earlier_meld_by_same_seat_gives_100():
    # Seat 0's earlier meld (9 9 9, 30 points) stays on the table: 475 + 30.
    state = position(hands={0: _T12_HAND, 2: "K K 7"}, melds={0: "9 9 9"}, melded_seats=(0,), seat=0, phase=PLAY)
    result = finish(state, "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9")
    side = result.sides[0]
    assert not side.concealed and side.going_out_bonus == 100
    assert side.score - 30 == 475


def test_t12_r12_7_control_partner_canasta_only_is_not_concealed():
    state = position(
        hands={0: "5 5 5 9", 2: "K K 7"}, melds={0: "A A A A A A A"}, melded_seats=(2,), seat=0, phase=PLAY
    )
    result = finish(state, "meld 5 5 5", "discard 9")
    assert result.went_out_seat == 0
    assert not result.sides[0].concealed and result.sides[0].going_out_bonus == 100


# --------------------------------------------------------------------------- T13


def _t13():
    return position(hands={0: "5 5 5 9"}, melds={0: "A A A A A A A"}, melded_seats=(2,), seat=0, phase=PLAY)


def test_t13_partner_no_forbids_going_out():
    state = apply_all(_t13(), "ask", "answer no")
    expect_illegal(state, "meld 5 5 5", "R12.5")
    apply_all(state, "discard 9")
    assert state.seat == 1 and state.hand_sizes[0] == 3


def test_t13_partner_yes_forbids_keeping_cards():
    state = apply_all(_t13(), "ask", "answer yes")
    expect_illegal(state, "discard 9", "R12.5")
    result = finish(state, "meld 5 5 5", "discard 9")
    assert result.went_out_seat == 0


def test_t13_asking_after_an_ordinary_meld_is_illegal():
    state = position(hands={0: "5 5 5 9 9 9 4"}, melds={0: "A A A A A A A"}, seat=0, phase=PLAY)
    apply_all(state, "meld 5 5 5")
    expect_illegal(state, "ask", "R12.5")


def test_t13_not_asking_and_going_out_is_legal():
    result = finish(_t13(), "meld 5 5 5", "discard 9")
    assert result.end_reason == END_WENT_OUT


# --------------------------------------------------------------------------- T14


def _t14(hand, rules=DEFAULT, melds="9 9 9"):
    return position(rules, hands={0: hand + " 4 5 6 7"}, melds={0: melds}, seat=0, phase=PLAY)


def test_t14_two_naturals_one_wild_is_legal():
    state = apply_all(_t14("K K 2"), "meld K K 2")
    assert state.melds[0][K] == [2, 0, 1]


def test_t14_one_natural_two_wilds_is_illegal():
    expect_illegal(_t14("K 2 2"), "meld K 2 2", "R9.2")


def test_t14_wild_cards_only_is_illegal():
    expect_illegal(_t14("2 2 JK"), Meld((MeldGroup(WILD_RANK, (TWO, TWO, JOKER)),)), "R9.4")


def test_t14_three_naturals_three_wilds_is_legal():
    state = apply_all(_t14("K K K 2 2 JK"), "meld K K K 2 2 JK")
    assert state.melds[0][K] == [3, 1, 2]


def test_t14_two_naturals_three_wilds_depends_on_wild_ratio_rule():
    expect_illegal(_t14("K K 2 2 JK"), "meld K K 2 2 JK", "R9.2")
    state = apply_all(_t14("K K 2 2 JK", Rules(wild_ratio_rule="min_two_naturals")), "meld K K 2 2 JK")
    assert state.melds[0][K] == [2, 1, 2]


def test_t14_four_wild_cards_is_illegal():
    expect_illegal(_t14("K K K K 2 2 2 JK"), "meld K K K K 2 2 2 JK", "R9.2")


def test_t14_black_threes_not_going_out_is_illegal():
    expect_illegal(_t14("3b 3b 3b"), "meld 3b 3b 3b", "R5.3")


def _going_out_with_black_threes(rules):
    return position(rules, hands={0: "3b 3b 3b 9"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)


def test_t14_black_threes_as_final_meld_of_going_out_turn():
    result = finish(_going_out_with_black_threes(Rules()), "meld 3b 3b 3b", "discard 9")
    assert result.went_out_seat == 0
    assert result.sides[0].meld_points == 70 + 15


def test_t14_black_threes_never_under_never_rule():
    expect_illegal(_going_out_with_black_threes(Rules(black_three_melds="never")), "meld 3b 3b 3b", "R5.3")


def test_t14_second_meld_of_same_rank_merges():
    state = position(hands={2: "7 7 2 9 9 4"}, melds={0: "7 7 7"}, seat=2, phase=PLAY)
    apply_all(state, "meld 7 7 2")
    assert state.melds[0][7] == [5, 0, 1]
    assert sum(state.melds[0][7]) == 6


# --------------------------------------------------------------------------- X1-X6


def test_x1_one_card_cannot_take_one_card_pile():
    state = position(hands={0: "Q"}, melds={0: "9 9 9"}, pile="9", seat=0)
    expect_illegal(state, "take", "R8.2d")


def test_x1_one_card_may_take_two_card_pile():
    state = position(hands={0: "Q"}, melds={0: "9 9 9"}, pile="5 9", seat=0)
    apply_all(state, "take")
    assert state.hand_sizes[0] == 2 and state.melds[0][9] == [4, 0, 0]


def test_x2_red_three_last_stock_card_ends_hand():
    state = position(
        hands={0: "5 6 7 8"}, melds={0: "K K K"}, stock_top="3r", stock_size=1, red_threes={1: 3}, seat=0
    )
    apply_all(state, "draw")
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
    assert state.stock == [] and state.red_threes[0] == 1 and state.hand_sizes[0] == 4
    result = score_hand(state)
    assert result.went_out_seat is None
    assert all(side.going_out_bonus == 0 for side in result.sides)
    assert result.sides[0].red_threes == 1 and result.sides[0].red_three_bonus == 100


def test_x3_seed_mode_no_take_ends_hand_without_bonus():
    state = position(hands={0: "5 6", 1: "4 8 9"}, melds={0: "K K K"}, pile="7 Q", stock_size=0, seat=1)
    expect_illegal(state, Draw(), "R13.3")
    assert not any(state.can_take_pile(move) for move in (TakePile(), TakePile((Q, Q))))
    result = finish(state, "stop")
    assert result.end_reason == END_STOCK_EXHAUSTED
    assert all(side.going_out_bonus == 0 for side in result.sides)


def test_x3_official_mode_lay_off_take_is_compulsory():
    rules = Rules(stock_exhausted_rule="official")
    state = position(rules, hands={0: "5 6 9", 1: "4 8 9"}, melds={1: "Q Q Q"}, pile="7 Q", stock_size=0, seat=1)
    expect_illegal(state, Stop(), "R13.3")
    apply_all(state, "take")
    assert state.melds[1][Q] == [4, 0, 0]


def test_x4_upcards_two_red_three_eight():
    deck = stacked_deck({0: "8 8 A A A 4 5 6 7 9 10"}, dealer=3, upcards="2 3r 8")
    state = HandState.from_deck(Rules(), deck, dealer=3)
    assert state.pile == [TWO, RED_THREE, 8] and state.is_pile_frozen() and state.seat == 0
    expect_illegal(state, "take 8 JK", "R6.1")  # no joker in hand
    expect_illegal(state, "take 8 8", "R8.2e")
    stock_before = list(state.stock)
    apply_all(state, "take 8 8; A A A")
    assert state.red_threes[0] == 1 and state.stock == stock_before
    assert state.hands[0][TWO] == 1 and state.hands[0][RED_THREE] == 0
    assert state.melds[0][8] == [3, 0, 0]


def test_x4_upcard_freeze_refuses_natural_plus_wild():
    deck = stacked_deck({0: "8 JK A A A 4 5 6 7 9 10"}, dealer=3, upcards="2 3r 8")
    state = HandState.from_deck(Rules(), deck, dealer=3)
    expect_illegal(state, "take 8 JK; A A A", "R8.2b")


def test_x5_d13_only_the_next_player_may_take():
    state = position(
        hands={1: "5 9 9 4", 0: "5 5 6", 2: "5 5 8"}, melds={0: "A A A", 1: "K K K"}, pile="4 6", seat=1, phase=PLAY
    )
    apply_all(state, "discard 5")
    assert state.seat == 2 and state.actor == 2 and state.phase == ACQUIRE
    take = TakePile((5, 5))
    assert SeatView(state, 2, (0, 0)).can(take)
    assert not SeatView(state, 0, (0, 0)).can(take)
    assert list(SeatView(state, 0, (0, 0)).legal_moves()) == []


def test_x6_meldable_cards_left_in_hand_still_count():
    state = position(
        hands={0: "5 5 5 4", 1: "9 9 9", 2: "", 3: ""},
        melds={0: "Q Q Q Q Q Q Q", 1: "K K K"},
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
    )
    result = finish(state, "meld 5 5 5", "discard 4")
    assert result.sides[1].hand_penalty == 30
    assert result.sides[1].score == 30 - 30
