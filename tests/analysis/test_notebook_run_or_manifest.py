"""strategy_names and entrants_of take the loaded run, as every function of the notebook API does, and still the
run's manifest (the report reads only run.json); anything else is refused in one line."""

import pytest

from canasta_sim.analysis import entrants_of, load_run, strategy_names, summarize, with_strategy_names
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.storage import RunDirectory
from tests.analysis.test_report import full_table
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS

STRATEGIES = [{"spec": "x", "label": "bot@1"}, {"spec": "y", "label": "bot@1"}]


def _run_dir(tmp_path, strategies):
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    directory.write_manifest({"format": 1, "games": 4, "seed": 17, "chunk_size": 4, "matchup": "head_to_head",
                              "status": "complete", "strategies": strategies})
    directory.write_chunk(0, full_table(SUMMARY_FIXTURE_GAMES, GAME_SCHEMA), full_table(SUMMARY_FIXTURE_HANDS,
                                                                                       HAND_SCHEMA))
    return directory.path


def test_strategy_names_takes_a_loaded_run_or_its_manifest(tmp_path):
    run = load_run(_run_dir(tmp_path, STRATEGIES))
    # Two strategies sharing a name and version: each spec follows in brackets.
    expected = {"x": "bot@1 [x]", "y": "bot@1 [y]"}
    assert strategy_names(run) == expected and strategy_names(run.manifest) == expected
    assert set(with_strategy_names(run).games.team_a_strategy) <= set(expected.values())


def test_entrants_of_takes_a_loaded_run_or_its_manifest(tmp_path):
    run = load_run(_run_dir(tmp_path, STRATEGIES))
    assert entrants_of(run) == entrants_of(run.manifest) == run.entrants == ("x", "y")
    mirror = {"strategies": [{"spec": "x"}]}
    assert entrants_of(mirror) == ("x (A)", "x (B)")


@pytest.mark.parametrize("function", [strategy_names, entrants_of], ids=lambda function: function.__name__)
def test_a_path_or_other_value_is_refused_naming_what_is_accepted(tmp_path, function):
    path = _run_dir(tmp_path, STRATEGIES)
    for value, shown in ((str(path), "str"), (path, "PosixPath")):
        with pytest.raises(TypeError) as raised:
            function(value)
        assert str(raised.value) == (f"{function.__name__} takes a loaded run (load_run(path)) or its manifest "
                                     f"(run.manifest), not a {shown}")


@pytest.mark.filterwarnings("ignore:1 of 4 games")  # the fixture's game the engine's guard ended, said each call
def test_summarize_names_strategies_by_spec_and_by_the_printed_summarys_names_on_a_renamed_run(tmp_path):
    # The printed summary of canasta-sim run names each strategy bot@1 [x]; summarize(run) keeps the specs, for
    # programs keyed on them, and its docstring said "as printed" with no word of how to get the printed names.
    run = load_run(_run_dir(tmp_path, STRATEGIES))
    assert summarize(run).index.tolist() == ["x", "y"]
    renamed = summarize(with_strategy_names(run))
    assert renamed.index.tolist() == ["bot@1 [x]", "bot@1 [y]"]
    assert renamed.reset_index(drop=True).equals(summarize(run).reset_index(drop=True))
    assert "with_strategy_names" in summarize.__doc__
