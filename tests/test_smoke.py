"""Smoke tests: whole games end at the target score with the score identity intact."""

from canasta_sim import play_game
from canasta_sim.strategies import Greedy, RandomPlay
from tests.helpers import score_from_parts


def test_greedy_self_play_reaches_target_r15_1():
    result = play_game([Greedy] * 4, seed=3)
    assert result.termination == "target"
    assert max(result.scores) >= 5000
    assert result.winner == (0 if result.scores[0] > result.scores[1] else 1)


def test_score_identity_r14_1_over_random_games():
    for seed in range(5):
        result = play_game([RandomPlay, Greedy, RandomPlay, Greedy], seed=seed)
        for hand in result.hands:
            for side in hand.sides:
                assert side.score == score_from_parts(side)
