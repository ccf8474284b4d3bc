"""The view's quick queries answer exactly what its dicts and the hand state answer.

``SeatView.meld_size`` reads one rank's meld and ``melded_ranks`` a side's melded ranks as bits without building the
``melds`` dict, and ``hand_size`` the hand's size without its tuple: at every decision of whole games, from greedy's
seats, on its own view and on one rebuilt from a message (``MessageView``, as an isolated bot sees it), they must
agree with ``melds(side)`` for every rank of both sides and with ``sum(hand)``.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import KIND_COUNT, parse_kind
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Meld, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.view import SeatView
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.messages import MessageView, view_message
from canasta_sim.strategies.greedy import Greedy
from tests.helpers import position

NINE, QUEEN = parse_kind("9"), parse_kind("Q")


def _check(view) -> None:
    for side in (0, 1):
        table = view.melds(side)
        for rank in range(KIND_COUNT):
            assert view.meld_size(side, rank) == (sum(table[rank]) if rank in table else 0)
            assert view.melded_ranks(side) >> rank & 1 == (rank in table)
        assert view.melded_ranks(side) >> KIND_COUNT == 0
    assert view.hand_size == sum(view.hand)


class _CheckingGreedy(Greedy):
    """Greedy that checks the quick queries at each decision, on its own view and on one rebuilt from a message."""

    checked = 0

    def _check_both(self, view) -> None:
        _check(view)
        _check(MessageView(view_message(view), view.rules))
        _CheckingGreedy.checked += 1

    def choose_acquire(self, view):
        self._check_both(view)
        return super().choose_acquire(view)

    def choose_meld(self, view):
        self._check_both(view)
        return super().choose_meld(view)

    def choose_discard(self, view):
        self._check_both(view)
        return super().choose_discard(view)


@pytest.mark.timeout(120)
def test_quick_queries_agree_with_the_melds_and_hand_throughout_games_wild_card_melds_included():
    _CheckingGreedy.checked = 0
    expert = load_strategy("expert")
    for seed in range(3):
        play_game([_CheckingGreedy, expert, _CheckingGreedy, expert], seed=18_200 + seed)
    wild = Rules(allow_wild_only_melds=True)
    play_game([_CheckingGreedy, expert, _CheckingGreedy, expert], seed=18_210, rules=wild)
    assert _CheckingGreedy.checked > 300


def test_meld_size_follows_a_meld():
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8 8 8 8 8"}, pile="4 6", phase="play")
    view = SeatView(state, 0, (0, 0))
    assert view.meld_size(0, QUEEN) == 3 and view.meld_size(0, NINE) == 0
    assert view.meld_size(1, parse_kind("8")) == 7
    state.apply(Meld((MeldGroup.of(NINE, 3),)))
    assert view.meld_size(0, NINE) == 3 and view.meld_size(0, QUEEN) == 3


def test_melded_ranks_and_hand_size_follow_a_meld():
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8 8 8 8 8"}, pile="4 6", phase="play")
    view = SeatView(state, 0, (0, 0))
    assert view.melded_ranks(0) == 1 << QUEEN and view.melded_ranks(1) == 1 << parse_kind("8")
    assert view.hand_size == 7
    state.apply(Meld((MeldGroup.of(NINE, 3),)))
    assert view.melded_ranks(0) == 1 << QUEEN | 1 << NINE and view.hand_size == 4


@pytest.mark.parametrize("side", [2, -1])
def test_melded_ranks_of_no_side_is_a_clear_error(side):
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q"}, pile="4 6", phase="play")
    with pytest.raises(ValueError, match="side must be 0 or 1"):
        SeatView(state, 0, (0, 0)).melded_ranks(side)


@pytest.mark.parametrize(("side", "rank", "message"), [
    (2, NINE, "side must be 0 or 1"), (-1, NINE, "side must be 0 or 1"),
    (0, KIND_COUNT, "rank must be a kind"), (1, -1, "rank must be a kind"),
])
def test_meld_size_of_no_side_or_rank_is_a_clear_error(side, rank, message):
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q"}, pile="4 6", phase="play")
    with pytest.raises(ValueError, match=message):
        SeatView(state, 0, (0, 0)).meld_size(side, rank)


def test_meld_candidates_takes_largest_first_by_position_or_by_name():
    state = position(hands={0: "9 9 9 K K 5 7 2"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 6", phase="play")
    view = SeatView(state, 0, (0, 0))
    assert list(view.meld_candidates(True)) == list(view.meld_candidates(largest_first=True))
    assert list(view.meld_candidates()) == list(view.meld_candidates(largest_first=False))
