"""Rule-set options that change going out (docs/rules.md §17): each against its default.

The canastas needed (R12.1), asking the partner (R12.5), a red 3 as the last card (R13.1) and going out
without a discard (R12.2), each on a constructed position citing the rule it changes.
"""

from __future__ import annotations

from canasta_sim.core.moves import MeldGroup
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    ACQUIRE,
    END_RED_THREE_LAST_CARD,
    END_WENT_OUT,
    OVER,
    PLAY,
    HandState,
)
from tests.rules.option_positions import NINE, QUEEN, bare_position, play_moves, refused_rule

# --------------------------------------------------------------------------- R12.1: canastas to go out


def test_canastas_to_go_out_two_needs_a_second_canasta_r12_1():
    """R12.1/R6.4, T11: with ``canastas_to_go_out=2`` one canasta no longer lets the side go out."""
    hands = {0: "9 9 9"}
    one_canasta = {0: "K K K K K K K; 8 8 8"}
    default = play_moves(bare_position(hands=hands, melds=one_canasta, stock="4"), "draw")
    play_moves(default, "meld 9 9 9", "discard 4")
    assert default.end_reason == END_WENT_OUT
    two = Rules(canastas_to_go_out=2)
    strict = play_moves(bare_position(two, hands=hands, melds=one_canasta, stock="4"), "draw")
    assert not strict.can_go_out_this_turn()
    assert refused_rule(strict, "meld 9 9 9") == "R6.4"
    both = play_moves(bare_position(two, hands=hands, melds={0: "K K K K K K K; 8 8 8 8 8 8 8"}, stock="4"), "draw")
    assert both.can_go_out_this_turn()
    play_moves(both, "meld 9 9 9", "discard 4")
    assert both.end_reason == END_WENT_OUT


# --------------------------------------------------------------------------- R12.5: asking the partner


def _ready_to_go_out(rules: Rules, hand: str = "9 9 9") -> HandState:
    """Seat 0 has drawn a 4; side A has a canasta and seat 0 can meld out."""
    return play_moves(bare_position(rules, hands={0: hand}, melds={0: "K K K K K K K"}, stock="4"), "draw")


def test_ask_partner_mandatory_requires_a_yes_before_going_out_r12_5():
    """R12.5/D1: by default going out without asking is legal; ``mandatory`` refuses it until a yes."""
    default = _ready_to_go_out(DEFAULT_RULES)
    play_moves(default, "meld 9 9 9", "discard 4")
    assert default.end_reason == END_WENT_OUT
    mandatory = Rules(ask_partner="mandatory")
    state = _ready_to_go_out(mandatory)
    assert refused_rule(state, "meld 9 9 9") == "R12.5"
    play_moves(state, "ask", "answer yes", "meld 9 9 9", "discard 4")
    assert state.end_reason == END_WENT_OUT
    # Melding without going out needs no question.
    partial = _ready_to_go_out(mandatory, hand="9 9 9 5 6")
    play_moves(partial, "meld 9 9 9", "discard 4")
    assert partial.phase == ACQUIRE and partial.seat == 1
    # The last card going by a discard is going out too.
    last = _ready_to_go_out(mandatory, hand="")
    assert refused_rule(last, "discard 4") == "R12.5"


def test_ask_partner_mandatory_refuses_a_take_that_would_go_out_r12_5():
    """R12.5 ``mandatory``, D21: asking comes after the take, so a take leaving one card cannot stand.
    (R8.2d is switched off so that a one-card hand may take a one-card pile at all.)"""
    melds = {0: "K K K K K K K; 9 9 9"}
    optional = bare_position(Rules(one_card_single_pile_block=False), hands={0: "Q"}, melds=melds, pile="9")
    play_moves(optional, "take", "discard Q")
    assert optional.end_reason == END_WENT_OUT
    mandatory = Rules(ask_partner="mandatory", one_card_single_pile_block=False)
    state = bare_position(mandatory, hands={0: "Q"}, melds=melds, pile="9")
    assert refused_rule(state, "take") == "R12.5"
    bigger = bare_position(mandatory, hands={0: "Q"}, melds=melds, pile="5 9")
    play_moves(bigger, "take")  # two cards in hand afterwards: no going out, no question needed
    assert bigger.hand_sizes[0] == 2
    # The take itself cannot go out, but the turn can: the player asks after it, as after a draw.
    after_take = bare_position(mandatory, hands={0: "Q Q Q"}, melds=melds, pile="5 9")
    play_moves(after_take, "take", "ask", "answer yes", "meld Q Q Q", "discard 5")
    assert after_take.end_reason == END_WENT_OUT


def test_ask_partner_off_forbids_asking_r12_5():
    """R12.5: ``ask_partner=off`` refuses the question; going out needs none."""
    default = _ready_to_go_out(DEFAULT_RULES)
    assert default.can_ask()
    off = _ready_to_go_out(Rules(ask_partner="off"))
    assert refused_rule(off, "ask") == "R12.5"
    play_moves(off, "meld 9 9 9", "discard 4")
    assert off.end_reason == END_WENT_OUT


def test_partner_answer_no_binds_under_every_asking_rule_r12_5():
    """R12.5: "no" forbids going out this turn (also when a yes would not force it)."""
    for rules in (DEFAULT_RULES, Rules(ask_partner="mandatory"), Rules(ask_partner_yes_forces_out=False)):
        state = _ready_to_go_out(rules)
        play_moves(state, "ask", "answer no")
        assert refused_rule(state, "meld 9 9 9") == "R12.5"


def test_ask_partner_yes_forces_out_false_lets_a_yes_go_unused_r12_5():
    """R12.5: by default a yes obliges the asker to go out and asking needs going out to be possible;
    with ``ask_partner_yes_forces_out=false`` neither holds."""
    default = _ready_to_go_out(DEFAULT_RULES, hand="9 9 9 5 5 5")
    play_moves(default, "ask", "answer yes")
    assert refused_rule(default, "discard 4") == "R12.5"
    loose = _ready_to_go_out(Rules(ask_partner_yes_forces_out=False), hand="9 9 9 5 5 5")
    play_moves(loose, "ask", "answer yes", "discard 4")
    assert loose.phase == ACQUIRE and loose.seat == 1
    # Asking when going out is impossible (the side has no canasta).
    stuck = {0: "9 9 5 6"}
    default = play_moves(bare_position(hands=stuck, melds={0: "K K K"}, stock="4"), "draw")
    assert refused_rule(default, "ask") == "R12.5"
    loose = play_moves(
        bare_position(Rules(ask_partner_yes_forces_out=False), hands=stuck, melds={0: "K K K"}, stock="4"), "draw"
    )
    play_moves(loose, "ask", "answer yes", "discard 4")
    assert loose.seat == 1


# --------------------------------------------------------------------------- R5.3: melding black 3s


def test_black_three_melds_never_refuses_the_going_out_meld_r5_3():
    """R5.3/D2, T14: 3♠ 3♣ 3♠ as the last meld of a going-out turn: legal by default, illegal under ``never``."""
    default = _ready_to_go_out(DEFAULT_RULES, hand="3b 3b 3b")
    assert default.can_go_out_this_turn()
    play_moves(default, "meld 3b 3b 3b", "discard 4")
    assert default.end_reason == END_WENT_OUT
    assert default.side_meld_points(0) == 70 + 15  # black 3s melded count 5 each (R5.5)
    never = _ready_to_go_out(Rules(black_three_melds="never"), hand="3b 3b 3b")
    assert not never.can_go_out_this_turn()
    assert refused_rule(never, "meld 3b 3b 3b") == "R5.3"
    # Not going out: illegal under both.
    early = _ready_to_go_out(DEFAULT_RULES, hand="3b 3b 3b 5 6")
    assert refused_rule(early, "meld 3b 3b 3b") == "R5.3"


# --------------------------------------------------------------------------- R13.1: red 3 as last card


def test_last_card_red_three_meld_no_discard_r13_1():
    """R13.1/D14, X2: a red 3 drawn as the last stock card ends the hand at once by default; with
    ``meld_no_discard`` the player may still meld but not discard, then the hand ends."""
    hands = {0: "9 5 6 Q"}
    melds = {0: "9 9 9"}
    default = play_moves(bare_position(hands=hands, melds=melds, stock="3r", rest_to=3), "draw")
    assert default.phase == OVER and default.end_reason == END_RED_THREE_LAST_CARD
    assert default.red_threes[0] == 1
    result = score_hand(default)
    assert result.sides[0].red_three_bonus == 100 and result.sides[0].going_out_bonus == 0
    britannica = Rules(last_card_red_three="meld_no_discard")
    state = play_moves(bare_position(britannica, hands=hands, melds=melds, stock="3r", rest_to=3), "draw")
    assert state.phase == PLAY and state.red_threes[0] == 1
    assert refused_rule(state, "discard 5") == "R13.1"
    assert refused_rule(state, "ask") == "R12.5"
    play_moves(state, "meld 9")
    assert state.melds[0][NINE] == [4, 0, 0]
    play_moves(state, "stop")
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
    assert score_hand(state).sides[0].meld_points == 40


def test_last_card_red_three_meld_no_discard_going_out_plan_r13_1():
    """R13.1 ``meld_no_discard`` with E4: no discard is allowed, so only melding every card goes out,
    and the going-out search (R12.5) must say so rather than plan a discard."""
    britannica = Rules(last_card_red_three="meld_no_discard")
    melds = {0: "K K K K K K K"}
    whole = play_moves(bare_position(britannica, hands={0: "Q Q Q"}, melds=melds, stock="3r", rest_to=3), "draw")
    assert whole.going_out_plan() == ((MeldGroup.of(QUEEN, 3),), None)
    play_moves(whole, "meld Q Q Q")
    assert whole.end_reason == END_WENT_OUT
    spare = play_moves(bare_position(britannica, hands={0: "Q Q Q 5"}, melds=melds, stock="3r", rest_to=3), "draw")
    assert not spare.can_go_out_this_turn()  # the 5 could not be discarded
    play_moves(spare, "meld Q Q Q", "stop")
    assert spare.end_reason == END_RED_THREE_LAST_CARD


# --------------------------------------------------------------------------- R12.2: going out without discard


def test_going_out_without_discard_only_if_hand_holds_canasta_r12_2():
    """R12.2/D9: melding every card with no discard needs only the side's canasta by default; the
    seed-002 reading also needs a whole canasta laid from the hand this turn."""
    melds = {0: "K K K K K K K"}
    default = play_moves(bare_position(hands={0: "Q Q"}, melds=melds, stock="Q"), "draw")
    assert default.can_go_out_this_turn()
    play_moves(default, "meld Q Q Q")
    assert default.end_reason == END_WENT_OUT
    literal = Rules(going_out_without_discard="only_if_hand_holds_canasta")
    state = play_moves(bare_position(literal, hands={0: "Q Q"}, melds=melds, stock="Q"), "draw")
    assert not state.can_go_out_this_turn()
    assert refused_rule(state, "meld Q Q Q") == "R12.2"
    # Going out with a final discard is unaffected.
    with_discard = play_moves(bare_position(literal, hands={0: "Q Q Q"}, melds=melds, stock="4"), "draw")
    play_moves(with_discard, "meld Q Q Q", "discard 4")
    assert with_discard.end_reason == END_WENT_OUT
    whole = play_moves(bare_position(literal, hands={0: "Q Q Q Q Q Q"}, melds=melds, stock="Q"), "draw")
    play_moves(whole, "meld Q Q Q Q Q Q Q")
    assert whole.end_reason == END_WENT_OUT


