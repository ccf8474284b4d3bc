"""What playing games side by side costs by itself, with no bot process and no message at all.

``python scripts/interleave_cost.py [--games 1000] [--widths 1,8,32,128] [--rounds 3] [--floor PATH]``
plays the same games of expert against greedy (sides alternated, seeds from 3,000,000, as
``scripts/bench_isolation.py`` plays them) in-process, in rounds, each width in turn (so that the machine's
drift falls on all of them alike):

* width 1: one game after another, as ``run`` plays in-process strategies;
* width W: W games at once, each a greenlet, the game giving way to the next at each of expert's acquire
  decisions, as a worker playing bots side by side gives way at each request (one a turn,
  ``docs/protocol.md``) and resumes the games in turn.

It prints the CPU milliseconds a game at each width (the median of the rounds) and its ratio to width 1, and
a digest of the games' results, the same at every width: only the order in which the games' steps run differs.
Last, in one more pass one at a time, the share of a game spent in expert's decisions (each timed on the
clock, less the timer's own cost): the part of the game a worker hands to ``isolated:expert``'s processes,
the rest (the engine and greedy) staying in the worker.

Nothing is sent anywhere, so the extra time at width W is what holding W games in memory at once and
switching between them costs: each game's state, players and stack are cold in the caches when it resumes.
A worker playing ``isolated:`` bots pays it on top of the messages (``docs/performance.md``, isolation).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import statistics
import sys
import time
from pathlib import Path

import greenlet

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.arbiter import trust_builtin_strategies  # noqa: E402
from canasta_sim.core.engine import play_game  # noqa: E402
from canasta_sim.plugins.loader import load_strategy  # noqa: E402
from canasta_sim.plugins.server import settle_collector  # noqa: E402

FIRST_SEED = 3_000_000


class _Schedule:
    """Round-robin over the games of one width: a game's greenlet gives way with :meth:`give_way`."""

    def __init__(self) -> None:
        self.hub = greenlet.getcurrent()
        self.ready: collections.deque = collections.deque()

    def give_way(self) -> None:
        self.ready.append(greenlet.getcurrent())
        self.hub.switch()


def _players(expert: type, greedy: type, game: int) -> list[type]:
    return [expert, greedy, expert, greedy] if game % 2 == 0 else [greedy, expert, greedy, expert]


def play_width(width: int, games: int) -> tuple[float, str]:
    """Play ``games`` games ``width`` at once; return CPU seconds a game and a digest of the results."""
    expert = load_strategy("expert").cls
    greedy = load_strategy("greedy").cls
    results: dict[int, tuple] = {}
    if width <= 1:
        start = time.process_time()
        for game in range(games):
            results[game] = tuple(play_game(_players(expert, greedy, game), seed=FIRST_SEED + game).scores)
        seconds = time.process_time() - start
    else:
        schedule = _Schedule()

        class GivingWay(expert):
            """Expert, giving way to the other games before each acquire decision (its moves are expert's)."""

            def choose_acquire(self, view):
                schedule.give_way()
                return super().choose_acquire(view)

        GivingWay.__name__ = GivingWay.__qualname__ = expert.__name__
        trust_builtin_strategies([GivingWay])  # checked as the built-in it is, not as a user's strategy
        pending = iter(range(games))

        def start_next() -> None:
            game = next(pending, None)
            if game is not None:
                def play(game: int = game) -> None:
                    results[game] = tuple(
                        play_game(_players(GivingWay, greedy, game), seed=FIRST_SEED + game).scores)

                schedule.ready.append(greenlet.greenlet(play, parent=schedule.hub))

        start = time.process_time()
        for _ in range(width):
            start_next()
        while schedule.ready:
            game = schedule.ready.popleft()
            game.switch()
            if game.dead:
                start_next()
        seconds = time.process_time() - start
    digest = hashlib.sha256(repr([results[game] for game in range(games)]).encode()).hexdigest()[:16]
    return seconds / games, digest


def expert_share(games: int) -> tuple[float, float]:
    """Seconds a game on the clock, one at a time, and the seconds of it spent in expert's decisions."""
    expert = load_strategy("expert").cls
    greedy = load_strategy("greedy").cls
    clock = time.perf_counter
    spent = [0.0, 0]

    def timed(name: str):
        decide = getattr(expert, name)

        def method(self, view):
            start = clock()
            value = decide(self, view)
            spent[0] += clock() - start
            spent[1] += 1
            return value

        return method

    decisions = ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard")
    timed_expert = type(expert.__name__, (expert,), {name: timed(name) for name in decisions})
    trust_builtin_strategies([timed_expert])
    start = clock()
    for game in range(games):
        play_game(_players(timed_expert, greedy, game), seed=FIRST_SEED + game)
    total = clock() - start
    start = clock()
    for _ in range(spent[1]):  # the timer's own cost: one pair of readings per decision
        clock()
        clock()
    timer = clock() - start
    return total / games, max(0.0, spent[0] - timer / 2) / games


def main(argv: list[str] | None = None) -> int:
    """Measure and print the cost a game of each width."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--widths", default="1,8,32,128", help="games at once, comma-separated (1 is the base)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floor", type=Path, default=None, help="the floor script, run before and after")
    arguments = parser.parse_args(argv)
    try:
        widths = sorted({int(text) for text in arguments.widths.split(",")} | {1})
    except ValueError:
        parser.error(f"--widths {arguments.widths!r} is not a list of whole numbers, e.g. 1,8,32,128")
    if min(widths) < 1 or arguments.games < 1 or arguments.rounds < 1:
        parser.error("--games, --rounds and every width are whole numbers of 1 or more")
    floors = []
    if arguments.floor is not None:
        from bench import floor  # scripts/ is on the path when run as a script

        floors.append(floor(2.0, arguments.floor))
    settle_collector()  # as a worker does before its first games side by side
    play_width(1, min(arguments.games, 50))  # imports and first calls out of the rounds
    readings: dict[int, list[float]] = {width: [] for width in widths}
    digests: dict[int, set[str]] = {width: set() for width in widths}
    for _ in range(arguments.rounds):
        for width in widths:
            seconds, digest = play_width(width, arguments.games)
            readings[width].append(seconds)
            digests[width].add(digest)
    if arguments.floor is not None:
        floors.append(floor(2.0, arguments.floor))
        print(f"floor: {floors[0]:,.0f} and {floors[1]:,.0f} hands/s (before, after)")
    base = statistics.median(readings[1])
    print(f"expert vs greedy in-process, {arguments.games} games a round, {arguments.rounds} rounds in turn")
    for width in widths:
        median = statistics.median(readings[width])
        low, high = min(readings[width]), max(readings[width])
        print(f"  {width:4d} at once: {median * 1e3:.3f} ms of CPU a game ({low * 1e3:.3f} to {high * 1e3:.3f}), "
              f"x{median / base:.2f} one at a time")
    game, deciding = expert_share(arguments.games)
    print(f"expert's decisions, one at a time: {deciding * 1e3:.3f} ms of a {game * 1e3:.3f} ms game "
          f"({deciding / game:.0%}; timed on the clock, the timer's cost taken out)")
    seen = set().union(*digests.values())
    print(f"results digest {', '.join(sorted(seen))}" + ("" if len(seen) == 1 else ": THE GAMES DIFFER"))
    return 0 if len(seen) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
