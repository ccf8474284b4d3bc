"""Event followers (Strategy.event_follower): the engine feeds a strategy's CardMemory every move itself, in
place of on_event, and remembers exactly what on_event would have; a subclass that overrides on_event alone is
called as before; a follower of the wrong kind is the seat's failure."""

from __future__ import annotations

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.kernels import CardMemory
from canasta_sim.core.rules import Rules
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.errors import StrategyError
from canasta_sim.strategies import Expert, Greedy

SHORT = Rules(target_score=1500)


class _Follower(Greedy):
    """Greedy play, a memory fed by the engine and, beside it, a memory fed by every event the seat hears."""

    heard: list = []
    memories: list = []

    def on_hand_start(self, view) -> None:
        self.memory = CardMemory(view.pile)
        self.reference = CardMemory(view.pile)
        _Follower.memories.append((self.memory, self.reference))

    def on_event(self, event) -> None:
        _Follower.heard.append(event)
        self.memory.observe(event)

    def event_follower(self) -> CardMemory:
        return self.memory


class _Listener(Greedy):
    """Hears every event through on_event and feeds them to the memories of its followed partner seats."""

    def on_event(self, event) -> None:
        for _memory, reference in _Follower.memories[-2:]:
            reference.observe(event)


def _state(memory: CardMemory) -> tuple:
    return (memory.known, memory.avoids, list(memory.known_totals), memory.pile, memory.pile_freezers,
            list(memory.side_melded))


@pytest.mark.timeout(60)
def test_the_engine_feeds_a_follower_every_move_in_place_of_on_event():
    _Follower.heard, _Follower.memories = [], []
    # Seats 0 and 2 follow; seat 1 hears every event the plain way and feeds the same moves to their references.
    play_game([_Follower, _Listener, _Follower, Greedy], seed=3, rules=SHORT)
    assert _Follower.heard == []  # on_event is never called in-process once a follower is named
    assert len(_Follower.memories) >= 4
    # The last hand's two memories: followed by the engine, and fed by observe(event), they agree.
    for memory, reference in _Follower.memories[-2:]:
        assert _state(memory) == _state(reference)
        assert memory.pile or memory.known_totals or any(memory.avoided)  # it did remember something


def test_follow_remembers_what_observe_remembers_of_the_same_event():
    from canasta_sim.core.moves import Discard, Draw, TakePile

    moves = [(1, Discard(9)), (2, Draw()), (2, Discard(9)), (3, TakePile((9, 9))), (0, Discard(12))]
    followed, observed = CardMemory((5, 7)), CardMemory((5, 7))
    for seat, move in moves:
        followed.follow(seat, move)
        observed.observe(PublicEvent(seat, move, 0))
    assert _state(followed) == _state(observed)
    assert followed.known[3][5] == 1 and followed.pile == [12]


class _Checked(Expert):
    """A subclass overriding on_event alone: it hears every event, as before."""

    heard = 0

    def on_event(self, event) -> None:
        _Checked.heard += 1
        super().on_event(event)


@pytest.mark.timeout(60)
def test_a_subclass_overriding_on_event_alone_is_still_called_per_event():
    _Checked.heard = 0
    checked = play_game([_Checked, Greedy, _Checked, Greedy], seed=5, rules=SHORT)
    assert _Checked.heard > 100
    # Its memory hears the same events either way: the same games as expert's.
    assert checked == play_game([Expert, Greedy, Expert, Greedy], seed=5, rules=SHORT)


class _Wrong(Greedy):
    def on_event(self, event) -> None:
        pass

    def event_follower(self):
        return {"not": "a memory"}


@pytest.mark.timeout(60)
def test_a_follower_that_is_no_card_memory_is_the_seats_failure():
    with pytest.raises(StrategyError) as caught:
        play_game([Greedy, _Wrong, Greedy, Greedy], seed=1, rules=SHORT)
    error = caught.value
    assert error.seat == 1 and error.reason == "malformed" and error.decision == "hand start"
    assert "CardMemory" in str(error)
