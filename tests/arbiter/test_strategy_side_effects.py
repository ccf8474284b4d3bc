"""What a strategy's code leaves behind is its own seat's failure: an exception that cannot print itself, a text of
megabytes, a move record of its own class; and what it rebinds of the seats' generators is put back."""

from __future__ import annotations

import random

import pytest

from canasta_sim.arbiter import CodeWatch
from canasta_sim.core.engine import play_game
from canasta_sim.env.driver import GameDriver
from canasta_sim.errors import MESSAGE_LIMIT, StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy, RandomPlay
from tests.bots.leaves_behind import BuildsUnprintable, RaisesMegabytes, RaisesUnprintable, ReturnsItsOwnRecord
from tests.helpers import BOTS

SEED = 4242


class PatchesTheSeatsGenerator(Greedy):
    name = "patches-the-seats-generator"

    def choose_discard(self, view):
        random.Random.choice = _first_choice
        return Greedy.choose_discard(self, view)


def _first_choice(self, options):
    return options[0]


def _failure(cls, opponent=Greedy, time_limit=None) -> StrategyError:
    with pytest.raises(StrategyError) as caught:
        play_game([cls, opponent, cls, opponent], seed=SEED, time_limit=time_limit)
    return caught.value


@pytest.mark.timeout(30)
def test_an_exception_whose_message_cannot_be_written_is_its_seats_exception():
    error = _failure(RaisesUnprintable)
    assert (error.seat, error.reason, error.decision) == (0, "exception", "discard")
    assert "raised _Unprintable: (its message could not be written: its __str__ raised RuntimeError)" in str(error)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("where", ["engine", "environments"])
def test_a_constructor_s_exception_whose_message_cannot_be_written_is_its_seats_build_failure(where):
    # The constructor's failure was formatted with the exception's own __str__, whose RuntimeError escaped.
    with pytest.raises(StrategyError) as caught:
        if where == "engine":
            play_game([BuildsUnprintable, Greedy] * 2, seed=SEED)
        else:
            GameDriver(players=[BuildsUnprintable, Greedy] * 2).reset(SEED)
    error = caught.value
    assert (error.seat, error.reason, error.decision) == (0, "exception", "build")
    assert "could not be built: _Unprintable: (its message could not be written" in str(error)


@pytest.mark.timeout(30)
def test_an_exception_message_of_megabytes_is_cut_to_a_short_line():
    error = _failure(RaisesMegabytes)
    assert error.reason == "exception" and len(str(error)) < MESSAGE_LIMIT + 300
    assert str(error).endswith("more characters)")


@pytest.mark.timeout(30)
def test_a_move_record_of_a_strategys_own_class_that_cannot_print_is_an_illegal_answer_of_its_seat():
    error = _failure(ReturnsItsOwnRecord)
    assert (error.seat, error.reason, error.decision) == (0, "illegal", "discard")
    assert "E1: _OwnDiscard(card=" in str(error) and "is not a move" in str(error)


@pytest.mark.timeout(30)
def test_the_code_watch_puts_back_the_methods_of_every_seats_generator():
    watch = CodeWatch([PatchesTheSeatsGenerator, RandomPlay])
    original = random.Random.choice
    try:
        play_game([PatchesTheSeatsGenerator, RandomPlay] * 2, seed=SEED)
    finally:
        changed = watch.check()
    assert random.Random.choice is original
    assert [name for name, _ in changed] == ["Random.choice"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "reason", "words"), [
    ("RaisesUnprintable", "exception", "raised _Unprintable: (its message could not be written"),
    ("ReturnsItsOwnRecord", "illegal", "E1: _OwnDiscard(card="),
    ("RaisesMegabytes", "exception", "raised RuntimeError: xxx"),
])
def test_isolated_the_same_failures_are_charged_with_the_in_process_reason_and_words(name, reason, words):
    # Isolated, the bot server's own formatting raised (charged as the __str__'s RuntimeError, or an exception for an
    # illegal record), or wrote a line past the protocol's 16 MiB (charged malformed).
    spec = f"isolated:{BOTS / 'leaves_behind.py'}:{name}"
    greedy = load_strategy("greedy")
    with pytest.raises(StrategyError) as caught:
        play_game([load_strategy(spec), greedy] * 2, seed=SEED, names=[spec, "greedy"] * 2)
    error = caught.value
    assert (error.seat, error.reason, error.decision) == (0, reason, "discard"), error
    assert words in str(error) and len(str(error)) < MESSAGE_LIMIT + 300
