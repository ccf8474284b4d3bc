"""A tuning run on disk and its loop: settings, ``tune.json``, ``trajectory.parquet``, resume.

Layout of a tuning run's directory::

    TUNE_DIR/
        tune.json            settings, versions, parameters and their ranges, status, final values
        trajectory.parquet   one row per finished iteration

A row of the trajectory holds the iteration's number ``iteration``, its ``games``, the points of the
two candidates (``plus_points``, ``minus_points``: a win 1, a draw 1/2), ``forfeits``, ``hand_capped`` (games the
engine's guard ended after 400 hands; null in iterations played before it was counted), the ``result``
given to the update rule, the gains ``step_gain`` (``a_k``) and ``perturbation_gain`` (``c_k``), and
for each tuned parameter ``p``: ``theta.p`` (the point after the update, unrounded), ``plus.p`` and
``minus.p`` (the values played: integers for an int parameter, else floats) and ``delta.p`` (the perturbation's
sign).

The trajectory is rewritten (atomically) after every iteration, so an interrupted run keeps every
finished iteration, and ``--resume`` continues from the last row's ``theta`` values, which are stored
as they were computed (float64): a resumed run ends exactly where an uninterrupted one does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import random
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from canasta_sim import ENGINE_VERSION, __version__
from canasta_sim.core.parameters import format_value
from canasta_sim.core.rules import Rules
from canasta_sim.errors import CanastaError, RulesError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.runs.stopping import stop_on_signals as signals_stop
from canasta_sim.runs.storage import parquet_path, stamped, write_atomically
from canasta_sim.tuning.iteration import (
    ON_ERROR_CHOICES,
    MatchPool,
    TunedStrategy,
    TuningError,
    iteration_tasks,
    whole_of_int_parameter,
)
from canasta_sim.tuning.spsa import ALPHA, GAMMA, SettingError, Spsa, SpsaSettings

__all__ = [
    "TRAJECTORY_FILE",
    "TUNE_FILE",
    "TuningDirectory",
    "TuningOutcome",
    "TuningSettings",
    "is_tuning_run",
    "outcome_on_disk",
    "run_tuning",
]

TUNE_FILE = "tune.json"
TRAJECTORY_FILE = "trajectory.parquet"
MANIFEST_FORMAT = 1
"""Version of the ``tune.json`` layout."""


def is_tuning_run(path: str | Path) -> bool:
    """Whether ``path`` is the directory of a tuning run (it holds ``tune.json``)."""
    return (Path(path) / TUNE_FILE).is_file()


@dataclasses.dataclass(frozen=True, kw_only=True)
class TuningSettings:
    """What fixes a tuning run's trajectory.

    :ivar spec: the strategy tuned, as given; its parameters fix the untuned ones and start the tuned ones.
    :ivar params: the tuned parameters; ``None`` tunes every parameter with a declared range.
    :ivar against: the fixed opponent, or ``None`` to play the two candidates head to head.
    :ivar games: the budget; ``games // games_per_iteration`` iterations are played.
    :ivar games_per_iteration: games of one iteration: a multiple of 2 head to head, of 4 against an opponent.
    :ivar time_limit: seconds one decision may take (``None``: no limit, as in ``run``); a slower one is the
        seat's failure (reason ``timeout``), handled by ``on_error``.
    """

    spec: str
    params: tuple[str, ...] | None
    against: str | None
    games: int
    games_per_iteration: int
    seed: int
    rules: Rules = dataclasses.field(default_factory=Rules)
    learning_rate: float = 0.3
    perturbation: float = 0.2
    stability: float | None = None
    on_error: str = "stop"
    time_limit: float | None = None

    def __post_init__(self) -> None:
        per_deal = self.games_per_deal
        if self.games_per_iteration < per_deal or self.games_per_iteration % per_deal:
            mode = "against an opponent (each deal: both candidates, both sides)" if self.against else \
                "head to head (each deal twice, sides swapped)"
            raise ValueError(f"--games-per-iteration must be a positive multiple of {per_deal} {mode}; "
                             f"got {self.games_per_iteration}")
        if self.games < self.games_per_iteration:
            raise ValueError(f"--games {self.games} is less than one iteration ({self.games_per_iteration} games)")
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"--time-limit must be a positive number of seconds; got {self.time_limit}")
        if self.on_error not in ON_ERROR_CHOICES:
            raise ValueError(f"on_error={self.on_error!r} is not accepted; use one of: {', '.join(ON_ERROR_CHOICES)}")
        self.spsa_settings()  # validates the gains

    @property
    def games_per_deal(self) -> int:
        """2 head to head, 4 against an opponent."""
        return 2 if self.against is None else 4

    @property
    def deals_per_iteration(self) -> int:
        """Deals of one iteration."""
        return self.games_per_iteration // self.games_per_deal

    @property
    def iterations(self) -> int:
        """Iterations the budget buys."""
        return self.games // self.games_per_iteration

    def spsa_settings(self) -> SpsaSettings:
        """The update rule's settings."""
        return SpsaSettings(iterations=self.iterations, seed=self.seed, learning_rate=self.learning_rate,
                            perturbation=self.perturbation, stability=self.stability)

    def manifest_fields(self) -> dict[str, Any]:
        """The settings as ``tune.json`` records them."""
        return {
            "spec": self.spec,
            "params": None if self.params is None else list(self.params),
            "against": self.against,
            "games": self.games,
            "games_per_iteration": self.games_per_iteration,
            "iterations": self.iterations,
            "seed": self.seed,
            "rules": self.rules.options(),
            "rules_changed": self.rules.changed_options(),
            "spsa": {"learning_rate": self.learning_rate, "perturbation": self.perturbation,
                     "stability": self.stability, "stability_used": self.spsa_settings().stability_constant,
                     "alpha": ALPHA, "gamma": GAMMA},
            "on_error": self.on_error,
            "time_limit": self.time_limit,
        }

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any], where: str = TUNE_FILE) -> TuningSettings:
        """Rebuild the settings a ``tune.json`` records.

        :raises TuningError: naming the missing or malformed entry.
        """
        try:
            spsa = manifest["spsa"]
            return cls(spec=manifest["spec"], params=None if manifest["params"] is None else tuple(manifest["params"]),
                       against=manifest["against"], games=int(manifest["games"]),
                       games_per_iteration=int(manifest["games_per_iteration"]), seed=int(manifest["seed"]),
                       rules=Rules.from_mapping(manifest["rules"]), learning_rate=float(spsa["learning_rate"]),
                       perturbation=float(spsa["perturbation"]),
                       stability=None if spsa["stability"] is None else float(spsa["stability"]),
                       on_error=manifest.get("on_error", "stop"),
                       time_limit=None if manifest.get("time_limit") is None else float(manifest["time_limit"]))
        except KeyError as error:
            raise TuningError(f"{where} has no entry {error.args[0]!r}; it was not written by canasta-sim tune"
                              ) from None
        except SettingError as error:  # named as tune.json names it, where it was found
            field = f"spsa.{error.field}" if error.field in spsa else error.field
            raise TuningError(f"{where} is malformed: its {error.told_as(field)}") from None
        except (TypeError, ValueError, RulesError) as error:
            raise TuningError(f"{where} is malformed: {error}") from None


class TuningDirectory:
    """A tuning run's directory: ``tune.json`` and ``trajectory.parquet``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def manifest_path(self) -> Path:
        """``tune.json``."""
        return self.path / TUNE_FILE

    @property
    def trajectory_path(self) -> Path:
        """``trajectory.parquet``."""
        return self.path / TRAJECTORY_FILE

    def read_manifest(self) -> dict[str, Any]:
        """The parsed ``tune.json``.

        :raises TuningError: when it is missing or not JSON.
        """
        if not self.path.is_dir():
            raise TuningError(f"{self.path} does not exist or is not a directory")
        try:
            return _typed_parameters(json.loads(self.manifest_path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise TuningError(f"{self.path} is not a tuning run: it holds no {TUNE_FILE}") from None
        except (OSError, ValueError) as error:
            raise TuningError(f"{self.manifest_path} cannot be read: {error}") from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write ``tune.json`` atomically."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise TuningError(f"{self.path} cannot be created: {error.strerror or error}") from None
        text = json.dumps(manifest, indent=2) + "\n"
        write_atomically(self.manifest_path, lambda path: path.write_text(text, encoding="utf-8"))

    def read_trajectory(self) -> pa.Table | None:
        """The trajectory table, or ``None`` when no iteration has finished yet."""
        if not self.trajectory_path.is_file():
            return None
        try:
            return pq.read_table(parquet_path(self.trajectory_path))
        except (OSError, pa.ArrowException) as error:
            raise TuningError(f"{self.trajectory_path} cannot be read: {error}") from None

    def write_trajectory(self, rows: list[dict[str, Any]], names: tuple[str, ...],
                         integers: Collection[str] = ()) -> None:
        """Write every row so far atomically, with the same column types whether or not the run was resumed
        (``integers``: the int parameters among ``names``), and what wrote it in its metadata as a run's parts have
        it (:func:`~canasta_sim.runs.storage.stamped`)."""
        table = pa.Table.from_pylist(rows, schema=trajectory_schema(names, integers))
        write_atomically(self.trajectory_path, lambda path: pq.write_table(stamped(table), parquet_path(path)))


def trajectory_schema(names: tuple[str, ...], integers: Collection[str] = (), *,
                      hand_capped: bool = True) -> pa.Schema:
    """The columns of ``trajectory.parquet`` for the tuned parameters ``names``, of which ``integers`` are int
    parameters: their values played are stored as integers, as they were played; ``hand_capped=False``: those of a
    trajectory written before that count was kept."""
    fields = [("iteration", pa.int64()), ("games", pa.int64()), ("plus_points", pa.float64()),
              ("minus_points", pa.float64()), ("forfeits", pa.int64()),
              *([("hand_capped", pa.int64())] if hand_capped else []), ("result", pa.float64()),
              ("step_gain", pa.float64()), ("perturbation_gain", pa.float64())]
    for name in names:
        played = pa.int64() if name in integers else pa.float64()
        fields += [(f"theta.{name}", pa.float64()), (f"plus.{name}", played),
                   (f"minus.{name}", played), (f"delta.{name}", pa.int8())]
    return pa.schema(fields)


@dataclasses.dataclass(frozen=True)
class TuningOutcome:
    """Where a tuning run stands after a session."""

    names: tuple[str, ...]
    start: tuple[float | int, ...]
    """The starting point, each value of its parameter's type."""
    theta: tuple[float, ...]
    """The point reached, unrounded."""
    values: tuple[float | int, ...]
    """The point reached, rounded to each parameter's step."""
    spec: str
    """The strategy spec playing ``values``."""
    iterations_done: int
    iterations: int
    games_done: int
    status: str
    """``'finished'``, ``'interrupted'`` or ``'stopped'``."""
    hand_capped: int = 0
    """Games the engine's guard ended, no side at the target score, of the ``capped_known`` games."""
    capped_known: int = 0
    """Games whose ending is known: all but those of iterations played before the trajectory counted them."""


def run_tuning(
    settings: TuningSettings,
    directory: TuningDirectory,
    *,
    workers: int,
    on_iteration: Callable[[dict[str, Any], tuple[float | int, ...]], None] = lambda row, values: None,
    should_stop: Callable[[], bool] = lambda: False,
    memory_limit: int | None = None,
    log_handlers: Sequence[logging.Handler] = (),
    stop_on_signals: bool = False,
) -> TuningOutcome:
    """Play the iterations not yet in ``directory``'s trajectory, saving each as it ends.

    :param on_iteration: called with each new row and the rounded point after it.
    :param should_stop: checked before each iteration; ``True`` ends the session as interrupted.
    :param stop_on_signals: make the first Ctrl-C or SIGTERM stop the workers as ``run``'s are stopped
        (:func:`canasta_sim.runs.stopping.stop_on_signals`): each finishes its game, those still busy two seconds
        later are killed, the unfinished iteration is dropped and the session ends as interrupted; a second
        Ctrl-C raises :class:`KeyboardInterrupt` at once.  Finished iterations are on disk either way.
    :param memory_limit: megabytes of address space each worker process may use.
    :param log_handlers: where the workers' log records go (failures, what strategies print).
    :raises TuningError: for a strategy failure under ``on_error='stop'`` (finished iterations are kept),
        or a trajectory that does not belong to these settings.
    :raises CanastaError: when a strategy does not load.
    """
    tuned, spsa, start, rows, theta = _state_on_disk(settings, directory)
    if settings.against is not None:
        load_strategy(settings.against)
        close_all()  # this process plays no game (its workers start the bots they play with): no bot idles here
    status = "finished"
    deals = settings.deals_per_iteration
    # A task holds at least one deal: more workers would idle.
    with MatchPool(min(workers, deals), on_error=settings.on_error, time_limit=settings.time_limit,
                   memory_limit=memory_limit, log_handlers=log_handlers) as pool, \
            (signals_stop(pool.stop_event) if stop_on_signals else contextlib.nullcontext()):
        for iteration in range(len(rows), settings.iterations):
            if should_stop() or pool.stop_event.is_set():
                status = "interrupted"
                break
            proposal = spsa.propose(theta, iteration)
            plus, minus = tuned.spec(proposal.plus), tuned.spec(proposal.minus)
            for spec in (plus, minus):
                load_strategy(spec)  # a constructor refusing a candidate is reported here, in one line
            tasks = iteration_tasks(plus, minus, settings.against, settings.rules, settings.seed, iteration, deals,
                                    pool.workers, settings.on_error)
            match = pool.play(tasks)
            if match is None:  # stopped inside the iteration: it is dropped, the finished ones are on disk
                status = "interrupted"
                break
            if match.error:
                raise TuningError(f"iteration {iteration}: {match.error}")
            result = match.result(head_to_head=settings.against is None)
            theta = spsa.update(theta, proposal, result)
            row = {"iteration": iteration, "games": match.games, "plus_points": match.plus_points,
                   "minus_points": match.minus_points, "forfeits": match.forfeits,
                   "hand_capped": match.hand_capped, "result": result,
                   "step_gain": proposal.step_gain, "perturbation_gain": proposal.perturbation_gain}
            for index, name in enumerate(tuned.names):
                row.update({f"theta.{name}": theta[index], f"plus.{name}": tuned.typed(name, proposal.plus[index]),
                            f"minus.{name}": tuned.typed(name, proposal.minus[index]),
                            f"delta.{name}": proposal.delta[index]})
            rows.append(row)
            directory.write_trajectory(rows, tuned.names, _integers(tuned))
            on_iteration(row, spsa.rounded(theta))
    return _outcome(tuned, spsa, start, rows, theta, settings, status)


def outcome_on_disk(settings: TuningSettings, directory: TuningDirectory, status: str) -> TuningOutcome:
    """Where the run stands by its trajectory on disk (after a session that stopped inside an iteration)."""
    tuned, spsa, start, rows, theta = _state_on_disk(settings, directory)
    return _outcome(tuned, spsa, start, rows, theta, settings, status)


def _state_on_disk(settings: TuningSettings, directory: TuningDirectory):
    tuned, loaded = TunedStrategy.from_spec(settings.spec, settings.params)
    spsa = Spsa(tuned.dimensions(), settings.spsa_settings())
    start = spsa.start(tuned.start_values(loaded(_probe_rng())))
    rows = _rows_so_far(directory, tuned.names, _integers(tuned), settings.iterations)
    theta = tuple(rows[-1][f"theta.{name}"] for name in tuned.names) if rows else start
    return tuned, spsa, start, rows, theta


def _outcome(tuned, spsa, start, rows, theta, settings, status) -> TuningOutcome:
    values = spsa.rounded(theta)
    start = tuple(tuned.typed(name, value) for name, value in zip(tuned.names, start, strict=True))
    known = [row for row in rows if row["hand_capped"] is not None]
    return TuningOutcome(tuned.names, start, theta, values, tuned.spec(values), len(rows), settings.iterations,
                         sum(row["games"] for row in rows), status, sum(row["hand_capped"] for row in known),
                         sum(row["games"] for row in known))


def _probe_rng() -> random.Random:
    """The generator of the player built only to read its parameters' values."""
    return random.Random(0)


def _integers(tuned: TunedStrategy) -> tuple[str, ...]:
    return tuple(dimension.name for dimension in tuned.dimensions() if dimension.integer)


def _rows_so_far(directory: TuningDirectory, names: tuple[str, ...], integers: tuple[str, ...],
                 iterations: int) -> list[dict[str, Any]]:
    table = directory.read_trajectory()
    if table is None:
        return []
    # A trajectory written before int parameters' values were stored as integers has floats there: it resumes, and
    # is rewritten with integers.
    if not any(table.schema.equals(trajectory_schema(names, kept, hand_capped=counted))
               for kept in (integers, ()) for counted in (True, False)):
        raise TuningError(f"{directory.trajectory_path} does not hold the columns of a tuning of "
                          f"{', '.join(names)}; it belongs to another run")
    if "hand_capped" not in table.schema.names:
        # Written before the count was kept: unknown, so null rather than a 0 that would say no game was capped.
        table = table.add_column(table.schema.get_field_index("forfeits") + 1, "hand_capped",
                                 pa.nulls(table.num_rows, pa.int64()))
    table = table.cast(trajectory_schema(names, integers))
    rows = table.to_pylist()
    if [row["iteration"] for row in rows] != list(range(len(rows))) or len(rows) > iterations:
        raise TuningError(f"{directory.trajectory_path} does not hold iterations 0 to {len(rows) - 1} of at most "
                          f"{iterations} in order; it belongs to another run")
    for row in rows:
        if not all(math.isfinite(row[f"theta.{name}"]) for name in names):
            raise TuningError(f"{directory.trajectory_path} holds a value that is not a finite number")
    return rows


def new_manifest(settings: TuningSettings, command: str, seed_drawn: bool, *,
                 directory: str | None = None) -> dict[str, Any]:
    """The ``tune.json`` of a new run: settings, versions and the tuned parameters' declarations; ``directory`` is
    where a spec's relative paths start from, recorded only for a spec that names one, so that a published tuning of
    other strategies names no folder of the machine that made it."""
    tuned, loaded = TunedStrategy.from_spec(settings.spec, settings.params)
    start = tuned.start_values(loaded(_probe_rng()))
    against = None if settings.against is None else load_strategy(settings.against)
    return {
        "format": MANIFEST_FORMAT,
        "kind": "tuning",
        "tool": f"canasta-sim {__version__}",
        "engine_version": ENGINE_VERSION,
        "command": command,
        "directory": directory,
        "seed_drawn": seed_drawn,
        **settings.manifest_fields(),
        "strategy": {"spec": settings.spec, "label": loaded.label,
                     "class": f"{loaded.cls.__module__}.{loaded.cls.__qualname__}", "file_code": loaded.file_code},
        "against_label": None if against is None else against.label,
        "against_file_code": None if against is None else against.file_code,
        "parameters": [_parameter_entry(tuned, name, start[name]) for name in tuned.names],
        "status": "running",
        "iterations_done": 0,
        "games_done": 0,
        "final_values": None,
        "final_spec": None,
        "sessions": [],
    }


def _parameter_entry(tuned: TunedStrategy, name: str, start: float | int) -> dict[str, Any]:
    """A tuned parameter as ``tune.json`` records it: an int parameter's numbers as ints."""
    declaration = tuned.declarations[name]
    numbers = {"start": start, "low": declaration.low, "high": declaration.high, "step": declaration.grid_step}
    return {"name": name, "default": declaration.default,
            **{key: None if value is None else tuned.typed(name, value) for key, value in numbers.items()}}


def _typed_parameters(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with each int parameter's start, range and step as ints, as a tuning writes them now: a
    ``tune.json`` written before recorded an int parameter's start as a float (3.0), which a resume or a chart
    would otherwise carry on."""
    for entry in manifest.get("parameters") or ():
        if not isinstance(entry, dict):
            continue
        for key in ("start", "low", "high", "step"):
            value = entry.get(key)
            whole = whole_of_int_parameter(entry.get("default"), value) if isinstance(value, float) else None
            if whole is not None:
                entry[key] = whole
    return manifest


def check_versions(manifest: dict[str, Any], settings: TuningSettings, where: Path) -> list[str]:
    """Refuse to continue a run made with another engine or strategy version; return, each as a clause, the strategy
    files whose code changed under the same version (which only their author knows to play the same), to be warned
    of.

    :raises TuningError: naming what changed.
    """
    if str(manifest.get("engine_version")) != ENGINE_VERSION:
        raise TuningError(f"{where}: the tuning was made with engine version {manifest.get('engine_version')}, this "
                          f"is version {ENGINE_VERSION}; its iterations cannot be continued, start a new tuning")
    strategy = manifest.get("strategy", {})
    recorded_by_spec = [(settings.spec, strategy.get("label"), strategy.get("file_code"))]
    if settings.against is not None:
        recorded_by_spec.append((settings.against, manifest.get("against_label"), manifest.get("against_file_code")))
    changed = []
    for spec, recorded, code in recorded_by_spec:
        try:
            loaded = load_strategy(spec)
        except CanastaError as error:
            raise TuningError(f"{where}: {error}") from None
        if loaded.label != recorded:
            raise TuningError(f"{where}: the tuning was made with {recorded} but {spec!r} is now {loaded.label}; "
                              "start a new tuning")
        change = loaded.code_change(code, "the tuning's")
        if change is not None:
            changed.append(change)
    return changed


def final_fields(outcome: TuningOutcome) -> dict[str, Any]:
    """What ``tune.json`` records of where a session ended."""
    return {
        "status": outcome.status,
        "iterations_done": outcome.iterations_done,
        "games_done": outcome.games_done,
        "hand_capped": outcome.hand_capped,
        "final_values": {name: value for name, value in zip(outcome.names, outcome.values, strict=True)},
        "final_spec": outcome.spec,
        "final_text": ", ".join(f"{name}={format_value(value)}"
                                for name, value in zip(outcome.names, outcome.values, strict=True)),
    }
