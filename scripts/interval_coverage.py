"""How often the paired result's 95% interval covers the true score, by simulation: the interval of
``canasta-sim run --duplicate``'s paired result and of ``compare``'s Elo estimate (both
:meth:`canasta_sim.runs.sprt.ResultCounts.estimate`'s normal approximation over deals, the standard deviation with
the number of deals as divisor).

Deals are drawn from a pentanomial distribution (a deal's points of 2 for the first strategy), by default the one
expert@1 against greedy@2 showed in ``docs/matchmaking.md``'s duplicate run (9/0/226/0/265 of 500 deals), and
``--close`` one of two strategies of equal strength (15/2/66/2/15 of 100). For each number of deals it prints the
share of intervals holding the true score, among those that exist (every deal alike gives none), and that share:

    python scripts/interval_coverage.py
    python scripts/interval_coverage.py --close

``--margins RUN_DIR`` measures the summary's margin interval instead (mean ± 1.96 standard errors, the standard
deviation with one less than the count as divisor): games drawn with replacement from a two-strategy run's games,
the mean margin of all of them taken as the truth, for the first strategy given:

    canasta-sim run --games 10000 --seed 2024 --out results/readme
    python scripts/interval_coverage.py --margins results/readme --deals 10 25 100

Nothing is timed: the figures depend only on ``--seed`` and ``--repeats``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from canasta_sim.runs.sprt import ResultCounts, score_from_elo
from canasta_sim.runs.summary import Z_95

EXPERT_GREEDY = (9, 0, 226, 0, 265)
EQUAL = (15, 2, 66, 2, 15)
POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def coverage(weights, deals: int, repeats: int, rng: np.random.Generator) -> tuple[float, float]:
    """The share of ``repeats`` intervals over ``deals`` deals that hold the true score, and the share that exist."""
    probabilities = np.asarray(weights, dtype=float) / sum(weights)
    truth = float(probabilities @ np.asarray(POINTS)) / 2
    covered = existing = 0
    for _ in range(repeats):
        counts = ResultCounts()
        for category in rng.choice(5, size=deals, p=probabilities):
            points = POINTS[category]
            counts.add_pair(min(points, 1.0), points - min(points, 1.0))
        estimate = counts.estimate()
        if np.isnan(estimate.low):
            continue
        existing += 1
        covered += score_from_elo(estimate.low) <= truth <= score_from_elo(estimate.high)
    return (covered / existing if existing else float("nan"), existing / repeats)


def margin_coverage(margins: np.ndarray, games: int, repeats: int, rng: np.random.Generator) -> float:
    """The share of ``repeats`` margin intervals over ``games`` games drawn from ``margins`` that hold their mean."""
    samples = rng.choice(margins, size=(repeats, games))
    half = Z_95 * samples.std(axis=1, ddof=1) / np.sqrt(games)
    return float((np.abs(samples.mean(axis=1) - margins.mean()) <= half).mean())


def _run_margins(run: str) -> np.ndarray:
    """The first strategy's final margins over a run's games played out."""
    first = json.loads((Path(run) / "run.json").read_text())["strategies"][0]["spec"]
    games = pd.read_parquet(Path(run) / "games", columns=["team_a_strategy", "margin", "termination"])
    games = games[games["termination"] != "forfeit"]
    return np.where(games["team_a_strategy"] == first, games["margin"], -games["margin"]).astype(float)


def main(argv: list[str] | None = None) -> None:
    """Print the coverage at each number of deals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--close", action="store_true", help="two strategies of equal strength")
    parser.add_argument("--deals", type=int, nargs="+", default=[10, 25, 100, 500])
    parser.add_argument("--repeats", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--margins", metavar="RUN_DIR", help="the summary's margin interval on this run's games; "
                                                              "--deals then counts games")
    options = parser.parse_args(argv)
    rng = np.random.default_rng(options.seed)
    if options.margins:
        margins = _run_margins(options.margins)
        for games in options.deals:
            covered = margin_coverage(margins, games, options.repeats, rng)
            print(f"{games:5d} games: covered {100 * covered:.1f}% of {options.repeats} draws")
        return
    weights = EQUAL if options.close else EXPERT_GREEDY
    for deals in options.deals:
        covered, existing = coverage(weights, deals, options.repeats, rng)
        print(f"{deals:5d} deals: covered {100 * covered:.1f}% (intervals n/a in {100 * (1 - existing):.1f}% of "
              f"{options.repeats} runs)")


if __name__ == "__main__":
    main()
