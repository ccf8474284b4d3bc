"""Placement of a worker and its bot processes: a core of the worker's own, the spare cores for its bots, and
the same games wherever they run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.plugins.affinity import AFFINITY_VARIABLE, Placement, affinity_enabled, placement
from canasta_sim.runs.machine import usable_cores

CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

# A strategy that says, at its first discard, where its process and its parent (the worker) may run.
_REPORTING_BOT = '''
import os
from canasta_sim.strategies.greedy import Greedy


class Reporting(Greedy):
    name = "reporting"
    reported = False

    def choose_discard(self, view):
        if not Reporting.reported:
            Reporting.reported = True
            print("cores", sorted(os.sched_getaffinity(0)), sorted(os.sched_getaffinity(os.getppid())))
        return super().choose_discard(view)
'''


def test_placement_is_off_by_default(monkeypatch):
    monkeypatch.delenv(AFFINITY_VARIABLE, raising=False)
    assert not affinity_enabled()
    assert placement(0, 1, frozenset({0, 1, 2, 3})) is None


def test_one_worker_takes_the_first_core_and_its_bots_the_others(monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "1")
    assert placement(0, 1, frozenset({0, 1, 2, 3})) == Placement(0, frozenset({1, 2, 3}))
    assert placement(1, 2, frozenset({4, 5, 6, 7})) == Placement(5, frozenset({6, 7}))


def test_workers_that_take_every_core_are_not_placed(monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "1")
    assert placement(0, 2, frozenset({0, 1})) is None
    assert placement(2, 3, frozenset({0, 1})) is None
    assert placement(0, 1, frozenset({3})) is None


def test_workers_without_a_spare_core_each_are_not_placed(monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "1")
    assert placement(0, 2, frozenset({0, 1, 2})) is None
    assert placement(0, 2, frozenset({0, 1, 2, 3})) == Placement(0, frozenset({2, 3}))


def test_placement_is_off_with_the_variable_at_0(monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")
    assert not affinity_enabled()
    assert placement(0, 1, frozenset({0, 1, 2, 3})) is None


def test_a_bad_affinity_value_names_what_is_accepted(monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "yes")
    with pytest.raises(ValueError, match=r"CANASTA_SIM_AFFINITY='yes' is not accepted; use 1 \(on\) or 0"):
        affinity_enabled()


@pytest.mark.timeout(60)
def test_a_bad_affinity_value_stops_the_run_in_one_line_before_any_worker(tmp_path, monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "2")
    result = CliRunner().invoke(main, ["run", "--games", "4", "-s", "greedy", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "CANASTA_SIM_AFFINITY='2' is not accepted" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def _run(out: Path, bot: Path, *options: str) -> tuple[pd.DataFrame, str, dict]:
    log = out.parent / f"{out.name}.log"
    result = CliRunner().invoke(main, ["run", "--games", "6", "--seed", "4", "--workers", "1", "-q", "--rules",
                                       "target_score=1500", "--out", str(out), "--log-file", str(log), "-s",
                                       f"isolated:{bot}:Reporting", "-s", "greedy", *options], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    games = pd.read_parquet(out / "games").sort_values("game_id").reset_index(drop=True)
    return games, log.read_text(), json.loads((out / "run.json").read_text())


@pytest.mark.timeout(180)
@pytest.mark.skipif(len(CORES) < 2, reason="placement needs a core to spare beside the worker's")
def test_pinned_cores_put_a_workers_bots_on_the_spare_cores_and_play_the_same_games(tmp_path, monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")  # restored after the test: --pin-cores sets it to 1 in this process
    bot = tmp_path / "reporting.py"
    bot.write_text(_REPORTING_BOT)
    unplaced, unplaced_log, unplaced_manifest = _run(tmp_path / "unplaced", bot)
    placed, placed_log, placed_manifest = _run(tmp_path / "placed", bot, "--pin-cores")
    assert f"cores {CORES} {CORES}" in unplaced_log
    # Every bot process of the worker, the one its strategy's loading started for the handshake included.
    reports = [line[line.index("cores ["):] for line in placed_log.splitlines() if "cores [" in line]
    assert len(reports) == 4 and set(reports) == {f"cores {CORES[1:]} {CORES[:1]}"}, reports
    assert placed.equals(unplaced)
    assert "--pin-cores" in placed_manifest["command"] and "--pin-cores" not in unplaced_manifest["command"]


@pytest.mark.timeout(60)
def test_pinned_cores_are_refused_on_a_dask_cluster(tmp_path, monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")
    result = CliRunner().invoke(main, ["run", "--games", "4", "-s", "greedy", "--backend", "dask", "--pin-cores",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "--pin-cores applies to --backend local only" in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["compare", "greedy", "--baseline", "random", "--max-games", "4"],
                                     ["tune", "greedy", "--games", "4"]], ids=["compare", "tune"])
def test_a_bad_affinity_value_stops_compare_and_tune_in_one_line(tmp_path, monkeypatch, command):
    monkeypatch.setenv(AFFINITY_VARIABLE, "on")
    result = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("Error: CANASTA_SIM_AFFINITY='on' is not accepted")
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.timeout(120)
def test_compare_takes_pinned_cores_for_its_workers(tmp_path, monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")  # restored after the test: --pin-cores sets it to 1 in this process
    result = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "random", "--max-games", "4", "--workers",
                                       "1", "--seed", "3", "--pin-cores"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert os.environ[AFFINITY_VARIABLE] == "1"


@pytest.mark.timeout(60)
@pytest.mark.skipif(not CORES, reason="placement needs os.sched_setaffinity")
def test_pinned_cores_that_cannot_be_given_are_said_not_left_silent(tmp_path, monkeypatch):
    # Four chunks: the run starts as many workers as there are cores, and none has two cores.
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")
    result = CliRunner().invoke(main, ["run", "--games", "4", "--chunk-size", "1", "-s", "greedy", "--workers",
                                       str(len(CORES)), "--pin-cores", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    worker = "worker" if len(CORES) == 1 else "workers"
    assert f"--pin-cores pins nothing: {len(CORES)} {worker} on {len(CORES)} cores" in result.output


@pytest.mark.skipif(not CORES, reason="placement needs os.sched_getaffinity")
def test_pinned_cores_without_workers_give_each_worker_two_cores_when_bots_run(monkeypatch):
    from canasta_sim.cli.options import worker_count

    monkeypatch.setenv(AFFINITY_VARIABLE, "1")
    cores = usable_cores()  # a container's CPU quota counted
    assert worker_count(None, ["isolated:expert", "greedy"]) == max(1, cores // 2)
    assert worker_count(None, ["expert", "cmd:node bot.js"]) == max(1, cores // 2)
    assert worker_count(None, ["expert", "greedy"]) == cores  # nothing to place: a worker per core
    assert worker_count(3, ["isolated:expert", "greedy"]) == 3
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")
    assert worker_count(None, ["isolated:expert", "greedy"]) == cores


@pytest.mark.timeout(120)
@pytest.mark.skipif(len(CORES) < 2, reason="one worker is placed with two cores or more")
def test_a_run_with_pinned_cores_and_bots_places_its_default_workers(tmp_path, monkeypatch):
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")  # restored after the test: --pin-cores sets it to 1 in this process
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "4", "--chunk-size", "1", "--rules", "target_score=1500",
                                       "-s", "isolated:greedy", "-s", "random", "--pin-cores", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "pins nothing" not in result.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["workers"] == max(1, usable_cores() // 2)
    assert f"--workers {max(1, usable_cores() // 2)}" in manifest["command"]


@pytest.mark.timeout(60)
@pytest.mark.skipif(len(CORES) < 2, reason="one worker is placed with two cores or more")
def test_pinned_cores_are_counted_for_the_workers_a_run_starts(tmp_path, monkeypatch):
    # One chunk: one worker, whatever --workers asks, and it has two cores to take.
    monkeypatch.setenv(AFFINITY_VARIABLE, "0")
    result = CliRunner().invoke(main, ["run", "--games", "2", "--chunk-size", "2", "-s", "greedy", "--workers",
                                       str(len(CORES)), "--pin-cores", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "pins nothing" not in result.output


@pytest.mark.timeout(60)
def test_pinned_cores_on_a_system_that_cannot_pin_are_said_not_left_silent(tmp_path, monkeypatch):
    # macOS and Windows have no os.sched_setaffinity: --pin-cores pinned nothing there, and said nothing.
    monkeypatch.delattr(os, "sched_setaffinity", raising=False)
    result = CliRunner().invoke(main, ["run", "--games", "2", "-s", "greedy", "--workers", "1", "--pin-cores",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "--pin-cores pins nothing: this system cannot pin a process to a core (Linux only)" in result.output
