"""The report of the games ``canasta-sim compare --out DIR`` saved states the test's verdict, which its
``run.json`` holds, in every format (a run directory built by hand: no games are played)."""

import json

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.storage import RunDirectory
from tests.analysis.test_report import full_table
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS

COMPARE = {"new": "x", "baseline": "y", "elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "max_games": 20000,
           "llr": 2.950180987534073, "decision": "H1", "games": 4, "forfeits": 1}
VERDICT = ("compare x against y: H1 accepted after 4 games, LLR 2.95 [-2.94, 2.94] "
           "(elo0 0, elo1 10, alpha 0.05, beta 0.05)")


def compare_run(tmp_path, compare: dict | None) -> str:
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    manifest = {"format": 1, "games": 4, "seed": 17, "chunk_size": 4, "matchup": "head_to_head",
                "status": "complete", "strategies": [{"spec": "x"}, {"spec": "y"}], "duplicate": True}
    directory.write_manifest({**manifest, **({"compare": compare} if compare is not None else {})})
    directory.write_chunk(0, full_table(SUMMARY_FIXTURE_GAMES, GAME_SCHEMA),
                          full_table(SUMMARY_FIXTURE_HANDS, HAND_SCHEMA))
    return str(directory.path)


def report(*arguments) -> str:
    result = CliRunner().invoke(main, ["report", *arguments])
    assert result.exit_code == 0, result.output
    return result.output


def test_every_format_states_the_verdict_of_the_compare_that_saved_the_games(tmp_path):
    path = compare_run(tmp_path, COMPARE)
    assert report(path).splitlines()[2] == VERDICT
    assert VERDICT in report(path, "--format", "markdown")
    assert json.loads(report(path, "--format", "json"))["run"]["compare"] == COMPARE


@pytest.mark.parametrize("decision, words", [("H0", "H0 accepted"), (None, "no decision")])
def test_an_h0_or_no_decision_is_stated_as_such(tmp_path, decision, words):
    path = compare_run(tmp_path, {**COMPARE, "decision": decision})
    assert report(path).splitlines()[2].startswith(f"compare x against y: {words} after 4 games, LLR 2.95 ")


def test_a_run_not_saved_by_compare_has_no_such_line(tmp_path):
    path = compare_run(tmp_path, None)
    assert "compare" not in report(path) and "compare" not in json.loads(report(path, "--format", "json"))["run"]
