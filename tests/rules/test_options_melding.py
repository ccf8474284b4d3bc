"""Rule-set options that change what may be melded (docs/rules.md §17): each against its default.

The initial minimum's table (R10.2), the wild-card limits (R9.2, R9.4), black 3 melds (R5.3) and what a
concealed hand is exempt from (R10.7, R12.6), each on a constructed position citing the rule it changes.
"""

from __future__ import annotations

import math

from canasta_sim.core.moves import WILD_RANK
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    END_WENT_OUT,
)
from tests.rules.option_positions import KING, bare_position, play_moves, refused_rule

# --------------------------------------------------------------------------- R10.2: the minimum table


def test_initial_meld_table_custom_changes_the_minimum_r10_2():
    """R10.2: a custom table replaces the 15/50/90/120 steps, from text or from pairs."""
    custom = Rules.from_options(["initial_meld_table=-inf:15,0:70,1000:100"])
    assert custom.initial_meld_table == ((-math.inf, 15), (0, 70), (1000, 100))
    assert custom == Rules(initial_meld_table=((-math.inf, 15), (0, 70), (1000, 100)))
    assert [custom.initial_requirement(score) for score in (-5, 0, 995, 1000, 5000)] == [15, 70, 70, 100, 100]
    assert [DEFAULT_RULES.initial_requirement(score) for score in (-5, 0, 995, 1000, 5000)] == [15, 50, 50, 50, 120]
    hands = {0: "A A A 6 7 9"}
    default = play_moves(bare_position(hands=hands, stock="4"), "draw")
    play_moves(default, "meld A A A")  # 60 points meet the default 50
    assert default.side_has_melded[0]
    changed = play_moves(bare_position(custom, hands=hands, stock="4"), "draw")
    assert changed.requirement(0) == 70
    assert refused_rule(changed, "meld A A A") == "R10.2"


# --------------------------------------------------------------------------- R9.2: wild-card limits


def test_wild_ratio_rule_min_two_naturals_allows_two_naturals_and_three_wilds_r9_2():
    """R9.2/D3, T14: K K 2 2 JK is illegal under the seed rule, legal under ``min_two_naturals``."""
    hands = {0: "K K 2 2 JK 9 5"}
    melds = {0: "Q Q Q"}
    default = play_moves(bare_position(hands=hands, melds=melds, stock="4"), "draw")
    assert refused_rule(default, "meld K K 2 2 JK") == "R9.2"
    official_rules = Rules(wild_ratio_rule="min_two_naturals")
    official = play_moves(bare_position(official_rules, hands=hands, melds=melds, stock="4"), "draw")
    play_moves(official, "meld K K 2 2 JK")
    assert official.melds[0][KING] == [2, 1, 2]
    # Still at least 2 naturals under the official rule.
    short = play_moves(bare_position(official_rules, hands=hands, melds=melds, stock="4"), "draw")
    assert refused_rule(short, "meld K 2 2") == "R9.2"


def test_wild_ratio_rule_reaches_the_going_out_search_r9_2():
    """R9.2 with R12.5's search: a hand that only melds out as 2 naturals + 3 wilds."""
    hands = {0: "K K 2 2 JK"}
    melds = {0: "Q Q Q Q 2 2 2"}  # a canasta with no room left for wild cards
    default = play_moves(bare_position(hands=hands, melds=melds, stock="4"), "draw")
    assert not default.can_go_out_this_turn()
    official_rules = Rules(wild_ratio_rule="min_two_naturals")
    official = play_moves(bare_position(official_rules, hands=hands, melds=melds, stock="4"), "draw")
    assert official.can_go_out_this_turn()
    play_moves(official, "meld K K 2 2 JK", "discard 4")
    assert official.end_reason == END_WENT_OUT


def test_max_wilds_per_meld_caps_the_wild_cards_r9_2():
    """R9.2: ``max_wilds_per_meld`` replaces the 3 wild cards a meld may hold, for its whole life (R9.3)."""
    hands = {0: "K K K K 2 2 2 JK 9"}
    melds = {0: "Q Q Q"}
    one = play_moves(bare_position(Rules(max_wilds_per_meld=1), hands=hands, melds=melds, stock="4"), "draw")
    assert refused_rule(one, "meld K K K 2 2") == "R9.2"
    play_moves(one, "meld K K K 2")
    assert refused_rule(one, "meld K:JK") == "R9.2"  # an addition may not exceed it either (R9.3)
    default = play_moves(bare_position(hands=hands, melds=melds, stock="4"), "draw")
    play_moves(default, "meld K K K 2 2")
    assert refused_rule(default, "meld K 2 JK") == "R9.2"  # a 4th wild card
    four = play_moves(bare_position(Rules(max_wilds_per_meld=4), hands=hands, melds=melds, stock="4"), "draw")
    play_moves(four, "meld K K K K 2 2 2 JK")
    assert four.melds[0][KING] == [4, 1, 3]


# --------------------------------------------------------------------------- R9.4: wild-only melds


def test_allow_wild_only_melds_true_permits_a_meld_of_wild_cards_r9_4():
    """R9.4: a meld of wild cards only is refused by default and allowed (and scored) with ``true``."""
    hands = {0: "JK JK 2 9 5"}
    melds = {0: "Q Q Q"}
    default = play_moves(bare_position(hands=hands, melds=melds, stock="4"), "draw")
    assert refused_rule(default, "meld wild:JK JK 2") == "R9.4"
    loose = play_moves(bare_position(Rules(allow_wild_only_melds=True), hands=hands, melds=melds, stock="4"), "draw")
    assert refused_rule(loose, "meld wild:JK 2") == "R9.1"  # still at least 3 cards
    play_moves(loose, "meld wild:JK JK 2")
    assert loose.melds[0][WILD_RANK] == [0, 2, 1]
    assert loose.side_meld_points(0) == 30 + 120


# --------------------------------------------------------------------------- R10.7, R12.6: concealment


def test_concealed_exempt_from_minimum_false_r10_7():
    """R10.7/D19: going out concealed after drawing needs no minimum by default; with ``false`` it does."""
    hands = {0: "7 7 7 7 7 7 7 4 4 4 4"}  # 55 points, far below the 120 needed at 3000
    default = play_moves(bare_position(hands=hands, stock="9", scores=(3000, 0), melded_seats=()), "draw")
    assert default.requirement(0) == 120 and default.can_go_out_this_turn()
    play_moves(default, "meld 7 7 7 7 7 7 7; 4 4 4 4", "discard 9")
    assert default.end_reason == END_WENT_OUT and default.went_out_concealed
    strict = Rules(concealed_exempt_from_minimum=False)
    state = play_moves(bare_position(strict, hands=hands, stock="9", scores=(3000, 0), melded_seats=()), "draw")
    assert not state.can_go_out_this_turn()
    assert refused_rule(state, "meld 7 7 7 7 7 7 7; 4 4 4 4") == "R10.2"
    # The exemption never covers a pile take: R8.2e still applies (D19).
    take = bare_position(hands={0: "7 7 7 7 7 7 4 4 4 4"}, pile="5 7", scores=(3000, 0), melded_seats=())
    assert refused_rule(take, "take 7 7 7 7 7 7") == "R8.2e"


def test_concealed_allows_pile_take_false_r12_6():
    """R12.6: going out in the turn the player took the pile, melding nothing earlier, is concealed by
    default (200) and not concealed (100) with ``concealed_allows_pile_take=false``."""
    for rules, concealed, bonus in ((DEFAULT_RULES, True, 200), (Rules(concealed_allows_pile_take=False), False, 100)):
        hands = {0: "K K K K K K Q Q Q 4"}
        state = bare_position(rules, hands=hands, melds={0: "8 8 8"}, pile="Q K", melded_seats=(2,))
        play_moves(state, "take K K K K K K", "meld Q Q Q Q", "discard 4")
        assert state.end_reason == END_WENT_OUT
        assert state.went_out_concealed is concealed
        assert score_hand(state).sides[0].going_out_bonus == bonus


