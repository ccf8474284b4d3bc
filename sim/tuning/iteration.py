"""The canasta side of ``canasta-sim tune``: which games an SPSA iteration plays, and playing them in parallel.

:mod:`canasta_sim.tuning.spsa` proposes two candidate settings of the tuned parameters each iteration,
``plus`` and ``minus``; this module turns them into strategy specs, plays the iteration's deals and
returns the match result the update rule needs, an estimate of ``f(plus) - f(minus)`` where ``f`` is
the expected score per game against a fixed opponent:

* **head to head** (no ``--against``, the fishtest way): each deal is played twice, ``plus`` on side A
  and then on side B with the same cards (:func:`canasta_sim.runs.matchmaking.deal_seed`); the result is
  ``plus``'s mean score per game minus 1/2.  One game measures the difference directly, so this is
  the cheapest estimate;
* **against a fixed opponent** (``--against SPEC``): each deal is played four times, ``plus`` and then
  ``minus`` against the opponent, each on both sides; the result is ``plus``'s mean score minus
  ``minus``'s.  This tunes for beating that opponent, at about twice the games for the same precision.

Iteration ``k``'s deals are ``k * deals + d`` for ``d < deals`` (``deals`` per iteration, from the run
seed), and a deal's games depend only on the specs and the deal's seed, so the result of an iteration,
and with it the whole trajectory, is the same whatever the number of workers and however often the
run was interrupted and resumed.  The runner's chunked Parquet machinery (:mod:`canasta_sim.runs.runner`)
is not used: it plays a fixed set of specs per run, while every iteration here plays two new ones
and needs only their scores.  The games are played by the run's supervisor (:mod:`canasta_sim.runs.supervisor`)
all the same, in worker processes kept for the whole run: strategy code never runs in the tuning's own
process, and a decision past the time limit, a worker that dies or a strategy that raises is the game's
failure, charged to its seat (a forfeit, or the end of the tuning under ``--on-error stop``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Mapping, Sequence

from canasta_sim.core.engine import play_game
from canasta_sim.core.parameters import Parameter, declared_parameters, format_value
from canasta_sim.core.rules import Rules
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.plugins.loader import LoadedStrategy, is_built_in_spec, load_strategy, parse_spec
from canasta_sim.runs.code_guard import CodeGuard
from canasta_sim.runs.failure_log import watch_here
from canasta_sim.runs.matchmaking import deal_seed
from canasta_sim.runs.runner import log_failure
from canasta_sim.runs.supervisor import charged_failure, worker_pool
from canasta_sim.tuning.spsa import Dimension

__all__ = [
    "ON_ERROR_CHOICES",
    "DealTask",
    "MatchPool",
    "MatchResult",
    "TunedStrategy",
    "TuningError",
    "TuningSchedule",
    "iteration_tasks",
    "play_deals",
    "task_games",
    "whole_of_int_parameter",
]

ON_ERROR_CHOICES = ("stop", "forfeit")
"""What a strategy failure does: stop the tuning (keeping finished iterations), or lose the game and go on."""


class TuningError(CanastaError, ValueError):
    """A tuning cannot start or go on: an untunable parameter, a mismatched resume, a strategy failure."""


def whole_of_int_parameter(default, value: float | int) -> int | None:
    """``value`` as an ``int`` when the parameter whose default is ``default`` is an int one and ``value`` a whole
    number (SPSA keeps its point in floats; what a tuning records and prints of an int parameter is whole); ``None``
    otherwise.

    >>> whole_of_int_parameter(5, 3.0), whole_of_int_parameter(5, 3.5), whole_of_int_parameter(0.5, 1.0)
    (3, None, None)
    """
    if type(default) is int and float(value).is_integer():
        return int(value)
    return None


@dataclasses.dataclass(frozen=True)
class TunedStrategy:
    """The strategy being tuned: its spec's target, the parameters the spec fixes, and those tuned.

    :ivar target: the spec without parameters (``expert``, ``bots/bot.py:Bot``).
    :ivar fixed: parameters the spec gave, as text; a tuned one among them is its starting value.
    :ivar names: the tuned parameters, in the order given.
    :ivar declarations: every parameter the class declares.
    """

    target: str
    fixed: tuple[tuple[str, str], ...]
    names: tuple[str, ...]
    declarations: Mapping[str, Parameter]

    @classmethod
    def from_spec(cls, spec: str, names: Sequence[str] | None = None) -> tuple[TunedStrategy, LoadedStrategy]:
        """Load ``spec`` and choose the parameters to tune: ``names``, or every ranged one when ``None``.

        :raises CanastaError: for a spec that does not load (:class:`~canasta_sim.errors.StrategyLoadError`),
            or a name that is not a parameter with a range (:class:`TuningError`).
        """
        loaded = load_strategy(spec)
        target, fixed = parse_spec(spec)
        declarations = declared_parameters(loaded.cls.parameters)
        tunable = [name for name, parameter in declarations.items() if parameter.is_tunable]
        if names is None:
            if not tunable:
                raise TuningError(f"{loaded.label} declares no parameter with a range, so there is nothing to tune; "
                                  "declare ranges with canasta_sim.Parameter(default, low=, high=, step=)")
            names = tunable
        names = tuple(names)
        if not names:
            raise TuningError("--params is empty; name one or more parameters, e.g. --params "
                              f"{','.join(tunable) or 'NAME'}")
        duplicated = sorted({name for name in names if names.count(name) > 1})
        if duplicated:
            raise TuningError(f"--params names {', '.join(duplicated)} twice")
        for name in names:
            if name not in declarations:
                raise TuningError(f"{loaded.label} has no parameter {name!r}; its tunable parameters: "
                                  f"{', '.join(tunable) or 'none'}")
            declaration = declarations[name]
            if not declaration.is_tunable:
                why = "declares no range" if declaration.low is None else \
                    f"has a range of one value ({declaration.range_text()})"
                raise TuningError(f"{loaded.label} parameter {name!r} {why}, so it cannot be tuned; "
                                  f"its tunable parameters: {', '.join(tunable) or 'none'}")
        return cls(target, fixed, names, declarations), loaded

    def dimensions(self) -> list[Dimension]:
        """The SPSA dimensions of the tuned parameters (an int parameter gets whole values)."""
        dimensions = []
        for name in self.names:
            parameter = self.declarations[name]
            integer = isinstance(parameter.default, int)
            dimensions.append(Dimension(name, low=parameter.low, high=parameter.high, step=parameter.grid_step,
                                        integer=integer))
        return dimensions

    def start_values(self, player) -> dict[str, float | int]:
        """The tuned parameters' values in a player built from the spec (the spec's, else the defaults), each of its
        parameter's type."""
        return {name: self.typed(name, getattr(player, name)) for name in self.names}

    def typed(self, name: str, value: float | int) -> float | int:
        """``value`` of parameter ``name`` as its type: an int parameter's whole number as an ``int``
        (:func:`whole_of_int_parameter`), anything else a float.

        >>> tuned = TunedStrategy("expert", (), ("ask_cards",), {"ask_cards": Parameter(5, low=0, high=15)})
        >>> tuned.typed("ask_cards", 5.0), tuned.typed("ask_cards", 5.5)
        (5, 5.5)
        """
        declaration = self.declarations.get(name)
        whole = None if declaration is None else whole_of_int_parameter(declaration.default, value)
        return float(value) if whole is None else whole

    def spec(self, values: Sequence[float | int]) -> str:
        """The spec playing ``values`` of the tuned parameters, other given parameters kept.

        >>> tuned = TunedStrategy("expert", (("ask_cards", "6"),), ("aggression",), {})
        >>> tuned.spec([0.62])
        'expert:ask_cards=6,aggression=0.62'
        """
        chosen = dict(zip(self.names, values, strict=True))
        parts = [f"{key}={value}" for key, value in self.fixed if key not in chosen]
        parts += [f"{name}={format_value(value)}" for name, value in chosen.items()]
        return f"{self.target}:{','.join(parts)}"


@dataclasses.dataclass(frozen=True)
class DealTask:
    """Some consecutive deals of one iteration, sent to a worker."""

    plus: str
    minus: str
    against: str | None
    rules: Rules
    seeds: tuple[int, ...]
    on_error: str
    first_game: int = 0
    """The number of the task's first game in the tuning (iteration ``k`` starts at ``k * games per iteration``)."""


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """The points of one iteration (or some of its deals): a win scores 1, a draw 1/2.

    Head to head, ``minus_points`` is ``games - plus_points``; against an opponent, each side played
    half the games.
    """

    games: int = 0
    plus_points: float = 0.0
    minus_points: float = 0.0
    forfeits: int = 0
    error: str | None = None
    """Under ``on_error='stop'``: the strategy failure that cut the deals short."""
    hand_capped: int = 0
    """Games the engine's guard ended, no side at the target score (``termination`` ``hand_cap``)."""

    def __add__(self, other: MatchResult) -> MatchResult:
        return MatchResult(self.games + other.games, self.plus_points + other.plus_points,
                           self.minus_points + other.minus_points, self.forfeits + other.forfeits,
                           self.error or other.error, self.hand_capped + other.hand_capped)

    def result(self, head_to_head: bool) -> float:
        """The estimate of ``f(plus) - f(minus)`` the update rule takes (see the module's description)."""
        if not self.games:
            raise ValueError("no game was played, so there is no result")
        if head_to_head:
            return self.plus_points / self.games - 0.5
        half = self.games / 2
        return self.plus_points / half - self.minus_points / half


def iteration_tasks(plus: str, minus: str, against: str | None, rules: Rules, seed: int, iteration: int,
                    deals: int, parts: int, on_error: str = "stop") -> list[DealTask]:
    """Iteration ``iteration``'s deals, split into at most ``parts`` tasks of consecutive deals."""
    seeds = [deal_seed(seed, iteration * deals + index) for index in range(deals)]
    parts = max(1, min(parts, deals))
    size, extra = divmod(deals, parts)
    games_per_deal = 2 if against is None else 4
    tasks, start = [], 0
    for part in range(parts):
        end = start + size + (part < extra)
        first_game = (iteration * deals + start) * games_per_deal
        tasks.append(DealTask(plus, minus, against, rules, tuple(seeds[start:end]), on_error, first_game))
        start = end
    return tasks


_loaded: dict[str, LoadedStrategy] = {}


def _strategy(spec: str) -> LoadedStrategy:
    loaded = _loaded.get(spec)
    if loaded is None:
        if len(_loaded) > 64:  # every iteration brings two new specs; keep the cache small
            _loaded.clear()
        loaded = _loaded[spec] = load_strategy(spec)
    return loaded


def task_games(task: DealTask) -> list[tuple[int, tuple[str, str], int, str]]:
    """``(deal seed, (side A's spec, side B's spec), the tuned candidate's side, 'plus' or 'minus')`` of each
    game of a task, in the order they are played (game ``task.first_game + index``)."""
    games = []
    for seed in task.seeds:
        pairs = [(task.plus, task.minus, "plus")] if task.against is None else [
            (task.plus, task.against, "plus"), (task.minus, task.against, "minus")]
        for tuned, opponent, which in pairs:
            for side in (0, 1):  # the same cards with the tuned candidate on side A, then on side B
                games.append((seed, (tuned, opponent) if side == 0 else (opponent, tuned), side, which))
    return games


def _play(players: tuple[str, str], seed: int, rules: Rules, time_limit: float | None, monitor=None):
    """One game with ``players[0]`` on side A: its result, or the failure that ended it."""
    first, second = (_strategy(spec) for spec in players)
    try:
        return play_game([first, second, first, second], seed=seed, rules=rules, names=[*players, *players],
                         time_limit=time_limit, monitor=monitor)
    except StrategyError as error:
        return error


def _points(task: DealTask, game: tuple, outcome) -> MatchResult:
    """The points of one game (a :class:`GameResult` or the :class:`StrategyError` that ended it)."""
    seed, players, side, which = game
    if isinstance(outcome, StrategyError):
        if task.on_error == "stop":
            # The failure names the game's seed, which is the deal's: said once.  The candidates' specs carry their
            # perturbed values, so that watch plays the very game; a tuning directory has no game to replay.
            return MatchResult(error=f"{' '.join(str(outcome).split())} (reason: {outcome.reason}); "
                                     f"{watch_here(seed, players, task.rules)}")
        score, forfeits, capped = (0.0 if outcome.seat % 2 == side else 1.0), 1, 0  # the failing seat's side loses
    else:
        score, forfeits = (0.5 if outcome.winner is None else float(outcome.winner == side)), 0
        capped = int(outcome.termination == "hand_cap")
    if task.against is None:
        return MatchResult(1, score, 1.0 - score, forfeits, hand_capped=capped)
    if which == "plus":
        return MatchResult(1, score, 0.0, forfeits, hand_capped=capped)
    return MatchResult(1, 0.0, score, forfeits, hand_capped=capped)


def play_deals(task: DealTask, time_limit: float | None = None) -> MatchResult:
    """Play a task's deals in this process and add up the points (stops at a failure under ``'stop'``).

    The tuning itself plays the same games in supervised workers (:class:`MatchPool`); this is their
    in-process counterpart, for tests and for playing a task by hand.  Each game is checked after it for
    rebound engine code, as the workers' are (:class:`~canasta_sim.runs.code_guard.CodeGuard`, reason
    ``tampering``).
    """
    total = MatchResult()
    guard = CodeGuard()
    for game in task_games(task):
        seed, players, _, _ = game
        sides = tuple(_strategy(spec) for spec in players)
        guard.add(sides)
        outcome = guard.checked(_play(players, seed, task.rules, time_limit), sides, seed)
        points = _points(task, game, outcome)
        total = total + points
        if points.error:
            break
    return total


class TuningSchedule:
    """The games of a tuning's tasks as :mod:`canasta_sim.runs.supervisor` plays them: a chunk is a
    :class:`DealTask`."""

    def __init__(self, time_limit: float | None) -> None:
        self.time_limit = time_limit

    def chunk_games(self, task: DealTask) -> range:
        """The numbers of the task's games (counted from the tuning's first game)."""
        return range(task.first_game, task.first_game + len(task_games(task)))

    def new_player(self, on_error: str, stop_event) -> _TaskPlayer:
        """The worker's player (strategies are loaded as their specs come)."""
        return _TaskPlayer(self.time_limit, on_error)

    def charge(self, task: DealTask, game_id: int, seat: int, decision: str, reason: str,
               message: str) -> StrategyError:
        """The failure of a game lost with its worker."""
        seed, players, _, _ = task_games(task)[game_id - task.first_game]
        return charged_failure(players[seat % 2], seed, seat, decision, reason, message)

    def is_built_in(self, task: DealTask, game_id: int, seat: int) -> bool:
        """Whether ``seat`` plays a built-in strategy in the worker (a tuned ``expert``, an ``--against greedy``):
        judged here, from the task's specs, as the worker also runs the other strategies' code.  A death in its call
        is no forfeit: the game is played again (:mod:`canasta_sim.runs.supervisor`)."""
        _, players, _, _ = task_games(task)[game_id - task.first_game]
        return is_built_in_spec(players[seat % 2])

    def new_book(self, task: DealTask, on_error: str) -> _TaskBook:
        """The task's points as its games come in."""
        return _TaskBook(task)


class _TaskPlayer:
    """Plays one game of a task in a worker and sends back its points (or its failure); each game is checked
    after it as ``run``'s are (:class:`~canasta_sim.runs.code_guard.CodeGuard`)."""

    def __init__(self, time_limit: float | None, on_error: str) -> None:
        self.time_limit = time_limit
        self.on_error = on_error
        self.guard = CodeGuard()

    def loaded_strategies(self, task: DealTask) -> list[LoadedStrategy]:
        """The strategies of the task's games (:func:`~canasta_sim.runs.interleave.games_at_once` reads their
        bots' widths)."""
        specs = dict.fromkeys(spec for _, players, _, _ in task_games(task) for spec in players)
        return [_strategy(spec) for spec in specs]

    def play_game(self, task: DealTask, game_id: int, monitor):
        game = task_games(task)[game_id - task.first_game]
        seed, players, _, _ = game
        sides = tuple(_strategy(spec) for spec in players)
        self.guard.add(sides)  # every candidate is the same class: watched from its first game on
        outcome = self.guard.checked(_play(players, seed, task.rules, self.time_limit, monitor), sides, seed)
        if isinstance(outcome, StrategyError):
            log_failure(game_id, outcome, self.on_error)
            return outcome, None
        return _points(task, game, outcome), None


class _TaskBook:
    """A task's points in the supervisor: the games played, in order, up to the first failure under ``'stop'``."""

    def __init__(self, task: DealTask) -> None:
        self.task = task
        self.games = task_games(task)
        self.total = MatchResult()
        self.error = None

    def add(self, game_id: int, outcome, extra=None) -> bool:
        if isinstance(outcome, StrategyError):
            outcome = _points(self.task, self.games[game_id - self.task.first_game], outcome)
        if self.total.error is None:
            self.total = self.total + outcome
        return True  # a failure is the iteration's to report, in task order (MatchPool.play)

    def finish(self, directory) -> _TaskBook:
        return self


class MatchPool:
    """Supervised worker processes (:mod:`canasta_sim.runs.supervisor`) kept for a whole tuning run: strategy code
    never runs in this process, a decision past ``time_limit`` or a worker that dies is charged to its seat.

    Use it as a context manager; leaving it by an exception (a second Ctrl-C) kills the workers, whose
    unfinished iteration is not needed.  Setting :attr:`stop_event` (Ctrl-C or SIGTERM, through
    :func:`~canasta_sim.runs.stopping.stop_on_signals`) stops them as ``run``'s are stopped: each finishes its game,
    those still busy after :data:`~canasta_sim.runs.supervisor.STOP_GRACE_SECONDS` are killed.

    :param on_error: the tasks' policy (workers stop a task at its first failure under ``'stop'``).
    :param memory_limit: megabytes of address space each worker may use.
    :param log_handlers: where the workers' log records go (what strategies print, failures).
    """

    def __init__(self, workers: int, *, on_error: str = "stop", time_limit: float | None = None,
                 memory_limit: int | None = None, log_handlers: Sequence[logging.Handler] = ()) -> None:
        self.workers = workers
        self._stack = contextlib.ExitStack()
        self._pool = self._stack.enter_context(worker_pool(TuningSchedule(time_limit), workers=workers,
                                                           on_error=on_error, log_handlers=log_handlers,
                                                           memory_limit=memory_limit))

    @property
    def stop_event(self):
        """The workers' stop event: set, the games being played end (see above) and :meth:`play` returns ``None``."""
        return self._pool.stop_event

    def play(self, tasks: Sequence[DealTask]) -> MatchResult | None:
        """Play every task and return their total (tasks in order, so a failure reported is the first), or
        ``None`` when :attr:`stop_event` was set before they were all played (the iteration is dropped).

        :raises TuningError: when a task ended neither complete nor at a failure and nobody stopped the pool.
        """
        books: dict[DealTask, _TaskBook] = {}
        self._pool.play(tasks, lambda book: books.__setitem__(book.task, book))
        total = MatchResult()
        for task in tasks:
            book = books.get(task)
            if book is None or (book.total.error is None and book.total.games != len(book.games)):
                if self.stop_event.is_set():
                    return None
                raise TuningError("the iteration's games were not all played (its workers were stopped)")
            total = total + book.total
        return total

    def __enter__(self) -> MatchPool:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self._stack.close()
