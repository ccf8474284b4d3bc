"""``run --resume DIR`` and ``tune --resume DIR`` go on as the run was played: a failure is handled as the run did,
unless told otherwise, and so are the games ``compare --out`` saved."""

import json
import shlex

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.rules import Rules
from canasta_sim.tuning.run import TuningDirectory, TuningSettings, new_manifest
from tests.helpers import FLAKY_BOT_SOURCE, assert_same_run_tables, invoke

RUN = ["--seed", "4", "--rules", "target_score=1000", "--chunk-size", "10", "--workers", "1", "-q"]


@pytest.mark.timeout(120)
def test_a_resumed_run_keeps_forfeiting_the_games_of_a_failing_strategy(tmp_path):
    # --resume took --on-error's default, stop: a run started with --on-error forfeit and interrupted, resumed as the
    # interruption's own message says (run --resume DIR), stopped at the next failure, exit 1.
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    out = tmp_path / "run"
    specs = ["-s", f"{tmp_path}/flaky.py:Flaky", "-s", "greedy"]
    first = invoke("run", "--games", "40", *RUN, *specs, "--on-error", "forfeit", "--out", str(out))
    assert first.exit_code == 0, first.output
    grown = invoke("run", "--resume", str(out), "--games", "120")
    assert grown.exit_code == 0, grown.output
    games = pd.read_parquet(out / "games")
    assert len(games) == 120 and (games[games.game_id >= 40].termination == "forfeit").any()
    assert json.loads((out / "run.json").read_text())["sessions"][-1]["on_error"] == "forfeit"
    stopped = invoke("run", "--resume", str(out), "--games", "200", "--on-error", "stop")  # an option still changes it
    assert stopped.exit_code == 1 and "--on-error forfeit" in stopped.output


# Greedy that reserves a gigabyte of address space, never touched, before each discard: refused under a
# --memory-limit of 1024 (a worker starts with about 530), free without one.
RESERVES_SOURCE = '''
import mmap

from canasta_sim.strategies.greedy import Greedy


class Reserves(Greedy):
    name = "reserves"

    def choose_discard(self, view):
        mmap.mmap(-1, 1024 ** 3).close()
        return super().choose_discard(view)
'''


def forfeits(out, first: int, last: int) -> set[str]:
    games = pd.read_parquet(out / "games")
    return set(games[games.game_id.between(first, last)].termination)


@pytest.mark.timeout(120)
def test_a_resumed_run_keeps_its_memory_limit_unless_given(tmp_path):
    # --resume played without the run's --memory-limit: the strategy it had stopped (the limit decides which strategies
    # fail) played on, so one run judged the same strategy two ways.
    (tmp_path / "reserves.py").write_text(RESERVES_SOURCE)
    out = tmp_path / "run"
    specs = ["-s", f"{tmp_path}/reserves.py:Reserves", "-s", "greedy"]
    first = invoke("run", "--games", "4", *RUN, *specs, "--on-error", "forfeit", "--memory-limit", "1024", "--out",
                   str(out))
    assert first.exit_code == 0, first.output
    assert forfeits(out, 0, 3) == {"forfeit"}
    grown = invoke("run", "--resume", str(out), "--games", "8")
    assert grown.exit_code == 0, grown.output
    assert forfeits(out, 4, 7) == {"forfeit"}
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["memory_limit"] == 1024 and "--memory-limit 1024" in manifest["command"]
    lifted = invoke("run", "--resume", str(out), "--games", "12", "--memory-limit",
                    "none")  # the option still changes it
    assert lifted.exit_code == 0, lifted.output
    assert "forfeit" not in forfeits(out, 8, 11)
    assert "--memory-limit" not in json.loads((out / "run.json").read_text())["command"]


def test_a_memory_limit_kept_by_resume_is_refused_on_dask_naming_how_to_lift_it(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "--games", "2", *RUN, "-s", "greedy", "-s", "random", "--memory-limit", "1024", "--out",
                  str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = invoke("run", "--resume", str(out), "--games", "4", "--backend", "dask")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"--resume {out}: the run was played with --memory-limit 1024" in result.output
    assert "--memory-limit none" in result.output
    assert (out / "run.json").read_text() == before


def test_isolate_given_to_a_resume_that_would_change_the_strategies_is_refused(tmp_path):
    # --isolate was dropped without a word: the run's file strategy went on playing in its worker's process.
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    out = tmp_path / "run"
    assert invoke("run", "--games", "2", *RUN, "-s", f"{tmp_path}/flaky.py:Flaky", "-s", "greedy", "--out",
                  str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = invoke("run", "--resume", str(out), "--games", "4", "--isolate")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "which --isolate would change; resume it without that option" in result.output
    assert (out / "run.json").read_text() == before


@pytest.mark.timeout(180)
def test_the_games_compare_saved_record_its_memory_limit_and_their_resume_keeps_it(tmp_path):
    # compare --out wrote no memory limit to run.json: neither its command nor a session said one was played, and
    # run --resume DIR --games N replayed the saved games without it, so the strategy they had stopped played on.
    (tmp_path / "reserves.py").write_text(RESERVES_SOURCE)
    out, again = tmp_path / "cmp", tmp_path / "again"
    result = CliRunner().invoke(main, ["compare", f"{tmp_path}/reserves.py:Reserves", "--baseline", "greedy",
                                       "--max-games", "4", "--seed", "4", "--workers", "1", "--on-error", "forfeit",
                                       "--memory-limit", "1024", "--rules", "target_score=1000", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert forfeits(out, 0, 3) == {"forfeit"}
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["memory_limit"] == 1024
    # The command it records plays the same games: with the limit, and with the failures forfeited.
    words = shlex.split(manifest["command"])
    assert words[:2] == ["canasta-sim", "run"] and words[-2] == "--out", words
    replayed = CliRunner().invoke(main, [*words[1:-1], str(again), "-q"])
    assert replayed.exit_code == 0, replayed.output
    assert_same_run_tables(again, out)
    grown = invoke("run", "--resume", str(out), "--games", "8")
    assert grown.exit_code == 0, grown.output
    assert forfeits(out, 0, 7) == {"forfeit"}


# Reserves with a parameter to tune: every game of the tuning is forfeited under a --memory-limit of 1024.
TUNABLE_RESERVES_SOURCE = RESERVES_SOURCE + '''

from canasta_sim.core.parameters import Parameter


class TunableReserves(Reserves):
    name = "tunable-reserves"
    parameters = {"knob": Parameter(0.5, low=0.0, high=1.0)}
'''


@pytest.mark.timeout(180)
def test_a_resumed_tuning_keeps_its_memory_limit_unless_given(tmp_path):
    # tune --resume played without the tuning's --memory-limit (docs/tuning.md said so), and took no "none": the
    # iterations after the resume judged the strategy another way than those before it.
    (tmp_path / "reserves.py").write_text(TUNABLE_RESERVES_SOURCE)
    out = tmp_path / "tuned"
    trajectory = out / "trajectory.parquet"

    def tune(*arguments: str):
        return CliRunner().invoke(main, ["tune", *arguments, "-q"])

    def forfeits_by_iteration() -> list[int]:
        return pq.read_table(trajectory).column("forfeits").to_pylist()

    def drop_the_last_iteration() -> None:  # as if the tuning had been stopped before it
        pq.write_table(pq.read_table(trajectory).slice(0, 1), trajectory)

    first = tune(f"{tmp_path}/reserves.py:TunableReserves", "--games", "8", "--games-per-iteration", "4", "--seed",
                 "1", "--workers", "1", "--on-error", "forfeit", "--memory-limit", "1024", "--rules",
                 "target_score=1000", "--out", str(out))
    assert first.exit_code == 0, first.output
    assert forfeits_by_iteration() == [4, 4]
    drop_the_last_iteration()
    kept = tune("--resume", str(out))
    assert kept.exit_code == 0, kept.output
    assert forfeits_by_iteration() == [4, 4]
    manifest = json.loads((out / "tune.json").read_text())
    assert manifest["sessions"][-1]["memory_limit"] == 1024 and "--memory-limit 1024" in manifest["command"]
    drop_the_last_iteration()
    lifted = tune("--resume", str(out), "--memory-limit", "none")  # the option still changes it
    assert lifted.exit_code == 0, lifted.output
    assert forfeits_by_iteration() == [4, 0]
    manifest = json.loads((out / "tune.json").read_text())
    assert manifest["sessions"][-1]["memory_limit"] is None and "--memory-limit" not in manifest["command"]


def test_a_tuning_whose_recorded_memory_limit_is_malformed_is_not_resumed(tmp_path):
    settings = TuningSettings(spec="expert", params=("aggression",), against=None, games=4, games_per_iteration=4,
                              seed=1, rules=Rules(target_score=1000))
    manifest = new_manifest(settings, "test", seed_drawn=False)
    manifest["sessions"] = [{"memory_limit": "lots"}]
    TuningDirectory(tmp_path / "tuned").write_manifest(manifest)
    result = CliRunner().invoke(main, ["tune", "--resume", str(tmp_path / "tuned"), "-q"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "its entry 'sessions[-1].memory_limit' should be a whole number of megabytes" in result.output
    assert not (tmp_path / "tuned" / "trajectory.parquet").exists()
