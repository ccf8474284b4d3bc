"""``canasta-sim plot RUN_DIR``: PNG charts of a run, drawn with matplotlib's Agg backend (no display needed).

Each chart is one function taking a :class:`~canasta_sim.analysis.LoadedRun` or a
:class:`~canasta_sim.cli.plot_data.ChartData` and returning a matplotlib :class:`~matplotlib.figure.Figure`, so a
notebook can draw them too::

    from canasta_sim.analysis import load_run
    from canasta_sim.cli.plot import CHARTS
    from canasta_sim.cli.plot_data import ChartData
    figure = CHARTS["win_rates"](load_run("results/example"))
    figure = CHARTS["win_rates"](ChartData.of_directory("results/example"))   # any size: read part by part

The charts draw from tallies of the tables (:mod:`canasta_sim.cli.plot_data`), never from their rows, so
``canasta-sim plot`` reads a run of any size in bounded memory.

Every chart names the strategies by their names and versions as the run recorded them (``greedy@2``, not
the spec that loaded them, which for a file is its path) and wraps its titles to the figure's width.  Every
chart has a title, axis labels with units, a legend where several series share axes, and its
sample sizes (games or team-hands) in the title or legend.  Intervals are 95%: Wilson intervals for
rates (win rates, and per-hand rates such as "went out", so they stay within 0-100%), mean ± 1.96
standard errors for means, and for duplicate deals the paired interval from deal-to-deal variation
(:class:`canasta_sim.runs.matchmaking.PairedResult`).  Round robins get one more chart, ``ratings``
(:func:`charts_for` lists the charts of a run).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np
import pandas as pd

from canasta_sim.analysis import LoadedRun, label_teams
from canasta_sim.cli.chart_words import chart_words, say
from canasta_sim.cli.options import OneLineErrorCommand, WholeNumber, counted, fail
from canasta_sim.cli.plot_data import (
    GAME_COLUMNS,
    HAND_COLUMNS,
    PER_HAND,
    SCORE_PARTS,
    ChartData,
    chart_data,
    quantiles,
)
from canasta_sim.cli.plot_figures import TITLE_SIZE as _TITLE_SIZE
from canasta_sim.cli.plot_figures import colours as _colours
from canasta_sim.cli.plot_figures import legend as _legend
from canasta_sim.cli.plot_figures import matchup as _matchup
from canasta_sim.cli.plot_figures import new_figure as _new_figure
from canasta_sim.cli.plot_figures import save_chart as _save_chart
from canasta_sim.cli.plot_figures import suptitle as _suptitle
from canasta_sim.cli.plot_figures import title as _title
from canasta_sim.cli.plot_figures import wrapped as _wrapped
from canasta_sim.cli.plot_round_robin import pairwise_scores, ratings
from canasta_sim.cli.plot_tuning import write_tuning_charts
from canasta_sim.errors import CanastaError
from canasta_sim.runs.storage import RUN_FILE, DamagedPartError
from canasta_sim.runs.summary import Z_95, wilson_interval
from canasta_sim.tuning.run import TUNE_FILE, is_tuning_run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["CHARTS", "GAME_COLUMNS", "HAND_COLUMNS", "ROUND_ROBIN_CHARTS", "chart_words", "charts_for",
           "games_per_point", "plot_command", "write_charts"]

_PER_HAND, _SCORE_PARTS = PER_HAND, SCORE_PARTS  # the names scripts/clustered_errors.py reads them by
MIN_GAMES_PER_POINT = 20
"""Hand numbers reached by fewer games than this are left out of the cumulative-score chart (by fewer than half a
strategy's games, where it played fewer than twice as many: see :func:`games_per_point`)."""


def games_per_point(games: int) -> int:
    """How many of a strategy's ``games`` (those with a hand finished) must reach a hand number for the
    cumulative-score chart to show it: :data:`MIN_GAMES_PER_POINT`, or half of them (at least one) where there are too
    few for that, whose chart was an empty frame (a run of 6 games, a game played and saved); its bands say how
    little so few games tell."""
    return max(1, min(MIN_GAMES_PER_POINT, -(-games // 2)))


def _labels_with_hands(data: ChartData) -> list[str]:
    """The labels of ``hands`` (labelled by team) that have rows, the run's entrants first, each once."""
    return [label for label in dict.fromkeys([*data.entrants, *data.hands.labels]) if data.hands.labels.get(label)]


_RATES = frozenset({"went_out", "concealed", "no_initial_meld"})
"""Per-hand columns that are yes/no: their means are rates."""


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _nothing_to_draw(axes, why: str) -> None:
    """Say in an empty panel why it is empty, where bare axes (and a mean of nan) would leave the reader guessing."""
    axes.text(0.5, 0.5, f"nothing to draw: {why}", ha="center", va="center", transform=axes.transAxes,
              fontsize=10, wrap=True)
    axes.set_xticks([])
    axes.set_yticks([])


_NO_GAME_PLAYED_OUT = "no game was played out (every game was forfeited)"
_NO_HAND = "no hand was finished (every game was forfeited before its first hand ended)"


def _paired_intervals(data: ChartData) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    """For duplicate runs: ``(strategy, opponent) -> (score, low, high, deals)`` from both sides."""
    if not data.manifest.get("duplicate"):
        return {}
    found = {}
    names = data.names
    for result in data.matchmaking().paired:
        first, second = names.get(result.first, result.first), names.get(result.second, result.second)
        found[(first, second)] = (result.score, result.score_low, result.score_high, result.deals)
        found[(second, first)] = (result.second_score, 1 - result.score_high, 1 - result.score_low, result.deals)
    return found


def win_rates(run: LoadedRun | ChartData) -> Figure:
    """Win rate with its Wilson 95% interval per strategy: overall, then by side (A = seats 0 and 2) where it met one
    opponent (a round robin's pairs are the chart ``pairwise_scores``)."""
    data = chart_data(run)
    paired = _paired_intervals(data)
    tally = data.games
    colours = _colours(data)
    rows, spoken = [], []
    met = tally.labels()
    mirror = all(label.endswith((" (A)", " (B)")) for label in met)
    for label in dict.fromkeys([*data.entrants, *met]):
        opponents = tally.opponents(label)
        if not opponents:
            continue
        groups = [("all games", tally.count(label), opponents[0] if len(opponents) == 1 else None)]
        # A round robin's strategy against each other is the matrix of pairwise_scores: a bar for each ordered pair
        # made ten strategies' chart 100 rows, over 6,000 pixels tall.
        if len(opponents) == 1 and not mirror:
            groups += [("as side A", tally.count(label, side="A"), None),
                       ("as side B", tally.count(label, side="B"), None)]
        for what, (games, wins), opponent in groups:
            if games:
                rate, (low, high) = wins / games, wilson_interval(wins, games, digits=None)
                if (label, opponent) in paired:  # both games of each deal: the paired interval is the honest one
                    rate, low, high, deals = paired[(label, opponent)]
                    what += f" (paired, {deals} deals)"
                interval = "n/a" if math.isnan(low) else f"{100 * low:.1f}, {100 * high:.1f}"
                rows.append((f"{label}\n{what}", label, rate, low, high, f"{100 * rate:.1f}%  [{interval}]  n={games}"))
                spoken.append(f"{label}, {what}: {100 * rate:.1f}% ("
                              + ("no interval" if math.isnan(low) else f"95% interval {100 * low:.1f} to "
                                 f"{100 * high:.1f}%") + f", {counted(games, 'game')})")
    # A strategy's name with its spec can be long: each label is wrapped to at most 3.2 inches, and the title and the
    # caption to what the labels and the column of figures leave (constrained layout places the axes only when it
    # is drawn).
    ticks = ["\n".join(_wrapped(line, 3.2, 8) for line in row[0].split("\n")) for row in rows]
    label_width = max(len(line) for tick in ticks for line in tick.split("\n")) * 8 * 0.62 / 72
    figures_width = max(len(row[-1]) for row in rows) * 8 * 0.62 / 72 + 0.1
    figure = _new_figure(8, 1.2 + 0.55 * len(rows) + 0.12 * sum(tick.count("\n") - 1 for tick in ticks))
    axes_width = max(2.5, figure.get_figwidth() - label_width - figures_width - 0.5)
    axes = figure.add_subplot()
    # A share ends at 100%, and so does the axis: each row's figures stand in a column past its right edge, where
    # they take no room on the axis however near 100% an interval ends.
    beyond_the_axis = axes.get_yaxis_transform()  # x in the axes' width (1 is its right edge), y in rows
    for position, (_, label, rate, low, high, figures) in enumerate(reversed(rows)):
        axes.barh(position, 100 * rate, color=colours[label], alpha=0.85)
        if not math.isnan(low):  # deals that all gave the same points have no interval (docs/output.md)
            # Unclipped, so that an interval ending at 0% or 100% shows its whole cap on the axis's edge.
            axes.errorbar(100 * rate, position, xerr=[[100 * (rate - low)], [100 * (high - rate)]], fmt="none",
                          ecolor="black", capsize=4, clip_on=False)
        axes.text(1.02, position, figures, transform=beyond_the_axis, va="center", fontsize=8, clip_on=False)
    axes.set_yticks(range(len(rows)), list(reversed(ticks)), fontsize=8)
    axes.axvline(50, color="grey", linestyle="--", linewidth=1, label="50%")
    axes.set_xlim(0, 100)
    caption = "games won, % (bars: Wilson 95% interval)" if not paired else (
        "games won, % (bars: Wilson 95% interval; paired rows: score per game, draws half, with the 95% interval "
        "from deal-to-deal variation)")
    axes.set_xlabel(_wrapped(caption, axes_width, 10))
    title = f"Win rate: {_matchup(data)} ({counted(tally.games, 'game')})"
    axes.set_title(_wrapped(title, axes_width), fontsize=_TITLE_SIZE)
    axes.legend(loc="lower right", fontsize=8)
    say(figure, title, "; ".join(spoken))
    return figure


def margins(run: LoadedRun | ChartData) -> Figure:
    """The distribution of final margins: from the first strategy's side in a two-sided match (the other
    side's is its mirror image), one panel per strategy in a round robin."""
    data = chart_data(run)
    tally = data.games
    round_robin = len(data.entrants) >= 3
    first = data.entrants[0] if data.entrants else tally.first_played
    labels = [label for label in data.entrants if tally.margins.get(label)] if round_robin else [first]
    labels = labels or [first]  # a round robin whose every game was forfeited: one panel saying so
    # Beyond three strategies the panels stand in columns, so that the figure stays bounded: one above another,
    # ten strategies' made it 36 inches tall.
    columns = 1 if len(labels) <= 3 else 2 if len(labels) <= 6 else 3
    rows = -(-len(labels) // columns)
    figure = _new_figure(8 if columns == 1 else 4.6 * columns,
                         (1.5 + (3.5 if columns == 1 else 2.6) * rows) if round_robin else 5.0)
    grid = figure.subplots(rows, columns, sharex=True, squeeze=False)
    for unused in grid.flat[len(labels):]:
        unused.remove()
    panels = grid.flat[:len(labels)]
    for axes in panels:  # each panel has its own label: its figures too, above a gap in the grid as well
        axes.xaxis.set_tick_params(labelbottom=True)
    panel_width = figure.get_figwidth() / columns - 0.5
    spoken = []
    for axes, label in zip(panels, labels, strict=True):
        counts = tally.margins.get(label)
        if not counts:
            _nothing_to_draw(axes, _NO_GAME_PLAYED_OUT)
            spoken.append(f"nothing to draw: {_NO_GAME_PLAYED_OUT}")
            continue
        values = np.array(sorted(counts), dtype=np.int64)
        weights = np.array([counts[value] for value in sorted(counts)], dtype=np.int64)
        games = int(weights.sum())
        # The bins span the axis, which shows 0 too, 0 and the widest margin each at a bin's centre: fitted to the
        # margins alone, one game's (or games of one margin) got bins a tenth of a point wide, a bar too thin to see.
        bins = min(60, max(10, int(math.sqrt(games))))
        low, high = min(0.0, float(values.min())), max(0.0, float(values.max()))
        half = (high - low) / (bins - 1) / 2
        # Each margin once, weighted by its games: the bars count the games as the margins one by one would.
        axes.hist(values, bins=bins, weights=weights, range=(low - half, high + half) if half else None,
                  color=_colours(data)[label], alpha=0.85, label=f"{label}, n={counted(games, 'game')}")
        axes.axvline(0, color="grey", linewidth=1)
        mean = int((values * weights).sum()) / games
        axes.axvline(mean, color="black", linestyle="--", label=f"mean {mean:+z.0f} points")
        opponents = list(tally.margin_opponents[label])
        opponent = f"{opponents[0]}'s" if len(opponents) == 1 else "its opponent's"
        spoken.append(f"{label} total minus {opponent}: mean {mean:+z.0f} points over {counted(games, 'game')}, from "
                      f"{values.min():+d} to {values.max():+d}")
        axes.set_xlabel(_wrapped(f"final margin, points ({label} total minus {opponent} total)", panel_width, 10))
        axes.set_ylabel("games")
        _integer_ticks(axes.yaxis)
        if round_robin:
            _title(axes, f"{label} against all its opponents", 10)
        axes.legend(fontsize=8)
    title = f"Final margins: {_matchup(data)} ({counted(tally.played, 'game')} played out)"
    _suptitle(figure, title)
    say(figure, title, "; ".join(spoken))
    return figure


def hands_per_game(run: LoadedRun | ChartData) -> Figure:
    """How many hands games lasted."""
    data = chart_data(run)
    counts = pd.Series(data.games.hands, dtype=np.int64).sort_index()
    games = int(counts.sum())
    figure = _new_figure()
    axes = figure.add_subplot()
    axes.set_xlabel("hands in the game")
    axes.set_ylabel("games")
    title = f"Hands per game: {_matchup(data)} ({counted(games, 'game')} played out)"
    _title(axes, title)
    if not games:
        _nothing_to_draw(axes, _NO_GAME_PLAYED_OUT)
        say(figure, title, f"nothing to draw: {_NO_GAME_PLAYED_OUT}")
        return figure
    mean = int((counts.index.to_numpy() * counts.to_numpy()).sum()) / games
    say(figure, title, f"mean {mean:.2f} hands, from {counts.index.min()} to {counts.index.max()}; most often "
                        f"{counts.idxmax()} ({counted(int(counts.max()), 'game')})")
    axes.bar(counts.index, counts.to_numpy(), color="tab:gray", width=0.8,
             label=f"mean {mean:.2f} hands, n={counted(games, 'game')}")
    _integer_ticks(axes.xaxis)
    axes.legend()
    return figure


def _per_hand_frame(hands: pd.DataFrame) -> pd.DataFrame:
    """``hands`` with what the :data:`_PER_HAND` panels read beyond its columns: each team-hand's label, and whether
    the team made no initial meld (``scripts/clustered_errors.py`` reads the same)."""
    return hands.assign(label=label_teams(hands), no_initial_meld=~hands["melded"].astype(bool))


def per_hand_stats(run: LoadedRun | ChartData) -> Figure:
    """Per-hand statistics per strategy, with 95% intervals of the means."""
    data = chart_data(run)
    colours = _colours(data)
    labels = _labels_with_hands(data)
    upright = len(labels) <= 4
    longest = max((len(label) for label in labels), default=0) * 7 * 0.62 / 72
    figure = _new_figure(11, 9.5 if upright else 9.5 + 3 * min(longest, 1.5))
    spoken = []
    for index, (column, title, unit, scale) in enumerate(_PER_HAND):
        axes = figure.add_subplot(3, 3, index + 1)
        axes.set_title(title, fontsize=10)
        axes.set_ylabel(unit)
        if not labels:
            _nothing_to_draw(axes, "no hand was finished")
            continue
        for position, label in enumerate(labels):
            values = data.hands.moments[(label, column)]
            mean = values.mean
            if column in _RATES:  # a share: Wilson's interval, which stays within [0, 1], drawn at its exact ends
                low, high = wilson_interval(values.total, values.count, digits=None)
                below, above = max(mean - low, 0.0), max(high - mean, 0.0)
            else:  # a count: mean ± 1.96 standard errors, cut at 0 since no count is negative
                above = values.half_width()
                below = min(above, mean)
            axes.bar(position, scale * mean, yerr=[[scale * below], [scale * above]], capsize=4, color=colours[label],
                     label=f"{label} (n={values.count})")
        spoken.append(f"{title}: " + ", ".join(
            f"{label} " + (f"{100 * data.hands.moments[(label, column)].mean:.1f}%" if scale == 100
                           else f"{data.hands.moments[(label, column)].mean:.2f}") for label in labels))
        if upright:  # each name wrapped to its bar's share of the panel, so that neighbours never overlap
            axes.set_xticks(range(len(labels)), [_wrapped(label, 3.2 / max(len(labels), 1), 8) for label in labels],
                            fontsize=8)
        else:  # a bar's share of a panel is narrower than any name: on end, each takes only its line's height
            axes.set_xticks(range(len(labels)), labels, fontsize=7, rotation=90)
    counts = ", ".join(f"{label}: {data.hands.labels[label]}" for label in labels) or "none"
    title = f"Per-hand statistics: {_matchup(data)} (team-hands {counts}; bars: 95% interval, Wilson for the rates)"
    _suptitle(figure, title)
    say(figure, title, "; ".join(spoken) if labels else "nothing to draw: no hand was finished")
    return figure


def hand_scores(run: LoadedRun | ChartData) -> Figure:
    """The distribution of hand scores per strategy."""
    data = chart_data(run)
    by_label = data.hands.scores
    colours = _colours(data)
    every = sum(by_label.values(), Counter())
    low, high = quantiles(every, [0.002, 0.998]) if every else (0, 1)
    bins = np.arange(100 * math.floor(low / 100), 100 * math.ceil(high / 100) + 100, 100)
    figure = _new_figure()
    axes = figure.add_subplot()
    spoken = []
    for label in dict.fromkeys([*data.entrants, *data.hands.labels]):
        counts = by_label.get(label)
        if counts:
            scores = np.array(sorted(counts), dtype=np.int64)
            hands = np.array([counts[score] for score in sorted(counts)], dtype=np.int64)
            total = int(hands.sum())
            mean = int((scores * hands).sum()) / total
            # Each score once, weighted by its share of the team-hands: the bars the scores one by one would give.
            axes.hist(np.clip(scores, bins[0], bins[-1] - 1), bins=bins, weights=hands * (100 / total),
                      histtype="step", linewidth=1.8, color=colours[label],
                      label=f"{label}: mean {mean:+z.0f}, n={total} team-hands")
            low_tenth, median, high_tenth = quantiles(counts, [0.1, 0.5, 0.9])
            spoken.append(f"{label}: mean {mean:+z.0f} points, median {median:+z.0f}, "
                          f"the middle 80% from {low_tenth:+z.0f} to {high_tenth:+z.0f} ({total} team-hands)")
    axes.set_xlabel("hand score, points (bins of 100; extremes folded into the end bins)")
    axes.set_ylabel("% of team-hands")
    title = f"Hand scores: {_matchup(data)}"
    _title(axes, title)
    say(figure, title, "; ".join(spoken) or f"nothing to draw: {_NO_HAND}")
    if not every:
        _nothing_to_draw(axes, _NO_HAND)
        return figure
    _legend(axes, len(spoken))
    return figure


def score_components(run: LoadedRun | ChartData) -> Figure:
    """Where each strategy's points come from: the mean of each part of a hand's score (R14.1) per team-hand, the
    cards left in hand counted negative, beside the hand score they add up to, with 95% intervals."""
    data = chart_data(run)
    colours = _colours(data)
    labels = _labels_with_hands(data)
    figure = _new_figure(9, 5.5)
    axes = figure.add_subplot()
    width, spoken = 0.8 / max(len(labels), 1), []
    for offset, label in enumerate(labels):
        parts = [data.hands.moments[(label, column)] for column, _, _ in _SCORE_PARTS]
        means = [sign * values.mean for values, (_, _, sign) in zip(parts, _SCORE_PARTS, strict=True)]
        halves = [values.half_width() for values in parts]
        positions = np.arange(len(_SCORE_PARTS)) + (offset - (len(labels) - 1) / 2) * width
        axes.bar(positions, means, width=width, yerr=halves, capsize=3, color=colours[label],
                 label=f"{label} (n={data.hands.labels[label]} team-hands)")
        spoken.append(f"{label} ({data.hands.labels[label]} team-hands): " + ", ".join(
            f"{name} {mean:+z.0f}" for (_, name, _), mean in zip(_SCORE_PARTS, means, strict=True)))
    axes.axhline(0, color="grey", linewidth=1)
    axes.axvline(len(_SCORE_PARTS) - 1.5, color="grey", linestyle=":", linewidth=1)
    axes.set_xticks(range(len(_SCORE_PARTS)), [name for _, name, _ in _SCORE_PARTS], fontsize=9)
    axes.set_xlabel("part of the hand's score (R14.1): the first five add up to the last")
    axes.set_ylabel("mean points per team-hand")
    _title(axes, f"Where the points come from: {_matchup(data)} (bars: 95% interval)")
    say(figure, f"Where the points come from: {_matchup(data)}, mean points per team-hand",
        "; ".join(spoken) or f"nothing to draw: {_NO_HAND}")
    if not labels:
        _nothing_to_draw(axes, _NO_HAND)
        return figure
    _legend(axes, len(labels))
    return figure


def _by_hand(data: ChartData, label: str) -> pd.DataFrame:
    """A label's cumulative score by hand number: its mean, standard deviation and count, one row per hand number."""
    found = sorted((number, values) for (mine, number), values in data.hands.cumulative.items() if mine == label)
    return pd.DataFrame({"mean": [values.mean for _, values in found], "std": [values.std for _, values in found],
                         "count": [values.count for _, values in found]},
                        index=pd.Index([number for number, _ in found], name="hand_no"))


def cumulative_score(run: LoadedRun | ChartData) -> Figure:
    """Mean cumulative score by hand number, over the games still being played at that hand."""
    data = chart_data(run)
    colours = _colours(data)
    figure = _new_figure(8, 6.5)
    axes, counts_axes = figure.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    drawn, spoken = False, []
    for label in dict.fromkeys([*data.entrants, *data.hands.labels]):
        stats = _by_hand(data, label)
        started = data.hands.started[label]
        stats = stats[stats["count"] >= games_per_point(started)]
        if stats.empty:
            continue
        drawn = True
        half = Z_95 * stats["std"].fillna(0) / np.sqrt(stats["count"])
        axes.plot(stats.index, stats["mean"], marker="o", markersize=3, color=colours[label],
                  label=f"{label} ({counted(started, 'game')})")
        axes.fill_between(stats.index, stats["mean"] - half, stats["mean"] + half, color=colours[label], alpha=0.2)
        counts_axes.plot(stats.index, stats["count"], color=colours[label], drawstyle="steps-mid")
        spoken.append(f"{label} ({counted(started, 'game')}): " + ", ".join(
            f"{mean:.0f} after hand {number} ({counted(int(count), 'game')} in play)"
            for number, mean, count in zip(stats.index, stats["mean"], stats["count"], strict=True)))
    target = data.manifest.get("rules", {}).get("target_score")
    if target and drawn:
        axes.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target} points")
    axes.set_ylabel("mean cumulative score, points")
    _suptitle(figure, f"Cumulative score by hand: {_matchup(data)}")
    say(figure, f"Cumulative score by hand: {_matchup(data)}, the mean over the games still in play",
        "; ".join(spoken) or f"nothing to draw: {_NO_HAND}",
        f"target {target} points" if target and drawn else "")
    _title(axes, f"mean over the games still in play at each hand (band: 95% interval; "
                 f"hands reached by < {MIN_GAMES_PER_POINT} games, or by < half a strategy's games if fewer, "
                 "left out)", 9)
    counts_axes.set_title("games still in play", fontsize=9)
    if drawn:
        _legend(axes, len(spoken))
        _integer_ticks(counts_axes.xaxis)
    else:
        _nothing_to_draw(axes, _NO_HAND)
        counts_axes.set_xticks([])
        counts_axes.set_yticks([])
    counts_axes.set_xlabel("hand number")
    counts_axes.set_ylabel("games in play")
    return figure


CHARTS: dict[str, Callable[[LoadedRun | ChartData], Figure]] = {
    "win_rates": win_rates,
    "margins": margins,
    "hands_per_game": hands_per_game,
    "per_hand_stats": per_hand_stats,
    "hand_scores": hand_scores,
    "score_components": score_components,
    "cumulative_score": cumulative_score,
}
"""Chart name (the PNG's file name) to the function that draws it, for every run."""

ROUND_ROBIN_CHARTS: dict[str, Callable[[LoadedRun | ChartData], Figure]] = {"ratings": ratings,
                                                                           "pairwise_scores": pairwise_scores}
"""Charts drawn for round robins (three or more strategies) only."""


def charts_for(run: LoadedRun | ChartData) -> dict[str, Callable[[LoadedRun | ChartData], Figure]]:
    """The charts :func:`write_charts` draws for this run: :data:`CHARTS`, and more for a round robin."""
    return {**CHARTS, **(ROUND_ROBIN_CHARTS if len(run.entrants) >= 3 else {})}


def write_charts(run: LoadedRun | ChartData, out: Path, dpi: int = 110) -> list[Path]:
    """Draw every chart of :func:`charts_for` the run into ``out`` as ``<name>.png``; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    data = chart_data(run)  # tallied once for every chart
    written = []
    for name, draw in charts_for(data).items():
        path = out / f"{name}.png"
        _save_chart(draw(data), path, dpi)
        written.append(path)
    return written


def _check_plottable(path: Path) -> None:
    """Refuse a ``path`` that is neither a run's directory nor a tuning's in words naming both: the run's own
    words ("run directory ... does not exist") misled a user who meant a tuning."""
    accepted = "plot takes a run's or a tuning's directory"
    if not path.exists():
        raise fail(f"{path} does not exist: {accepted}")
    if not path.is_dir():
        raise fail(f"{path} is a file: {accepted}")
    if not (path / RUN_FILE).is_file():
        raise fail(f"{path} holds neither {RUN_FILE} nor {TUNE_FILE}: {accepted}")


@click.command("plot", cls=OneLineErrorCommand)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Folder for the PNG files (default: RUN_DIR/plots).")
@click.option("--dpi", type=WholeNumber(min=30, max=600), default=110, show_default=True,
              help="Resolution of the PNG files, in dots per inch.")
def plot_command(run_dir: Path, out: Path | None, dpi: int) -> None:
    """Draw PNG charts of the run in RUN_DIR: win rates, margins, hands per game, per-hand statistics, where the
    points come from, hand scores and the cumulative score by hand.

    For a tuning run (canasta-sim tune), draw the trajectory of every tuned parameter instead."""
    if is_tuning_run(run_dir):
        folder = _charts_folder(run_dir, out)
        try:
            _write_to(folder, lambda path: write_tuning_charts(run_dir, path, dpi))
        except CanastaError as error:
            raise fail(str(error)) from None
        return
    _check_plottable(run_dir)
    try:
        run = ChartData.of_directory(run_dir)
    except DamagedPartError:
        raise  # exit code 1 (OneLineErrorCommand): the run is damaged, not the arguments wrong
    except CanastaError as error:
        raise fail(str(error)) from None
    _write_to(_charts_folder(run_dir, out), lambda path: write_charts(run, path, dpi))


@dataclasses.dataclass(frozen=True)
class _ChartsFolder:
    """Where the charts go: ``--out``, or ``plots/`` in the run."""

    path: Path
    given: bool
    """Whether ``--out`` named it: a refusal names the option the user gave, or, for the run's own ``plots/`` (a run
    made read-only after publishing, say), the option that writes the charts elsewhere."""

    def refused(self, why: str) -> click.UsageError:
        """The one line refusing the folder."""
        return fail(f"--out {self.path}: {why}" if self.given
                    else f"{self.path}: {why}; give --out FOLDER to write the charts elsewhere")


def _charts_folder(run_dir: Path, out: Path | None) -> _ChartsFolder:
    """Where the charts go; a file there is refused in one line."""
    folder = _ChartsFolder(out if out is not None else run_dir / "plots", given=out is not None)
    if not folder.given and folder.path.is_symlink():  # a downloaded folder's plots/ may point at one of the user's
        raise fail(f"{folder.path} is a link, not a folder of the run's own; remove it or give --out FOLDER for the "
                   "charts")
    if folder.path.exists() and not folder.path.is_dir():
        raise fail(f"--out {folder.path} is a file; give a folder for the charts" if folder.given
                   else f"{folder.path} is a file; give --out FOLDER for the charts")
    return folder


def _write_to(folder: _ChartsFolder, write: Callable[[Path], list[Path]]) -> None:
    """Draw the charts into ``folder`` with ``write`` and print the files written, or refuse the folder in one line."""
    try:
        written = write(folder.path)
    except OSError as error:
        raise folder.refused(error.strerror or str(error)) from None
    for path in written:
        click.echo(str(path))
