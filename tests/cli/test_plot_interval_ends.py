"""The per-hand chart draws a rare rate's Wilson interval at its exact ends: the summary's four decimals would
move the lower end of 6 concealed outs in 18,906 hands (0.0146%) to 0.01%."""

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
            "score": 500, "cumulative_score": 500, "pile_takes": 1, "canasta_natural": 0, "canasta_mixed": 1,
            "red_threes": 1, "went_out": [index % 2 == (team == "B") for index in range(HANDS)],
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
