"""``canasta-sim replay``: a run's games played again from their records end at the recorded scores."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import click
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.replay import check_forfeit
from canasta_sim.errors import StrategyError
from tests.helpers import FLAKY_BOT_SOURCE

GAMES = 4
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "run"
    result = CliRunner().invoke(main, [
        "run", "--games", str(GAMES), "--seed", "3", "--workers", "1", "--out", str(path),
        "-s", "greedy", "-s", "random", "--rules", "target_score=1000",
    ])
    assert result.exit_code == 0, result.output
    return path


def _recorded(run_dir):
    table = pq.read_table(run_dir / "games", columns=["game_id", "score_a", "score_b", "team_a_strategy"])
    return {row["game_id"]: row for row in table.to_pylist()}


def test_replay_of_every_game_ends_at_the_recorded_scores(run_dir):
    recorded = _recorded(run_dir)
    assert sorted(recorded) == list(range(GAMES))
    for game_id, row in recorded.items():
        result = CliRunner().invoke(main, ["replay", str(run_dir), str(game_id)])
        assert result.exit_code == 0, result.output
        lines = result.output.rstrip().splitlines()
        expected = f"A {row['score_a']}, B {row['score_b']}"
        assert lines[-1] == f"The replay ends at the scores the run recorded: {expected}."
        assert any(line.startswith("Game over after") and f"side A {row['score_a']}, side B {row['score_b']}." in line
                   for line in lines)
        # Head to head: the strategies swap sides every other game, and the replay seats them as recorded.
        assert f"side A {row['team_a_strategy']}," in lines[0]
        assert lines[0].endswith(f"the run recorded {expected} (target reached).")  # not the table's code '(target)'
        assert not any(line.startswith("Duplicate deal") for line in lines)  # no duplicate deals: nothing said


def test_a_replay_of_a_duplicate_deal_names_the_game_it_pairs_with(tmp_path):
    # The HTML page said so, and the text replay did not.
    path = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "--workers", "1", "--duplicate", "-q",
                                       "--out", str(path), "-s", "greedy", "-s", "random", "--rules",
                                       "target_score=500"])
    assert result.exit_code == 0, result.output
    for game_id, pair in ((0, 1), (1, 0)):
        result = CliRunner().invoke(main, ["replay", str(path), str(game_id)])
        assert result.exit_code == 0, result.output
        said = f"Duplicate deal: paired with game {pair} (the same cards, sides swapped)."
        assert result.output.splitlines()[1] == said


def test_public_replay_hides_the_hands(run_dir):
    result = CliRunner().invoke(main, ["replay", str(run_dir), "1", "--public-only"])
    assert result.exit_code == 0, result.output
    assert "Hands:" not in result.output and "draws from the stock." in result.output


def test_replay_reports_a_game_whose_record_disagrees(run_dir, tmp_path):
    # A copy of the run whose record of game 0 was changed must not replay "successfully".
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "run.json").write_bytes((run_dir / "run.json").read_bytes())
    for folder in ("games", "hands"):
        (copy / folder).mkdir()
        for part in (run_dir / folder).iterdir():
            (copy / folder / part.name).write_bytes(part.read_bytes())
    part = next(path for path in (copy / "games").iterdir() if 0 in pq.read_table(path, columns=["game_id"])
                .column("game_id").to_pylist())
    table = pq.read_table(part)
    scores = table.column("score_a").to_pylist()
    ids = table.column("game_id").to_pylist()
    scores[ids.index(0)] += 5
    index = table.schema.get_field_index("score_a")
    field = table.schema.field(index)
    table = table.set_column(index, field, pa.array(scores, type=field.type))
    pq.write_table(table, part)
    result = CliRunner().invoke(main, ["replay", str(copy), "0"])
    assert result.exit_code == 1
    assert "but the run recorded" in result.output and "the strategies or the engine have changed" in result.output


def test_replay_errors_name_what_is_wrong(run_dir, tmp_path):
    runner = CliRunner()
    for game_id in (GAMES, -1):  # -1 was read as an option: "No such option '-1'"
        result = runner.invoke(main, ["replay", str(run_dir), str(game_id)])
        assert result.exit_code == 2 and result.output == (
            f"Error: the run has games 0 to {GAMES - 1}; there is no game {game_id}\n"), result.output
    result = runner.invoke(main, ["replay", str(run_dir), "0", "--no-such-option"])
    # click writes "No such option: --no-such-option" before 8.4 (pyproject.toml admits 8.1), quoted from 8.4 on.
    assert result.exit_code == 2 and "No such option" in result.output and "--no-such-option" in result.output
    result = runner.invoke(main, ["replay", str(tmp_path / "missing"), "0"])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = runner.invoke(main, ["replay", str(tmp_path), "0"])
    assert result.exit_code == 2 and "is not a canasta-sim run directory" in result.output


@pytest.mark.parametrize("place, reason", [("missing/game.html", "No such file or directory"),
                                           ("afile/game.html", "Not a directory"),
                                           ("/proc/game.html", "No such file or directory")])
def test_an_unwritable_page_is_a_usage_error_in_one_line(run_dir, tmp_path, place, reason):
    # It exited 1, where an unusable plot --out or run --log-file exits 2.
    (tmp_path / "afile").write_text("a file, not a folder")
    page = tmp_path / place
    result = CliRunner().invoke(main, ["replay", str(run_dir), "1", "--html", str(page)])
    assert result.exit_code == 2, result.output
    assert result.output == f"Error: --html {page}: {reason}\n"


def test_a_game_whose_chunk_is_missing_is_an_error_of_the_run_not_of_the_command_line(run_dir, tmp_path):
    # The id is in the run's range (a wrong one exits 2): the run cannot answer it until it is resumed.
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    for part in (copy / "games").iterdir():
        part.unlink()
    result = CliRunner().invoke(main, ["replay", str(copy), "0"])
    assert result.exit_code == 1, result.output
    assert result.output == (f"Error: game 0 of the run in {copy} is not recorded: its chunk 0 has not been written; "
                             f"canasta-sim run --resume {copy} plays it\n")


@pytest.mark.parametrize("damage", ["missing", "unreadable"])
def test_a_damaged_run_exits_1_in_one_line_whether_the_games_part_is_missing_or_unreadable(run_dir, tmp_path, damage):
    # Both are the same failure (the run cannot answer for a game in its range until it is resumed): the unreadable
    # part exited 2, a usage error, where the missing one exits 1.
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    part = copy / "games" / "part-000000.parquet"
    if damage == "missing":
        part.unlink()
    else:
        part.write_bytes(b"cut short\n")
    result = CliRunner().invoke(main, ["replay", str(copy), "0"])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ") and "Traceback" not in result.output
    assert f"canasta-sim run --resume {copy}" in result.output
    if damage == "unreadable":
        assert f"{part} is no Parquet part canasta-sim can read" in result.output


@pytest.mark.parametrize("command", [["replay", "{path}", "0"], ["run", "--resume", "{path}", "--games", "2"]])
def test_a_tuning_directory_is_named_as_one_with_the_commands_that_read_it(tmp_path, command):
    """As report says it: not only that the folder has no run.json."""
    path = tmp_path / "tuning"
    path.mkdir()
    (path / "tune.json").write_text("{}")
    result = CliRunner().invoke(main, [word.format(path=path) for word in command])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert f"'{path}' is a tuning directory, not a run: canasta-sim plot {path} draws its trajectory, and " \
           f"canasta-sim tune --resume {path} continues it" in lines[0]


@pytest.mark.timeout(60)
def test_a_forfeits_page_counts_the_hands_as_the_runs_hands_column_does(tmp_path):
    # The run's hands column counts the hands finished before a failure (docs/output.md); the page's line counted the
    # hand the failure cut short too: "2 hands" for a forfeit in the second hand, where the column said 1.
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    run = tmp_path / "run"
    played = CliRunner().invoke(main, ["run", "--games", "30", "--seed", "4", "--workers", "1", "-q", "--out", str(run),
                                       "-s", f"{tmp_path / 'flaky.py'}:Flaky", "-s", "greedy", "--on-error", "forfeit"])
    assert played.exit_code == 0, played.output
    games = pq.read_table(run / "games", columns=["game_id", "hands", "termination"]).to_pylist()
    row = next(row for row in games if row["termination"] == "forfeit" and row["hands"] >= 1)
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["replay", str(run), str(row["game_id"]), "--html", str(page)])
    assert result.exit_code == 0, result.output
    hands = f"{row['hands']} hand{'s' if row['hands'] > 1 else ''}"
    assert (f"game {row['game_id']}, {hands} finished before the failure in hand {row['hands'] + 1}, ending at a "
            "forfeit as the run recorded.") in result.output


_ENDS_ITS_PROCESS = "tests/bots/ends_its_process.py:EndsQuietly"


def _run_of_one_game_ending_its_process(tmp_path):
    """A run of one game, forfeited by a strategy that ends its worker's process."""
    run = tmp_path / "run"
    played = CliRunner().invoke(main, ["run", "--games", "1", "--seed", "4", "--workers", "1", "-q", "--out", str(run),
                                       "-s", _ENDS_ITS_PROCESS, "-s", "greedy", "--on-error", "forfeit"])
    assert played.exit_code == 0, played.output
    return run


@pytest.mark.timeout(90)
def test_a_strategy_that_ends_its_process_while_a_replay_s_page_is_recorded_is_named_in_one_line(tmp_path):
    # The page was recorded in the command's own process: os._exit(0) ended replay --html with exit code 0, no page
    # and no word, and what the strategy printed ran over the terminal.
    spec, run = _ENDS_ITS_PROCESS, _run_of_one_game_ending_its_process(tmp_path)
    page = tmp_path / "game.html"
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "replay", str(run), "0", "--html", str(page)],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stdout == "" and "chatter" not in result.stderr
    said = result.stderr.splitlines()[-1]
    assert "Traceback" not in result.stderr, result.stderr
    assert said.startswith("Error: the replay stopped as the run's game did, a forfeit, with nothing to show: "
                           f"strategy '{spec}' at seat ")
    assert said.endswith("decision discard: its worker process died (exit code 0) during this call")
    assert not page.exists()
    # In the run's words: the one line ends with the run's error, word for word.
    recorded = pq.read_table(run / "games", columns=["error"]).to_pylist()[0]["error"]
    assert said.endswith(f": {recorded}")


_RAISES_AT_TURN_4 = '''
from canasta_sim.strategies.greedy import Greedy


class Bot(Greedy):
    name = "bot"

    def choose_discard(self, view):
        if view.turn_count >= 4:
            raise RuntimeError("boom")
        return super().choose_discard(view)
'''


@pytest.mark.timeout(60)
@pytest.mark.parametrize("page", [False, True], ids=["narrated", "page"])
def test_a_replay_that_forfeits_for_another_reason_than_the_run_says_so(tmp_path, page):
    # The replay said the game stopped "as it did in the run" for any forfeit, never reading the run's reason.
    bot = tmp_path / "bot.py"
    bot.write_text(_RAISES_AT_TURN_4)
    run = tmp_path / "run"
    played = CliRunner().invoke(main, ["run", "--games", "1", "--seed", "4", "--workers", "1", "-q", "--out", str(run),
                                       "-s", f"{bot}:Bot", "-s", "greedy", "--on-error", "forfeit"])
    assert played.exit_code == 0, played.output
    row = pq.read_table(run / "games", columns=["forfeit_reason", "error"]).to_pylist()[0]
    assert row["forfeit_reason"] == "exception"
    seat = row["error"].split(" at seat ")[1][0]
    bot.write_text(_RAISES_AT_TURN_4.replace('raise RuntimeError("boom")', 'return "nonsense"'))
    html = ["--html", str(tmp_path / "game.html")] if page else []
    # In a process of its own: this one has the bot's first version loaded.
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "replay", str(run), "0", *html],
                            capture_output=True, text=True, timeout=50, cwd=ROOT)
    assert result.returncode == 1, result.stderr[-2000:]
    said = result.stderr.splitlines()[-1]
    assert said.startswith(f"Error: the replay stops at a forfeit by seat {seat} (malformed) but the run recorded one "
                           f"by seat {seat} (exception); the strategies or the engine have changed; the replay's "
                           f"failure: strategy '{bot}:Bot' at seat {seat} "), said
    assert "as it did in the run" not in result.stdout
    assert not (tmp_path / "game.html").exists()


def test_a_replays_forfeit_at_another_seat_than_the_runs_is_refused():
    row = {"team_a_strategy": "x", "team_b_strategy": "y", "forfeit_team": "A", "forfeit_reason": "exception",
           "error": "strategy 'x' at seat 0 (game seed 5), decision discard: raised RuntimeError: boom"}
    same = StrategyError("raised RuntimeError: boom", spec="x", seat=0, game_seed=5, decision="discard")
    check_forfeit(same, row)  # the run's own forfeit passes
    partner = StrategyError("raised RuntimeError: boom", spec="x", seat=2, game_seed=5, decision="discard")
    with pytest.raises(click.ClickException, match=r"^the replay stops at a forfeit by seat 2 \(exception\) but the "
                                                   r"run recorded one by seat 0 \(exception\)"):
        check_forfeit(partner, row)
    # A run written before the forfeit columns: its error's seat is still compared.
    older = {key: value for key, value in row.items() if not key.startswith("forfeit_")}
    check_forfeit(same, older)
    with pytest.raises(click.ClickException):
        check_forfeit(partner, older)


@pytest.mark.timeout(90)
def test_a_replays_page_from_before_is_not_left_where_a_replay_whose_process_died_wrote_none(tmp_path):
    # The one-line error said there was nothing to show, and an older page stayed at the path, read as this game's.
    # FILE is relative to where the command is typed, not to where the run started (the replay starts its bots there).
    run = _run_of_one_game_ending_its_process(tmp_path)
    (tmp_path / "game.html").write_text("<p>an older game</p>")
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "replay", str(run), "0", "--html", "game.html"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 1, result.stderr[-2000:]
    said = result.stderr.splitlines()[-1]
    assert said.startswith("Error: the replay stopped as the run's game did, a forfeit, with nothing to show: "), said
    assert said.endswith("during this call; no page was written, and the older game.html was removed"), said
    assert not (tmp_path / "game.html").exists()
