"""The game loop: deal hands, ask each seat's strategy for its decisions, score, repeat to the target.

A game is a pure function of (rules, seed, strategies): every random step
draws from generators seeded from the game's seed (:func:`derive_seed`), so
the same inputs give the same game in any process.

>>> from canasta_sim.strategies.greedy import Greedy
>>> result = play_game([Greedy] * 4, seed=7)
>>> result.winner in (0, 1, None), max(result.scores) >= 5000
(True, True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import random
import time
from collections.abc import Callable, Sequence

from canasta_sim.arbiter import (
    CALL_CODES,
    MONITOR_CALL,
    MONITOR_START,
    OWN_CLOCK_GRACE,
    ArbiterSignal,
    DecisionClock,
    DecisionTimeout,
    decode_call,
    is_trusted,
    strategy_traceback,
)
from canasta_sim.core.deal import DeckGenerator
from canasta_sim.core.fingerprint import GameFingerprint
from canasta_sim.core.kernels import CardMemory
from canasta_sim.core.moves import DRAW, Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult, score_hand
from canasta_sim.core.state import ACQUIRE, OVER, HandState, _is_phase
from canasta_sim.core.strategy import PublicEvent, SeatRandom, Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import IllegalMoveError, SeatFailure, StrategyError

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = [
    "GameObserver", "GameResult", "MAX_HANDS_PER_GAME", "dealing", "derive_seed", "first_dealer", "names_followers",
    "play_game", "play_hand",
]

MAX_HANDS_PER_GAME = 400
"""A guard: a game that has not reached the target after this many hands ends as ``hand_cap``."""

_ASK = Ask()
_DECISIONS = ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard")
"""The decision methods play_hand calls, in the order of _Seats.decisions."""
_STOP = Stop()
_ACQUIRE_TYPES = (Draw, TakePile, Stop)
_SIDE_BITS = (1, 2, 1, 2)
# Each decision's code in the monitor (CALL_CODES), and the monitor's cells, as C integers where compiled
# (engine.pxd): a call into strategy code is published with one C store, not a look-up by the decision's name.
_ACQUIRE_CALL = CALL_CODES["acquire"]
_ASK_CALL = CALL_CODES["ask"]
_ANSWER_CALL = CALL_CODES["answer"]
_MELD_CALL = CALL_CODES["meld"]
_DISCARD_CALL = CALL_CODES["discard"]
_EVENT_CALL = CALL_CODES["event"]
_HAND_START_CALL = CALL_CODES["hand start"]
_HAND_END_CALL = CALL_CODES["hand end"]
_CALL_CELL = MONITOR_CALL
_START_CELL = MONITOR_START
_event_follower = operator.methodcaller("event_follower")  # asked as a call into strategy code (_Seats.ask)
_DRAW_EVENTS = tuple(PublicEvent(seat, DRAW, 0) for seat in range(4))
# Typed str where compiled (sim/engine.pxd): play_hand's phase tests compare them by identity (_is_phase).
_OVER = OVER
_ACQUIRE = ACQUIRE

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (seats, red 3 counts), a Python int otherwise."""


def derive_seed(seed: int, label: str) -> int:
    """Return a 64-bit seed derived from ``seed`` and ``label``, the same in every process."""
    digest = hashlib.blake2b(f"{seed}/{label}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def dealing(seed: int) -> tuple[DeckGenerator, int]:
    """The deck generator of the game played from ``seed``, and the first dealer drawn from it by lot (R2.2)."""
    deck = DeckGenerator(derive_seed(seed, "deck"))
    return deck, deck.below(4)


def first_dealer(seed: int) -> int:
    """The seat that deals the first hand of the game played from ``seed`` (R2.2), as :func:`play_game` draws it."""
    return dealing(seed)[1]


@dataclasses.dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game."""

    seed: int
    scores: tuple[int, int]
    """Final totals of side A and side B."""
    winner: int | None
    """0 (A), 1 (B) or ``None`` for a draw (``tie_rule=draw``, or equal totals at the hand cap)."""
    termination: str
    """``target`` (a side reached the target score) or ``hand_cap``."""
    first_dealer: int
    hands: tuple[HandResult, ...]


StrategyFactory = Callable[[random.Random], Strategy]


class GameObserver:
    """Watches a game as it is played (narration, the terminal game); override what you need.

    The engine calls an observer only when :func:`play_game` is given one, so watching costs
    nothing otherwise.  An observer sees the whole state, hidden cards included: it is for
    people and tools, never for strategies.
    """

    def on_hand_start(self, state: HandState) -> None:
        """A hand has been dealt, its upcard turned and (by default) dealt red 3s laid (R3.3, R3.5)."""

    def on_move(self, state: HandState) -> None:
        """A move has been applied; it is ``state.history[-1]`` as ``(seat, move, drawn card ids)``."""

    def on_hand_end(self, state: HandState, result: HandResult) -> None:
        """A hand has ended and been scored."""


class _Seats:
    """The four seats' strategies, their names for errors, the game's seed, and the arbiter's watch over them.

    Every call into strategy code goes through :meth:`ask` (or :meth:`apply`'s event loop): whatever the
    call raises (``KeyboardInterrupt``, ``SystemExit`` and a ``StrategyError`` of the strategy's own
    making included) is the failure of the seat asked; only the user's :class:`UserInterrupt` passes.
    The game's :class:`GameFingerprint` is compared after the calls of one side before the other side
    is called or the engine changes the game, so a change made from strategy code is charged to the
    side that made it (reason ``tampering``).
    """

    __slots__ = ("players", "names", "seed", "time_limit", "listeners", "clock", "graces", "monitor", "fingerprint",
                 "called", "last_call", "side_bits", "guarded", "cells", "handlers", "decisions", "following",
                 "followers", "hearing", "hearing_handlers")

    def __init__(self, players: Sequence[Strategy], names: Sequence[str], seed: int, time_limit: float | None,
                 monitor=None) -> None:
        self.players = players
        self.names = names
        self.seed = seed
        self.time_limit = time_limit
        self.clock = DecisionClock(time_limit) if time_limit is not None else None
        self.graces = [OWN_CLOCK_GRACE if getattr(player, "keeps_own_clock", False) else 0.0 for player in players]
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
            None if self.side_bits[seat] else tuple(getattr(player, name) for name in _DECISIONS)
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

        :raises _UnattributedChange: when both sides were called since the last comparison.
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
                    raise _UnattributedChange(what)
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
        if clock is None:
            try:
                value = method(view)
            except ArbiterSignal:
                raise
            except BaseException as error:  # strategy code's failure of any kind is the seat's, never swallowed
                raise self.failure(seat, decode_call(call)[1], error) from error
        else:
            start = time.perf_counter()
            try:
                clock.start(self.graces[seat])
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
        text = " ".join(str(error).split())
        return self.error(seat, decision, f"raised {type(error).__name__}: {text}", None,
                          traceback=strategy_traceback(error))

    def error(self, seat: int, decision: str, message: str, value, *, reason: str | None = None,
              traceback: str = "") -> StrategyError:
        if reason is None:
            reason = "malformed" if message.startswith("returned") else "exception"
        return StrategyError(
            message, spec=self.names[seat], seat=seat, game_seed=self.seed, decision=decision, returned=value,
            reason=reason, traceback=traceback,
        )

    @cython.locals(index=Count, before=Count, laid=Count, number=Count, listener_seat=Count, bit=Count,
                   handlers=tuple, listeners=list, followers=list, follower=CardMemory, listener=tuple,
                   side_bits=tuple)
    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        if self.called:
            # The calls since the last change must have left the game as it was (settle, with its quick
            # comparison inlined: this runs before every move).
            if not self.fingerprint.holds():
                self.settle()
            self.called = 0
        index = seat
        before = state.red_threes[index]
        try:
            state.apply(move)
        except IllegalMoveError as error:
            raise self.error(seat, decision, f"returned an illegal move: {error}", move, reason="illegal") from error
        except Exception as error:  # a malformed record, e.g. Discard('K'), fails inside the rule checks
            raise self.error(
                seat, decision, f"returned a malformed move ({type(error).__name__}: {error})", move,
                reason="malformed",
            ) from error
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
            if self.clock is not None or type(self) is not _Seats:
                for listener_seat, player in self.hearing:
                    self.ask(listener_seat, _EVENT_CALL, player.on_event, event)
                return
            side_bits = self.side_bits
            monitored = self.monitor is not None
            listeners = self.hearing
            handlers = self.hearing_handlers
            for number in range(len(handlers)):
                # _Seats.ask, inlined for the most frequent call into strategy code.  The listener's seat is read
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


class _StrictSeats(_Seats):
    """Seats that compares the fingerprint after every call into strategy code (slower), so that a change
    is always charged to the call that made it: used to replay a game whose change could not be attributed."""

    __slots__ = ()

    def ask(self, seat: int, call: int, method: Callable, view):
        value = _Seats.ask(self, seat, call, method, view)
        self.settle()
        return value


class _UnattributedChange(Exception):
    """The game changed while both sides' code ran since the last comparison: replay to find whose it was."""


class _ObservedSeats(_StrictSeats):
    """Seats that also reports every applied move to an observer; a subclass, so that
    unobserved games pay nothing for the feature."""

    __slots__ = ("observer",)

    def __init__(self, players, names, seed, time_limit, observer: GameObserver, monitor=None) -> None:
        # Strict: an observed game is watched by a person, so it is never replayed to find a culprit.
        super().__init__(players, names, seed, time_limit, monitor)
        self.observer = observer

    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        _StrictSeats.apply(self, state, seat, decision, move)
        self.observer.on_move(state)


def _build_player(
    factory: StrategyFactory, seat: int, name: str, seed: int, time_limit: float | None = None, monitor=None
) -> Strategy:
    """Build one seat's strategy with its own generator; a constructor that fails is the strategy's failure."""
    if monitor is not None:
        monitor[MONITOR_CALL] = CALL_CODES["build"] + seat
        monitor[MONITOR_START] = time.monotonic()
    try:
        player = factory(SeatRandom(derive_seed(seed, f"seat{seat}"), seat=seat, time_limit=time_limit))
    except ArbiterSignal:
        raise
    except BaseException as error:  # a plugin's constructor failing, whatever the failure, is reported
        reason = error.reason if isinstance(error, SeatFailure) else "exception"
        raise StrategyError(
            f"could not be built: {type(error).__name__}: {' '.join(str(error).split())}",
            spec=name,
            seat=seat,
            game_seed=seed,
            decision="build",
            reason=reason,
            traceback=strategy_traceback(error),
        ) from error
    return player


@cython.locals(seats=_Seats, state=HandState, decisions=tuple, seat=Count, partner=Count)
def play_hand(state: HandState, seats: _Seats, views: Sequence[SeatView]) -> None:
    """Play one dealt hand to its end, asking each seat's strategy in turn."""
    players = seats.players
    decisions = seats.decisions
    rules = state.rules
    asking = rules.ask_partner != "off"
    while not _is_phase(state.phase, _OVER):
        seat = state.seat
        player = players[seat]
        view = views[seat]
        # The seat's decision methods bound once (_Seats.decisions), or looked up at each call for a checked seat.
        bound = decisions[seat]
        if _is_phase(state.phase, _ACQUIRE):
            method = player.choose_acquire if bound is None else bound[0]
            move = seats.ask(seat, _ACQUIRE_CALL, method, view)
            if type(move) is not Draw and not isinstance(move, _ACQUIRE_TYPES):  # a draw's exact type, first
                raise seats.error(seat, "acquire", "returned something that is not Draw, TakePile or Stop", move)
            seats.apply(state, seat, "acquire", move)
            continue
        if asking and not state.asked and state.can_ask(_ASK):
            method = player.choose_ask if bound is None else bound[1]
            asked = seats.ask(seat, _ASK_CALL, method, view)
            if asked is not True and asked is not False:  # isinstance(asked, bool): bool has no subclass
                raise seats.error(seat, "ask", "returned something that is not True or False", asked)
            if asked:
                seats.apply(state, seat, "ask", _ASK)
                partner = (seat + 2) % 4
                partner_bound = decisions[partner]
                method = players[partner].answer_go_out if partner_bound is None else partner_bound[2]
                answer = seats.ask(partner, _ANSWER_CALL, method, views[partner])
                if answer is not True and answer is not False:
                    raise seats.error(partner, "answer", "returned something that is not True or False", answer)
                seats.apply(state, partner, "answer", Answer(answer))
        while not _is_phase(state.phase, _OVER):
            method = player.choose_meld if bound is None else bound[3]
            move = seats.ask(seat, _MELD_CALL, method, view)
            if move is None:
                break
            if type(move) is not Meld and not isinstance(move, Meld):  # the exact type first
                raise seats.error(seat, "meld", "returned something that is not a Meld or None", move)
            seats.apply(state, seat, "meld", move)
        if _is_phase(state.phase, _OVER):
            break
        if state.must_stop:
            seats.apply(state, seat, "stop", _STOP)
            continue
        method = player.choose_discard if bound is None else bound[4]
        move = seats.ask(seat, _DISCARD_CALL, method, view)
        if type(move) is not Discard and not isinstance(move, Discard):
            raise seats.error(seat, "discard", "returned something that is not a Discard", move)
        seats.apply(state, seat, "discard", move)


def play_game(
    players: Sequence[StrategyFactory],
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    names: Sequence[str] | None = None,
    time_limit: float | None = None,
    max_hands: int = MAX_HANDS_PER_GAME,
    observer: GameObserver | None = None,
    monitor=None,
) -> GameResult:
    """Play a whole game to ``rules.target_score`` (R15).

    :param players: four factories, one per seat, each called with the seat's own
        :class:`random.Random` (a :class:`~canasta_sim.core.strategy.Strategy` subclass is such a factory).
    :param seed: the game's seed; the deck, the first dealer and the strategies' generators derive from it.
    :param names: the seats' strategy specs, for error messages.
    :param time_limit: seconds a single decision may take, or ``None`` for no limit.
    :param observer: a :class:`GameObserver` told of every hand and move, or ``None``.
    :param monitor: a writable memoryview of C doubles (format ``"d"``, on shared memory) where every call
        into strategy code is published (:data:`~canasta_sim.arbiter.MONITOR_CALL`; with a ``time_limit``
        also the call's start, ``MONITOR_START``), so that a supervisor outside the process can charge a
        crash or a hang to the right seat (:mod:`canasta_sim.runs.supervisor`), or ``None``.
    :raises StrategyError: when a strategy raises, returns a malformed or illegal move, overruns, or
        changes the game; its ``reason`` says which.
    """
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, one per seat; got {len(players)}")
    names = list(names) if names is not None else [getattr(p, "name", repr(p)) for p in players]
    try:
        return _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, strict=False)
    except _UnattributedChange:
        # A game is a pure function of its inputs: replaying it with a comparison after every call finds
        # the seat that changed it.  Should the replay run clean (a strategy whose tampering depends on
        # state kept outside the game), its result is a game played by the rules, and that is recorded.
        return _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, strict=True)


def _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, *, strict: bool) -> GameResult:
    instances = [
        _build_player(factory, seat, names[seat], seed, time_limit, monitor) for seat, factory in enumerate(players)
    ]
    if observer is None:
        seats = (_StrictSeats if strict else _Seats)(instances, names, seed, time_limit, monitor)
    else:
        seats = _ObservedSeats(instances, names, seed, time_limit, observer, monitor)
    deck_rng, first_dealer = dealing(seed)  # R2.2: the first dealer is drawn by lot.
    dealer = first_dealer
    totals = (0, 0)
    hands: list[HandResult] = []
    termination = "hand_cap"
    winner: int | None = None
    try:
        for hand_number in range(1, max_hands + 1):
            state = HandState.deal(rules, deck_rng, dealer=dealer, scores=totals, hand_number=hand_number)
            views = [SeatView(state, seat, totals) for seat in range(4)]
            seats.watch(state)
            if observer is not None:
                observer.on_hand_start(state)
            for seat, player in enumerate(instances):
                seats.ask(seat, _HAND_START_CALL, player.on_hand_start, views[seat])
            seats.gather_followers()
            play_hand(state, seats, views)
            seats.settle()
            result = score_hand(state)
            hands.append(result)
            if observer is not None:
                observer.on_hand_end(state, result)
            # A result can still be forced to change (its constructor run again): its hash must not move.
            result_hash = hash(result) if seats.guarded else 0
            for seat, player in enumerate(instances):
                seats.ask(seat, _HAND_END_CALL, player.on_hand_end, result)
                if seats.side_bits[seat] and hash(result) != result_hash:
                    raise seats.error(seat, "hand end", "changed the hand's result it was shown", None,
                                      reason="tampering")
            seats.settle()
            totals = result.totals_after
            dealer = (dealer + 1) % 4  # R2.2: the deal passes clockwise.
            if max(totals) >= rules.target_score:
                if totals[0] != totals[1]:
                    winner = 0 if totals[0] > totals[1] else 1
                    termination = "target"
                    break
                if rules.tie_rule == "draw":  # R15.3
                    termination = "target"
                    break
        else:
            if totals[0] != totals[1]:
                winner = 0 if totals[0] > totals[1] else 1
    except StrategyError as error:
        # The hands finished before the failure are still facts of the game: a forfeit records them.
        error.finished_hands = tuple(hands)
        error.first_dealer = first_dealer
        raise
    return GameResult(
        seed=seed,
        scores=totals,
        winner=winner,
        termination=termination,
        first_dealer=first_dealer,
        hands=tuple(hands),
    )
