"""The seat view: it shows exactly what one seat may know, and nothing it returns can change the game."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import random

import pytest

from canasta_sim.core.cards import CARD_KIND, KIND_COUNT, parse_kind
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile
from canasta_sim.core.state import PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.errors import IllegalMoveError
from canasta_sim.strategies import Expert, Greedy, RandomPlay
from tests.helpers import position, snapshot

NINE, KING = parse_kind("9"), parse_kind("K")

PROBES = (
    Draw(),
    Stop(),
    Ask(),
    Answer(True),
    TakePile(),
    TakePile((NINE, NINE)),
    Meld((MeldGroup.of(NINE, 3),)),
    Meld((MeldGroup.of(KING, 2, 1),)),
    *(Discard(kind) for kind in range(KIND_COUNT)),
)
"""Moves a strategy might test with ``can`` or ``verify`` to probe what others hold."""


def public_api(view: SeatView) -> dict[str, object]:
    """Every public attribute, property and method result of the view, called with every probe."""
    seen: dict[str, object] = {}
    for name in dir(SeatView):
        if name.startswith("_"):
            continue
        member = getattr(SeatView, name)
        if inspect.isdatadescriptor(member):  # a property (a C getter where the view is compiled)
            seen[name] = getattr(view, name)
            continue
        parameters = list(inspect.signature(member).parameters)[1:]
        bound = getattr(view, name)
        if not parameters:
            value = bound()
            seen[name] = list(value) if inspect.isgenerator(value) or hasattr(value, "__next__") else value
        elif parameters == ["side"]:
            seen[name] = [bound(side) for side in (0, 1)]
        elif parameters == ["side", "rank"]:
            seen[name] = [bound(side, rank) for side in (0, 1) for rank in range(KIND_COUNT)]
        elif parameters == ["largest_first"]:
            seen[name] = [list(bound(largest_first=flag)) for flag in (False, True)]
        elif parameters == ["move"]:
            results = []
            for move in PROBES:
                try:
                    results.append(bound(move))
                except IllegalMoveError as error:
                    results.append(str(error))
            seen[name] = results
        else:
            raise AssertionError(f"SeatView.{name}{parameters}: add a probe for it to this test")
    return seen


def with_other_secrets(state, seed: int):
    """A copy of ``state`` that differs only in what seat 0 may not know: the other hands and the stock."""
    other = copy.deepcopy(state)
    hidden = list(other.stock)
    for seat in (1, 2, 3):
        for kind in range(KIND_COUNT):
            hidden.extend([kind] * other.hands[seat][kind])
    stock_kinds = [CARD_KIND[card] for card in other.stock]
    pool = stock_kinds + hidden[len(other.stock):]
    random.Random(seed).shuffle(pool)
    kind_to_id = {CARD_KIND[card]: card for card in range(108)}
    other.stock = [kind_to_id[kind] for kind in pool[: len(other.stock)]]
    rest = pool[len(other.stock):]
    for seat in (1, 2, 3):
        size = other.hand_sizes[seat]
        counts = [0] * KIND_COUNT
        for kind in rest[:size]:
            counts[kind] += 1
        other.hands[seat] = counts
        rest = rest[size:]
    return other


@pytest.mark.parametrize("seat_to_move", [0, 1, 2])
def test_view_is_the_same_whatever_other_hands_and_stock_hold_r2_4(seat_to_move):
    state = position(
        hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 2 6 J", seat=seat_to_move, phase=PLAY
    )
    reference = public_api(SeatView(state, 0, (120, 80)))
    for seed in range(3):
        other = with_other_secrets(state, seed)
        assert other.hands[1] != state.hands[1] or other.stock != state.stock
        assert public_api(SeatView(other, 0, (120, 80))) == reference


def test_view_hand_is_own_hand_only():
    state = position(hands={0: "9 9 K", 1: "A A A", 2: "Q Q", 3: "5 6"}, melds={0: "7 7 7"}, pile="4 6")
    for seat in range(4):
        view = SeatView(state, seat, (0, 0))
        assert view.hand == tuple(state.hands[seat])
        assert view.hand_sizes == (3, 3, 2, 2)


def test_probing_another_seats_turn_reveals_nothing():
    # Seat 1 is to move; seat 0 tries every probe through its own view.
    state = position(hands={0: "9 9 K", 1: "A A A 5"}, melds={1: "K K K K K K K"}, pile="4 6", seat=1, phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    assert not any(view.can(move) for move in PROBES)
    for move in PROBES:
        with pytest.raises(IllegalMoveError, match="R2.4"):
            view.verify(move)
    assert not view.can_go_out() and view.going_out_plan() is None
    assert list(view.legal_moves()) == [] and list(view.legal_discards()) == []


def test_changing_what_the_view_returns_changes_nothing():
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 2 6 J", phase=PLAY)
    view = SeatView(state, 0, (10, 20))
    before = snapshot(state)
    melds = view.melds(0)
    melds[NINE] = (9, 0, 0)
    melds.clear()
    assert view.melds(0) == {parse_kind("Q"): (3, 0, 0)}
    for name in ("scores", "seat", "hand", "pile", "rules", "hand_sizes", "stock_count"):
        with pytest.raises(AttributeError):
            setattr(view, name, None)
    with pytest.raises(AttributeError):
        view.extra = 1  # no new attributes: the view has slots
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.rules.target_score = 100
    assert isinstance(view.hand, tuple) and isinstance(view.pile, tuple)
    for move in PROBES:
        view.can(move)
    assert snapshot(state) == before
    assert view.scores == (10, 20)


def test_view_follows_the_hand_as_it_is_played():
    state = position(hands={0: "9 9 9 K K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 6", phase=PLAY)
    view = SeatView(state, 0, (0, 0))
    state.apply(Meld((MeldGroup.of(NINE, 3),)))
    assert view.hand[NINE] == 0 and NINE in view.melds(0)
    state.apply(Discard(KING))
    assert view.pile_top == KING and view.seat_to_move == 1


class Meddler(Greedy):
    """Greedy, but before every decision it tries to change the game through the view."""

    def _meddle(self, view) -> None:
        for side in (0, 1):
            melds = view.melds(side)
            melds.clear()
            melds[4] = (9, 9, 9)
        for name in ("scores", "seat", "hand", "pile", "hand_sizes", "stock_count", "rules"):
            try:
                setattr(view, name, None)
            except AttributeError:
                pass
        for move in PROBES:
            view.can(move)
            try:
                view.verify(move)
            except IllegalMoveError:
                pass
        list(view.legal_moves())
        view.going_out_plan()
        view.can_go_out()

    def choose_acquire(self, view):
        self._meddle(view)
        return super().choose_acquire(view)

    def choose_meld(self, view):
        self._meddle(view)
        return super().choose_meld(view)

    def choose_discard(self, view):
        self._meddle(view)
        return super().choose_discard(view)

    def answer_go_out(self, view):
        self._meddle(view)
        return super().answer_go_out(view)

    def on_event(self, event):
        try:
            event.seat = 3  # events are frozen records too
        except AttributeError:
            pass


@pytest.mark.parametrize("seed", [1, 2])
def test_a_meddling_strategy_plays_the_same_game_as_its_honest_twin(seed):
    honest = play_game([Greedy, Expert, Greedy, RandomPlay], seed=seed)
    meddling = play_game([Meddler, Expert, Meddler, RandomPlay], seed=seed)
    assert meddling == honest


@pytest.mark.parametrize("question", ["melds", "canasta_count", "has_melded", "requirement", "initial_requirement",
                                      "is_pile_frozen_for", "melded_ranks"])
@pytest.mark.parametrize("side", [-1, 2])
def test_a_question_about_a_side_takes_0_or_1_only(question, side):
    # view.melds(-1) answered for side B, as a list read from its end does, and view.melds(2) raised IndexError.
    view = SeatView(position(seat=0, phase=PLAY), 0, (0, 0))
    with pytest.raises(ValueError, match=f"^side must be 0 or 1, not {side}$"):
        getattr(view, question)(side)
    assert getattr(view, question)(1) == getattr(view, question)(True)  # a bool is the int it equals
