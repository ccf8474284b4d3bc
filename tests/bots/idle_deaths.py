"""A strategy whose worker processes die whenever they wait without a game (loaded by file spec in
tests/runs/test_idle_deaths.py).

In a worker (any process but ``IDLE_DEATHS_PARENT``), a watcher thread exits the process with status 3 once
no decision has been asked of this strategy for ``IDLE_DEATHS_AFTER`` seconds.  The players of the first
worker asked a decision (a file created in ``IDLE_DEATHS_DIR`` marks it) wait ``IDLE_DEATHS_DELAY`` seconds at each of
its acquire decisions, so its game lasts; the others play at once.  A run of two one-game chunks on two workers
thus has one worker playing a long game while the other, done with its game, dies waiting, and so does
each worker that replaces it.

The slow worker is chosen at its first decision, not when it builds a player: every worker builds one as it starts,
and a worker chosen then but stopped by a busy machine before it said it was ready left both chunks to the other,
which played them at once, and the run ended well.  ``IDLE_DEATHS_PAUSE`` seconds the chosen worker stops right
after it is chosen, as a busy machine may stop it: the long game must be the one it is already playing.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from canasta_sim.strategies.greedy import Greedy

_AFTER = float(os.environ.get("IDLE_DEATHS_AFTER", "0.3"))
_DELAY = float(os.environ.get("IDLE_DEATHS_DELAY", "0.1"))
_PAUSE = float(os.environ.get("IDLE_DEATHS_PAUSE", "0"))
_PARENT = os.environ.get("IDLE_DEATHS_PARENT")
_last = [time.monotonic()]
_slow: list[bool] = []


def _watch() -> None:
    while True:
        time.sleep(_AFTER / 4)
        if time.monotonic() - _last[0] > _AFTER:
            os._exit(3)


def _arm() -> None:
    if _PARENT is not None and str(os.getpid()) != _PARENT:  # a worker, never the run's own process
        _slow.clear()
        _last[0] = time.monotonic()
        threading.Thread(target=_watch, daemon=True).start()


_arm()  # a worker that imports the file (spawned)
os.register_at_fork(after_in_child=_arm)  # a worker forked from a process that imported it


def _slow_process() -> bool:
    """Whether this is the first worker asked a decision (its players are slowed down)."""
    if not _slow:
        try:
            if _PARENT is None or str(os.getpid()) == _PARENT:
                raise FileExistsError
            (Path(os.environ["IDLE_DEATHS_DIR"]) / "first").touch(exist_ok=False)
            _slow.append(True)
            time.sleep(_PAUSE)
        except (KeyError, FileExistsError):
            _slow.append(False)
    return _slow[0]


class IdleDeaths(Greedy):
    """Greedy; slowed down in the run's first worker asked a decision."""

    name = "idle_deaths"

    def __init__(self, rng, **parameters) -> None:
        _last[0] = time.monotonic()
        super().__init__(rng, **parameters)

    def choose_acquire(self, view):
        _last[0] = time.monotonic()
        delay = _DELAY if _slow_process() else 0.0
        _last[0] = time.monotonic()
        time.sleep(delay)
        _last[0] = time.monotonic()
        return super().choose_acquire(view)
