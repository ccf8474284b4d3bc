"""docs/rules.md §5: black 3s, the stop cards (R5.1-R5.5, D2, D5)."""

from canasta_sim.core.cards import BLACK_THREE, parse_kind
from canasta_sim.core.legal import legal_takes
from canasta_sim.core.moves import Meld, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import apply_all, expect_illegal, finish, position

K = parse_kind("K")


def test_r5_1_black_three_may_be_discarded():
    state = position(hands={0: "3b 5 6"}, melds={0: "K K K"}, pile="9", seat=0, phase=PLAY)
    apply_all(state, "discard 3b")
    assert state.pile == [9, BLACK_THREE] and state.seat == 1


def test_r5_2_black_three_blocks_only_while_on_top_and_does_not_freeze():
    state = position(
        hands={0: "3b 5 6", 1: "9 9 4 5", 2: "4 4 9"},
        melds={0: "K K K", 1: "A A A"},
        pile="9",
        seat=0,
        phase=PLAY,
    )
    apply_all(state, "discard 3b")
    assert state.is_pile_blocked() and not state.is_pile_frozen()
    expect_illegal(state, "take", "R5.2")
    apply_all(state, "draw", "discard 4")
    # Covered by the 4, the 3 no longer blocks, and it never froze the pile: 4 + 4 from hand will do.
    assert not state.is_pile_blocked() and not state.is_pile_frozen()
    apply_all(state, "take 4 4")
    assert state.melds[0][4] == [3, 0, 0] and state.hands[2][BLACK_THREE] == 1


def test_r5_2_d5_black_three_freezes_under_bicycle_option():
    state = position(
        Rules(black_three_freezes_pile=True), hands={0: "3b 5 6"}, melds={0: "K K K"}, pile="9", seat=0, phase=PLAY
    )
    apply_all(state, "discard 3b")
    assert state.is_pile_frozen()


def _black_threes(rules, hand, melds="K K K K K K K"):
    return position(rules, hands={0: hand}, melds={0: melds}, seat=0, phase=PLAY)


def test_r5_3_black_threes_melded_only_when_going_out():
    expect_illegal(_black_threes(Rules(), "3b 3b 3b 9 9"), "meld 3b 3b 3b", "R5.3")
    result = finish(_black_threes(Rules(), "3b 3b 3b 9"), "meld 3b 3b 3b", "discard 9")
    assert result.went_out_seat == 0
    state = _black_threes(Rules(), "3b 3b 3b 3b")
    apply_all(state, "meld 3b 3b 3b 3b")  # four, going out with no discard
    assert state.is_over and state.melds[0][BLACK_THREE] == [4, 0, 0]


def test_r5_3_r8_2e_black_threes_in_a_going_out_take_count_toward_the_minimum():
    # A side at 0 opens by taking a one-card pile and goes out in that one move: seven 4s (35) are short of
    # the 50, the three black 3s laid with them (15) make it up (R10.1, R8.2e), and this is the going-out turn.
    def opening(hand):
        return position(hands={0: hand}, pile="4", seat=0)

    state = opening("4 4 4 4 4 4 3b 3b 3b 9")
    assert [str(move) for move in legal_takes(state)] == ["take 4 4 4 4 4 4; 3b 3b 3b"]  # a strategy is offered it
    result = finish(state, "take 4 4 4 4 4 4; 3b 3b 3b", "discard 9")
    side = result.sides[0]
    assert result.went_out_seat == 0 and side.meld_points == 35 + 15 and side.canasta_natural == 1
    # The same take keeping two cards does not go out: black 3s may not be melded (R5.3).
    expect_illegal(opening("4 4 4 4 4 4 3b 3b 3b 9 9"), "take 4 4 4 4 4 4; 3b 3b 3b", "R5.3")
    # Without the black 3s the take is short of the minimum.
    expect_illegal(opening("4 4 4 4 4 4 3b 3b 3b 9"), "take 4 4 4 4 4 4", "R8.2e")


def test_r5_3_black_three_meld_is_three_or_four_without_wild_cards():
    expect_illegal(_black_threes(Rules(), "3b 3b 2 9"), Meld((MeldGroup(BLACK_THREE, (2, 2, 1)),)), "R5.3")
    expect_illegal(_black_threes(Rules(), "3b 3b 9"), "meld 3b 3b", "R5.3")


def test_r5_3_d2_never_option_forbids_them_even_going_out():
    expect_illegal(_black_threes(Rules(black_three_melds="never"), "3b 3b 3b 9"), "meld 3b 3b 3b", "R5.3")


def test_r5_4_black_three_never_joins_another_meld():
    state = _black_threes(Rules(), "3b 9 9 4")
    expect_illegal(state, Meld((MeldGroup(K, (BLACK_THREE,)),)), "R9.1")


def test_r5_5_black_three_worth_5_melded_or_in_hand():
    result = finish(_black_threes(Rules(), "3b 3b 3b 9"), "meld 3b 3b 3b", "discard 9")
    assert result.sides[0].meld_points == 7 * 10 + 3 * 5
    state = position(
        hands={0: "5 5 5 9", 1: "3b 3b", 2: "", 3: ""},
        melds={0: "Q Q Q Q Q Q Q"},
        seat=0,
        phase=PLAY,
    )
    assert finish(state, "meld 5 5 5", "discard 9").sides[1].hand_penalty == 10
