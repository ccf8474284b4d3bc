"""Greedy's discard, found with two meld tables and no legality check, is the discard its full ranking gives.

``Greedy.choose_discard`` ranks the unmelded naturals from the side's and (while the pile is not frozen) the
opponents' meld tables, an unmelded natural always ranking below a melded one, and checks no discard with
``view.can`` while another card stays.  At every discard of several games this checks its answer against the ranking
of every kind in hand by :func:`~canasta_sim.strategies.greedy._usefulness`, the least useful first.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Discard
from canasta_sim.strategies import Expert, Greedy
from canasta_sim.strategies.greedy import _KINDS, _usefulness


def _ranked_discard(view) -> Discard:
    """The least useful card by the full ranking (R6.1, R12.5: the first legal one when the partner's yes
    obliges going out, or one card is left)."""
    hand = view.hand
    side = view.side
    own = {rank for rank in range(KIND_COUNT) if view.meld_size(side, rank) > 0}
    theirs = set() if view.is_pile_frozen else {rank for rank in range(KIND_COUNT) if view.meld_size(1 - side, rank)}
    keys = sorted(
        _usefulness(kind, hand, own, theirs) * _KINDS + (KIND_COUNT - 1 - kind) for kind in range(KIND_COUNT)
        if hand[kind]
    )
    moves = [Discard(KIND_COUNT - 1 - key % _KINDS) for key in keys]
    if sum(hand) > 1 and view.partner_answer is not True:
        return moves[0]
    return next(move for move in moves if view.can(move))


class _CheckedGreedy(Greedy):
    """Greedy, comparing each of its discards with the full ranking's."""

    checked = 0

    def choose_discard(self, view) -> Discard:
        move = super().choose_discard(view)
        assert move == _ranked_discard(view)
        _CheckedGreedy.checked += 1
        return move


@pytest.mark.timeout(120)
def test_greedy_discards_the_least_useful_card_of_its_full_ranking_r6_1():
    _CheckedGreedy.checked = 0
    for seed in range(8):
        players = [_CheckedGreedy, Expert] if seed % 2 else [Expert, _CheckedGreedy]
        play_game(players * 2, seed=seed)
        play_game([_CheckedGreedy] * 4, seed=100 + seed)
    assert _CheckedGreedy.checked > 500
