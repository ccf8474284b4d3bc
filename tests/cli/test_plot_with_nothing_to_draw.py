"""Charts of a run with nothing to draw in them (every game forfeited before a hand finished, or too few games
for the cumulative score) say so in the panel: no "nan" in a legend, no warning from matplotlib, no traceback."""

import warnings
from pathlib import Path

import pandas as pd
import pytest

from canasta_sim.analysis import LoadedRun
from canasta_sim.cli.plot import charts_for
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA


def texts(figure) -> list[str]:
    found = [figure.get_suptitle()]
    for axes in figure.axes:
        found += [axes.get_title(), axes.get_xlabel(), axes.get_ylabel(), *(text.get_text() for text in axes.texts)]
        legend = axes.get_legend()
        found += [text.get_text() for text in legend.get_texts()] if legend else []
    return found


def forfeited_run(specs: list[str], games: int) -> LoadedRun:
    """``games`` games of the first two specs, each forfeited by side A before its first hand finished."""
    table = GAME_SCHEMA.empty_table().to_pandas()
    rows = pd.DataFrame({"game_id": range(games), "team_a_strategy": specs[0], "team_b_strategy": specs[1],
                         "winner": "B", "winner_strategy": specs[1], "margin": 0, "hands": 0,
                         "termination": "forfeit", "forfeit_team": "A", "forfeit_reason": "exception"})
    games_frame = pd.concat([table, rows], ignore_index=True)[list(table.columns)]
    manifest = {"strategies": [{"spec": spec, "label": f"{spec}@1"} for spec in specs], "duplicate": False,
                "rules": {"target_score": 5000}}
    return LoadedRun(Path("nowhere"), manifest, games_frame, HAND_SCHEMA.empty_table().to_pandas())


@pytest.mark.parametrize("specs", [["broken", "greedy"], ["broken", "greedy", "random"]])
def test_charts_of_a_run_whose_every_game_was_forfeited_say_there_is_nothing_to_draw(specs):
    run = forfeited_run(specs, 40)
    for name, draw in charts_for(run).items():
        if name == "ratings":
            continue  # ratings are fitted from the games' winners, which a forfeit has
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            figure = draw(run)
        shown = " ".join(texts(figure))
        assert "nan" not in shown, (name, shown)
        if name != "win_rates":
            assert "nothing to draw" in shown, (name, shown)


def test_the_cumulative_score_of_a_run_of_few_games_says_why_it_is_empty():
    hands = pd.DataFrame({"game_id": [0, 0], "hand_no": 1, "team": ["A", "B"], "strategy": ["x", "y"],
                          "opponent_strategy": ["y", "x"], "score": [5100, 300], "cumulative_score": [5100, 300]})
    games = pd.DataFrame({"game_id": [0], "team_a_strategy": "x", "team_b_strategy": "y", "winner": "A",
                          "margin": 4800, "hands": 1, "termination": "target"})
    run = LoadedRun(Path("nowhere"), {"strategies": [{"spec": "x"}, {"spec": "y"}], "rules": {"target_score": 5000}},
                    games, hands)
    shown = " ".join(texts(charts_for(run)["cumulative_score"](run)))
    assert "nothing to draw" in shown and "20 games" in shown, shown
