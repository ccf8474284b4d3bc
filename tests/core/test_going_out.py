"""E4 / R12.5: the going-out search's shortcuts never change its answer.

``find_meld_out`` rules out hopeless hands before searching (a card that can go nowhere must be the
discard; a side with no canasta in reach cannot go out).  Here it is compared with the plain search
that tries every card as the discard, over thousands of random hands and tables under several rule
sets, and every plan it returns is checked to be legal on a real hand state.
"""

import random

import pytest

from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.going_out import _lay_all, find_meld_out
from canasta_sim.core.melds import meld_problem
from canasta_sim.core.rules import Rules


def plain_search(rules, hand, melds, minimum, allow_no_discard, allow_discard):
    leftovers = [kind for kind in range(KIND_COUNT) if hand[kind]] if allow_discard else []
    if allow_no_discard:
        leftovers.insert(0, None)
    for leftover in leftovers:
        counts = list(hand)
        if leftover is not None:
            counts[leftover] -= 1
        if _lay_all(rules, counts, melds, minimum, no_discard=leftover is None) is not None:
            return True
    return False


def random_position(rng: random.Random):
    hand = [0] * KIND_COUNT
    for _ in range(rng.randint(1, 14)):
        hand[rng.choice([0, 1, 2, *range(4, 15), *range(4, 15)])] += 1
    melds = [[0, 0, 0] for _ in range(KIND_COUNT)]
    for rank in rng.sample(range(4, 15), rng.randint(0, 4)):
        naturals = rng.randint(2, 7)
        wilds = rng.randint(0, min(3, naturals))
        melds[rank] = [naturals, wilds // 2, wilds - wilds // 2]
    return hand, melds


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(canastas_to_go_out=2), Rules(wild_ratio_rule="min_two_naturals"), Rules(black_three_melds="never")],
    ids=["default", "two_canastas", "min_two_naturals", "black_threes_never"],
)
def test_e4_shortcuts_agree_with_the_plain_search(rules):
    rng = random.Random(2026)
    for _ in range(3000):
        hand, melds = random_position(rng)
        minimum = rng.choice([0, 0, 50, 90])
        for allow_no_discard, allow_discard in ((True, True), (False, True), (True, False)):
            plan = find_meld_out(
                rules, hand, melds, minimum=minimum, allow_no_discard=allow_no_discard, allow_discard=allow_discard
            )
            assert (plan is not None) == plain_search(rules, hand, melds, minimum, allow_no_discard, allow_discard)
            if plan is None:
                continue
            groups, discard = plan
            laid = [0] * KIND_COUNT
            for group in groups:
                for kind in group.cards:
                    laid[kind] += 1
                old = melds[group.rank]
                assert meld_problem(
                    rules, group.rank, old[0] + group.naturals, old[1] + group.jokers, old[2] + group.deuces
                ) is None
            if discard is not None:
                laid[discard] += 1
            assert laid == hand
