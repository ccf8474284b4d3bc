"""The discard listing lists exactly the discards ``can`` accepts, in the same order (R6.1, R6.3, R12, R13.1).

``legal.legal_discards`` lists every kind held without a check per kind while a card stays in hand after the
discard and no yes obliges going out; otherwise (the last card, a yes, a red 3 as the last stock card) it checks
each.  Here it is compared, at every discard decision of seeded games and in the positions where the checks
decide, with the long way: each kind held, highest first, kept when ``can`` accepts its discard.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import KIND_COUNT, parse_kind
from canasta_sim.core.engine import play_game
from canasta_sim.core.legal import legal_discards
from canasta_sim.core.moves import Answer, Ask, Discard
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.helpers import apply_all, position


def _long_way(state) -> list[Discard]:
    hand = state.hands[state.seat]
    return [Discard(kind) for kind in range(KIND_COUNT - 1, -1, -1) if hand[kind] and state.is_legal(Discard(kind))]


class _Comparing(RandomPlay):
    """Random play that compares the listing with the long way at each of its discard decisions."""

    compared: list[bool] = []

    def choose_discard(self, view):
        state = view._state
        _Comparing.compared.append(list(view.legal_discards()) == _long_way(state))
        return super().choose_discard(view)


@pytest.mark.timeout(120)
def test_the_discard_listing_matches_the_long_way_through_games_r6_1_r12():
    _Comparing.compared = []
    for seed in range(4):
        play_game([_Comparing, Greedy, _Comparing, Greedy], seed=31_000 + seed)
    assert len(_Comparing.compared) > 100 and all(_Comparing.compared)


def test_the_last_card_goes_only_with_a_canasta_r12_1():
    state = position(hands={0: "9"}, melds={0: "K K K"}, seat=0, phase=PLAY)
    assert list(legal_discards(state)) == _long_way(state) == []
    state = position(hands={0: "9"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    assert list(legal_discards(state)) == _long_way(state) == [Discard(parse_kind("9"))]


def test_a_yes_obliges_going_out_r12_5():
    state = position(hands={0: "9 9 9 5 5 5 7"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    apply_all(state, Ask(), Answer(True))
    assert state.answer is True
    assert list(legal_discards(state)) == _long_way(state) == []  # six cards would stay: not out
    apply_all(state, "meld 9 9 9")
    assert list(legal_discards(state)) == _long_way(state) == []
    apply_all(state, "meld 5 5 5")
    assert list(legal_discards(state)) == _long_way(state) == [Discard(parse_kind("7"))]


def test_no_discard_after_a_red_three_as_the_last_stock_card_r13_1():
    state = position(Rules(last_card_red_three="meld_no_discard"), hands={0: "5 5 5 8 9", 2: ""},
                     melds={0: "K K K; 8 8 8"}, stock_top="3r", stock_size=1, red_threes={1: 3}, seat=0)
    apply_all(state, "draw")
    assert state.phase == PLAY and state.must_stop
    assert list(legal_discards(state)) == _long_way(state) == []


def test_the_view_lists_nothing_on_another_seats_turn_r2_4():
    state = position(hands={0: "9 9 5", 1: "7 7 4"}, melds={0: "K K K"}, seat=0, phase=PLAY)
    assert list(SeatView(state, 1, (0, 0)).legal_discards()) == []
    assert list(SeatView(state, 0, (0, 0)).legal_discards()) == [Discard(parse_kind("9")), Discard(parse_kind("5"))]
