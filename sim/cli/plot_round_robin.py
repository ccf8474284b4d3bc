"""The charts of a round robin (three or more strategies): its ratings, and each strategy's score against each
other as a matrix, both in the order of the ratings.

A round robin of ten strategies has ninety ordered pairs: drawn one bar each in the win-rate chart, they made a
picture over 6,000 pixels tall.  The matrix shows them all in a square whose size stays bounded, each cell the
cross table's score (``canasta-sim report``) of the row strategy against the column one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from canasta_sim.cli.chart_words import say
from canasta_sim.cli.options import counted
from canasta_sim.cli.plot_data import ChartData, chart_data
from canasta_sim.cli.plot_figures import colours, matchup, new_figure, title, wrapped

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from canasta_sim.analysis import LoadedRun

__all__ = ["pairwise_scores", "ratings"]


def ratings(run: LoadedRun | ChartData) -> Figure:
    """A round robin's Bradley-Terry ratings: Elo relative to the entrants' mean, with 95% intervals."""
    data = chart_data(run)
    fitted = sorted(data.matchmaking().ratings, key=lambda rating: rating.elo)
    names = data.names
    drawn = colours(data)
    figure = new_figure(8, 1.5 + 0.6 * len(fitted))
    axes = figure.add_subplot()
    for position, rating in enumerate(fitted):
        axes.errorbar(rating.elo, position, xerr=[[rating.elo - rating.low], [rating.high - rating.elo]], fmt="o",
                      color=drawn.get(names.get(rating.name, rating.name), "black"), capsize=4)
        axes.text(rating.high + 5, position, f"{rating.elo:+z.0f} [{rating.low:+z.0f}, {rating.high:+z.0f}]  "
                  f"n={counted(rating.games, 'game')}", va="center", fontsize=8)
    axes.set_yticks(range(len(fitted)), [names.get(rating.name, rating.name) for rating in fitted], fontsize=8)
    axes.axvline(0, color="grey", linestyle="--", linewidth=1, label="the entrants' mean")
    axes.set_xlabel("Elo relative to the mean (Bradley-Terry fit; bars: 95% interval)")
    if fitted:
        low, high = min(rating.low for rating in fitted), max(rating.high for rating in fitted)
        axes.set_xlim(low - 0.05 * (high - low + 1), high + 0.45 * (high - low + 1))
    title(axes, f"Ratings: {matchup(data)} ({counted(data.games.games, 'game')})")
    say(figure, f"Ratings: {matchup(data)} ({counted(data.games.games, 'game')}), Elo relative to the entrants' mean",
        "; ".join(f"{names.get(rating.name, rating.name)} {rating.elo:+z.0f} (95% interval {rating.low:+z.0f} to "
                  f"{rating.high:+z.0f}, {counted(rating.games, 'game')})" for rating in reversed(fitted)))
    axes.legend(loc="lower right", fontsize=8)
    return figure


_CELL_INCHES = 0.8
"""A cell of the matrix is this wide and tall up to ten strategies, then shrinks, so that the figure stays bounded."""
_MATRIX_INCHES = 7.0
"""The matrix's side at most, however many strategies: a cell of ten strategies' holds its score and interval."""


def _rating_order(data: ChartData) -> list[str]:
    """The entrants' specs, strongest first by the fitted ratings (the run's order where there are none)."""
    results = data.matchmaking()
    if not results.ratings:
        return [entry.get("spec") for entry in data.manifest.get("strategies", [])]
    return results.ranking()  # as the reports' cross table, ties in the run's order


def pairwise_scores(run: LoadedRun | ChartData) -> Figure:
    """Each strategy's score against each other (the cross table: draws count half) as a matrix, the strategies in
    the order of their ratings, strongest first, each cell with its score, 95% interval and games."""
    data = chart_data(run)
    table = data.matchmaking().cross_table
    names = data.names
    order = _rating_order(data) if table is not None else []
    shown = [names.get(spec, spec) for spec in order]
    size = len(order)
    cell = min(_CELL_INCHES, _MATRIX_INCHES / max(size, 1))
    label_width = max((len(name) for name in shown), default=8) * 8 * 0.62 / 72
    # The column names stand at 40 degrees: they take about two thirds of their length in height.
    figure = new_figure(max(6.0, 1.8 + label_width + size * cell), 1.8 + label_width * 0.65 + size * cell)
    axes = figure.add_subplot()
    axes.set_aspect("equal")
    values = [[math.nan] * size for _ in range(size)]
    spoken, games_played = [], set()
    for row, first in enumerate(order):
        for column, second in enumerate(order):
            rate, low, high, games = table.score(first, second) if first != second else (math.nan, 0, 0, 0)
            if not games:
                continue
            values[row][column] = 100 * rate
            games_played.add(games)
            # Dark cells (far from 50%) take white figures, so that each stays readable on its colour.
            ink = "white" if abs(rate - 0.5) > 0.3 else "black"
            axes.text(column, row, f"{100 * rate:.1f}%\n[{100 * low:.1f}, {100 * high:.1f}]", ha="center", va="center",
                      fontsize=7 if cell < _CELL_INCHES else 8, color=ink)
            spoken.append(f"{shown[row]} against {shown[column]}: {100 * rate:.1f}% (95% interval {100 * low:.1f} "
                          f"to {100 * high:.1f}%, {counted(games, 'game')})")
    each = (f"{counted(min(games_played), 'game')} a pair" if len(games_played) == 1 else
            f"{min(games_played)} to {counted(max(games_played), 'game')} a pair") if games_played else "no game"
    heading = (f"Score of each strategy against each other: {matchup(data)} ({each}; cells: score and its "
               "Wilson 95% interval, %)")
    axes.set_title(wrapped(heading, figure.get_figwidth() - 1.0), fontsize=12.0)
    say(figure, heading, "; ".join(spoken) or "nothing to draw: no game was played")
    if not spoken:  # a round robin whose every game was forfeited: no cross table, no cell to draw
        axes.text(0.5, 0.5, "nothing to draw: no game was played", ha="center", va="center",
                  transform=axes.transAxes)
        axes.set_xticks([])
        axes.set_yticks([])
        return figure
    image = axes.imshow(values, cmap="RdBu", vmin=0, vmax=100)
    axes.set_xticks(range(size), shown, fontsize=8, rotation=40, ha="right", rotation_mode="anchor")
    axes.set_yticks(range(size), shown, fontsize=8)
    axes.set_xlabel("opponent (column)")
    axes.set_ylabel("strategy (row), strongest first")
    figure.colorbar(image, ax=axes, shrink=0.8).set_label("row's score against column, % (draws half)")
    return figure
