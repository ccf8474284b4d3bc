"""A strategy that keeps memory for each game it plays, as a search bot keeps its tables: it plays as greedy, and
at its first decision of a game reserves ``megabytes``, held until the game is over.  One game fits a process under
a memory limit where many games held at once may not."""

from __future__ import annotations

import mmap

from canasta_sim.strategies import Greedy


class KeepsMemory(Greedy):
    """Greedy's play, holding ``megabytes`` from its first acquire of the game to the game's end."""

    name = "keeps_memory"
    parameters = {"megabytes": 200}

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self._kept: mmap.mmap | None = None

    def choose_acquire(self, view):
        if self._kept is None:
            # Reserved, not touched: it costs address space (what --memory-limit caps), not the machine's memory or
            # the time of writing it (a bytearray would zero every page).
            self._kept = mmap.mmap(-1, self.megabytes * 1024 * 1024)
        return super().choose_acquire(view)
