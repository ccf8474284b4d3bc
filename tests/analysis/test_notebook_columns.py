"""load_run's column choices and summarize on a run loaded with some columns only: a mistake gets one plain
ValueError naming what was wrong and what is accepted, never a pandas KeyError."""

import pytest

from canasta_sim.analysis import load_run, summarize
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.storage import RunDirectory
from tests.analysis.test_report import full_table
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS


@pytest.fixture
def run_dir(tmp_path):
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    directory.write_manifest({"format": 1, "games": 4, "seed": 17, "chunk_size": 4, "matchup": "head_to_head",
                              "status": "complete", "strategies": [{"spec": "x"}, {"spec": "y"}]})
    directory.write_chunk(0, full_table(SUMMARY_FIXTURE_GAMES, GAME_SCHEMA), full_table(SUMMARY_FIXTURE_HANDS,
                                                                                       HAND_SCHEMA))
    return directory.path


def test_one_column_named_as_text_is_read_as_that_column(run_dir):
    # It was taken letter by letter: "unknown column(s) 's', 'c', 'o', 'r', 'e'".
    run = load_run(run_dir, games_columns="winner", hands_columns="score")
    assert list(run.games.columns) == ["game_id", "winner"] and list(run.hands.columns) == ["game_id", "score"]


def test_summarize_names_the_columns_a_narrow_load_left_out(run_dir):
    run = load_run(run_dir, hands_columns=["score", "strategy"])
    with pytest.raises(ValueError) as caught:
        summarize(run)
    message = str(caught.value)
    assert message.startswith("summarize needs hands column(s) 'team', 'opponent_strategy', 'pile_takes'"), message
    assert "\n" not in message and "load_run" in message, message


def test_an_unknown_column_is_named_with_where_the_columns_are_listed(run_dir):
    with pytest.raises(ValueError, match=r"unknown column\(s\) 'scor' in hands_columns; .*canasta-sim docs output"):
        load_run(run_dir, hands_columns=["scor"])


@pytest.fixture
def round_robin_dir(tmp_path):
    """Three strategies' games, two per pair, in two chunks: x-y, x-z, y-z, then the same sides swapped."""
    directory = RunDirectory(tmp_path / "robin")
    directory.create()
    directory.write_manifest({"format": 1, "games": 6, "seed": 3, "chunk_size": 3, "matchup": "round_robin",
                              "status": "complete", "strategies": [{"spec": "x"}, {"spec": "y"}, {"spec": "z"}]})
    pairs = [("x", "y"), ("x", "z"), ("y", "z"), ("y", "x"), ("z", "x"), ("z", "y")]
    for chunk in range(2):
        games, hands = [], []
        for game_id in range(3 * chunk, 3 * chunk + 3):
            side_a, side_b = pairs[game_id]
            games.append({**SUMMARY_FIXTURE_GAMES[0], "game_id": game_id, "team_a_strategy": side_a,
                          "team_b_strategy": side_b, "winner_strategy": side_a})
            for team, mine, other in (("A", side_a, side_b), ("B", side_b, side_a)):
                hands.append({**SUMMARY_FIXTURE_HANDS[0], "game_id": game_id, "team": team, "strategy": mine,
                              "opponent_strategy": other})
        directory.write_chunk(chunk, full_table(games, GAME_SCHEMA), full_table(hands, HAND_SCHEMA))
    return directory.path


def test_load_run_of_some_strategies_reads_only_the_games_they_played_and_their_hands(round_robin_dir):
    run = load_run(round_robin_dir, strategies="z", games_columns=["winner"], hands_columns=["strategy"])
    assert list(run.games["game_id"]) == [1, 2, 4, 5] and list(run.games.columns) == ["game_id", "winner"]
    assert list(run.hands["game_id"]) == [1, 1, 2, 2, 4, 4, 5, 5] and set(run.hands["strategy"]) == {"x", "y", "z"}
    both = load_run(round_robin_dir, strategies=["x", "y"])
    assert list(both.games["game_id"]) == list(range(6)) and len(both.hands) == 12


def test_load_run_of_a_strategy_the_run_did_not_play_names_those_it_did(round_robin_dir):
    with pytest.raises(ValueError) as caught:
        load_run(round_robin_dir, strategies=["x", "expert"])
    assert str(caught.value) == "unknown strategy 'expert' in strategies; this run played 'x', 'y', 'z'"
