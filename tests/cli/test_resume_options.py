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
