"""What recording decisions costs: games played plain and with every seat recorded, interleaved.

    python scripts/bench_decisions.py [--games 40] [--strategy expert] [--rounds 3]

Plays the same games (seeds derived from 0) in this process, alternately without recording and with all
four seats wrapped by the ``--record-decisions`` recorder (:mod:`canasta_sim.env.decisions`), and prints
the time of each round, the ratio and the rows written.  Runs without ``--record-decisions`` never build
the recorder: their only extra work is one ``if`` per game in :class:`canasta_sim.runs.runner.ChunkPlayer`.
"""

from __future__ import annotations

import argparse
import time

from canasta_sim.core.engine import derive_seed, play_game
from canasta_sim.env.decisions import DecisionRecorder
from canasta_sim.plugins.loader import load_strategy


def play(games: int, spec: str, record: bool) -> tuple[float, int]:
    """Seconds to play the games, and the rows recorded."""
    loaded = load_strategy(spec)
    recorder = DecisionRecorder()
    start = time.perf_counter()
    for game in range(games):
        players = [loaded] * 4
        if record:
            players = [recorder.wrap(loaded, game_id=game, seat=seat, spec=spec) for seat in range(4)]
        play_game(players, seed=derive_seed(0, f"game{game}"))
    if record:
        recorder.table()
    return time.perf_counter() - start, recorder.row_count


def main() -> None:
    """Parse the options and print the interleaved timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--strategy", default="expert")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    # One game each first, not counted: the first table built imports the rest of pyarrow (a run has it already).
    play(1, options.strategy, False)
    play(1, options.strategy, True)
    plain_total = recorded_total = 0.0
    for round_number in range(1, options.rounds + 1):
        plain, _ = play(options.games, options.strategy, False)
        recorded, rows = play(options.games, options.strategy, True)
        plain_total += plain
        recorded_total += recorded
        print(f"round {round_number}: plain {plain:.2f} s, recorded {recorded:.2f} s ({rows} rows), "
              f"ratio {recorded / plain:.2f}")
    print(f"{options.games} games of {options.strategy} x {options.rounds} rounds: recording all four seats takes "
          f"{recorded_total / plain_total:.2f} times as long")


if __name__ == "__main__":
    main()
