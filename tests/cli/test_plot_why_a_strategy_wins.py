"""The charts that say why a strategy wins: where its points come from (the parts of a hand's score, R14.1), and how
often it takes a frozen pile, freezes the pile (R8.1b) or fails to make its initial meld (R10), each bar the mean of
the ``hands`` column it names."""

import numpy as np
import pytest
from click.testing import CliRunner

from canasta_sim.analysis import load_run
from canasta_sim.cli import main
from canasta_sim.cli.plot import CHARTS, HAND_COLUMNS
from canasta_sim.plugins.loader import load_strategy

GREEDY, RANDOM = (load_strategy(spec).label for spec in ("greedy", "random"))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("why") / "run"
    result = CliRunner().invoke(main, ["run", "--games", "16", "--seed", "5", "-s", "greedy", "-s", "random",
                                       "--workers", "1", "--rules", "target_score=1000", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    # As `canasta-sim plot` loads it: only the columns the charts read.
    return load_run(out, hands_columns=HAND_COLUMNS, games_columns=["team_a_strategy", "team_b_strategy", "winner",
                                                                     "margin", "hands", "termination"])


def _bar_heights(axes) -> dict[str, list[float]]:
    """Each series' bar heights, by the series' legend label up to its first space."""
    return {container.get_label().split(" ")[0]: [bar.get_height() for bar in container]
            for container in axes.containers if hasattr(container, "patches")}


@pytest.mark.timeout(60)
def test_the_score_parts_chart_shows_each_parts_mean_and_they_add_up_to_the_hand_score(run):
    axes = CHARTS["score_components"](run).axes[0]
    labels = [tick.get_text() for tick in axes.get_xticklabels()]
    assert labels == ["melds", "canasta bonus", "going out", "red 3s", "cards left in hand", "hand score"]
    assert "points" in axes.get_ylabel() and "Where the points come from" in axes.get_title()
    heights = _bar_heights(axes)
    assert set(heights) == {GREEDY, RANDOM}
    for spec, label in (("greedy", GREEDY), ("random", RANDOM)):
        mine = run.hands[run.hands["strategy"] == spec]
        expected = [mine[column].mean() for column in ("meld_points", "canasta_bonus", "going_out_bonus",
                                                       "red_three_bonus")]
        expected += [-mine["hand_penalty"].mean(), mine["score"].mean()]
        assert np.allclose(heights[label], expected)
        assert np.isclose(sum(heights[label][:5]), heights[label][5])  # R14.1: the parts add up to the score


@pytest.mark.timeout(60)
def test_per_hand_statistics_show_frozen_pile_takes_pile_freezes_and_missed_initial_melds(run):
    figure = CHARTS["per_hand_stats"](run)
    panels = {axes.get_title(): axes for axes in figure.axes}
    for title, column in (("takes of a frozen pile per hand", "frozen_pile_takes"),
                          ("discards freezing the pile per hand", "pile_freezes"), ("no initial meld made", "melded")):
        heights = _bar_heights(panels[title])
        for spec, label in (("greedy", GREEDY), ("random", RANDOM)):
            values = run.hands.loc[run.hands["strategy"] == spec, column]
            expected = 100 * (1 - values.mean()) if column == "melded" else values.mean()
            assert np.isclose(heights[label][0], expected), (title, label)
    assert panels["no initial meld made"].get_ylabel() == "% of team-hands"
