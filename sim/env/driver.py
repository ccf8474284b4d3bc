"""A step-by-step driver of one game: the engine's hand loop turned inside out, one decision per call.

:func:`canasta_sim.core.engine.play_game` asks each seat's strategy for its decisions in a loop; a
learning agent instead needs the game to stop at each decision and wait.  :class:`GameDriver`
keeps the same order of decisions (:func:`canasta_sim.core.engine.play_hand`: acquire; ask, and the
partner's answer, when asking is allowed; melds until the player stops; the automatic
``Stop`` of R13.1; the discard) and the same deal, dealer rotation, scoring and game end as
:func:`~canasta_sim.core.engine.play_game`, but every rule is judged by the engine itself:
each decision goes through :meth:`canasta_sim.core.state.HandState.apply`.

Seats may also be given strategies: their decisions are asked from the strategy, as the
engine would, and their hooks (``on_hand_start``, ``on_event``, ``on_hand_end``) are called.
With a strategy in every seat a driver plays exactly the game ``play_game`` plays (a test
checks it), which is what makes the environments built on it faithful.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import random
from collections.abc import Mapping, Sequence

from canasta_sim.core.deal import DeckGenerator
from canasta_sim.core.engine import (
    MAX_HANDS_PER_GAME,
    StrategyFactory,
    checked_rules,
    checked_seed,
    dealing,
    derive_seed,
    strategy_name,
)
from canasta_sim.core.moves import (
    ASK,
    DRAW,
    STOP,
    Answer,
    Discard,
    Draw,
    Meld,
    Move,
    Stop,
    TakePile,
    move_text,
    plain_record,
)
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult, score_hand
from canasta_sim.core.state import OVER, HandState
from canasta_sim.core.strategy import PublicEvent, Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import (
    CanastaError,
    IllegalMoveError,
    SeatFailure,
    StrategyError,
    UserInterrupt,
    error_text,
    install_hint,
    raised_text,
    type_name,
)

__all__ = [
    "ACQUIRE_DECISION",
    "ANSWER_DECISION",
    "ASK_DECISION",
    "DECISIONS",
    "DISCARD_DECISION",
    "DriverError",
    "GameDriver",
    "MELD_DECISION",
    "REWARD_CHOICES",
    "as_rules",
    "check_reward",
    "hand_info",
    "hand_rewards",
    "missing_extra",
    "shown",
]

ACQUIRE_DECISION = "acquire"
"""Begin the turn: a ``Draw``, a ``TakePile`` or (empty stock) a ``Stop``."""
ASK_DECISION = "ask"
"""Whether to ask the partner "may I go out?" (R12.5): ``True`` or ``False``."""
ANSWER_DECISION = "answer"
"""The partner's answer: ``True`` (yes) or ``False`` (no); decided by the partner's seat."""
MELD_DECISION = "meld"
"""A ``Meld`` to lay, or ``None`` to stop melding this turn."""
DISCARD_DECISION = "discard"
"""The ``Discard`` that ends the turn."""
DECISIONS = (ACQUIRE_DECISION, ASK_DECISION, ANSWER_DECISION, MELD_DECISION, DISCARD_DECISION)
"""Every decision a seat can be asked, in the order a turn asks them."""

_ACQUIRE_TYPES = (Draw, TakePile, Stop)


REWARD_CHOICES = ("hand", "game")
"""``hand``: at each hand's end, the side's hand score minus the other side's (game points);
``game``: at the game's end, +1 for a win, -1 for a loss, 0 for a draw."""


def as_rules(rules: Rules | Mapping | None) -> Rules:
    """A :class:`~canasta_sim.core.rules.Rules` from a rule set, a mapping of rule options, or ``None`` (default)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Mapping):
        return Rules.from_mapping({key: str(value) if isinstance(value, bool) else value
                                   for key, value in rules.items()})
    raise TypeError(f"rules must be a Rules, a mapping of rule options or None; got {type(rules).__name__}")


def hand_rewards(result: HandResult) -> tuple[int, int]:
    """Each side's ``hand`` reward for a finished hand: its score minus the other side's."""
    a, b = result.sides[0].score, result.sides[1].score
    return a - b, b - a


def hand_info(hands: Sequence[HandResult]) -> dict:
    """The fields of an environment's ``info`` that mark the end of hands: ``hand_over`` (whether any ended) and
    ``hand_results`` (their :class:`~canasta_sim.core.scoring.HandResult`, in order; usually none, rarely two).

    An environment gives them with the step whose reward pays those hands' ``"hand"`` reward.
    """
    return {"hand_over": bool(hands), "hand_results": tuple(hands)}


def missing_extra(error: ModuleNotFoundError, what: str, extra: str) -> ModuleNotFoundError:
    """The error for ``what`` when a package of the extra ``extra`` is missing: which, and how to install it."""
    return ModuleNotFoundError(f"{what} needs {error.name} ({error}); {install_hint(extra)}", name=error.name)


def check_reward(reward: str) -> str:
    """Return ``reward`` if it is one of :data:`REWARD_CHOICES`, else raise ``ValueError`` naming them."""
    if not isinstance(reward, str) or reward not in REWARD_CHOICES:  # an array has no one truth value
        raise ValueError(f"reward={shown(reward)} is not accepted; use one of {', '.join(REWARD_CHOICES)}")
    return reward


_SHORT = 40


def shown(value: object) -> str:
    """``value`` as a one-line error message names it, in the terms of the code that passed it.

    A move in the move notation, ``None``, a truth value, a number or a short text as written, a class by its name,
    anything else by its type: the repr of a dict, a class or an array is Python's own, an array's runs over several
    lines, and a malformed move's can fail.  What the value's own code raises in the writing (a strategy's object)
    leaves it named by its type.
    """
    try:
        return _shown_as_written(value)
    except UserInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - a strategy's object whose own code failed is named by its type
        return f"a {type_name(value, module=True)}"


def _shown_as_written(value: object) -> str:
    """:func:`shown`'s text, which may run the value's own code (its ``repr``, ``str``, a class's name)."""
    if issubclass(type(value), type):
        record = f", not a {value.__name__} record" if issubclass(value, Move) else ""
        return f"the class {value.__name__} itself{record}"
    if issubclass(type(value), Move):
        text = move_text(value)  # None for a record holding what no move holds (E1)
        return f"the move {text}" if text is not None else f"a malformed {type_name(value)}"
    if value is None or issubclass(type(value), (bool, str)):
        text = repr(value)
    elif issubclass(type(value), numbers.Number):
        text = str(value)  # a numpy number as the user wrote it, not as np.int64(7)
    else:
        text = ""
    if text and len(text) <= _SHORT:
        return text
    return f"a {type_name(value, module=True)}"


class GameSeeds:
    """The seed of each game an environment deals.

    ``next(seed)`` returns ``seed`` and seeds the games that follow from it, as ``reset(seed=...)``
    asks; ``next()`` draws the next of those (from the system's entropy before any seed was given).
    """

    def __init__(self) -> None:
        self._source: random.Random | None = None

    def next(self, seed: int | None = None) -> int:
        """The seed of the next game to deal.

        :raises TypeError: for a seed that is not a whole number (an int or a numpy integer) or ``None``: ``7.0``
            would deal another game than ``7``, and a numpy integer failed inside :mod:`random`.
        :raises ValueError: for a negative seed, which Gymnasium's seeding (``gymnasium.utils.seeding.np_random``)
            refuses: the environments follow its convention, where ``-5`` seeded Gymnasium's ``np_random`` as ``5``.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
                raise TypeError(f"seed={shown(seed)} is not accepted; use a whole number 0 or more, or None to draw "
                                "one")
            if seed < 0:
                raise ValueError(f"seed={int(seed)} is not accepted; use a whole number 0 or more, as Gymnasium's "
                                 "seeding takes, or None to draw one")
            seed = int(seed)
            self._source = random.Random(seed)
            return seed
        if self._source is None:
            self._source = random.Random(int.from_bytes(os.urandom(8), "big"))
        return self._source.getrandbits(63)


def _factory_name(factory: StrategyFactory | None) -> str:
    """A seat's name in error messages: the agent's, or its strategy's as ``play_game`` names it (a loaded strategy's
    spec, a class's name, a function's)."""
    if factory is None:
        return "agent"
    return strategy_name(factory)


class DriverError(CanastaError, ValueError):
    """A decision given to a :class:`GameDriver` that is not legal now, or given when no decision is due.

    :ivar reason: how a strategy that gave it is charged: ``illegal`` for a move the rules refuse, ``malformed``
        for a value of the wrong kind or a record the checks cannot judge (as the engine charges them).
    """

    def __init__(self, message: str, *, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


class GameDriver:
    """One game, advanced one decision at a time.

    :param rules: the rule set.
    :param players: per seat, a strategy factory (a :class:`~canasta_sim.core.strategy.Strategy` subclass or a
        loaded spec) that decides for that seat, or ``None`` for a seat decided through :meth:`decide`.
    :param names: the seats' names for error messages (default: the factories' names, or ``agent``).
    :param max_hands: the engine's guard against a game without end (the game ends as ``hand_cap``).
    """

    def __init__(
        self,
        rules: Rules = DEFAULT_RULES,
        *,
        players: Sequence[StrategyFactory | None] = (None, None, None, None),
        names: Sequence[str] | None = None,
        max_hands: int = MAX_HANDS_PER_GAME,
    ) -> None:
        if len(players) != 4:
            raise ValueError(f"a game needs 4 seats; got {len(players)} players")
        if isinstance(max_hands, bool) or not isinstance(max_hands, numbers.Integral) or max_hands < 1:
            raise ValueError(f"max_hands={shown(max_hands)} is not accepted; use a whole number, 1 or more")
        max_hands = int(max_hands)  # a numpy integer's bound would otherwise be its type's in the spaces
        self.rules = checked_rules(rules)
        self.factories = tuple(players)
        self.names = tuple(names) if names is not None else tuple(
            _factory_name(factory) for factory in players
        )
        self.max_hands = max_hands
        self.seed: int | None = None
        self.strategies: list[Strategy | None] = [None] * 4
        self.state: HandState | None = None
        self.views: list[SeatView] = []
        self.totals = (0, 0)
        self.hands: list[HandResult] = []
        self.first_dealer = 0
        self.decision: str | None = None
        self.winner: int | None = None
        self.termination: str | None = None
        self._deck_rng: DeckGenerator | None = None
        self._dealer = 0
        self._listeners: list[tuple[int, Strategy]] = []
        self._hands_before = 0
        self.failure: StrategyError | None = None
        """The failure of a strategy seat that stopped this game, if one did: the game cannot go on."""

    # ---------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (a side reached the target, or the hand cap)."""
        return self.termination is not None

    @property
    def idle_message(self) -> str:
        """What an environment says when stepped with no game under way: the last one is over or was stopped by a
        strategy's failure, or none was dealt."""
        if self.failure is not None:
            return (f"the game stopped when the strategy {self.failure.spec!r} at seat {self.failure.seat} failed; "
                    "call reset()")
        return "the game is over; call reset()" if self.seed is not None else "no game has started; call reset() first"

    def check_started(self) -> None:
        """Raise ``ValueError`` with :attr:`idle_message` when no game has been dealt yet: an environment's
        observation, mask or last step is asked for before its first ``reset()``."""
        if self.state is None:
            raise ValueError(self.idle_message)

    @property
    def actor(self) -> int:
        """The seat whose decision is due (the partner while an ask waits for its answer)."""
        if self.state is None or self.decision is None:
            raise DriverError("no decision is due: the game is over or not started (call reset)")
        return self.state.actor

    def view(self, seat: int) -> SeatView:
        """Seat ``seat``'s view of the hand now being played.

        :raises ValueError: before the first :meth:`reset`, or for a seat that is not 0 to 3 (``-1`` would otherwise
            be seat 3, as Python indexes from the end).
        """
        self.check_started()
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= seat < 4:
            raise ValueError(f"seat={seat!r} is not accepted; use a seat from 0 to 3")
        return self.views[seat]

    # ---------------------------------------------------------------- playing

    def reset(self, seed: int, start: tuple[HandState, str] | None = None) -> None:
        """Start a game with this seed, dealt exactly as ``play_game(..., seed=seed)`` deals it, and play
        the strategy seats up to the first decision of a seat without one.

        :param start: a hand under way and the decision due in it (a checked ``Position``'s, which the driver plays
            on and changes): the game starts there, its totals and dealer the hand's, and the next hands are dealt
            from ``seed`` as from a dealt start.
        :raises TypeError: for a seed that is no whole number (an int or a numpy integer), as ``play_game`` refuses it.
        """
        self.seed = checked_seed(seed)
        self.failure = None
        with self._stopping_on_failure():
            self._start(start)

    def _start(self, start: tuple[HandState, str] | None = None) -> None:
        self.strategies = [self._build(seat, factory) for seat, factory in enumerate(self.factories)]
        self._listeners = [
            (seat, player) for seat, player in enumerate(self.strategies)
            if player is not None and type(player).on_event is not Strategy.on_event
        ]
        self._deck_rng, self.first_dealer = dealing(self.seed)  # R2.2 and R3.1, as play_game deals
        self._dealer = self.first_dealer
        self.totals = (0, 0)
        self.hands = []
        self._hands_before = 0
        self.winner = None
        self.termination = None
        if start is None:
            self._deal(1)
        else:
            state, decision = start
            self.first_dealer = self._dealer = state.dealer
            self.totals = tuple(state.scores_before)
            self._hands_before = state.hand_number - 1  # the hand cap and the next hands' numbers count them
            self._begin(state, decision)
        self._run_strategies()

    def decide(self, value) -> list[HandResult]:
        """Play the due decision with ``value`` (see :data:`DECISIONS` for what each takes) for the seat
        :attr:`actor`, then the strategy seats' decisions up to the next seat without one.

        :returns: the hands that ended on the way (usually none).
        :raises DriverError: when no decision is due, or ``value`` is malformed or illegal (the game
            is unchanged then).
        """
        if self.failure is not None:  # the failed seat's decision is still due: another seat's move would take it
            raise DriverError(self.idle_message)
        finished_before = len(self.hands)
        with self._stopping_on_failure():
            self._play(value)
            self._run_strategies()
        return self.hands[finished_before:]

    def close(self) -> None:
        """Let the game and the strategy seats' players go: the processes of ``isolated:`` and ``cmd:`` seats end with
        their players (the pools end a game's process when its player goes).  A later :meth:`reset` deals a new game
        with new players."""
        self.strategies = [None] * 4
        self._listeners = []
        self.state, self.views, self.decision, self.seed, self.failure = None, [], None, None, None

    @contextlib.contextmanager
    def _stopping_on_failure(self):
        """Record a strategy's failure as the end of this game's play, then let it propagate."""
        try:
            yield
        except StrategyError as error:
            self.failure = error
            raise

    # ---------------------------------------------------------------- internals

    def _build(self, seat: int, factory: StrategyFactory | None) -> Strategy | None:
        if factory is None:
            return None
        try:
            return factory(random.Random(derive_seed(self.seed, f"seat{seat}")))
        except (StrategyError, UserInterrupt):
            raise
        except BaseException as error:  # a plugin's constructor failing, whatever the failure, is reported
            raise self._strategy_error(seat, "build", f"could not be built: {error_text(error)}") from error

    def _deal(self, hand_number: int) -> None:
        state = HandState.deal(self.rules, self._deck_rng, dealer=self._dealer, scores=self.totals,
                               hand_number=hand_number)
        self._begin(state, ACQUIRE_DECISION)

    def _begin(self, state: HandState, decision: str) -> None:
        self.state = state
        self.views = [SeatView(state, seat, self.totals) for seat in range(4)]
        for seat, player in enumerate(self.strategies):
            if player is not None:
                self._call(seat, "hand start", player.on_hand_start, self.views[seat])
        self.decision = decision

    def _play(self, value) -> None:
        if self.decision is None or self.state is None:
            raise DriverError("no decision is due: the game is over or not started (call reset)")
        state = self.state
        decision = self.decision
        seat = state.seat
        if decision == ACQUIRE_DECISION:
            if not issubclass(type(value), _ACQUIRE_TYPES):  # isinstance would run the value's __class__
                raise DriverError(f"the acquire decision takes a Draw, TakePile or Stop; got {shown(value)}")
            self._apply(seat, value)
            if state.phase == OVER:
                self._end_hand()
            elif self.rules.ask_partner != "off" and not state.asked and state.can_ask(ASK):
                self.decision = ASK_DECISION
            else:
                self.decision = MELD_DECISION
        elif decision == ASK_DECISION:
            if value is not True and value is not False:
                raise DriverError(f"the ask decision takes True or False; got {shown(value)}")
            if value:
                self._apply(seat, ASK)
                self.decision = ANSWER_DECISION
            else:
                self.decision = MELD_DECISION
        elif decision == ANSWER_DECISION:
            if value is not True and value is not False:
                raise DriverError(f"the answer decision takes True or False; got {shown(value)}")
            self._apply((seat + 2) % 4, Answer(value))
            self.decision = MELD_DECISION
        elif decision == MELD_DECISION:
            if value is None:
                if state.must_stop:  # R13.1 meld_no_discard: the engine ends the turn itself
                    self._apply(seat, STOP)
                    self._end_hand()
                else:
                    self.decision = DISCARD_DECISION
                return
            if not issubclass(type(value), Meld):
                raise DriverError(f"the meld decision takes a Meld or None; got {shown(value)}")
            self._apply(seat, value)
            if state.phase == OVER:
                self._end_hand()
        else:
            if not issubclass(type(value), Discard):
                raise DriverError(f"the discard decision takes a Discard; got {shown(value)}")
            self._apply(seat, value)
            if state.phase == OVER:  # went out, or the next turn could not begin (turn cap, strict stock)
                self._end_hand()
            else:
                self.decision = ACQUIRE_DECISION

    def _apply(self, seat: int, move: Move) -> None:
        state = self.state
        before = state.red_threes[seat]
        try:
            state.apply(move)
            move = plain_record(move)  # the listeners hear the engine's own records, as in play_game
        except IllegalMoveError as error:
            raise DriverError(str(error), reason="illegal") from None  # it names the seat, move, phase and rule
        except UserInterrupt:
            raise
        except BaseException as error:
            # A record the checks cannot judge: reading it ran the strategy's own code (a MeldGroup subclass whose
            # cards are no sequence, a list subclass of groups whose iteration raises, even SystemExit).
            raise DriverError(f"seat {seat}: a malformed {type_name(move)} ({error_text(error)}); make moves with "
                              "parse_move or the records' documented fields") from None
        if self._listeners:
            event = PublicEvent(seat, DRAW if type(move) is Draw else move, state.red_threes[seat] - before)
            for listener_seat, player in self._listeners:
                self._call(listener_seat, "event", player.on_event, event)

    def _end_hand(self) -> None:
        result = score_hand(self.state)
        self.hands.append(result)
        for seat, player in enumerate(self.strategies):
            if player is not None:
                self._call(seat, "hand end", player.on_hand_end, result)
        self.totals = result.totals_after
        self._dealer = (self._dealer + 1) % 4  # R2.2
        totals = self.totals
        ended = False
        if max(totals) >= self.rules.target_score:
            if totals[0] != totals[1]:
                self.winner = 0 if totals[0] > totals[1] else 1
                ended = True
            elif self.rules.tie_rule == "draw":  # R15.3
                ended = True
        if ended:
            self.termination = "target"
        elif self._hands_before + len(self.hands) >= self.max_hands:
            self.termination = "hand_cap"
            if totals[0] != totals[1]:
                self.winner = 0 if totals[0] > totals[1] else 1
        if self.termination is not None:
            self.decision = None
            return
        self._deal(self._hands_before + len(self.hands) + 1)

    def _run_strategies(self) -> None:
        """Ask the strategy seats for their decisions until a seat without one must decide, or the game ends."""
        while self.decision is not None:
            seat = self.state.actor
            player = self.strategies[seat]
            if player is None:
                return
            view = self.views[seat]
            decision = self.decision
            if decision == ACQUIRE_DECISION:
                value = self._call(seat, decision, player.choose_acquire, view)
            elif decision == ASK_DECISION:
                value = self._call(seat, decision, player.choose_ask, view)
            elif decision == ANSWER_DECISION:
                value = self._call(seat, decision, player.answer_go_out, view)
            elif decision == MELD_DECISION:
                value = self._call(seat, decision, player.choose_meld, view)
            else:
                value = self._call(seat, decision, player.choose_discard, view)
            try:
                self._play(value)
            except DriverError as error:
                raise self._strategy_error(seat, decision, f"returned an illegal or malformed decision: {error}",
                                           value, reason=error.reason) from error

    def _call(self, seat: int, decision: str, method, argument):
        try:
            return method(argument)
        except UserInterrupt:
            raise
        except SeatFailure as error:  # an adapter's verdict on what it asked (a policy's action): its reason
            raise self._strategy_error(seat, decision, str(error), reason=error.reason) from error
        except BaseException as error:
            # The strategy's failure of any kind (SystemExit and KeyboardInterrupt included, and a StrategyError it
            # made itself, whatever seat that names) is this seat's, as the engine charges it.
            raise self._strategy_error(seat, decision, raised_text(error)) from error

    def _strategy_error(self, seat: int, decision: str, message: str, value=None, *,
                        reason: str = "exception") -> StrategyError:
        return StrategyError(message, spec=self.names[seat], seat=seat, game_seed=self.seed, decision=decision,
                             returned=value, shown=move_text(value), reason=reason)
