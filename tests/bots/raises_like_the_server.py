"""Strategies that raise, from a decision or a hook, what the bot server itself raises for a line it cannot read:
its own refusal's exception, and the errors of a missing field or a bad value (loaded by file spec)."""

from __future__ import annotations

from canasta_sim.plugins import server
from canasta_sim.strategies.greedy import Greedy


class RaisesTheRefusal(Greedy):
    """Raises the server's own exception for a request it cannot read, at its first acquire."""

    name = "raises-the-refusal"

    def choose_acquire(self, view):
        raise server._Unreadable("posing as the server")


class RaisesKeyError(Greedy):
    """Raises a ``KeyError`` at its first acquire, as reading a message without a field would."""

    name = "raises-key-error"

    def choose_acquire(self, view):
        raise KeyError("view")


class RaisesValueErrorAtHandStart(Greedy):
    """Raises a ``ValueError`` in ``on_hand_start``, as reading a line that is not JSON would."""

    name = "raises-value-error-at-hand-start"

    def on_hand_start(self, view):
        raise ValueError("posing as a line that is not JSON")
