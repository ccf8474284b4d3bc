"""A strategy that remembers what a game showed it, across its turns and its hands, and plays by it: greedy's melds,
and the discard of the rank the table has thrown most.  Its hooks check the order docs/strategies.md promises (a
hand's start, then its end, hand numbers from 1) and raise where it is broken."""

from __future__ import annotations

from canasta_sim.core.moves import Discard
from canasta_sim.strategies import Greedy


class RemembersTheGame(Greedy):
    """Greedy, but discarding the rank most discarded so far this game (its count kept across the hands)."""

    name = "remembers-the-game"
    version = 1

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self.discarded = [0] * 15
        self.hands_started = 0
        self.hands_ended: list[int] = []

    def on_hand_start(self, view) -> None:
        self.hands_started += 1
        if view.hand_number != self.hands_started or len(self.hands_ended) != self.hands_started - 1:
            raise RuntimeError(f"hand {view.hand_number} started after {self.hands_ended} ended")

    def on_event(self, event) -> None:
        if isinstance(event.move, Discard):
            self.discarded[event.move.card] += 1

    def on_hand_end(self, result) -> None:
        if result.hand_number != self.hands_started:
            raise RuntimeError(f"hand {result.hand_number} ended in hand {self.hands_started}")
        self.hands_ended.append(result.hand_number)

    def choose_discard(self, view):
        for kind in sorted(range(4, 15), key=lambda kind: -self.discarded[kind]):
            if view.hand[kind] and view.can(Discard(kind)):
                return Discard(kind)
        return super().choose_discard(view)
