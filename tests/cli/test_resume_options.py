"""``run --resume DIR`` goes on as the run was played: a failure is handled as the run did, unless told otherwise."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import FLAKY_BOT_SOURCE

RUN = ["--seed", "4", "--rules", "target_score=1000", "--chunk-size", "10", "--workers", "1", "-q"]


def invoke(*args: str):
    return CliRunner().invoke(main, ["run", *args])


@pytest.mark.timeout(120)
def test_a_resumed_run_keeps_forfeiting_the_games_of_a_failing_strategy(tmp_path):
    # --resume took --on-error's default, stop: a run started with --on-error forfeit and interrupted, resumed as the
    # interruption's own message says (run --resume DIR), stopped at the next failure, exit 1.
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    out = tmp_path / "run"
    specs = ["-s", f"{tmp_path}/flaky.py:Flaky", "-s", "greedy"]
    first = invoke("--games", "40", *RUN, *specs, "--on-error", "forfeit", "--out", str(out))
    assert first.exit_code == 0, first.output
    grown = invoke("--resume", str(out), "--games", "120")
    assert grown.exit_code == 0, grown.output
    games = pd.read_parquet(out / "games")
    assert len(games) == 120 and (games[games.game_id >= 40].termination == "forfeit").any()
    assert json.loads((out / "run.json").read_text())["sessions"][-1]["on_error"] == "forfeit"
    stopped = invoke("--resume", str(out), "--games", "200", "--on-error", "stop")  # an option still changes it
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
    first = invoke("--games", "4", *RUN, *specs, "--on-error", "forfeit", "--memory-limit", "1024", "--out", str(out))
    assert first.exit_code == 0, first.output
    assert forfeits(out, 0, 3) == {"forfeit"}
    grown = invoke("--resume", str(out), "--games", "8")
    assert grown.exit_code == 0, grown.output
    assert forfeits(out, 4, 7) == {"forfeit"}
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["memory_limit"] == 1024 and "--memory-limit 1024" in manifest["command"]
    lifted = invoke("--resume", str(out), "--games", "12", "--memory-limit", "none")  # the option still changes it
    assert lifted.exit_code == 0, lifted.output
    assert "forfeit" not in forfeits(out, 8, 11)
    assert "--memory-limit" not in json.loads((out / "run.json").read_text())["command"]


def test_a_memory_limit_kept_by_resume_is_refused_on_dask_naming_how_to_lift_it(tmp_path):
    out = tmp_path / "run"
    assert invoke("--games", "2", *RUN, "-s", "greedy", "-s", "random", "--memory-limit", "1024",
                  "--out", str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = invoke("--resume", str(out), "--games", "4", "--backend", "dask")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"--resume {out}: the run was played with --memory-limit 1024" in result.output
    assert "--memory-limit none" in result.output
    assert (out / "run.json").read_text() == before


def test_isolate_given_to_a_resume_that_would_change_the_strategies_is_refused(tmp_path):
    # --isolate was dropped without a word: the run's file strategy went on playing in its worker's process.
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    out = tmp_path / "run"
    assert invoke("--games", "2", *RUN, "-s", f"{tmp_path}/flaky.py:Flaky", "-s", "greedy",
                  "--out", str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = invoke("--resume", str(out), "--games", "4", "--isolate")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "which --isolate would change; resume it without that option" in result.output
    assert (out / "run.json").read_text() == before
