"""Measure how often one strategy beats another, with sides alternated, over many seeded games.

Each deal is played twice with the sides swapped (game ``2k`` puts A on side A, game ``2k+1`` puts
it on side B, both from the same seed), so the luck of the cards cancels out as far as it can.
Games run in worker processes that load both strategies from their specs, so a user's file works
whatever the process start method.  The result is the first strategy's win rate with a 95% Wilson
score interval; a drawn game counts as half a win.

Usage::

    python scripts/strength.py expert greedy --games 4000 --workers 2
    python scripts/strength.py expert:aggression=0.8 expert --games 2000 --rules target_score=3000
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.engine import derive_seed, play_game  # noqa: E402
from sim.errors import CanastaError  # noqa: E402
from sim.loader import load_strategy  # noqa: E402
from sim.rules import Rules  # noqa: E402

_players: tuple = ()
_rules: Rules | None = None


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval of a proportion (95% for ``z = 1.96``).

    >>> low, high = wilson_interval(60, 100)
    >>> round(low, 3), round(high, 3)
    (0.502, 0.691)
    """
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _start_worker(first: str, second: str, rule_options: tuple[str, ...]) -> None:
    global _players, _rules
    _players = (load_strategy(first), load_strategy(second))
    _rules = Rules.from_options(rule_options)


def _play(task: tuple[int, int]) -> tuple[float, int, int, float]:
    """Play game ``index`` of the run; return (the first strategy's points, hands, hands gone out, seconds)."""
    run_seed, index = task
    swapped = index % 2
    first, second = _players
    side_a, side_b = (second, first) if swapped else (first, second)
    seed = derive_seed(run_seed, f"deal{index // 2}")
    start = time.perf_counter()
    result = play_game(
        [side_a, side_b, side_a, side_b],
        seed=seed,
        rules=_rules,
        names=[side_a.spec, side_b.spec, side_a.spec, side_b.spec],
    )
    elapsed = time.perf_counter() - start
    first_side = 1 if swapped else 0
    if result.winner is None:
        points = 0.5
    else:
        points = 1.0 if result.winner == first_side else 0.0
    gone_out = sum(1 for hand in result.hands if hand.end_reason == "went_out")
    return points, len(result.hands), gone_out, elapsed


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print one summary; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="strategy spec whose win rate is measured")
    parser.add_argument("second", help="strategy spec it plays against")
    parser.add_argument("--games", type=int, default=2000, help="games to play (rounded up to even)")
    parser.add_argument("--seed", type=int, default=0, help="run seed; deal k uses derive_seed(seed, 'deal<k>')")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (1 plays in this process)")
    parser.add_argument("--rules", action="append", default=[], metavar="KEY=VALUE", help="rule-set option")
    arguments = parser.parse_args(argv)
    try:
        _start_worker(arguments.first, arguments.second, tuple(arguments.rules))
    except CanastaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    games = arguments.games + arguments.games % 2
    tasks = [(arguments.seed, index) for index in range(games)]
    start = time.perf_counter()
    if arguments.workers <= 1:
        results = [_play(task) for task in tasks]
    else:
        with multiprocessing.Pool(
            arguments.workers,
            initializer=_start_worker,
            initargs=(arguments.first, arguments.second, tuple(arguments.rules)),
        ) as pool:
            results = pool.map(_play, tasks, chunksize=max(1, games // (arguments.workers * 20)))
    wall = time.perf_counter() - start
    points = sum(result[0] for result in results)
    hands = [result[1] for result in results]
    gone_out = sum(result[2] for result in results)
    low, high = wilson_interval(points, games)
    print(
        f"{arguments.first} vs {arguments.second}: {games} games, win rate {points / games:.3f} "
        f"[95% CI {low:.3f}-{high:.3f}]"
    )
    typical = sum(1 for count in hands if 4 <= count <= 9) / len(hands)
    print(
        f"hands/game mean {statistics.mean(hands):.2f} (min {min(hands)}, max {max(hands)}, "
        f"{typical:.0%} of games 4-9), hands ended by going out {gone_out / sum(hands):.1%}, "
        f"{1000 * statistics.mean(result[3] for result in results):.1f} ms/game, wall {wall:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
