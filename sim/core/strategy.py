"""The strategy plugin interface.

A strategy is a small class.  The engine makes one instance per seat, hands
it its own :class:`random.Random` (never use the global one), and asks it for
each decision of its turns with a :class:`~canasta_sim.core.view.SeatView` of what that
seat may know::

    class FirstLegal(Strategy):
        name = "first-legal"
        version = 1
        description = "Plays the first legal move listed."

        def choose_acquire(self, view):
            return next(view.legal_acquires())

        def choose_discard(self, view):
            return next(view.legal_discards())

A turn asks, in order: :meth:`~Strategy.choose_acquire`; then, if asking is
allowed, :meth:`~Strategy.choose_ask` (and the partner's
:meth:`~Strategy.answer_go_out`); then :meth:`~Strategy.choose_meld` again
and again until it returns ``None``; then :meth:`~Strategy.choose_discard`.
Every answer is checked; a strategy that raises, returns a malformed or
illegal decision, or overruns ``play_game``'s per-decision ``time_limit``
stops the game with a :class:`~canasta_sim.errors.StrategyError` naming its spec,
seat, game seed, the decision asked and the value returned (with the rule
broken, for an illegal move).

Parameters: a class lists them with defaults in ``parameters``; a spec such
as ``expert:aggression=0.7`` passes ``aggression='0.7'``, converted to the
default's type.  A default may be wrapped in a
:class:`~canasta_sim.core.parameters.Parameter` declaring the range and step that
values are checked against and ``canasta-sim tune`` explores.  The version
changes only when behaviour changes.

A strategy decides from its :class:`~canasta_sim.core.view.SeatView` and from the
:class:`PublicEvent` records its :meth:`~Strategy.on_event` hook receives,
nothing else: never another player's hand or the stock.  In-process that is a
fairness convention, not a sandbox; ``isolated:SPEC`` runs the same class in a
process of its own that receives nothing else (:mod:`canasta_sim.plugins.proxy`).  Randomness
comes only from ``self.rng``, so a game is reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from canasta_sim.core.moves import Discard, Meld, Move
from canasta_sim.core.parameters import Parameter, convert_parameter
from canasta_sim.errors import StrategyLoadError

if TYPE_CHECKING:  # the decisions' types, named for type checkers only: these modules import more of the core
    from canasta_sim.core.kernels import CardMemory
    from canasta_sim.core.scoring import HandResult
    from canasta_sim.core.view import SeatView

__all__ = ["PublicEvent", "SeatRandom", "Strategy"]

class PublicEvent:
    """Something every player at the table sees happen; immutable, equal and hashable by its fields.

    :ivar seat: who acted.
    :ivar move: the move; a :class:`~canasta_sim.core.moves.Draw` hides the card drawn.
    :ivar red_threes: red 3s laid down during this move (drawn and replaced, or found in a taken pile).
    """

    # A C struct where compiled (sim/core/strategy.pxd): the engine builds one event per move.
    __slots__ = ("_seat", "_move", "_red_threes")

    def __init__(self, seat: int, move: Move, red_threes: int = 0) -> None:
        self._seat = seat
        self._move = move
        self._red_threes = red_threes

    @property
    def seat(self) -> int:
        """Who acted."""
        return self._seat

    @property
    def move(self) -> Move:
        """The move; a :class:`~canasta_sim.core.moves.Draw` hides the card drawn."""
        return self._move

    @property
    def red_threes(self) -> int:
        """Red 3s laid down during this move."""
        return self._red_threes

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self._seat, self._move, self._red_threes) == (other.seat, other.move, other.red_threes)

    def __hash__(self) -> int:
        return hash((self._seat, self._move, self._red_threes))

    def __repr__(self) -> str:
        return f"PublicEvent(seat={self._seat!r}, move={self._move!r}, red_threes={self._red_threes!r})"

    def __reduce__(self):
        return (PublicEvent, (self._seat, self._move, self._red_threes))


_random_method = random.Random.random  # the generator's C methods
_getrandbits_method = random.Random.getrandbits


class SeatRandom(random.Random):
    """The generator the engine gives each seat's strategy: a :class:`random.Random` seeded with
    ``seed`` that also tells which seat it serves and the decision time limit.

    A strategy uses it like any ``random.Random``.  A strategy that runs in another process (see
    :mod:`canasta_sim.plugins.proxy`) reads :attr:`initial_seed` so that the process builds the very same
    generator, and :attr:`seat` and :attr:`time_limit` to serve that seat within the limit.
    """

    def __init__(self, seed: int | None = None, *, seat: int | None = None, time_limit: float | None = None) -> None:
        # Seeding from an int is dear (it hashes the seed into the whole state) and the built-in bots never
        # draw: an int seed is applied at the first use (_seed_now), which draws the same numbers.  Others
        # (None) at once.
        self._deferred_seed = type(seed) is int
        if self._deferred_seed:
            self._seed = seed
            self.gauss_next = None  # as random.Random.__init__ leaves it
        else:
            super().__init__(seed)
            self._bind()
        self.initial_seed = seed
        """The seed this generator was made from."""
        self.seat = seat
        """The seat whose strategy it serves, or ``None``."""
        self.time_limit = time_limit
        """Seconds one decision may take, or ``None`` for no limit."""

    def _seed_now(self, seeding: bool = True) -> None:
        if self._deferred_seed:
            self._deferred_seed = False
            self._bind()
            if seeding:  # (random.Random.seed clears gauss_next, unused so far)
                random.Random.seed(self, self._seed)

    def _bind(self) -> None:
        # The C methods on the instance, ahead of the class's deferring ones: later draws call them directly.
        self.random = _random_method.__get__(self)
        self.getrandbits = _getrandbits_method.__get__(self)

    # random.Random's draws all end in random() or getrandbits().

    def random(self) -> float:
        """random.Random.random, after the deferred seed."""
        self._seed_now()
        return _random_method(self)

    def getrandbits(self, k: int) -> int:
        """random.Random.getrandbits, after the deferred seed."""
        self._seed_now()
        return _getrandbits_method(self, k)

    def seed(self, a=None, version: int = 2) -> None:
        """random.Random.seed, which replaces the deferred seed."""
        self._seed_now(False)
        super().seed(a, version)

    def getstate(self) -> tuple:
        """random.Random.getstate, after the deferred seed."""
        self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple) -> None:
        """random.Random.setstate, which replaces the deferred seed."""
        self._seed_now(False)
        super().setstate(state)


class Strategy:
    """Base class of every strategy; override the decisions you need.

    :param rng: the strategy's own random generator, seeded by the engine from the game's seed.
    :param parameters: values for the keys of :attr:`parameters`, as text or typed values.
    :raises StrategyLoadError: for an unknown parameter or a value of the wrong type.
    """

    name: ClassVar[str] = "unnamed"
    """Short name used in specs and results."""
    version: ClassVar[int] = 1
    """Bumped only when the strategy's play changes."""
    description: ClassVar[str] = ""
    """One line for ``canasta-sim strategies``."""
    parameters: ClassVar[Mapping[str, Any]] = {}
    """Parameter names and their defaults, each a plain value or a :class:`~canasta_sim.core.parameters.Parameter`
    (a default with the range a tuner may explore)."""

    def __init__(self, rng: random.Random, **parameters: Any) -> None:
        self.rng = rng
        for key, default in self.parameters.items():
            setattr(self, key, default.default if isinstance(default, Parameter) else default)
        for key, value in parameters.items():
            if key not in self.parameters:
                known = ", ".join(sorted(self.parameters)) or "none"
                raise StrategyLoadError(f"strategy {self.name!r} has no parameter {key!r}; its parameters: {known}")
            setattr(self, key, convert_parameter(self.name, key, self.parameters[key], value))

    # ------------------------------------------------------------ decisions

    def choose_acquire(self, view: SeatView) -> Move:
        """Begin the turn: return ``Draw()``, a ``TakePile(...)`` or, on an empty stock, ``Stop()``."""
        raise NotImplementedError(f"strategy {self.name!r} does not implement choose_acquire")

    def choose_ask(self, view: SeatView) -> bool:
        """Return ``True`` to ask the partner "may I go out?" (called only when asking is legal, R12.5)."""
        return False

    def answer_go_out(self, view: SeatView) -> bool:
        """The partner asked to go out: answer ``True`` (yes) or ``False`` (no); the answer binds."""
        return True

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Return a :class:`~canasta_sim.core.moves.Meld` to lay now, or ``None`` to stop melding this turn."""
        return None

    def choose_discard(self, view: SeatView) -> Discard:
        """End the turn with a :class:`~canasta_sim.core.moves.Discard`."""
        raise NotImplementedError(f"strategy {self.name!r} does not implement choose_discard")

    # ------------------------------------------------------------ hooks

    def on_hand_start(self, view: SeatView) -> None:
        """Called when a hand has been dealt (dealt red 3s already laid)."""

    def on_event(self, event: PublicEvent) -> None:
        """Called after every move anyone makes; override it to remember what the table has seen."""

    def event_follower(self) -> CardMemory | None:
        """Return the hand's event follower, or ``None`` (the default): asked once a hand, after
        :meth:`on_hand_start`.

        An event follower is a :class:`~canasta_sim.core.kernels.CardMemory` (exactly that class) that the
        engine itself brings up to date after every move of the hand (``memory.follow(seat, move)``), in
        compiled code, and *instead of* calling :meth:`on_event`: the strategy whose ``on_event`` only passes
        each event to its memory (``self.memory.observe(event)``) returns that memory here, and saves a call
        into Python per move.  The engine asks for it only where one class defines both methods (a subclass
        that overrides ``on_event`` alone, to hear more, has it called as before).  Keep ``on_event`` all the
        same: a strategy run in a process of its own (``isolated:``) hears the events only through it.
        """
        return None

    def on_hand_end(self, result: HandResult) -> None:
        """Called with the :class:`~canasta_sim.core.scoring.HandResult` of each finished hand."""

    @classmethod
    def label(cls) -> str:
        """``name@version``, as results record it."""
        return f"{cls.name}@{cls.version}"

