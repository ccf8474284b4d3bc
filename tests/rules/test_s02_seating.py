"""docs/rules.md §2: partnerships, the dealer, turn order and who may act (R2.1-R2.4)."""

import random

import pytest

from canasta_sim.core.deal import DeckGenerator
from canasta_sim.core.engine import derive_seed, first_dealer, play_game
from canasta_sim.core.moves import Discard, Draw, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, PLAY, HandState
from canasta_sim.core.view import SeatView
from canasta_sim.strategies import RandomPlay
from tests.helpers import apply_all, finish, position


def test_r2_1_partners_sit_opposite_team_a_is_seats_0_and_2():
    state = position()
    sides = []
    for seat in range(4):
        state.seat = seat
        sides.append(state.side)
    assert sides == [0, 1, 0, 1]
    assert [SeatView(state, seat, (0, 0)).partner for seat in range(4)] == [2, 3, 0, 1]


def test_r2_1_a_side_scores_both_partners_hands():
    state = position(
        hands={0: "5 5 5 9", 1: "K", 2: "A", 3: "7"},
        melds={0: "Q Q Q Q Q Q Q"},
        seat=0,
        phase=PLAY,
        melded_seats=(0,),
    )
    result = finish(state, "meld 5 5 5", "discard 9")
    assert result.sides[0].hand_penalty == 20  # seat 2's ace
    assert result.sides[1].hand_penalty == 15  # seat 1's king and seat 3's seven


def test_r2_2_first_dealer_by_lot_then_passes_clockwise():
    first_dealers = set()
    for seed in range(12):
        result = play_game([RandomPlay] * 4, seed=seed, rules=Rules(target_score=2500))
        first_dealers.add(result.first_dealer)
        assert [hand.dealer for hand in result.hands] == [
            (result.first_dealer + index) % 4 for index in range(len(result.hands))
        ]
    assert first_dealers == {0, 1, 2, 3}


def test_r2_2_the_first_dealer_of_a_seed_is_the_one_its_game_draws():
    # The seat a failed game's record names (first_dealer) is the one the game would have dealt from.
    for seed in range(8):
        result = play_game([RandomPlay] * 4, seed=seed, rules=Rules(target_score=500), max_hands=1)
        assert first_dealer(seed) == result.first_dealer
        assert first_dealer(seed) == random.Random(derive_seed(seed, "deck")).randrange(4)


@pytest.mark.parametrize("seed", range(0, 300, 11))
def test_r2_2_the_first_dealer_is_drawn_as_random_random_draws_it(seed):
    ours, theirs = DeckGenerator(seed), random.Random(seed)
    assert [ours.below(bound) for bound in (4, 1, 3, 108, 2**31)] == [
        theirs.randrange(bound) for bound in (4, 1, 3, 108, 2**31)]
    for bound in (0, -1, 2**31 + 1):
        with pytest.raises(ValueError, match="draws below a bound from 1 to 2"):
            ours.below(bound)


def test_r2_3_player_left_of_dealer_moves_first_then_clockwise():
    for dealer in range(4):
        state = HandState.from_deck(Rules(), list(range(108)), dealer=dealer)
        assert state.seat == (dealer + 1) % 4 and state.phase == ACQUIRE
        seats = []
        for _ in range(5):
            seats.append(state.seat)
            apply_all(state, "draw")
            hand = state.hands[state.seat]
            kind = next(kind for kind in range(15) if hand[kind])
            state.apply(Discard(kind))
        assert seats == [(dealer + 1 + step) % 4 for step in range(5)]


def test_r2_4_only_the_seat_to_move_may_act():
    state = position(hands={1: "5 9 9 4", 2: "5 5 8"}, melds={0: "A A A"}, pile="4 6", seat=1, phase=PLAY)
    apply_all(state, "discard 5")
    assert state.seat == 2
    for seat in (0, 1, 3):
        view = SeatView(state, seat, (0, 0))
        assert not view.can(Draw()) and not view.can(TakePile((5, 5)))
        assert list(view.legal_moves()) == []
    assert SeatView(state, 2, (0, 0)).can(TakePile((5, 5)))
