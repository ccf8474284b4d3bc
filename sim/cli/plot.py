"""``canasta-sim plot RUN_DIR``: PNG charts of a run, drawn with matplotlib's Agg backend (no display needed).

Each chart is one function taking a :class:`~canasta_sim.analysis.LoadedRun` and returning a matplotlib
:class:`~matplotlib.figure.Figure`, so a notebook can draw them too::

    from canasta_sim.analysis import load_run
    from canasta_sim.cli.plot import CHARTS
    figure = CHARTS["win_rates"](load_run("results/example"))

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

import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np
import pandas as pd

from canasta_sim.analysis import LoadedRun, label_teams, load_run, matchmaking, strategy_names, with_strategy_names
from canasta_sim.cli.options import OneLineErrorCommand, WholeNumber, counted, fail
from canasta_sim.cli.plot_tuning import write_tuning_charts
from canasta_sim.errors import CanastaError
from canasta_sim.runs.storage import RUN_FILE, DamagedPartError
from canasta_sim.runs.summary import Z_95, side_labels, wilson_interval
from canasta_sim.tuning.run import TUNE_FILE, is_tuning_run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["CHARTS", "ROUND_ROBIN_CHARTS", "charts_for", "games_per_point", "plot_command", "write_charts"]

GAME_COLUMNS = ["team_a_strategy", "team_b_strategy", "winner", "margin", "hands", "termination"]
HAND_COLUMNS = ["hand_no", "team", "strategy", "opponent_strategy", "score", "cumulative_score", "pile_takes",
                "frozen_pile_takes", "pile_freezes", "canasta_natural", "canasta_mixed", "red_threes", "went_out",
                "concealed", "melded", "meld_points", "canasta_bonus", "going_out_bonus", "red_three_bonus",
                "hand_penalty"]
MIN_GAMES_PER_POINT = 20
"""Hand numbers reached by fewer games than this are left out of the cumulative-score chart (by fewer than half a
strategy's games, where it played fewer than twice as many: see :func:`games_per_point`)."""


def games_per_point(games: int) -> int:
    """How many of a strategy's ``games`` (those with a hand finished) must reach a hand number for the
    cumulative-score chart to show it: :data:`MIN_GAMES_PER_POINT`, or half of them (at least one) where there are too
    few for that, whose chart was an empty frame (a run of 6 games, a game played and saved); its bands say how
    little so few games tell."""
    return max(1, min(MIN_GAMES_PER_POINT, -(-games // 2)))


def _new_figure(width: float = 8.0, height: float = 5.0) -> Figure:
    # Imported here so that every other command starts without loading matplotlib.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


_TITLE_SIZE = 12.0
"""Matplotlib's default title size in points (``large``)."""


def _wrapped(text: str, width: float, size: float = _TITLE_SIZE) -> str:
    """``text`` broken at spaces into lines that fit ``width`` inches at ``size`` points.

    An average glyph of the default font (DejaVu Sans) is about 0.6 of the size wide; 0.62 leaves a margin.
    """
    columns = max(12, int(width * 72 / (size * 0.62)))
    return "\n".join(textwrap.wrap(text, columns, break_on_hyphens=False)) or text


def _title(axes, text: str, size: float = _TITLE_SIZE) -> None:
    """An axes' title wrapped to the axes' share of its figure's width."""
    width = axes.figure.get_figwidth() * axes.get_position().width
    axes.set_title(_wrapped(text, width, size), fontsize=size)


def _suptitle(figure: Figure, text: str) -> None:
    """A figure's title wrapped to the figure's width."""
    figure.suptitle(_wrapped(text, figure.get_figwidth() * 0.96), fontsize=_TITLE_SIZE)


def _colours(run: LoadedRun) -> dict[str, str]:
    labels = list(dict.fromkeys([*run.entrants, *sorted(set(label_teams(run.hands)))]))
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]
    return {label: palette[index % len(palette)] for index, label in enumerate(labels)}


def _labels_with_hands(run: LoadedRun, hands) -> list[str]:
    """The labels of ``hands`` (labelled by team) that have rows, the run's entrants first, each once."""
    return [label for label in dict.fromkeys([*run.entrants, *hands["label"]]) if (hands["label"] == label).any()]


def _half_width(values: np.ndarray) -> float:
    """Half the width of the normal 95% interval of ``values``' mean (0 under two values: no bar to draw)."""
    return Z_95 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def _matchup(run: LoadedRun) -> str:
    specs = [entry.get("spec") for entry in run.manifest.get("strategies", [])]
    if len(specs) >= 3:
        return f"round robin of {len(specs)}"
    return " vs ".join(specs) if len(specs) == 2 else f"{specs[0]} mirror match" if specs else "run"


def _played(run: LoadedRun) -> pd.DataFrame:
    return run.games[run.games["termination"] != "forfeit"]


def _team_games(games: pd.DataFrame) -> pd.DataFrame:
    """One row per team per game: label, opponent's label, side, won, own margin."""
    pairs = [side_labels(a, b) for a, b in
             zip(games["team_a_strategy"].astype(str), games["team_b_strategy"].astype(str), strict=True)]
    frames = []
    for side, own, other, sign in (("A", 0, 1, 1), ("B", 1, 0, -1)):
        frames.append(pd.DataFrame({
            "label": [pair[own] for pair in pairs],
            "opponent": [pair[other] for pair in pairs],
            "side": side,
            "won": (games["winner"] == side).to_numpy(),
            "margin": sign * games["margin"].to_numpy(),
        }))
    return pd.concat(frames, ignore_index=True)


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


def _paired_intervals(run: LoadedRun) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    """For duplicate runs: ``(strategy, opponent) -> (score, low, high, deals)`` from both sides."""
    if not run.manifest.get("duplicate"):
        return {}
    found = {}
    names = strategy_names(run)
    for result in matchmaking(run).paired:
        first, second = names.get(result.first, result.first), names.get(result.second, result.second)
        found[(first, second)] = (result.score, result.score_low, result.score_high, result.deals)
        found[(second, first)] = (1 - result.score, 1 - result.score_high, 1 - result.score_low, result.deals)
    return found


def win_rates(run: LoadedRun) -> Figure:
    """Win rate with its Wilson 95% interval per strategy: overall, then by side (A = seats 0 and 2), or
    by opponent in a round robin."""
    paired = _paired_intervals(run)
    run = with_strategy_names(run)
    teams = _team_games(run.games)
    colours = _colours(run)
    rows = []
    mirror = all(label.endswith((" (A)", " (B)")) for label in teams["label"].unique())
    for label in dict.fromkeys([*run.entrants, *teams["label"]]):
        mine = teams[teams["label"] == label]
        if mine.empty:
            continue
        opponents = list(dict.fromkeys(mine["opponent"]))
        groups = [("all games", mine, opponents[0] if len(opponents) == 1 else None)]
        if len(opponents) > 1:
            groups += [(f"vs {opponent}", mine[mine.opponent == opponent], opponent) for opponent in opponents]
        elif not mirror:
            groups += [("as side A", mine[mine.side == "A"], None), ("as side B", mine[mine.side == "B"], None)]
        for what, group, opponent in groups:
            if len(group):
                wins, games = int(group["won"].sum()), len(group)
                rate, (low, high) = wins / games, wilson_interval(wins, games, digits=None)
                if (label, opponent) in paired:  # both games of each deal: the paired interval is the honest one
                    rate, low, high, deals = paired[(label, opponent)]
                    what += f" (paired, {deals} deals)"
                interval = "n/a" if math.isnan(low) else f"{100 * low:.1f}, {100 * high:.1f}"
                rows.append((f"{label}\n{what}", label, rate, low, high, f"{100 * rate:.1f}%  [{interval}]  n={games}"))
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
    axes.set_title(_wrapped(f"Win rate: {_matchup(run)} ({counted(len(run.games), 'game')})", axes_width),
                   fontsize=_TITLE_SIZE)
    axes.legend(loc="lower right", fontsize=8)
    return figure


def margins(run: LoadedRun) -> Figure:
    """The distribution of final margins: from the first strategy's side in a two-sided match (the other
    side's is its mirror image), one panel per strategy in a round robin."""
    run = with_strategy_names(run)
    teams = _team_games(_played(run))
    round_robin = len(run.entrants) >= 3
    first = run.entrants[0] if run.entrants else teams["label"].iloc[0]
    labels = [label for label in run.entrants if (teams["label"] == label).any()] if round_robin else [first]
    labels = labels or [first]  # a round robin whose every game was forfeited: one panel saying so
    figure = _new_figure(8, 1.5 + 3.5 * len(labels) if round_robin else 5.0)
    panels = figure.subplots(len(labels), 1, sharex=True, squeeze=False)[:, 0]
    played = len(_played(run))
    for axes, label in zip(panels, labels, strict=True):
        mine = teams[teams["label"] == label]
        values = mine["margin"].to_numpy()
        if not len(values):
            _nothing_to_draw(axes, _NO_GAME_PLAYED_OUT)
            continue
        # The bins span the axis, which shows 0 too, 0 and the widest margin each at a bin's centre: fitted to the
        # margins alone, one game's (or games of one margin) got bins a tenth of a point wide, a bar too thin to see.
        bins = min(60, max(10, int(math.sqrt(len(values)))))
        low, high = min(0.0, float(values.min())), max(0.0, float(values.max()))
        half = (high - low) / (bins - 1) / 2
        axes.hist(values, bins=bins, range=(low - half, high + half) if half else None, color=_colours(run)[label],
                  alpha=0.85, label=f"{label}, n={counted(len(values), 'game')}")
        axes.axvline(0, color="grey", linewidth=1)
        mean = float(np.mean(values)) if len(values) else math.nan
        axes.axvline(mean, color="black", linestyle="--", label=f"mean {mean:+.0f} points")
        opponents = list(dict.fromkeys(mine["opponent"]))
        opponent = f"{opponents[0]}'s" if len(opponents) == 1 else "its opponent's"
        axes.set_xlabel(_wrapped(f"final margin, points ({label} total minus {opponent} total)", 7.5, 10))
        axes.set_ylabel("games")
        _integer_ticks(axes.yaxis)
        if round_robin:
            _title(axes, f"{label} against all its opponents", 10)
        axes.legend(fontsize=8)
    _suptitle(figure, f"Final margins: {_matchup(run)} ({counted(played, 'game')} played out)")
    return figure


def hands_per_game(run: LoadedRun) -> Figure:
    """How many hands games lasted."""
    run = with_strategy_names(run)
    hands = _played(run)["hands"]
    counts = hands.value_counts().sort_index()
    figure = _new_figure()
    axes = figure.add_subplot()
    axes.set_xlabel("hands in the game")
    axes.set_ylabel("games")
    _title(axes, f"Hands per game: {_matchup(run)} ({counted(len(hands), 'game')} played out)")
    if hands.empty:
        _nothing_to_draw(axes, _NO_GAME_PLAYED_OUT)
        return figure
    axes.bar(counts.index, counts.to_numpy(), color="tab:gray", width=0.8,
             label=f"mean {hands.mean():.2f} hands, n={counted(len(hands), 'game')}")
    _integer_ticks(axes.xaxis)
    axes.legend()
    return figure


_PER_HAND = (
    ("pile_takes", "pile takes per hand", "takes per team-hand", 1),
    ("frozen_pile_takes", "takes of a frozen pile per hand", "takes per team-hand", 1),
    ("pile_freezes", "discards freezing the pile per hand", "discards per team-hand", 1),
    ("canasta_natural", "natural canastas per hand", "canastas per team-hand", 1),
    ("canasta_mixed", "mixed canastas per hand", "canastas per team-hand", 1),
    ("red_threes", "red 3s per hand", "red 3s per team-hand", 1),
    ("went_out", "went out", "% of team-hands", 100),
    ("concealed", "went out concealed", "% of team-hands", 100),
    ("no_initial_meld", "no initial meld made", "% of team-hands", 100),
)


def _per_hand_frame(hands: pd.DataFrame) -> pd.DataFrame:
    """``hands`` with what the :data:`_PER_HAND` panels read beyond its columns: each team-hand's label, and whether
    the team made no initial meld (``scripts/clustered_errors.py`` reads the same)."""
    return hands.assign(label=label_teams(hands), no_initial_meld=~hands["melded"].astype(bool))


def per_hand_stats(run: LoadedRun) -> Figure:
    """Per-hand statistics per strategy, with 95% intervals of the means."""
    run = with_strategy_names(run)
    hands = _per_hand_frame(run.hands)
    colours = _colours(run)
    labels = _labels_with_hands(run, hands)
    figure = _new_figure(11, 9.5)
    for index, (column, title, unit, scale) in enumerate(_PER_HAND):
        axes = figure.add_subplot(3, 3, index + 1)
        axes.set_title(title, fontsize=10)
        axes.set_ylabel(unit)
        if not labels:
            _nothing_to_draw(axes, "no hand was finished")
            continue
        for position, label in enumerate(labels):
            values = hands.loc[hands["label"] == label, column].astype(float).to_numpy()
            mean = values.mean()
            if column in _RATES:  # a share: Wilson's interval, which stays within [0, 1], drawn at its exact ends
                low, high = wilson_interval(int(values.sum()), len(values), digits=None)
                below, above = max(mean - low, 0.0), max(high - mean, 0.0)
            else:  # a count: mean ± 1.96 standard errors, cut at 0 since no count is negative
                above = _half_width(values)
                below = min(above, mean)
            axes.bar(position, scale * mean, yerr=[[scale * below], [scale * above]], capsize=4, color=colours[label],
                     label=f"{label} (n={len(values)})")
        # Each name wrapped to its bar's share of the panel, so that neighbours never overlap.
        ticks = [_wrapped(label, 3.2 / max(len(labels), 1), 8) for label in labels]
        axes.set_xticks(range(len(labels)), ticks, fontsize=8)
    counts = ", ".join(f"{label}: {(hands['label'] == label).sum()}" for label in labels) or "none"
    _suptitle(figure, f"Per-hand statistics: {_matchup(run)} (team-hands {counts}; bars: 95% interval, Wilson for "
                      "the rates)")
    return figure


def hand_scores(run: LoadedRun) -> Figure:
    """The distribution of hand scores per strategy."""
    run = with_strategy_names(run)
    hands = run.hands.assign(label=label_teams(run.hands))
    colours = _colours(run)
    low, high = hands["score"].quantile([0.002, 0.998]).to_numpy() if len(hands) else (0, 1)
    bins = np.arange(100 * math.floor(low / 100), 100 * math.ceil(high / 100) + 100, 100)
    figure = _new_figure()
    axes = figure.add_subplot()
    for label in dict.fromkeys([*run.entrants, *hands["label"]]):
        scores = hands.loc[hands["label"] == label, "score"].to_numpy()
        if len(scores):
            weights = np.full(len(scores), 100 / len(scores))
            axes.hist(np.clip(scores, bins[0], bins[-1] - 1), bins=bins, weights=weights, histtype="step",
                      linewidth=1.8, color=colours[label],
                      label=f"{label}: mean {scores.mean():+.0f}, n={len(scores)} team-hands")
    axes.set_xlabel("hand score, points (bins of 100; extremes folded into the end bins)")
    axes.set_ylabel("% of team-hands")
    _title(axes, f"Hand scores: {_matchup(run)}")
    if hands.empty:
        _nothing_to_draw(axes, _NO_HAND)
        return figure
    axes.legend(fontsize=8)
    return figure


_SCORE_PARTS = (
    ("meld_points", "melds", 1),
    ("canasta_bonus", "canasta bonus", 1),
    ("going_out_bonus", "going out", 1),
    ("red_three_bonus", "red 3s", 1),
    ("hand_penalty", "cards left in hand", -1),
    ("score", "hand score", 1),
)
"""The parts of a hand's score (R14.1) with the sign they add with, and the score they add up to."""


def score_components(run: LoadedRun) -> Figure:
    """Where each strategy's points come from: the mean of each part of a hand's score (R14.1) per team-hand, the
    cards left in hand counted negative, beside the hand score they add up to, with 95% intervals."""
    run = with_strategy_names(run)
    hands = run.hands.assign(label=label_teams(run.hands))
    colours = _colours(run)
    labels = _labels_with_hands(run, hands)
    figure = _new_figure(9, 5.5)
    axes = figure.add_subplot()
    width = 0.8 / max(len(labels), 1)
    for offset, label in enumerate(labels):
        mine = hands[hands["label"] == label]
        means, halves = [], []
        for column, _, sign in _SCORE_PARTS:
            values = sign * mine[column].astype(float).to_numpy()
            means.append(values.mean())
            halves.append(_half_width(values))
        positions = np.arange(len(_SCORE_PARTS)) + (offset - (len(labels) - 1) / 2) * width
        axes.bar(positions, means, width=width, yerr=halves, capsize=3, color=colours[label],
                 label=f"{label} (n={len(mine)} team-hands)")
    axes.axhline(0, color="grey", linewidth=1)
    axes.axvline(len(_SCORE_PARTS) - 1.5, color="grey", linestyle=":", linewidth=1)
    axes.set_xticks(range(len(_SCORE_PARTS)), [name for _, name, _ in _SCORE_PARTS], fontsize=9)
    axes.set_xlabel("part of the hand's score (R14.1): the first five add up to the last")
    axes.set_ylabel("mean points per team-hand")
    _title(axes, f"Where the points come from: {_matchup(run)} (bars: 95% interval)")
    if not labels:
        _nothing_to_draw(axes, _NO_HAND)
        return figure
    axes.legend(fontsize=8)
    return figure


def cumulative_score(run: LoadedRun) -> Figure:
    """Mean cumulative score by hand number, over the games still being played at that hand."""
    run = with_strategy_names(run)
    hands = run.hands.assign(label=label_teams(run.hands))
    colours = _colours(run)
    figure = _new_figure(8, 6.5)
    axes, counts_axes = figure.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    drawn = False
    for label in dict.fromkeys([*run.entrants, *hands["label"]]):
        mine = hands[hands["label"] == label]
        stats = mine.groupby("hand_no")["cumulative_score"].agg(["mean", "std", "count"])
        stats = stats[stats["count"] >= games_per_point(int(mine["hand_no"].eq(1).sum()))]
        if stats.empty:
            continue
        drawn = True
        half = Z_95 * stats["std"].fillna(0) / np.sqrt(stats["count"])
        axes.plot(stats.index, stats["mean"], marker="o", markersize=3, color=colours[label],
                  label=f"{label} ({counted(int(mine['hand_no'].eq(1).sum()), 'game')})")
        axes.fill_between(stats.index, stats["mean"] - half, stats["mean"] + half, color=colours[label], alpha=0.2)
        counts_axes.plot(stats.index, stats["count"], color=colours[label], drawstyle="steps-mid")
    target = run.manifest.get("rules", {}).get("target_score")
    if target and drawn:
        axes.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target} points")
    axes.set_ylabel("mean cumulative score, points")
    _suptitle(figure, f"Cumulative score by hand: {_matchup(run)}")
    _title(axes, f"mean over the games still in play at each hand (band: 95% interval; "
                 f"hands reached by < {MIN_GAMES_PER_POINT} games, or by < half a strategy's games if fewer, "
                 "left out)", 9)
    counts_axes.set_title("games still in play", fontsize=9)
    if drawn:
        axes.legend(fontsize=8)
        _integer_ticks(counts_axes.xaxis)
    else:
        _nothing_to_draw(axes, _NO_HAND)
        counts_axes.set_xticks([])
        counts_axes.set_yticks([])
    counts_axes.set_xlabel("hand number")
    counts_axes.set_ylabel("games in play")
    return figure


def ratings(run: LoadedRun) -> Figure:
    """A round robin's Bradley-Terry ratings: Elo relative to the entrants' mean, with 95% intervals."""
    fitted = sorted(matchmaking(run).ratings, key=lambda rating: rating.elo)
    names = strategy_names(run)
    run = with_strategy_names(run)
    colours = _colours(run)
    figure = _new_figure(8, 1.5 + 0.6 * len(fitted))
    axes = figure.add_subplot()
    for position, rating in enumerate(fitted):
        axes.errorbar(rating.elo, position, xerr=[[rating.elo - rating.low], [rating.high - rating.elo]], fmt="o",
                      color=colours.get(names.get(rating.name, rating.name), "black"), capsize=4)
        axes.text(rating.high + 5, position, f"{rating.elo:+.0f} [{rating.low:+.0f}, {rating.high:+.0f}]  "
                  f"n={counted(rating.games, 'game')}", va="center", fontsize=8)
    axes.set_yticks(range(len(fitted)), [names.get(rating.name, rating.name) for rating in fitted], fontsize=8)
    axes.axvline(0, color="grey", linestyle="--", linewidth=1, label="the entrants' mean")
    axes.set_xlabel("Elo relative to the mean (Bradley-Terry fit; bars: 95% interval)")
    if fitted:
        low, high = min(rating.low for rating in fitted), max(rating.high for rating in fitted)
        axes.set_xlim(low - 0.05 * (high - low + 1), high + 0.45 * (high - low + 1))
    _title(axes, f"Ratings: {_matchup(run)} ({counted(len(run.games), 'game')})")
    axes.legend(loc="lower right", fontsize=8)
    return figure


CHARTS: dict[str, Callable[[LoadedRun], Figure]] = {
    "win_rates": win_rates,
    "margins": margins,
    "hands_per_game": hands_per_game,
    "per_hand_stats": per_hand_stats,
    "hand_scores": hand_scores,
    "score_components": score_components,
    "cumulative_score": cumulative_score,
}
"""Chart name (the PNG's file name) to the function that draws it, for every run."""

ROUND_ROBIN_CHARTS: dict[str, Callable[[LoadedRun], Figure]] = {"ratings": ratings}
"""Charts drawn for round robins (three or more strategies) only."""


def charts_for(run: LoadedRun) -> dict[str, Callable[[LoadedRun], Figure]]:
    """The charts :func:`write_charts` draws for this run: :data:`CHARTS`, and more for a round robin."""
    return {**CHARTS, **(ROUND_ROBIN_CHARTS if len(run.entrants) >= 3 else {})}


def write_charts(run: LoadedRun, out: Path, dpi: int = 110) -> list[Path]:
    """Draw every chart of :func:`charts_for` the run into ``out`` as ``<name>.png``; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in charts_for(run).items():
        path = out / f"{name}.png"
        draw(run).savefig(path, dpi=dpi)
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
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Folder for the PNG files (default: RUN_DIR/plots).")
@click.option("--dpi", type=WholeNumber(min=30, max=600), default=110, show_default=True, help="Resolution.")
def plot_command(run_dir: Path, out: Path | None, dpi: int) -> None:
    """Draw PNG charts of the run in RUN_DIR: win rates, margins, hands per game, per-hand statistics, where the
    points come from, hand scores and the cumulative score by hand.

    For a tuning run (canasta-sim tune), draw the trajectory of every tuned parameter instead."""
    if is_tuning_run(run_dir):
        _plot_tuning(run_dir, out, dpi)
        return
    _check_plottable(run_dir)
    try:
        run = load_run(run_dir, games_columns=GAME_COLUMNS, hands_columns=HAND_COLUMNS, require_games=True)
    except DamagedPartError:
        raise  # exit code 1 (OneLineErrorCommand): the run is damaged, not the arguments wrong
    except CanastaError as error:
        raise fail(str(error)) from None
    out = _charts_folder(run_dir, out)
    try:
        written = write_charts(run, out, dpi)
    except OSError as error:
        raise fail(f"--out {out}: {error.strerror or error}") from None
    for path in written:
        click.echo(str(path))


def _charts_folder(run_dir: Path, out: Path | None) -> Path:
    """Where the charts go: ``--out``, or ``plots/`` in the run; a file there is refused in one line."""
    out = out if out is not None else run_dir / "plots"
    if out.exists() and not out.is_dir():
        raise fail(f"--out {out} is a file; give a folder for the charts")
    return out


def _plot_tuning(run_dir: Path, out: Path | None, dpi: int) -> None:
    out = _charts_folder(run_dir, out)
    try:
        written = write_tuning_charts(run_dir, out, dpi)
    except CanastaError as error:
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"--out {out}: {error.strerror or error}") from None
    for path in written:
        click.echo(str(path))
