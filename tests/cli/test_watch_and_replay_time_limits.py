"""``replay`` plays a run's game under the run's decision time limit, and ``watch --time-limit`` stops a decision that
loops: a game a looping strategy lost on time ends at the same forfeit, not in a wait for Ctrl-C."""

from __future__ import annotations

import re

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.watch import watch_command

LOOPS = "tests/bots/bad_strategies.py:LoopsForever"
SWALLOWS = "tests/bots/bad_strategies.py:SwallowsTheAlarm"
LOOPS_WHEN_READ = "tests/bots/loops_when_read.py:MeldsEndlessGroups"


def _run_lost_on_time(path, spec: str) -> dict:
    """A short run in which ``spec`` loses a game on time (its trap springs in the second hand): that game's row."""
    played = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "4", "--workers", "1", "-q", "--out", str(path),
                                       "-s", spec, "-s", "greedy", "--time-limit", "0.2", "--on-error", "forfeit"])
    assert played.exit_code == 0, played.output
    games = pq.read_table(path / "games", columns=["game_id", "hands", "forfeit_reason", "error"]).to_pylist()
    return next(row for row in games if row["forfeit_reason"] == "timeout")


@pytest.fixture(scope="module")
def lost_on_time(tmp_path_factory):
    path = tmp_path_factory.mktemp("time-limit") / "run"
    return path, _run_lost_on_time(path, LOOPS)


@pytest.mark.timeout(30)
def test_a_replay_of_a_game_lost_on_time_ends_at_the_same_forfeit(lost_on_time):
    # The replay played with no time limit: the looping decision the run stopped at 0.2 s was waited for forever.
    run, row = lost_on_time
    result = CliRunner().invoke(main, ["replay", str(run), str(row["game_id"])])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "Each decision has the run's time limit of 0.2 s." in lines
    assert lines[-1] == f"The game stops here, as it did in the run (a forfeit): {row['error']}"
    assert row["error"].endswith("decision discard: was stopped at the time limit of 0.2 s")


@pytest.mark.timeout(30)
def test_a_replays_page_of_a_game_lost_on_time_ends_at_the_same_forfeit(lost_on_time, tmp_path):
    run, row = lost_on_time
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["replay", str(run), str(row["game_id"]), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"hand {row['hands'] + 1}, ending at a forfeit as the run recorded.\n")
    assert page.is_file()


@pytest.mark.timeout(40)
def test_a_replay_ends_a_decision_that_ignores_the_alarm_in_the_runs_words(tmp_path):
    # The run's supervisor killed the worker a second past the limit; the replay's process is ended the same way, and
    # said so in words of its own ("its process was killed", where the run's error column read "its worker was
    # killed"). Only the seconds it ran may differ.
    row = _run_lost_on_time(tmp_path / "run", SWALLOWS)
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "run"), str(row["game_id"])])
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()[-1]
    assert said.startswith("The game stops here, as it did in the run (a forfeit): ")
    seconds = re.compile(r"was still running [0-9.]+ s after")
    replayed = said.removeprefix("The game stops here, as it did in the run (a forfeit): ")
    assert seconds.sub("", replayed) == seconds.sub("", row["error"])
    assert row["error"].endswith("past the time limit of 0.2 s; its worker was killed")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("page", [False, True], ids=["narrated", "page"])
def test_watch_stops_a_move_whose_reading_loops_at_its_time_limit(tmp_path, page):
    # watch had no --time-limit: a returned meld whose groups never end kept the command waiting for Ctrl-C.
    html = ["--html", str(tmp_path / "game.html")] if page else []
    result = CliRunner().invoke(main, ["watch", "--seed", "1", "-s", LOOPS_WHEN_READ, "-s", "greedy",
                                       "--time-limit", "0.2", *html])
    assert result.exit_code == 1, result.output
    said = result.output.splitlines()[-1]
    assert said.startswith("Error: wrote " if page else f"Error: strategy '{LOOPS_WHEN_READ}' at seat ")
    assert said.endswith("decision meld: was stopped at the time limit of 0.2 s while the engine read the move it "
                         "returned")


def test_watch_has_no_time_limit_unless_given_as_run():
    option = next(param for param in watch_command.params if param.name == "time_limit")
    assert option.default is None
    assert "Off by default, as in run" in option.help


@pytest.mark.timeout(60)
def test_a_reports_page_replays_a_game_lost_on_time_under_the_runs_limit(lost_on_time, tmp_path):
    # The report's replay of the forfeit waited for the looping decision forever, and the page was never written.
    run, row = lost_on_time
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(run), "--format", "html", "-o", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert f'data-game="{row["game_id"]}"' in text and "no replay" not in text
