"""A bot process's start-up and handshake have an allowance of their own (STARTUP_ALLOWANCE), never the decision time
limit: a JVM, or a Python importing a large library, is not charged its start-up as a decision's time, and one that
never finishes starting is still stopped and charged with ``timeout``, in words naming the start-up.

tests/bots/protocol_slow_start.py sleeps before answering ``hello`` in every process but the command's own (the first,
marked by a file).  The supervisor's margin past the time limit is shortened here, so that a start-up of 1.3 s
already outlasts limit and margin together (1.05 s), as a longer start-up does a shorter limit.  The limit is a second,
not a tenth: a busy machine held an honest decision of this bot's 0.3 s, killed as a timeout past 0.1 s.
"""

from __future__ import annotations

import sys

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.strategies import Greedy
from tests.helpers import BOTS

SLOW_START = BOTS / "protocol_slow_start.py"
QUICK = ["--rules", "target_score=500"]  # R15.1 with a low target keeps games short
LIMIT = 1.0
"""The decision time limit: above a busy machine's pauses, below the start-up."""
START_UP = 1.3
"""Seconds each bot process but the first sleeps before it answers ``hello``: past the limit and the margin."""


def slow_bot(seconds: float) -> str:
    return f"cmd:{sys.executable} {SLOW_START} {seconds}"


@pytest.fixture
def short_margin(monkeypatch, tmp_path):
    """The supervisors kill a call 0.05 s past the time limit; the bot's first process (the command's handshake) starts
    at once, every later one slowly."""
    monkeypatch.setattr("canasta_sim.runs.supervisor.HARD_TIMEOUT_MARGIN", 0.05)
    monkeypatch.setattr("canasta_sim.runs.supervised_game.HARD_TIMEOUT_MARGIN", 0.05)
    monkeypatch.setenv("SLOW_START_MARK", str(tmp_path / "first-process-started"))
    yield
    close_all()


@pytest.mark.timeout(60)
def test_check_strategy_does_not_charge_a_bots_start_up_against_the_time_limit(short_margin):
    result = CliRunner().invoke(main, ["check-strategy", slow_bot(START_UP), "--games", "1",
                                       "--time-limit", str(LIMIT), *QUICK], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "timeout" not in result.output and "no problems found" in result.output


@pytest.mark.timeout(60)
def test_run_does_not_charge_a_bots_start_up_against_the_time_limit(short_margin, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "-s", slow_bot(START_UP), "-s", "greedy", "--games", "1",
                                       "--workers", "1", "--time-limit", str(LIMIT), "--seed", "3", "--out", str(out),
                                       "-q", *QUICK],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    games = pq.read_table(out / "games").to_pydict()
    assert games["termination"] != ["forfeit"] and games["error"] == [None], games


@pytest.mark.timeout(60)
def test_a_bot_that_never_finishes_starting_is_stopped_and_charged_naming_its_start_up(monkeypatch, tmp_path):
    monkeypatch.setenv("SLOW_START_MARK", str(tmp_path / "first-process-started"))
    # The allowance is cut after the load: the load's own process, quick as it is, may take longer to start on a
    # busy machine, and its handshake is not what this test is about.
    stuck = load_strategy(slow_bot(60))
    monkeypatch.setattr("canasta_sim.plugins.pools.STARTUP_ALLOWANCE", 0.3)
    try:
        with pytest.raises(StrategyError) as caught:
            # Seat 0 takes the process that answered the load's handshake; seat 2 starts one of its own.
            play_game([stuck, Greedy, stuck, Greedy], seed=1, rules=Rules(target_score=500), time_limit=5)
    finally:
        close_all()
    error = caught.value
    assert (error.seat, error.decision, error.reason) == (2, "build", "timeout")
    assert "did not finish starting (answer hello) within the start-up allowance of 0.3 s and was killed" in str(error)
    assert "\n" not in error.message
