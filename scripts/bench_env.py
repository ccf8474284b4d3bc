"""How fast the research environments step, beside the floor.

    python scripts/bench_env.py [--games 100] [--vector 8] [--floor scripts/floor.py]

Plays ``--games`` games in each environment with masked-random agents (each picks uniformly among the
actions its mask allows, from its own seeded generator): the PettingZoo AEC environment with all four
seats learning, and the Gymnasium environment with seat 0 learning against random partner and opponents, alone and
as ``--vector`` sub-environments of Gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` (one worker process each;
``--vector 0`` leaves them out); and, for comparison, the same games' deals played by the engine alone (``play_game``
with four ``random`` seats).
Prints steps per second (one step is one action: a compound move takes several), hands per second, and
the hands per second as a share of the floor read before and after (``--floor``; the environments run
the engine's own hand loop, so their share of the floor is comparable with ``scripts/bench.py``'s).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from pathlib import Path

import numpy as np
from bench import floor  # scripts/bench.py's reading of the floor (this script's folder is on the path)
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from canasta_sim.core.engine import play_game
from canasta_sim.env import canasta_env
from canasta_sim.env.gym import CanastaGymEnv
from canasta_sim.strategies import RandomPlay

ROOT = Path(__file__).resolve().parent.parent
FLOOR_SECONDS = 2.0  # each reading of the floor


def _pick(mask: np.ndarray, rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(mask).tolist())


def pettingzoo(games: int) -> tuple[int, int, float]:
    """Steps, hands and seconds of ``games`` PettingZoo games (seeds 0 to games - 1)."""
    env = canasta_env()
    rng = random.Random(1)
    steps = hands = 0
    start = time.perf_counter()
    for seed in range(games):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _pick(observation["action_mask"], rng))
            steps += 1
        hands += len(env.driver.hands)
    return steps, hands, time.perf_counter() - start


def gymnasium(games: int) -> tuple[int, int, float]:
    """Steps, hands and seconds of ``games`` Gymnasium games, seat 0 learning among random players."""
    env = CanastaGymEnv(partner="random", opponents="random")
    rng = random.Random(1)
    steps = hands = 0
    start = time.perf_counter()
    for seed in range(games):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(_pick(info["action_mask"], rng))
            done = terminated or truncated
            steps += 1
        hands += len(env.driver.hands)
    return steps, hands, time.perf_counter() - start


def vectorised(games: int, count: int, vector_class) -> tuple[int, int, int, float]:
    """Games, steps, hands and seconds of a vector environment of ``count`` Gymnasium environments (seat 0 learning
    among random players) until ``games`` episodes or more have ended (the first ``reset`` deals seeds 0 to
    ``count - 1``); the steps are the actions played, not the vector's steps: the step after an episode's end, where
    the default autoreset plays nothing, is not one."""
    make = functools.partial(CanastaGymEnv, partner="random", opponents="random")
    envs = vector_class([make] * count)  # the workers start before the clock does: a learner starts them once
    rng = random.Random(1)
    steps = hands = ended = 0
    resetting = np.zeros(count, bool)
    start = time.perf_counter()
    observation, _ = envs.reset(seed=0)
    while ended < games:
        actions = np.array([_pick(mask, rng) for mask in observation["action_mask"]])
        observation, _, terminated, truncated, info = envs.step(actions)
        steps += int(count - resetting.sum())
        hands += sum(len(results) for results in info["hand_results"])
        resetting = terminated | truncated
        ended += int(resetting.sum())
    seconds = time.perf_counter() - start
    envs.close()
    return ended, steps, hands, seconds


def engine(games: int) -> tuple[int, int, float]:
    """Decisions (no steps: 0), hands and seconds of ``games`` games of the engine alone, four random seats."""
    hands = 0
    start = time.perf_counter()
    for seed in range(games):
        hands += len(play_game([RandomPlay] * 4, seed=seed).hands)
    return 0, hands, time.perf_counter() - start


def main() -> None:
    """Parse the options, time both environments between two readings of the floor, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--vector", type=int, default=8, help="sub-environments of the vector environments (0: none)")
    parser.add_argument("--floor", type=Path, default=ROOT / "scripts" / "floor.py")
    options = parser.parse_args()
    pettingzoo(1)  # the first game imports and builds what every later one reuses
    before = floor(FLOOR_SECONDS, options.floor)
    results = {"PettingZoo, four learning seats": (options.games, *pettingzoo(options.games)),
               "Gymnasium, seat 0 learning": (options.games, *gymnasium(options.games))}
    if options.vector > 0:
        for vector_class in (SyncVectorEnv, AsyncVectorEnv):
            name = f"Gymnasium's {vector_class.__name__} of {options.vector}, seat 0 learning"
            results[name] = vectorised(options.games, options.vector, vector_class)
    results["the engine alone, four random seats"] = (options.games, *engine(options.games))
    after = floor(FLOOR_SECONDS, options.floor)
    mean_floor = (before + after) / 2
    print(f"floor: {before:,.0f} hands/s before, {after:,.0f} after")
    for name, (games, steps, hands, seconds) in results.items():
        stepping = f"{steps:,} steps, " if steps else ""
        rate = f"{steps / seconds:,.0f} steps/s, " if steps else ""
        print(f"{name}: {games} games, {stepping}{hands} hands in {seconds:.2f} s: {rate}"
              f"{hands / seconds:,.1f} hands/s, {hands / seconds / mean_floor:.4f} of the floor")


if __name__ == "__main__":
    main()
