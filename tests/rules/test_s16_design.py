"""docs/rules.md §16: the engine design notes E1-E5 (compound actions, validation order, flags,
the going-out search, seeded randomness)."""

import itertools
import random

import pytest

from canasta_sim.core.going_out import find_meld_out
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, PLAY, HandState
from canasta_sim.errors import IllegalMoveError
from tests.helpers import apply_all, expect_illegal, finish, position, snapshot


def test_e1_compound_take_is_all_or_nothing():
    state = position(hands={0: "K K A A 2 9 5"}, pile="7 K", seat=0)
    before = snapshot(state)
    expect_illegal(state, TakePile((13, 13), (MeldGroup(14, (14, 14, 9)),)), "R9.1")  # a 9 cannot join aces
    assert snapshot(state) == before
    apply_all(state, "take K K; A A 2")  # 30 + 60 = 90: both parts happen together
    assert state.melds[0][13] == [3, 0, 0] and state.melds[0][14] == [2, 0, 1]


@pytest.mark.parametrize(
    "move",
    [
        Draw(),
        TakePile((7, 7, 0)),
        TakePile((13, 13), (MeldGroup(14, (14, 14, 1)),)),
        TakePile(),
        Meld((MeldGroup(13, (13, 13, 13)), MeldGroup(8, (0,)))),
        Ask(),
        Answer(True),
        Answer(False),
        Discard(2),
        Stop(),
    ],
)
def test_e1_move_records_round_trip_through_text(move):
    assert parse_move(str(move)) == move


@pytest.mark.parametrize("rank", range(15))
def test_e1_groups_built_from_counts_equal_groups_built_from_cards(rank):
    # MeldGroup.of skips the constructor's sort where its cards are in order already; the result
    # must be the very record the constructor makes, card order included.
    for naturals, jokers, deuces in itertools.product(range(4), range(3), range(4)):
        cards = (rank,) * naturals * (rank != 0) + (0,) * jokers + (1,) * deuces
        built = MeldGroup.of(rank, naturals, jokers, deuces)
        assert (built, built.cards, hash(built)) == (MeldGroup(rank, cards), MeldGroup(rank, cards).cards,
                                                    hash(MeldGroup(rank, cards)))


def test_e2_phase_before_cards_in_hand():
    error = expect_illegal(position(hands={0: "5 6 7"}, seat=0), "meld K K K", "R6.1")
    assert "phase" in error.reason


def test_e2_cards_in_hand_before_meld_make_up():
    state = position(hands={0: "2 2 5 6 7"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    error = expect_illegal(state, "meld K 2 2", "R6.1")
    assert "holds no kings" in error.reason


def test_e2_meld_make_up_before_minimum():
    expect_illegal(position(hands={0: "K 2 2 5 6 7"}, seat=0, phase=PLAY), "meld K 2 2", "R9.2")


def test_e2_minimum_before_black_three_timing():
    expect_illegal(position(hands={0: "3b 3b 3b 9 9 5"}, seat=0, phase=PLAY), "meld 3b 3b 3b", "R10.2")


def test_e2_canasta_before_partner_answer():
    rules = Rules(ask_partner_yes_forces_out=False)
    state = position(rules, hands={0: "9 9 9 4"}, melds={0: "K K K"}, seat=0, phase=PLAY)
    apply_all(state, "ask", "answer no")
    expect_illegal(state, "meld 9 9 9", "R6.4")


def test_e3_flags_follow_the_hand():
    state = position(hands={0: "K K A A 2 9 5", 2: "6 7 8"}, pile="2 5 K", seat=0)
    assert not state.side_has_melded[0] and not any(state.seat_has_melded)
    assert state.is_pile_frozen() and not state.is_pile_blocked()
    apply_all(state, "take K K; A A 2")
    assert state.side_has_melded[0] and state.seat_has_melded == [True, False, False, False]
    assert not state.is_pile_frozen() and not state.asked and state.answer is None
    apply_all(state, "discard 2")
    assert state.is_pile_blocked() and state.is_pile_frozen()


def test_e4_search_places_wild_cards_to_complete_a_canasta():
    melds = [[0, 0, 0] for _ in range(15)]
    melds[13] = [5, 0, 0]
    hand = [0] * 15
    for kind in (0, 1, 5, 5, 5, 9):
        hand[kind] += 1
    plan = find_meld_out(Rules(), hand, melds, minimum=0)
    assert plan is not None and plan[1] == 9
    state = position(hands={0: "JK 2 5 5 5 9"}, melds={0: "K K K K K"}, seat=0, phase=PLAY)
    assert state.going_out_plan() is not None
    result = finish(state, Meld(state.going_out_plan()[0]), Discard(state.going_out_plan()[1] or 0))
    assert result.went_out_seat == 0 and result.sides[0].canasta_mixed == 1


def test_e4_search_finds_nothing_when_impossible():
    assert position(hands={0: "3b 3b"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY).going_out_plan() is None
    assert position(hands={0: "9 9 5"}, melds={0: "K K K K K K K"}, seat=0, phase=PLAY).going_out_plan() is None
    assert position(hands={0: "9 9 9 5"}, melds={0: "K K K"}, seat=0, phase=PLAY).going_out_plan() is None


def test_e4_every_plan_found_actually_goes_out():
    rng = random.Random(2024)
    checked = 0
    for _ in range(300):
        kinds = [rng.choice((0, 1, 2, 4, 5, 9, 13, 13, 13, 14)) for _ in range(rng.randrange(2, 9))]
        hand_text = " ".join("JK 2 3b 3r 4 5 6 7 8 9 10 J Q K A".split()[kind] for kind in kinds)
        try:
            state = position(hands={0: hand_text}, melds={0: "K K K K K; A A A"}, seat=0, phase=PLAY)
        except ValueError:
            continue  # more of one kind than the deck holds
        plan = state.going_out_plan()
        if plan is None:
            continue
        checked += 1
        if plan[0]:
            apply_all(state, Meld(plan[0]))
        if plan[1] is not None:
            apply_all(state, Discard(plan[1]))
        assert state.is_over and state.went_out_seat == 0
    assert checked > 20


def test_e5_random_steps_take_a_seed():
    first = HandState.deal(Rules(), random.Random(99), dealer=2)
    second = HandState.deal(Rules(), random.Random(99), dealer=2)
    assert first.deck == second.deck and first.hands == second.hands and first.stock == second.stock
    assert HandState.deal(Rules(), random.Random(100), dealer=2).deck != first.deck
    assert first.phase == ACQUIRE


@pytest.mark.parametrize(
    "move",
    [
        Discard(99),
        Discard(-1),
        Discard("K"),
        Meld((MeldGroup(99, (99, 99, 99)),)),
        Meld((MeldGroup(13, (13, 13, -1)),)),
        Meld((MeldGroup(13, (13, 13, 13.0)),)),
        TakePile((13, 77)),
        TakePile((13, 13), (MeldGroup(-4, (14, 14, 14)),)),
        TakePile((13, 13), ("A A A",)),
        Meld(("K K K",)),
        Meld(13),
        Discard(True),
        ("draw",),
        None,
    ],
)
def test_e1_malformed_records_are_refused_as_illegal(move):
    phase = "acquire" if isinstance(move, TakePile) else PLAY
    state = position(hands={0: "K K K 9 9 5"}, melds={0: "A A A"}, pile="5 K", seat=0, phase=phase)
    expect_illegal(state, move, "E1")


def test_e2_a_move_found_legal_is_verified_again_once_the_state_has_moved_on():
    # is_legal remembers the move it accepted so that applying that very object skips a second
    # check; any move applied in between must void that, or a stale move would slip through.
    state = position(hands={0: "K K K 5 6"}, melds={0: "K K K"}, seat=0, phase=PLAY)
    stale = Discard(13)
    assert state.is_legal(stale)
    apply_all(state, "meld K K K")
    with pytest.raises(IllegalMoveError) as caught:
        state.apply(stale)
    assert caught.value.rule == "R6.1" and "holds no kings" in caught.value.reason
    assert state.hands[0][13] == 0 and state.pile[-1:] != [13]


@pytest.mark.parametrize(
    ("move", "text"), [(Discard(-1), "discard -1"), (Discard("K"), "discard 'K'"), (Discard(13), "discard K")]
)
def test_e1_a_discard_record_prints_what_it_holds(move, text):
    assert str(move) == text
