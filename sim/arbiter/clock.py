"""The decision clock and strategies' tracebacks.

:class:`DecisionClock` interrupts a decision at its time limit: a ``SIGALRM`` timer
(:func:`signal.setitimer`) in the main thread, which also stops a strategy sleeping in C, and a
watchdog thread raising :class:`DecisionTimeout` asynchronously in other threads (the Dask backend's
task threads) and on a system without the timer (Windows), which stops pure-Python loops only.  Code
that swallows the alarm or blocks in C is stopped by the runner's supervisor
(:mod:`canasta_sim.runs.supervisor`), which kills its worker.

:func:`strategy_traceback` keeps the frames of a strategy's failure below the engine's call, so the
author finds the line.

Arbiter-owned interruptions derive from :class:`BaseException` but not from :class:`KeyboardInterrupt`,
so the engine can tell them from anything a strategy raises.  :func:`users_interrupt_passes` does the same for the
user's Ctrl-C during a game played from Python, where Python's own handler would raise a ``KeyboardInterrupt``
inside whichever decision it fell in.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
import traceback

from canasta_sim.errors import UserInterrupt

__all__ = [
    "ArbiterSignal", "DecisionClock", "DecisionTimeout", "HAS_ALARM", "MAX_TIME_LIMIT", "STARTUP_ALLOWANCE",
    "TRACEBACK_LIMIT",
    "is_clock_handler",
    "strategy_traceback", "users_interrupt_passes",
]

MAX_TIME_LIMIT = 86_400
"""The longest decision time limit, in seconds (a day): a clock cannot be armed for ever, nor past the system's time."""

STARTUP_ALLOWANCE = 30.0
"""Seconds a seat's strategy may take to be built, whatever the decision time limit: a bot process's start-up and
its handshake (``hello`` to ``ready``), an in-process strategy's constructor.  A JVM or a Python importing a large
library takes seconds to start, more on a loaded machine, and that is no decision's time (chess arbiters give an
engine's start-up its own allowance too).  No option sets it."""

HAS_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")
"""Whether this system has the signal timer (not Windows); without it the main thread's clock is a watchdog too."""

TRACEBACK_LIMIT = 4000
"""Characters of a strategy's traceback kept on its :class:`~canasta_sim.errors.StrategyError`."""


class DecisionTimeout(BaseException):
    """Raised into a decision that has run past its time limit (never by a strategy: by the clock)."""


ArbiterSignal = (UserInterrupt,)
"""Exceptions the engine lets through strategy calls: they are the user's, not the seat's."""


class _UsersCtrlC(UserInterrupt):
    """The user's Ctrl-C inside :func:`users_interrupt_passes`: let through strategy calls as the user's."""


def _on_users_ctrl_c(number, frame) -> None:
    raise _UsersCtrlC()


class _UsersInterruptPasses:
    """:func:`users_interrupt_passes`'s block."""

    __slots__ = ("replaced",)

    def __enter__(self) -> None:
        self.replaced = (signal.getsignal(signal.SIGINT) is signal.default_int_handler
                         and threading.get_ident() == threading.main_thread().ident)
        if self.replaced:
            signal.signal(signal.SIGINT, _on_users_ctrl_c)

    def __exit__(self, kind, error, traceback) -> None:
        if self.replaced:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if isinstance(error, _UsersCtrlC):
                raise KeyboardInterrupt from None  # what the caller's Ctrl-C raises everywhere else


def users_interrupt_passes() -> _UsersInterruptPasses:
    """A ``with`` block in which the user's Ctrl-C (a notebook's Interrupt: a SIGINT to its kernel) ends it with
    ``KeyboardInterrupt``, never as the failure of the strategy whose decision it fell in.

    Only Python's own handler is replaced, in the main thread, the only one that runs signal handlers: the
    command line's handlers, a worker's and any the caller installed stay in place.
    """
    return _UsersInterruptPasses()


def strategy_traceback(error: BaseException) -> str:
    """The traceback of ``error`` from the frame below the engine's call into strategy code, as text.

    The engine's own frame (the call site) is left out: the author needs the strategy's lines.
    """
    frames = error.__traceback__.tb_next if error.__traceback__ is not None else None
    lines = traceback.format_exception(type(error), error, frames)
    text = "".join(lines)
    if len(text) > TRACEBACK_LIMIT:
        # Keep the innermost frames, where the error is: the head of a deep recursion says little.
        text = "... (traceback shortened)\n" + text[-TRACEBACK_LIMIT:]
    return text


class DecisionClock:
    """Interrupts a decision that runs past ``limit`` seconds by raising :class:`DecisionTimeout` in it.

    :meth:`start` before calling strategy code, :meth:`stop` after, in the same thread.
    """

    __slots__ = ("limit", "_main", "_watchdog")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._main = HAS_ALARM and threading.current_thread() is threading.main_thread()
        self._watchdog: _Watchdog | None = None
        if self._main:
            signal.signal(signal.SIGALRM, _on_alarm)
        else:
            self._watchdog = _Watchdog.for_thread()

    def start(self) -> None:
        """Arm the clock for one decision."""
        if self._main:
            signal.setitimer(signal.ITIMER_REAL, self.limit)
        else:
            self._watchdog.arm(time.monotonic() + self.limit)

    def stop(self) -> None:
        """Disarm the clock; a decision that returned in time is not interrupted later."""
        if self._main:
            signal.setitimer(signal.ITIMER_REAL, 0)
        else:
            self._watchdog.arm(0.0)


def _on_alarm(number, frame) -> None:
    raise DecisionTimeout()


def is_clock_handler(handler) -> bool:
    """Whether ``handler`` is the decision clock's own ``SIGALRM`` handler, which a game with a time limit installs."""
    return handler is _on_alarm


class _Watchdog:
    """A daemon thread that raises :class:`DecisionTimeout` in one thread once its deadline has passed."""

    POLL_SECONDS = 0.02
    _by_thread: dict[int, _Watchdog] = {}
    _lock = threading.Lock()

    def __init__(self, thread_id: int) -> None:
        self.thread_id = thread_id
        self.deadline = 0.0
        self.firing = threading.Lock()
        """Held while the deadline is read and the timeout raised, and while the clock is armed or stopped: a stop
        never falls between the two, which left the timeout to arrive after the decision, in the engine's own code."""
        self.thread = threading.Thread(target=self._watch, name=f"decision-clock-{thread_id}", daemon=True)
        self.thread.start()

    @classmethod
    def for_thread(cls) -> _Watchdog:
        ident = threading.get_ident()
        with cls._lock:
            watchdog = cls._by_thread.get(ident)
            if watchdog is None or not watchdog.thread.is_alive():
                watchdog = cls._by_thread[ident] = cls(ident)
            return watchdog

    def arm(self, deadline: float) -> None:
        # A timeout raised while this waits for the lock arrives as the lock is taken: inside the clock's stop, which
        # the engine calls within the decision's guard.
        with self.firing:
            self.deadline = deadline

    def _watch(self) -> None:
        while True:
            time.sleep(self.POLL_SECONDS)
            with self.firing:
                deadline = self.deadline
                if deadline and time.monotonic() > deadline:
                    self.deadline = 0.0
                    # Delivered when the thread next runs Python bytecode: a pure-Python loop stops, a call
                    # blocked in C does not (the supervisor's kill, or the Dask task timeout, covers that).
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread_id),
                                                               ctypes.py_object(DecisionTimeout))
