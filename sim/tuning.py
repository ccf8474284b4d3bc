"""The canasta side of ``canasta-sim tune``: which games an SPSA iteration plays, and playing them in parallel.

:mod:`canasta_sim.spsa` proposes two candidate settings of the tuned parameters each iteration,
``plus`` and ``minus``; this module turns them into strategy specs, plays the iteration's deals and
returns the match result the update rule needs, an estimate of ``f(plus) - f(minus)`` where ``f`` is
the expected score per game against a fixed opponent:

* **head to head** (no ``--against``, the fishtest way): each deal is played twice, ``plus`` on side A
  and then on side B with the same cards (:func:`canasta_sim.matchmaking.deal_seed`); the result is
  ``plus``'s mean score per game minus 1/2.  One game measures the difference directly, so this is
  the cheapest estimate;
* **against a fixed opponent** (``--against SPEC``): each deal is played four times, ``plus`` and then
  ``minus`` against the opponent, each on both sides; the result is ``plus``'s mean score minus
  ``minus``'s.  This tunes for beating that opponent, at about twice the games for the same precision.

Iteration ``k``'s deals are ``k * deals + d`` for ``d < deals`` (``deals`` per iteration, from the run
seed), and a deal's games depend only on the specs and the deal's seed, so the result of an iteration,
and with it the whole trajectory, is the same whatever the number of workers and however often the
run was interrupted and resumed.  The runner's chunked Parquet machinery (:mod:`canasta_sim.runner`)
is not used: it plays a fixed set of specs per run, while every iteration here plays two new ones
and needs only their scores; the worker pool is kept for the whole run instead.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import signal
from collections.abc import Mapping, Sequence
from typing import Any

from canasta_sim.engine import play_game
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.loader import LoadedStrategy, load_strategy, parse_spec
from canasta_sim.matchmaking import deal_seed
from canasta_sim.parameters import Parameter, declared_parameters, format_value
from canasta_sim.rules import Rules
from canasta_sim.spsa import Dimension

__all__ = [
    "ON_ERROR_CHOICES",
    "DealTask",
    "MatchPool",
    "MatchResult",
    "TunedStrategy",
    "TuningError",
    "iteration_tasks",
    "play_deals",
]

ON_ERROR_CHOICES = ("stop", "forfeit")
"""What a strategy failure does: stop the tuning (keeping finished iterations), or lose the game and go on."""


class TuningError(CanastaError, ValueError):
    """A tuning cannot start or go on: an untunable parameter, a mismatched resume, a strategy failure."""


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
                                  "declare ranges with canasta_sim.parameters.Parameter(default, low=, high=, step=)")
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
            if not declarations[name].is_tunable:
                raise TuningError(f"{loaded.label} parameter {name!r} declares no range, so it cannot be tuned; "
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

    def start_values(self, player) -> dict[str, float]:
        """The tuned parameters' values in a player built from the spec (the spec's, else the defaults)."""
        return {name: float(getattr(player, name)) for name in self.names}

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

    def __add__(self, other: MatchResult) -> MatchResult:
        return MatchResult(self.games + other.games, self.plus_points + other.plus_points,
                           self.minus_points + other.minus_points, self.forfeits + other.forfeits,
                           self.error or other.error)

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
    tasks, start = [], 0
    for part in range(parts):
        end = start + size + (part < extra)
        tasks.append(DealTask(plus, minus, against, rules, tuple(seeds[start:end]), on_error))
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


def _score(players: tuple[str, str], side: int, seed: int, rules: Rules, on_error: str) -> tuple[float, int, str]:
    """``players[side]``'s score in one game where ``players[0]`` is side A; a forfeit count; a failure."""
    first, second = (_strategy(spec) for spec in players)
    try:
        result = play_game([first, second, first, second], seed=seed, rules=rules, names=[*players, *players])
    except StrategyError as error:
        if on_error == "stop":
            return 0.0, 0, f"deal seed {seed}: {' '.join(str(error).split())}"
        return (0.0 if error.seat % 2 == side else 1.0), 1, ""
    return (0.5 if result.winner is None else float(result.winner == side)), 0, ""


def play_deals(task: DealTask) -> MatchResult:
    """Play a task's deals in this process and add up the points (stops at a failure under ``'stop'``)."""
    total = MatchResult()
    for seed in task.seeds:
        games = [(task.plus, task.minus, "plus")] if task.against is None else [
            (task.plus, task.against, "plus"), (task.minus, task.against, "minus")]
        deal = MatchResult()
        for tuned, opponent, which in games:
            for side in (0, 1):  # the same cards with the tuned candidate on side A, then on side B
                players = (tuned, opponent) if side == 0 else (opponent, tuned)
                score, forfeits, error = _score(players, side, seed, task.rules, task.on_error)
                if error:
                    return total + MatchResult(error=error)
                if task.against is None:
                    points = MatchResult(1, score, 1.0 - score, forfeits)
                elif which == "plus":
                    points = MatchResult(1, score, 0.0, forfeits)
                else:
                    points = MatchResult(1, 0.0, score, forfeits)
                deal = deal + points
        total = total + deal
    return total


def _initialize_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


class MatchPool:
    """Worker processes kept for a whole tuning run; ``workers=1`` plays in this process.

    Use it as a context manager; leaving it by an exception (Ctrl-C) terminates the workers, whose
    unfinished iteration is not needed.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Any = None
        if workers > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self._pool = context.Pool(workers, initializer=_initialize_worker)

    def play(self, tasks: Sequence[DealTask]) -> MatchResult:
        """Play every task and return their total (tasks in order, so a failure reported is the first)."""
        if self._pool is None:
            results = [play_deals(task) for task in tasks]
        else:
            results = self._pool.map(play_deals, tasks, chunksize=1)
        total = MatchResult()
        for result in results:
            total = total + result
        return total

    def __enter__(self) -> MatchPool:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is None:
            return
        if kind is None:
            self._pool.close()
        else:
            self._pool.terminate()
        self._pool.join()
