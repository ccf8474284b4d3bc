"""The observation space's bounds: derived from the rules and the engine's caps, and never passed by a legal game."""

import random

import numpy as np
import pytest

from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.state import MAX_TURNS_PER_HAND
from canasta_sim.env import canasta_env
from canasta_sim.env.encoding import (
    OBSERVATION_FIELDS,
    hand_score_bounds,
    observation_bounds,
    score_bounds,
)
from canasta_sim.env.gym import CanastaGymEnv

# Each field's first entry in the observation vector.
START = {}
_at = 0
for _name, _length, *_ in OBSERVATION_FIELDS:
    START[_name] = _at
    _at += _length

# Rule sets whose bounds differ: the default bonuses, another tie rule, a table of other minimums, and bonuses and red
# 3s that count against a side (R11.2, R14.1c, R14.1d, R15.3, R10.2 through their keys, docs/rules.md §17).
RULE_SETS = {
    "default": {"target_score": 50},
    "draw": {"target_score": 50, "tie_rule": "draw"},
    "penalties": {"target_score": 50, "natural_canasta_bonus": -500, "mixed_canasta_bonus": -300,
                  "going_out_bonus": -100, "concealed_going_out_bonus": 900, "red_three_value": -100,
                  "all_four_red_threes_total": 2000, "initial_meld_table": "-inf:0,0:400"},
}


def test_the_bounds_come_from_the_rules_and_the_engines_caps_not_a_guess():
    """R10.2's minimums, R15's hand cap and the turn cap bound their fields exactly; the scores by a side's hand
    score times the hands a game may hold (the old bound was 10^9 for all five fields)."""
    rules = Rules.from_mapping({"initial_meld_table": "-inf:15,0:50,1500:90,3000:135"})
    low, high = observation_bounds(rules, max_hands=7)
    for name, expected in [("initial_requirements", (0, 135)), ("requirements", (0, 135)), ("hand_number", (1, 7)),
                           ("turn_count", (0, MAX_TURNS_PER_HAND)), ("scores", score_bounds(rules, 7))]:
        at = START[name]
        assert (low[at], high[at]) == expected, name
    lowest, highest = hand_score_bounds(rules)
    # Totals start at 0: six hands before the seventh, each at least the lowest; a tie at the target may go on.
    assert score_bounds(rules, 7) == (6 * lowest, rules.target_score - 1 + 6 * highest)
    assert score_bounds(Rules(tie_rule="draw"), 7) == (6 * lowest, DEFAULT_RULES.target_score - 1)
    # The table in OBSERVATION_FIELDS is the default rules' and hand cap's, as the environments' by default.
    default_low, default_high = observation_bounds()
    assert (default_low[START["hand_number"]], default_high[START["hand_number"]]) == (1, MAX_HANDS_PER_GAME)
    assert np.array_equal(default_low, np.concatenate([np.full(length, low, np.float32)
                                                       for _, length, low, *_ in OBSERVATION_FIELDS]))
    assert np.array_equal(default_high, np.concatenate([np.full(length, high, np.float32)
                                                        for _, length, _, high, _ in OBSERVATION_FIELDS]))


def test_the_environments_spaces_take_their_rules_and_hand_cap():
    options = RULE_SETS["penalties"]
    env = canasta_env(rules=options, max_hands=3)
    gym_env = CanastaGymEnv(partner="random", opponents="random", rules=options, max_hands=3)
    low, high = observation_bounds(Rules.from_mapping(options), max_hands=3)
    for space in (env.observation_space("seat_0")["observation"], gym_env.observation_space["observation"]):
        assert np.array_equal(space.low, low) and np.array_equal(space.high, high)
    assert (high[START["requirements"]], high[START["hand_number"]]) == (400, 3)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("name", "target", "max_hands", "games"),
    # No default rules to 50 points: those 100 games are the draw rule set's (no game of them is tied at the target),
    # their observations the same bytes, and the draw rule set's space lies inside the default rules' (R15.3).
    [("draw", 50, MAX_HANDS_PER_GAME, 100), ("penalties", 50, 3, 30),
     ("default", 5000, 2, 10), ("draw", 5000, 2, 10), ("penalties", 5000, 2, 10)],
)
def test_every_observation_of_masked_random_games_lies_in_the_space(name, target, max_hands, games):
    """Games of uniformly random masked actions under each rule set: every seat's observation at every step lies in
    the space, and each hand's side scores within a hand's bounds; a cap of 2 hands (with a target out of reach)
    reaches its bound.  Under penalties random play seldom reaches even 50: 3 hands cut such a game short."""
    env = canasta_env(rules={**RULE_SETS[name], "target_score": target}, max_hands=max_hands)
    space = env.observation_space("seat_0")
    lowest, highest = hand_score_bounds(env.rules)
    rng = random.Random(31)
    steps = 0
    last_hand = 0
    for game in range(games):
        env.reset(seed=game)
        seen = []
        for _ in env.agent_iter():
            seen.extend((seat, env.observe(seat)) for seat in env.possible_agents)
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            allowed = np.flatnonzero(observation["action_mask"])
            env.step(int(allowed[rng.randrange(len(allowed))]))
            steps += 1
            last_hand = max(last_hand, int(observation["observation"][START["hand_number"]]))
        if not _all_in_space(space, [observation for _, observation in seen]):
            outside = [(game, seat, _outside(space, observation)) for seat, observation in seen
                       if not space.contains(observation)]
            assert not outside, outside[0]
        for hand in env.driver.hands:
            assert all(lowest <= side.score <= highest for side in hand.sides), hand
    assert steps > 1000
    if max_hands == 2:
        assert last_hand == 2


@pytest.mark.timeout(60)
def test_the_gymnasium_environments_observations_lie_in_its_space_to_the_episodes_end():
    env = CanastaGymEnv(partner="random", opponents="random", rules=RULE_SETS["penalties"], max_hands=2)
    rng = np.random.default_rng(5)
    steps = 0
    for game in range(20):
        observation, _ = env.reset(seed=game)
        assert env.observation_space.contains(observation)
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, _, terminated, truncated, _ = env.step(action)
            assert env.observation_space.contains(observation), _outside(env.observation_space, observation)
            steps += 1
    assert steps > 500


def _all_in_space(space, observations: list) -> bool:
    """Whether every one of ``observations`` lies in ``space`` (a Dict of Boxes) as ``space.contains`` finds each: its
    keys, and each value's type, dtype and shape, then the values of a game against the bounds at once (one
    observation at a time, ``space.contains`` took a third of this test's time)."""
    if not all(isinstance(observation, dict) and observation.keys() == space.spaces.keys()
               for observation in observations):
        return False
    for key, box in space.spaces.items():
        values = [observation[key] for observation in observations]
        if not all(isinstance(value, np.ndarray) and value.shape == box.shape for value in values):
            return False
        if not all(np.can_cast(dtype, box.dtype) for dtype in {value.dtype for value in values}):
            return False
        stacked = np.stack(values)
        if not (np.all(stacked >= box.low) and np.all(stacked <= box.high)):
            return False
    return True


def _outside(space, observation) -> list[str]:
    """The fields of ``observation`` outside ``space``, by name, for a failure's message."""
    values = observation["observation"]
    box = space["observation"]
    return [name for name, at in START.items()
            if not box.low[at] <= values[at] <= box.high[at]]
