"""docs/rules.md §8: blocked and frozen piles, when and how the pile is taken (R8.1a-R8.4, D6, D15, D18, D20)."""

import pytest

from canasta_sim.core.cards import JOKER, RED_THREE, TWO, parse_kind
from canasta_sim.core.legal import legal_takes
from canasta_sim.core.moves import Discard, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import apply_all, expect_illegal, first_card, position

K, Q, J, A = (parse_kind(name) for name in "KQJA")


@pytest.mark.parametrize(("top", "rule"), [("JK", "R8.1a"), ("2", "R8.1a"), ("3b", "R5.2")])
def test_r8_1a_wild_or_black_three_on_top_blocks(top, rule):
    state = position(hands={0: "9 9 JK 2 3b 3b"}, melds={0: "K K K"}, pile="9 " + top, seat=0)
    assert state.is_pile_blocked()
    expect_illegal(state, "take 9 9", rule)
    assert not any(state.can_take_pile(TakePile(cards)) for cards in ((), (JOKER, JOKER), (TWO, TWO)))


def test_r8_1a_d6_joker_only_option_still_refuses_a_deuce_on_top():
    rules = Rules(blocking_wild_cards="joker_only")
    state = position(rules, hands={0: "9 9 2 2"}, melds={0: "K K K"}, pile="9 2", seat=0)
    assert not state.is_pile_blocked()
    expect_illegal(state, TakePile((TWO, TWO)), "R8.2a")


def test_r8_1b_buried_wild_or_red_three_freezes_until_taken():
    for buried in ("2", "JK", "3r"):
        state = position(hands={0: "9 JK 5", 1: "9 5"}, melds={0: "K K K"}, pile=f"{buried} 6 9", seat=0)
        assert state.is_pile_frozen() and not state.is_pile_blocked()
        expect_illegal(state, "take 9 JK", "R8.2b")


def test_r8_1b_frozen_pile_stays_frozen_over_further_discards():
    state = position(hands={0: "5 6 7 8"}, melds={0: "K K K"}, pile="2 9", seat=0, phase=PLAY)
    apply_all(state, "discard 5", "draw")
    apply_all(state, Discard(first_card(state.hands[1])))
    assert state.is_pile_frozen()


def test_r8_1c_d18_frozen_against_a_side_that_has_not_melded():
    hands = {0: "9 2 4 5"}
    unmelded = position(hands=hands, melds={1: "K K K"}, pile="5 9", seat=0)
    assert not unmelded.is_pile_frozen() and unmelded.is_pile_frozen_for(0) and not unmelded.is_pile_frozen_for(1)
    expect_illegal(unmelded, "take 9 2", "R8.2b")
    melded = position(hands=hands, melds={0: "K K K"}, pile="5 9", seat=0)
    apply_all(melded, "take 9 2")
    assert melded.melds[0][9] == [2, 0, 1]


def test_r8_2a_top_card_must_be_natural():
    rules = Rules(blocking_wild_cards="joker_only")
    state = position(rules, hands={0: "2 2 5"}, melds={0: "K K K"}, pile="9 2", seat=0)
    expect_illegal(state, "take", "R8.2a")


def test_r8_2b_frozen_pile_needs_natural_pair():
    state = position(hands={0: "7 JK 2 5 6"}, melds={0: "7 7 7"}, pile="2 9 7", seat=0)
    expect_illegal(state, "take 7 JK", "R8.2b")
    expect_illegal(state, "take", "R8.2b")  # laying off on the own 7s is not enough
    state = position(hands={0: "7 7 JK 5 6"}, melds={0: "A A A"}, pile="2 9 7", seat=0)
    apply_all(state, "take 7 7 JK")  # wild cards may join the natural pair
    assert state.melds[0][7] == [3, 1, 0]


def test_r8_2c_unfrozen_pile_pair():
    state = position(hands={0: "9 9 5"}, melds={0: "K K K"}, pile="5 9", seat=0)
    apply_all(state, "take 9 9")
    assert state.melds[0][9] == [3, 0, 0]


def test_r8_2c_unfrozen_pile_natural_and_wild():
    state = position(hands={0: "9 JK 5"}, melds={0: "K K K"}, pile="5 9", seat=0)
    apply_all(state, "take 9 JK")
    assert state.melds[0][9] == [2, 1, 0]


def test_r8_2c_unfrozen_pile_lay_off_on_own_meld():
    state = position(hands={0: "5 6"}, melds={0: "9 9 9"}, pile="5 9", seat=0)
    apply_all(state, "take")
    assert state.melds[0][9] == [4, 0, 0] and state.hand_sizes[0] == 3


def test_r8_2c_d20_lay_off_take_with_wild_cards_from_hand():
    # D20: the top card laid on the side's nines together with a joker from hand, as one move.
    def unfrozen(melds, pile="5 9"):
        return position(hands={0: "JK 5 6"}, melds={0: melds}, pile=pile, seat=0)

    state = apply_all(unfrozen("9 9 9"), "take JK")
    assert state.melds[0][9] == [4, 1, 0] and state.hands[0][JOKER] == 0 and state.hand_sizes[0] == 3
    # The table ends as if the take and the lay-off had been separate moves.
    separate = apply_all(unfrozen("9 9 9"), "take", "meld 9:JK")
    assert (separate.melds, separate.hands) == (state.melds, state.hands)
    # Within R9.2's limit: a fourth wild card is refused.
    expect_illegal(unfrozen("9 9 9 2 2 2"), "take JK", "R9.2")
    # A frozen pile still needs the natural pair (R8.2b).
    expect_illegal(unfrozen("9 9 9", pile="2 5 9"), "take JK", "R8.2b")


def test_r8_2c_unfrozen_pile_single_natural_is_not_enough():
    state = position(hands={0: "9 5 6"}, melds={0: "K K K"}, pile="5 9", seat=0)
    expect_illegal(state, "take 9", "R8.2c")
    expect_illegal(state, "take", "R8.2c")
    expect_illegal(state, TakePile((5,)), "R8.2")  # a 5 cannot go with a 9


def test_r8_2d_d15_one_card_cannot_take_one_card_pile():
    state = position(hands={0: "Q"}, melds={0: "9 9 9"}, pile="9", seat=0)
    expect_illegal(state, "take", "R8.2d")
    # Allowed by the option; the side needs a canasta, since the take leaves one card to discard.
    allowed = position(
        Rules(one_card_single_pile_block=False), hands={0: "Q"}, melds={0: "9 9 9; K K K K K K K"}, pile="9", seat=0
    )
    apply_all(allowed, "take")
    assert allowed.melds[0][9] == [4, 0, 0] and allowed.hand_sizes[0] == 1


def test_r8_2e_initial_meld_by_take_counts_top_and_hand_cards():
    state = position(hands={0: "A A 5 6"}, pile="K K A", seat=0)
    apply_all(state, "take A A")  # 3 aces = 60 >= 50
    assert state.side_has_melded[0] and state.melds[0][A] == [3, 0, 0]
    short = position(hands={0: "Q Q 5 6"}, pile="A A Q", seat=0)
    expect_illegal(short, "take Q Q", "R8.2e")


def test_r8_2f_merged_meld_must_obey_wild_limits():
    state = position(hands={0: "K K JK 5"}, melds={0: "K K K 2 2 JK"}, pile="4 K", seat=0)
    expect_illegal(state, "take K K JK", "R9.2")
    legal = position(hands={0: "K 2 5 6"}, melds={0: "K K 2 2"}, pile="4 K", seat=0)
    apply_all(legal, "take K 2")  # merges into one meld: 4 naturals and 3 wild cards
    assert legal.melds[0][K] == [4, 0, 3]


def test_r8_3_top_melded_whole_pile_to_hand_then_meld_and_discard():
    state = position(hands={0: "Q Q 5 6"}, melds={0: "K K K"}, pile="3r 9 9 JK 9 Q", seat=0)
    apply_all(state, "take Q Q")
    assert state.melds[0][Q] == [3, 0, 0]
    assert state.red_threes[0] == 1 and state.hands[0][RED_THREE] == 0
    assert state.hands[0][9] == 3 and state.hands[0][JOKER] == 1 and state.hand_sizes[0] == 6
    apply_all(state, "meld 9 9 9 JK", "discard 5")  # the pile's cards meld the same turn
    assert state.melds[0][9] == [3, 1, 0] and state.seat == 1


def test_r8_3_extra_melds_only_for_the_initial_minimum():
    state = position(hands={0: "Q Q A A A 5"}, melds={0: "K K K"}, pile="9 Q", seat=0)
    expect_illegal(state, "take Q Q; A A A", "R8.3")


def test_r8_3_r12_5_extra_melds_the_take_did_not_need_are_other_melding():
    # A A with the top ace make 60, the minimum: the kings are not needed for it (R8.3 step 1), so the move is the
    # take and then a meld, and the partner may no longer be asked (R12.5: only the top card's meld and the melds
    # needed for the minimum come before the question).  Melded after the take they give the same table.
    hand = {0: "A A K K K Q Q Q Q Q Q Q 9", 2: "7 8"}
    together = apply_all(position(hands=hand, pile="A", seat=0), "take A A; K K K")
    expect_illegal(together, "ask", "R12.5")
    apart = apply_all(position(hands=hand, pile="A", seat=0), "take A A", "meld K K K")
    assert together.melds == apart.melds and together.hands == apart.hands
    assert not together.can_ask() and not apart.can_ask()
    alone = apply_all(position(hands=hand, pile="A", seat=0), "take A A")
    assert alone.can_ask()  # the question comes before the kings


def test_r8_3_r12_5_d23_extra_melds_of_a_take_short_of_the_minimum_are_all_for_it():
    # K K with the top king make 30 of 50: the extra melds make up the opening together (R10.3), the queens' too,
    # and the question may follow them (R12.5, D23).
    state = position(hands={0: "K K A A A Q Q Q Q Q Q Q 5 5 5 9", 2: "7 8"}, pile="K", seat=0)
    listed = [str(move) for move in legal_takes(state)]
    assert "take K K; A A A" in listed and "take K K; Q Q Q Q Q Q Q; A A A" in listed and "take K K" not in listed
    apply_all(state, "take K K; Q Q Q Q Q Q Q; A A A")
    assert state.can_ask()


def test_r8_3_extra_melds_obey_r9_and_never_stand_in_for_the_natural_pair():
    opening = {2: "7 8"}
    expect_illegal(position(hands={0: "K K A A 2 2 JK 5 9", **opening}, pile="7 K", seat=0),
                   "take K K; A A 2 2 JK", "R9.2")
    expect_illegal(position(hands={0: "K K JK JK 2 5 9", **opening}, pile="7 K", seat=0),
                   "take K K; wild:JK JK 2", "R9.4")
    expect_illegal(position(hands={0: "K JK A A A 5 9", **opening}, pile="7 K", seat=0), "take K JK; A A A", "R8.2b")
    # Without a canasta the take must leave a card to keep after the discard (R6.4).
    expect_illegal(position(hands={0: "K K A A A 9", **opening}, pile="K", seat=0), "take K K; A A A", "R6.4")


def test_r8_3_r9_6_an_extra_meld_of_the_top_cards_rank_joins_the_takes_meld():
    state = position(hands={0: "K K JK 5 6 9", 2: "7 8"}, pile="7 K", seat=0)
    apply_all(state, "take K K; K:JK")  # 3 kings and a joker, 80: one meld (R9.6), its cards all counted (R10.5)
    assert state.melds[0][K] == [3, 1, 0] and state.side_has_melded[0]


def test_r8_4_taken_pile_is_gone_and_next_discard_starts_unfrozen():
    state = position(hands={0: "Q Q 5 6"}, melds={0: "K K K"}, pile="2 9 Q", seat=0)
    apply_all(state, "take Q Q")
    assert state.pile == [] and not state.is_pile_frozen()
    apply_all(state, "discard 5")
    assert state.pile == [5] and not state.is_pile_frozen()

