"""``play_supervised``: one game in a process of its own, its outcome kept however its end and the watch interleave."""

from __future__ import annotations

import multiprocessing.connection
import time

import pytest

from canasta_sim.runs.supervised_game import play_supervised


@pytest.mark.timeout(30)
def test_a_game_that_sends_its_outcome_and_ends_between_two_looks_keeps_its_outcome(monkeypatch):
    # The first look for a message waits until the game's process has sent its outcome and ended, then says nothing
    # came: as when the process ends just after a look timed out.  Its outcome is in the pipe, and is the game's.
    original = multiprocessing.connection.Connection.poll
    looks = []

    def late_poll(self, timeout=0.0):
        looks.append(timeout)
        if len(looks) == 1:
            time.sleep(1.0)
            return False
        return original(self, timeout)

    monkeypatch.setattr(multiprocessing.connection.Connection, "poll", late_poll)
    charged = []
    outcome = play_supervised(lambda monitor, write: "finished", lambda *call: charged.append(call) or "charged", None)
    assert (outcome, charged) == ("finished", [])
