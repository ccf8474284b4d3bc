"""A strategy that changes the interpreter for every later call in its process (loaded by file spec in
tests/arbiter/test_strategy_side_effects.py): it plays exactly like greedy."""

from __future__ import annotations

import sys

from canasta_sim.strategies.greedy import Greedy


class LowersTheRecursionLimit(Greedy):
    """Leaves the recursion limit just above the depth of its call: the next strategy called has no room left."""

    name = "lowers-the-recursion-limit"

    def choose_discard(self, view):
        move = Greedy.choose_discard(self, view)
        for limit in range(20, 1000):
            try:
                sys.setrecursionlimit(limit + 2)
                break
            except RecursionError:
                continue
        return move
