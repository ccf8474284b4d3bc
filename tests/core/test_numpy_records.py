"""Move records built with numpy values, as research bots build them (E1: a record built by hand is checked, not
trusted): a numpy integer kind is the card it equals, held as a plain int; any other numpy value where a kind or the
groups go is refused as E1, by a probe and by the checks, never with numpy's own error."""

from __future__ import annotations

import numpy as np
import pytest

from canasta_sim.core.cards import parse_kind
from canasta_sim.core.engine import GameObserver, play_game
from canasta_sim.core.moves import Answer, Discard, Meld, MeldGroup, TakePile, move_text, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, PLAY
from canasta_sim.errors import IllegalMoveError
from canasta_sim.strategies import Greedy
from tests.bots.numpy_strategies import NumpyGreedy
from tests.helpers import position, snapshot

K, FIVE = parse_kind("K"), parse_kind("5")


def test_a_numpy_integer_kind_is_held_as_the_int_it_equals():
    records = {
        "discard": (Discard(np.int64(FIVE)), [FIVE]),
        "group": (MeldGroup(np.int8(K), np.array([K, K, K])), [K, K, K, K]),
        "take": (TakePile(np.array([K, K], dtype=np.uint8)), [K, K]),
    }
    for name, (record, kinds) in records.items():
        held = [record.card] if name == "discard" else list(record.cards)
        held += [record.rank] if name == "group" else []
        assert held == kinds and all(type(kind) is int for kind in held), name
    assert Discard(np.int64(FIVE)) == parse_move("discard 5") and str(Discard(np.int64(FIVE))) == "discard 5"


@pytest.mark.parametrize(
    "record",
    [
        Discard(np.float64(FIVE)),
        Discard(np.array(FIVE)),
        Discard(np.bool_(True)),
        Meld((MeldGroup(np.array([K]), (K, K, K)),)),
        Meld((MeldGroup(K, (np.float32(K), K, K)),)),
    ],
    ids=["float", "0-d array", "numpy bool", "rank array", "float card"],
)
def test_a_numpy_value_that_is_no_kind_stays_e1(record):
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    assert not state.is_legal(record)
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(record)
    assert raised.value.rule == "E1" and "which is not a card kind" in str(raised.value)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "groups",
    [np.array([K, K, K]), np.array([]), np.array([MeldGroup.of(K, 3), MeldGroup.of(FIVE, 3)], dtype=object)],
    ids=["ints", "empty", "groups"],
)
def test_a_meld_whose_groups_are_an_array_is_refused_e1_by_a_probe_and_by_the_checks(groups):
    # An array has no truth value: the meld's check asked for one before it looked at the groups' type, and numpy's
    # ValueError left the probe (view.can) and the checks alike.
    state = position(Rules(), hands={0: "K K K 5 5 5 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    before = snapshot(state)
    move = Meld(groups)
    assert not state.is_legal(move) and not state.can_meld(move)
    with pytest.raises(IllegalMoveError) as raised:
        state.apply(move)
    assert raised.value.rule == "E1"
    assert str(raised.value).startswith("seat 0 (A), play: E1: a Meld's groups are MeldGroup records in a tuple; ")
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "extra",
    [np.array([MeldGroup.of(FIVE, 3)], dtype=object), np.array([MeldGroup.of(FIVE, 3)] * 2, dtype=object),
     np.array([])],
    ids=["one group", "groups", "empty"],
)
def test_a_take_whose_extra_melds_are_an_array_is_e1(extra):
    state = position(Rules(), hands={0: "K K 5 5 5 7 8"}, pile="9 K", seat=0, phase=ACQUIRE)
    move = TakePile((K, K), extra)
    assert not state.is_legal(move)
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(move)
    assert raised.value.rule == "E1" and "a TakePile's groups are MeldGroup records in a tuple" in str(raised.value)


class _PlainKinds(GameObserver):
    """Checks after every move that the pile and the moves played hold plain ints only."""

    def __init__(self) -> None:
        self.played: set[str] = set()
        """The kinds of move the numpy seats (side A) played."""

    def on_move(self, state) -> None:
        seat, move, _ = state.history[-1]
        kinds = list(state.pile)
        if isinstance(move, Discard):
            kinds.append(move.card)
        for group in getattr(move, "groups", ()) or getattr(move, "extra", ()):
            kinds += [group.rank, *group.cards]
        kinds += list(getattr(move, "cards", ()))
        assert all(type(kind) is int for kind in kinds), (move, kinds)
        if seat % 2 == 0:
            self.played.add(type(move).__name__)


@pytest.mark.timeout(60)
def test_a_game_of_numpy_kinds_is_the_game_of_the_same_ints_and_holds_no_numpy_value():
    # A numpy integer once went on the pile as it was, and a bot process's message, in JSON, could not hold it: its
    # seat was charged with a TypeError it never raised.
    rules = Rules(target_score=1500)
    observer = _PlainKinds()
    result = play_game([NumpyGreedy, Greedy, NumpyGreedy, Greedy], seed=11, rules=rules, observer=observer)
    assert result == play_game([Greedy] * 4, seed=11, rules=rules)
    assert {"Discard", "Meld", "TakePile"} <= observer.played


def _asked():
    """Seat 0 has asked its partner (R12.5): the partner's answer is due."""
    state = position(Rules(), hands={0: "5 5 5 9"}, melds={0: "Q Q Q Q Q Q Q"}, melded_seats=(0,), seat=0, phase=PLAY)
    state.apply(parse_move("ask"))
    return state


def test_r12_5_an_answer_of_true_or_false_is_played():
    for value in (True, False):
        state = _asked()
        state.apply(Answer(value))
        assert state.answer is value


@pytest.mark.parametrize("value", ["no", None, 0, 1, np.float64(1.0), np.bool_(True), "yes"])
def test_r12_5_an_answer_that_is_neither_true_nor_false_is_e1(value):
    # Answer("no") was taken as a yes (the text is truthy) and Answer(None) as a no, each without a word; a bot
    # process sent "answer yes" for the first.  A numpy bool is refused as answer_go_out's is (docs/strategies.md).
    record = Answer(value)
    state = _asked()
    assert not state.is_legal(record)
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(record)
    assert raised.value.rule == "E1" and "True or False" in str(raised.value)
    assert move_text(record) is None
