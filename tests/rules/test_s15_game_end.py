"""docs/rules.md §15: the end of the game (R15.1-R15.3, D16).

The game loop's handling of totals is tested with scripted running totals: the real
scoring runs, and only each hand's ``totals_after`` is replaced by the script's.
"""

import pytest

import canasta_sim.core.engine
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import END_RED_THREE_LAST_CARD, END_STOCK_EXHAUSTED, END_WENT_OUT
from canasta_sim.strategies import Greedy, RandomPlay


@pytest.fixture
def scripted_totals(monkeypatch):
    """Return a function that makes the hands of the next game end with the given running totals."""

    def install(totals):
        script = iter(totals)
        real = canasta_sim.core.engine.score_hand

        def scripted(state):
            return real(state).replace(totals_after=next(script))

        monkeypatch.setattr(canasta_sim.core.engine, "score_hand", scripted)

    return install


def test_r15_1_game_ends_when_a_side_reaches_5000_higher_total_wins(scripted_totals):
    scripted_totals([(1200, 900), (4990, 4995), (5200, 4900)])
    result = play_game([Greedy] * 4, seed=1)
    assert len(result.hands) == 3 and result.scores == (5200, 4900)
    assert result.winner == 0 and result.termination == "target"


def test_r15_1_both_over_target_higher_wins(scripted_totals):
    scripted_totals([(5100, 5300)])
    result = play_game([Greedy] * 4, seed=1)
    assert result.winner == 1 and len(result.hands) == 1


def test_r15_1_real_game_to_a_lower_target():
    result = play_game([RandomPlay] * 4, seed=4, rules=Rules(target_score=2000))
    assert max(result.scores) >= 2000
    assert all(max(hand.totals_after) < 2000 for hand in result.hands[:-1])
    assert result.winner == (0 if result.scores[0] > result.scores[1] else 1)


def test_r15_2_a_hand_is_always_played_to_its_end():
    result = play_game([Greedy] * 4, seed=2, rules=Rules(target_score=5))
    assert len(result.hands) == 1
    assert result.hands[0].end_reason in (END_WENT_OUT, END_STOCK_EXHAUSTED, END_RED_THREE_LAST_CARD)


def test_r15_3_d16_tie_plays_another_hand(scripted_totals):
    scripted_totals([(5000, 5000), (5100, 5150)])
    result = play_game([Greedy] * 4, seed=1)
    assert len(result.hands) == 2 and result.winner == 1


def test_r15_3_tie_rule_draw(scripted_totals):
    scripted_totals([(5000, 5000)])
    result = play_game([Greedy] * 4, seed=1, rules=Rules(tie_rule="draw"))
    assert len(result.hands) == 1 and result.winner is None and result.termination == "target"
