"""Processes a bot starts that try to outlive it (docs/protocol.md, Endings): a daemon out of its process group and
session, a process in a session of its own holding its stdout, one left in its group at its exit.  Each ends with the
bot, and the bot is told of (``check-strategy``'s problem); none survives the game's process either, had it died.

The bot (tests/bots/spawns_processes.py) notes every process it starts, each of which sleeps a minute at most."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canasta_sim import Rules, play_game
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.bot_marks import MARK_VARIABLE, end_marked, end_orphaned
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.runs.supervised_game import play_supervised
from tests.helpers import BOTS
from tests.plugins.test_endings import _ends_soon

SPAWNS = BOTS / "spawns_processes.py"
QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short


def _spawned(log) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", ["daemon", "holds_output", "leaves"])
def test_what_a_bot_started_ends_with_it_wherever_it_went_and_the_bot_is_told_of(tmp_path, monkeypatch, how):
    # A daemon (double fork, setsid) and a process in a session of its own holding the bot's stdout were out of reach
    # of the bot's process group: they ran on after the game and the run, and the bot was not told of them.
    log = tmp_path / "spawned"
    monkeypatch.setenv("SPAWNED_LOG", str(log))
    bot = load_strategy(f"cmd:{sys.executable} {SPAWNS} {how}")
    greedy = load_strategy("greedy")
    try:
        outcome = play_game([bot, greedy, bot, greedy], seed=1, rules=QUICK)
    except StrategyError as error:
        outcome = error
    ended = close_all()
    spawned = _spawned(log)
    assert len(spawned) == (1 if how == "holds_output" else 2), spawned  # one for each process of the bot that asked
    assert all(_ends_soon(pid) for pid in spawned), spawned
    assert any(bot.left_processes for bot in ended)
    if how == "holds_output":  # it exited at its first request: that seat's crash
        assert isinstance(outcome, StrategyError) and (outcome.reason, outcome.seat) == ("crash", 0), outcome


def _game_whose_process_dies(monitor, lines):
    # The in-process strategy ends the game's whole process at its discard of turn 4, after the bots' daemons started.
    ends = load_strategy(f"{BOTS / 'ends_its_process.py'}:EndsQuietly")
    bot = load_strategy(f"cmd:{sys.executable} {SPAWNS} daemon")
    return play_game([bot, ends, bot, ends], seed=1, rules=QUICK, monitor=monitor)


@pytest.mark.timeout(60)
def test_a_daemon_of_a_bot_whose_game_process_died_ends_with_it(tmp_path, monkeypatch):
    # The bots die with the game's process (PR_SET_PDEATHSIG), their daemons did not: check-strategy's and watch's
    # game process, or a run's worker, dying left them running.
    log = tmp_path / "spawned"
    monkeypatch.setenv("SPAWNED_LOG", str(log))
    outcome = play_supervised(_game_whose_process_dies, lambda *charged: charged, None)
    assert outcome[2] == "crash", outcome
    spawned = _spawned(log)
    assert len(spawned) == 2, spawned
    assert all(_ends_soon(pid) for pid in spawned), spawned


@pytest.mark.timeout(60)
def test_a_process_still_starting_when_its_bot_ends_is_ended_too():
    # Its environment, and so the mark, is readable only a moment after the program that started it went on (right
    # after Popen returned, 129 reads of 200 found it empty): a bot that started a helper and exited at once had the
    # helper missed under load (the full suite's holds_output case above).  On an idle machine the scan reaches the
    # new process after that moment, so this fails only under load.
    for _ in range(5):
        started = subprocess.Popen(["sleep", "60"], env={**os.environ, MARK_VARIABLE: "starting.0"},
                                   start_new_session=True)
        try:
            assert end_marked("starting.0") == 1
            assert started.wait(timeout=10) == -signal.SIGKILL
        finally:
            started.kill()
            started.wait()


def _wait_for_its_environment(pid: int) -> None:
    # A process's environment is readable a moment after Popen returns (above); this test is not about that moment.
    deadline = time.monotonic() + 10
    while MARK_VARIABLE.encode() not in Path(f"/proc/{pid}/environ").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.timeout(60)
def test_what_the_bots_of_a_dead_starter_left_is_ended_and_nothing_of_a_living_one():
    # A Dask worker that died left its bots' daemons running on its machine: nothing like a local run's supervisor
    # was there to end them (tests/runs/test_dask_bots.py plays it on a cluster).
    gone = subprocess.Popen(["true"])
    gone.wait()  # its id names a starter that has ended
    orphan = subprocess.Popen(["sleep", "60"], env={**os.environ, MARK_VARIABLE: f"{gone.pid}.0"})
    kept = subprocess.Popen(["sleep", "60"], env={**os.environ, MARK_VARIABLE: f"{os.getpid()}.0"})
    try:
        for process in (orphan, kept):
            _wait_for_its_environment(process.pid)
        assert end_orphaned() >= 1  # others' orphans too, if the suite's other tests left any
        assert orphan.wait(timeout=10) == -signal.SIGKILL
        assert kept.poll() is None
    finally:
        for process in (orphan, kept):
            process.kill()
            process.wait()
