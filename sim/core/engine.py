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
import numbers
import operator
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from canasta_sim.arbiter import (
    CALL_CODES,
    MAX_TIME_LIMIT,
    MONITOR_CALL,
    MONITOR_START,
    ArbiterSignal,
    InterpreterWatch,
    decode_call,
    is_trusted_class,
    strategy_traceback,
    users_interrupt_passes,
)
from canasta_sim.core.deal import DeckGenerator
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult, score_hand
from canasta_sim.core.seats import ObservedSeats, Seats, StrictSeats, UnattributedChange, not_a_bool
from canasta_sim.core.state import ACQUIRE, OVER, HandState, _is_phase
from canasta_sim.core.strategy import SeatRandom, Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import SeatFailure, StrategyError, error_text

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = [
    "GameObserver", "GameResult", "MAX_HANDS_PER_GAME", "checked_rules", "checked_seed", "dealing", "derive_seed",
    "first_dealer", "play_game", "play_hand", "strategy_name",
]

MAX_HANDS_PER_GAME = 400
"""A guard: a game that has not reached the target after this many hands ends as ``hand_cap``."""

_ASK = Ask()
_STOP = Stop()
_ACQUIRE_TYPES = (Draw, TakePile, Stop)
# Each decision's code in the monitor (CALL_CODES), as C integers where compiled (engine.pxd): Seats.ask publishes a
# call into strategy code with one C store, not a look-up by the decision's name.
_ACQUIRE_CALL = CALL_CODES["acquire"]
_ASK_CALL = CALL_CODES["ask"]
_ANSWER_CALL = CALL_CODES["answer"]
_MELD_CALL = CALL_CODES["meld"]
_DISCARD_CALL = CALL_CODES["discard"]
_HAND_START_CALL = CALL_CODES["hand start"]
_HAND_END_CALL = CALL_CODES["hand end"]
# Typed str where compiled (sim/core/engine.pxd): play_hand's phase tests compare them by identity (_is_phase).
_OVER = OVER
_ACQUIRE = ACQUIRE

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (the seat to move and its partner), a Python int otherwise."""


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
            f"could not be built: {error_text(error)}",
            spec=name,
            seat=seat,
            game_seed=seed,
            decision="build",
            reason=reason,
            traceback=strategy_traceback(error),
        ) from error
    if monitor is not None:
        # The build's start no longer counts: a next call that writes its code alone (an event) is timed from here,
        # never from the start of a long start-up (MONITOR_START).
        monitor[MONITOR_START] = time.monotonic()
    return player


@cython.locals(seats=Seats, state=HandState, decisions=tuple, seat=Count, partner=Count)
def play_hand(state: HandState, seats: Seats, views: Sequence[SeatView]) -> None:
    """Play one dealt hand to its end, asking each seat's strategy in turn."""
    players = seats.players
    decisions = seats.decisions
    rules = state.rules
    asking = rules.ask_partner != "off"
    # A returned value's type is tested by its type alone: isinstance would read its __class__, the strategy's code.
    while not _is_phase(state.phase, _OVER):
        seat = state.seat
        player = players[seat]
        view = views[seat]
        # The seat's decision methods bound once (Seats.decisions), or looked up at each call for a checked seat.
        bound = decisions[seat]
        if _is_phase(state.phase, _ACQUIRE):
            method = player.choose_acquire if bound is None else bound[0]
            move = seats.ask(seat, _ACQUIRE_CALL, method, view)
            if type(move) is not Draw and not issubclass(type(move), _ACQUIRE_TYPES):  # a draw's exact type, first
                raise seats.error(seat, "acquire", "returned something that is not Draw, TakePile or Stop", move)
            seats.apply(state, seat, "acquire", move)
            continue
        if asking and not state.asked and state.can_ask(_ASK):
            method = player.choose_ask if bound is None else bound[1]
            asked = seats.ask(seat, _ASK_CALL, method, view)
            if asked is not True and asked is not False:  # isinstance(asked, bool): bool has no subclass
                raise seats.error(seat, "ask", not_a_bool(asked), asked)
            if asked:
                seats.apply(state, seat, "ask", _ASK)
                partner = (seat + 2) % 4
                partner_bound = decisions[partner]
                method = players[partner].answer_go_out if partner_bound is None else partner_bound[2]
                answer = seats.ask(partner, _ANSWER_CALL, method, views[partner])
                if answer is not True and answer is not False:
                    raise seats.error(partner, "answer", not_a_bool(answer), answer)
                seats.apply(state, partner, "answer", Answer(answer))
        while not _is_phase(state.phase, _OVER):
            method = player.choose_meld if bound is None else bound[3]
            move = seats.ask(seat, _MELD_CALL, method, view)
            if move is None:
                break
            if type(move) is not Meld and not issubclass(type(move), Meld):  # the exact type first
                raise seats.error(seat, "meld", "returned something that is not a Meld or None", move)
            seats.apply(state, seat, "meld", move)
        if _is_phase(state.phase, _OVER):
            break
        if state.must_stop:
            seats.apply(state, seat, "stop", _STOP)
            continue
        method = player.choose_discard if bound is None else bound[4]
        move = seats.ask(seat, _DISCARD_CALL, method, view)
        if type(move) is not Discard and not issubclass(type(move), Discard):
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
    monitor: Any = None,
) -> GameResult:
    """Play a whole game to ``rules.target_score`` (R15).

    :param players: four factories, one per seat, each called with the seat's own
        :class:`random.Random` (a :class:`~canasta_sim.core.strategy.Strategy` subclass is such a factory).
    :param seed: the game's seed, a whole number (an int or a numpy integer); the deck, the first dealer and the
        strategies' generators derive from it.
    :param rules: the :class:`~canasta_sim.core.rules.Rules` played.
    :param names: the seats' strategy specs, four texts, for error messages (default: each factory's
        :func:`strategy_name`).
    :param time_limit: seconds a single decision may take (above 0, at most a day), or ``None`` for no limit.
    :param max_hands: the guard against a game without end: after this many hands the game ends as ``hand_cap``.
    :param observer: a :class:`GameObserver` told of every hand and move, or ``None``.
    :param monitor: a writable memoryview of C doubles (format ``"d"``, on shared memory) where every call
        into strategy code is published (:data:`~canasta_sim.arbiter.MONITOR_CALL`; with a ``time_limit``
        also the call's start, ``MONITOR_START``), so that a supervisor outside the process can charge a
        crash or a hang to the right seat (:mod:`canasta_sim.runs.supervisor`), or ``None``.
    :raises TypeError, ValueError: for an argument of the wrong type or out of range, naming it, before any
        strategy is built.
    :raises StrategyError: when a strategy raises, returns a malformed or illegal move, overruns, or
        changes the game; its ``reason`` says which.
    :raises KeyboardInterrupt: on the user's Ctrl-C (a notebook's Interrupt), wherever in the game it falls, under
        Python's own handler (:func:`~canasta_sim.arbiter.users_interrupt_passes`): never a seat's failure.
    """
    players, seed, names = _checked_arguments(players, seed, rules, names, time_limit, max_hands)
    with users_interrupt_passes():
        return _judged_game(players, seed, rules, names, time_limit, max_hands, observer, monitor)


def _checked_arguments(players, seed, rules, names, time_limit, max_hands) -> tuple[tuple, int, list[str]]:
    """:func:`play_game`'s players, seed and names once checked: a caller's slip is refused here, naming the argument,
    before any strategy is built, where it would have been charged to a seat or raised from inside the game."""
    players = tuple(players)
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, one per seat; got {len(players)}")
    for seat, factory in enumerate(players):
        if isinstance(factory, str):
            raise TypeError(f"players[{seat}] is the text {factory!r}: play_game takes strategy classes "
                            f"(canasta_sim.strategies.Greedy) or factories; a spec is loaded with "
                            f"canasta_sim.plugins.loader.load_strategy({factory!r})")
        if not callable(factory):
            raise TypeError(f"players[{seat}] is a {type(factory).__name__} instance: play_game takes the class, or "
                            "a factory called with the seat's random.Random, and builds each seat's strategy itself")
    seed = checked_seed(seed)
    checked_rules(rules)
    if isinstance(max_hands, bool) or not isinstance(max_hands, numbers.Integral):
        raise TypeError(f"max_hands={max_hands!r} is not accepted; use a whole number, 1 or more")
    if max_hands < 1:
        raise ValueError(f"max_hands={max_hands!r} is not accepted; use a whole number, 1 or more")
    if time_limit is not None:
        seconds = f"use None or a number of seconds above 0 and at most {MAX_TIME_LIMIT:,}"
        if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
            raise TypeError(f"time_limit={time_limit!r} is not accepted; {seconds}")
        if not 0 < time_limit <= MAX_TIME_LIMIT:  # nan too: no clock is armed with it
            raise ValueError(f"time_limit={time_limit!r} is not accepted; {seconds}")
    if names is None:
        return players, seed, [strategy_name(factory) for factory in players]
    if isinstance(names, str) or len(names) != 4 or not all(isinstance(name, str) for name in names):
        raise TypeError(f"names={names!r} is not accepted; use four texts, one per seat")
    return players, seed, list(names)


def checked_seed(seed) -> int:
    """``seed`` as the int a game is dealt from: an int, or a numpy integer as the int it equals.

    :raises TypeError: for anything else (a float, text, ``None``, a bool): the seed is hashed as text
        (:func:`derive_seed`), so ``7.0`` would deal another game than ``7``, and ``"7"`` the same one.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed={seed!r} is not accepted; use a whole number (an int or a numpy integer)")
    return operator.index(seed)


def checked_rules(rules) -> Rules:
    """``rules`` if it is a :class:`~canasta_sim.core.rules.Rules`.

    :raises TypeError: for anything else, a mapping of options included, naming the ways to build one.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules; got a {type(rules).__name__}: Rules(target_score=3000) builds one, "
                        "and Rules.from_mapping reads a mapping of options")
    return rules


def _judged_game(players, seed, rules, names, time_limit, max_hands, observer, monitor) -> GameResult:
    """:func:`play_game` once its arguments are checked, watching the interpreter's settings where strategy code not
    built in plays."""
    # The interpreter's settings as the game begins, when a strategy not built in plays: compared when it ends.
    trusted = [is_trusted_class(getattr(factory, "cls", factory)) for factory in players]
    watch = None if all(trusted) else InterpreterWatch()
    held: list[Seats] = []
    try:
        try:
            result = _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, strict=False,
                           held=held)
        except UnattributedChange:
            # A game is a pure function of its inputs: replaying it with a comparison after every call finds
            # the seat that changed it.  Should the replay run clean (a strategy whose tampering depends on
            # state kept outside the game), its result is a game played by the rules, and that is recorded.
            held.clear()
            result = _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, strict=True,
                           held=held)
    except StrategyError as error:
        if watch is not None:
            _check_interpreter(watch, held, trusted, names, seed, error.finished_hands, error.first_dealer, error)
        raise
    if watch is not None:
        _check_interpreter(watch, held, trusted, names, seed, result.hands, result.first_dealer, None)
    return result


def strategy_name(factory: StrategyFactory) -> str:
    """A seat's strategy as its errors name it when no ``names`` are given: a loaded strategy's spec (as the
    command line names it), a strategy class's ``name``, a function's own name, else the factory's type's name (a
    repr can run to the whole record of a loaded strategy, and an address names nothing)."""
    for attribute in ("spec", "name", "__name__"):
        value = getattr(factory, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(factory).__name__


def _check_interpreter(watch: InterpreterWatch, held: list, trusted: list, names: list, seed: int,
                       hands: tuple, dealer: int | None, error: StrategyError | None) -> None:
    """Raise the ``tampering`` failure of a game during which strategy code changed the interpreter's settings
    (:class:`~canasta_sim.arbiter.InterpreterWatch`, which has put them back), charged to the strategy not built in
    that was called last: the failing seat's, when the game stopped at a failure, else the last call of a seat whose
    calls are checked, else the first seat not built in (its constructor ran)."""
    changed = watch.check()
    if not changed:
        return
    if error is not None and not trusted[error.seat]:
        seat = error.seat
    elif held and not trusted[decode_call(held[0].last_call)[0]]:
        seat = decode_call(held[0].last_call)[0]
    else:
        seat = trusted.index(False)
    message = (f"changed the interpreter's settings, which every later call of every seat runs under "
               f"({', '.join(changed[:5])}), put back as they were")
    if error is not None:
        message += f"; the game had stopped at seat {error.seat}'s failure ({error.reason})"
    failure = StrategyError(message, spec=names[seat], seat=seat, game_seed=seed, decision="game", reason="tampering")
    failure.finished_hands = hands
    failure.first_dealer = dealer
    raise failure from error


def _play(players, seed, rules, names, time_limit, max_hands, observer, monitor, *, strict: bool,
          held: list | None = None) -> GameResult:
    instances = [
        _build_player(factory, seat, names[seat], seed, time_limit, monitor) for seat, factory in enumerate(players)
    ]
    if observer is None:
        seats = (StrictSeats if strict else Seats)(instances, names, seed, time_limit, monitor)
    else:
        seats = ObservedSeats(instances, names, seed, time_limit, observer, monitor)
    if held is not None:  # for play_game, which charges a change to the interpreter to the seat called last
        held.append(seats)
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
