"""The fingerprint's control part (HandState.control): whose turn it is and what governs it, read in one call,
and a change to it from strategy code charged to the seat as tampering."""

from __future__ import annotations

import random

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.fingerprint import GameFingerprint
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.state import HandState
from canasta_sim.errors import StrategyError
from canasta_sim.strategies import Greedy


def test_control_is_the_seat_the_phase_the_freezers_the_rules_the_requirements_the_scores_and_the_dealer():
    state = HandState.deal(DEFAULT_RULES, random.Random(4), dealer=2, scores=(1200, 300), hand_number=3)
    expected = (state.seat, state.phase, state.pile_freezers, state.rules, state.requirements, state.scores_before,
                state.dealer)
    assert state.control() == expected
    fingerprint = GameFingerprint(state)
    assert fingerprint.control == expected
    assert fingerprint.changed() == ""
    state.dealer = 1
    assert fingerprint.changed() == "whose turn it is, the phase, the rules, the scores or the meld requirements"


class _MovesTheDealer(Greedy):
    """Changes who dealt (part of what governs the hand) when it discards in the second hand."""

    def choose_discard(self, view):
        state = view._state
        if state.hand_number == 2:
            state.dealer = (state.dealer + 1) % 4
        return super().choose_discard(view)


@pytest.mark.timeout(60)
def test_a_change_to_whose_deal_it_is_is_tampering_charged_to_the_seat():
    with pytest.raises(StrategyError) as caught:
        play_game([Greedy, _MovesTheDealer, Greedy, Greedy], seed=2, rules=Rules(target_score=5000))
    assert caught.value.reason == "tampering" and caught.value.seat == 1
