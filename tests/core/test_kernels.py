"""The helpers for strategies (canasta_sim.core.kernels): the card memory follows the public events, the discard
risk kept through a turn equals a fresh read, and the opening and meld searches keep to the rules."""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import FOUR, JOKER, KIND_COUNT, RED_THREE, TWO, parse_kind
from canasta_sim.core.engine import play_game
from canasta_sim.core.kernels import CardMemory, DiscardRisk, first_legal_meld, opening
from canasta_sim.core.moves import Discard, Draw, Meld, MeldGroup, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.strategies import Expert, Greedy
from tests.helpers import position

SHORT = Rules(target_score=2000)


class _Reference:
    """What a seat can remember of each seat, kept the plain way: a count list per seat and a set of ranks
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


class _Checked(Expert):
    """An expert that checks a card memory against :class:`_Reference` after every event, and its discard risk
    kept through the turn against a fresh read of the view at every decision."""

    events: list = []
    risks: list = []
    updates: list = []

    def on_hand_start(self, view) -> None:
        super().on_hand_start(view)
        self.reference = _Reference(view.pile)

    def on_event(self, event) -> None:
        super().on_event(event)
        self.reference.hear(event.seat, event.move)
        memory, reference = self._memory, self.reference
        _Checked.events.append(
            memory.known == reference.known
            and memory.avoids == reference.avoids
            and list(memory.known_totals) == [sum(known) for known in reference.known]
            and memory.pile == reference.pile
            and memory.pile_freezers == sum(1 for kind in reference.pile if kind <= TWO or kind == RED_THREE)
        )

    def _update_due(self, view) -> None:
        memory = self._memory
        if memory.risk is not None and (memory.risk_hand_number, memory.risk_turn) == (view.hand_number,
                                                                                       view.turn_count):
            if memory.risk_hand != view.hand:
                _Checked.updates.append(1)  # the risk kept this turn is brought up to date after own melds

    def _check(self, view, move):
        memory = self._memory
        kept = (memory.risk_hand_number, memory.risk_turn, memory.risk_hand)
        if memory.risk is not None and kept == (view.hand_number, view.turn_count, view.hand):
            risk, fresh = memory.risk, DiscardRisk(memory, view)
            figures = ("pile_size", "pile_worth", "opponents_melded", "opponent_meld_count", "we_melded",
                       "our_melds", "hand_may_end", "taker", "their_melds", "taker_melded", "frozen", "share",
                       "wild_chance", "our_ranks", "their_ranks", "taker_avoids")
            hand = view.hand
            _Checked.risks.append(
                all(getattr(risk, name) == getattr(fresh, name) for name in figures)
                and risk.seen_counts() == fresh.seen_counts()
                and risk.we_melded == view.has_melded(view.side)
                and risk.costs(hand, self.freeze).order() == fresh.costs(hand, self.freeze).order()
                and risk.costs(hand, self.freeze) is risk.costs(hand, self.freeze)  # kept for the same hand
            )
        return move

    def choose_meld(self, view):
        self._update_due(view)
        return self._check(view, super().choose_meld(view))

    def choose_discard(self, view):
        self._update_due(view)
        return self._check(view, super().choose_discard(view))


@pytest.mark.timeout(120)
def test_card_memory_of_known_cards_and_avoided_ranks_matches_the_plain_reading_of_every_event_r2_4():
    _Checked.events, _Checked.risks = [], []
    for seed in range(3):
        play_game([_Checked, Greedy, _Checked, Greedy], seed=seed, rules=SHORT)
    assert len(_Checked.events) > 1000 and all(_Checked.events)


@pytest.mark.timeout(120)
def test_discard_risk_kept_through_a_turn_equals_a_fresh_read_of_the_view():
    _Checked.events, _Checked.risks, _Checked.updates = [], [], []
    for seed in range(3, 9):
        play_game([_Checked, Greedy, _Checked, Greedy], seed=seed, rules=SHORT)
    assert len(_Checked.risks) > 300 and all(_Checked.risks)
    assert len(_Checked.updates) > 30


def test_card_memory_copy_is_independent_and_equal():
    memory = CardMemory((TWO, FOUR))
    counts = list(memory.known_counts)  # each count field is read and written as a whole list
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
    assert memory.avoids[3] == {FOUR} and memory.pile_freezers == 1  # R8.1b: the deuce freezes the pile


def _hand(*names: str) -> list[int]:
    hand = [0] * KIND_COUNT
    for name in names:
        hand[parse_kind(name)] += 1
    return hand


def test_opening_reaches_the_minimum_with_the_fewest_wild_cards_r10_2():
    rules = Rules()
    hand = _hand("A", "A", "A", "K", "K", "K", "Q", "Q", "JK", "2", "5")
    forced, groups = opening(rules, hand, 90, None, 1, sum(hand))
    assert forced is None
    laid = [card for group in groups for card in group.cards]
    assert JOKER not in laid and TWO not in laid  # three aces and three kings make 90 (R10.2) without wild cards
    assert sorted(group.rank for group in groups) == sorted([parse_kind("A"), parse_kind("K")])
    assert opening(rules, hand, 5000, None, 1, sum(hand)) is None


def test_opening_spends_a_joker_before_a_deuce_when_the_naturals_fall_short_r10_2():
    rules = Rules()
    hand = _hand("A", "A", "A", "K", "K", "K", "JK", "2", "5", "6")
    forced, groups = opening(rules, hand, 120, None, 1, sum(hand))
    laid = [card for group in groups for card in group.cards]
    assert laid.count(JOKER) == 1 and laid.count(TWO) == 0  # 90 in naturals and a joker's 50 reach 120


def test_opening_with_the_pile_top_counts_the_top_card_r10_5():
    rules = Rules()
    hand = _hand("A", "A", "K", "K", "K", "5", "6")
    forced, _groups = opening(rules, hand, 50, parse_kind("A"), 2, sum(hand) + 4)
    assert forced.rank == parse_kind("A") and forced.cards.count(parse_kind("A")) == 2  # the hand's pair
    assert opening(rules, _hand("A", "A", "5", "6"), 120, parse_kind("A"), 2, 8) is None


def test_first_legal_meld_adds_naturals_to_the_sides_meld_before_a_new_triple_r9_6():
    state = position(hands={0: "Q 9 9 9 K 5 6"}, melds={0: "Q Q Q"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    move = first_legal_meld(view, view.hand, parse_kind("5"), 5, view.melds(0), False)
    assert move.groups[0].rank == parse_kind("Q") and state.is_legal(move)
    # With the queen as the discard, the nines are the first meld left.
    move = first_legal_meld(view, view.hand, parse_kind("Q"), 5, view.melds(0), False)
    assert move.groups[0].cards == (parse_kind("9"),) * 3 and state.is_legal(move)


def test_first_legal_meld_keeps_within_the_budget_r6_4():
    state = position(hands={0: "9 9 9 K 5"}, melds={0: "Q Q Q"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    assert first_legal_meld(view, view.hand, parse_kind("5"), 2, view.melds(0), False) is None


def test_discard_risk_makes_a_rank_the_next_player_melded_dear_r8_2c():
    state = position(hands={0: "J 9 9 K 5"}, melds={0: "Q Q Q", 1: "J J J"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    costs = DiscardRisk(CardMemory(view.pile), view).costs(view.hand, 1.0)
    assert costs.cheapest_kind() != parse_kind("J")
    assert costs.cost(parse_kind("J")) > costs.cost(parse_kind("5"))
    assert [kind for _cost, kind in costs.order()] == sorted(
        (kind for kind in range(KIND_COUNT) if view.hand[kind]), key=lambda kind: (costs.cost(kind), kind)
    )


def test_discard_risk_melds_are_the_views_melds_when_read_and_a_strategy_may_change_them_freely():
    state = position(hands={0: "9 9 9 K 5"}, melds={0: "Q Q Q", 1: "J J J"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    risk = DiscardRisk(CardMemory(view.pile), view)
    ours, theirs = view.melds(0), view.melds(1)
    nines = Meld((MeldGroup.of(parse_kind("9"), 3),))
    assert state.is_legal(nines)
    state.meld(nines)  # the melds change after the risk was read: it keeps the melds it read
    assert risk.our_melds == ours and risk.their_melds == theirs and risk.our_melds is risk.our_melds
    risk.our_melds.clear()  # what a strategy is handed is its own: the engine's melds stay as they were
    risk.their_melds[parse_kind("J")] = (0, 0, 0)
    assert risk.our_melds == {} and view.melds(1) == theirs and view.melds(0) == {**ours, parse_kind("9"): (3, 0, 0)}
    assert DiscardRisk(CardMemory(view.pile), view).our_melds == view.melds(0)


def _first_accepted(view, costs):
    """The long way: the first discard of the cost order that the view accepts, or ``None``."""
    return next((Discard(kind) for _cost, kind in costs.order() if view.can(Discard(kind))), None)


def test_cheapest_legal_is_the_cheapest_discard_when_a_card_stays_r6_1():
    state = position(hands={0: "J 9 9 K 5"}, melds={0: "Q Q Q", 1: "J J J"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    costs = DiscardRisk(CardMemory(view.pile), view).costs(view.hand, 1.0)
    move = costs.cheapest_legal(view)
    assert move == Discard(costs.cheapest_kind()) == _first_accepted(view, costs)
    assert view.can(move) and SeatView(state, 1, (0, 0)).can(move) is False
    assert costs.cheapest_legal(SeatView(state, 1, (0, 0))) is None  # R2.4: not this seat's turn


def test_cheapest_legal_passes_over_the_refused_last_card_r12_1():
    # One card left: discarding it goes out, which needs a canasta (R12.1); a black 3 may not go out either way.
    state = position(hands={0: "5"}, melds={0: "Q Q Q"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    costs = DiscardRisk(CardMemory(view.pile), view).costs(view.hand, 1.0)
    assert costs.cheapest_legal(view) is None and _first_accepted(view, costs) is None
    state = position(hands={0: "5"}, melds={0: "Q Q Q Q Q Q Q"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    costs = DiscardRisk(CardMemory(view.pile), view).costs(view.hand, 1.0)
    assert costs.cheapest_legal(view) == Discard(parse_kind("5")) == _first_accepted(view, costs)


class _CheckingCheapest(Expert):
    """Expert that compares ``cheapest_legal`` with the long way at each discard decision."""

    compared: list[bool] = []

    def choose_discard(self, view):
        snapshot = view.snapshot()
        costs = self._memory.turn_risk(view, snapshot).costs(snapshot[0], self.freeze)
        _CheckingCheapest.compared.append(costs.cheapest_legal(view) == _first_accepted(view, costs))
        return super().choose_discard(view)


@pytest.mark.timeout(120)
def test_cheapest_legal_agrees_with_the_long_way_through_games():
    _CheckingCheapest.compared = []
    for seed in range(3):
        play_game([_CheckingCheapest, Greedy, _CheckingCheapest, Greedy], seed=41_000 + seed, rules=SHORT)
    assert len(_CheckingCheapest.compared) > 50 and all(_CheckingCheapest.compared)


def test_equal_counts_is_equality_whatever_objects_hold_the_counts():
    from canasta_sim.core.kernels import _equal_counts

    hand = (0, 1, 2) + (0,) * (KIND_COUNT - 3)
    assert _equal_counts(hand, tuple(list(hand))) and _equal_counts(hand, hand)
    assert not _equal_counts(hand, (1,) + hand[1:]) and not _equal_counts(hand, hand[:-1])
    big = 10**6 + KIND_COUNT  # past the interpreter's shared small integers: equal values in other objects
    assert _equal_counts((big,) + hand[1:], (int(str(big)),) + hand[1:])
    # Other sequences compare by ==, as before: equal lists are equal, a list never equals a tuple.
    assert _equal_counts(list(hand), list(hand)) and not _equal_counts(hand, list(hand))
    assert not _equal_counts(hand, None)
