"""The Gymnasium environment as Gymnasium's own tools use it: vector environments and their autoreset."""

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from canasta_sim.env.gym import CanastaGymEnv

SHORT = {"target_score": 50}


def _short_game() -> CanastaGymEnv:
    return CanastaGymEnv(partner="random", opponents="random", rules=SHORT)


def _play_to_the_end(env: CanastaGymEnv, seed: int):
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    while True:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return observation, info


@pytest.mark.timeout(60)
def test_the_mask_at_an_episodes_end_allows_every_action_and_none_is_played():
    env = _short_game()
    observation, info = _play_to_the_end(env, seed=4)
    assert observation["action_mask"].all() and info["action_mask"].all()
    assert observation["action_mask"].dtype == np.int8
    assert env.action_masks().all() and env.action_masks().dtype == bool
    assert info["decision"] is None and info["termination"] == "target"
    with pytest.raises(ValueError, match="the game is over; call reset"):
        env.step(0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=lambda mode: mode.value)
def test_a_vector_environment_always_gives_a_mask_a_masked_policy_can_draw_from(mode):
    """Gymnasium's vector environments ask every sub-environment for an action at every step, the step after an
    episode's end included (``next_step`` autoreset ignores it and resets); a mask allowing nothing there left a
    masked sampler nothing to draw from, and ``action_masks()`` raised."""
    envs = SyncVectorEnv([_short_game, _short_game], autoreset_mode=mode)
    observation, info = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 4:
        masks = observation["action_mask"]
        assert masks.any(axis=1).all()
        np.testing.assert_array_equal(info["action_mask"], masks)
        np.testing.assert_array_equal(np.stack(envs.call("action_masks")), masks.astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observation, _, terminated, truncated, info = envs.step(actions)
        for index in np.flatnonzero(terminated | truncated):
            ended += 1
            if mode == AutoresetMode.SAME_STEP:  # the observation is the next game's; the last one is kept aside
                assert info["final_obs"][index]["action_mask"].all()
                assert not observation["action_mask"][index].all()
            else:
                assert observation["action_mask"][index].all()
    envs.close()
