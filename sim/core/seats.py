"""The seats of a game: each seat's strategy, and the arbiter's watch over every call into strategy code.

:class:`Seats` is what :func:`~canasta_sim.core.engine.play_hand` asks for a decision and applies the answer
through.  Every call into strategy code goes through it, so whatever the code raises, returns, or changes in the
game, and however long it runs, is charged to the seat that was asked, with a reason (docs/fairness.md): a
strategy's failure never escapes as anything but its seat's :class:`~canasta_sim.errors.StrategyError`.  It also
feeds the public moves to the strategies that listen (``on_event``) or follow them (``event_follower``).
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from canasta_sim.arbiter import (
    CALL_CODES,
    MONITOR_CALL,
    MONITOR_START,
    ArbiterSignal,
    DecisionClock,
    DecisionTimeout,
    decode_call,
    is_trusted,
    strategy_traceback,
)
from canasta_sim.core.fingerprint import GameFingerprint
from canasta_sim.core.kernels import CardMemory
from canasta_sim.core.moves import DRAW, Draw, Meld, TakePile, move_text, plain_record
from canasta_sim.core.state import HandState
from canasta_sim.core.strategy import PublicEvent, Strategy
from canasta_sim.errors import (
    IllegalMoveError,
    SeatFailure,
    StrategyError,
    error_text,
    raised_text,
    type_name,
)

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

if TYPE_CHECKING:
    from canasta_sim.core.engine import GameObserver

__all__ = [
    "DECISION_METHODS", "ObservedSeats", "Seats", "StrictSeats", "UnattributedChange", "names_followers", "not_a_bool",
]

_PASSED_ON = (*ArbiterSignal, DecisionTimeout)
"""What reading a move lets through, not as a malformed move: the user's interruption, the clock's timeout."""

DECISION_METHODS = ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard")
"""A strategy's decision methods, in the order :attr:`Seats.decisions` binds them."""


def not_a_bool(value: object) -> str:
    """What is wrong with ``value`` returned for an ask or an answer, which take ``True`` or ``False``: its type is
    named, since a numpy bool prints as ``True`` under numpy 1 and its value alone would not say why it is refused."""
    if value is None:
        return "returned None, not True or False"
    name = type_name(value, module=True)  # read from the type: a metaclass's properties are strategy code
    return f"returned {'an' if name[0] in 'aeiou' else 'a'} {name}, not True or False"


_SIDE_BITS = (1, 2, 1, 2)
# The monitor codes of the calls made here and the monitor's cells (sim/arbiter/monitor.py): C integers where
# compiled (seats.pxd).
_EVENT_CALL = CALL_CODES["event"]
_HAND_START_CALL = CALL_CODES["hand start"]
_CALL_CELL = MONITOR_CALL
_START_CELL = MONITOR_START

_event_follower = operator.methodcaller("event_follower")  # asked as a call into strategy code (Seats.ask)
_DRAW_EVENTS = tuple(PublicEvent(seat, DRAW, 0) for seat in range(4))

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (seats, red 3 counts), a Python int otherwise."""


class Seats:
    """The four seats' strategies, their names for errors, the game's seed, and the arbiter's watch over them.

    Every call into strategy code goes through :meth:`ask` (or :meth:`apply`'s event loop): whatever the
    call raises (``KeyboardInterrupt``, ``SystemExit`` and a ``StrategyError`` of the strategy's own
    making included) is the failure of the seat asked; only the user's :class:`UserInterrupt` passes.
    The game's :class:`GameFingerprint` is compared after the calls of one side before the other side
    is called or the engine changes the game, so a change made from strategy code is charged to the
    side that made it (reason ``tampering``).
    """

    __slots__ = ("players", "names", "seed", "time_limit", "listeners", "clock", "timed", "monitor", "fingerprint",
                 "called", "last_call", "side_bits", "guarded", "cells", "handlers", "decisions", "following",
                 "followers", "hearing", "hearing_handlers")

    def __init__(self, players: Sequence[Strategy], names: Sequence[str], seed: int, time_limit: float | None,
                 monitor=None) -> None:
        self.players = players
        self.names = names
        self.seed = seed
        self.time_limit = time_limit
        self.clock = DecisionClock(time_limit) if time_limit is not None else None
        # A proxy keeping its own clock (a bot process's) is not timed here: a bot's decision is the time its process
        # takes over the request (sim/plugins/channel.py), where the engine would count the other games played
        # meanwhile by a worker playing games side by side.  Only canasta-sim's own classes are believed: a strategy
        # declaring it would play untimed.
        self.timed = [not (is_trusted(player) and getattr(player, "keeps_own_clock", False)) for player in players]
        self.monitor = monitor
        # The monitor's floats as a typed view when compiled (engine.pxd): a C store per call into strategy code,
        # where a store through the memoryview object cost about a sixth of a worker's game.
        self.cells = monitor
        self.fingerprint: GameFingerprint | None = None
        self.called = 0
        """The sides called since the fingerprint was last compared: bit 1 side A, bit 2 side B."""
        self.side_bits = tuple(0 if is_trusted(player) else _SIDE_BITS[seat] for seat, player in enumerate(players))
        """Each seat's bit in :attr:`called`; 0 for a built-in strategy, whose calls are not checked."""
        self.guarded = any(self.side_bits)
        self.last_call = 0
        """The last call into strategy code, as ``CALL_CODES[decision] + seat``."""
        # (seat, strategy) of the strategies that override on_event: the others are not called at all.
        self.listeners = [
            (seat, player) for seat, player in enumerate(players) if type(player).on_event is not Strategy.on_event
        ]
        # Each listener's on_event bound once where the seat's calls are not checked (a built-in strategy, whose
        # class never rebinds it): a call by name looks the method up and binds it again every time.  None for a
        # checked seat, whose on_event is looked up at each call as before.
        self.handlers = tuple(None if self.side_bits[seat] else player.on_event for seat, player in self.listeners)
        # (seat, strategy) of those that may name an event follower (asked once a hand); this hand's followers,
        # fed in C; and the listeners (with their handlers) whose on_event is called this hand: the others.
        self.following = [(seat, player) for seat, player in enumerate(players) if names_followers(type(player))]
        self.followers = []
        self.hearing = self.listeners
        self.hearing_handlers = self.handlers
        # Likewise each seat's decision methods, bound once where its calls are not checked (play_hand asks a seat
        # for a decision about five times a turn), in _DECISION order; None for a checked seat.
        self.decisions = tuple(
            None if self.side_bits[seat] else tuple(getattr(player, name) for name in DECISION_METHODS)
            for seat, player in enumerate(players)
        )

    def watch(self, state: HandState) -> None:
        """Start watching a newly dealt hand (when any seat's calls are checked)."""
        if self.guarded:
            self.fingerprint = GameFingerprint(state)
        self.called = 0

    @cython.locals(followed=Count)
    def gather_followers(self) -> None:
        """Ask the seats that may name an event follower for this hand's, after their ``on_hand_start``: the
        engine feeds a follower every move itself, and calls that seat's ``on_event`` no more this hand."""
        followers = []
        followed = 0  # a bit per seat
        for seat, player in self.following:
            follower = self.ask(seat, _HAND_START_CALL, _event_follower, player)
            if follower is None:
                continue
            if type(follower) is not CardMemory:
                raise self.error(seat, "hand start", "returned an event follower that is not a CardMemory or None",
                                 follower, reason="malformed")
            followers.append(follower)
            followed |= 1 << seat
        self.followers = followers
        hearing = [number for number, (seat, _player) in enumerate(self.listeners) if not followed >> seat & 1]
        self.hearing = [self.listeners[number] for number in hearing]
        self.hearing_handlers = tuple([self.handlers[number] for number in hearing])

    def settle(self) -> None:
        """Compare the game with its fingerprint; a change is the failure of the side called since.

        :raises UnattributedChange: when both sides were called since the last comparison.
        """
        called = self.called
        self.called = 0
        fingerprint = self.fingerprint
        if called and fingerprint is not None and not fingerprint.holds():
            what = fingerprint.changed()
            if not what:  # equal values in other objects: copy them, so that the next comparison is the quick one
                fingerprint.take()
            else:
                if called == 3:
                    raise UnattributedChange(what)
                seat, decision = decode_call(self.last_call)
                raise self.error(
                    seat, decision,
                    f"changed the game: {what} differs from the engine's copy (changing the game's objects "
                    f"reached through the view is tampering)", None, reason="tampering",
                )

    @cython.locals(bit=Count)
    def ask(self, seat: int, call: int, method: Callable, view):
        """Return ``method(view)``, a call into the strategy code of ``seat`` for the decision whose monitor code
        is ``call`` (:data:`~canasta_sim.arbiter.CALL_CODES`, without the seat).

        :raises StrategyError: whatever the call raises, or its overrunning the time limit, as the seat's failure.
        """
        clock = self.clock
        if self.monitor is not None:  # published for the supervisor, which charges a crash or a hang to this call
            self.cells[_CALL_CELL] = call + seat
            if clock is not None:  # the supervisor reads the start only to find a hang past the time limit
                self.cells[_START_CELL] = time.monotonic()
        if clock is None or not self.timed[seat]:
            try:
                value = method(view)
            except ArbiterSignal:
                raise
            except BaseException as error:  # strategy code's failure of any kind is the seat's, never swallowed
                raise self.failure(seat, decode_call(call)[1], error) from error
        else:
            start = time.perf_counter()
            try:
                clock.start()
                try:
                    value = method(view)
                finally:
                    clock.stop()
            except ArbiterSignal:
                raise
            except DecisionTimeout:
                raise self.error(seat, decode_call(call)[1], f"was stopped at the time limit of {self.time_limit} s",
                                 None, reason="timeout") from None
            except BaseException as error:  # strategy code's failure of any kind is the seat's, never swallowed
                raise self.failure(seat, decode_call(call)[1], error) from error
            elapsed = time.perf_counter() - start
            if elapsed > self.time_limit:
                raise self.error(seat, decode_call(call)[1],
                                 f"took {elapsed:.3f} s, past the time limit of {self.time_limit} s", value,
                                 reason="timeout")
        bit = self.side_bits[seat]
        if bit:  # a checked seat: remember the call, which is charged if the game changed since
            self.called |= bit
            self.last_call = call + seat
        return value

    def failure(self, seat: int, decision: str, error: BaseException) -> StrategyError:
        """The seat's :class:`StrategyError` for an exception its code raised, with the strategy's traceback.

        A :class:`SeatFailure` (raised by a proxy standing between the engine and a strategy) keeps its
        reason; a ``StrategyError`` the strategy made itself, whatever seat it names, is this seat's.
        """
        if isinstance(error, SeatFailure):
            return self.error(seat, decision, str(error), None, reason=error.reason)
        return self.error(seat, decision, raised_text(error), None, traceback=strategy_traceback(error))

    def error(self, seat: int, decision: str, message: str, value, *, reason: str | None = None,
              traceback: str = "") -> StrategyError:
        """The seat's :class:`StrategyError` at ``decision``: ``message`` says what its code did and ``value`` is
        what it returned; the reason defaults to ``malformed`` for a message about a returned value, else
        ``exception``."""
        judged = message.startswith("returned")
        if reason is None:
            reason = "malformed" if judged else "exception"
        # A bot process's answer the engine refuses ends with what the bot last logged, as the failures the arbiter
        # finds itself do (a crash, a line that is no protocol): the player knows its process, the engine does not.
        # Only a trusted player (the process proxy) is asked: an in-process strategy's method would run unwatched here.
        player = self.players[seat]
        stderr_tail = getattr(player, "stderr_tail", None) if judged and is_trusted(player) else None
        return StrategyError(
            message, spec=self.names[seat], seat=seat, game_seed=self.seed, decision=decision, returned=value,
            reason=reason, traceback=traceback, shown=move_text(value),
            tail=stderr_tail() if stderr_tail is not None else "",
        )

    def _read_move(self, state: HandState, seat: int, decision: str, move):
        """Apply the seat's ``move`` to the hand; return it as the engine keeps it (a meld or a take rebuilt as the
        engine's own record, :func:`~canasta_sim.core.moves.plain_record`).  A move the rules refuse is the seat's
        ``illegal``; a record the checks cannot judge (reading it ran the strategy's own code: a MeldGroup subclass
        whose cards are no sequence, a list subclass of groups whose iteration raises, even SystemExit) its
        ``malformed``."""
        try:
            state.apply(move)
            if type(move) is Meld or type(move) is TakePile:  # the records that hold groups a strategy may build
                move = plain_record(move)
        except IllegalMoveError as error:
            raise self.error(seat, decision, f"returned an illegal move: {error}", move, reason="illegal") from error
        except _PASSED_ON:
            raise
        except BaseException as error:
            raise self.error(seat, decision, f"returned a malformed move ({error_text(error)})", move,
                             reason="malformed") from error
        return move

    def _apply_in_time(self, state: HandState, seat: int, decision: str, move):
        """:meth:`_read_move` under the seat's clock, counted again: reading a record may run the strategy's own code
        (a field's property, its groups' iteration), and that code may loop.  The clock stops the reading, and the
        naming of a refusal (which reads the record again), at the decision's limit."""
        clock = self.clock
        clock.start()
        try:
            try:
                move = self._read_move(state, seat, decision, move)
            finally:
                clock.stop()
        except DecisionTimeout:
            raise self.error(seat, decision, f"was stopped at the time limit of {self.time_limit} s while the engine "
                             "read the move it returned", None, reason="timeout") from None
        return move

    @cython.locals(index=Count, before=Count, laid=Count, number=Count, listener_seat=Count, bit=Count,
                   handlers=tuple, listeners=list, followers=list, follower=CardMemory, listener=tuple,
                   side_bits=tuple)
    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        """Apply the seat's ``move`` to the hand, then feed it to the followers and the listeners.

        The calls since the last move must have left the game unchanged (else ``tampering``, charged to the side
        called); a move the rules refuse is the seat's failure (``illegal``), a record that is no move
        ``malformed``.
        """
        if self.called:
            # The calls since the last change must have left the game as it was (settle, with its quick
            # comparison inlined: this runs before every move).
            if not self.fingerprint.holds():
                self.settle()
            self.called = 0
        index = seat
        before = state.red_threes[index]
        if self.guarded and self.clock is not None and self.side_bits[seat]:
            move = self._apply_in_time(state, seat, decision, move)
        else:  # canasta-sim's own strategy's move (a proxy's: the engine's own record, read from its text), or no clock
            move = self._read_move(state, seat, decision, move)
        if self.guarded:
            self.fingerprint.after_move(seat)
        followers = self.followers
        for number in range(len(followers)):
            follower = followers[number]
            follower.follow(seat, move)
        if self.hearing:
            laid = state.red_threes[index] - before
            # The exact type: state.apply accepted the move, so it is one of the move records themselves.
            if type(move) is Draw:
                # Built-in listeners only (guarded is False) share one immutable event per seat for the
                # commonest move, a draw laying no red 3: a new one per draw is the engine's costliest record.
                event = PublicEvent(seat, DRAW, laid) if laid or self.guarded else _DRAW_EVENTS[index]
            else:
                event = PublicEvent(seat, move, laid)
            if self.clock is not None or type(self) is not Seats:
                for listener_seat, player in self.hearing:
                    self.ask(listener_seat, _EVENT_CALL, player.on_event, event)
                return
            side_bits = self.side_bits
            monitored = self.monitor is not None
            listeners = self.hearing
            handlers = self.hearing_handlers
            for number in range(len(handlers)):
                # Seats.ask, inlined for the most frequent call into strategy code.  The listener's seat is read
                # only where it is needed: a built-in listener's call, unmonitored, needs none.
                handler = handlers[number]
                listener = listeners[number]  # (seat, strategy), read as a tuple's items compiled
                if monitored:
                    listener_seat = listener[0]
                    self.cells[_CALL_CELL] = _EVENT_CALL + listener_seat
                try:
                    if handler is None:
                        listener[1].on_event(event)
                    else:
                        handler(event)
                except ArbiterSignal:
                    raise
                except BaseException as error:  # strategy code's failure of any kind is the seat's
                    raise self.failure(listener[0], "event", error) from error
                if handler is None:  # a checked seat (a built-in's bit is 0): remember the call
                    listener_seat = listener[0]
                    bit = side_bits[listener_seat]
                    if bit:
                        self.called |= bit
                        self.last_call = _EVENT_CALL + listener_seat


def names_followers(cls: type) -> bool:
    """Whether a strategy class's event follower stands in for its ``on_event``: one class below Strategy defines
    both (a subclass overriding ``on_event`` alone, to hear more, is called per event as before)."""
    for base in cls.__mro__:
        names = vars(base)
        if "on_event" in names or "event_follower" in names:
            return base is not Strategy and "on_event" in names and "event_follower" in names
    return False


class StrictSeats(Seats):
    """Seats that compares the fingerprint after every call into strategy code (slower), so that a change
    is always charged to the call that made it: used to replay a game whose change could not be attributed."""

    __slots__ = ()

    def ask(self, seat: int, call: int, method: Callable, view):
        """:meth:`Seats.ask`, then the game compared with its fingerprint at once."""
        value = Seats.ask(self, seat, call, method, view)
        self.settle()
        return value


class UnattributedChange(Exception):
    """The game changed while both sides' code ran since the last comparison: replay to find whose it was."""


class ObservedSeats(StrictSeats):
    """Seats that also reports every applied move to an observer; a subclass, so that
    unobserved games pay nothing for the feature."""

    __slots__ = ("observer",)

    def __init__(self, players, names, seed, time_limit, observer: GameObserver, monitor=None) -> None:
        # Strict: an observed game is watched by a person, so it is never replayed to find a culprit.
        super().__init__(players, names, seed, time_limit, monitor)
        self.observer = observer

    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        """:meth:`Seats.apply`, then the observer told of the move."""
        StrictSeats.apply(self, state, seat, decision, move)
        self.observer.on_move(state)
