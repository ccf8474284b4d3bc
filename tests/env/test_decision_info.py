"""The Gymnasium environment's ``info["decision"]`` names the decision the observation's one-hot names (docs/env.md):
``take_extras`` while a take with extra melds is being built, as the observation says."""

import numpy as np
import pytest

from canasta_sim.env.actions import GROUP_BASE, TAKE_BASE
from canasta_sim.env.encoding import OBSERVATION_FIELDS
from canasta_sim.env.gym import CanastaGymEnv

_DECISIONS = ("wait", "acquire", "take_extras", "ask", "answer", "meld", "discard")


def _one_hot_decision(vector) -> str:
    offset = 0
    for name, length, *_ in OBSERVATION_FIELDS:
        if name == "decision":
            return _DECISIONS[int(np.flatnonzero(vector[offset:offset + length])[0])]
        offset += length
    raise AssertionError("the observation has no decision field")


@pytest.mark.timeout(60)
def test_info_decision_agrees_with_the_observations_one_hot_while_a_take_with_extras_is_built():
    # info["decision"] said acquire where the one-hot said take_extras.
    env = CanastaGymEnv(partner="random", opponents="random", rules={"target_score": 50})
    rng = np.random.default_rng(0)
    observation, info = env.reset(seed=0)
    seen = set()
    for _ in range(3000):
        shown = _one_hot_decision(observation["observation"])
        assert shown == (info["decision"] or "wait")
        seen.add(shown)
        if "take_extras" in seen:
            return
        allowed = np.flatnonzero(observation["action_mask"])
        takes = allowed[(allowed >= TAKE_BASE) & (allowed < GROUP_BASE)]  # a take is the way into take_extras
        observation, _, terminated, truncated, info = env.step(int(rng.choice(takes if len(takes) else allowed)))
        if terminated or truncated:
            observation, info = env.reset()
    pytest.fail(f"no take with extra melds was begun; decisions seen: {sorted(seen)}")
