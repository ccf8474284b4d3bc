"""Determinization and fast play-outs: sample_world, PublicMemory, HandState.copy, playout.

The sampler is judged against real games: a probe strategy samples a world at every decision it
is asked, from its view and the public events only, and the test compares the sample with the
engine's true state (which only the test may read).
"""

import random

import pytest

from canasta_sim.core.cards import CARD_KIND, DECK_COUNTS, KIND_COUNT, RED_THREE
from canasta_sim.core.engine import play_game, play_hand
from canasta_sim.core.moves import parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.search import PublicMemory, SearchError, playout, sample_world
from canasta_sim.core.seats import Seats
from canasta_sim.core.state import HandState
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.core.view import SeatView
from canasta_sim.strategies import Expert, Greedy, RandomPlay
from tests.helpers import kind_totals, position


def public_facts(state: HandState) -> tuple:
    """Everything a seat may know of a state, the turn's progress included, and nothing hidden."""
    return (
        state.seat,
        state.phase,
        state.dealer,
        state.hand_number,
        state.scores_before,
        state.requirements,
        tuple(state.hand_sizes),
        len(state.stock),
        tuple(state.pile),
        state.pile_freezers,
        tuple(tuple(tuple(meld) for meld in side) for side in state.melds),
        tuple(state.side_has_melded),
        tuple(state.seat_has_melded),
        tuple(state.red_threes),
        tuple(state.first_turn_done),
        state.turn_count,
        tuple(state.side_turns),
        state.acquired,
        state.asked,
        state.answer,
        state.melded_this_turn,
        state.melded_before_turn,
        tuple(sorted(state.turn_new_ranks)),
        state.added_to_existing,
        tuple(state.turn_laid),
    )


class _CheckingProbe(Expert):
    """Plays as expert; at every decision but melds it samples a world from its view and memory and
    checks it at once against the true state (read here by the test, never by the sampler)."""

    checks: list = []
    failures: list = []

    def on_hand_start(self, view) -> None:
        super().on_hand_start(view)
        self.memory = PublicMemory(view)

    def on_event(self, event) -> None:
        super().on_event(event)
        self.memory.observe(event)

    def choose_acquire(self, view):
        self._probe(view)
        return super().choose_acquire(view)

    def choose_discard(self, view):
        self._probe(view)
        return super().choose_discard(view)

    def answer_go_out(self, view):
        self._probe(view)
        return super().answer_go_out(view)

    def choose_ask(self, view):
        self._probe(view)
        return super().choose_ask(view)

    def _probe(self, view) -> None:
        truth = view._state
        world = sample_world(view, self.memory, random.Random(truth.turn_count))
        if public_facts(world) != public_facts(truth):
            _CheckingProbe.failures.append(("public", truth.turn_count))
        if kind_totals(world) != list(DECK_COUNTS) or world.card_total() != 108:
            _CheckingProbe.failures.append(("conservation", truth.turn_count))
        if len(set(world.stock)) != len(world.stock):
            _CheckingProbe.failures.append(("stock ids", truth.turn_count))
        if world.hands[view.seat] != truth.hands[view.seat]:
            _CheckingProbe.failures.append(("own hand", truth.turn_count))
        for seat in range(4):
            known = self.memory.known[seat]
            if any(truth.hands[seat][kind] < known[kind] for kind in range(KIND_COUNT)):
                _CheckingProbe.failures.append(("memory claims a card the seat lacks", seat))
            if any(world.hands[seat][kind] < known[kind] for kind in range(KIND_COUNT)):
                _CheckingProbe.failures.append(("known card missing from the sample", seat))
            if truth.first_turn_done[seat] and world.hands[seat][RED_THREE]:
                _CheckingProbe.failures.append(("red 3 in a hand that has laid them", seat))
        _CheckingProbe.checks.append(1)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(dealt_red_three_timing="first_turn", black_three_freezes_pile=True)],
    ids=["default", "first-turn-red-threes"],
)
def test_samples_keep_every_public_fact_and_all_108_cards_at_every_decision(rules):
    _CheckingProbe.failures = []
    _CheckingProbe.checks = []
    for seed in range(3):
        play_game([_CheckingProbe, Greedy, _CheckingProbe, Expert], seed=seed, rules=rules)
    assert len(_CheckingProbe.checks) > 300
    assert _CheckingProbe.failures == []


@pytest.mark.timeout(60)
def test_a_seat_that_took_the_pile_holds_its_known_cards_in_every_sample():
    # R8.3: the pile's cards go into the taker's hand in view of everyone.
    _CheckingProbe.failures = []
    takes = 0
    for seed in range(4):
        result = play_game([_CheckingProbe, Expert, _CheckingProbe, Expert], seed=seed)
        takes += sum(hand.sides[1].pile_takes for hand in result.hands)
    assert takes > 0  # the opponents did take piles, so there were known cards to keep
    assert _CheckingProbe.failures == []


def _position(seed: int, turns: int) -> HandState:
    """A position some turns into a hand of greedy play, reached on the engine's own state."""
    rules = Rules()
    state = HandState.deal(rules, random.Random(seed), dealer=0)
    players = [Greedy(random.Random(seat)) for seat in range(4)]
    views = [SeatView(state, seat, (0, 0)) for seat in range(4)]
    while state.turn_count < turns and not state.is_over:
        seat = state.seat
        if state.phase == "acquire":
            state.apply(players[seat].choose_acquire(views[seat]))
        else:
            while (move := players[seat].choose_meld(views[seat])) is not None:
                state.apply(move)
            if not state.is_over:
                state.apply(players[seat].choose_discard(views[seat]))
    return state


def _with_hidden_cards_swapped(state):
    """A copy of ``state`` with a card of seat 1's hand and a stock card of another kind exchanged:
    seat 0 cannot tell the two apart."""
    other = state.copy()
    hand = other.hands[1]
    give = next(kind for kind in range(KIND_COUNT) if hand[kind])
    swap_index = next(i for i, card in enumerate(other.stock) if CARD_KIND[card] != give)
    take = CARD_KIND[other.stock[swap_index]]
    hand[give] -= 1
    hand[take] += 1
    other.stock[swap_index] = next(card for card in range(108) if CARD_KIND[card] == give)
    return other


@pytest.mark.timeout(30)
def test_no_leakage_positions_differing_only_in_hidden_cards_give_identical_samples():
    # Swap cards between two hidden places (another hand and the stock): seat 0 cannot tell.
    state = _position(5, 9)
    other = _with_hidden_cards_swapped(state)
    assert other.hands[1] != state.hands[1]
    view, other_view = SeatView(state, 0, (0, 0)), SeatView(other, 0, (0, 0))
    memory, other_memory = PublicMemory(view), PublicMemory(other_view)
    first = sample_world(view, memory, random.Random(11))
    second = sample_world(other_view, other_memory, random.Random(11))
    assert first.hands == second.hands
    assert first.stock == second.stock
    assert public_facts(first) == public_facts(second)


@pytest.mark.timeout(30)
def test_samples_differ_with_the_generator_and_hidden_hands_have_the_right_sizes():
    state = _position(6, 7)
    view = SeatView(state, 2, (0, 0))
    memory = PublicMemory(view)
    samples = [sample_world(view, memory, random.Random(seed)) for seed in range(5)]
    assert len({tuple(map(tuple, sample.hands)) for sample in samples}) > 1
    for sample in samples:
        assert [sum(hand) for hand in sample.hands] == state.hand_sizes
        assert len(sample.stock) == len(state.stock)


@pytest.mark.timeout(30)
def test_a_memory_that_claims_more_cards_than_a_seat_holds_is_refused():
    state = _position(7, 3)
    view = SeatView(state, 0, (0, 0))
    memory = PublicMemory(view)
    memory.known[1][5] = 30
    with pytest.raises(SearchError, match="seat 1 is known to hold 30 cards"):
        sample_world(view, memory, random.Random(1))


@pytest.mark.timeout(30)
def test_copy_is_independent_and_a_playout_never_changes_the_original():
    state = _position(8, 6)
    before = (public_facts(state), [list(hand) for hand in state.hands], list(state.stock), len(state.history))
    for policy in (Greedy, Expert, RandomPlay):
        world = state.copy()
        assert public_facts(world) == public_facts(state) and world.hands == state.hands
        playout(world, [policy(random.Random(seat)) for seat in range(4)], (0, 0))
        assert world.is_over
        assert world.card_total() == 108
    after = (public_facts(state), [list(hand) for hand in state.hands], list(state.stock), len(state.history))
    assert after == before
    assert not state.is_over


@pytest.mark.timeout(60)
def test_a_playout_from_the_deal_matches_the_engine_hand_for_the_same_players():
    # The fast loop takes the engine's turn order: the same deal and players give the same hand.
    for seed in range(3):
        rules = Rules()
        dealt = HandState.deal(rules, random.Random(seed), dealer=1)
        fast = playout(dealt.copy(), [Expert(random.Random(seat)) for seat in range(4)], (0, 0))

        slow = dealt.copy()
        players = [Expert(random.Random(seat)) for seat in range(4)]
        views = [SeatView(slow, seat, (0, 0)) for seat in range(4)]
        for seat, player in enumerate(players):
            player.on_hand_start(views[seat])
        play_hand(slow, Seats(players, ["expert"] * 4, seed, None), views)
        assert score_hand(fast) == score_hand(slow)
        assert [move for _, move, _ in fast.history] == [move for _, move, _ in slow.history]



class _AvoidingProbe(_CheckingProbe):
    """The checking probe with the inference option at its strongest (every avoided pair exchanged)."""

    def _probe(self, view) -> None:
        original = sample_world

        def weighted(view, memory, rng):
            return original(view, memory, rng, avoid_weight=0.0)

        globals()["sample_world"] = weighted
        try:
            super()._probe(view)
        finally:
            globals()["sample_world"] = original


@pytest.mark.timeout(120)
def test_weighted_samples_keep_every_public_fact_all_108_cards_and_the_known_cards():
    _CheckingProbe.failures = []
    _CheckingProbe.checks = []
    play_game([_AvoidingProbe, Expert, _AvoidingProbe, Expert], seed=3)
    assert len(_CheckingProbe.checks) > 50
    assert _CheckingProbe.failures == []


def _memory_avoiding(view: SeatView, seat: int, ranks: set[int]) -> PublicMemory:
    memory = PublicMemory(view)
    memory.has_acted = [True] * 4
    memory.avoids[seat] = set(ranks)
    return memory


@pytest.mark.timeout(30)
def test_no_leakage_holds_for_weighted_samples_too():
    state = _position(5, 9)
    other = _with_hidden_cards_swapped(state)
    view, other_view = SeatView(state, 0, (0, 0)), SeatView(other, 0, (0, 0))
    avoided = set(range(4, 15))
    first = sample_world(view, _memory_avoiding(view, 1, avoided), random.Random(11), avoid_weight=0.3)
    second = sample_world(other_view, _memory_avoiding(other_view, 1, avoided), random.Random(11), avoid_weight=0.3)
    assert first.hands == second.hands and first.stock == second.stock


@pytest.mark.timeout(30)
def test_a_seat_seldom_holds_a_pair_of_a_rank_it_avoids_when_samples_are_weighted():
    state = _position(6, 7)
    view = SeatView(state, 2, (0, 0))
    avoided = set(range(4, 15))  # every natural rank: weighted samples give seat 1 no natural pair
    memory = _memory_avoiding(view, 1, avoided)
    uniform_pairs = weighted_pairs = 0
    for seed in range(40):
        uniform = sample_world(view, memory, random.Random(seed))
        weighted = sample_world(view, memory, random.Random(seed), avoid_weight=0.0)
        uniform_pairs += sum(uniform.hands[1][rank] >= 2 for rank in avoided)
        weighted_pairs += sum(weighted.hands[1][rank] >= 2 for rank in avoided)
        assert sum(weighted.hands[1]) == state.hand_sizes[1] and len(weighted.stock) == len(state.stock)
        assert kind_totals(weighted) == list(DECK_COUNTS)
    assert uniform_pairs > 5
    assert weighted_pairs == 0


def test_a_copied_public_memory_is_equal_and_independent():
    from canasta_sim.core.moves import Discard, Draw
    from canasta_sim.core.strategy import PublicEvent

    real = HandState.deal(Rules(), random.Random(4), dealer=0)
    memory = PublicMemory(SeatView(real, 1, (0, 0)))
    memory.observe(PublicEvent(1, Draw()))
    memory.observe(PublicEvent(1, Discard(9)))
    copy = memory.copy()
    assert all(getattr(copy, name) == getattr(memory, name) for name in PublicMemory.__slots__)
    copy.observe(PublicEvent(2, Draw()))
    copy.observe(PublicEvent(2, Discard(11)))
    assert memory.pile[-1] == 9 and copy.pile[-1] == 11
    assert 11 not in memory.avoids[2] and 11 in copy.avoids[2] and not memory.has_acted[2]


def test_a_take_with_extra_melds_it_did_not_need_closes_the_question_in_the_sampled_worlds_too():
    # R8.3, R12.5, D23: the top aces alone make the 60 needed, so the kings are a meld after the take; a world
    # sampled from the memory must not let the taker ask the partner where the engine does not.
    state = position(hands={0: "A A K K K Q Q Q Q Q Q Q 9", 2: "7 8"}, pile="A", seat=0)
    memory = PublicMemory(SeatView(state, 0, (0, 0)))
    move = parse_move("take A A; K K K")
    state.apply(move)
    memory.observe(PublicEvent(0, move, 0))
    world = sample_world(SeatView(state, 0, (0, 0)), memory, random.Random(0))
    assert world.melded_this_turn and public_facts(world) == public_facts(state)
