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
