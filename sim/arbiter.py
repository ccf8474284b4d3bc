"""The arbiter's in-process tools: the decision clock, the game's fingerprint, and strategies' tracebacks.

The engine (:mod:`canasta_sim.engine`) calls strategy code, which is untrusted: whatever it raises, however
long it runs and whatever it changes is the seat's failure.  This module holds what the engine needs for
that and nothing of the game loop itself:

* :class:`DecisionClock` interrupts a decision at its time limit: a ``SIGALRM`` timer
  (:func:`signal.setitimer`) in the main thread, which also stops a strategy sleeping in C, and a
  watchdog thread raising :class:`DecisionTimeout` asynchronously in other threads (the Dask backend's
  task threads), which stops pure-Python loops only.  Code that swallows the alarm or blocks in C is
  stopped by the runner's supervisor (:mod:`canasta_sim.supervisor`), which kills its worker.
* :class:`GameFingerprint` copies what decides the game (hands, stock, pile, melds, red 3s, whose turn
  it is, the rule set, ...) after every change the engine makes, and tells whether anything differs
  after strategy code ran: a difference is tampering.  Comparing after every single call would cost
  too much, so the engine compares before each change it makes and, when both sides were called since
  the last comparison, replays the game comparing after every call to find who changed it.
* :func:`strategy_traceback` keeps the frames of a strategy's failure below the engine's call, so the
  author finds the line.

Arbiter-owned interruptions derive from :class:`BaseException` but not from :class:`KeyboardInterrupt`,
so the engine can tell them from anything a strategy raises.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
import traceback
from operator import attrgetter

from canasta_sim.errors import UserInterrupt

__all__ = [
    "CodeWatch",
    "defined_in",
    "is_trusted",
    "is_trusted_class",
    "CALL_CODES",
    "MONITOR_CALL",
    "MONITOR_GAME",
    "MONITOR_SIZE",
    "MONITOR_START",
    "ArbiterSignal",
    "DecisionClock",
    "DecisionTimeout",
    "GameFingerprint",
    "TRACEBACK_LIMIT",
    "strategy_traceback",
]

TRACEBACK_LIMIT = 4000
"""Characters of a strategy's traceback kept on its :class:`~canasta_sim.errors.StrategyError`."""


# The monitor: a few floats on memory shared with the supervisor, written before every call into strategy
# code, so that when the process dies or hangs the supervisor knows which game and which seat's call it was.
MONITOR_GAME = 0
"""Index of the game being played (-1 between games); the runner writes it."""
MONITOR_CALL = 1
"""Index of the call: ``CALL_CODES[decision] + seat``."""
MONITOR_START = 2
"""Index of the call's start, in :func:`time.monotonic` seconds (system-wide on Linux)."""
MONITOR_SIZE = 3

DECISIONS = ("acquire", "ask", "answer", "meld", "discard", "event", "hand start", "hand end", "build", "game")
CALL_CODES = {decision: 4 * index for index, decision in enumerate(DECISIONS)}
"""The code of each decision in the monitor; the seat is added to it."""


def decode_call(code: float) -> tuple[int, str]:
    """The ``(seat, decision)`` of a call code written in the monitor."""
    number = int(code)
    return number % 4, DECISIONS[number // 4]


class DecisionTimeout(BaseException):
    """Raised into a decision that has run past its time limit (never by a strategy: by the clock)."""


ArbiterSignal = (UserInterrupt,)
"""Exceptions the engine lets through strategy calls: they are the user's, not the seat's."""


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


OWN_CLOCK_GRACE = 0.5
"""Seconds past the limit before the engine's clock interrupts a strategy proxy that keeps its own clock
(``keeps_own_clock``, the bot-process proxy): its own deadline comes first and reports the bot's stderr.
The decision is still over its limit, and charged as a timeout, either way."""


class DecisionClock:
    """Interrupts a decision that runs past ``limit`` seconds by raising :class:`DecisionTimeout` in it.

    :meth:`start` before calling strategy code, :meth:`stop` after, in the same thread.
    """

    __slots__ = ("limit", "_main", "_watchdog")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._main = threading.current_thread() is threading.main_thread()
        self._watchdog: _Watchdog | None = None
        if self._main:
            signal.signal(signal.SIGALRM, _on_alarm)
        else:
            self._watchdog = _Watchdog.for_thread()

    def start(self, grace: float = 0.0) -> None:
        """Arm the clock for one decision, ``grace`` seconds past the limit for a proxy that keeps its own."""
        if self._main:
            signal.setitimer(signal.ITIMER_REAL, self.limit + grace)
        else:
            self._watchdog.arm(time.monotonic() + self.limit + grace)

    def stop(self) -> None:
        """Disarm the clock; a decision that returned in time is not interrupted later."""
        if self._main:
            signal.setitimer(signal.ITIMER_REAL, 0)
        else:
            self._watchdog.arm(0.0)


def _on_alarm(number, frame) -> None:
    raise DecisionTimeout()


class _Watchdog:
    """A daemon thread that raises :class:`DecisionTimeout` in one thread once its deadline has passed."""

    POLL_SECONDS = 0.02
    _by_thread: dict[int, _Watchdog] = {}
    _lock = threading.Lock()

    def __init__(self, thread_id: int) -> None:
        self.thread_id = thread_id
        self.deadline = 0.0
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
        self.deadline = deadline

    def _watch(self) -> None:
        while True:
            time.sleep(self.POLL_SECONDS)
            deadline = self.deadline
            if deadline and time.monotonic() > deadline:
                self.deadline = 0.0
                # Delivered when the thread next runs Python bytecode: a pure-Python loop stops, a call
                # blocked in C does not (the Dask task timeout covers that).
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread_id),
                                                           ctypes.py_object(DecisionTimeout))


_TRUSTED: frozenset[type] | None = None


def is_trusted(player) -> bool:
    """Whether ``player`` is an instance of one of canasta-sim's own built-in strategies (``random``,
    ``greedy``, ``expert``, exactly those classes, not subclasses).

    Their calls are not fingerprinted: they are the project's code, reviewed and tested to keep to the view
    (tests/test_arbiter.py plays them with every call checked), so a tournament of built-ins pays nothing
    for the guard.  Every other strategy's calls are checked.
    """
    return is_trusted_class(type(player))


def is_trusted_class(cls: type) -> bool:
    """Whether ``cls`` is one of canasta-sim's own built-in strategy classes (see :func:`is_trusted`)."""
    global _TRUSTED
    if _TRUSTED is None:
        from canasta_sim.strategies import BUILTIN  # late: the built-ins import the play layer

        _TRUSTED = frozenset(BUILTIN.values())
    return cls in _TRUSTED


# Whose turn it is and what governs it: compared by value (mostly identity) after strategy code ran.
_CONTROL = attrgetter("seat", "phase", "pile_freezers", "rules", "requirements", "scores_before", "dealer")


class GameFingerprint:
    """A copy of what decides a hand, to tell whether strategy code changed it.

    It covers the cards (the four hands, the stock in order, the discard pile, both sides' melds, the
    red 3s laid and the hand sizes), whose turn and phase it is, the pile's freezing cards, the rule set,
    the scores and the initial-meld requirements: everything that decides who wins.  The statistics
    counters (pile takes, turns, ...) and the views' caches are left out, to keep the check cheap.

    :meth:`take` after every change the engine makes (the melds, the costliest part, are copied again
    only when the engine's own ``meld_changes`` counter moved); :meth:`changed` compares the live state
    with the copy and names the first part that differs, or returns ``""``.
    """

    __slots__ = ("state", "hands", "stock", "pile", "melds", "meld_changes", "control", "red_threes",
                 "hand_sizes", "melded")

    CONTROL = _CONTROL
    """Reads the scalar parts (whose turn, phase, rules, scores, requirements) as one tuple."""

    def __init__(self, state) -> None:
        self.state = state
        self.meld_changes = -1
        self.stock = state.stock.copy()
        self.take()

    def take(self) -> None:
        """Copy the state as the engine left it (the engine's ``_Table.apply`` inlines this; keep them alike)."""
        state = self.state
        self.hands = list(map(list.copy, state.hands))
        # The engine only ever pops the stock, and the copy equalled it before the engine's change.
        del self.stock[len(state.stock):]
        self.pile = state.pile.copy()
        if state.meld_changes != self.meld_changes:
            self.meld_changes = state.meld_changes
            self.melds = [list(map(list.copy, side)) for side in state.melds]
        self.control = _CONTROL(state)
        self.red_threes = state.red_threes.copy()
        self.hand_sizes = state.hand_sizes.copy()
        self.melded = state.side_has_melded.copy()

    def changed(self) -> str:
        """Name what differs from the copy (``""`` when nothing does)."""
        state = self.state
        if (state.hands == self.hands and state.stock == self.stock and state.pile == self.pile
                and state.melds == self.melds and _CONTROL(state) == self.control
                and state.red_threes == self.red_threes and state.hand_sizes == self.hand_sizes
                and state.side_has_melded == self.melded):
            return ""
        for name, what in (("hands", "a hand"), ("stock", "the stock"), ("pile", "the discard pile"),
                           ("melds", "the melds"), ("red_threes", "the red 3s laid"),
                           ("hand_sizes", "the hand sizes"), ("melded", "whether a side has melded")):
            live = getattr(state, "side_has_melded" if name == "melded" else name)
            if live != getattr(self, name):
                return what
        return "whose turn it is, the phase, the rules, the scores or the meld requirements"


# The modules a game runs through: a strategy that rebinds their functions or classes changes other games.
_WATCHED_MODULES = ("cards", "rules", "moves", "melds", "going_out", "melding", "pile", "state", "legal", "scoring",
                    "view", "strategy", "engine", "arbiter", "errors")


class CodeWatch:
    """Notices, after a game, that strategy code rebound a function or class of the engine's modules, or an
    attribute of the run's strategy classes (monkeypatching), and puts the originals back.

    It is checked between games, not between calls (about a thousand identity checks), so it cannot say
    which call did it: :meth:`check` names what changed and, when the new value is a function, the file
    that defined it, from which the runner finds the strategy.  Changes that do not rebind a name (an
    object's state, a list mutated in place) are beyond it: only processes of their own prevent those.

    :param classes: the run's strategy classes; their whole class hierarchy is watched.
    """

    def __init__(self, classes) -> None:
        import sys  # late: only runs of many games build one

        owners: list = [sys.modules[f"canasta_sim.{name}"] for name in _WATCHED_MODULES
                        if f"canasta_sim.{name}" in sys.modules]
        for module in list(owners):
            owners.extend(value for value in vars(module).values()
                          if isinstance(value, type) and value.__module__ == module.__name__)
        self.owners = []
        self._seen: set[int] = set()
        self._watch(owners)
        self.add(classes)

    def add(self, classes) -> None:
        """Watch these strategy classes' hierarchies too, from now on (``tune`` loads its strategies as they come)."""
        self._watch(klass for cls in classes for klass in cls.__mro__ if klass is not object)

    def _watch(self, owners) -> None:
        for owner in owners:
            if id(owner) not in self._seen:
                self._seen.add(id(owner))
                # Functions, classes and other callables only: module-level caches may change legitimately.
                entries = {name: value for name, value in vars(owner).items()
                           if callable(value) or isinstance(value, (staticmethod, classmethod, property))}
                self.owners.append((owner, entries, len(vars(owner))))

    def check(self) -> list[tuple[str, object]]:
        """What was rebound since the watch began, as ``(owner.name, new value)``, each put back as it was."""
        changed = []
        for owner, entries, size in self.owners:
            current = vars(owner)
            if len(current) == size and all(current.get(name) is value for name, value in entries.items()):
                continue
            label = getattr(owner, "__qualname__", getattr(owner, "__name__", "?"))
            for name, value in entries.items():
                if current.get(name) is not value:
                    changed.append((f"{label}.{name}", current.get(name)))
                    _restore(owner, name, value)
            for name in [name for name in current if name not in entries]:
                if callable(current[name]) and not name.startswith("__"):
                    changed.append((f"{label}.{name}", current[name]))
                    _restore(owner, name, None)
        return changed


def _restore(owner, name: str, value) -> None:
    if isinstance(owner, type):
        if value is None:
            delattr(owner, name)
        else:
            setattr(owner, name, value)
    elif value is None:
        del vars(owner)[name]
    else:
        vars(owner)[name] = value


def defined_in(value) -> str | None:
    """The file that defined a function (or a method's function), if it can be told."""
    function = getattr(value, "__func__", value)
    code = getattr(function, "__code__", None)
    return None if code is None else code.co_filename
