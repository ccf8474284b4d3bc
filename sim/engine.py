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
import random
import time
from collections.abc import Callable, Sequence

from canasta_sim.errors import IllegalMoveError, StrategyError
from canasta_sim.moves import DRAW, Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.rules import DEFAULT_RULES, Rules
from canasta_sim.scoring import HandResult, score_hand
from canasta_sim.state import ACQUIRE, OVER, HandState
from canasta_sim.strategy import PublicEvent, SeatRandom, Strategy
from canasta_sim.view import SeatView

__all__ = [
    "GameObserver",
    "GameResult",
    "MAX_HANDS_PER_GAME",
    "derive_seed",
    "play_game",
    "play_hand",
]

MAX_HANDS_PER_GAME = 400
"""A guard: a game that has not reached the target after this many hands ends as ``hand_cap``."""

_ASK = Ask()
_STOP = Stop()
_ACQUIRE_TYPES = (Draw, TakePile, Stop)


def derive_seed(seed: int, label: str) -> int:
    """Return a 64-bit seed derived from ``seed`` and ``label``, the same in every process."""
    digest = hashlib.blake2b(f"{seed}/{label}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


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


class _Table:
    """The four seats' strategies, their names for errors, and the game's seed."""

    __slots__ = ("players", "names", "seed", "time_limit", "listeners")

    def __init__(self, players: Sequence[Strategy], names: Sequence[str], seed: int, time_limit: float | None) -> None:
        self.players = players
        self.names = names
        self.seed = seed
        self.time_limit = time_limit
        # (seat, strategy) of the strategies that override on_event: the others are not called at all.
        self.listeners = [
            (seat, player) for seat, player in enumerate(players) if type(player).on_event is not Strategy.on_event
        ]

    def ask(self, seat: int, decision: str, method: Callable, view: SeatView):
        start = time.perf_counter() if self.time_limit is not None else 0.0
        try:
            value = method(view)
        except StrategyError:
            raise
        except Exception as error:  # a plugin's failure of any kind is reported, never swallowed
            raise self.error(seat, decision, f"raised {type(error).__name__}: {error}", None) from error
        if self.time_limit is not None:
            elapsed = time.perf_counter() - start
            if elapsed > self.time_limit:
                raise self.error(seat, decision, f"took {elapsed:.3f} s, over the budget of {self.time_limit} s", value)
        return value

    def error(self, seat: int, decision: str, message: str, value) -> StrategyError:
        return StrategyError(
            message, spec=self.names[seat], seat=seat, game_seed=self.seed, decision=decision, returned=value
        )

    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        before = state.red_threes[seat]
        try:
            state.apply(move)
        except IllegalMoveError as error:
            raise self.error(seat, decision, f"returned an illegal move: {error}", move) from error
        except Exception as error:  # a malformed record, e.g. Discard('K'), fails inside the rule checks
            raise self.error(
                seat, decision, f"returned a malformed move ({type(error).__name__}: {error})", move
            ) from error
        if self.listeners:
            event = PublicEvent(seat, DRAW if isinstance(move, Draw) else move, state.red_threes[seat] - before)
            for listener_seat, player in self.listeners:
                try:
                    player.on_event(event)
                except Exception as error:  # a plugin's hook failing is reported like its decisions
                    raise self.error(listener_seat, "event", f"raised {type(error).__name__}: {error}", None) from error


class _ObservedTable(_Table):
    """A table that also reports every applied move to an observer; a subclass, so that
    unobserved games pay nothing for the feature."""

    __slots__ = ("observer",)

    def __init__(self, players, names, seed, time_limit, observer: GameObserver) -> None:
        super().__init__(players, names, seed, time_limit)
        self.observer = observer

    def apply(self, state: HandState, seat: int, decision: str, move) -> None:
        _Table.apply(self, state, seat, decision, move)
        self.observer.on_move(state)


def _build_player(
    factory: StrategyFactory, seat: int, name: str, seed: int, time_limit: float | None = None
) -> Strategy:
    """Build one seat's strategy with its own generator; a constructor that fails is the strategy's failure."""
    try:
        return factory(SeatRandom(derive_seed(seed, f"seat{seat}"), seat=seat, time_limit=time_limit))
    except StrategyError:
        raise
    except Exception as error:  # a plugin's constructor failing, whatever the failure, is reported
        raise StrategyError(
            f"could not be built: {type(error).__name__}: {error}",
            spec=name,
            seat=seat,
            game_seed=seed,
            decision="build",
        ) from error


def play_hand(state: HandState, table: _Table, views: Sequence[SeatView]) -> None:
    """Play one dealt hand to its end, asking each seat's strategy in turn."""
    players = table.players
    rules = state.rules
    asking = rules.ask_partner != "off"
    while state.phase != OVER:
        seat = state.seat
        player = players[seat]
        view = views[seat]
        if state.phase == ACQUIRE:
            move = table.ask(seat, "acquire", player.choose_acquire, view)
            if not isinstance(move, _ACQUIRE_TYPES):
                raise table.error(seat, "acquire", "returned something that is not Draw, TakePile or Stop", move)
            table.apply(state, seat, "acquire", move)
            continue
        if asking and not state.asked and state.can_ask(_ASK):
            asked = table.ask(seat, "ask", player.choose_ask, view)
            if not isinstance(asked, bool):
                raise table.error(seat, "ask", "returned something that is not True or False", asked)
            if asked:
                table.apply(state, seat, "ask", _ASK)
                partner = (seat + 2) % 4
                answer = table.ask(partner, "answer", players[partner].answer_go_out, views[partner])
                if not isinstance(answer, bool):
                    raise table.error(partner, "answer", "returned something that is not True or False", answer)
                table.apply(state, partner, "answer", Answer(answer))
        while state.phase != OVER:
            move = table.ask(seat, "meld", player.choose_meld, view)
            if move is None:
                break
            if not isinstance(move, Meld):
                raise table.error(seat, "meld", "returned something that is not a Meld or None", move)
            table.apply(state, seat, "meld", move)
        if state.phase == OVER:
            break
        if state.must_stop:
            table.apply(state, seat, "stop", _STOP)
            continue
        move = table.ask(seat, "discard", player.choose_discard, view)
        if not isinstance(move, Discard):
            raise table.error(seat, "discard", "returned something that is not a Discard", move)
        table.apply(state, seat, "discard", move)


def play_game(
    players: Sequence[StrategyFactory],
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    names: Sequence[str] | None = None,
    time_limit: float | None = None,
    max_hands: int = MAX_HANDS_PER_GAME,
    observer: GameObserver | None = None,
) -> GameResult:
    """Play a whole game to ``rules.target_score`` (R15).

    :param players: four factories, one per seat, each called with the seat's own
        :class:`random.Random` (a :class:`~canasta_sim.strategy.Strategy` subclass is such a factory).
    :param seed: the game's seed; the deck, the first dealer and the strategies' generators derive from it.
    :param names: the seats' strategy specs, for error messages.
    :param time_limit: seconds a single decision may take, or ``None`` for no limit.
    :param observer: a :class:`GameObserver` told of every hand and move, or ``None``.
    :raises StrategyError: when a strategy raises, returns a malformed or illegal move, or overruns.
    """
    if len(players) != 4:
        raise ValueError(f"a game needs 4 players, one per seat; got {len(players)}")
    names = list(names) if names is not None else [getattr(p, "name", repr(p)) for p in players]
    instances = [_build_player(factory, seat, names[seat], seed, time_limit) for seat, factory in enumerate(players)]
    if observer is None:
        table = _Table(instances, names, seed, time_limit)
    else:
        table = _ObservedTable(instances, names, seed, time_limit, observer)
    deck_rng = random.Random(derive_seed(seed, "deck"))
    first_dealer = deck_rng.randrange(4)  # R2.2: the first dealer is drawn by lot.
    dealer = first_dealer
    totals = (0, 0)
    hands: list[HandResult] = []
    termination = "hand_cap"
    winner: int | None = None
    try:
        for hand_number in range(1, max_hands + 1):
            state = HandState.deal(rules, deck_rng, dealer=dealer, scores=totals, hand_number=hand_number)
            views = [SeatView(state, seat, totals) for seat in range(4)]
            if observer is not None:
                observer.on_hand_start(state)
            for seat, player in enumerate(instances):
                table.ask(seat, "hand start", player.on_hand_start, views[seat])
            play_hand(state, table, views)
            result = score_hand(state)
            hands.append(result)
            if observer is not None:
                observer.on_hand_end(state, result)
            for seat, player in enumerate(instances):
                table.ask(seat, "hand end", player.on_hand_end, result)
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
