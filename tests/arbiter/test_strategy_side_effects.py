"""What a strategy's code leaves behind is its own seat's failure: an exception that cannot print itself, a text of
megabytes, a move record of its own class, and the interpreter's settings it changes for every later call (the
recursion limit, a trace function, a CPU timer), which are put back before any other code runs under them."""

from __future__ import annotations

import inspect
import random
import signal
import sys

import pytest
from click.testing import CliRunner

from canasta_sim.arbiter import CodeWatch
from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.errors import MESSAGE_LIMIT, StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy, RandomPlay
from tests.bots.leaves_behind import LowersTheRecursionLimit, RaisesMegabytes, RaisesUnprintable, ReturnsItsOwnRecord
from tests.helpers import BOTS, assert_same_run_tables, read_run_tables

SEED = 4242


def _raise_in_calls(frame, event, arg):
    # Only in the opponent's code: a trace function that raises is unset, and in its own call it would be its own.
    if event == "call" and frame.f_code.co_filename == inspect.getsourcefile(RandomPlay):
        raise RuntimeError("traced")


class TracesTheOpponent(Greedy):
    name = "traces-the-opponent"

    def choose_discard(self, view):
        sys.settrace(_raise_in_calls)
        return Greedy.choose_discard(self, view)


class ArmsACpuTimer(Greedy):
    """Arms a CPU timer whose signal ends the process later, during whoever's call runs then."""

    name = "arms-a-cpu-timer"

    def choose_discard(self, view):
        signal.setitimer(signal.ITIMER_VIRTUAL, 30.0)
        return Greedy.choose_discard(self, view)


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
@pytest.mark.parametrize("time_limit", [None, 5.0])
def test_a_lowered_recursion_limit_is_put_back_and_charged_to_the_seat_that_lowered_it(time_limit):
    limit = sys.getrecursionlimit()
    error = _failure(LowersTheRecursionLimit, RandomPlay, time_limit)
    assert sys.getrecursionlimit() == limit
    assert (error.seat, error.reason, error.decision) == (0, "tampering", "discard")
    assert "changed the interpreter for every later call in its process: the recursion limit (set to" in str(error)


@pytest.mark.timeout(30)
def test_a_trace_function_left_behind_is_removed_before_the_opponent_runs_and_charged_to_its_seat():
    trace = sys.gettrace()
    error = _failure(TracesTheOpponent, RandomPlay)
    assert sys.gettrace() is trace
    assert (error.seat, error.reason) == (0, "tampering") and "the trace function (sys.settrace)" in str(error)


@pytest.mark.timeout(30)
def test_a_cpu_timer_left_armed_is_disarmed_and_charged_to_its_seat():
    try:
        error = _failure(ArmsACpuTimer)
        assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)  # never left to end the test process
    assert (error.seat, error.reason) == (0, "tampering") and "the timer ITIMER_VIRTUAL (armed)" in str(error)


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


@pytest.mark.timeout(120)
def test_a_run_charges_a_lowered_recursion_limit_to_its_seat_alike_on_one_worker_or_two(tmp_path):
    # In a worker the limit left just above the strategy's call used to end the worker in the opponent's next call,
    # charged to the opponent as a crash.
    spec = f"{BOTS / 'leaves_behind.py'}:LowersTheRecursionLimit"
    for workers in ("1", "2"):
        result = CliRunner().invoke(main, [
            "run", "--games", "4", "--seed", "3", "--workers", workers, "-s", spec, "-s", "random", "--on-error",
            "forfeit", "--rules", "target_score=500", "--out", str(tmp_path / workers)])
        assert result.exit_code == 0, result.output
    assert_same_run_tables(tmp_path / "1", tmp_path / "2")
    games, _ = read_run_tables(tmp_path / "1")
    assert list(games["forfeit_reason"]) == ["tampering"] * 4
    assert list(games["forfeit_team"]) == ["A", "B", "A", "B"]  # the sides swap every other game
    assert games["error"].str.contains("the recursion limit").all()


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
