"""docs/rules.md §11: canastas, natural and mixed, and their bonus (R11.1-R11.5)."""

import pytest

from canasta_sim.core.cards import parse_kind
from canasta_sim.core.melds import is_canasta, meld_problem
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import apply_all, finish, position, table_value

K = parse_kind("K")


def test_r11_1_canasta_is_seven_or_more_cards():
    assert not is_canasta(6, 0, 0) and is_canasta(7, 0, 0) and is_canasta(4, 1, 2) and is_canasta(9, 0, 0)
    state = position(hands={0: "K 5 6 7"}, melds={0: "K K K K K K"}, seat=0, phase=PLAY)
    assert state.canasta_count(0) == 0
    apply_all(state, "meld K")
    assert state.canasta_count(0) == 1


def test_r11_2_natural_500_mixed_300():
    natural = position(melds={0: "K K K K K K K"})
    mixed = position(melds={0: "K K K K K 2 JK"})
    assert table_value(natural, 0) == 500 + 70
    assert table_value(mixed, 0) == 300 + 50 + 20 + 50


def test_r11_3_type_at_scoring_time_wild_makes_mixed_naturals_do_not():
    state = position(hands={0: "K 2 5 6 7"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    apply_all(state, "meld K")
    assert table_value(state, 0) == 500 + 80  # natural stays natural
    apply_all(state, "meld K:2")
    assert table_value(state, 0) == 300 + 80 + 20


def test_r11_4_bonus_comes_on_top_of_card_values():
    state = position(
        hands={0: "5 5 5 9", 1: "", 2: "", 3: ""}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY, melded_seats=(0,)
    )
    side = finish(state, "meld 5 5 5", "discard 9").sides[0]
    assert side.meld_points == 70 + 15 and side.canasta_bonus == 500 and side.canasta_natural == 1


@pytest.mark.parametrize("rules", [Rules(), Rules(wild_ratio_rule="min_two_naturals")])
def test_r11_5_a_canasta_always_holds_four_naturals(rules):
    for naturals in range(0, 8):
        for wilds in range(0, 8):
            if naturals + wilds >= 7 and meld_problem(rules, K, naturals, wilds, 0) is None:
                assert naturals >= 4
