"""The orders the one-pass listings and greedy's integer keys produce are the orders a sort by pairs gives.

``meld_candidates(largest_first=True)`` orders candidates in one pass (by counts, and greedy's openings
as shapes), where it used to sort them; greedy ranks its discards by one integer per kind, where it used
to sort by a pair.  Both must give exactly the old order, or games would change.
"""

from __future__ import annotations

import itertools

import pytest

from canasta_sim.core.cards import KIND_COUNT, KIND_VALUE
from canasta_sim.core.engine import play_game
from canasta_sim.core.legal import meld_candidates
from canasta_sim.strategies.greedy import _KINDS, _usefulness
from canasta_sim.strategies.random_play import RandomPlay


def _cards_laid(move) -> int:
    return sum(len(group.cards) for group in move.groups)


class _OrderChecker(RandomPlay):
    """A random player that, at each meld decision, compares the largest-first candidates with a stable sort."""

    checked = 0

    def choose_meld(self, view):
        state = view._state
        listed = list(meld_candidates(state))
        ordered = list(meld_candidates(state, largest_first=True))
        expected = sorted(listed, key=lambda move: -_cards_laid(move))
        assert [str(move) for move in ordered] == [str(move) for move in expected]
        _OrderChecker.checked += 1
        return super().choose_meld(view)


@pytest.mark.timeout(120)
def test_largest_first_candidates_are_the_stable_sort_of_the_listing_before_and_after_melding():
    _OrderChecker.checked = 0
    for seed in range(6):
        play_game([_OrderChecker] * 4, seed=seed)
    assert _OrderChecker.checked > 100


def _pair(kind: int, hand, own, theirs) -> tuple[int, int]:
    # greedy's ranking as pairs, before it ranked by integer keys
    if kind == 2:
        return (-1, 0)
    if kind <= 1:
        return (100, 0)
    if kind in own or kind in theirs:
        return (50, 0)
    return (hand[kind], KIND_VALUE[kind])


def test_greedy_integer_discard_keys_order_kinds_as_the_pairs_did():
    own, theirs = {5: (3, 0, 0)}, {9: (4, 1, 0)}
    for counts in itertools.product((0, 1, 2, 3, 7), repeat=4):
        hand = [0] * KIND_COUNT
        for kind, count in zip((0, 2, 5, 11), counts, strict=True):
            hand[kind] = count
        hand[9], hand[14], hand[4] = counts[0], counts[1] + 1, 50
        kinds = [kind for kind in range(KIND_COUNT - 1, -1, -1) if hand[kind]]
        by_pairs = sorted(kinds, key=lambda kind: _pair(kind, hand, own, theirs))
        keys = sorted(_usefulness(kind, hand, own, theirs) * _KINDS + (KIND_COUNT - 1 - kind) for kind in kinds)
        assert [KIND_COUNT - 1 - key % _KINDS for key in keys] == by_pairs
