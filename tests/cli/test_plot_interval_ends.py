"""The per-hand chart draws a rare rate's Wilson interval at its exact ends: the summary's four decimals would
move the lower end of 6 concealed outs in 18,906 hands (0.0146%) to 0.01%.  The win-rate chart's axis ends at
100%, with an interval that ends there drawn whole."""

import math
from pathlib import Path

import pandas as pd

from canasta_sim.analysis import LoadedRun
from canasta_sim.cli.plot import CHARTS
from canasta_sim.runs.summary import wilson_interval

HANDS = 18906
CONCEALED = 6


def rare_rate_run() -> LoadedRun:
    """Two strategies' hands, x going out concealed in 6 of them (built by hand: no games are played)."""
    rows = []
    for team, strategy, opponent in (("A", "x", "y"), ("B", "y", "x")):
        frame = pd.DataFrame({
            "game_id": range(HANDS), "hand_no": 1, "team": team, "strategy": strategy, "opponent_strategy": opponent,
            "score": 500, "cumulative_score": 500, "pile_takes": 1, "frozen_pile_takes": 0, "pile_freezes": 0,
            "canasta_natural": 0, "canasta_mixed": 1, "red_threes": 1, "melded": True,
            "went_out": [index % 2 == (team == "B") for index in range(HANDS)],
            "concealed": [team == "A" and index < 2 * CONCEALED and index % 2 == 0 for index in range(HANDS)],
        })
        rows.append(frame)
    hands = pd.concat(rows, ignore_index=True)
    games = pd.DataFrame({"game_id": range(HANDS), "team_a_strategy": "x", "team_b_strategy": "y", "winner": "A",
                          "margin": 10, "hands": 1, "termination": "target"})
    manifest = {"strategies": [{"spec": "x", "label": "x@1"}, {"spec": "y", "label": "y@1"}]}
    return LoadedRun(Path("nowhere"), manifest, games, hands)


def test_a_rare_rate_is_drawn_with_the_exact_ends_of_its_wilson_interval():
    figure = CHARTS["per_hand_stats"](rare_rate_run())
    (axes,) = [axes for axes in figure.axes if axes.get_title() == "went out concealed"]
    (segment, _) = [segment for container in axes.containers if hasattr(container, "lines")
                    for segment in container.lines[2][0].get_segments()]
    low, high = wilson_interval(CONCEALED, HANDS, digits=None)
    assert math.isclose(segment[:, 1].min(), 100 * low, rel_tol=1e-9), (segment, low)
    assert math.isclose(segment[:, 1].max(), 100 * high, rel_tol=1e-9), (segment, high)
    assert wilson_interval(CONCEALED, HANDS) == (round(low, 4), round(high, 4))  # the tables keep four decimals


def test_an_exact_interval_holds_the_proportion_even_at_none_and_all():
    # Unrounded, the float sums at 0 or n of n can miss the proportion by 1e-16: a negative error bar, which
    # matplotlib refuses, for a strategy that won every game of a side.
    for trials in range(1, 400):
        for successes in (0, 1, trials - 1, trials):
            low, high = wilson_interval(successes, trials, digits=None)
            assert low <= successes / trials <= high, (successes, trials, low, high)


def test_the_win_rate_axis_ends_at_100_percent_with_every_interval_and_its_figures_in_view():
    # The axis ran to 130% (a tick at 120%) to leave room for the figures beside each interval; a share ends at 100%.
    games = pd.DataFrame({"game_id": range(12), "team_a_strategy": ["x", "y"] * 6, "team_b_strategy": ["y", "x"] * 6,
                          "winner": ["A", "B"] * 6, "margin": [40, -40] * 6, "hands": 2, "termination": "target"})
    manifest = {"strategies": [{"spec": "x", "label": "x@1"}, {"spec": "y", "label": "y@1"}]}
    hands = pd.DataFrame({"game_id": 0, "hand_no": 1, "team": ["A", "B"], "strategy": ["x", "y"],
                          "opponent_strategy": ["y", "x"]})
    figure = CHARTS["win_rates"](LoadedRun(Path("nowhere"), manifest, games, hands))
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    (axes,) = figure.axes
    assert axes.get_xlim() == (0.0, 100.0)
    ends = [segment[:, 0] for container in axes.containers if hasattr(container, "lines")
            for segment in container.lines[2][0].get_segments()]
    assert min(end.min() for end in ends) == 0.0 and max(end.max() for end in ends) == 100.0  # x won every game
    caps = [cap for container in axes.containers if hasattr(container, "lines") for cap in container.lines[1]]
    assert caps and not any(cap.get_clip_on() for cap in caps)  # a cap on the axis's edge is drawn whole
    edge = axes.get_window_extent(renderer).x1
    assert [text.get_text().split("%")[0] for text in axes.texts] == ["0.0", "0.0", "0.0", "100.0", "100.0", "100.0"]
    for text in axes.texts:  # each row's figures past the axis's right edge, inside the figure
        box = text.get_window_extent(renderer)
        assert edge < box.x0 and box.x1 <= figure.bbox.width, (text.get_text(), box, edge, figure.bbox.width)
