"""The watchdog clock (a decision's clock in a Dask task's thread, and in the main thread on Windows, which has no
``SIGALRM``): a timeout is raised within the decision it stops, never after it in the engine's own code."""

from __future__ import annotations

import ctypes
import threading
import time
from types import SimpleNamespace

import pytest

import canasta_sim.arbiter.clock
from canasta_sim.arbiter.clock import DecisionClock, DecisionTimeout


def _next_bytecode() -> None:
    """A call: a timeout still pending is delivered here at the latest."""


@pytest.mark.timeout(30)
def test_a_decision_returning_as_its_clock_fires_is_stopped_inside_its_clock_never_after_it(monkeypatch):
    # The watchdog read the deadline as passed, then the decision returned and its clock stopped, then the watchdog
    # raised: the timeout arrived in whatever ran next, outside the engine's guard of the decision.
    entered = threading.Event()
    raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc

    def raises_late(thread_id, error):
        entered.set()
        time.sleep(0.3)  # meanwhile the decision returns and stops its clock
        return raise_in(thread_id, error)

    monkeypatch.setattr(canasta_sim.arbiter.clock, "HAS_ALARM", False)  # the main thread's clock as on Windows
    monkeypatch.setattr(canasta_sim.arbiter.clock, "ctypes", SimpleNamespace(
        c_ulong=ctypes.c_ulong, py_object=ctypes.py_object,
        pythonapi=SimpleNamespace(PyThreadState_SetAsyncExc=raises_late)))
    clock = DecisionClock(0.05)
    where = "in the decision or its clock"
    try:
        clock.start()
        try:
            while not entered.is_set():  # the decision, running past its limit until the watchdog fires
                pass
        finally:
            clock.stop()
        where = "after the clock stopped"
        time.sleep(0.6)
        _next_bytecode()
    except DecisionTimeout:
        pass
    assert where == "in the decision or its clock"
