"""One strategy's summary figures (:class:`SummaryRow`) and the 95% intervals they carry.

The win rate's interval is Wilson's score interval (:func:`wilson_interval`), the mean margin's the normal one from
the margins' sum and sum of squares (:func:`mean_half_width`); :mod:`canasta_sim.runs.summary` sums a run's tables
into these rows, and the ratings, the SPRT and the charts take the same intervals from here.

>>> wilson_interval(5, 10)
(0.2366, 0.7634)
"""

from __future__ import annotations

import dataclasses
import math

__all__ = ["SummaryRow", "Z_95", "mean_half_width", "wilson_interval"]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, trials: int, z: float = Z_95, digits: int | None = 4) -> tuple[float, float]:
    """Return the Wilson score interval of a proportion, rounded to ``digits`` decimals (``None``: exact);
    ``(nan, nan)`` for no trials.

    Four decimals suit a table of percentages to one decimal; a chart of a rare rate (going out concealed,
    about 1 hand in 1,000) draws the exact ends, which rounding would move by a third.
    """
    if trials <= 0:
        return (math.nan, math.nan)
    proportion = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (proportion + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(proportion * (1 - proportion) / trials + z2 / (4 * trials * trials)) / denominator
    # The interval holds the proportion; at 0 or 1 of 1 the float sums can miss it by 1e-16, which a chart's
    # error bar, drawn as proportion minus low, would take for a negative length.
    low, high = min(max(0.0, centre - half), proportion), max(min(1.0, centre + half), proportion)
    return (low, high) if digits is None else (round(low, digits), round(high, digits))


def mean_half_width(total: int, squares: int, count: int, z: float = Z_95) -> float:
    """Half the width of the normal 95% interval of a mean, from the values' sum, sum of squares and count (NaN
    under two values).

    >>> round(mean_half_width(40 + 60 + 20, 40**2 + 60**2 + 20**2, 3), 2)
    22.63
    """
    if count < 2:
        return math.nan
    # Whole numbers: the squares' sum minus the sum's square over the count is exact before the one division.
    variance = (squares * count - total * total) / (count * (count - 1))
    return z * math.sqrt(max(variance, 0.0) / count)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan


@dataclasses.dataclass(frozen=True)
class SummaryRow:
    """The summary of one strategy (or one side of a mirror match). Rates are fractions (0.25 = 25%)."""

    strategy: str
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    """Games this strategy lost by forfeit (its own failure)."""
    win_rate: float
    win_rate_low: float
    """Lower end of the Wilson 95% interval of the win rate."""
    win_rate_high: float
    mean_margin: float
    """Mean of (own final total - opponent's), points, over games not forfeited."""
    mean_margin_low: float
    """Lower end of the mean margin's 95% interval (normal; the games taken as independent)."""
    mean_margin_high: float
    hands_per_game: float
    """Mean hands per game, over games not forfeited."""
    hands: int
    """Team-hands played (rows of ``hands``)."""
    mean_hand_score: float
    pile_takes_per_hand: float
    natural_canastas_per_hand: float
    mixed_canastas_per_hand: float
    red_threes_per_hand: float
    went_out_rate: float
    """Share of hands in which a player of the team went out."""
    concealed_rate: float
    """Share of hands in which a player of the team went out concealed."""

    @classmethod
    def from_sums(cls, label: str, sums: dict[str, int]) -> SummaryRow:
        """Build a row from the accumulated sums of one label."""
        games, wins, draws = int(sums["games"]), int(sums["wins"]), int(sums["draws"])
        low, high = wilson_interval(wins, games)
        margin_half = mean_half_width(int(sums["margin"]), int(sums["margin_squares"]), int(sums["played"]))
        hand_rows = int(sums["hand_rows"])
        mean_margin = _ratio(sums["margin"], sums["played"])
        return cls(
            strategy=label,
            games=games,
            wins=wins,
            draws=draws,
            losses=games - wins - draws,
            forfeits=int(sums["forfeits"]),
            win_rate=_ratio(wins, games),
            win_rate_low=low,
            win_rate_high=high,
            mean_margin=mean_margin,
            mean_margin_low=mean_margin - margin_half,
            mean_margin_high=mean_margin + margin_half,
            hands_per_game=_ratio(sums["hands"], sums["played"]),
            hands=hand_rows,
            mean_hand_score=_ratio(sums["score"], hand_rows),
            pile_takes_per_hand=_ratio(sums["pile_takes"], hand_rows),
            natural_canastas_per_hand=_ratio(sums["canasta_natural"], hand_rows),
            mixed_canastas_per_hand=_ratio(sums["canasta_mixed"], hand_rows),
            red_threes_per_hand=_ratio(sums["red_threes"], hand_rows),
            went_out_rate=_ratio(sums["went_out"], hand_rows),
            concealed_rate=_ratio(sums["concealed"], hand_rows),
        )

    def as_dict(self) -> dict:
        """Return the row as a plain dict (``None`` for undefined figures), ready for JSON."""
        return {key: (None if isinstance(value, float) and math.isnan(value) else value)
                for key, value in dataclasses.asdict(self).items()}
