"""Strategies that build their moves with numpy, as research bots do (loaded by file spec in tests/plugins and imported
by tests/core): one plays greedy's moves with every kind a numpy integer, the others return numpy values that are
no move or no answer."""

from __future__ import annotations

import numpy as np

from canasta_sim.core.moves import Discard, Meld, MeldGroup, TakePile
from canasta_sim.strategies.greedy import Greedy


def _numpy_group(group: MeldGroup) -> MeldGroup:
    return MeldGroup(np.int64(group.rank), tuple(np.int64(kind) for kind in group.cards))


class NumpyGreedy(Greedy):
    """Greedy's moves, every kind in them given as a numpy integer."""

    name = "numpy-greedy"

    def choose_acquire(self, view):
        move = super().choose_acquire(view)
        if isinstance(move, TakePile):
            return TakePile(np.array(move.cards, dtype=np.int64), tuple(_numpy_group(group) for group in move.extra))
        return move

    def choose_meld(self, view):
        move = super().choose_meld(view)
        return None if move is None else Meld(tuple(_numpy_group(group) for group in move.groups))

    def choose_discard(self, view):
        return Discard(np.int64(super().choose_discard(view).card))


class MeldsAnArray(Greedy):
    """Lays its meld groups as a numpy array: no move (E1)."""

    name = "melds-an-array"

    def choose_meld(self, view):
        move = super().choose_meld(view)
        return None if move is None else Meld(np.array([*move.groups, *move.groups], dtype=object))


class AsksWithNumpy(Greedy):
    """Asks the partner with a numpy bool: no answer of the decision's kind."""

    name = "asks-with-numpy"

    def choose_ask(self, view):
        return np.bool_(super().choose_ask(view))
