"""The interpreter's settings that one strategy's code could change for every later call in its process.

In-process, strategies share the interpreter with the engine and with each other.  A recursion limit lowered in
one call makes the next strategy's call (or the engine's own code) fail; a trace or profile function installed
in one call runs inside the opponent's calls; a CPU timer armed in one call ends the process later, during
whichever call is running then.  Each would be charged to a seat that did nothing.

:class:`InterpreterState` reads these settings when a game begins.  The engine asks :meth:`~InterpreterState.holds`
after every call into a checked strategy's code (:class:`~canasta_sim.core.seats.Seats`); when the call changed
them, it puts them back (:meth:`~InterpreterState.restore`) before any other code runs under them, and charges
the seat that made the call (reason ``tampering``).  A timer already armed when the game began (a test runner's,
say) is left alone.
"""

from __future__ import annotations

import signal
import sys

__all__ = ["InterpreterState"]

# The timers whose signal ends the process by default (SIGVTALRM, SIGPROF).  ITIMER_REAL is the decision
# clock's own (DecisionClock), disarmed after every timed call; it is checked only where no clock runs.
_CPU_TIMERS = tuple((name, getattr(signal, name)) for name in ("ITIMER_VIRTUAL", "ITIMER_PROF")
                    if hasattr(signal, name))
_REAL_TIMER = (("ITIMER_REAL", signal.ITIMER_REAL),) if hasattr(signal, "ITIMER_REAL") else ()


class InterpreterState:
    """The recursion limit, the trace and profile functions, and the unarmed interval timers, as a game found them.

    :param timed: whether the game runs a decision clock, which owns ``ITIMER_REAL``.
    """

    __slots__ = ("limit", "trace", "profile", "timers")

    def __init__(self, timed: bool = False) -> None:
        self.limit = sys.getrecursionlimit()
        self.trace = sys.gettrace()
        self.profile = sys.getprofile()
        watched = _CPU_TIMERS if timed else _CPU_TIMERS + _REAL_TIMER
        self.timers = tuple((name, which) for name, which in watched if not signal.getitimer(which)[0])
        """The timers not armed when the game began: a call that arms one has changed what later calls run under."""

    def holds(self) -> bool:
        """Whether every setting is as the game found it."""
        if sys.getrecursionlimit() != self.limit or sys.gettrace() is not self.trace:
            return False
        if sys.getprofile() is not self.profile:
            return False
        for _name, which in self.timers:
            if signal.getitimer(which)[0]:
                return False
        return True

    def changed(self, limit: int | None = None, trace=None, profile=None) -> list[str]:
        """What differs from the game's start, in words (``the recursion limit (set to 40, was 1000)``).

        :param limit: the recursion limit the call left, with ``trace`` and ``profile`` the functions it left,
            when they were read (and put back) before this call: all three or none.
        """
        if limit is None:
            limit, trace, profile = sys.getrecursionlimit(), sys.gettrace(), sys.getprofile()
        what = []
        if limit != self.limit:
            what.append(f"the recursion limit (set to {limit}, was {self.limit})")
        if trace is not self.trace:
            what.append("the trace function (sys.settrace)")
        if profile is not self.profile:
            what.append("the profile function (sys.setprofile)")
        what.extend(f"the timer {name} (armed)" for name, which in self.timers if signal.getitimer(which)[0])
        return what

    def restore(self) -> None:
        """Put every setting back as the game found it."""
        sys.setrecursionlimit(self.limit)
        sys.settrace(self.trace)
        sys.setprofile(self.profile)
        for _name, which in self.timers:
            signal.setitimer(which, 0)
