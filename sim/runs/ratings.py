"""Cross tables and Elo ratings with intervals for round robins (a Bradley–Terry fit).

A :class:`CrossTable` counts, for every pair of entrants, the games they played against each other,
the wins of each and the draws.  :func:`fit_ratings` fits the Bradley–Terry model on it: entrant
``i`` with strength ``θ_i`` scores against ``j`` with probability ``1 / (1 + exp(θ_j - θ_i))``, a
draw counting as half a win for each side (as Elo rating lists do).  Ratings are reported in logistic
Elo (``400 / ln 10`` Elo per unit of ``θ``), centred so that the entrants' mean is 0, with intervals
from the inverse of the Fisher information (the usual large-sample approximation).

The fit carries a very weak Gaussian prior (standard deviation 1000 Elo) on each rating, which only
matters when a rating has no finite estimate (an entrant won or lost every game): it then comes out
very large with a very wide interval rather than infinite.

>>> table = CrossTable(("x", "y"))
>>> table.add("x", "y", "x", count=75)
>>> table.add("x", "y", "y", count=25)
>>> [f"{rating.name} {rating.elo:+.0f}" for rating in fit_ratings(table)]
['x +95', 'y -95']
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np

from canasta_sim.runs.summary import wilson_interval

__all__ = [
    "ELO_PER_UNIT",
    "CrossTable",
    "Rating",
    "CROSS_TABLE_CORNER",
    "cross_table_rows",
    "fit_ratings",
    "format_cross_table",
    "format_ratings",
    "ranked",
]

ELO_PER_UNIT = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley–Terry log-strength."""

_PRIOR_SD_ELO = 1000.0


class CrossTable:
    """Results between every pair of entrants.

    :param names: the entrants, in the order tables print them.
    """

    def __init__(self, names: Sequence[str]) -> None:
        if len(set(names)) != len(names):
            raise ValueError(f"cross-table entrants must be distinct; got {list(names)}")
        self.names = tuple(names)
        self._index = {name: index for index, name in enumerate(self.names)}
        size = len(self.names)
        self.wins = np.zeros((size, size), dtype=np.int64)
        """``wins[i, j]``: games ``i`` won against ``j``."""
        self.draws = np.zeros((size, size), dtype=np.int64)
        """``draws[i, j]``: drawn games between ``i`` and ``j`` (symmetric)."""

    def renamed(self, names: Mapping[str, str]) -> CrossTable:
        """The same results with each entrant called ``names[entrant]`` (unchanged where ``names`` has none), as the
        printed reports name them."""
        table = CrossTable([names.get(name, name) for name in self.names])
        table.wins, table.draws = self.wins.copy(), self.draws.copy()
        return table

    def index(self, name: str) -> int:
        """The row of entrant ``name``.

        :raises KeyError: naming the unknown entrant and the known ones.
        """
        try:
            return self._index[name]
        except KeyError:
            known = ", ".join(self.names)
            raise KeyError(f"{name!r} is not an entrant of this cross table; entrants: {known}") from None

    def add(self, first: str, second: str, winner: str | None, count: int = 1) -> None:
        """Count ``count`` games between ``first`` and ``second`` won by ``winner`` (``None`` for a draw)."""
        i, j = self.index(first), self.index(second)
        if i == j:
            raise ValueError(f"a cross table counts games between different entrants; got {first!r} twice")
        if winner is None:
            self.draws[i, j] += count
            self.draws[j, i] += count
        elif winner in (first, second):
            self.wins[self.index(winner), j if winner == first else i] += count
        else:
            raise ValueError(f"the winner of a game between {first!r} and {second!r} cannot be {winner!r}")

    @property
    def games(self) -> np.ndarray:
        """``games[i, j]``: games played between ``i`` and ``j`` (symmetric)."""
        return self.wins + self.wins.T + self.draws

    @property
    def points(self) -> np.ndarray:
        """``points[i, j]``: what ``i`` scored against ``j``, a draw counting half."""
        return self.wins + self.draws / 2.0

    def score(self, first: str, second: str) -> tuple[float, float, float, int]:
        """``first``'s score rate against ``second`` with its Wilson 95% interval, and the games played."""
        i, j = self.index(first), self.index(second)
        games = int(self.games[i, j])
        if games == 0:
            return (math.nan, math.nan, math.nan, 0)
        points = float(self.points[i, j])
        low, high = wilson_interval(points, games)
        return (points / games, low, high, games)


@dataclasses.dataclass(frozen=True)
class Rating:
    """One entrant's fitted rating: Elo relative to the entrants' mean, with its interval."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float
    """The entrant's score rate over all its games (a draw counting half)."""


def fit_ratings(table: CrossTable, confidence: float = 0.95) -> list[Rating]:
    """Fit Bradley–Terry ratings to a cross table; return one :class:`Rating` per entrant, in table order.

    :param confidence: the coverage of each rating's interval.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1; got {confidence}")
    points = table.points
    games = table.games.astype(float)
    size = len(table.names)
    prior_precision = (ELO_PER_UNIT / _PRIOR_SD_ELO) ** 2
    strengths = np.zeros(size)

    def objective(values: np.ndarray) -> float:
        difference = values[:, None] - values[None, :]
        # log σ(d) = -log(1 + e^-d), computed stably; each ordered pair counts i's points against j.
        return float(-(points * np.logaddexp(0.0, -difference)).sum() - prior_precision * (values @ values) / 2)

    information = np.eye(size) * prior_precision
    for _ in range(100):
        difference = strengths[:, None] - strengths[None, :]
        expected = 1.0 / (1.0 + np.exp(-difference))  # P(i beats j)
        gradient = (points - games * expected).sum(axis=1) - prior_precision * strengths
        weights = games * expected * (1.0 - expected)
        information = np.diag(weights.sum(axis=1)) - weights + np.eye(size) * prior_precision
        step = np.linalg.solve(information, gradient)
        # Newton's step on a concave objective; halve it in the rare case it overshoots.
        current = objective(strengths)
        scale = 1.0
        while objective(strengths + scale * step) < current - 1e-12 and scale > 1e-6:
            scale /= 2
        strengths = strengths + scale * step
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    # Ratings relative to the mean: project the covariance onto the sum-zero subspace.
    covariance = np.linalg.inv(information)
    centring = np.eye(size) - np.full((size, size), 1.0 / size)
    covariance = centring @ covariance @ centring
    strengths = strengths - strengths.mean()
    quantile = NormalDist().inv_cdf((1 + confidence) / 2)
    ratings = []
    total_games = table.games.sum(axis=1)
    total_points = points.sum(axis=1)
    for index, name in enumerate(table.names):
        elo = strengths[index] * ELO_PER_UNIT
        half = quantile * math.sqrt(max(covariance[index, index], 0.0)) * ELO_PER_UNIT
        played = int(total_games[index])
        ratings.append(Rating(name, float(elo), float(elo - half), float(elo + half), played,
                              float(total_points[index] / played) if played else math.nan))
    return ratings


def ranked(ratings: Sequence[Rating]) -> list[tuple[int, Rating]]:
    """The ratings strongest first, each with its rank.  Entrants whose Elo the reports print alike (to 0.1) share a
    rank, the next skipping as many (1, 2, 2, 4), and stand in the order given: two entrants level on points in a
    round robin whose pairs played alike have the same rating, which rounding noise ordered at random."""
    order = sorted(ratings, key=lambda rating: -round(rating.elo, 1))
    ranks: list[tuple[int, Rating]] = []
    for position, rating in enumerate(order):
        tied = position > 0 and round(rating.elo, 1) == round(order[position - 1].elo, 1)
        ranks.append((ranks[-1][0] if tied else position + 1, rating))
    return ranks


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                  for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in rows
    )


CROSS_TABLE_CORNER = "score of row vs column"
"""The cross table's first header cell, above the row entrants (the HTML report finds the matrix by it)."""


def cross_table_rows(table: CrossTable, order: Sequence[str] | None = None) -> list[list[str]]:
    """The cross table as rows of cells, the header first, for every printed form: each cell is the row entrant's
    score rate against the column's, with its Wilson 95% interval and games (``-`` where they played none); rows and
    columns in ``order`` (the table's own by default)."""
    names = table.names if order is None else order
    rows = [[CROSS_TABLE_CORNER, *names]]
    for first in names:
        cells = [first]
        for second in names:
            rate, low, high, games = table.score(first, second) if first != second else (math.nan, 0, 0, 0)
            cells.append("-" if games == 0 else f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}] n={games}")
        rows.append(cells)
    return rows


def format_cross_table(table: CrossTable, order: Sequence[str] | None = None) -> str:
    """The cross table as aligned text (:func:`cross_table_rows`)."""
    rows = cross_table_rows(table, order)
    return _aligned(rows)


def format_ratings(ratings: Sequence[Rating]) -> str:
    """The ratings as aligned text, strongest first."""
    rows = [["rank", "strategy", "Elo", "95% interval", "games", "score"]]
    for rank, rating in ranked(ratings):
        rows.append([str(rank), rating.name, f"{rating.elo:+z.1f}", f"[{rating.low:+z.1f}, {rating.high:+z.1f}]",
                     str(rating.games), "n/a" if math.isnan(rating.score) else f"{100 * rating.score:.1f}%"])
    # The first column is the rank: right-align everything but the names.
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) if column == 1 else cell.rjust(width)
                  for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in rows
    )
