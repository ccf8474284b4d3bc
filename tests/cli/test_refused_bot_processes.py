"""Commands whose bot processes the machine refuses (a low ``ulimit -u`` or ``ulimit -n``, a container's pids limit):
one line naming the limit, no strategy blamed, no forfeit recorded for it, finished games kept.

The refusal is made by a stand-in for ``subprocess.Popen`` that lets a given number of bot processes start in the
command's own process and in each process forked from it (a worker, a game of ``check-strategy``), then refuses."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.runs.storage import RunDirectory

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short
BOTS = Path(__file__).resolve().parents[1] / "bots"


@pytest.fixture
def refuse_bots(monkeypatch):
    """``refuse_bots(here, forked)``: ``here`` bot processes start in this process, ``forked`` in each child, then the
    machine refuses them as a low ``ulimit -u`` does."""
    real = subprocess.Popen

    def refuse(here: int, forked: int) -> None:
        command = os.getpid()
        started: dict[int, int] = {}

        def popen(*arguments, **keywords):
            pid = os.getpid()
            started[pid] = started.get(pid, 0) + 1
            if started[pid] > (here if pid == command else forked):
                raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            return real(*arguments, **keywords)

        monkeypatch.setattr(subprocess, "Popen", popen)

    return refuse


def _one_error(output: str) -> str:
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, output
    assert "ulimit -u" in errors[0] and "not the bot's failure" in errors[0], output
    assert "could not load the strategies" not in errors[0], output
    return errors[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("forked", [0, 1], ids=["its-load", "its-games"])
def test_check_strategy_whose_bot_the_machine_refuses_names_the_limit_not_the_bot(refuse_bots, forked):
    # It said "could not be started: [Errno 11] ..." as a problem of every game, "2 problems found" (exit 1), or at
    # its load "failed its handshake" (exit 2, a spec that cannot be used).
    refuse_bots(forked, 0)
    result = CliRunner().invoke(main, ["check-strategy", "isolated:random", "--games", "2", *QUICK])
    assert result.exit_code == 3 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    _one_error(result.output)
    assert "problem" not in result.output and "handshake" not in result.output, result.output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("forked", [0, 2], ids=["at-start", "mid-run"])
def test_a_run_whose_bot_the_machine_refuses_stops_in_one_line_recording_no_forfeit_for_it(refuse_bots, tmp_path,
                                                                                            forked):
    # At start the line said "a worker could not load the strategies"; mid-run (a bot process started again after
    # its bot ended its process) every later game was recorded as the bot's forfeit, "could not be started".
    # The bot ends its process in every game (its forfeit, reason crash), so each game after the first needs a new
    # one, which the machine refuses: the run stops there, game 0 kept.
    bot = f"isolated:{BOTS / 'ends_its_process.py'}:EndsQuietly"
    out = tmp_path / "run"
    refuse_bots(1, forked)
    result = CliRunner().invoke(main, ["run", "--strategy", bot, "--strategy", "greedy", "--games", "4", "--seed", "3",
                                       "--workers", "1", "--on-error", "forfeit", "--out", str(out), "-q", *QUICK])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    assert f"run canasta-sim run --resume {out}" in _one_error(result.output)
    kept = sum(RunDirectory(out).chunk_game_counts().values())
    assert kept == (1 if forked else 0), result.output


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [
    ["run", "--strategy", "isolated:random", "--strategy", "greedy", "--games", "2", "--workers", "1"],
    ["compare", "isolated:random", "--baseline", "greedy", "--max-games", "4", "--workers", "1"],
    ["tune", "isolated:expert", "--params", "aggression", "--games", "4", "--games-per-iteration", "4",
     "--workers", "1"],
], ids=["run", "compare", "tune"])
def test_a_bot_process_refused_at_the_commands_own_load_exits_1_as_a_worker_refused_does(refuse_bots, tmp_path,
                                                                                         command):
    # The command's own load starts the bot for its handshake: refused there, the line was right but the exit code was
    # 2, a spec that cannot be used, where a refused worker's or a later bot's is 1.
    refuse_bots(0, 0)
    result = CliRunner().invoke(main, [*command, "--out", str(tmp_path / "out"), "--seed", "1", *QUICK])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    _one_error(result.output)
