"""Charts of a run with nothing to draw in them (every game forfeited before a hand finished) say so in the panel: no
"nan" in a legend, no warning from matplotlib, no traceback; a run of few games still has its cumulative score."""

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


def _games_of_x_against_y(hands_played: list[int]) -> LoadedRun:
    """One game of x (side A) against y per entry, played to that many hands."""
    rows = [{"game_id": game, "hand_no": hand, "team": team, "strategy": mine, "opponent_strategy": other,
             "score": 100, "cumulative_score": 100 * hand}
            for game, count in enumerate(hands_played) for hand in range(1, count + 1)
            for team, mine, other in (("A", "x", "y"), ("B", "y", "x"))]
    games = pd.DataFrame({"game_id": range(len(hands_played)), "team_a_strategy": "x", "team_b_strategy": "y",
                          "winner": "A", "margin": 0, "hands": hands_played, "termination": "target"})
    return LoadedRun(Path("nowhere"), {"strategies": [{"spec": "x"}, {"spec": "y"}], "rules": {"target_score": 5000}},
                     games, pd.DataFrame(rows))


@pytest.mark.parametrize(("hands_played", "shown_hands"), [
    ([1], [1]),  # a game played and saved: its one hand
    ([2, 2, 2, 1, 1, 1], [1, 2]),  # a run of 6 games: hand 2, reached by 3 of them, too
    ([1] * 37 + [2] * 3, [1]),  # 40 games: hand 2, reached by 3, left out (fewer than 20)
])
def test_the_cumulative_score_of_a_run_of_few_games_is_drawn_from_half_its_games(hands_played, shown_hands):
    # A run of fewer than 20 games had every hand left out: the report showed a frame with nothing in it.
    run = _games_of_x_against_y(hands_played)
    figure = charts_for(run)["cumulative_score"](run)
    lines = [line for line in figure.axes[0].get_lines() if line.get_label() in ("x", "y")
             or line.get_label().startswith(("x (", "y ("))]
    assert [list(line.get_xdata()) for line in lines] == [shown_hands, shown_hands]
    assert "nothing to draw" not in " ".join(texts(figure))
