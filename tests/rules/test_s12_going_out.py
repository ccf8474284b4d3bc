"""docs/rules.md §12: going out, asking the partner, concealed going out (R12.1-R12.7, D1, D1b, D9, D10, D17)."""

import pytest

from canasta_sim.core.cards import BLACK_THREE, TWO
from canasta_sim.core.moves import Discard
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import END_WENT_OUT, OVER, PLAY
from tests.helpers import apply_all, expect_illegal, finish, position

CANASTA = "A A A A A A A"


DEFAULT = Rules()


def _out(hand, melds=CANASTA, rules=DEFAULT, melded_seats=(0,), **extra):
    return position(rules, hands={0: hand}, melds={0: melds}, seat=0, phase=PLAY, melded_seats=melded_seats, **extra)


# ----------------------------------------------------------------------------- R12.1


def test_r12_1_going_out_needs_a_canasta():
    expect_illegal(_out("5 5 5 9", melds="A A A A A A"), "meld 5 5 5", "R6.4")
    result = finish(_out("5 5 5 9"), "meld 5 5 5", "discard 9")
    assert result.end_reason == END_WENT_OUT and result.went_out_seat == 0


def test_r12_1_canasta_completed_in_the_going_out_turn():
    result = finish(_out("A 5 5 5 9", melds="A A A A A A"), "meld A; 5 5 5", "discard 9")
    assert result.went_out_seat == 0 and result.sides[0].canasta_natural == 1


def test_r12_1_two_canastas_option():
    rules = Rules(canastas_to_go_out=2)
    expect_illegal(_out("5 5 5 9", rules=rules), "meld 5 5 5", "R6.4")
    result = finish(_out("5 5 5 9", melds=CANASTA + "; K K K K K K K", rules=rules), "meld 5 5 5", "discard 9")
    assert result.went_out_seat == 0


# ----------------------------------------------------------------------------- R12.2


def test_r12_2_way_one_meld_all_but_one_then_discard():
    state = apply_all(_out("5 5 5 9"), "meld 5 5 5")
    assert state.phase == PLAY and state.hand_sizes[0] == 1
    apply_all(state, "discard 9")
    assert state.phase == OVER and state.went_out_seat == 0


def test_r12_2_d9_way_two_meld_every_card_no_discard():
    state = apply_all(_out("5 5 5 9 9 9"), "meld 5 5 5; 9 9 9")
    assert state.phase == OVER and state.went_out_seat == 0 and state.hand_sizes[0] == 0


def test_r12_2_d9_seed_002_reading_needs_a_canasta_from_the_hand():
    rules = Rules(going_out_without_discard="only_if_hand_holds_canasta")
    expect_illegal(_out("5 5 5 9 9 9", rules=rules), "meld 5 5 5; 9 9 9", "R12.2")
    state = apply_all(_out("5 5 5 5 5 5 5", rules=rules), "meld 5 5 5 5 5 5 5")
    assert state.went_out_seat == 0


# ----------------------------------------------------------------------------- R12.3


def test_r12_3_hand_ends_the_moment_a_player_goes_out():
    state = apply_all(_out("5 5 5 9"), "meld 5 5 5", "discard 9")
    assert state.phase == OVER and state.end_reason == END_WENT_OUT
    expect_illegal(state, "draw", "R12.3")
    expect_illegal(state, "discard 5", "R12.3")


# ----------------------------------------------------------------------------- R12.4


@pytest.mark.parametrize("last", ["2", "JK", "3b"])
def test_r12_4_last_discard_may_be_any_card(last):
    state = apply_all(_out("5 5 5 " + last), "meld 5 5 5", "discard " + last)
    assert state.went_out_seat == 0 and state.pile[-1] == {"2": TWO, "JK": 0, "3b": BLACK_THREE}[last]


def test_r12_4_two_black_threes_alone_cannot_go_out():
    state = _out("3b 3b")
    assert not state.can_go_out_this_turn()
    expect_illegal(state, "meld 3b 3b", "R5.3")
    apply_all(state, "discard 3b")
    assert state.hand_sizes[0] == 1 and state.phase != OVER


# ----------------------------------------------------------------------------- R12.5


def test_r12_5_d1_asking_is_optional():
    assert finish(_out("5 5 5 9"), "meld 5 5 5", "discard 9").went_out_seat == 0


def test_r12_5_d1b_asking_is_optional_under_the_default_rules():
    # D1b: one seed words the question as an instruction; the default rule set still lets a player go out
    # without it, and only `ask_partner=mandatory` requires it.
    assert DEFAULT.ask_partner == "optional"
    assert finish(_out("5 5 5 9"), "meld 5 5 5", "discard 9").went_out_seat == 0
    expect_illegal(_out("5 5 5 9", rules=Rules(ask_partner="mandatory")), "meld 5 5 5", "R12.5")


def test_r12_5_d17_ask_only_before_other_melding_and_once():
    state = _out("5 5 5 9 9 9 4")
    apply_all(state, "ask", "answer yes")
    expect_illegal(state, "ask", "R12.5")
    melded = apply_all(_out("5 5 5 9 9 9 4"), "meld 9 9 9")
    expect_illegal(melded, "ask", "R12.5")


def test_r12_5_ask_before_acquiring_is_not_allowed():
    state = position(hands={0: "5 5 5 9"}, melds={0: CANASTA}, seat=0)
    expect_illegal(state, "ask", "R6.1")


def test_r12_5_take_with_opening_melds_still_allows_asking():
    # The top card's meld and the melds for the minimum are part of the take, not "other melding".
    state = position(hands={0: "K K A A 2 5 5 5 5 5 5 5 9", 2: "7 8"}, pile="K", seat=0)
    apply_all(state, "take K K; A A 2", "ask")
    assert state.phase == "answer" and state.actor == 2
    result = finish(state, "answer yes", "meld 5 5 5 5 5 5 5", "discard 9")
    assert result.went_out_seat == 0


def test_r12_5_answer_no_binds():
    state = apply_all(_out("5 5 5 9"), "ask", "answer no")
    expect_illegal(state, "meld 5 5 5", "R12.5")


def test_r12_5_answer_yes_binds():
    state = apply_all(_out("5 5 5 9"), "ask", "answer yes")
    expect_illegal(state, "discard 9", "R12.5")
    assert finish(state, "meld 5 5 5", "discard 9").went_out_seat == 0


def test_r12_5_after_yes_no_meld_may_make_going_out_impossible():
    state = apply_all(_out("9 9 JK 5 5 5 4"), "ask", "answer yes")
    expect_illegal(state, "meld 5 5 5 JK", "R12.5")  # 9 9 4 could no longer go out
    assert finish(state, "meld 9 9 JK", "meld 5 5 5", "discard 4").went_out_seat == 0


def test_r12_5_ask_only_when_going_out_is_possible():
    expect_illegal(_out("5 5 9 4"), "ask", "R12.5")
    state = _out("5 5 9 4", rules=Rules(ask_partner_yes_forces_out=False))
    apply_all(state, "ask", "answer yes", "discard 4")  # a yes that cannot bind does not trap the player
    assert state.seat == 1


def test_r12_5_asking_switched_off():
    expect_illegal(_out("5 5 5 9", rules=Rules(ask_partner="off")), "ask", "R12.5")


def test_r12_5_mandatory_asking_before_going_out():
    rules = Rules(ask_partner="mandatory")
    expect_illegal(_out("5 5 5 9", rules=rules), "meld 5 5 5", "R12.5")
    assert finish(_out("5 5 5 9", rules=rules), "ask", "answer yes", "meld 5 5 5", "discard 9").went_out_seat == 0


# ----------------------------------------------------------------------------- R12.6 / R12.7

_CONCEALED_HAND = "Q Q Q Q Q Q 2 5 5 5 5 9"


def _concealed(**extra):
    options = {"hands": {0: _CONCEALED_HAND, 2: "K K 7"}, "seat": 0, "phase": PLAY}
    options.update(extra)
    return position(**options)


def test_r12_6_concealed_going_out_scores_200_in_place_of_100():
    side = finish(_concealed(), "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9").sides[0]
    assert side.concealed and side.going_out_bonus == 200


def test_r12_6_1_earlier_meld_by_the_player_breaks_concealment():
    state = _concealed(melds={0: "9 9 9"}, melded_seats=(0,))
    side = finish(state, "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9").sides[0]
    assert not side.concealed and side.going_out_bonus == 100


def test_r12_6_2_whole_hand_in_one_turn_over_several_meld_actions():
    side = finish(_concealed(), "meld Q Q Q Q Q Q 2", "meld 5 5 5 5", "discard 9").sides[0]
    assert side.concealed


def test_r12_6_3_and_r12_7_own_melds_need_a_canasta():
    state = position(hands={0: "5 5 5 9", 2: "K K 7"}, melds={0: CANASTA}, melded_seats=(2,), seat=0, phase=PLAY)
    side = finish(state, "meld 5 5 5", "discard 9").sides[0]
    assert not side.concealed and side.going_out_bonus == 100


def test_r12_6_4_adding_to_partners_meld_breaks_concealment():
    state = position(
        hands={0: "Q Q Q Q Q Q Q 9 5", 2: "K K 7"}, melds={0: "9 9 9"}, melded_seats=(2,), seat=0, phase=PLAY
    )
    side = finish(state, "meld Q Q Q Q Q Q Q; 9", "discard 5").sides[0]
    assert not side.concealed and side.going_out_bonus == 100


def test_r12_6_partner_may_have_melded():
    state = position(
        hands={0: "Q Q Q Q Q Q Q 5", 2: "K K 7"}, melds={0: "9 9 9"}, melded_seats=(2,), seat=0, phase=PLAY
    )
    assert finish(state, "meld Q Q Q Q Q Q Q", "discard 5").sides[0].concealed


@pytest.mark.parametrize(("allowed", "concealed"), [(True, True), (False, False)])
def test_r12_6_pile_take_in_the_concealed_turn(allowed, concealed):
    rules = Rules(concealed_allows_pile_take=allowed)
    state = position(rules, hands={0: "Q Q Q Q Q 2 5 5 5 9", 2: "K K 7"}, pile="5 Q", seat=0)
    apply_all(state, "take Q Q Q Q Q 2")  # 6 queens and a deuce: 80 points, the opening
    result = finish(state, "meld 5 5 5 5", "discard 9")
    assert result.went_out_seat == 0 and result.sides[0].concealed is concealed


def test_r12_7_side_canasta_but_none_of_own_is_legal_not_concealed():
    state = position(hands={0: "9 9 9 4", 2: "K"}, melds={0: "K K K K K K K"}, melded_seats=(2,), seat=0, phase=PLAY)
    side = finish(state, "meld 9 9 9", Discard(4)).sides[0]
    assert side.went_out and not side.concealed and side.going_out_bonus == 100


def test_r12_6_3_the_canasta_may_be_completed_by_a_later_meld_move_of_the_concealed_turn():
    # The first move opens (Q Q Q Q; A A A, 100) with no canasta; the second completes the queens, a meld the
    # player began this turn, so no addition to an earlier meld (R12.6 1, 3, 4).
    state = position(hands={0: "Q Q Q Q A A A Q Q Q 9", 2: "K K 7"}, seat=0, phase=PLAY)
    side = finish(state, "meld Q Q Q Q; A A A", "meld Q Q Q", "discard 9").sides[0]
    assert side.concealed and side.going_out_bonus == 200


@pytest.mark.parametrize(("allowed", "concealed"), [(True, True), (False, False)])
def test_r12_6_r8_2e_concealed_over_two_meld_moves_after_a_take_with_extra_melds(allowed, concealed):
    # The take opens with melds for the minimum (K K K 30 + A A 2 60: R8.2e, R8.3); two meld moves then empty the
    # hand.  Concealed only where a turn that took the pile may be (concealed_allows_pile_take).
    rules = Rules(concealed_allows_pile_take=allowed)
    state = position(rules, hands={0: "K K A A 2 Q Q Q Q Q Q Q 6 6 6", 2: "7 8"}, pile="9 K", seat=0)
    result = finish(state, "take K K; A A 2", "meld Q Q Q Q Q Q Q", "meld 6 6 6", "discard 9")
    side = result.sides[0]
    assert result.went_out_seat == 0 and side.concealed is concealed
    assert side.going_out_bonus == (200 if concealed else 100)
