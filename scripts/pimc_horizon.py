"""Fit the weights of pimc's static estimate of a hand's end (``strategies/hand_estimate.py``).

Plays ``--hands`` hands of expert self-play from the deal (running totals drawn from a few typical
ones, so that initial minimums vary), records :func:`~canasta_sim.strategies.hand_estimate.features`
for both sides at the start of every turn, and fits each side's final hand score (R14) on them by
least squares over the first 80% of the hands.  It prints the weights as a Python tuple for
``WEIGHTS`` and, on the held-out 20%, how much of the variance of the final point difference between
the sides the fitted estimate explains (R²), beside the score as if the hand ended at that turn.

    python scripts/pimc_horizon.py --hands 3000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import textwrap
from pathlib import Path

import numpy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.core.scoring import score_hand  # noqa: E402
from canasta_sim.core.search import playout  # noqa: E402
from canasta_sim.core.state import HandState  # noqa: E402
from canasta_sim.strategies.expert import Expert  # noqa: E402
from canasta_sim.strategies.hand_estimate import FEATURES, features  # noqa: E402

TOTALS = ((0, 0), (0, 0), (1600, 1200), (2400, 2900), (3200, 3500), (-200, 600))
"""Running totals a hand is played from, drawn at random for each hand."""


class _Recorder(Expert):
    """Expert that records both sides' features of the real state each time it acquires (once a turn)."""

    def __init__(self, rng, state: HandState, rows: list) -> None:
        super().__init__(rng)
        self.state = state
        self.rows = rows

    def choose_acquire(self, view):
        self.rows.append((features(self.state, 0), features(self.state, 1), self.state.turn_count))
        return super().choose_acquire(view)


def gather(hands: int, seed: int) -> list[tuple[list, list, float, float, float, float]]:
    """For each hand, each recorded turn: both sides' features, final hand scores and end-now scores."""
    rules = Rules()
    data = []
    for number in range(hands):
        rng = random.Random(seed * 1_000_003 + number)
        scores = rng.choice(TOTALS)
        state = HandState.deal(rules, rng, dealer=number % 4, scores=scores)
        rows: list = []
        players = [_Recorder(random.Random(rng.getrandbits(64)), state, rows) for _ in range(4)]
        playout(state, players, scores)
        result = score_hand(state)
        final = (result.sides[0].score, result.sides[1].score)
        data.append([(first, second, final, turn) for first, second, turn in rows])
    return data


def end_now(values: list[float]) -> float:
    """The score were the hand to end now with nobody going out: melds, bonuses, red 3s, less hand points."""
    return values[1] + values[2] + values[3] - values[4]


def fit(data: list) -> tuple[numpy.ndarray, dict]:
    """Least-squares weights on the first 80% of the hands, and held-out figures on the rest."""
    cut = int(len(data) * 0.8)
    rows, targets = [], []
    for hand in data[:cut]:
        for first, second, final, _turn in hand:
            rows.extend((first, second))
            targets.extend(final)
    weights, *_ = numpy.linalg.lstsq(numpy.array(rows), numpy.array(targets, dtype=float), rcond=None)
    truth, fitted, naive = [], [], []
    for hand in data[cut:]:
        for first, second, final, _turn in hand:
            truth.append(final[0] - final[1])
            fitted.append(float(numpy.dot(weights, first) - numpy.dot(weights, second)))
            naive.append(end_now(first) - end_now(second))
    truth_array = numpy.array(truth)

    def explained(guess: list[float]) -> float:
        return 1.0 - float(numpy.var(truth_array - numpy.array(guess)) / numpy.var(truth_array))

    return weights, {"positions": len(truth), "fitted R2": explained(fitted), "end-now R2": explained(naive)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.hands < 10:
        raise SystemExit(f"--hands {args.hands}: use at least 10 (a fifth are held out)")
    weights, figures = fit(gather(args.hands, args.seed))
    for name, weight in zip(FEATURES, weights, strict=True):
        print(f"# {name}: {weight:.4f}")
    listed = textwrap.wrap(", ".join(f"{weight:.4f}" for weight in weights), 110)
    print("WEIGHTS = (\n" + "".join(f"    {line}\n" for line in listed) + ")")
    print(figures)


if __name__ == "__main__":
    main()
