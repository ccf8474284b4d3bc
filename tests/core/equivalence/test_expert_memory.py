"""The expert's memory and discard figures kept in C form (issue #18): each equals what the plain reading of
the hand's public events and of the view gives, at every event and decision of whole games."""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import FOUR, KIND_COUNT, RED_THREE, TWO
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Discard, Draw, Meld, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.strategies import Expert, Greedy

SHORT = Rules(target_score=2000)


class _Reference:
    """What the expert remembers of each seat, kept the plain way: a count list per seat and a set of ranks
    per seat, updated from the same public events (R2.4: only the next seat takes)."""

    def __init__(self, pile) -> None:
        self.pile = list(pile)
        self.known = [[0] * KIND_COUNT for _ in range(4)]
        self.avoids = [set(), set(), set(), set()]
        self.side_melded = [False, False]

    def hear(self, seat: int, move) -> None:
        known = self.known[seat]
        if type(move) is Discard:
            self.pile.append(move.card)
            if known[move.card]:
                known[move.card] -= 1
            self.avoids[seat].add(move.card)
        elif type(move) is Draw:
            if self.pile and self.pile[-1] >= FOUR and self.side_melded[seat & 1]:
                self.avoids[seat].add(self.pile[-1])
        elif type(move) is TakePile:
            for kind in self.pile[:-1]:
                if kind != RED_THREE:
                    known[kind] += 1
                    self.avoids[seat].discard(kind)
            for cards in (move.cards, *(group.cards for group in move.extra)):
                for kind in cards:
                    if known[kind]:
                        known[kind] -= 1
            self.pile = []
            self.side_melded[seat & 1] = True
        elif type(move) is Meld:
            for group in move.groups:
                for kind in group.cards:
                    if known[kind]:
                        known[kind] -= 1
            self.side_melded[seat & 1] = True


class _CheckedExpert(Expert):
    """An expert that checks its memory against :class:`_Reference` after every event, and its discard table
    and costs against the view and a fresh computation at every discard."""

    events: list = []
    discards: list = []

    def on_hand_start(self, view) -> None:
        super().on_hand_start(view)
        self.reference = _Reference(view.pile)

    def on_event(self, event) -> None:
        super().on_event(event)
        self.reference.hear(event.seat, event.move)
        memory, reference = self._memory, self.reference
        _CheckedExpert.events.append(
            memory.known == reference.known
            and memory.avoids == reference.avoids
            and list(memory.known_totals) == [sum(known) for known in reference.known]
            and memory.pile == reference.pile
        )

    def choose_discard(self, view):
        move = super().choose_discard(view)
        memory = self._memory
        table = memory.table
        if table is not None and memory.table_hand == view.hand:
            side = view.seat & 1
            costs = memory.costs
            kept = [costs.costs[kind] for kind in range(KIND_COUNT) if costs.present >> kind & 1]
            # The same costs with no chance kept from earlier kinds or decisions.
            memory.chances_known = 0
            memory.costs = None
            fresh = self._discard_order(view, memory.table_hand)
            _CheckedExpert.discards.append(
                table.we_melded == view.has_melded(side)
                and table.opponents_melded == view.has_melded(1 - side)
                and kept == [cost for cost, _kind in sorted(fresh, key=lambda pair: pair[1])]
            )
        return move


@pytest.mark.timeout(120)
def test_expert_memory_of_known_cards_and_avoided_ranks_matches_the_plain_reading_of_every_event():
    _CheckedExpert.events, _CheckedExpert.discards = [], []
    for seed in range(3):
        play_game([_CheckedExpert, Greedy, _CheckedExpert, Greedy], seed=seed, rules=SHORT)
    assert len(_CheckedExpert.events) > 1000 and all(_CheckedExpert.events)


@pytest.mark.timeout(120)
def test_expert_discard_table_and_costs_match_the_view_and_a_fresh_computation_at_every_discard():
    _CheckedExpert.events, _CheckedExpert.discards = [], []
    for seed in range(3, 6):
        play_game([_CheckedExpert, Greedy, _CheckedExpert, Greedy], seed=seed, rules=SHORT)
    assert len(_CheckedExpert.discards) > 100 and all(_CheckedExpert.discards)


def test_expert_memory_copy_is_independent_and_equal():
    from canasta_sim.strategies.expert import _Memory

    memory = _Memory((TWO, FOUR))
    # Compiled, each field is a C array that Python reads as a fresh list: written back whole.
    counts = list(memory.known_counts)
    counts[1 * KIND_COUNT + FOUR] = 2
    memory.known_counts = list(counts)
    memory.known_totals = [0, 2, 0, 0]
    memory.avoided = [0, 0, 0, 1 << FOUR]
    other = memory.copy()
    assert (other.known, other.avoids, other.pile, other.pile_freezers) == (
        memory.known, memory.avoids, memory.pile, memory.pile_freezers
    )
    counts[1 * KIND_COUNT + FOUR] = 0
    other.known_counts = list(counts)
    assert memory.known[1][FOUR] == 2 and other.known[1][FOUR] == 0
    assert memory.avoids[3] == {FOUR} and memory.pile_freezers == 1
