"""The seed-000 example game of the rule sheet the engine was written from (its check T15): the final position,
scored end to end, rule by rule as docs/rules.md numbers the rules.

Seats follow the example's turn order (you → Ada → Bo → Cleo): "you" is seat 0 and Bo seat 2
(team Y = side A); Ada is seat 1 and Cleo seat 3 (team Z = side B).  All totals start at 0.
"""

from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY, HandState
from tests.helpers import apply_all, finish, position

YOU, ADA, BO, CLEO = 0, 1, 2, 3
TEAM_Y, TEAM_Z = 0, 1


def _final_position():
    return position(
        hands={YOU: "9 A", BO: "A A A 4", ADA: "JK J 10 5", CLEO: "A 9"},
        melds={
            TEAM_Y: "K K K K K K JK; 8 8 8 2; 7 7 7 7 JK",
            TEAM_Z: "Q Q Q Q Q; 6 6 6",
        },
        red_threes={YOU: 1},
        melded_seats=(YOU, BO, ADA),
        seat=BO,
        phase=PLAY,
    )


def test_t15_bo_melds_aces_and_discards_scores_760_and_minus_40():
    result = finish(_final_position(), "meld A A A", "discard 4")
    team_y, team_z = result.sides
    assert result.went_out_seat == BO and not team_y.concealed
    assert team_y.meld_points == 110 + 50 + 70 + 60 == 290
    assert team_y.canasta_bonus + team_y.going_out_bonus + team_y.red_three_bonus == 300 + 100 + 100
    assert team_y.hand_penalty == 30
    assert team_y.score == 760
    assert (team_z.meld_points, team_z.hand_penalty, team_z.canasta_bonus, team_z.red_three_bonus) == (65, 105, 0, 0)
    assert team_z.score == -40


def test_t15_running_totals_and_next_hand_minimums():
    result = finish(_final_position(), "meld A A A", "discard 4")
    assert result.totals_after == (760, -40)
    rules = Rules()
    assert (rules.initial_requirement(760), rules.initial_requirement(-40)) == (50, 15)
    next_hand = HandState.from_deck(rules, list(range(108)), dealer=1, scores=result.totals_after, hand_number=2)
    assert next_hand.requirements == (50, 15)


def test_s19_initial_meld_kings_and_eights_make_70():
    state = position(hands={YOU: "K K K 8 8 2 JK A 6 9 7 7"}, seat=YOU, phase=PLAY)
    apply_all(state, "meld K K K; 8 8 2")
    assert state.side_has_melded[TEAM_Y]


def test_s19_sevens_taken_from_a_frozen_pile_with_a_natural_pair():
    state = position(
        hands={YOU: "7 7 JK A 9"}, melds={TEAM_Y: "K K K K K; 8 8 2"}, pile="2 8 7 7", seat=YOU, melded_seats=(YOU,)
    )
    assert state.is_pile_frozen()
    apply_all(state, "take 7 7 JK", "meld 8", "meld 7")
    assert state.melds[TEAM_Y][7] == [4, 1, 0] and state.melds[TEAM_Y][8] == [3, 0, 1]


def test_s19_team_z_opening_of_65_in_one_turn():
    state = position(hands={ADA: "Q Q Q Q Q 6 6 6 J 10"}, seat=ADA, phase=PLAY)
    apply_all(state, "meld Q Q Q Q Q; 6 6 6")
    assert state.side_meld_points(TEAM_Z) == 65 and state.canasta_count(TEAM_Z) == 0
