"""Strategies whose returned move runs its own endless loop when the engine reads it, after the decision returned
(loaded by file spec too)."""

from __future__ import annotations

from canasta_sim.core.moves import Meld
from canasta_sim.strategies.greedy import Greedy


class _EndlessGroups(list):
    """Groups in a list whose iteration never ends."""

    def __iter__(self):
        while True:
            pass


class MeldsEndlessGroups(Greedy):
    """Plays greedy, but returns each meld's groups in a list whose iteration never ends."""

    name = "melds-endless-groups"
    version = 1

    def choose_meld(self, view):
        move = super().choose_meld(view)
        return None if move is None else Meld(_EndlessGroups(move.groups))
