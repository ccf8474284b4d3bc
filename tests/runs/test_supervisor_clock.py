"""The supervisor's clock over a worker's calls: it kills only a call that really overran the time limit."""

from __future__ import annotations

import time
from types import SimpleNamespace

from canasta_sim.arbiter import MONITOR_GAME, MONITOR_START
from canasta_sim.runs.supervisor import _Play


class _BeginsAGameAtTheFirstRead:
    """A worker's monitor on which the worker begins game 0 just after the supervisor's first read: it writes the
    start, then the game's number, as the worker does."""

    def __init__(self) -> None:
        self.cells = {MONITOR_GAME: -1.0, MONITOR_START: 0.0}
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
    monitor = {MONITOR_GAME: 3.0, MONITOR_START: time.monotonic() - 10.0}
    worker = SimpleNamespace(monitor=monitor, task=(0, 3, 4), killed_for=None, kill=lambda: killed.append(True))
    play = SimpleNamespace(schedule=SimpleNamespace(time_limit=1.0), stop_seen=None)
    _Play._enforce_clocks(play, worker, time.monotonic(), False)
    assert killed == [True] and worker.killed_for is not None
