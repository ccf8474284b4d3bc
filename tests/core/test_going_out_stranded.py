"""E4 / R12.4: the going-out search's first shortcut, two cards that can go nowhere, never changes its answer.

``find_meld_out`` answers "no" at once for a hand holding two cards that must both be discarded (red 3s, and
lone naturals of ranks the side has no meld of), since only one card may be left to discard (R12.4).  Here
hands built to hold such cards, red 3s included, are compared with a search that tries every card as the
discard, and the full list of leftovers worth trying is checked to be empty for them.
"""

import random

import pytest

from canasta_sim.core.cards import KIND_COUNT, RED_THREE
from canasta_sim.core.going_out import _lay_all, _leftover_candidates, find_meld_out
from canasta_sim.core.rules import Rules

NATURAL_RANKS = range(4, KIND_COUNT)


def every_leftover_search(rules, hand, melds, minimum):
    """Whether any single card left over (or none) lets the rest of the hand be laid out: no shortcut."""
    for leftover in [None, *(kind for kind in range(KIND_COUNT) if hand[kind])]:
        counts = list(hand)
        if leftover is not None:
            counts[leftover] -= 1
        if _lay_all(rules, counts, melds, minimum, leftover is None) is not None:
            return True
    return False


def position_with_stranded_cards(rng: random.Random):
    """A hand and the side's melds where at least two cards can go nowhere (red 3s or lone naturals)."""
    melds = [[0, 0, 0] for _ in range(KIND_COUNT)]
    for rank in rng.sample(list(NATURAL_RANKS), rng.randint(0, 5)):
        naturals = rng.randint(2, 7)
        wilds = rng.randint(0, min(3, naturals))
        melds[rank] = [naturals, wilds // 2, wilds - wilds // 2]
    hand = [0] * KIND_COUNT
    unmelded = [rank for rank in NATURAL_RANKS if sum(melds[rank]) == 0]
    red_threes = rng.randint(0, 2)
    hand[RED_THREE] = red_threes
    for rank in rng.sample(unmelded, min(len(unmelded), max(0, 2 - red_threes) + rng.randint(0, 2))):
        hand[rank] = 1  # a lone natural with no meld of its rank
    for _ in range(rng.randint(0, 8)):  # jokers, deuces and cards of the melded ranks, which can go somewhere
        hand[rng.choice([0, 1, *(rank for rank in NATURAL_RANKS if sum(melds[rank]))] or [0])] += 1
    return hand, melds


def stranded(hand, melds) -> int:
    return hand[RED_THREE] + sum(1 for rank in NATURAL_RANKS if hand[rank] == 1 and sum(melds[rank]) == 0)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("rules", [Rules(), Rules(allow_wild_only_melds=True), Rules(canastas_to_go_out=2)])
def test_two_stranded_cards_never_go_out_and_leave_no_leftover_to_try(rules):
    rng = random.Random(20_261_202)
    checked = 0
    for _ in range(1500):
        hand, melds = position_with_stranded_cards(rng)
        if stranded(hand, melds) < 2:
            continue
        checked += 1
        assert _leftover_candidates(rules, hand, melds, True, True) == []
        assert find_meld_out(rules, hand, melds, minimum=0) is None
        assert not every_leftover_search(rules, hand, melds, 0)
    assert checked > 1000  # the generator's hands mostly hold two stranded cards, so the test checks something


@pytest.mark.timeout(60)
def test_one_stranded_card_is_still_searched():
    # A single lone natural is the discard to try, not a reason to stop: the shortcut needs two.
    rules = Rules()
    melds = [[0, 0, 0] for _ in range(KIND_COUNT)]
    melds[5] = [6, 0, 0]
    melds[9] = [7, 0, 0]
    hand = [0] * KIND_COUNT
    hand[5] = 1  # completes the canasta of 5s
    hand[12] = 1  # the lone natural, discarded
    plan = find_meld_out(rules, hand, melds, minimum=0)
    assert plan is not None and plan[1] == 12
