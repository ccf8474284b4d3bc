"""``--games-at-once``: how many games a worker plays side by side with bot processes, each bot process holding its
seat's games at once.  It changes no game; under ``--memory-limit`` it decides how much of the limit each game has
(docs/fairness.md), so a run records it and its resume keeps it, as the limit itself."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import assert_same_run_tables

KEEPS = Path(__file__).resolve().parent.parent / "bots" / "keeps_memory.py"


def _command(out: Path, *arguments: str) -> list[str]:
    # In a process of its own, as a user runs it: a worker forked from the test process would start with the test
    # process's address space, most of the limit.
    return [sys.executable, "-m", "canasta_sim", "run", "--games", "16", "--chunk-size", "16", "--seed", "9",
            "--workers", "1", "--on-error", "forfeit", "--memory-limit", "1024", "--rules", "target_score=1000",
            "-q", "--out", str(out), *arguments]


def _run_together(*runs: tuple[str, ...]) -> None:
    """The runs at once, each ``(out, *arguments)``: the limit caps each process's own address space, so runs side by
    side play as they do one after another, in less of the suite's time."""
    processes = [subprocess.Popen(_command(Path(out), *arguments), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for out, *arguments in runs]
    try:
        for process in processes:
            output, _ = process.communicate(timeout=180)
            assert process.returncode == 0, output
    finally:
        for process in processes:
            process.kill()


def _forfeit_reasons(out: Path) -> list:
    return [reason for reason in pq.read_table(out / "games").column("forfeit_reason").to_pylist() if reason]


@pytest.mark.timeout(240)
def test_one_game_at_a_time_gives_each_game_of_a_bot_process_the_whole_memory_limit(tmp_path):
    # A bot process holding its seat's 8 games of 200 MB at once passes a 1024 MB limit no game of it reaches alone:
    # isolated, the strategy forfeited games it wins in-process.  One game at a time it plays them as in-process.
    at_once, one_by_one, in_process = tmp_path / "at_once", tmp_path / "one_by_one", tmp_path / "in_process"
    _run_together((at_once, "-s", f"isolated:{KEEPS}:KeepsMemory", "-s", "greedy"),
                  (one_by_one, "-s", f"isolated:{KEEPS}:KeepsMemory", "-s", "greedy", "--games-at-once", "1"),
                  (in_process, "-s", f"{KEEPS}:KeepsMemory", "-s", "greedy"))
    assert "exception" in _forfeit_reasons(at_once)
    assert _forfeit_reasons(one_by_one) == _forfeit_reasons(in_process) == []
    # The same games, the spec (isolated: or not) aside.
    specs = ["team_a_strategy", "team_b_strategy", "winner_strategy"]
    games = [pq.read_table(out / "games").drop_columns(specs) for out in (one_by_one, in_process)]
    assert games[0].equals(games[1])
    # The run says how it played: its session and the command that plays it again, which a resume keeps.
    manifest = json.loads((one_by_one / "run.json").read_text())
    assert manifest["sessions"][-1]["games_at_once"] == 1
    assert "--games-at-once 1" in manifest["command"]
    grown = subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--resume", str(one_by_one), "--games", "18",
                            "-q"], capture_output=True, text=True, timeout=180)
    assert grown.returncode == 0, grown.stdout + grown.stderr
    manifest = json.loads((one_by_one / "run.json").read_text())
    assert manifest["sessions"][-1]["games_at_once"] == 1 and "--games-at-once 1" in manifest["command"]
    assert _forfeit_reasons(one_by_one) == []


@pytest.mark.timeout(120)
def test_the_recorded_command_of_a_run_at_a_few_games_at_once_plays_the_same_tables(tmp_path):
    out, again = tmp_path / "run", tmp_path / "again"
    result = CliRunner().invoke(main, ["run", "--games", "8", "--seed", "3", "--workers", "1", "-q", "-s",
                                       "isolated:expert", "-s", "greedy", "--games-at-once", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    words = shlex.split(json.loads((out / "run.json").read_text())["command"])
    assert words[words.index("--games-at-once") + 1] == "3"
    replayed = CliRunner().invoke(main, [*words[1:-1], str(again), "-q"])
    assert replayed.exit_code == 0, replayed.output
    assert_same_run_tables(again, out)


@pytest.mark.timeout(120)
def test_compare_records_its_games_at_once(tmp_path):
    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", "isolated:expert", "--baseline", "greedy", "--max-games", "4",
                                       "--seed", "4", "--workers", "1", "--games-at-once", "2", "--rules",
                                       "target_score=1000", "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["games_at_once"] == 2 and "--games-at-once 2" in manifest["command"]


@pytest.mark.parametrize("arguments, message", [
    (["--games-at-once", "0"], "0 is out of range: use a whole number of 1 or more"),
    (["--games-at-once", "many"], "'many' is not a whole number of 1 or more"),
    (["--games-at-once", "2", "--backend", "dask"], "--games-at-once applies to --backend local only"),
])
def test_a_bad_games_at_once_is_one_line(tmp_path, arguments, message):
    result = CliRunner().invoke(main, ["run", "--games", "2", "-q", "--out", str(tmp_path / "run"), *arguments])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert message in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.timeout(180)
def test_a_resumed_tuning_keeps_its_games_at_once_unless_given(tmp_path):
    out = tmp_path / "tuned"
    trajectory = out / "trajectory.parquet"

    def tune(*arguments: str):
        result = CliRunner().invoke(main, ["tune", *arguments, "-q"])
        assert result.exit_code == 0, result.output
        pq.write_table(pq.read_table(trajectory).slice(0, 1), trajectory)  # as if stopped before its last iteration
        manifest = json.loads((out / "tune.json").read_text())
        # The command that plays the tuning again says so too.
        words = shlex.split(manifest["command"])
        assert words[words.index("--games-at-once") + 1] == str(manifest["sessions"][-1]["games_at_once"])
        return manifest["sessions"][-1]

    first = tune("expert", "--params", "aggression", "--games", "8", "--games-per-iteration", "4", "--seed",
                 "1", "--workers", "1", "--games-at-once", "2", "--rules", "target_score=500", "--out", str(out))
    assert first["games_at_once"] == 2
    assert tune("--resume", str(out))["games_at_once"] == 2
    assert tune("--resume", str(out), "--games-at-once", "3")["games_at_once"] == 3


def test_a_run_whose_recorded_games_at_once_is_malformed_is_not_resumed(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "--workers", "1", "-q", "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    manifest["sessions"][-1]["games_at_once"] = 0
    (out / "run.json").write_text(json.dumps(manifest))
    resumed = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "4", "-q"])
    assert resumed.exit_code == 2 and resumed.output.count("\n") == 1, resumed.output
    assert "'sessions[-1].games_at_once' should be a whole number of games, 1 or more" in resumed.output
