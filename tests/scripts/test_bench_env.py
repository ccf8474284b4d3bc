"""``scripts/bench_env.py`` counts a vector environment's steps and hands as the single environment's."""

from __future__ import annotations

import pytest
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from tests.helpers import script_module


@pytest.mark.timeout(60)
@pytest.mark.parametrize("vector_class", [SyncVectorEnv, AsyncVectorEnv], ids=lambda cls: cls.__name__)
def test_a_vector_of_one_counts_the_steps_and_hands_of_the_same_game_alone(vector_class):
    """Sub-environment 0 plays seed 0's game with the single environment's generator of actions: the same game, so
    the same actions and hands, in a worker process too."""
    module = script_module("bench_env")
    steps, hands, _ = module.gymnasium(1)
    games, vector_steps, vector_hands, _ = module.vectorised(1, 1, vector_class)
    assert (games, vector_steps, vector_hands) == (1, steps, hands)
