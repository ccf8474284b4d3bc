"""The machine ending a built-in strategy's call in the commands that play single games (``check-strategy``,
``watch``, ``play``): the game's process killed from outside (the OOM killer, a ``kill -9``) during the built-in's
move, or the move out of memory.  No built-in is charged with it: ``check-strategy`` plays the game again, as a run's
supervisor does, and ends in one line (exit 3) when it meets it every time; ``watch`` and ``play`` end in one line
saying what happened."""

from __future__ import annotations

import os
import signal

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.strategies.greedy import Greedy
from tests.runs.test_killed_workers import _killed_once_from_outside
from tests.terminal.test_play import ANY_ANSWER, SHORT

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short
KILLED = "the game's process died (signal SIGKILL) during a call of built-in strategy 'greedy'"


def _killed(self, view):
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.timeout(60)
def test_check_strategy_plays_again_a_game_whose_process_was_killed_in_a_built_ins_call(tmp_path, monkeypatch):
    # It said "problem in game 0 against greedy: strategy 'greedy' at seat 1 ...: its worker process died (signal
    # SIGKILL) during this call (reason: crash)", "1 problem found", exit 1: the checked strategy failed a check for
    # the machine's doing, and greedy was named as the culprit.
    monkeypatch.setattr(Greedy, "choose_discard", _killed_once_from_outside(tmp_path / "killed"))
    result = CliRunner().invoke(main, ["check-strategy", "random", "--games", "1", *QUICK])
    assert result.exit_code == 0, result.output
    assert f"game 0: {KILLED}" in result.output
    assert "played again" in result.output and "no problems found" in result.output, result.output


@pytest.mark.timeout(60)
def test_check_strategy_whose_game_is_killed_in_a_built_ins_call_every_time_ends_in_one_line(monkeypatch):
    monkeypatch.setattr(Greedy, "choose_discard", _killed)
    result = CliRunner().invoke(main, ["check-strategy", "random", "--games", "1", *QUICK])
    assert result.exit_code == 3 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "is the machine short of memory" in errors[0] and "3 times" in errors[0], errors
    assert "problem" not in result.output, result.output


@pytest.mark.timeout(60)
def test_watch_whose_game_is_killed_in_a_built_ins_call_blames_no_strategy(monkeypatch):
    # It ended "Error: strategy 'greedy' at seat 1 (game seed 1), decision discard: its worker process died ...".
    monkeypatch.setattr(Greedy, "choose_discard", _killed)
    result = CliRunner().invoke(main, ["watch", "--seed", "1", "-s", "random", "-s", "greedy", *QUICK])
    assert result.exit_code == 1, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith(f"Error: {KILLED}"), last
    assert "is the machine short of memory" in last, last


@pytest.mark.timeout(60)
def test_play_whose_built_in_runs_out_of_memory_blames_the_machine_not_the_built_in(monkeypatch):
    # It ended "Error: strategy 'greedy' at seat 1 ...: raised MemoryError", as if greedy had misbehaved.
    def out_of_memory(self, view):
        raise MemoryError()

    monkeypatch.setattr(Greedy, "choose_discard", out_of_memory)
    result = CliRunner().invoke(main, ["play", "--seed", "7", "--partner", "random", "--opponents", "greedy", *SHORT],
                                input=ANY_ANSWER * 400)
    assert result.exit_code == 1, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: the game's process ran out of memory during a call of built-in strategy"), last
