"""A worker killed from outside (the kernel's OOM killer, an admin's ``kill -9``) while a built-in strategy's call
runs: no strategy did it, so its game is played again rather than charged to that seat."""

from __future__ import annotations

import json
import os
import signal

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.strategies import BUILTIN
from canasta_sim.strategies.greedy import Greedy
from tests.helpers import BOTS, assert_same_run_tables


def _run(out, workers: int, *specs: str, games: int = 4):
    arguments = ["run", "--games", str(games), "--chunk-size", "2", "--seed", "5", "--workers", str(workers),
                 "--rules", "target_score=1000", "--on-error", "forfeit", "--out", str(out), "-q"]
    for spec in specs:
        arguments += ["-s", spec]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    return pd.read_parquet(out / "games")


def _killed_once_from_outside(marker):
    """Greedy's discard, whose first call in any worker kills that worker with SIGKILL, as if from outside: the
    class stays the built-in one, trusted, and the replayed game finds the marker and plays on."""
    discard = Greedy.choose_discard

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
