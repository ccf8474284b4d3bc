"""R12.2 under ``going_out_without_discard=only_if_hand_holds_canasta`` (the seed-002 literal reading, D9).

Seed 002: melding the whole hand with no discard is allowed when the hand "contains a whole canasta".  The pile's
top card never passes through the hand (R8.3: it is melded with cards from the hand), so it is no part of that
canasta; the cards of the rest of the pile are in the hand once taken, and count when laid.  The engine's move
check, its going-out plan (E4, R12.5) and the check after a "yes" all judge it alike.
"""

from __future__ import annotations

from canasta_sim.core.moves import parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import END_WENT_OUT, HandState
from tests.rules.option_positions import QUEEN, bare_position, play_moves, refused_rule

LITERAL = Rules(going_out_without_discard="only_if_hand_holds_canasta")


def _take_on_king(rules: Rules, hand: str, melds: str = "9 9 9", pile: str = "K") -> HandState:
    """Seat 0, its side melded with ``melds``, may take a pile of ``pile`` (top last) onto a king."""
    return bare_position(rules, hands={0: hand}, melds={0: melds}, pile=pile, stock="4")


def test_r12_2_literal_pile_top_card_is_no_part_of_the_hand_canasta():
    """Six kings in hand and the pile's king on top: the take makes a canasta, but the hand never held one, so
    taking the one-card pile with all six (no discard) does not go out; by default it does."""
    assert refused_rule(_take_on_king(LITERAL, "K K K K K K"), "take K K K K K K") == "R12.2"
    default = play_moves(_take_on_king(Rules(), "K K K K K K"), "take K K K K K K")
    assert default.end_reason == END_WENT_OUT
    # Taken first, then melded out with no discard: the same judgment on the later meld.
    later = play_moves(_take_on_king(LITERAL, "K K K K K K Q Q Q Q"), "take K K K K K K")
    assert later.going_out_plan()[1] == QUEEN  # only with a queen left to discard
    assert refused_rule(later, "meld Q Q Q Q") == "R12.2"
    play_moves(later, "meld Q Q Q", "discard Q")  # R12.2 way 1, a final discard, is unaffected
    assert later.end_reason == END_WENT_OUT


def test_r12_2_literal_seven_kings_from_the_hand_with_the_top_card_go_out():
    """Seven kings from the hand on the pile's king are a whole canasta from the hand: the take goes out with no
    discard, and after a take that keeps cards the going-out plan (E4) counts the kings it laid."""
    state = play_moves(_take_on_king(LITERAL, "K K K K K K K"), "take K K K K K K K")
    assert state.end_reason == END_WENT_OUT
    later = play_moves(_take_on_king(LITERAL, "K K K K K K K Q Q Q"), "take K K K K K K K")
    assert later.can_ask()
    play_moves(later, "ask", "answer yes", "meld Q Q Q")
    assert later.end_reason == END_WENT_OUT


def test_r12_2_literal_pile_cards_taken_into_the_hand_count_as_the_hands():
    """The pile's other cards join the hand (R8.3), so kings among them laid this turn are from the hand."""
    state = play_moves(_take_on_king(LITERAL, "K K K K K Q Q Q", pile="K K K"), "take K K K K K")
    assert state.can_go_out_this_turn()
    play_moves(state, "meld K K; Q Q Q")
    assert state.end_reason == END_WENT_OUT


def test_r12_2_literal_yes_then_the_canasta_first_keeps_going_out_possible_r12_5():
    """After a "yes" (R12.5) every meld must keep going out possible: laying the hand's canasta first leaves
    three nines that go out with no discard, since the canasta came from the hand this turn."""
    state = play_moves(bare_position(LITERAL, hands={0: "Q Q Q Q Q Q 9 9 9"}, melds={0: "8 8 8"}, stock="Q"),
                       "draw", "ask", "answer yes")
    assert state.is_legal(parse_move("meld Q Q Q Q Q Q Q"))
    play_moves(state, "meld Q Q Q Q Q Q Q", "meld 9 9 9")
    assert state.end_reason == END_WENT_OUT


def test_r12_2_literal_top_card_completing_the_sides_canasta_meets_r12_1_only():
    """The top card added to the side's six kings completes its canasta (R12.1 holds), yet melding out the
    rest with no discard still needs a canasta from the hand."""
    state = play_moves(_take_on_king(LITERAL, "Q Q Q", melds="K K K K K K"), "take")
    assert refused_rule(state, "meld Q Q Q") == "R12.2"
    default = play_moves(_take_on_king(Rules(), "Q Q Q", melds="K K K K K K"), "take", "meld Q Q Q")
    assert default.end_reason == END_WENT_OUT


def test_r12_2_literal_concealed_going_out_r12_6():
    """A concealed going out (R12.6) with no discard needs the hand's canasta too; with a discard, the top card
    still counts toward the player's own canasta (R12.6.3 asks for a canasta among the player's melds)."""
    drawn = play_moves(bare_position(LITERAL, hands={0: "Q Q Q Q Q Q 9 9 9"}, stock="Q", melded_seats=()), "draw")
    play_moves(drawn, "meld Q Q Q Q Q Q Q; 9 9 9")
    assert drawn.end_reason == END_WENT_OUT and drawn.went_out_concealed
    untouched = bare_position(LITERAL, hands={0: "K K K K K K Q Q Q Q"}, melds={0: "9 9 9"}, pile="K", stock="4",
                              melded_seats=(2,))
    play_moves(untouched, "take K K K K K K")
    assert refused_rule(untouched, "meld Q Q Q Q") == "R12.2"
    play_moves(untouched, "meld Q Q Q", "discard Q")
    assert untouched.end_reason == END_WENT_OUT and untouched.went_out_concealed


def test_r12_2_literal_with_two_canastas_to_go_out_r12_1():
    """``canastas_to_go_out=2``: the side needs two canastas (R12.1) and, with no discard, one of them or
    another whole canasta laid from the hand this turn; the pile's top card completing the second is not."""
    both = Rules(canastas_to_go_out=2, going_out_without_discard="only_if_hand_holds_canasta")
    out = play_moves(bare_position(both, hands={0: "8 8 8 8 8 8"}, melds={0: "Q Q Q Q Q Q Q"}, stock="8"), "draw")
    play_moves(out, "meld 8 8 8 8 8 8 8")
    assert out.end_reason == END_WENT_OUT
    short = play_moves(bare_position(both, hands={0: "8 8 8 8 8 8"}, melds={0: "9 9 9"}, stock="8"), "draw")
    assert refused_rule(short, "meld 8 8 8 8 8 8 8") == "R6.4"
    top = _take_on_king(both, "K K K K K K", melds="Q Q Q Q Q Q Q")
    assert refused_rule(top, "take K K K K K K") == "R12.2"
