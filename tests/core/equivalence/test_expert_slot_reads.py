"""The expert's reads from C (issue #18): compiled, an Expert exactly reads its memory, the fields of an event and
of a move of their exact classes from their slots, and the view's properties through their descriptors; an Expert
subclass, an event of another class and plain Python read each by name.  Both ways remember the same at every
event and give the same answer at every decision of whole games."""

from __future__ import annotations

import random

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.strategies import Expert, Greedy

SHORT = Rules(target_score=2000)


class _OtherEvent(PublicEvent):
    """An event of another class than PublicEvent: read by name."""

    __slots__ = ()


def _remembered(expert: Expert) -> tuple:
    memory = expert._memory
    return memory.known, memory.avoids, memory.pile, memory.pile_freezers, memory.side_melded


class _Twins(Expert):
    """An Expert subclass (its memory read by name) that hands every event and decision to an Expert exactly
    (read from the slots), and every event as an :class:`_OtherEvent` to another Expert exactly, and records
    whether all three remember the same and the twin answers the same."""

    checks: list = []

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self.twin = Expert(random.Random(0), **parameters)
        self.other = Expert(random.Random(0), **parameters)

    def on_hand_start(self, view) -> None:
        super().on_hand_start(view)
        self.twin.on_hand_start(view)
        self.other.on_hand_start(view)

    def on_event(self, event) -> None:
        super().on_event(event)
        self.twin.on_event(event)
        self.other.on_event(_OtherEvent(event.seat, event.move, event.red_threes))
        ours = _remembered(self)
        _Twins.checks.append(("event", ours == _remembered(self.twin) == _remembered(self.other)))

    def choose_acquire(self, view):
        move = super().choose_acquire(view)
        _Twins.checks.append(("acquire", self.twin.choose_acquire(view) == move))
        return move

    def choose_meld(self, view):
        move = super().choose_meld(view)
        _Twins.checks.append(("meld", self.twin.choose_meld(view) == move))
        return move

    def choose_discard(self, view):
        move = super().choose_discard(view)
        _Twins.checks.append(("discard", self.twin.choose_discard(view) == move))
        return move


@pytest.mark.timeout(120)
def test_expert_exact_and_by_name_reads_remember_and_decide_the_same_in_whole_games():
    _Twins.checks = []
    for seed in range(2):
        play_game([_Twins, Greedy, _Twins, Greedy], seed=seed, rules=SHORT)
    kinds = {kind for kind, _same in _Twins.checks}
    assert kinds == {"event", "acquire", "meld", "discard"}
    assert len(_Twins.checks) > 1000
    assert [check for check in _Twins.checks if not check[1]] == []


@pytest.mark.timeout(60)
def test_expert_subclass_plays_the_same_games_as_expert():
    class Subclass(Expert):
        pass

    for seed in range(2):
        expected = play_game([Expert, Greedy, Expert, Greedy], seed=seed, rules=SHORT)
        played = play_game([Subclass, Greedy, Subclass, Greedy], seed=seed, rules=SHORT)
        assert (played.scores, played.hands) == (expected.scores, expected.hands)
