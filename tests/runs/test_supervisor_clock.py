"""The supervisor's clock over a worker's calls: it kills only a call that really overran the time limit (a seat's
build, its bot's start-up, the start-up allowance)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from canasta_sim.arbiter import CALL_CODES, MONITOR_CALL, MONITOR_GAME, MONITOR_START, STARTUP_ALLOWANCE
from canasta_sim.runs.interleave import play_side_by_side
from canasta_sim.runs.supervisor import _Play


class _BeginsAGameAtTheFirstRead:
    """A worker's monitor on which the worker begins game 0 just after the supervisor's first read: it writes the
    start, then the game's number, as the worker does."""

    def __init__(self) -> None:
        self.cells = {MONITOR_GAME: -1.0, MONITOR_CALL: 0.0, MONITOR_START: 0.0}
        self.reads = 0

    def __getitem__(self, index):
        value = self.cells[index]
        self.reads += 1
        if self.reads == 1:
            self.cells[MONITOR_START] = time.monotonic()
            self.cells[MONITOR_GAME] = 0.0
        return value

    def __setitem__(self, index, value):
        self.cells[index] = value


def test_a_worker_beginning_its_first_game_as_the_clock_is_read_is_not_killed_as_overdue():
    killed = []
    worker = SimpleNamespace(monitor=_BeginsAGameAtTheFirstRead(), task=(0, 0, 2), killed_for=None,
                             kill=lambda: killed.append(True))
    play = SimpleNamespace(schedule=SimpleNamespace(time_limit=1.0), stop_seen=None)
    _Play._enforce_clocks(play, worker, time.monotonic() + 0.5, False)
    assert (killed, worker.killed_for) == ([], None)


def test_a_call_past_the_time_limit_and_its_margin_is_killed():
    killed = []
    monitor = {MONITOR_GAME: 3.0, MONITOR_CALL: float(CALL_CODES["acquire"]), MONITOR_START: time.monotonic() - 10.0}
    worker = SimpleNamespace(monitor=monitor, task=(0, 3, 4), killed_for=None, kill=lambda: killed.append(True))
    play = SimpleNamespace(schedule=SimpleNamespace(time_limit=1.0), stop_seen=None)
    _Play._enforce_clocks(play, worker, time.monotonic(), False)
    assert killed == [True] and worker.killed_for is not None


def _building_worker(started_ago: float) -> tuple[SimpleNamespace, list]:
    """A worker whose engine has been building seat 1's strategy (its bot's start-up) for ``started_ago`` seconds."""
    killed = []
    monitor = {MONITOR_GAME: 0.0, MONITOR_CALL: float(CALL_CODES["build"] + 1),
               MONITOR_START: time.monotonic() - started_ago}
    worker = SimpleNamespace(monitor=monitor, task=(0, 0, 1), killed_for=None, kill=lambda: killed.append(True))
    return worker, killed


def test_a_bots_start_up_past_the_time_limit_is_not_killed_within_the_start_up_allowance():
    worker, killed = _building_worker(STARTUP_ALLOWANCE / 2)
    play = SimpleNamespace(schedule=SimpleNamespace(time_limit=0.1), stop_seen=None)
    _Play._enforce_clocks(play, worker, time.monotonic(), False)
    assert (killed, worker.killed_for) == ([], None)


def test_a_bots_start_up_past_the_start_up_allowance_is_killed_in_words_naming_it():
    worker, killed = _building_worker(STARTUP_ALLOWANCE + 5)
    play = SimpleNamespace(schedule=SimpleNamespace(time_limit=0.1), stop_seen=None)
    _Play._enforce_clocks(play, worker, time.monotonic(), False)
    assert killed == [True]
    assert f"past the start-up allowance of {STARTUP_ALLOWANCE:g} s; its worker was killed" in worker.killed_for


class _Recording:
    """A worker's monitor that notes each game number written while the start beside it is older than the play (the
    zero a worker's monitor starts with, before its first call)."""

    def __init__(self) -> None:
        self.cells = {MONITOR_GAME: -1.0, MONITOR_CALL: 0.0, MONITOR_START: 0.0}
        self.began = time.monotonic()
        self.stale: list[float] = []

    def __getitem__(self, index):
        return self.cells[index]

    def __setitem__(self, index, value):
        if index == MONITOR_GAME and value >= 0 and self.cells[MONITOR_START] < self.began:
            self.stale.append(value)
        self.cells[index] = value


@pytest.mark.timeout(60)
def test_games_side_by_side_never_show_the_supervisor_a_game_beside_a_start_older_than_the_play():
    # The hub named the game it switched to before the game's first call wrote its start: a supervisor reading then
    # found game 0's acquire begun at 0, "still running 61071.9 s" (the machine's uptime), and killed the worker.
    monitor = _Recording()
    reported = []
    play_side_by_side(lambda game_id: (game_id, None), range(4), 2, monitor, stop_event=threading.Event(),
                      report=lambda game_id, played, error: reported.append((game_id, error)) or True)
    assert reported == [(game_id, None) for game_id in range(4)]
    assert monitor.stale == []
