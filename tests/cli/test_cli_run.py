"""``canasta-sim run`` end to end: output contract, bad input, interruptions and resume."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim import ENGINE_VERSION
from canasta_sim.cli import main, report_html
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.strategies import Greedy, RandomPlay
from tests.helpers import FLAKY_BOT_SOURCE, ROOT, assert_same_run_tables, invoke, read_run_tables

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short

SLOW = '''
import os
import time

from canasta_sim.strategies.greedy import Greedy


class Slow(Greedy):
    """Greedy, pausing at each hand's start when CANASTA_TEST_DELAY is set, so a run can be caught mid-way."""

    name = "slow"

    def on_hand_start(self, view):
        time.sleep(float(os.environ.get("CANASTA_TEST_DELAY", "0")))
'''

FLAKY = FLAKY_BOT_SOURCE


tables = read_run_tables
assert_same_tables = assert_same_run_tables


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bots")
    (folder / "slow.py").write_text(SLOW)
    (folder / "flaky.py").write_text(FLAKY)
    (folder / "broken.py").write_text("import a_module_that_does_not_exist\n")
    return folder


KILL_RUN = ["--games", "120", "--seed", "21", "--chunk-size", "5", *QUICK]


@pytest.fixture(scope="module")
def reference(tmp_path_factory, bots) -> Path:
    """The uninterrupted run the interrupted ones must equal."""
    out = tmp_path_factory.mktemp("reference") / "run"
    result = invoke("run", *KILL_RUN, "-s", f"{bots}/slow.py:Slow", "-s", "random", "--workers", "2", "--out", str(out),
                    "-q")
    assert result.exit_code == 0, result.output
    return out


def start_run(out: Path, bots: Path, ignoring_sighup: bool = False) -> subprocess.Popen:
    command = [sys.executable, "-c", "from canasta_sim.cli import main; main()", "run", *KILL_RUN,
               "-s", f"{bots}/slow.py:Slow", "-s", "random", "--workers", "2", "--out", str(out)]
    environment = {**os.environ, "CANASTA_TEST_DELAY": "0.02"}
    # As nohup starts it (SIGHUP ignored from the start, in the process and the workers it forks), or as a terminal
    # does: set either way, since a child inherits an ignored SIGHUP, and a suite itself run under nohup would start
    # every run as nohup does.
    hangup = signal.SIG_IGN if ignoring_sighup else signal.SIG_DFL
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, hangup))


def wait_for_parts(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (out / "games").is_dir() and len(list((out / "games").glob("part-*.parquet"))) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended before it could be interrupted: {process.communicate()}")
        time.sleep(0.02)
    pytest.fail("the run wrote no parts in time")


@pytest.mark.parametrize("games_first", [True, False], ids=["local: games, then their chunk", "dask: chunks only"])
def test_the_progress_bar_counts_each_game_once_whether_it_hears_of_games_or_only_of_chunks(games_first):
    import types

    from canasta_sim.cli.run import _Progress

    settings = types.SimpleNamespace(entrants=["greedy", "random"], games=1000)
    directory = types.SimpleNamespace(write_manifest=lambda manifest: None)
    progress = _Progress(settings, directory, {}, {}, [30, 20], 50, show_bar=True)  # resumed: 50 on disk
    assert progress.bar.postfix == "greedy wins 60.0%"  # the rate so far, before any new chunk: 30 of 50
    chunk = types.SimpleNamespace(games=100, wins=[60, 40])
    if games_first:
        progress.on_games(40)
        assert progress.bar.n == 90  # moved before the chunk is written
        progress.on_games(60)
    progress.on_chunk(chunk)
    assert progress.bar.n == 150 and progress.played == 100
    progress.on_games(10)  # a game of the next chunk
    assert progress.bar.n == (160 if games_first else 150)
    assert progress.bar.postfix == "greedy wins 60.0%"  # from the chunks written: 90 of 150


def test_run_writes_the_documented_run_directory(tmp_path):
    out = tmp_path / "run"
    result = invoke("run", "--games", "40", "--seed", "5", "-s", "greedy", "-s", "random", "--workers", "2", "--out",
                    str(out), *QUICK)
    assert result.exit_code == 0, result.output
    assert "win rate [95% CI]" in result.stdout and "greedy" in result.stdout
    assert "\r" not in result.output  # no progress bar when the output is not a terminal
    manifest = json.loads((out / "run.json").read_text())
    assert (manifest["seed"], manifest["games"], manifest["games_done"], manifest["status"]) == (5, 40, 40, "complete")
    assert [entry["label"] for entry in manifest["strategies"]] == [Greedy.label(), RandomPlay.label()]
    assert manifest["rules"]["target_score"] == 1000 and manifest["rules_changed"] == {"target_score": 1000}
    assert manifest["engine_version"] == ENGINE_VERSION and manifest["seed_drawn"] is False
    assert manifest["started_at"] and manifest["ended_at"] and manifest["command"].startswith("canasta-sim run")
    # The default chunk size is named too: the command replays this run's parts under a later version's default.
    assert manifest["chunk_size"] == 5 and "--chunk-size 5 " in manifest["command"]
    assert "games/s, 2 workers)" in result.stdout
    games, hands = tables(out)
    assert list(games.game_id) == list(range(40)) and len(hands) == 2 * games.hands.sum()


@pytest.mark.timeout(120)
def test_a_run_directory_named_with_a_colon_is_written_and_read_as_any_other(tmp_path, monkeypatch):
    # pyarrow reads a relative path with a ':' as a URI; the user's folder name must not matter.
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "--games", "4", "--seed", "5", "--workers", "1", "--out", "a:b", "--record-decisions", "all",
                    *QUICK)
    assert result.exit_code == 0, result.output
    games, hands = tables(tmp_path / "a:b")
    assert list(games.game_id) == list(range(4)) and len(hands) == 2 * games.hands.sum()
    assert invoke("run", "--resume", "a:b").exit_code == 0
    report = CliRunner().invoke(main, ["report", "a:b"])
    assert report.exit_code == 0 and "games 4 of 4 (complete)" in report.output


@pytest.mark.timeout(120)
def test_the_recorded_command_replays_the_run_exactly(tmp_path, bots, monkeypatch):
    # Every option that shapes the tables or how they are played, and a file spec relative to where the run starts.
    monkeypatch.chdir(bots)
    out = tmp_path / "run"
    result = invoke("run", "--games", "24", "--seed", "13", "-s", "flaky.py:Flaky", "-s", "random", "--workers", "2",
                    "--on-error", "forfeit", "--chunk-size", "5", "--duplicate", "--time-limit", "30", "--memory-limit",
                    "4000", "--record-decisions", "random", "--out", str(out), "-q", *QUICK)
    assert result.exit_code == 0, result.output
    assert (tables(out)[0].termination == "forfeit").any(), "the seed must make the flaky bot fail at least once"
    command = json.loads((out / "run.json").read_text())["command"]
    directory, separator, command = command.partition(" && ")
    assert separator and directory == f"cd {bots}"  # flaky.py is found from there
    words = shlex.split(command)
    for option in ("--workers 2", "--on-error forfeit", "--memory-limit 4000", "--chunk-size 5", "--duplicate",
                   "--time-limit 30", "--record-decisions random", "--rules target_score=1000"):
        assert option in command, f"{option} is missing from {command}"
    assert words[:2] == ["canasta-sim", "run"] and words[-2:] == ["--out", str(out)]
    again = tmp_path / "again"
    replayed = invoke("run", *words[2:-2], "--out", str(again), "-q")
    assert replayed.exit_code == 0, replayed.output
    assert_same_tables(out, again)


@pytest.mark.timeout(120)
def test_a_protocol_bot_run_resumes_and_replays_from_another_directory(tmp_path, monkeypatch):
    # The bot's script is relative to where the run started; the resume starts it from there again, and so do
    # replay and the report's replays, which started it here: "cannot be loaded now: ... failed its handshake".
    monkeypatch.chdir(ROOT)
    bot = "cmd:python examples/protocol/bot.py"
    arguments = ["--games", "6", "--seed", "8", "--chunk-size", "3", "-s", bot, "-s", "random", "--workers", "2",
                 "-q", *QUICK]
    out = tmp_path / "run"
    assert invoke("run", *arguments, "--out", str(out)).exit_code == 0
    uninterrupted = tables(out)
    (out / "games" / "part-000001.parquet").unlink()  # as if the run had been stopped before its last chunk
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "--resume", "run", "-q")
    assert result.exit_code == 0, result.output
    assert "6 of 6 games" in result.stdout and "3 played now" in result.stdout
    for resumed, whole in zip(tables(out), uninterrupted, strict=True):
        pd.testing.assert_frame_equal(resumed, whole)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["directory"] == str(ROOT)
    replayed = CliRunner().invoke(main, ["replay", "run", "4", "--html", "game.html"])
    assert replayed.exit_code == 0, replayed.output
    assert (tmp_path / "game.html").is_file()  # where it was named from, not where the bot started
    games = tables(out)[0]
    replays = report_html._replays(Path("run"), manifest, games[games.game_id == 4], run_code=True)
    assert len(replays) == 1 and "data-replay" in replays[0], replays


def test_seed_is_drawn_printed_and_recorded(tmp_path):
    result = invoke("run", "--games", "2", "-s", "greedy", "--workers", "1", "--out", str(tmp_path / "run"), *QUICK)
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["seed_drawn"] is True and f"seed {manifest['seed']} (drawn)" in result.stderr


def test_log_file_gets_worker_messages(tmp_path, bots):
    log = tmp_path / "run.log"
    result = invoke("run", "--games", "30", "--seed", "11", "-s", f"{bots}/flaky.py:Flaky", "-s", "random", "--workers",
                    "2", "--chunk-size", "5", "--on-error", "forfeit", "--out", str(tmp_path / "run"), "--log-file",
                    str(log), *QUICK)
    assert result.exit_code == 0, result.output
    text = log.read_text()
    assert " Worker-" in text and "chunk 5: 5 of 5 games written" in text and "forfeits the game" in text
    assert "forfeits" in result.stdout.splitlines()[0]


def test_strategy_failure_stops_with_one_line_and_keeps_finished_games(tmp_path, bots):
    out = tmp_path / "run"
    spec = f"{bots}/flaky.py:Flaky"
    result = invoke("run", "--games", "40", "--seed", "11", "-s", spec, "-s", "random", "--workers", "1",
                    "--chunk-size", "6", "--out", str(out), *QUICK)
    assert result.exit_code == 1
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1 and "Traceback" not in result.output
    line = error_lines[0]
    assert line.startswith("Error: game ") and spec in line and "seat" in line and "game seed" in line
    assert "--resume" in line
    assert "games/s, 1 worker)" in result.stdout  # the closing line counts the finished games all the same
    failed_game = int(line.split()[2].rstrip(":"))
    assert json.loads((out / "run.json").read_text())["status"] == "stopped"
    assert list(tables(out)[0].game_id) == list(range(failed_game))
    # Finishing it with forfeits plays only what is missing and gives the tables of a forfeit run.
    assert invoke("run", "--resume", str(out), "--on-error", "forfeit", "-q").exit_code == 0
    whole = tmp_path / "whole"
    assert invoke("run", "--games", "40", "--seed", "11", "-s", spec, "-s", "random", "--workers", "2", "--chunk-size",
                  "6", "--out", str(whole), "--on-error", "forfeit", "-q", *QUICK).exit_code == 0
    assert_same_tables(out, whole)


def test_killed_run_resumes_to_the_uninterrupted_tables(tmp_path, bots, reference):
    out = tmp_path / "run"
    process = start_run(out, bots)
    wait_for_parts(out, 3, process)
    os.killpg(process.pid, signal.SIGKILL)  # the whole group: parent and workers die at once
    process.communicate()
    parts = len(list((out / "games").glob("part-*.parquet")))
    assert parts < 24 and json.loads((out / "run.json").read_text())["status"] == "running"
    result = invoke("run", "--resume", str(out), "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "120 of 120 games" in result.stdout
    assert_same_tables(out, reference)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "complete" and manifest["games_done"] == 120 and len(manifest["sessions"]) == 2


def test_ctrl_c_keeps_finished_chunks_and_resume_completes(tmp_path, bots, reference):
    out = tmp_path / "run"
    process = start_run(out, bots)
    wait_for_parts(out, 3, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and 0 < manifest["games_done"] < 120
    assert invoke("run", "--resume", str(out), "--workers", "1", "-q").exit_code == 0
    assert_same_tables(out, reference)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("stopping", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_to_the_run_s_whole_process_group_stops_it_as_ctrl_c_does(tmp_path, bots, reference,
                                                                                   stopping):
    # As `kill -TERM -PGID` or a service manager sends it, or a terminal closed under the run sends SIGHUP: the workers
    # get it too, and must leave it to the run (a worker killed by it mid-game was charged to the strategy it was
    # playing).  SIGHUP killed the run where it stood: the games of the chunks in play lost, run.json saying "running".
    out = tmp_path / "run"
    process = start_run(out, bots)
    wait_for_parts(out, 3, process)
    os.killpg(process.pid, stopping)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Interrupted" in stderr and "Traceback" not in stderr and "died" not in stderr
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    assert invoke("run", "--resume", str(out), "--workers", "1", "-q").exit_code == 0
    assert_same_tables(out, reference)


# The run, its SIGTERM sent by itself just as run.json first says "running", before it watches for the signal.
TERMINATED_AS_IT_STARTS = """
import importlib, os, signal
run = importlib.import_module("canasta_sim.cli.run")
opened = run._open_session

def open_then_terminated(*arguments):
    session = opened(*arguments)
    os.kill(os.getpid(), signal.SIGTERM)
    return session

run._open_session = open_then_terminated
from canasta_sim.cli import main
main()
"""


@pytest.mark.timeout(60)
def test_sigterm_as_run_json_first_says_running_stops_the_run_with_run_json_final(tmp_path):
    # It killed the process before the run's handlers were in place, run.json saying "running" for ever.
    out = tmp_path / "run"
    completed = subprocess.run([sys.executable, "-c", TERMINATED_AS_IT_STARTS, "run", "--games", "2", "--seed", "3",
                                "-s", "greedy", "--workers", "1", "--out", str(out), "-q", *QUICK],
                               capture_output=True, text=True, timeout=50, cwd=ROOT)
    assert completed.returncode == 130, completed.stderr
    assert "Interrupted" in completed.stderr and "Traceback" not in completed.stderr
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"


@pytest.mark.timeout(180)
def test_a_run_started_under_nohup_plays_on_when_its_terminal_closes(tmp_path, bots, reference):
    # SIGHUP, once it stopped a run as SIGTERM does, was taken over from nohup, which had set it to be ignored: closing
    # the terminal of `nohup canasta-sim run ... &` stopped the very run nohup was there to keep going.
    out = tmp_path / "run"
    process = start_run(out, bots, ignoring_sighup=True)
    wait_for_parts(out, 3, process)
    os.killpg(process.pid, signal.SIGHUP)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    assert_same_tables(out, reference)


def test_out_naming_this_run_again_continues_it(tmp_path):
    out = tmp_path / "run"
    arguments = ["--games", "6", "--seed", "4", "-s", "greedy", "--workers", "1", "--out", str(out), *QUICK]
    assert invoke("run", *arguments).exit_code == 0
    before = {path: path.stat().st_mtime_ns for path in (out / "games").iterdir()}
    result = invoke("run", *arguments)
    assert result.exit_code == 0 and "6 of 6 games" in result.stdout and "0 played now" in result.stdout
    assert {path: path.stat().st_mtime_ns for path in (out / "games").iterdir()} == before


@pytest.fixture
def finished_run(tmp_path) -> Path:
    out = tmp_path / "finished"
    result = invoke("run", "--games", "4", "--seed", "8", "-s", "greedy", "-s", "random", "--workers", "1", "--out",
                    str(out), *QUICK)
    assert result.exit_code == 0, result.output
    return out


def snapshot(folder: Path) -> dict:
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


BAD_INPUTS = {
    "negative games": (["--games", "-3"], "--games"),
    "non-numeric games": (["--games", "many"], "--games"),
    "zero workers": (["--workers", "0"], "--workers"),
    "non-numeric workers": (["--workers", "two"], "--workers"),
    "unknown strategy": (["-s", "no-such-bot"], "unknown strategy 'no-such-bot'"),
    "missing file": (["-s", "{bots}/missing.py:Bot"], "does not exist"),
    "missing class": (["-s", "{bots}/slow.py:Nope"], "has no class 'Nope'"),
    "file that does not import": (["-s", "{bots}/broken.py:Bot"], "failed to import"),
    "a round robin repeating a strategy": (["-s", "greedy", "-s", "random", "-s", "greedy"], "different strategies"),
    "unknown rule key": (["--rules", "no_such_rule=1"], "unknown rule key 'no_such_rule'"),
    "bad rule value": (["--rules", "canastas_to_go_out=high"], "canastas_to_go_out='high'"),
    "a rule given twice": (["--rules", "target_score=2000"], "rule target_score is given twice (1000, then 2000)"),
    "rule without value": (["--rules", "target_score"], "not KEY=VALUE"),
    "non-empty directory that is no run": (["--out", "{nonempty}"], "is not empty"),
    "directory of another run": (["--out", "{finished}", "--seed", "9"],
                                 "holds a run made with other settings (--seed 8, not 9"),
    "resume of a missing directory": (["--resume", "{missing}"], "does not exist"),
    "resume of a file": (["--resume", "{nonempty}/notes.txt"], "notes.txt' is a file, not a run directory"),
    "resume of a directory that is no run": (["--resume", "{nonempty}"], "no run.json"),
    "resume with fewer games": (["--resume", "{finished}", "--games", "3"], "--games 4, not 3"),
    "resume with other strategies": (["--resume", "{finished}", "-s", "random"], "other settings"),
    # Rules as --rules takes them: it showed Python's dicts.
    "resume with other rules": (["--resume", "{finished}", "--rules", "target_score=2000",
                                 "--rules", "allow_wild_only_melds=yes"],
                                "other settings (rules target_score=1000, not target_score=2000, "
                                "allow_wild_only_melds=true)"),
    "a meld table out of order": (["--rules", "initial_meld_table=0:50,-inf:15"],
                                  "rule initial_meld_table=0:50,-inf:15 is not accepted"),
    "a parameter without its value": (["-s", "expert:aggression"], "'aggression' is no KEY=VALUE parameter of expert"),
    "resume with another seed": (["--resume", "{finished}", "--seed", "1"], "--seed 8, not 1"),
    # It said "made with --time-limit None": a teacher bounding a slow student's decisions learned nothing.
    "resume with a time limit the run had not": (["--resume", "{finished}", "--time-limit", "1"],
                                                 "the run was made without --time-limit, its decisions unbounded"),
}


@pytest.mark.parametrize("arguments, message", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_one_line_exit_2_and_loses_nothing(arguments, message, tmp_path, bots, finished_run, monkeypatch):
    nonempty = tmp_path / "nonempty"
    nonempty.mkdir()
    (nonempty / "notes.txt").write_text("mine")
    places = {"bots": bots, "nonempty": nonempty, "finished": finished_run, "missing": tmp_path / "missing"}
    arguments = [argument.format(**places) for argument in arguments]
    before_finished, before_nonempty = snapshot(finished_run), snapshot(nonempty)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--games", "4", *QUICK, *arguments]
                                if "--resume" not in arguments else ["run", *arguments])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.output
    assert not (tmp_path / "results").exists() and not (tmp_path / "missing").exists()
    assert snapshot(finished_run) == before_finished and snapshot(nonempty) == before_nonempty


def test_resume_of_a_finished_run_plays_nothing_and_reports(finished_run):
    result = invoke("run", "--resume", str(finished_run))
    assert result.exit_code == 0 and "4 of 4 games" in result.stdout and "win rate" in result.stdout


def test_default_matchup_is_expert_against_greedy(tmp_path):
    out = tmp_path / "run"
    result = invoke("run", "--games", "4", "--workers", "1", "--out", str(out), "--rules", "target_score=500")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    assert [entry["spec"] for entry in manifest["strategies"]] == ["expert", "greedy"]
    assert list(RunDirectory(out).chunk_game_counts().values()) and "expert" in result.stdout


DAWDLER = '''
import time

from canasta_sim.strategies.greedy import Greedy


class Dawdler(Greedy):
    """Greedy, but every discard of its first hand would take five seconds, far past any limit the test sets."""

    name = "dawdler"

    def choose_discard(self, view):
        if view.hand_number == 1:
            time.sleep(5)
        return super().choose_discard(view)
'''


def test_time_limit_overrun_is_a_strategy_failure_named_in_one_line(tmp_path):
    bot = tmp_path / "dawdler.py"
    bot.write_text(DAWDLER)
    spec = f"{bot}:Dawdler"
    out = tmp_path / "stopped"
    # The error names the seat and the decision that overran first: under a limit of 1.0 s no honest decision of
    # either side reaches it, even on a machine busy with other suites (at 0.05 s a greedy decision stalled there
    # could be charged first).  It costs one second: the run stops at the first overrun.
    result = CliRunner().invoke(
        main, ["run", "--games", "2", "--seed", "3", "-s", spec, "-s", "greedy", "--workers", "1",
               "--time-limit", "1.0", "--out", str(out), "-q", *QUICK],
    )
    assert result.exit_code == 1
    message = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert "was stopped at the time limit of 1.0 s" in message and spec in message
    assert "decision discard" in message and "Traceback" not in message
    # Under forfeit any overrun ends its game as a forfeit, whichever seat it was charged to, and the Dawdler
    # overruns at its first discard of each game: a busy machine cannot change the outcomes, so the short limit stays.
    forfeited = tmp_path / "forfeited"
    result = invoke("run", "--games", "2", "--seed", "3", "-s", spec, "-s", "greedy", "--workers", "1", "--time-limit",
                    "0.05", "--on-error", "forfeit", "--out", str(forfeited), "-q", *QUICK)
    assert result.exit_code == 0
    games, _ = tables(forfeited)
    assert list(games.termination) == ["forfeit", "forfeit"]
    assert json.loads((forfeited / "run.json").read_text())["time_limit"] == 0.05
    assert "--time-limit 0.05" in json.loads((forfeited / "run.json").read_text())["command"]


@pytest.mark.timeout(60)
def test_a_bad_games_at_once_cap_stops_the_run_in_one_line_before_any_worker(tmp_path, monkeypatch):
    # A worker failing on it would be replaced again and again: the parent reads it first.
    monkeypatch.setenv("CANASTA_SIM_GAMES_AT_ONCE", "many")
    result = CliRunner().invoke(main, ["run", "--games", "4", "-s", "greedy", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "CANASTA_SIM_GAMES_AT_ONCE='many' is not a whole number of games" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_part_the_disk_refuses_fails_the_run_in_one_line_and_keeps_the_parts_written(tmp_path, monkeypatch, workers):
    # The parts are written by the run's parent as the workers' chunks end: a refused write is the run's error, never
    # a chunk silently missing from a run that says it ended well.
    write_chunk = RunDirectory.write_chunk

    def refusing(self, chunk, games, hands):
        if chunk == 1:
            raise OSError(28, "No space left on device")
        write_chunk(self, chunk, games, hands)

    monkeypatch.setattr(RunDirectory, "write_chunk", refusing)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "40", "--seed", "3", "--chunk-size", "5", "--workers", workers,
                                       "--out", str(out), "-q", *QUICK])
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: writing the run failed: [Errno 28] No space left on device; finished games are kept; "
                      f"fix it and run canasta-sim run --resume {out}"]
    assert json.loads((out / "run.json").read_text())["status"] == "failed"
    assert 0 in RunDirectory(out).chunks() and 1 not in RunDirectory(out).chunks()


@pytest.mark.parametrize("command", [["run", "--games", "4", "-s", "greedy", "-q"],
                                     ["compare", "greedy", "--baseline", "random", "--max-games", "4"],
                                     ["tune", "expert", "--games", "8", "--games-per-iteration", "4", "-q"]])
def test_an_out_directory_that_cannot_be_made_is_one_line_before_any_game(tmp_path, command):
    # compare made it after its first block of games, which were then lost with it.
    (tmp_path / "afile").write_text("a file, not a directory")
    result = CliRunner().invoke(main, [*command, "--workers", "1", "--out", str(tmp_path / "afile" / "sub")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert errors and "cannot be created: Not a directory" in errors[0] and "Traceback" not in result.output
    assert not [line for line in result.output.splitlines() if "games/s" in line]


@pytest.mark.parametrize("entry, value, message", [
    ("games", "forty", "its entry 'games' should be a whole number, not \"forty\""),
    ("seed", 1.5, "its entry 'seed' should be a whole number, not 1.5"),
    ("chunk_size", None, "its entry 'chunk_size' should be a whole number, not null"),
    ("time_limit", "fast", "its entry 'time_limit' should be a number of seconds or null, not \"fast\""),
    ("rules", "classic", "its entry 'rules' should be an object of rules, not \"classic\""),
    ("strategies", "greedy", "its entry 'strategies' should be a list of objects with a \"spec\", not \"greedy\""),
    ("duplicate", "false", "its entry 'duplicate' should be true or false, not \"false\""),  # bool() read it as true
])
def test_a_malformed_run_json_entry_is_named_with_what_it_should_hold(entry, value, message, finished_run):
    # It said "invalid literal for int() with base 10: 'forty'", and report showed "games 4 of forty".
    manifest = json.loads((finished_run / "run.json").read_text())
    manifest[entry] = value
    (finished_run / "run.json").write_text(json.dumps(manifest))
    commands = [["run", "--resume", str(finished_run)], ["replay", str(finished_run), "0"]]
    if entry == "games":
        commands.append(["report", str(finished_run)])
    for command in commands:
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, result.output
        assert result.output == f"Error: {'--resume: ' if command[0] == 'run' else ''}{finished_run}/run.json is " \
                                f"malformed: {message}\n", result.output


@pytest.mark.timeout(120)
def test_a_minimum_no_meld_reaches_is_warned_of_before_the_games_r10_2(tmp_path):
    # Every side needing 5,000 to open, more than all the cards count, and no concealed exemption (R10.7): nobody
    # melds, each game runs to the engine's 400-hand guard, and the run said nothing of why (pimc takes most of an
    # hour a game there).
    result = CliRunner().invoke(main, [
        "run", "--games", "1", "--workers", "1", "--seed", "1", "-s", "expert", "-s", "greedy", "-q", "--out",
        str(tmp_path / "run"), "--rules", "initial_meld_table=-inf:5000", "--rules",
        "concealed_exempt_from_minimum=no"])
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if "initial_meld_table" in line] == [
        "Warning: initial_meld_table asks 5000 points to open, more than all 108 cards count (1180): a side needing "
        "it can never meld, so games may end at the engine's guard of 400 hands, not at the target"]
    assert "1 of 1 games (100.0%) never reached the target score" in result.stdout


def test_only_a_minimum_above_all_the_cards_below_the_target_is_warned_of_r10_2(capsys):
    from canasta_sim.cli.options import rules_given

    for reachable in ("initial_meld_table=-inf:1180", "initial_meld_table=-inf:15,0:50,5000:100000"):
        assert rules_given((reachable,)).initial_meld_table[-1][1] in (1180, 100_000)  # the last needs a side won
    assert capsys.readouterr().err == ""
    rules_given(("initial_meld_table=-inf:15,0:1181", "target_score=3000"))
    assert capsys.readouterr().err == (
        "Warning: initial_meld_table asks 1181 points to open, more than all 108 cards count (1180): a side needing "
        "it can open only by going out concealed, so games may end at the engine's guard of 400 hands, not at the "
        "target\n")
