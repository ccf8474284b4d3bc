"""The error hierarchy of canasta-sim.

Every error the library raises on purpose derives from :class:`CanastaError`,
and those caused by a bad value also derive from :class:`ValueError`, so
callers can catch either.

It also says how a user installs an optional extra (``dask``, ``rl``, ``openspiel``) whose package is missing
(:func:`install_hint`).  canasta-sim is installed from a checkout or from a wheel built from one, not from a
package index, so asking pip for an extra by the project's name (``canasta-sim[rl]``) finds nothing to install:
the hint names the packages themselves, which install anywhere, and the checkout's form.
"""

from __future__ import annotations

import errno
import importlib.metadata
import inspect
import re
import sys

__all__ = [
    "CanastaError",
    "CardParseError",
    "IllegalMoveError",
    "MachineRefusal",
    "MoveParseError",
    "FAILURE_REASONS",
    "RulesError",
    "SeatFailure",
    "StrategyError",
    "StrategyLoadError",
    "UserInterrupt",
    "error_text",
    "exception_text",
    "extra_packages",
    "found_in_chain",
    "install_hint",
    "machine_refused",
    "raised_text",
    "shown_value",
    "type_name",
]


class CanastaError(Exception):
    """Root of every error canasta-sim raises on purpose."""


class CardParseError(CanastaError, ValueError):
    """A text did not name a card or a kind."""


class MoveParseError(CanastaError, ValueError):
    """A text did not describe a move in the notation of :mod:`canasta_sim.core.moves`."""


class RulesError(CanastaError, ValueError):
    """A rule-set key is unknown or its value is not accepted."""


class IllegalMoveError(CanastaError, ValueError):
    """A move breaks a rule.

    The message names the player, the move, the phase and the rule broken,
    e.g. ``seat 0 (A), acquire: take 7 JK: R8.2b: the pile is frozen; ...``.

    :ivar rule: the ID of the rule broken, as docs/rules.md numbers them, e.g. ``'R8.2b'``.
    :ivar seat: the seat that tried the move, or ``None``.
    :ivar move: the move tried, or ``None``.
    :ivar phase: the phase of the turn when it was tried.
    """

    def __init__(self, rule: str, reason: str, *, seat=None, move=None, phase: str = "") -> None:
        super().__init__(rule, reason)
        self.rule = rule
        self.reason = reason
        self.seat = seat
        self.move = move
        self.phase = phase

    def __str__(self) -> str:
        # Built on demand: legality probes (can_x) raise and discard thousands of these a game.
        where = []
        if self.seat is not None:
            where.append(f"seat {self.seat} ({'AB'[self.seat % 2]})")
        if self.phase:
            where.append(self.phase)
        prefix = ", ".join(where)
        if self.move is not None:
            prefix += f": {self.move}"
        return f"{prefix}: {self.rule}: {self.reason}" if prefix else f"{self.rule}: {self.reason}"


class StrategyLoadError(CanastaError, ValueError):
    """A strategy spec could not be turned into a strategy class or instance."""


class MachineRefusal(CanastaError):
    """The machine refused canasta-sim a process, a thread, a pipe or memory for a bot (a low ``ulimit -u`` or
    ``ulimit -n``, a container's pids limit): its limit, named in the message, and no strategy's failure.

    A bot process's proxy raises it where the machine refuses the process; the engine charges it to the seat as
    any exception, and a command that finds it behind a bot seat's failure stops instead, recording no forfeit.

    :ivar of_processes: whether the limit refused was the one on the user's processes and threads (``ulimit -u``, a
        pids limit), which a bot holding too many of them can have reached.
    """

    def __init__(self, message: str, *, of_processes: bool = False) -> None:
        super().__init__(message)
        self.of_processes = of_processes


_LIMITS = {
    errno.EAGAIN: "the limit on this user's processes and threads: ulimit -u, or the container's pids limit",
    errno.EMFILE: "the limit on open files: ulimit -n",
    errno.ENFILE: "the machine's limit on open files",
    errno.ENOMEM: "not enough memory",
}
"""The limit behind each refusal, as the user can look it up."""


def _refused_limit(error: BaseException) -> int | None:
    """The key in :data:`_LIMITS` of the limit ``error`` is the machine's refusal for, or ``None``: an ``OSError`` of
    a limit, or threading's ``can't start new thread``, since threads count against ``ulimit -u`` as processes do."""
    if isinstance(error, OSError):
        return error.errno if error.errno in _LIMITS else None
    return errno.EAGAIN if isinstance(error, RuntimeError) and "start new thread" in str(error) else None


def refuses_processes(error: BaseException) -> bool:
    """Whether ``error`` is the machine refusing a process or a thread for the limit on them (``ulimit -u``)."""
    return _refused_limit(error) == errno.EAGAIN


def found_in_chain(error: BaseException | None, kind: type[BaseException] | tuple[type[BaseException], ...]):
    """The first exception of ``kind`` among ``error`` and those it was raised from or while handling (its
    ``__cause__``, else its ``__context__``, and theirs), or ``None``: what a library's own exception wraps (Dask's
    "Nanny failed to start", a strategy's failure raised while printing)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kind):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def machine_refused(what: str, error: BaseException) -> str | None:
    """``a worker process cannot be started: Resource temporarily unavailable (the limit on ...)``: the line saying
    the machine refused ``what``, when ``error`` is such a refusal (:func:`_refused_limit`); ``None`` for any other
    error."""
    limit = _refused_limit(error)
    if limit is None:
        return None
    return f"{what} cannot be started: {getattr(error, 'strerror', None) or error} ({_LIMITS[limit]})"


MESSAGE_LIMIT = 2000
"""Characters of a strategy's own text (its exception's message, what it returned, a bot's error) a
:class:`StrategyError`'s one line keeps."""

FAILURE_REASONS = ("illegal", "malformed", "exception", "timeout", "crash", "tampering")
"""Why a seat failed, as ``StrategyError.reason`` and the ``forfeit_reason`` column record it:
an illegal move, a malformed answer, an exception, a decision past its time limit, a strategy process
or worker that died, and a change to the game made from strategy code."""


class SeatFailure(CanastaError):
    """A failure raised on a seat's behalf by code that stands between the engine and a strategy.

    The proxy that runs a strategy in its own process raises it when the process dies (``crash``),
    overruns its deadline (``timeout``) or answers outside the protocol (``malformed``); the engine
    charges it to the seat it asked, with this reason.

    :ivar reason: one of :data:`FAILURE_REASONS`.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        if reason not in FAILURE_REASONS:
            raise ValueError(f"unknown failure reason {reason!r}; expected one of {', '.join(FAILURE_REASONS)}")
        super().__init__(message)
        self.reason = reason


class StrategyError(CanastaError):
    """A strategy failed during a game: it raised, returned something malformed or illegal, overran its time,
    died with its worker, or changed the game.

    :ivar spec: the strategy's spec.
    :ivar seat: the seat it played.
    :ivar game_seed: the seed of the game.
    :ivar decision: the decision it was asked for.
    :ivar returned: the value it returned (``None`` if it returned nothing); the message shows it when it is not
        ``None`` or when the message begins with "returned" (what it returned was wrong).
    :ivar reason: why the seat failed, one of :data:`FAILURE_REASONS` (the ``forfeit_reason`` column).
    :ivar traceback: the strategy's own frames when it raised, as text (``""`` otherwise); the
        one-line message never includes it, the run's log and ``check-strategy`` show it.
    :ivar finished_hands: the hands finished before the failure.
    :param shown: how the message writes ``returned`` (by default its ``repr``): the engine writes a move in the
        notation of :mod:`canasta_sim.core.moves`, as players read and bots write it.
    :param tail: text ending the line after what was returned: a bot process's last stderr lines (``"; its last
        stderr lines: ..."``), so that an answer the engine refuses shows what the bot logged before it, as a failure
        the arbiter finds does.
    """

    def __init__(
        self, message: str | StrategyError, *, spec: str | None = None, seat: int | None = None,
        game_seed: int | None = None, decision: str | None = None, returned=None, reason: str = "exception",
        traceback: str = "", shown: str | None = None, tail: str = "",
    ) -> None:
        if isinstance(message, StrategyError):
            # A copy, as ``type(error)(error)`` makes one: Gymnasium's AsyncVectorEnv raises a worker's error so in the
            # main process, where a failing partner's came out as a TypeError about the missing fields.
            self.__dict__.update(message.__dict__)
            super().__init__(*message.args)
            return
        if spec is None or seat is None or decision is None:
            raise TypeError("StrategyError() needs spec, seat and decision (or another StrategyError to copy)")
        if reason not in FAILURE_REASONS:
            raise ValueError(f"unknown failure reason {reason!r}; expected one of {', '.join(FAILURE_REASONS)}")
        self.spec = spec
        self.seat = seat
        self.game_seed = game_seed
        self.decision = decision
        self.returned = returned
        self.reason = reason
        self.traceback = traceback
        self.message = message
        self.tail = tail
        self.finished_hands: tuple = ()
        """The :class:`~canasta_sim.core.scoring.HandResult` of each hand finished before the failure (set by the
        engine)."""
        self.first_dealer: int | None = None
        """The game's first dealer, when the engine knows it."""
        if len(message) > MESSAGE_LIMIT:
            # A strategy's own text (its exception's, a bot's error message) may be megabytes: the line stays a line.
            message = f"{message[:MESSAGE_LIMIT]}... ({len(message) - MESSAGE_LIMIT:,} more characters)"
            self.message = message
        text = f"strategy {spec!r} at seat {seat} (game seed {game_seed}), decision {decision}: {message}"
        self._shown = None
        if returned is not None or message.startswith("returned"):
            # A message about the value returned shows it, None included; a strategy that raised, a bot process
            # that broke the protocol or a constructor that failed returned nothing to show.
            self._shown = shown = shown_value(returned) if shown is None else shown
            text += f"; returned {shown if len(shown) <= 200 else shown[:197] + '...'}"
        super().__init__(" ".join((text + tail).split()))

    def __reduce__(self):
        # Workers send failures to the runner: rebuild with every field (the returned value as its text,
        # since a strategy's own object may not unpickle in the parent).
        shown = None if self.returned is None else _Shown(self._shown)
        fields = (self.message, self.spec, self.seat, self.game_seed, self.decision, shown, self.reason,
                  self.traceback, self.finished_hands, self.first_dealer, self.tail)
        return (_rebuild_strategy_error, fields)


class _Shown:
    """A returned value that crossed a process boundary, kept as its text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _rebuild_strategy_error(message, spec, seat, game_seed, decision, returned, reason, traceback, hands, dealer,
                            tail=""):
    error = StrategyError(message, spec=spec, seat=seat, game_seed=game_seed, decision=decision, returned=returned,
                          reason=reason, traceback=traceback, tail=tail)
    error.finished_hands = hands
    error.first_dealer = dealer
    return error


class UserInterrupt(BaseException):
    """The user's own Ctrl-C or SIGTERM, raised by canasta-sim's signal handlers.

    It is not a :class:`KeyboardInterrupt`, so that the engine can tell it from a ``KeyboardInterrupt``
    a strategy raises (which is that seat's failure) and let it through.
    """


def shown_value(value) -> str:
    """``repr(value)`` as an error message shows a value a strategy gave: at most :data:`MESSAGE_LIMIT` characters,
    and when its own ``repr`` fails (a strategy's object may raise in it, e.g. ``Discard('K')``), its type and
    fields, or its type alone.  Whatever the object's own code raises (its ``repr``, a field's property, its class's
    metaclass), this returns text: the user's Ctrl-C alone passes."""
    text = _strategy_text(repr, value)[0]
    if text is None:
        text = _strategy_text(_fields_shown, value)[0] or type_name(value)
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "..."


def _fields_shown(value) -> str:
    """``Discard(card=4)``: ``value``'s type and the fields its class names for matching, each by its ``repr`` (``?``
    for one that fails); raises what the class's own code raises."""
    fields = getattr(type(value), "__match_args__", ())
    if not isinstance(fields, tuple) or not all(type(name) is str for name in fields):
        fields = ()
    shown = ", ".join(f"{name}={_strategy_text(_field_repr, (value, name))[0] or '?'}" for name in fields)
    return f"{type_name(value)}({shown})"


def _field_repr(pair: tuple) -> str:
    value, name = pair
    return repr(getattr(value, name))


_QUALNAME = inspect.getattr_static(type, "__qualname__")
_MODULE = inspect.getattr_static(type, "__module__")
# type's own fields, found without running anything: read through them, a class's name and module come from the class
# itself, where reading them as attributes would run its metaclass's __getattribute__ or properties.


def type_name(value, *, module: bool = False) -> str:
    """The qualified name of ``value``'s type (with ``module=True``, its module's first name before it, unless that is
    ``builtins``), read from the type itself: a class's metaclass may define ``__getattribute__``, or ``__module__`` as
    a property, which is strategy code this never runs."""
    kind = type(value)
    name = _QUALNAME.__get__(kind)
    if not module:
        return name
    where = _MODULE.__get__(kind)
    if type(where) is not str:  # a class body may set __module__ to anything
        return name
    where = where.split(".")[0]  # numpy's types by the name users write, not their private module's
    return name if where == "builtins" else f"{where}.{name}"


def exception_text(error: BaseException) -> str:
    """``str(error)`` of an exception strategy code raised, at most about :data:`MESSAGE_LIMIT` characters; what the
    strategy's own ``__str__`` does (raise, return no text) is said, never raised."""
    text, failure = _strategy_text(str, error)
    if text is None:
        return f"(its message could not be written: its __str__ raised {type(failure).__name__})"
    return text[:MESSAGE_LIMIT + 100]


def raised_text(error: BaseException) -> str:
    """``raised KeyError: 'x'``: a strategy's exception as every failure message names it, on one line."""
    return f"raised {error_text(error)}"


def error_text(error: BaseException) -> str:
    """``KeyError: 'x'``: a strategy's exception by its type and message, on one line, running none of its class's
    code but its ``__str__`` (:func:`exception_text`), and never raising; the type alone when the message is empty,
    and a ``MemoryError`` without one said as what it means."""
    if _is_debugger_quit(error):
        return f"{type_name(error)} ({DEBUGGER_HERE})"
    message = " ".join(exception_text(error).split())
    if message:
        return f"{type_name(error)}: {message}"
    if issubclass(type(error), MemoryError):  # its type, never its __class__: strategy code
        # Python raises it with no message when an allocation fails: the line would name no cause at all.
        return f"{type_name(error)} (it ran out of memory: its process's address space, under --memory-limit, or the " \
               "machine's)"
    return type_name(error)


DEBUGGER_HERE = ("a debugger, breakpoint() or pdb, quit in the strategy: where a game is played in a process of its "
                 "own, as run, compare, check-strategy and isolated: play it, it has no terminal and quits at once; "
                 "replay --debug and watch --debug play a game where it stops (canasta-sim docs strategies, When a "
                 "strategy fails)")
"""What a strategy's debugger quitting (``bdb.BdbQuit``) means: a run's workers, ``check-strategy``'s and ``watch``'s
game processes and an ``isolated:`` strategy's process read no terminal, so ``pdb`` meets the end of its input at once
(or, played in this process, the user told it to quit)."""


def _is_debugger_quit(error: BaseException) -> bool:
    # bdb is loaded whenever pdb has run; where it is not, no debugger raised this.
    bdb = sys.modules.get("bdb")
    return bdb is not None and issubclass(type(error), bdb.BdbQuit)


def _strategy_text(convert, value) -> tuple[str | None, BaseException | None]:
    """``(convert(value), None)`` for ``str`` or ``repr`` of what strategy code made, which runs that code's own
    method: ``(None, what it raised)`` when it raises anything (the user's Ctrl-C passes), ``(None, None)`` when it
    gives no text."""
    try:
        text = convert(value)
    except UserInterrupt:
        raise
    except BaseException as failure:  # noqa: BLE001 - the strategy's method failing is shown, never raised
        return None, failure
    return (text, None) if type(text) is str else (None, None)


_EXTRA_MARKER = re.compile(r"""^\s*(?P<requirement>[^;]+?)\s*;\s*extra\s*==\s*["'](?P<extra>[\w-]+)["']\s*$""")


def extra_packages(extra: str) -> list[str]:
    """The requirements the installed canasta-sim lists for ``extra`` (``['pettingzoo>=1.24', 'gymnasium>=1.0']``);
    empty when its metadata is not installed (the source run as it lies, never installed)."""
    try:
        requirements = importlib.metadata.requires("canasta-sim") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    packages = []
    for requirement in requirements:
        match = _EXTRA_MARKER.match(requirement)
        if match is not None and match["extra"] == extra:
            packages.append(match["requirement"])
    return packages


def install_hint(extra: str) -> str:
    """How to install ``extra``, as a message ends: ``install the rl extra: pip install 'pettingzoo>=1.24'
    'gymnasium>=1.0' (in a checkout of canasta-sim: pip install '.[rl]')``."""
    checkout = f"pip install '.[{extra}]'"
    packages = extra_packages(extra)
    if not packages:
        return f"install the {extra} extra (in a checkout of canasta-sim: {checkout})"
    listed = " ".join(f"'{package}'" for package in packages)
    return f"install the {extra} extra: pip install {listed} (in a checkout of canasta-sim: {checkout})"
