"""Rewards and hand ends over an episode: every hand's reward is paid once, with the info that marks the hand's end,
the games the other seats end before the learning seat decides included."""

import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

from canasta_sim.env import canasta_env
from canasta_sim.env.gym import CanastaGymEnv
from canasta_sim.errors import StrategyError

# Under greedy in every seat, the game of seed 636 has seat 3 go out on hand 1's third turn (side B 640, side A 100):
# seat 0, the dealer, has no decision in that hand.
EARLY_OUT_SEED = 636
EARLY_OUT_MARGIN = 100 - 640


def _greedy_seat_0(**options) -> CanastaGymEnv:
    return CanastaGymEnv(partner="greedy", opponents="greedy", seat=0, **options)


def test_a_hand_held_over_to_the_first_step_is_paid_even_when_that_action_is_illegal():
    """The hand the other seats finished before the learning seat's first decision was dropped when its first action
    was illegal: the step paid the penalty alone, so the episode's rewards missed the hand's margin."""
    env = _greedy_seat_0()
    observation, info = env.reset(seed=EARLY_OUT_SEED)
    assert observation["observation"][208] == 2  # hand 2: hand 1 ended before this seat's first decision
    refused = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(refused)
    assert terminated and info["illegal_action"] == refused
    assert reward == EARLY_OUT_MARGIN + env.illegal_reward
    assert reward - env.illegal_reward == info["scores"][0] - info["scores"][1]
    assert info["hand_over"] and [hand.hand_number for hand in info["hand_results"]] == [1]


@pytest.mark.parametrize(("options", "reward", "ended"), [
    ({"rules": {"target_score": 1}}, EARLY_OUT_MARGIN, "terminated"),
    ({"rules": {"target_score": 1}, "reward": "game"}, -1.0, "terminated"),
    ({"max_hands": 1}, EARLY_OUT_MARGIN, "truncated"),
])
def test_a_game_ended_before_the_learning_seats_first_decision_is_an_episode_of_one_step(options, reward, ended):
    """``reset`` raised ``RuntimeError`` when the other seats ended the game before the learning seat decided."""
    env = _greedy_seat_0(**options)
    observation, info = env.reset(seed=EARLY_OUT_SEED)
    assert observation["action_mask"].all() and env.action_masks().all()
    assert info["decision"] is None and info["scores"] == (100, 640) and info["winner"] == 1
    _, step_reward, terminated, truncated, info = env.step(5627)  # any action: none is played
    assert step_reward == reward and (terminated, truncated) == (ended == "terminated", ended == "truncated")
    assert info["hand_over"] and info["hand_results"][0].went_out_seat == 3 and info["scores"] == (100, 640)
    with pytest.raises(ValueError, match="the game is over; call reset"):
        env.step(0)
    observation, info = env.reset(seed=1)  # the next game is played as ever
    assert info["decision"] == "acquire" and not observation["action_mask"].all()


def test_a_vector_environment_resets_after_a_game_ended_before_the_first_decision():
    envs = SyncVectorEnv([lambda: _greedy_seat_0(rules={"target_score": 1})])
    observation, _ = envs.reset(seed=EARLY_OUT_SEED)
    _, reward, terminated, _, _ = envs.step(np.array([0]))
    assert reward[0] == EARLY_OUT_MARGIN and terminated[0]
    observation, *_ = envs.step(np.array([0]))  # next_step autoreset: a new game, seeded from the first
    assert not observation["action_mask"][0].all()
    envs.close()


@pytest.mark.timeout(60)
def test_gym_info_marks_every_hand_end_with_the_reward_it_pays():
    env = CanastaGymEnv(partner="random", opponents="random", seat=1, rules={"target_score": 1500})
    rng = np.random.default_rng(2)
    observation, info = env.reset(seed=8)
    assert (info["hand_over"], info["hand_results"]) == (False, ())  # every info has the fields, a vector's too
    hands, total = [], 0.0
    while True:
        observation, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        total += reward
        margins = [hand.sides[1].score - hand.sides[0].score for hand in info["hand_results"]]
        assert info["hand_over"] == bool(margins) and reward == sum(margins)
        hands += info["hand_results"]
        if terminated or truncated:
            break
    assert len(hands) > 1 and [hand.hand_number for hand in hands] == list(range(1, len(hands) + 1))
    assert hands[-1].totals_after == info["scores"] and total == info["scores"][1] - info["scores"][0]


@pytest.mark.timeout(60)
def test_pettingzoo_info_marks_each_agents_hand_ends_with_the_reward_they_pay():
    env = canasta_env(rules={"target_score": 1500})
    env.reset(seed=8)
    rng = np.random.default_rng(2)
    seen = {agent: [] for agent in env.possible_agents}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        side = env.possible_agents.index(agent) % 2
        margins = [hand.sides[side].score - hand.sides[1 - side].score for hand in info["hand_results"]]
        assert info["hand_over"] == bool(margins) and reward == sum(margins)
        seen[agent] += [hand.hand_number for hand in info["hand_results"]]
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert len(seen["seat_0"]) > 1 and all(numbers == seen["seat_0"] for numbers in seen.values())


def test_pettingzoo_keeps_an_agents_reward_and_hand_end_through_a_refused_action():
    """A refused action cleared the agent's reward before the mask refused it: retrying lost the hand's reward."""
    env = canasta_env(rules={"target_score": 5000})
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        observation, reward, _, _, info = env.last()
        if reward:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    refused = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="is not allowed now"):
        env.step(refused)
    assert env.last()[1] == reward and env.last()[4]["hand_over"] == info["hand_over"] is True



def test_a_strategy_failing_in_the_next_deal_leaves_no_early_end_to_report(tmp_path):
    """A game ended before the learning seat's first decision waits for its step; a reset whose deal a strategy's
    failure stops must not leave that end due, or the next step would report the old game instead of the failure."""
    source = tmp_path / "flaky.py"
    source.write_text("import random\n\nfrom canasta_sim.strategies import Greedy\n\n\nclass Flaky(Greedy):\n"
                      "    name = 'flaky'\n\n    def __init__(self, rng):\n        probe = random.Random()\n"
                      "        probe.setstate(rng.getstate())\n        if probe.random() < 0.3:\n"
                      "            raise RuntimeError('fails in some games')\n        super().__init__(rng)\n")
    env = CanastaGymEnv(partner="greedy", opponents=f"{source}:Flaky", rules={"target_score": 1})
    failing = next(seed for seed in range(100) if _fails(env, seed))
    observation, info = env.reset(seed=EARLY_OUT_SEED)  # greedy's game: Flaky is greedy in the games it plays
    assert info["decision"] is None and info["scores"] == (100, 640)
    with pytest.raises(StrategyError, match="fails in some games"):
        env.reset(seed=failing)
    with pytest.raises(ValueError, match="the strategy .* at seat [13] failed; call reset"):
        env.step(0)


def _fails(env: CanastaGymEnv, seed: int) -> bool:
    try:
        env.reset(seed=seed)
    except StrategyError:
        return True
    return False
