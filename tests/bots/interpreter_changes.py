"""Strategies that change the interpreter's settings for every later call (loaded by file spec too).

Each plays like greedy and makes its change at its first discard: ``CHANGES`` maps a name to the change.
"""

from __future__ import annotations

import builtins
import gc
import io
import os
import signal
import sys
import tempfile
import warnings

from canasta_sim.strategies.greedy import Greedy


def _trace(frame, event, argument):
    return None


def _handler(number, frame):
    pass


def _monitor(*arguments):
    return None


def _use_monitoring_tool(tool: int, freed: bool) -> None:
    """Register a callback of a monitoring tool, seen in every later call; ``freed`` frees the tool again, which
    leaves its events and callbacks in place."""
    monitoring = sys.monitoring
    monitoring.use_tool_id(tool, "a strategy's tool")
    monitoring.register_callback(tool, monitoring.events.PY_START, _monitor)
    monitoring.set_events(tool, monitoring.events.PY_START)
    if freed:
        monitoring.free_tool_id(tool)


_ORIGINAL_SORTED = sorted


def _sorted(*arguments, **options):
    """A builtin rebound to a copy of its own: a strategy's code where the engine's was."""
    return _ORIGINAL_SORTED(*arguments, **options)


CHANGES = {
    "recursion-limit": lambda: sys.setrecursionlimit(sys.getrecursionlimit() - 1),
    "trace": lambda: sys.settrace(_trace),
    "profile": lambda: sys.setprofile(_trace),
    "switch-interval": lambda: sys.setswitchinterval(1.0),
    "gc-disable": gc.disable,
    "gc-threshold": lambda: gc.set_threshold(1),
    "signal": lambda: signal.signal(signal.SIGVTALRM, _handler),
    "timer": lambda: signal.setitimer(signal.ITIMER_VIRTUAL, 1000.0),
    "stdout": lambda: setattr(sys, "stdout", io.StringIO()),
    "chdir": lambda: os.chdir(tempfile.gettempdir()),
    "warnings": lambda: warnings.filterwarnings("error"),
    "sys-modules": lambda: sys.modules.__setitem__("canasta_sim.errors", builtins),
    "builtins": lambda: setattr(builtins, "sorted", _sorted),
    "builtins-added": lambda: setattr(builtins, "sneaky", print),
}
if hasattr(sys, "monitoring"):  # PEP 669, new in Python 3.12: on 3.11 there is no such change to make
    CHANGES["monitoring"] = lambda: _use_monitoring_tool(4, freed=False)
    CHANGES["monitoring-freed"] = lambda: _use_monitoring_tool(5, freed=True)

HARMLESS = {
    # What a strategy, or a library it imports during a game, may change without touching another seat's calls.
    "recursion-limit-raised": lambda: sys.setrecursionlimit(sys.getrecursionlimit() + 1000),
    "warnings-ignored": lambda: warnings.filterwarnings("ignore", message="a library's own warning"),
}


class ChangesTheInterpreter(Greedy):
    """Greedy that makes the change named by its ``change`` parameter at its first discard."""

    name = "changes-the-interpreter"
    parameters = {"change": "recursion-limit"}

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        self.changed = False

    def choose_discard(self, view):
        move = super().choose_discard(view)
        if not self.changed:
            self.changed = True
            (CHANGES.get(self.change) or HARMLESS[self.change])()
        return move
