"""docs/rules.md §9: what a meld is, wild-card limits for its whole life, ownership and merging (R9.1-R9.8, D3)."""

import pytest

from canasta_sim.core.cards import BLACK_THREE, JOKER, RED_THREE, TWO, parse_kind
from canasta_sim.core.melds import meld_fits, meld_problem
from canasta_sim.core.moves import WILD_RANK, Meld, MeldGroup, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import apply_all, expect_illegal, finish, position

K, Q, J = (parse_kind(name) for name in "KQJ")
SEEDS = Rules()
OFFICIAL = Rules(wild_ratio_rule="min_two_naturals")


def _player(hand, rules=SEEDS, melds="A A A"):
    return position(rules, hands={0: hand}, melds={0: melds}, seat=0, phase=PLAY)


def test_r9_1_three_or_more_cards_of_one_natural_rank():
    state = _player("K K K Q J 10 5 6")
    expect_illegal(state, "meld K K", "R9.1")
    expect_illegal(state, Meld((MeldGroup(K, (K, Q, J)),)), "R9.1")  # no sequences
    apply_all(state, "meld K K K")
    assert state.melds[0][K] == [3, 0, 0]


def test_r9_1_every_group_lays_a_card_even_on_a_meld_the_side_holds():
    # A group of no card on the side's aces changed nothing and was legal, so a strategy answering it at
    # every choose_meld never ended its turn: the game hung.
    A = parse_kind("A")
    state = _player("K K K 5 6 7")
    expect_illegal(state, Meld((MeldGroup(A, ()),)), "R9.1")
    expect_illegal(state, Meld((MeldGroup(K, (K, K, K)), MeldGroup(A, ()))), "R9.1")
    take = position(hands={0: "K K A A A 5 6 7"}, pile="4 K", seat=0)
    expect_illegal(take, TakePile((K, K), (MeldGroup(A, (A, A, A)), MeldGroup(K, ()))), "R9.1")


def test_r9_2_d3_at_most_three_wild_and_never_more_wild_than_natural():
    assert meld_problem(SEEDS, K, 3, 1, 2) is None
    assert meld_problem(SEEDS, K, 4, 2, 2)[0] == "R9.2"  # 4 wild cards
    assert meld_problem(SEEDS, K, 2, 1, 2)[0] == "R9.2"  # 2N + 3W under the seeds
    assert meld_problem(OFFICIAL, K, 2, 1, 2) is None  # legal officially
    assert meld_problem(OFFICIAL, K, 1, 1, 1)[0] == "R9.2"  # officially too: at least 2 naturals
    assert meld_problem(SEEDS, K, 1, 1, 1)[0] == "R9.2"


def test_r9_3_limits_hold_for_the_melds_whole_life():
    # D3: 2 naturals and 3 wild cards is illegal under the seeds when reached by an addition too.
    state = _player("JK K 5 6 7", melds="K K 2 2")
    expect_illegal(state, "meld K:JK", "R9.2")
    apply_all(state, "meld K; K:JK")  # with a third natural in the same move it is fine
    assert state.melds[0][K] == [3, 1, 2]
    canasta = _player("2 5 6 7", melds="K K K K 2 2 JK")
    expect_illegal(canasta, "meld K:2", "R9.2")  # a canasta still takes no 4th wild card


def test_r9_4_wild_cards_only_never_meld():
    move = Meld((MeldGroup(WILD_RANK, (JOKER, TWO, TWO)),))
    expect_illegal(_player("JK 2 2 5 6"), move, "R9.4")
    state = _player("JK 2 2 5 6", Rules(allow_wild_only_melds=True))
    apply_all(state, move)
    assert state.melds[0][WILD_RANK] == [0, 1, 2]


def test_r9_5_either_partner_adds_to_the_sides_melds_never_the_opponents():
    state = position(
        hands={0: "K 5 6 7", 2: "K 5 6 7", 1: "K 5 6 7"},
        melds={0: "K K K", 1: "Q Q Q"},
        seat=2,
        phase=PLAY,
    )
    apply_all(state, "meld K")  # seat 2 adds to the kings seat 0's side laid
    assert state.melds[0][K] == [4, 0, 0]
    apply_all(state, "discard 5")
    apply_all(state, "draw")
    expect_illegal(state, "meld K", "R9.1")  # seat 1 has no meld of kings; it cannot use side A's
    assert state.melds[0][K] == [4, 0, 0] and state.melds[1][K] == [0, 0, 0]


def test_r9_6_one_meld_per_rank_per_side_both_sides_may_hold_a_rank():
    state = position(hands={0: "7 7 2 5 6 8"}, melds={0: "7 7 7", 1: "7 7 7"}, seat=0, phase=PLAY)
    apply_all(state, "meld 7 7 2")
    assert state.melds[0][7] == [5, 0, 1] and state.melds[1][7] == [3, 0, 0]


def test_r9_6_two_groups_of_one_rank_in_one_meld_move_merge():
    state = position(hands={0: "7 7 7 7 7 2 5 6"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    apply_all(state, Meld((MeldGroup(7, (7, 7, 7)), MeldGroup(7, (7, 7, TWO)))))
    assert state.melds[0][7] == [5, 0, 1]


def test_r9_7_no_size_limit():
    state = position(
        hands={0: "K K K K K K K K JK JK 2 5", 1: "", 2: "", 3: ""}, melds={0: "A A A"}, seat=0, phase=PLAY
    )
    result = finish(state, "meld K K K K K K K K JK JK 2", "discard 5")
    assert state.melds[0][K] == [8, 2, 1]
    assert result.sides[0].canasta_mixed == 1 and result.sides[0].meld_points == 80 + 100 + 20 + 60


def test_r9_8_threes_red_never_black_only_by_r5_3():
    state = _player("3b 3b 3b 5 6")
    expect_illegal(state, Meld((MeldGroup(RED_THREE, (RED_THREE,) * 3),)), "R9.8")
    expect_illegal(state, Meld((MeldGroup(BLACK_THREE, (BLACK_THREE,) * 3),)), "R5.3")


@pytest.mark.parametrize("rules", [SEEDS, OFFICIAL])
def test_r9_2_every_legal_meld_has_two_naturals_and_three_wilds_at_most(rules):
    for naturals in range(0, 9):
        for jokers in range(0, 5):
            for deuces in range(0, 9):
                if meld_problem(rules, K, naturals, jokers, deuces) is None:
                    assert naturals >= 2 and jokers + deuces <= 3 and naturals + jokers + deuces >= 3


@pytest.mark.parametrize(
    "rules",
    [SEEDS, OFFICIAL, Rules(allow_wild_only_melds=True), Rules(max_wilds_per_meld=4, black_three_melds="never")],
    ids=["seeds", "official", "wild_only_melds", "four_wilds"],
)
def test_r9_1_r9_2_r9_4_r5_3_the_quick_meld_check_agrees_with_the_explained_one(rules):
    # The legal listings use meld_fits, the move checks meld_problem: they must never disagree.
    for rank in (WILD_RANK, BLACK_THREE, 4, K):
        for naturals in range(0, 9):
            for jokers in range(0, 5):
                for deuces in range(0, 9):
                    shape = (rank, naturals, jokers, deuces)
                    assert meld_fits(rules, *shape) is (meld_problem(rules, *shape) is None), shape
