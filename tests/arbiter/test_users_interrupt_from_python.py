"""The user's Ctrl-C, or a notebook's Interrupt (a SIGINT to the kernel), during ``play_game`` called from Python:
a ``KeyboardInterrupt`` out of ``play_game``, never the failure of the seat whose decision it fell in.

The command line has its own handlers (``canasta_sim.cli.options.ctrl_c_raises``); from Python the handler is
Python's own, which raises ``KeyboardInterrupt`` wherever the signal lands, most often inside strategy code."""

import os
import signal
import threading

import pytest

from canasta_sim import StrategyError, play_game
from canasta_sim.strategies import Greedy


class PressesCtrlC(Greedy):
    """Sends its own process SIGINT at its first discard, as a person's Ctrl-C or the kernel's interrupt would,
    and keeps thinking: the signal's handler runs inside this decision."""

    name = "presses-ctrl-c"

    def choose_discard(self, view):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):  # Python runs the handler between bytecodes, here
            pass
        return super().choose_discard(view)


class RaisesKeyboardInterrupt(Greedy):
    name = "raises-keyboard-interrupt"

    def choose_discard(self, view):
        raise KeyboardInterrupt


@pytest.fixture
def pythons_own_handler():
    """SIGINT handled as in a plain script or a notebook's kernel while it runs a cell."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.timeout(60)
def test_a_users_interrupt_during_a_decision_raises_keyboard_interrupt_not_the_seats_failure(pythons_own_handler):
    # Before: StrategyError "strategy 'presses-ctrl-c' at seat 0 ..., decision discard: raised KeyboardInterrupt",
    # which a loop catching StrategyError (a forfeit) swallowed, playing on.
    with pytest.raises(KeyboardInterrupt) as caught:
        play_game([PressesCtrlC, Greedy, PressesCtrlC, Greedy], seed=5)
    assert not isinstance(caught.value, StrategyError)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back as it was


@pytest.mark.timeout(60)
def test_a_strategy_raising_keyboard_interrupt_itself_is_still_its_seats_failure(pythons_own_handler):
    with pytest.raises(StrategyError, match="raised KeyboardInterrupt") as caught:
        play_game([RaisesKeyboardInterrupt, Greedy, RaisesKeyboardInterrupt, Greedy], seed=5)
    assert caught.value.reason == "exception" and caught.value.seat in (0, 2)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.timeout(60)
def test_a_handler_of_the_callers_own_is_left_in_place(pythons_own_handler):
    calls = []

    def own(number, frame):
        calls.append(number)

    signal.signal(signal.SIGINT, own)
    play_game([PressesCtrlC, Greedy, PressesCtrlC, Greedy], seed=5)
    assert calls and signal.getsignal(signal.SIGINT) is own


@pytest.mark.timeout(60)
def test_a_game_played_in_another_thread_leaves_the_handlers_alone(pythons_own_handler):
    results = []
    thread = threading.Thread(target=lambda: results.append(play_game([Greedy] * 4, seed=5)))
    thread.start()
    thread.join()
    assert results and results[0] == play_game([Greedy] * 4, seed=5)
