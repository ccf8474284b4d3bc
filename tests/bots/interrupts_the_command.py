"""A strategy whose first decision sends the command playing it a SIGINT, as a person's Ctrl-C reaches the command
while a bot in a process of its own thinks (the terminal signals its foreground process group, which a bot's process
is not in).  The command's process id is read from ``CANASTA_TEST_COMMAND_PID`` (loaded by file spec)."""

from __future__ import annotations

import os
import signal
import time

from canasta_sim.strategies.greedy import Greedy

COMMAND_PID_VARIABLE = "CANASTA_TEST_COMMAND_PID"


class Thinker(Greedy):
    """Signals the command at its first acquire, then thinks on until the command ends it."""

    name = "thinker"
    version = 1

    def choose_acquire(self, view):
        os.kill(int(os.environ[COMMAND_PID_VARIABLE]), signal.SIGINT)
        time.sleep(5)
        return super().choose_acquire(view)
