"""How often ``canasta-sim compare``'s SPRT accepts the wrong hypothesis, by simulation at exactly ``elo0`` or
exactly ``elo1``, with the test's own log-likelihood ratio (:mod:`canasta_sim.runs.sprt`) computed for many tests at
once.

Results are drawn from a trinomial distribution (2% draws, the rest wins and losses) or, with ``--pentanomial``,
deals as duplicate deals give them (45% split 1-1, 1% each with a draw, the rest won or lost 2-0), their mean score
the hypothesis's.  Each test runs until the LLR leaves Wald's bounds (or ``--max-observations``).  It prints the
share of tests that accepted the wrong hypothesis, with its 95% interval, and the mean length:

    python scripts/sprt_error_rates.py --truth elo0 --tests 1000
    python scripts/sprt_error_rates.py --truth elo0 --tests 1000 --pentanomial
    python scripts/sprt_error_rates.py --truth elo1 --elo1 40 --tests 5000

At the defaults (elo1 10) a test lasts thousands of observations: 1,000 tests take several minutes.  Nothing is
timed: the figures depend only on the options.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from canasta_sim.runs.sprt import PENTANOMIAL_SCORES, TRINOMIAL_SCORES, Sprt, generalized_llr, score_from_elo

_EMPTY_COUNT = 1e-3  # as canasta_sim.runs.sprt counts an empty category


def many_llrs(counts: np.ndarray, scores, elo0: float, elo1: float, start: list[np.ndarray]):
    """The generalized LLR of each row of ``counts`` (as :func:`generalized_llr`), and each hypothesis's Lagrange
    multipliers, which start the next call's Newton steps (``start``: the last call's)."""
    total = counts.sum(axis=1)
    regularized = np.where(counts > 0, counts, _EMPTY_COUNT)
    frequencies = regularized / regularized.sum(axis=1, keepdims=True)
    logs, multipliers = [], []
    for elo, first in zip((elo0, elo1), start, strict=True):
        offsets = np.asarray(scores) - score_from_elo(elo)
        low = np.full(len(counts), -1 / offsets.max())
        high = np.full(len(counts), -1 / offsets.min())
        x = first.copy()
        for _ in range(60):  # Newton's steps kept inside the bracket, as the library's solver does
            terms = offsets / (1 + x[:, None] * offsets)
            value = (frequencies * terms).sum(axis=1)
            slope = -(frequencies * terms * terms).sum(axis=1)
            low, high = np.where(value > 0, x, low), np.where(value > 0, high, x)
            step = x - value / slope
            step = np.where((step > low) & (step < high), step, (low + high) / 2)
            settled = np.all(np.abs(step - x) < 1e-14)
            x = step
            if settled:
                break
        multipliers.append(x)
        logs.append(-(frequencies * np.log1p(x[:, None] * offsets)).sum(axis=1))
    return total * (logs[1] - logs[0]), multipliers


def distribution(score: float, pentanomial: bool) -> np.ndarray:
    """The category probabilities of the simulated results, mean score per game ``score``."""
    if not pentanomial:
        return np.array([1 - score - 0.01, 0.02, score - 0.01])
    fixed = np.array([0.0, 0.01, 0.45, 0.01, 0.0])
    won = score - float(fixed @ np.asarray(PENTANOMIAL_SCORES))
    return fixed + np.array([1 - fixed.sum() - won, 0, 0, 0, won])


def simulate(test: Sprt, truth: float, pentanomial: bool, tests: int, limit: int, seed: int):
    """Each test's decision (0 none, 1 H0, 2 H1) and length in observations."""
    scores = PENTANOMIAL_SCORES if pentanomial else TRINOMIAL_SCORES
    probabilities = distribution(score_from_elo(truth), pentanomial)
    rng = np.random.default_rng(seed)
    counts = np.zeros((tests, len(scores)))
    decided = np.zeros(tests, dtype=int)
    length = np.zeros(tests, dtype=int)
    start = [np.zeros(tests), np.zeros(tests)]
    for observation in range(1, limit + 1):
        live = np.flatnonzero(decided == 0)
        if not len(live):
            break
        counts[live, rng.choice(len(scores), size=len(live), p=probabilities)] += 1
        llr, multipliers = many_llrs(counts[live], scores, test.elo0, test.elo1, [first[live] for first in start])
        for first, found in zip(start, multipliers, strict=True):
            first[live] = found
        decided[live[llr >= test.upper]] = 2
        decided[live[llr <= test.lower]] = 1
        length[live[decided[live] > 0]] = observation
    return decided, length, counts


def main(argv: list[str] | None = None) -> None:
    """Print the share of wrong decisions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--truth", choices=("elo0", "elo1"), required=True)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--pentanomial", action="store_true")
    parser.add_argument("--max-observations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    test = Sprt(elo0=options.elo0, elo1=options.elo1)
    truth = options.elo0 if options.truth == "elo0" else options.elo1
    decided, length, counts = simulate(test, truth, options.pentanomial, options.tests, options.max_observations,
                                       options.seed)
    scores = PENTANOMIAL_SCORES if options.pentanomial else TRINOMIAL_SCORES
    if not math.isclose(generalized_llr(list(counts[0]), scores, test.elo0, test.elo1),
                        many_llrs(counts[:1], scores, test.elo0, test.elo1, [np.zeros(1), np.zeros(1)])[0][0],
                        rel_tol=1e-9, abs_tol=1e-9):
        raise SystemExit("the vectorized LLR differs from canasta_sim.runs.sprt.generalized_llr")
    wrong = float(np.mean(decided == (2 if options.truth == "elo0" else 1)))
    half = 1.96 * math.sqrt(wrong * (1 - wrong) / options.tests)
    print(f"{options.tests} tests at {options.truth} ({truth:g} Elo; elo0 {test.elo0:g}, elo1 {test.elo1:g}), "
          f"{'pentanomial' if options.pentanomial else 'trinomial'}: wrong hypothesis accepted by {100 * wrong:.1f}% "
          f"[{100 * (wrong - half):.1f}, {100 * (wrong + half):.1f}] (nominal 5%), undecided "
          f"{100 * np.mean(decided == 0):.1f}%, mean length {length[decided > 0].mean():.0f} observations")


if __name__ == "__main__":
    main()
