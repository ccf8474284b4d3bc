"""A strategy that prints over the terminal and then ends its whole process with ``os._exit(0)``, a success code and
no word (loaded by file spec): whatever runs the game must name its seat and say how it ended."""

from __future__ import annotations

import os

from canasta_sim.strategies.greedy import Greedy


class EndsQuietly(Greedy):
    """Plays greedy, printing a screenful at every discard, and ends its process at its discard of turn 4."""

    name = "ends-quietly"
    version = 1

    def choose_discard(self, view):
        print("chatter " * 1000)
        if view.turn_count >= 4:
            os._exit(0)
        return super().choose_discard(view)
