"""How fast the research environments step, beside the floor.

    python scripts/bench_env.py [--games 100] [--floor scripts/floor.py]

Plays ``--games`` games in each environment with masked-random agents (each picks uniformly among the
actions its mask allows, from its own seeded generator): the PettingZoo AEC environment with all four
seats learning, and the Gymnasium environment with seat 0 learning against random partner and opponents; and,
for comparison, the same games' deals played by the engine alone (``play_game`` with four ``random`` seats).
Prints steps per second (one step is one action: a compound move takes several), hands per second, and
the hands per second as a share of the floor read before and after (``--floor``; the environments run
the engine's own hand loop, so their share of the floor is comparable with ``scripts/bench.py``'s).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np
from bench import floor  # scripts/bench.py's reading of the floor (this script's folder is on the path)

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
    parser.add_argument("--floor", type=Path, default=ROOT / "scripts" / "floor.py")
    options = parser.parse_args()
    pettingzoo(1)  # the first game imports and builds what every later one reuses
    before = floor(FLOOR_SECONDS, options.floor)
    results = {"PettingZoo, four learning seats": pettingzoo(options.games),
               "Gymnasium, seat 0 learning": gymnasium(options.games),
               "the engine alone, four random seats": engine(options.games)}
    after = floor(FLOOR_SECONDS, options.floor)
    mean_floor = (before + after) / 2
    print(f"floor: {before:,.0f} hands/s before, {after:,.0f} after")
    for name, (steps, hands, seconds) in results.items():
        stepping = f"{steps:,} steps, " if steps else ""
        rate = f"{steps / seconds:,.0f} steps/s, " if steps else ""
        print(f"{name}: {options.games} games, {stepping}{hands} hands in {seconds:.2f} s: {rate}"
              f"{hands / seconds:,.1f} hands/s, {hands / seconds / mean_floor:.4f} of the floor")


if __name__ == "__main__":
    main()
