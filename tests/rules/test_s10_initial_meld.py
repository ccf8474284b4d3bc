"""docs/rules.md §10: the initial meld's minimum count (R10.1-R10.7, D8, D19)."""

import pytest

from canasta_sim.core.moves import Discard
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import apply_all, expect_illegal, finish, first_card, position

DEFAULT = Rules()


def _opening(hand, score=0, rules=DEFAULT, **extra):
    return position(rules, hands={0: hand}, scores=(score, 0), seat=0, phase=PLAY, **extra)


def test_r10_1_minimum_is_the_sum_of_card_values():
    expect_illegal(_opening("K K 2 5 6 7"), "meld K K 2", "R10.2")  # 10 + 10 + 20 = 40
    state = apply_all(_opening("A A 2 5 6 7"), "meld A A 2")  # 20 + 20 + 20 = 60
    assert state.side_has_melded[0] and state.requirement(0) == 0


@pytest.mark.parametrize(
    ("score", "minimum"),
    [(-1000, 15), (-5, 15), (0, 50), (5, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (9000, 120)],
)
def test_r10_2_d8_minimum_by_cumulative_score(score, minimum):
    assert DEFAULT.initial_requirement(score) == minimum
    state = position(scores=(score, 0))
    assert state.requirements[0] == minimum and state.requirement(0) == minimum


def test_r10_2_score_below_zero_needs_only_15():
    state = apply_all(_opening("4 4 4 9 9", score=-40), "meld 4 4 4")
    assert state.side_has_melded[0]
    expect_illegal(_opening("4 4 4 9 9", score=0), "meld 4 4 4", "R10.2")


def test_r10_3_melds_laid_together_add_up():
    state = _opening("K K K 8 8 2 5 6")
    expect_illegal(state, "meld K K K", "R10.2")
    apply_all(state, "meld K K K; 8 8 2")  # 30 + 40 = 70
    assert state.side_has_melded[0]


def test_r10_4_red_threes_and_canasta_bonus_do_not_count():
    with_red_threes = _opening("K K 2 5 6 7", red_threes={0: 2})
    expect_illegal(with_red_threes, "meld K K 2", "R10.2")
    # Seven 4s are a natural canasta (500 bonus) but only 35 points of cards; not going out, so no R10.7.
    expect_illegal(_opening("4 4 4 4 4 4 4 9 9"), "meld 4 4 4 4 4 4 4", "R10.2")


def test_r10_5_top_card_counts_other_pile_cards_never():
    state = position(hands={0: "A A 5 6"}, pile="9 A", seat=0)
    apply_all(state, "take A A")  # 40 in hand + 20 on top = 60
    assert state.side_has_melded[0]
    buried = position(hands={0: "Q Q 5 6"}, pile="A A JK K K Q", seat=0)
    expect_illegal(buried, "take Q Q", "R8.2e")  # the A A JK K K below never count


def test_r10_6_after_the_opening_neither_partner_faces_a_minimum():
    state = position(
        hands={0: "K K K 8 8 2 5 6", 2: "4 4 4 9 9 5"}, seat=0, phase=PLAY
    )
    apply_all(state, "meld K K K; 8 8 2", "discard 5", "draw", Discard(first_card(state.hands[1])))
    assert state.seat == 2 and state.requirement(0) == 0
    apply_all(state, "draw", "meld 4 4 4")  # 15 points, no minimum any more
    assert state.melds[0][4] == [3, 0, 0]


def test_r10_7_d19_concealed_going_out_after_drawing_needs_no_minimum():
    result = finish(_opening("4 4 4 4 4 4 4 9", other_hand_size=3), "meld 4 4 4 4 4 4 4", "discard 9")
    assert result.sides[0].concealed and result.sides[0].meld_points == 35


def test_r10_7_option_off_requires_the_minimum():
    rules = Rules(concealed_exempt_from_minimum=False)
    expect_illegal(_opening("4 4 4 4 4 4 4 9", rules=rules), "meld 4 4 4 4 4 4 4", "R10.2")


def test_r10_7_d19_pile_take_still_needs_the_minimum():
    state = position(hands={0: "4 4 4 4 4 4"}, pile="9 4", seat=0)
    expect_illegal(state, "take 4 4 4 4 4 4", "R8.2e")  # 35 points, even though it would go out concealed



def test_r10_7_r6_5_a_meld_move_that_does_not_go_out_needs_the_minimum_even_in_a_concealed_turn():
    # At 1500 the side needs 90.  Laid in one move, 4x7 and 6 6 6 (50) go out concealed and need none; the 4s
    # alone keep four cards, go out in no move of their own, and are judged by the minimum like any meld (R6.5):
    # a later move of the turn cannot exempt an earlier one.
    hand = "4 4 4 4 4 4 4 6 6 6 9"
    expect_illegal(_opening(hand, 1500), "meld 4 4 4 4 4 4 4", "R10.2")
    state = _opening(hand, 1500)
    plan = state.going_out_plan()  # E4: the plan is the one move the exemption allows
    assert plan is not None and sum(len(group.cards) for group in plan[0]) == 10
    side = finish(state, "meld 4 4 4 4 4 4 4; 6 6 6", "discard 9").sides[0]
    assert side.concealed and side.going_out_bonus == 200 and side.meld_points == 50
