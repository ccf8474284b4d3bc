"""A look at what a strategy keeps between games pickles it, running the strategy's own code outside any decision's
clock: one that never returns is given up after ``LOOK_LIMIT`` seconds, said in one line, and the run goes on
(docs/strategies.md)."""

from __future__ import annotations

import sys
import threading
import types

import pytest

from canasta_sim.plugins import kept_state
from canasta_sim.plugins.kept_state import KeptStateWatch, unread_warning

HANGS = '''
class Memory:
    """What the learner learned, whose pickling waits for ``RELEASE``: forever, as far as the run can tell."""

    def __reduce__(self):
        RELEASE.wait()
        return (Memory, ())


class Bot:
    memory = Memory()
'''


@pytest.fixture
def hangs(monkeypatch):
    """The class of a strategy whose kept state never pickles; its looks end with the test."""
    module = types.ModuleType("a_bot_whose_state_hangs")
    module.RELEASE = threading.Event()
    exec(HANGS, module.__dict__)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(kept_state, "LOOK_LIMIT", 0.2)
    yield module.Bot
    module.RELEASE.set()


@pytest.mark.timeout(10)
def test_a_kept_state_whose_pickling_never_returns_is_given_up_and_said_once(hangs):
    watch = KeptStateWatch({"hangs.py:Bot": hangs})  # it waited forever
    assert watch.unread() == ["hangs.py:Bot"] and watch.unread() == []
    assert watch.changes(look_now=True) == []  # no longer looked at
    assert "'hangs.py:Bot'" in unread_warning("hangs.py:Bot") and "__reduce__" in unread_warning("hangs.py:Bot")


@pytest.mark.timeout(10)
def test_a_look_at_a_built_in_or_an_isolated_seat_is_not_timed(monkeypatch):
    # Their looks pickle nothing of a strategy's own, so nothing can hang: no clock or thread is spent on them, after
    # every game of a run.
    from canasta_sim.strategies import Greedy

    def refused(*args, **kwargs):
        raise AssertionError("a look at a built-in was timed")

    monkeypatch.setattr(kept_state, "DecisionClock", refused)
    monkeypatch.setattr(kept_state.threading, "Thread", refused)
    watch = KeptStateWatch({"greedy": Greedy})
    assert watch.changes(look_now=True) == [] and watch.unread() == []
