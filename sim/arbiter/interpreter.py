"""The watch over the interpreter's settings that strategy code can change in-process for every later call.

A strategy runs in the engine's own interpreter, so it can change what every later call runs under: lower the
recursion limit to just above an opponent's depth, install a trace or profile function, switch the garbage
collector off, register a monitoring tool (``sys.monitoring``, from Python 3.12), install a signal handler or arm an
interval timer, replace ``sys.stdout``, change the working directory, turn warnings into errors, or rebind an entry of
``sys.modules`` or ``builtins``.  Comparing these after
every call doubled the time of a strategy's games; :class:`InterpreterWatch` compares them once, when the game
ends (or stops at a failure), puts back what changed, and names it, so the engine charges the game to the strategy
(docs/fairness.md says what is caught and when).
"""

from __future__ import annotations

import builtins
import gc
import operator
import os
import signal
import sys
import threading
import warnings

# signal.getsignal's C function, without the wrapper that turns SIG_DFL and SIG_IGN into enum members: compared
# by identity only, the raw values do, at a quarter of the instructions (read twice a game for each signal).
from _signal import getsignal as _raw_handler

from canasta_sim.arbiter.clock import is_clock_handler

__all__ = ["InterpreterWatch"]

# The signals whose handlers decide what happens to a game: the user's interrupt, the decision clock's alarm, the
# CPU timers' signals (a handler a strategy leaves for a timer it armed runs in a later call), a broken pipe.
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGPIPE")
                 if hasattr(signal, name))
# The CPU timers (the wall-clock one, ITIMER_REAL, is the decision clock's, disarmed after every timed call).
_TIMERS = tuple(getattr(signal, name) for name in ("ITIMER_VIRTUAL", "ITIMER_PROF") if hasattr(signal, name))
# The standard modules the engine and the runner import by name after a game has begun (the rest of sys.modules
# matters only to code that imports again: a strategy importing a module of its own adds an entry, rightly).
_MODULES = ("builtins", "sys", "os", "gc", "signal", "warnings", "random", "time", "threading", "traceback",
            "hashlib", "operator", "itertools", "numbers", "dataclasses", "orjson", "numpy")
_module_names: tuple[int, tuple[str, ...]] = (-1, ())
"""The modules watched in ``sys.modules`` (canasta-sim's and :data:`_MODULES`), with the size of ``sys.modules`` they
were found in: found again only when modules were imported since (a scan of every module name costs more than the
rest of the watch)."""


def _watched_modules() -> tuple[str, ...]:
    global _module_names
    modules = sys.modules
    if _module_names[0] != len(modules):
        names = [name for name in modules if name.startswith("canasta_sim")]
        _module_names = (len(modules), tuple(names + [name for name in _MODULES if name in modules]))
    return _module_names[1]


def _entries(names: tuple[str, ...]) -> tuple:
    """The entries of ``sys.modules`` under ``names`` (``None`` for one deleted), in one C call when none is."""
    try:
        return operator.itemgetter(*names)(sys.modules) if len(names) > 1 else tuple(map(sys.modules.get, names))
    except KeyError:
        return tuple(map(sys.modules.get, names))


# PEP 669's monitoring (Python 3.12 on): a tool's callbacks run in every later call, an opponent's included, as a
# trace function's do, but sys.gettrace() never shows them.
_monitoring = getattr(sys, "monitoring", None)
_TOOLS = range(6) if _monitoring is not None else range(0)  # the six tool ids sys.monitoring has
_EVENTS = tuple(sorted({value for name, value in vars(_monitoring.events).items()
                        if name.isupper() and type(value) is int and value > 0 and value & (value - 1) == 0})
                ) if _monitoring is not None else ()
"""The single events a callback is registered for, one bit each (the names that combine several left out)."""


def _callbacks(tool: int) -> tuple:
    """The callbacks registered for ``tool``, one per event of :data:`_EVENTS`.

    Read even for a tool not in use: a freed tool keeps its callbacks, which still run for the events set on it and
    for the local events set on any code object, which cannot be listed.  sys.monitoring has no getter, so each is
    swapped out and back.
    """
    register = _monitoring.register_callback
    found = []
    for event in _EVENTS:
        callback = register(tool, event, None)
        if callback is not None:
            register(tool, event, callback)
        found.append(callback)
    return tuple(found)


def _monitors() -> tuple:
    """Each monitoring tool's name, its events and its callbacks (an empty tuple before Python 3.12)."""
    return tuple((_monitoring.get_tool(tool), _monitoring.get_events(tool), _callbacks(tool)) for tool in _TOOLS)


def _restore_monitor(tool: int, name: str | None, events: int, callbacks: tuple) -> None:
    if _monitoring.get_tool(tool) is not None:
        _monitoring.free_tool_id(tool)
    _monitoring.use_tool_id(tool, name or "canasta-sim")  # a tool's events are set only while it is in use
    _monitoring.set_events(tool, events)
    for event, callback in zip(_EVENTS, callbacks, strict=True):
        _monitoring.register_callback(tool, event, callback)
    if name is None:
        _monitoring.free_tool_id(tool)


def _values() -> tuple:
    """The settings held as plain values (ints, a float, a bool, a tuple, a str), compared by value."""
    return sys.getrecursionlimit(), sys.getswitchinterval(), gc.isenabled(), gc.get_threshold(), _working_directory()


def _working_directory() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # a strategy removed the directory it changed to: None, which differs from the one it left
        return None


def _objects() -> tuple:
    """The settings held as objects a strategy may have made, compared by identity: an object's ``__eq__`` is its
    code."""
    return sys.gettrace(), sys.getprofile(), sys.stdin, sys.stdout, sys.stderr


_VALUE_NAMES = ("the recursion limit (sys.setrecursionlimit)", "the thread switch interval (sys.setswitchinterval)",
                "the garbage collector switched on or off (gc.disable)",
                "the collector's thresholds (gc.set_threshold)", "the working directory (os.chdir)")
_OBJECT_NAMES = ("a trace function (sys.settrace)", "a profile function (sys.setprofile)", "sys.stdin", "sys.stdout",
                 "sys.stderr")


def _restore_value(index: int, value) -> None:
    if index == 0:
        sys.setrecursionlimit(value)
    elif index == 1:
        sys.setswitchinterval(value)
    elif index == 2:
        (gc.enable if value else gc.disable)()
    elif index == 3:
        gc.set_threshold(*value)
    else:
        os.chdir(value)


def _restore_object(index: int, value) -> None:
    if index == 0:
        sys.settrace(value)
    elif index == 1:
        sys.setprofile(value)
    else:
        setattr(sys, ("stdin", "stdout", "stderr")[index - 2], value)


def _turns_into_errors(filters, before: tuple) -> bool:
    """Whether ``filters`` (``warnings.filters``) hold an entry ``before`` did not whose action makes a warning an
    exception (``error``), or something no filter is; or are no list at all."""
    if type(filters) is not list:
        return True
    known = set(map(id, before))
    for entry in list(filters):
        if id(entry) in known:
            continue
        if type(entry) is not tuple or not entry or type(entry[0]) is not str or entry[0] == "error":
            return True
    return False


def _armed() -> tuple[bool, ...]:
    """Whether each interval timer is armed (its time left moves, so only whether it runs is compared)."""
    return tuple(signal.getitimer(which)[0] > 0 for which in _TIMERS)


class InterpreterWatch:
    """The interpreter's settings as a game began: :meth:`check` at its end names what changed and puts it back.

    Made before the game's strategies are built, so that their constructors are watched too.  It reads a dozen
    values and the identities of a few hundred entries (``builtins``, canasta-sim's and a few standard modules in
    ``sys.modules``) at the start and again at the end: about the instructions of one decision.
    """

    __slots__ = ("_values", "_objects", "_monitors", "_handlers", "_armed", "_filters", "_filter_items",
                 "_module_names", "_modules", "_builtins", "_builtin_values")

    def __init__(self) -> None:
        self._values = _values()
        self._objects = _objects()
        self._monitors = _monitors()
        self._handlers = tuple(map(_raw_handler, _SIGNALS))
        self._armed = _armed()
        self._filters = warnings.filters
        self._filter_items = tuple(warnings.filters)
        self._module_names = _watched_modules()
        self._modules = _entries(self._module_names)
        self._builtins = dict(vars(builtins))
        self._builtin_values = tuple(self._builtins.values())

    def check(self) -> list[str]:
        """What strategy code changed since the watch began, each put back as it was, in words (empty: nothing)."""
        changed = []
        values = _values()
        if values != self._values:
            for index, (now, then) in enumerate(zip(values, self._values, strict=True)):
                # A raised limit harms no other call (a search that needs it keeps it); a lowered one fails them.
                if now != then and not (index == 0 and now > then):
                    changed.append(_VALUE_NAMES[index])
                    try:
                        _restore_value(index, then)
                    except OSError:  # the working directory it left is gone: said, and the game charged
                        changed[-1] += " (its directory could not be entered again)"
        objects = _objects()
        if not all(map(operator.is_, objects, self._objects)):
            for index, (now, then) in enumerate(zip(objects, self._objects, strict=True)):
                if now is not then:
                    changed.append(_OBJECT_NAMES[index])
                    _restore_object(index, then)
        changed.extend(self._check_monitors())
        changed.extend(self._check_signals())
        changed.extend(self._check_tables())
        return changed

    def _check_monitors(self) -> list[str]:
        changed = []
        for tool, now, then in zip(_TOOLS, _monitors(), self._monitors, strict=True):
            # Names and callbacks compared by identity: a str subclass's or a callable's __eq__ is strategy code.
            if now[0] is not then[0] or now[1] != then[1] or not all(map(operator.is_, now[2], then[2])):
                changed.append(f"monitoring tool {tool} (sys.monitoring)")
                _restore_monitor(tool, *then)
        return changed

    def _check_signals(self) -> list[str]:
        changed = []
        handlers = tuple(map(_raw_handler, _SIGNALS))
        if not all(map(operator.is_, handlers, self._handlers)):
            main = threading.current_thread() is threading.main_thread()  # only the main thread sets handlers
            for number, now, then in zip(_SIGNALS, handlers, self._handlers, strict=True):
                # The decision clock installs its own SIGALRM handler when a game has a time limit.
                if now is not then and not (number == getattr(signal, "SIGALRM", None) and is_clock_handler(now)):
                    changed.append(f"the {signal.Signals(number).name} handler (signal.signal)")
                    if main and then is not None:
                        signal.signal(number, then)
        armed = _armed()
        if armed != self._armed:
            for which, now, then in zip(_TIMERS, armed, self._armed, strict=True):
                if now and not then:
                    changed.append("an interval timer (signal.setitimer)")
                    signal.setitimer(which, 0)
        filters = warnings.filters
        if (filters is not self._filters or len(filters) != len(self._filter_items) or not all(
                map(operator.is_, filters, self._filter_items))) and _turns_into_errors(filters, self._filter_items):
            # Only a filter that turns warnings into errors fails other calls: libraries add "ignore" filters as
            # they are imported, which a strategy importing one lazily must not be charged for.
            changed.append("the warnings filters, a warning made an error (warnings.filterwarnings)")
            warnings.filters = self._filters
            self._filters[:] = self._filter_items
            mutated = getattr(warnings, "_filters_mutated", None)  # the filters' cache, stale once they change
            if mutated is not None:
                mutated()
        return changed

    def _check_tables(self) -> list[str]:
        changed = []
        modules = sys.modules
        if not all(map(operator.is_, _entries(self._module_names), self._modules)):
            for name, module in zip(self._module_names, self._modules, strict=True):
                if modules.get(name) is not module:
                    changed.append(f"sys.modules[{name!r}]")
                    modules[name] = module
        space = vars(builtins)
        if len(space) != len(self._builtins) or not all(map(operator.is_, space.values(), self._builtin_values)):
            for name, value in self._builtins.items():
                if space.get(name) is not value:
                    changed.append(f"builtins.{name}")
                    space[name] = value
            for name in [name for name in space if name not in self._builtins]:
                changed.append(f"builtins.{name}")
                del space[name]
        return changed

