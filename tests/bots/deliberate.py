"""A strategy that takes its time: it plays as greedy, and thinks ``seconds`` (wall clock) over its first acquire of
each game.  Isolated, a process plays many games at once and answers their requests in turn, so a request waits behind
the others written with it: the decision clock must count only the time the process spends on it."""

from __future__ import annotations

import time

from canasta_sim.strategies import Greedy


class Deliberate(Greedy):
    """Greedy's play, after ``seconds`` of thought at its first acquire of the game."""

    name = "deliberate"
    parameters = {"seconds": 0.0}

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self._thought = False

    def choose_acquire(self, view):
        if not self._thought:
            self._thought = True
            time.sleep(self.seconds)
        return super().choose_acquire(view)
