"""E4: the hand state keeps its last going-out plan, and a kept plan is only ever the plan of the hand as it is now.

The engine asks for the plan on every turn and the strategies ask again while melding, so the state keeps the last
answer for its key: the turn, the meld changes, the last-stock-card flag (R13.1) and a copy of the hand's count
objects, compared by identity.  A hand changed by any means, a meld or a write straight into the counts, must get a
fresh answer.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import KIND_COUNT, parse_kind
from canasta_sim.core.going_out import find_meld_out
from canasta_sim.core.identities import refresh, same_list
from canasta_sim.core.moves import Meld, MeldGroup
from canasta_sim.core.state import PLAY
from tests.helpers import position

FIVE, SEVEN, NINE = parse_kind("5"), parse_kind("7"), parse_kind("9")


def _fresh_plan(state):
    """The plan searched for again, with nothing kept: what the kept plan must equal."""
    side = state.seat & 1
    return find_meld_out(state.rules, state.hands[state.seat], state.melds[side], minimum=0,
                         allow_discard=not state.must_stop)


@pytest.mark.timeout(30)
def test_e4_a_hand_changed_in_place_gets_a_fresh_plan_r12_1():
    # R12.1: the side holds a canasta of kings; 9 9 9 and a 5 to discard go out, 9 9 and a 5 do not.
    state = position(hands={0: "9 9 9 5"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    plan = state.going_out_plan()
    assert plan == ((MeldGroup.of(NINE, 3),), FIVE) and state.going_out_plan() is plan  # kept: the very object
    state.hands[0][NINE] -= 1  # the same turn, no meld: only the counts tell the hands apart
    state.hand_sizes[0] -= 1
    assert state.going_out_plan() is None and _fresh_plan(state) is None
    state.hands[0][NINE] += 1
    state.hand_sizes[0] += 1
    assert state.going_out_plan() == plan


@pytest.mark.timeout(30)
def test_e4_a_meld_changes_the_plan_r12_1():
    state = position(hands={0: "9 9 9 5 5 5 7"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    assert state.going_out_plan() == ((MeldGroup.of(FIVE, 3), MeldGroup.of(NINE, 3)), SEVEN)
    state.apply(Meld((MeldGroup.of(NINE, 3),)))
    assert state.going_out_plan() == ((MeldGroup.of(FIVE, 3),), SEVEN) == _fresh_plan(state)


@pytest.mark.timeout(30)
def test_same_list_is_the_same_objects_place_by_place():
    hand = [0, 1, 2] + [0] * (KIND_COUNT - 3)
    kept = list(hand)
    assert same_list(hand, kept)
    for kind in range(KIND_COUNT):
        other = list(hand)
        other[kind] += 1
        assert not same_list(other, kept)
    assert not same_list(hand[:-1], kept) and not same_list(hand + [0], kept)  # another size
    assert not same_list(tuple(hand), kept)  # no list
    big = 10**6 + len(hand)  # an int past the interpreter's shared small ones: equal values, other objects
    assert not same_list([big] + hand[1:], [int(str(big))] + kept[1:])


@pytest.mark.timeout(30)
def test_e4_a_hand_that_is_not_a_list_is_answered_without_keeping_r12_1():
    state = position(hands={0: "9 9 9 5"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    state.hands[0] = tuple(state.hands[0])
    assert state.going_out_plan() == ((MeldGroup.of(NINE, 3),), FIVE)
    fewer = list(state.hands[0])
    fewer[NINE] -= 1
    state.hands[0] = tuple(fewer)  # another tuple: never taken for the kept hand
    state.hand_sizes[0] -= 1
    assert state.going_out_plan() is None


@pytest.mark.timeout(30)
def test_e4_the_kept_hand_is_refreshed_in_place_and_a_copy_keeps_its_own_r12_1():
    state = position(hands={0: "9 9 9 5"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY)
    plan = state.going_out_plan()
    kept = state._plan_hand
    assert same_list(state.hands[0], kept)
    state.hands[0][NINE] -= 1
    state.hand_sizes[0] -= 1
    assert state.going_out_plan() is None
    assert state._plan_hand is kept and same_list(state.hands[0], kept)  # the same list, holding the new counts
    other = state.copy()
    other.hands[0][NINE] += 1
    other.hand_sizes[0] += 1
    assert other.going_out_plan() == plan and other._plan_hand is not kept
    assert state.going_out_plan() is None and same_list(state.hands[0], kept)  # the copy's search left it alone


@pytest.mark.timeout(30)
def test_refresh_makes_a_copy_hold_the_live_lists_objects():
    big = 10**6
    live = [int(str(big)), 1, 2, 3]
    copied = [big, 1, 5]
    refresh(copied, live)
    assert same_list(live, copied)
    live.pop()
    refresh(copied, live)  # a shorter live list: the copy loses its end
    assert same_list(live, copied) and len(copied) == 3
    refresh(copied, (7, 8))  # no list: copied whole, and no longer the same (not a list)
    assert copied == [7, 8] and not same_list((7, 8), copied)
