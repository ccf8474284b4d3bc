"""The listings' iterator objects and kept records (canasta_sim.core.legal): ``legal_melds`` and the checked
discards yield what checking each candidate yields, as an iterator that stays exhausted and may be dropped
unfinished; a pile take's record is the same object every time it is asked for; and a listing leaves no
reference cycle holding the hand state (which only the garbage collector would free)."""

from __future__ import annotations

import gc
import random

import pytest

from canasta_sim.core.cards import JOKER, TWO
from canasta_sim.core.legal import legal_discards, legal_melds, legal_moves, meld_candidates, pile_take
from canasta_sim.core.moves import Discard, TakePile
from canasta_sim.core.rules import DEFAULT_RULES
from canasta_sim.core.state import OVER, PLAY, HandState
from canasta_sim.errors import IllegalMoveError
from tests.helpers import force_field, position


def _play_phases(seed: int):
    """Each hand state at a play decision of a random hand (the state itself, between random moves)."""
    state = HandState.deal(DEFAULT_RULES, random.Random(seed), dealer=seed % 4)
    rng = random.Random(seed + 100)
    while state.phase != OVER:
        if state.phase == PLAY:
            yield state
        state.apply(rng.choice(list(legal_moves(state))))


@pytest.mark.timeout(60)
def test_legal_melds_yields_the_candidates_can_meld_accepts_in_their_order_before_and_after_melding_r9_r10():
    checked = 0
    for seed in range(4):
        for state in _play_phases(seed):
            expected = [move for move in meld_candidates(state) if state.can_meld(move)]
            listing = legal_melds(state)
            assert iter(listing) is listing
            assert list(listing) == expected
            assert list(listing) == [] and next(listing, None) is None  # exhausted, and stays so
            checked += 1
    assert checked > 50


def test_a_listing_dropped_unfinished_leaves_the_state_as_it_was_and_its_first_move_playable_r9():
    state = position(hands={0: "5 5 5 6 6 6 K Q 9 8 7"}, melds={0: "9 9 9"}, seat=0, phase=PLAY)
    listing = legal_melds(state)
    first = next(listing)
    assert state.can_meld(first)
    del listing
    state.apply(first)
    assert state.melds[0][first.groups[0].rank][0] >= 1


def test_checked_discards_list_only_the_discards_the_state_accepts_r12():
    # One card left: discarding it goes out, legal only with the canasta going out needs (R12.1).
    for melds, legal in (({0: "Q Q Q Q Q Q Q"}, True), ({0: "Q Q Q"}, False)):
        state = position(hands={0: "9"}, melds=melds, seat=0, phase=PLAY)
        expected = [Discard(9)] if legal else []
        assert [state.can_discard(Discard(9))] == [legal]
        listing = legal_discards(state)
        assert list(listing) == expected and next(listing, None) is None


def test_a_pile_take_record_is_one_object_per_shape_inside_and_outside_the_table_r8_2():
    shapes = ((9, 2, 0, 0), (13, 1, 1, 0), (6, 1, 0, 1), (14, 8, 4, 8), (7, 9, 0, 0), (5, 2, 5, 0))
    for top, naturals, jokers, deuces in shapes:
        first = pile_take(top, naturals, jokers, deuces)
        assert first == TakePile((top,) * naturals + (JOKER,) * jokers + (TWO,) * deuces)
        assert pile_take(top, naturals, jokers, deuces) is first
    assert pile_take(8, 40) == TakePile((8,) * 40)


def test_an_opening_listing_dropped_unfinished_leaves_no_cycle_holding_the_hand_state_r10():
    # Before the side's initial meld the listing walks the group sets (meld_search._group_sets): dropped after
    # its first meld, nothing may be left for the garbage collector, the hand state least of all.
    state = position(hands={0: "K K K Q Q Q J J J 9 9 9 5"}, seat=0, phase=PLAY)
    listing = legal_melds(state)
    assert next(listing) is not None
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        del listing, state
        gc.collect()
        left = [type(item).__name__ for item in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    # The cycle a recursive closure makes: its function and cells (a compiled function and its scope where compiled),
    # holding the hand state compiled.
    closures = {"HandState", "cell", "function", "cython_function_or_method"}
    assert not [name for name in left if name in closures or "scope_struct" in name]


def test_a_listed_discard_forced_to_another_card_is_checked_again_when_applied_r6_1():
    # The listing keeps each shared discard record's key, read once: a record changed since (strategy code can force
    # a frozen record) no longer holds its key's objects, so the engine checks it again rather than on the listing.
    state = position(hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    move = next(move for move in legal_discards(state) if move.card == 5)
    try:
        force_field(move, "card", 12)  # a queen: the hand holds none
        with pytest.raises(IllegalMoveError) as raised:
            state.apply(move)
        assert raised.value.rule == "R6.1"
    finally:
        force_field(move, "card", 5)
    assert state.hands[0][12] == 0 and state.hand_sizes[0] == 7
