"""What a strategy changes of the interpreter for every later call (docs/fairness.md, "In one process"): found when
its game ends, put back, and the game charged to it as ``tampering``."""

from __future__ import annotations

import builtins
import gc
import os
import signal
import sys
import warnings

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy
from tests.bots.interpreter_changes import CHANGES, HARMLESS

SHORT = Rules(target_score=500)
SPEC = "tests/bots/interpreter_changes.py:ChangesTheInterpreter"


def _monitoring_tools() -> tuple:
    """Each monitoring tool's name, events and PY_START callback (none before Python 3.12, which has no
    sys.monitoring)."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return ()
    tools = []
    for tool in range(6):
        callback = monitoring.register_callback(tool, monitoring.events.PY_START, None)
        monitoring.register_callback(tool, monitoring.events.PY_START, callback)
        tools.append((monitoring.get_tool(tool), monitoring.get_events(tool), callback))
    return tuple(tools)


def _settings() -> tuple:
    return (_monitoring_tools(), sys.getrecursionlimit(), sys.gettrace(), sys.getprofile(), sys.getswitchinterval(),
            gc.isenabled(), gc.get_threshold(), signal.getsignal(signal.SIGVTALRM),
            signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0, sys.stdout, os.getcwd(), list(warnings.filters),
            sys.modules["canasta_sim.errors"], dict(vars(builtins)))


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_to_the_interpreter_is_put_back_and_charged_to_the_strategy_when_its_game_ends(change):
    # A strategy could lower the recursion limit, install a trace function, switch the collector off or rebind a
    # builtin, and every later call of every seat (its opponents', the engine's own) ran under it, unnoticed.
    changer = load_strategy(f"{SPEC}:change={change}")
    before = _settings()
    with pytest.raises(StrategyError) as caught:
        play_game([Greedy, changer, Greedy, changer], seed=3, rules=SHORT, names=["greedy", "changer"] * 2)
    assert _settings() == before
    error = caught.value
    assert (error.spec, error.seat % 2, error.reason, error.decision) == ("changer", 1, "tampering", "game")
    assert "changed the interpreter's settings" in str(error) and "put back as they were" in str(error)


def test_the_change_is_named_and_the_hands_finished_before_it_are_kept():
    changer = load_strategy(f"{SPEC}:change=gc-disable")
    with pytest.raises(StrategyError) as caught:
        play_game([changer, Greedy, changer, Greedy], seed=3, rules=SHORT, names=["changer", "greedy"] * 2)
    assert "the garbage collector switched on or off (gc.disable)" in str(caught.value)
    assert caught.value.finished_hands and caught.value.first_dealer is not None


def test_a_game_of_strategies_that_change_nothing_is_played_as_before():
    class Honest(Greedy):
        name = "honest"

    assert play_game([Honest, Greedy, Honest, Greedy], seed=3, rules=SHORT) == play_game([Greedy] * 4, seed=3,
                                                                                          rules=SHORT)


@pytest.mark.parametrize("change", list(HARMLESS))
def test_a_raised_recursion_limit_or_an_ignored_warning_is_no_failure(change):
    # A search that needs a deeper stack raises the limit, and libraries add "ignore" filters as they are imported:
    # neither fails another seat's call, and charging them would forfeit an honest strategy's games.
    limit, filters = sys.getrecursionlimit(), list(warnings.filters)
    changer = load_strategy(f"{SPEC}:change={change}")
    try:
        played = play_game([Greedy, changer, Greedy, changer], seed=3, rules=SHORT)
    finally:
        sys.setrecursionlimit(limit)
        warnings.filters[:] = filters
    assert played == play_game([Greedy] * 4, seed=3, rules=SHORT)
