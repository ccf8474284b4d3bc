"""The sequential probability ratio test that ``canasta-sim compare`` runs: is NEW stronger than OLD?

The test is the one chess-engine testing uses (fishtest, cutechess-cli): two hypotheses about the
Elo difference between NEW and OLD,

* H0: the difference is ``elo0`` (NEW is no better, typically ``elo0 = 0``),
* H1: the difference is ``elo1`` (NEW is better by the gain we hope for),

and after every result the log-likelihood ratio (LLR) of H1 against H0 is compared with Wald's
bounds ``log(beta / (1 - alpha))`` (accept H0 below it) and ``log((1 - beta) / alpha)`` (accept H1
above it), where ``alpha`` and ``beta`` are the wanted false-positive and false-negative rates.

**Elo model.** Logistic Elo: a difference of ``elo`` gives NEW the expected score
``1 / (1 + 10 ** (-elo / 400))`` per game, a draw scoring half a point.

**Likelihood.** Results are counted in categories with fixed scores, and the LLR is the generalized
(multinomial) one of fishtest: for each hypothesis the category probabilities are the maximum-likelihood
ones whose expected score equals that hypothesis's score, and the LLR is the log of the ratio of the
two likelihoods of the observed counts.  Two categorizations are used:

* **trinomial** for unpaired games: loss, draw, win (scores 0, 1/2, 1);
* **pentanomial** for duplicate deals: the two games of a deal (NEW on each side, same cards) are
  one observation, NEW's total 0, 1/2, 1, 3/2 or 2 points (scores 0, 1/4, 1/2, 3/4, 1 per game).
  Pairs are independent while the two games of a pair are not, so this is the model that keeps the
  error rates right; and because the shared cards make the two games' results move together in
  opposite directions, a pair carries more information than two unpaired games.

Empty categories are given a count of 1/1000 so that the maximum-likelihood distributions exist.

>>> test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> counts = ResultCounts()
>>> for score in [1.0] * 60 + [0.0] * 40:
...     counts.add_game(score)
>>> round(test.llr(counts), 3), test.decision(counts)
(0.534, None)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from canasta_sim.runs.summary import Z_95

__all__ = [
    "PENTANOMIAL_SCORES",
    "TRINOMIAL_SCORES",
    "EloEstimate",
    "ResultCounts",
    "Sprt",
    "elo_from_score",
    "elo_interval_text",
    "generalized_llr",
    "score_from_elo",
    "unanimous_elo_bound",
]

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
"""Score of each category of a single game: loss, draw, win."""
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Score per game of each category of a pair of games: NEW's total of 0, 1/2, 1, 3/2 or 2 points, halved."""

_EMPTY_COUNT = 1e-3  # stands in for an empty category so every maximum-likelihood distribution exists


def score_from_elo(elo: float) -> float:
    """Return the expected score per game of a player ``elo`` points stronger (logistic Elo).

    >>> score_from_elo(0), round(score_from_elo(400), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Return the Elo difference whose expected score is ``score``; infinite at 0 and 1.

    >>> round(elo_from_score(0.75), 1)
    190.8
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval_text(low: float, high: float, *, signed: bool = True) -> str:
    """An Elo interval as every printed form gives it, inside its brackets: ``+12.3, +45.6``, ``n/a`` when it is
    undefined (``nan``: every observation scored the same).

    An end past a score of 0% or 100% is infinite: the interval is then a one-sided bound, and reads as the verdict
    reads one (``by at least``), ``at least +168.1`` or ``at most -168.1``; ``unbounded`` when both ends are.
    ``signed=False`` prints sizes, as the verdict's "weaker by" does.

    >>> elo_interval_text(-3.25, 41.0), elo_interval_text(168.1, math.inf), elo_interval_text(168.1, math.inf,
    ...                                                                                        signed=False)
    ('-3.2, +41.0', 'at least +168.1', 'at least 168.1')
    >>> elo_interval_text(-math.inf, -2.0), elo_interval_text(-math.inf, math.inf), elo_interval_text(math.nan, 1.0)
    ('at most -2.0', 'unbounded', 'n/a')
    """
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    # "z": an end that rounds to zero prints as +0.0, never -0.0 (an even score, or -0.03).
    low_text, high_text = (f"{end:{'+' if signed else ''}z.1f}" for end in (low, high))
    if math.isinf(low) and math.isinf(high):
        return "unbounded"
    if math.isinf(high):
        return f"at least {low_text}"
    if math.isinf(low):
        return f"at most {high_text}"
    return f"{low_text}, {high_text}"


def unanimous_elo_bound(observations: int) -> float:
    """How far apart NEW and OLD are at least, in Elo (95% one-sided), when ``observations`` all went one way.

    Every observation lost (or every one won) makes the estimate infinite and its interval n/a (no variation), yet
    the results do bound the difference: an observation's score lies between 0 and 1, so one with mean score ``p``
    scores 0 with a chance of at most ``1 - p``, and ``N`` of them all score 0 with a chance of at most
    ``(1 - p) ** N``, under 5% once ``p`` exceeds ``1 - 0.05 ** (1 / N)``.  NEW is then weaker by at least the
    returned number (stronger, when all were won); a bound of 0 or less says nothing, the observations being too few
    to tell NEW from OLD at 95%.  The bound holds for a test that stopped on them too: it
    grows with ``N``, so it passes the true difference only when the first ``M`` observations all went one way,
    ``M`` being the fewest whose bound passes it, a chance under 5% whenever the test stops.

    >>> round(unanimous_elo_bound(5), 1), round(unanimous_elo_bound(101), 1), unanimous_elo_bound(4) < 0
    (34.4, 608.5, True)
    """
    if observations < 1:
        raise ValueError(f"observations must be at least 1; got {observations}")
    return -elo_from_score(1.0 - 0.05 ** (1.0 / observations))


def _solve_multiplier(frequencies: Sequence[float], offsets: Sequence[float]) -> float:
    """Solve ``sum(f * d / (1 + x * d)) = 0`` for ``x`` (the Lagrange multiplier of the constrained MLE).

    The left side falls strictly from +inf to -inf on the interval where every ``1 + x * d`` is
    positive, so Newton steps kept inside a shrinking bracket always converge.
    """
    low = -1.0 / max(offsets)  # max(offsets) > 0 and min(offsets) < 0: the target lies inside the scores
    high = -1.0 / min(offsets)
    x = 0.0
    for _ in range(100):
        value = 0.0
        slope = 0.0
        for frequency, offset in zip(frequencies, offsets, strict=True):
            term = offset / (1.0 + x * offset)
            value += frequency * term
            slope -= frequency * term * term
        if value > 0.0:
            low = x
        else:
            high = x
        step = value / slope
        candidate = x - step
        if not low < candidate < high:
            candidate = (low + high) / 2.0
        if abs(candidate - x) < 1e-13:
            return candidate
        x = candidate
    return x


def generalized_llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """Return the generalized log-likelihood ratio of Elo ``elo1`` against ``elo0`` for result ``counts``.

    :param counts: how many results fell in each category.
    :param scores: the score per game of each category, in [0, 1], lowest first.
    """
    total = sum(counts)
    if total <= 0:
        return 0.0
    regularized = [count if count > 0 else _EMPTY_COUNT for count in counts]
    size = _added_in_order(regularized)
    frequencies = [count / size for count in regularized]
    log_likelihoods = []
    for elo in (elo0, elo1):
        target = score_from_elo(elo)
        offsets = [score - target for score in scores]
        multiplier = _solve_multiplier(frequencies, offsets)
        # The constrained MLE is p_i = f_i / (1 + x * d_i): the log-likelihood relative to the
        # unconstrained one is -sum(f_i * log(1 + x * d_i)) per observation.
        log_likelihoods.append(-_added_in_order([f * math.log1p(multiplier * d)
                                                 for f, d in zip(frequencies, offsets, strict=True)]))
    return total * (log_likelihoods[1] - log_likelihoods[0])


def _added_in_order(values: Sequence[float]) -> float:
    """The numbers added one by one, left to right, as Python 3.11's ``sum`` adds them.

    Not ``sum``: from Python 3.12 it adds floats with a compensation that changes the last bits, and a log-likelihood
    ratio that differs in its last bits may cross a bound at another game: the same run stopped elsewhere.
    """
    total = 0
    for value in values:
        total += value
    return total


@dataclasses.dataclass(frozen=True)
class EloEstimate:
    """An Elo difference estimated from results, with its 95% interval (normal approximation on the score).

    The interval is ``nan`` when every observation scored the same: the approximation says nothing then.  An end
    past a score of 0% or 100% is infinite, and prints as a one-sided bound (:func:`elo_interval_text`).
    """

    elo: float
    low: float
    high: float
    score: float
    """Mean score per game of NEW."""

    def __str__(self) -> str:
        # Adding 0.0 turns -0.0 into 0.0, so an even score prints as +0.0.
        return f"{self.elo:+z.1f} Elo [{elo_interval_text(self.low, self.high)}]"


class ResultCounts:
    """NEW's results against OLD: single games (trinomial) and pairs of duplicate games (pentanomial).

    A test uses one kind of observation throughout: :meth:`add_game` for unpaired play or
    :meth:`add_pair` for duplicate deals.
    """

    def __init__(self) -> None:
        self.games = [0, 0, 0]
        """Losses, draws and wins of NEW over all games, paired or not."""
        self.pairs = [0, 0, 0, 0, 0]
        """Pairs in which NEW scored 0, 1/2, 1, 3/2 and 2 points."""

    @property
    def paired(self) -> bool:
        """Whether the results were added as pairs."""
        return any(self.pairs)

    @property
    def game_count(self) -> int:
        """Games counted."""
        return sum(self.games)

    def add_game(self, score: float) -> None:
        """Count one unpaired game in which NEW scored ``score`` (0, 0.5 or 1)."""
        self.games[_category(score * 2)] += 1

    def add_pair(self, first: float, second: float) -> None:
        """Count one duplicate deal: NEW's scores (0, 0.5 or 1) in its two games."""
        self.games[_category(first * 2)] += 1
        self.games[_category(second * 2)] += 1
        self.pairs[_category((first + second) * 2)] += 1

    def categories(self) -> tuple[list[int], tuple[float, ...]]:
        """The counts and category scores the test uses: pentanomial when paired, else trinomial."""
        if self.paired:
            return self.pairs, PENTANOMIAL_SCORES
        return self.games, TRINOMIAL_SCORES

    def estimate(self) -> EloEstimate:
        """Return NEW's Elo advantage with a 95% interval, from the observations the test uses."""
        counts, scores = self.categories()
        total = sum(counts)
        if total == 0:
            return EloEstimate(0.0, -math.inf, math.inf, math.nan)
        mean = sum(count * score for count, score in zip(counts, scores, strict=True)) / total
        variance = sum(count * (score - mean) ** 2 for count, score in zip(counts, scores, strict=True)) / total
        if variance == 0:
            return EloEstimate(elo_from_score(mean), math.nan, math.nan, mean)
        half = Z_95 * math.sqrt(variance / total)
        return EloEstimate(elo_from_score(mean), elo_from_score(mean - half), elo_from_score(mean + half), mean)

    def text(self) -> str:
        """The counts as printed: ``W-D-L`` and, when paired, the pentanomial counts."""
        losses, draws, wins = self.games
        words = f"W-D-L {wins}-{draws}-{losses}"
        if self.paired:
            words += f", pairs 0/0.5/1/1.5/2: {'/'.join(str(count) for count in self.pairs)}"
        return words


def _category(doubled: float) -> int:
    index = round(doubled)
    if abs(doubled - index) > 1e-9 or not 0 <= index <= 4:
        raise ValueError(f"a game score must be 0, 0.5 or 1; got {doubled / 2}")
    return index


@dataclasses.dataclass(frozen=True)
class Sprt:
    """The test's settings and its Wald bounds.

    :raises ValueError: unless ``0 < alpha``, ``0 < beta``, ``alpha + beta < 1`` and ``elo0 < elo1``.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(f"alpha and beta must be in (0, 1) with alpha + beta < 1; got {self.alpha}, {self.beta}")
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"elo0 must be below elo1, both finite numbers; got elo0={self.elo0}, elo1={self.elo1}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: ResultCounts) -> float:
        """The log-likelihood ratio of H1 against H0 for the results so far."""
        categories, scores = counts.categories()
        return generalized_llr(categories, scores, self.elo0, self.elo1)

    def decide(self, llr: float) -> str | None:
        """``'H1'``, ``'H0'`` or ``None`` (go on playing) for a log-likelihood ratio."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def decision(self, counts: ResultCounts) -> str | None:
        """``'H1'``, ``'H0'`` or ``None`` for the results so far."""
        return self.decide(self.llr(counts))
