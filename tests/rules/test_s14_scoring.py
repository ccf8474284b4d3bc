"""docs/rules.md §14: scoring a hand (R14.1a-e, R14.2-R14.4, D11, D12)."""

import pytest

from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import meld_totals, score_hand, side_hand_penalty, side_red_three_bonus
from canasta_sim.core.state import PLAY
from tests.helpers import finish, position, score_from_parts

DEFAULT = Rules()


def _hand_end(melds_a="Q Q Q Q Q Q Q", melds_b="", hands_b=("", ""), red_threes=None, rules=DEFAULT, **extra):
    """Seat 0 (side A) goes out by melding 5 5 5 and discarding a 9; side B is as given."""
    state = position(
        rules,
        hands={0: "5 5 5 9", 1: hands_b[0], 2: extra.pop("hand_2", ""), 3: hands_b[1]},
        melds={0: melds_a, 1: melds_b},
        red_threes=red_threes,
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
        **extra,
    )
    return finish(state, "meld 5 5 5", "discard 9")


def test_r14_1a_card_points_of_every_melded_card():
    result = _hand_end(melds_a="Q Q Q Q Q Q Q; 3b 3b 3b", melds_b="JK A A 2; 4 4 4")
    assert result.sides[0].meld_points == 70 + 15 + 15
    assert result.sides[1].meld_points == 50 + 40 + 20 + 15


def test_r14_1b_canasta_bonuses():
    result = _hand_end(melds_a="Q Q Q Q Q Q Q; K K K K K 2 2")
    side = result.sides[0]
    assert (side.canasta_natural, side.canasta_mixed, side.canasta_bonus) == (1, 1, 800)


def test_r14_1c_going_out_100_or_200_in_total_when_concealed():
    assert _hand_end().sides[0].going_out_bonus == 100
    assert _hand_end().sides[1].going_out_bonus == 0
    state = position(hands={0: "Q Q Q Q Q Q Q 9", 2: ""}, seat=0, phase=PLAY)
    assert finish(state, "meld Q Q Q Q Q Q Q", "discard 9").sides[0].going_out_bonus == 200


@pytest.mark.parametrize(
    ("count", "melded", "bonus"), [(1, True, 100), (3, True, 300), (4, True, 800), (2, False, -200), (4, False, -800)]
)
def test_r14_1d_red_threes(count, melded, bonus):
    result = _hand_end(melds_b="K K K" if melded else "", red_threes={1: count})
    assert result.sides[1].red_three_bonus == bonus


def test_r14_1d_d11_d12_seed_000_literal_option():
    rules = Rules(all_four_red_threes_total=400)
    assert _hand_end(melds_b="K K K", red_threes={1: 4}, rules=rules).sides[1].red_three_bonus == 400
    assert _hand_end(red_threes={1: 4}, rules=rules).sides[1].red_three_bonus == -400


def test_r14_1e_every_card_left_in_hand_counts_against():
    result = _hand_end(melds_b="K K K", hands_b=("JK 2 3b", "9 9 9 A"))
    assert result.sides[1].hand_penalty == 50 + 20 + 5 + 30 + 20
    assert result.sides[1].score == 30 - 125


def test_r14_1_scorescore_from_parts():
    for result in (_hand_end(), _hand_end(melds_b="K K K", hands_b=("JK", "4"), red_threes={3: 2})):
        for side in result.sides:
            assert side.score == score_from_parts(side)


def test_r14_2_negative_result_added_to_running_total():
    result = _hand_end(hands_b=("JK JK", "A"), scores=(0, 30))
    assert result.sides[1].score == -120
    assert result.totals_after == (result.sides[0].score, 30 - 120)


def test_r14_3_melds_short_of_canasta_count_plus_no_penalty():
    result = _hand_end(melds_b="6 6 6; J J J J J", hands_b=("", ""))
    side = result.sides[1]
    assert side.canasta_bonus == 0 and side.score == 15 + 50


def test_r14_4_scored_once_after_the_hand_ends():
    state = position(hands={0: "5 5 5 9"}, seat=0, phase=PLAY)
    with pytest.raises(ValueError, match="R14.4"):
        score_hand(state)


def test_r14_1_parts_of_a_hand_in_progress():
    """The R14.1 parts score_hand adds up, read in the middle of a hand (a search values positions by them)."""
    state = position(
        hands={0: "5 5 5 9", 1: "JK 4", 2: "", 3: "K"},
        melds={0: "Q Q Q Q Q Q Q; K K K K K 2 2; JK A A"},
        red_threes={0: 1, 1: 2},
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
    )
    assert meld_totals(state, 0) == (70 + (50 + 40) + (50 + 40), 1, 1)  # R14.1a-b
    assert meld_totals(state, 1) == (0, 0, 0)
    assert side_red_three_bonus(state, 0) == 100  # R14.1d
    assert side_red_three_bonus(state, 1) == -200  # R14.1d: negative, side B has melded nothing
    assert side_hand_penalty(state, 0) == 3 * 5 + 10  # R14.1e: 5s count 5, a 9 counts 10
    assert side_hand_penalty(state, 1) == 50 + 5 + 10
    result = finish(state, "meld 5 5 5", "discard 9")
    assert result.sides[0].meld_points == meld_totals(state, 0)[0]
    assert result.sides[0].red_three_bonus == side_red_three_bonus(state, 0)
