"""The game's fingerprint (canasta_sim.core.fingerprint): its quick comparison finds every change to what decides
a hand, its update after each of the engine's moves keeps it quick, and equal values in other objects are no change."""

from __future__ import annotations

import random

import pytest

from canasta_sim.core.fingerprint import GameFingerprint
from canasta_sim.core.legal import legal_moves
from canasta_sim.core.rules import DEFAULT_RULES
from canasta_sim.core.state import OVER, HandState


def _mid_hand(seed: int = 3, moves: int = 60) -> HandState:
    """A hand some moves in, with cards in the pile and melds on the table."""
    state = HandState.deal(DEFAULT_RULES, random.Random(seed), dealer=0)
    rng = random.Random(seed + 1)
    for _ in range(moves):
        if state.phase == OVER:
            break
        state.apply(rng.choice(list(legal_moves(state))))
    return state


def test_the_copy_holds_after_every_move_of_a_hand_updated_as_the_engine_updates_it():
    state = HandState.deal(DEFAULT_RULES, random.Random(11), dealer=1)
    fingerprint = GameFingerprint(state)
    rng = random.Random(12)
    moves = 0
    while state.phase != OVER:
        assert fingerprint.holds() and fingerprint.changed() == ""
        seat = state.actor
        move = rng.choice(list(legal_moves(state)))
        state.apply(move)
        fingerprint.after_move(seat)  # the engine's mover: the partner for an answer
        moves += 1
    assert moves > 20 and fingerprint.holds()


TAMPERS = [
    ("a hand", lambda state: state.hands[2].__setitem__(5, state.hands[2][5] + 1)),
    ("a hand", lambda state: state.hands.__setitem__(0, list(state.hands[0][:-1]) + [9])),
    ("a hand", lambda state: setattr(state, "hands", tuple(state.hands))),
    ("the stock", lambda state: state.stock.reverse()),
    ("the stock", lambda state: state.stock.pop(0)),
    ("the discard pile", lambda state: state.pile.append(4)),
    ("the melds", lambda state: state.melds[1].__setitem__(12, [7, 0, 0])),
    ("the melds", lambda state: state.melds[0][9].__setitem__(2, state.melds[0][9][2] + 1)),
    ("the melds", lambda state: state.melds[0].append([0, 0, 0])),
    ("the red 3s laid", lambda state: state.red_threes.__setitem__(3, 4)),
    ("the hand sizes", lambda state: state.hand_sizes.__setitem__(1, 30)),
    ("whether a side has melded", lambda state: state.side_has_melded.__setitem__(1, not state.side_has_melded[1])),
    ("whose turn it is, the phase, the rules, the scores or the meld requirements",
     lambda state: setattr(state, "seat", (state.seat + 1) % 4)),
    ("whose turn it is, the phase, the rules, the scores or the meld requirements",
     lambda state: setattr(state, "pile_freezers", state.pile_freezers + 1)),
    ("whose turn it is, the phase, the rules, the scores or the meld requirements",
     lambda state: setattr(state, "scores_before", (5000, 0))),
]


@pytest.mark.parametrize(("what", "tamper"), TAMPERS)
def test_every_change_fails_the_quick_comparison_and_is_named(what, tamper):
    state = _mid_hand()
    fingerprint = GameFingerprint(state)
    assert fingerprint.holds()
    tamper(state)
    assert not fingerprint.holds()
    assert fingerprint.changed() == what


def test_equal_values_in_other_objects_are_no_change_and_a_new_copy_is_quick_again():
    state = _mid_hand()
    fingerprint = GameFingerprint(state)
    state.hands[1] = list(state.hands[1])
    state.melds[0][5] = list(state.melds[0][5])
    state.stock = list(state.stock)
    state.scores_before = (state.scores_before[0] + 1 - 1, state.scores_before[1])
    assert not fingerprint.holds()
    assert fingerprint.changed() == ""
    fingerprint.take()
    assert fingerprint.holds()


def test_an_object_that_changes_the_hand_when_the_copy_drops_it_leaves_a_whole_copy():
    # The copy is refreshed place by place with unchecked reads where compiled: dropping the copy's object may run
    # code that changes the lists, and the refresh must notice rather than read past a list's end.
    state = _mid_hand()
    seat = state.seat
    hand = state.hands[seat]

    class Planted(int):
        def __del__(self):
            del hand[3:]

    kind = next(kind for kind in range(len(hand)) if hand[kind])
    hand[kind] = Planted(hand[kind])
    fingerprint = GameFingerprint(state)  # the copy holds the planted object; the state, below, no longer does
    hand[kind] = int(hand[kind]) + 0
    hand[kind + 1 if kind + 1 < len(hand) else 0] += 1
    fingerprint.after_move(seat)
    assert fingerprint.hands[seat] == hand and len(hand) == 3
    assert fingerprint.holds()


@pytest.mark.timeout(30)
def test_a_pile_changed_in_its_middle_is_still_found_after_the_next_discard_updates_the_copy():
    # After a move the copy takes only the pile's new cards (the engine appends or empties it): a card changed below
    # them is left for the quick comparison to find.
    for seed in range(3, 40):
        state = _mid_hand(seed)
        if state.phase == "play" and len(state.pile) >= 2 and not state.asked:
            break
    else:
        pytest.fail("no hand in its play phase with two cards in the pile")
    fingerprint = GameFingerprint(state)
    state.pile[0] = 14 if state.pile[0] != 14 else 13
    seat = state.seat
    kind = next(kind for kind, count in enumerate(state.hands[seat]) if count)
    size = len(state.pile)
    state.pile.append(kind)  # the discard's change to the pile, as the engine makes it
    state.hands[seat][kind] -= 1
    state.hand_sizes[seat] -= 1
    fingerprint.after_move(seat)
    assert len(fingerprint.pile) == size + 1 and fingerprint.pile[-1] is kind
    assert not fingerprint.holds() and fingerprint.changed() == "the discard pile"
