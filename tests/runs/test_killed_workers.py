"""A worker killed from outside (the kernel's OOM killer, an admin's ``kill -9``) while a built-in strategy's call
runs: no strategy did it, so its game is played again rather than charged to that seat."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.strategies import BUILTIN
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.tuning.iteration import TuningError
from tests.helpers import BOTS, assert_same_run_tables


def _run(out, workers: int, *specs: str, games: int = 4):
    arguments = ["run", "--games", str(games), "--chunk-size", "2", "--seed", "5", "--workers", str(workers),
                 "--rules", "target_score=1000", "--on-error", "forfeit", "--out", str(out), "-q"]
    for spec in specs:
        arguments += ["-s", spec]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    return pd.read_parquet(out / "games")


def _killed_once_from_outside(marker, built_in=Greedy):
    """A built-in's discard (greedy's by default), whose first call in any worker kills that worker with SIGKILL, as
    if from outside: the class stays the built-in one, trusted, and the replayed game finds the marker and plays on."""
    discard = built_in.choose_discard

    def choose_discard(self, view):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return discard(self, view)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable: the worker is dead")

    return choose_discard


@pytest.mark.timeout(120)
def test_a_worker_killed_during_a_built_in_strategys_call_costs_no_forfeit_and_its_game_is_played_again(
        tmp_path, monkeypatch):
    _run(tmp_path / "clean", 1, "greedy", "random")
    marker = tmp_path / "killed"
    monkeypatch.setattr(Greedy, "choose_discard", _killed_once_from_outside(marker))  # inherited by forked workers
    games = _run(tmp_path / "killed-run", 2, "greedy", "random")
    assert marker.exists()  # a worker was killed
    assert sorted(games["game_id"]) == list(range(4))
    assert games["forfeit_reason"].isna().all(), games["error"].dropna().tolist()
    assert_same_run_tables(tmp_path / "clean", tmp_path / "killed-run")


@pytest.mark.timeout(120)
def test_a_strategy_not_built_in_that_kills_its_own_worker_is_still_charged_with_the_crash(tmp_path):
    bad = f"{BOTS / 'bad_strategies.py'}:KillsItsWorker"
    games = _run(tmp_path / "run", 1, bad, "random", games=8)
    charged = games.dropna(subset=["forfeit_reason"])
    assert len(charged) > 0 and (charged["forfeit_reason"] == "crash").all()
    assert charged["error"].str.contains("SIGKILL").all() and charged["error"].str.contains("KillsItsWorker").all()
    assert len(games) == 8


@pytest.mark.timeout(120)
def test_a_strategy_that_enters_itself_among_the_built_ins_and_kills_its_worker_is_still_charged(tmp_path):
    saved = dict(BUILTIN)
    try:
        games = _run(tmp_path / "run", 1, f"{BOTS / 'claims_built_in.py'}:ClaimsBuiltIn", "random", games=2)
    finally:  # the file, imported in this process too as the run loads it, rewrote the registry
        BUILTIN.clear()
        BUILTIN.update(saved)
    assert len(games) == 2 and (games["forfeit_reason"] == "crash").all(), games["error"].tolist()


@pytest.mark.timeout(120)
def test_a_game_whose_worker_keeps_dying_in_built_in_calls_stops_the_run_in_one_line(tmp_path, monkeypatch):
    # Played again for ever otherwise: an in-process strategy's memory can get the worker killed on the built-in's move.
    monkeypatch.setattr(Greedy, "choose_discard", lambda self, view: os.kill(os.getpid(), signal.SIGKILL))
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "5", "--workers", "1", "-s", "greedy",
                                       "-s", "random", "--on-error", "forfeit", "--out", str(out), "-q"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if "during a built-in strategy's call" in line]
    assert len(lines) == 1 and "3 times" in lines[0] and "signal SIGKILL" in lines[0], result.output
    assert "Traceback" not in result.output
    assert json.loads((out / "run.json").read_text())["status"] == "failed"


# --- compare and tune: the same supervisor, schedules of their own ----------------------------------------------

def _compare(out, workers: int, new: str, *options: str):
    """A comparison of two blocks (20 games, no decision): its output and its saved games."""
    result = CliRunner().invoke(main, ["compare", new, "--baseline", "random", "--elo0", "550", "--elo1", "650",
                                       "--max-games", "20", "--seed", "3", "--rules", "target_score=1000",
                                       "--workers", str(workers), "--out", str(out), "-q", *options])
    return result, pd.read_parquet(out / "games") if (out / "games").exists() else None


@pytest.mark.timeout(120)
def test_compare_plays_again_a_game_whose_worker_was_killed_in_a_built_in_call_and_counts_it_once(
        tmp_path, monkeypatch):
    clean, _ = _compare(tmp_path / "clean", 1, "greedy")
    assert clean.exit_code == 0, clean.output
    marker = tmp_path / "killed"
    monkeypatch.setattr(Greedy, "choose_discard", _killed_once_from_outside(marker))
    killed, games = _compare(tmp_path / "killed-run", 2, "greedy", "--on-error", "forfeit")
    assert marker.exists()  # a worker was killed
    assert killed.exit_code == 0, killed.output
    # The same LLR and verdict, after the same 20 games, and no forfeit counted; a warning tells of the death.
    verdict = [line for line in killed.output.splitlines() if "saved in" not in line and "WARNING" not in line]
    assert verdict == clean.output.splitlines()[:-1] and "no decision after 20 games" in verdict[-1], killed.output
    assert "during a built-in strategy's call" in killed.output
    assert sorted(games["game_id"]) == list(range(20)) and games["forfeit_reason"].isna().all()
    assert_same_run_tables(tmp_path / "clean", tmp_path / "killed-run")


@pytest.mark.timeout(120)
def test_compare_still_charges_a_strategy_not_built_in_that_kills_its_own_worker(tmp_path):
    result, _ = _compare(tmp_path / "cmp", 1, f"{BOTS / 'bad_strategies.py'}:KillsItsWorker")
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert "(reason: crash)" in errors[0] and "SIGKILL" in errors[0] and "KillsItsWorker" in errors[0]


@pytest.mark.timeout(120)
def test_a_compared_game_whose_worker_keeps_dying_in_built_in_calls_stops_compare_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(Greedy, "choose_discard", lambda self, view: os.kill(os.getpid(), signal.SIGKILL))
    result, _ = _compare(tmp_path / "cmp", 1, "greedy", "--on-error", "forfeit")
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert "during a built-in strategy's call" in errors[0] and "3 times" in errors[0]
    assert "the run" not in errors[0]  # a comparison is not a run: it said "the run stops"
    assert "Traceback" not in result.output


def _tune(path, workers: int, spec: str, params: tuple[str, ...], on_error: str = "forfeit"):
    from canasta_sim.core.rules import Rules
    from canasta_sim.tuning.run import TuningDirectory, TuningSettings, new_manifest, run_tuning

    chosen = TuningSettings(spec=spec, params=params, against="greedy", games=8, games_per_iteration=8, seed=5,
                            rules=Rules(target_score=1000), on_error=on_error)
    directory = TuningDirectory(path)
    directory.write_manifest(new_manifest(chosen, "test", seed_drawn=False))
    outcome = run_tuning(chosen, directory, workers=workers)
    return outcome, pd.read_parquet(path / "trajectory.parquet")


@pytest.mark.timeout(120)
def test_tune_plays_again_a_game_whose_worker_was_killed_in_a_built_in_call_and_counts_it_once(
        tmp_path, monkeypatch):
    clean, clean_rows = _tune(tmp_path / "clean", 1, "expert", ("aggression",))
    marker = tmp_path / "killed"
    monkeypatch.setattr(Greedy, "choose_discard", _killed_once_from_outside(marker))  # the opponent, --against
    killed, rows = _tune(tmp_path / "killed-run", 2, "expert", ("aggression",))
    assert marker.exists()  # a worker was killed
    assert (rows["forfeits"] == 0).all() and killed.games_done == clean.games_done == 8
    pd.testing.assert_frame_equal(rows, clean_rows)
    assert killed.spec == clean.spec


@pytest.mark.timeout(120)
def test_tune_still_charges_a_tuned_strategy_not_built_in_that_kills_its_own_worker(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("import os, signal\nfrom canasta_sim.core.parameters import Parameter\n"
                   "from canasta_sim.strategies.greedy import Greedy\n\n\n"
                   "class KillsItsWorker(Greedy):\n    name = 'kills-its-worker'\n"
                   "    parameters = {'depth': Parameter(0.5, low=0.0, high=1.0)}\n\n"
                   "    def choose_discard(self, view):\n        os.kill(os.getpid(), signal.SIGKILL)\n")
    with pytest.raises(TuningError, match=r"iteration 0: strategy .*KillsItsWorker.*SIGKILL.*\(reason: crash\)"):
        _tune(tmp_path / "run", 1, f"{bot}:KillsItsWorker", ("depth",), on_error="stop")


@pytest.mark.timeout(120)
def test_a_tuned_game_whose_worker_keeps_dying_in_built_in_calls_stops_tune_in_one_line_that_blames_no_strategy(
        tmp_path, monkeypatch):
    # Its line told the user to fix the strategy or start again with --on-error forfeit, which would die the same way.
    monkeypatch.setattr(Greedy, "choose_discard", lambda self, view: os.kill(os.getpid(), signal.SIGKILL))
    result = CliRunner().invoke(main, ["tune", "expert", "--params", "aggression", "--against", "greedy", "--games",
                                       "4", "--games-per-iteration", "4", "--seed", "5", "--rules", "target_score=1000",
                                       "--workers", "1", "--out", str(tmp_path / "tuning"), "-q"])
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert "during a built-in strategy's call" in errors[0] and "3 times" in errors[0]
    assert "fix the strategy" not in errors[0] and "--on-error forfeit" not in errors[0]
    assert "the run" not in errors[0]
    assert errors[0].endswith(f"canasta-sim tune --resume {tmp_path / 'tuning'} goes on")


KILLED_ONCE_ON_DASK = '''
import os
import signal

from canasta_sim.strategies.greedy import Greedy

# Dask may run a preload more than once in a process: the discard wrapped is always greedy's own.
_discard = Greedy.__dict__.get("_discard_before_the_kill", Greedy.choose_discard)
Greedy._discard_before_the_kill = _discard


def choose_discard(self, view):
    """Greedy's discard, whose first call on any worker kills that worker with SIGKILL, as if from outside."""
    try:
        os.close(os.open(os.environ["KILLED_MARKER"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return _discard(self, view)
    os.kill(os.getpid(), signal.SIGKILL)


Greedy.choose_discard = choose_discard  # in each Dask worker process, as it starts
'''


@pytest.mark.timeout(180)
def test_a_dask_worker_killed_during_a_built_in_strategys_call_costs_no_forfeit_and_its_game_is_played_again(
        tmp_path):
    preload = tmp_path / "killed_once_on_dask.py"
    preload.write_text(KILLED_ONCE_ON_DASK)
    marker = tmp_path / "killed"
    _run(tmp_path / "local", 1, "greedy", "random")
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "4", "--chunk-size", "2", "--seed", "5",
               "--workers", "1", "--backend", "dask", "--rules", "target_score=1000", "--on-error", "forfeit",
               "--out", str(tmp_path / "dask"), "-s", "greedy", "-s", "random"]
    environment = {**os.environ, "KILLED_MARKER": str(marker),
                   "DASK_DISTRIBUTED__WORKER__PRELOAD": repr([str(preload)])}
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    assert marker.exists()  # a worker was killed
    assert "its Dask worker died during a built-in strategy's call, not that strategy's doing" in result.stderr
    games = pd.read_parquet(tmp_path / "dask" / "games")
    assert games["forfeit_reason"].isna().all(), games["error"].dropna().tolist()  # was: greedy's seat, a crash
    assert_same_run_tables(tmp_path / "local", tmp_path / "dask")
