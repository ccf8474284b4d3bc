"""docs/rules.md §6: acquire, meld, discard; melds stay; any discard; keep a card; atomic melds (R6.1-R6.5)."""

from canasta_sim.core.cards import JOKER, TWO, parse_kind
from canasta_sim.core.moves import Discard, Meld, MeldGroup, Stop
from canasta_sim.core.state import ACQUIRE, PLAY
from tests.helpers import apply_all, expect_illegal, position, snapshot

K, Q = parse_kind("K"), parse_kind("Q")


def test_r6_1_acquire_first_no_passing_no_both():
    state = position(hands={0: "K K 5 6"}, melds={0: "Q Q Q"}, pile="4 K", seat=0)
    expect_illegal(state, "meld K K", "R6.1")
    expect_illegal(state, "discard 5", "R6.1")
    expect_illegal(state, Stop(), "R6.1")  # no passing while the stock has cards
    apply_all(state, "draw")
    expect_illegal(state, "take K K", "R6.1")  # not both
    expect_illegal(state, "draw", "R6.1")


def test_r6_1_discard_of_exactly_one_card_ends_the_turn():
    state = position(hands={0: "5 6 7 8"}, seat=0, phase=PLAY)
    apply_all(state, "discard 5")
    assert state.hand_sizes[0] == 3 and state.pile[-1] == 5
    assert state.seat == 1 and state.phase == ACQUIRE


def test_r6_2_melded_cards_and_wild_cards_stay_on_the_table():
    state = position(hands={0: "K K JK K 5 6 7"}, melds={0: "Q Q Q"}, seat=0, phase=PLAY)
    apply_all(state, "meld K K JK", "meld K")
    assert state.melds[0][K] == [3, 1, 0]
    assert state.hands[0][JOKER] == 0
    expect_illegal(state, Discard(JOKER), "R6.1")  # the joker can never come back


def test_r6_3_any_card_may_be_discarded_wild_freezes_and_blocks():
    state = position(hands={0: "2 5 6", 1: "9 9 4"}, melds={0: "K K K", 1: "A A A"}, pile="9", seat=0, phase=PLAY)
    apply_all(state, "discard 2")
    assert state.is_pile_blocked() and state.is_pile_frozen()
    expect_illegal(state, "take 9 9", "R8.1a")


def test_r6_4_keep_a_card_without_canasta():
    state = position(hands={0: "9 9 9 8 5"}, melds={0: "8 8 8"}, seat=0, phase=PLAY)
    apply_all(state, "meld 9 9 9")  # two cards remain: one to discard, one to keep
    assert state.hand_sizes[0] == 2
    expect_illegal(state, "meld 8", "R6.4")  # would leave one card, so the discard would go out


def test_r6_4_keep_a_card_one_card_left_is_illegal():
    state = position(hands={0: "9 9 9 8"}, melds={0: "8 8 8"}, seat=0, phase=PLAY)
    expect_illegal(state, "meld 9 9 9", "R6.4")
    expect_illegal(state, "meld 9 9 9; 8", "R6.4")


def test_r6_4_keep_a_card_after_partner_says_no():
    state = position(hands={0: "9 9 9 4"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    apply_all(state, "ask", "answer no")
    expect_illegal(state, "meld 9 9 9", "R12.5")


def test_r6_5_melds_validated_together_all_or_nothing():
    state = position(hands={0: "K K K 8 8 2 5 6"}, seat=0, phase=PLAY)
    expect_illegal(state, "meld K K K", "R10.2")  # 30 alone
    expect_illegal(state, "meld 8 8 2", "R10.2")  # 40 alone
    before = snapshot(state)
    expect_illegal(state, Meld((MeldGroup(K, (K, K, K)), MeldGroup(8, (8, TWO)))), "R9.1")
    assert snapshot(state) == before
    apply_all(state, "meld K K K; 8 8 2")  # 70 together (R10.3)
    assert state.melds[0][K] == [3, 0, 0] and state.melds[0][8] == [2, 0, 1]
