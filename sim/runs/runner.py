"""The parallel runner: play a run's games in chunks, in worker processes, writing each chunk as it ends.

A run is fixed by its :class:`RunSettings` (games, run seed, strategy specs, rule set, chunk size).
Game ``i`` is played with seed ``derive_seed(run_seed, f"game{i}")`` and, in head-to-head play,
with the strategies swapped between sides on odd ``i`` (seats 0 and 2 are side A, R1.1), so the
tables are the same whatever the number of workers, the order chunks finish in, or how often the
run was interrupted and resumed.  With ``duplicate`` set, games ``2k`` and ``2k + 1`` share the
seed of deal ``k`` instead; three or more specs play a round robin (:mod:`canasta_sim.runs.matchmaking`).

Worker processes load the strategies from their specs (never from pickled classes) and send each game
back as it ends; the supervisor (:mod:`canasta_sim.runs.supervisor`) records them and writes each chunk's
Parquet parts, so the parent's memory stays flat however many games are played, and a worker that dies
or hangs costs only the game it was playing, charged to the seat whose call was running.

Stopping: a stop event is checked between games.  Ctrl-C or SIGTERM in the parent sets it, a
strategy failure under ``on_error='stop'`` sets it; workers then finish their game (those still busy two
seconds later are killed), the games finished are written (a partial part, played again on resume) and
the remaining chunks are skipped (:mod:`canasta_sim.runs.stopping`).

Worker log records reach the parent's handlers down a pipe of each worker's own
(:mod:`canasta_sim.runs.worker_log`), whatever the start method.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa

from canasta_sim.arbiter import MAX_TIME_LIMIT, MONITOR_GAME
from canasta_sim.core.engine import derive_seed, play_game
from canasta_sim.core.rules import Rules
from canasta_sim.env.decisions import DecisionRecorder, recorded_seats, verify_record_choices
from canasta_sim.errors import MachineRefusal, RulesError, StrategyError
from canasta_sim.plugins.loader import LoadedStrategy, load_strategies, spec_file
from canasta_sim.plugins.specs import file_spec_parts
from canasta_sim.runs.code_guard import CodeGuard
from canasta_sim.runs.failure_log import log_failure
from canasta_sim.runs.machine import usable_cores
from canasta_sim.runs.matchmaking import deal_of, deal_seed, scheduled_sides
from canasta_sim.runs.records import ChunkRecorder, GameRows
from canasta_sim.runs.stopping import (
    STOPPING_SIGNALS,
    hold_stop_signals,
    release_stop_signals,
    stop_on_signals,
    stop_signals_released,
)
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError, malformed_entry, whole_entry
from canasta_sim.runs.summary import side_labels
from canasta_sim.runs.worker_log import WorkerLogs

__all__ = [
    "ChunkReport",
    "ChunkPlayer",
    "ChunkRunner",
    "MANIFEST_FORMAT",
    "ON_ERROR_CHOICES",
    "RunSettings",
    "STOPPING_SIGNALS",
    "default_chunk_size",
    "default_workers",
    "ChunkBook",
    "describe_strategy",
    "log_failure",
    "hold_stop_signals",
    "release_stop_signals",
    "stop_on_signals",
    "stop_signals_released",
    "settings_from_manifest",
    "worker_logging",
]

logger = logging.getLogger(__name__)

_first = itemgetter(0)

ON_ERROR_CHOICES = ("stop", "forfeit")
"""What a strategy failure does: stop the run (keeping finished games) or forfeit the game and go on."""

MAX_CHUNK_SIZE = 500
"""Games per chunk in a large run: long enough that workers spend their time playing, and that the run's parent,
which shares the cores with them, spends little on parts.  Writing a chunk's two parts has a fixed cost of about
two milliseconds (their 35 and 16 columns set up and compressed one by one) besides about 7 us a game,
so the parent's Parquet work is about 12 us a game in chunks of 500 against 22 in chunks of 200; with two workers
its CPU while they play fell from 4% of theirs to 3%.  A stopped chunk is played again whole on ``--resume``: at
most this many games a worker."""

MIN_CHUNKS = 8
"""Chunks a smaller run is cut into on the local backend.  Few suffice: it deals the last chunks out in pieces
that shrink as the run ends, so every worker stays busy to the end.  A backend that plays whole chunks (Dask)
cannot share the last ones out, so it gets twice as many, which leaves its workers less to wait for at the end; more
worker threads than that want a smaller ``--chunk-size``."""


def default_chunk_size(games: int, *, whole_chunks: bool = False) -> int:
    """Return the chunk size for a run of ``games`` games: :data:`MAX_CHUNK_SIZE`, or less so that a smaller run
    still has :data:`MIN_CHUNKS` chunks, twice as many with ``whole_chunks`` (a backend that never shares a
    chunk's games out among its workers)."""
    chunks = 2 * MIN_CHUNKS if whole_chunks else MIN_CHUNKS
    return max(1, min(MAX_CHUNK_SIZE, math.ceil(games / chunks)))


def default_workers() -> int:
    """Return the number of cores this process may use: those it may run on, or fewer under a container's CPU
    quota (:func:`~canasta_sim.runs.machine.usable_cores`)."""
    return usable_cores()


@dataclasses.dataclass(frozen=True)
class RunSettings:
    """What fixes a run's tables.

    :ivar specs: the strategy specs as given: one (a mirror match), two (head to head) or more (a round robin).
    :ivar duplicate: whether each deal is played twice, with the strategies swapped between the sides.
    :ivar time_limit: seconds one decision of a strategy may take (``None``: no limit); a slower decision
        is a strategy failure, handled by ``--on-error``.
    :ivar record_decisions: whose decisions go to the ``decisions`` dataset: ``all``, seats ``0``-``3``
        or specs of the run (``()``: none; see :mod:`canasta_sim.env.decisions`).
    """

    games: int
    seed: int
    specs: tuple[str, ...]
    rules: Rules
    chunk_size: int
    duplicate: bool = False
    time_limit: float | None = None
    files: tuple[tuple[str, str], ...] | None = dataclasses.field(default=None, compare=False)
    """``(spec, absolute path)`` of each file spec, fixed when the run starts so that a resume or a worker in
    another directory loads the same file; ``None`` resolves them from the working directory now."""
    record_decisions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.files is None:
            found = ((spec, spec_file(spec)) for spec in self.specs)
            object.__setattr__(self, "files", tuple((spec, str(path)) for spec, path in found if path is not None))
        if self.time_limit is not None and not 0 < self.time_limit <= MAX_TIME_LIMIT:
            raise ValueError(f"a decision time limit must be a number of seconds above 0 and at most "
                             f"{MAX_TIME_LIMIT:,}; got {self.time_limit}")
        if self.games < 1 or self.chunk_size < 1:
            raise ValueError(f"a run needs games >= 1 and chunk_size >= 1; got {self.games}, {self.chunk_size}")
        if not self.specs:
            raise ValueError("a run plays one strategy (mirror), two (head to head) or more (round robin); got none")
        if len(self.specs) >= 3 and len(set(self.specs)) != len(self.specs):
            raise ValueError(f"a round robin needs different strategies; got {', '.join(self.specs)}")
        pairs = len(self.specs) * (len(self.specs) - 1) // 2
        if len(self.specs) >= 3 and self.games < 2 * pairs:
            # Games 2k and 2k + 1 go to pair k: fewer games leave a pair out, and a strategy with it, rated on nothing.
            raise ValueError(f"a round robin of {len(self.specs)} strategies needs at least {2 * pairs} games, two for "
                             f"each of its {pairs} pairs; got {self.games}")
        if self.duplicate and len(set(self.specs)) < 2:
            raise ValueError(
                "duplicate deals need two or more different strategies; a mirror match would replay "
                "each deal identically"
            )
        verify_record_choices(self.record_decisions, self.specs)

    def file_of(self, spec: str) -> str | None:
        """The absolute path recorded for a file spec (``None`` for other specs)."""
        return dict(self.files or ()).get(spec)

    def load_strategies(self) -> dict[str, LoadedStrategy]:
        """Load every spec, file specs from their recorded paths (:func:`load_strategies`: every spec that cannot be
        loaded named, a line each)."""
        return load_strategies(self.specs, self.file_of)

    @property
    def chunk_count(self) -> int:
        """Number of chunks."""
        return math.ceil(self.games / self.chunk_size)

    def chunk_games(self, chunk: int) -> range:
        """The game ids of a chunk."""
        start = chunk * self.chunk_size
        return range(start, min(start + self.chunk_size, self.games))

    def game_seed(self, game_id: int) -> int:
        """The seed of game ``game_id``: its own, or its deal's with duplicate deals."""
        if self.duplicate:
            return deal_seed(self.seed, self.deal_id(game_id))
        return derive_seed(self.seed, f"game{game_id}")

    def deal_id(self, game_id: int) -> int:
        """The deal of game ``game_id`` (the ``deal_id`` column).

        Games ``2k`` and ``2k + 1`` share one when deals are duplicated."""
        return deal_of(game_id, self.duplicate)

    def duplicate_pair(self, game_id: int) -> int | None:
        """The other game of game ``game_id``'s deal (the same ``deal_id``: the same cards, the strategies swapped
        between the sides), or ``None`` when deals are not duplicated or the pair's other game is past the run's
        last (an odd number of games)."""
        if not self.duplicate:
            return None
        other = game_id ^ 1  # deal k is games 2k and 2k + 1
        return other if other < self.games else None

    def sides(self, game_id: int) -> tuple[str, str]:
        """The specs playing side A and side B in game ``game_id``: swapped on odd games (see
        :func:`canasta_sim.runs.matchmaking.scheduled_sides` for round robins)."""
        return scheduled_sides(self.specs, game_id)

    @property
    def entrants(self) -> tuple[str, ...]:
        """The summary labels of the entrants: the specs, or ``spec (A)``/``spec (B)`` in a mirror."""
        if len(self.specs) >= 3:
            return self.specs
        return side_labels(self.specs[0], self.specs[-1])

    def entrant_of(self, sides: tuple[str, str], side: int) -> int:
        """The index in :attr:`entrants` of who played ``side`` (0 = A, 1 = B) in a game with these ``sides``."""
        if len(self.specs) == 1:
            return side
        return self.specs.index(sides[side])

    def manifest_fields(self) -> dict[str, Any]:
        """The settings as ``run.json`` records them (strategies are added by :func:`describe_strategy`)."""
        return {
            "games": self.games,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "chunks": self.chunk_count,
            "matchup": "mirror" if len(self.specs) == 1 else "head_to_head" if len(self.specs) == 2 else "round_robin",
            "duplicate": self.duplicate,
            "time_limit": self.time_limit,
            "rules": self.rules.options(),
            "rules_changed": self.rules.changed_options(),
            "record_decisions": list(self.record_decisions),
        }


MANIFEST_FORMAT = 1
"""Version of the ``run.json`` layout."""


def describe_strategy(loaded: LoadedStrategy) -> dict[str, Any]:
    """What ``run.json`` records about one strategy: spec, name, version, class, parameters, file and its code."""
    cls = loaded.cls
    return {
        "spec": loaded.spec,
        "name": cls.name,
        "version": cls.version,
        "label": loaded.label,
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "parameters": dict(loaded.parameters),
        "file": loaded.file,
        "file_code": loaded.file_code,
    }


def settings_from_manifest(manifest: dict[str, Any], where: str = "run.json") -> RunSettings:
    """Rebuild the settings recorded in a ``run.json``.

    :raises RunDirectoryError: naming the missing or malformed entry.
    """
    try:
        strategies, rules, time_limit = manifest["strategies"], manifest["rules"], manifest.get("time_limit")
        if not isinstance(strategies, list) or not all(
                isinstance(entry, dict) and isinstance(entry.get("spec"), str) for entry in strategies):
            raise malformed_entry(where, "strategies", 'a list of objects with a "spec"', strategies)
        if not isinstance(rules, dict):
            raise malformed_entry(where, "rules", "an object of rules", rules)
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))):
            raise malformed_entry(where, "time_limit", "a number of seconds or null", time_limit)
        duplicate = manifest.get("duplicate", False)
        if not isinstance(duplicate, bool):  # bool() would read the text "false" as true
            raise malformed_entry(where, "duplicate", "true or false", duplicate)
        return RunSettings(
            games=whole_entry(manifest, "games", where),
            seed=whole_entry(manifest, "seed", where),
            specs=tuple(entry["spec"] for entry in strategies),
            rules=Rules.from_mapping(rules),
            chunk_size=whole_entry(manifest, "chunk_size", where),
            duplicate=duplicate,
            time_limit=None if time_limit is None else float(time_limit),
            files=_recorded_files(strategies, manifest.get("directory")),
            record_decisions=tuple(manifest.get("record_decisions", ())),
        )
    except RunDirectoryError:
        raise
    except KeyError as error:
        raise RunDirectoryError(
            f"{where} has no entry {error.args[0]!r}; it was not written by canasta-sim run"
        ) from None
    except (TypeError, ValueError, RulesError) as error:
        raise RunDirectoryError(f"{where} is malformed: {error}") from None


def _recorded_files(strategies: list[dict[str, Any]], directory: Any) -> tuple[tuple[str, str], ...] | None:
    """``(spec, absolute path)`` of a recorded run's file specs: the ``file`` ``run.json`` records, and for a file spec
    it records none (an ``isolated:`` one, before their files were recorded) the spec's path from the directory the
    run started in, not from here, where another file may bear its name; ``None`` (resolved from here) when that
    directory is not recorded."""
    files = [(entry["spec"], entry["file"]) for entry in strategies if entry.get("file")]
    if not isinstance(directory, str):
        return tuple(files) or None
    recorded = dict(files)
    for entry in strategies:
        parts = file_spec_parts(entry["spec"])
        if parts is not None and entry["spec"] not in recorded:
            files.append((entry["spec"], str((Path(directory) / Path(parts[0]).expanduser()).resolve())))
    return tuple(files)


@dataclasses.dataclass(frozen=True)
class ChunkReport:
    """What a worker tells the parent about one chunk."""

    chunk: int
    games: int
    """Games recorded (written) from this chunk now; 0 when it was skipped."""
    complete: bool
    wins: tuple[int, ...]
    """Wins of each entrant (see :attr:`RunSettings.entrants`) among those games."""
    forfeits: int = 0
    error: str | None = None
    """Under ``on_error='stop'``: the one-line description of the failure that stopped the chunk."""
    refused: str | None = None
    """The machine's refusal of a bot process that stopped the chunk, the games before it kept (no one's failure)."""


class ChunkRunner(Protocol):
    """How a backend plays a run's chunks: the local one (:func:`canasta_sim.runs.local_backend.run_chunks`,
    supervised worker processes on this machine) and the Dask one
    (:class:`canasta_sim.runs.dask_backend.DaskChunkRunner`) are called alike, so ``run`` treats them alike."""

    def __call__(
        self,
        settings: RunSettings,
        directory: RunDirectory,
        chunks: Sequence[int],
        *,
        workers: int,
        on_error: str = "stop",
        on_chunk: Callable[[ChunkReport], None] = ...,
        on_games: Callable[[int], None] | None = None,
        log_handlers: Sequence[logging.Handler] = (),
    ) -> tuple[bool, str | None]:
        """Play ``chunks`` (writing each one's parts, then calling ``on_chunk`` with its report) on up to
        ``workers`` workers; ``log_handlers`` receive the workers' log records.  A backend that hears of games
        one by one calls ``on_games`` with how many came back since its last call, before their chunk ends;
        one that hears of whole chunks only (Dask) never calls it.

        :returns: ``(interrupted, error)``: whether Ctrl-C/SIGTERM stopped the run, and the description of
            the strategy failure that stopped it (``on_error='stop'``), or ``None``.
        """
        ...


class ChunkPlayer:
    """Plays chunks of one run; built once per worker process, loading the strategies from their specs.

    :param factories: the strategies by spec, already loaded (the Dask backend loads file strategies from
        a copy sent to the worker); ``None`` loads them from the specs.
    :param named: the run's directory as the user named it, for the command a failure's log names (a worker's
        ``run_path`` is ``''``: it writes nothing); ``None`` names none.
    """

    def __init__(
        self,
        settings: RunSettings,
        run_path: str,
        on_error: str,
        stop_event,
        *,
        factories: dict[str, LoadedStrategy] | None = None,
        named: str | None = None,
    ) -> None:
        self.settings = settings
        self.named = named
        self.directory = RunDirectory(run_path)
        self.directory.mark_parts(settings.seed, settings.rules.options())  # run.json is the parent's to read
        self.on_error = on_error
        self.stop_event = stop_event
        if factories is None:
            factories = settings.load_strategies()
        self.factories = factories
        self.guard = CodeGuard(factories.values())
        self.last_decisions = None
        """The decision rows of the game :meth:`play_game` played last (``--record-decisions``), or ``None``."""

    def play(self, chunk: int, *, monitor=None, charged: dict[int, StrategyError] | None = None) -> ChunkReport:
        """Play one chunk and write its parts (partial if stopped); return what happened.

        :param monitor: where each game is marked while it plays (``MONITOR_GAME``) and the engine publishes each
            call into strategy code (the Dask backend's :class:`~canasta_sim.runs.dask_journal.ChunkJournal`).
        :param charged: games not to play, by id: the failure each is charged with (its worker died in it).
        """
        settings = self.settings
        game_ids = settings.chunk_games(chunk)
        if self.stop_event.is_set():
            return ChunkReport(chunk, 0, False, (0,) * len(settings.entrants))
        book = ChunkBook(settings, chunk, self.on_error)
        try:
            for game_id in game_ids:
                if self.stop_event.is_set():
                    break
                if charged and game_id in charged:
                    outcome, self.last_decisions = charged[game_id], None
                    log_failure(game_id, outcome, self.on_error, self.named)
                elif monitor is None:
                    outcome = self.play_game(game_id)
                else:
                    monitor[MONITOR_GAME] = game_id
                    outcome = self.play_game(game_id, monitor)
                    monitor[MONITOR_GAME] = -1
                if not book.add(game_id, outcome, self.last_decisions):
                    break
        except MachineRefusal as refusal:  # raised by CodeGuard: the games the chunk finished before it are kept
            return dataclasses.replace(book.finish(self.directory), refused=str(refusal))
        return book.finish(self.directory)

    def play_game(self, game_id: int, monitor=None):
        """Play game ``game_id``: its :class:`~canasta_sim.core.engine.GameResult`, or the
        :class:`~canasta_sim.errors.StrategyError` that ended it (logged here, where it happened).

        With ``--record-decisions``, :attr:`last_decisions` holds the game's decision rows afterwards.
        """
        settings = self.settings
        specs = settings.sides(game_id)
        first = self.factories[specs[0]]
        second = self.factories[specs[1]]
        players = [first, second, first, second]
        decisions = DecisionRecorder() if settings.record_decisions else None
        if decisions is not None:
            for seat in recorded_seats(settings.record_decisions, specs):
                players[seat] = decisions.wrap(players[seat], game_id=game_id, seat=seat, spec=specs[seat % 2])
        seed = settings.game_seed(game_id)
        try:
            outcome = play_game(
                players,
                seed=seed,
                rules=settings.rules,
                names=[*specs, *specs],
                time_limit=settings.time_limit,
                monitor=monitor,
            )
        except StrategyError as error:
            outcome = error
        outcome = self.guard.checked(outcome, (first, second), seed)
        if isinstance(outcome, StrategyError):
            log_failure(game_id, outcome, self.on_error, self.named)
        self.last_decisions = None if decisions is None else decisions.table()
        return outcome


class ChunkBook:
    """The games of one chunk as they come in, from one player or from supervised workers (the last chunks of a
    run may be played in pieces by several workers at once, so in any order); written in game order."""

    def __init__(self, settings: RunSettings, chunk: int, on_error: str) -> None:
        self.settings = settings
        self.chunk = chunk
        self.on_error = on_error
        self.recorder = ChunkRecorder()
        self.wins = [0] * len(settings.entrants)
        self.forfeits = 0
        self.error: str | None = None
        self.decisions: list[tuple[int, pa.Table]] = []
        """``(game id, decision rows)`` of each game, under ``--record-decisions``."""

    def add(self, game_id: int, outcome, decisions=None) -> bool:
        """Record a game's result or failure, and its decision rows (a table, under ``--record-decisions``);
        ``False`` when the failure stops the run (``on_error='stop'``): that game and its rows are not kept."""
        settings = self.settings
        specs = settings.sides(game_id)
        if isinstance(outcome, StrategyError) and self.on_error == "stop":
            self.error = f"game {game_id}: {outcome} (reason: {outcome.reason})"
            return False
        if decisions is not None:
            self.decisions.append((game_id, decisions))
        if isinstance(outcome, StrategyError):
            self.recorder.add_forfeit(game_id, settings.game_seed(game_id), specs, outcome, settings.deal_id(game_id))
            self.forfeits += 1
            self.wins[settings.entrant_of(specs, 1 - outcome.seat % 2)] += 1
            return True
        if isinstance(outcome, GameRows):  # a worker's game, turned into its rows where it was played
            self.recorder.add_rows(outcome)
        else:
            self.recorder.add_game(game_id, outcome, specs, settings.deal_id(game_id))
        if outcome.winner is not None:
            self.wins[settings.entrant_of(specs, outcome.winner)] += 1
        return True

    def finish(self, directory: RunDirectory) -> ChunkReport:
        """Write the chunk's parts (if any game was recorded) and report it."""
        recorder = self.recorder
        if recorder.game_count:
            if self.settings.record_decisions:  # before the chunk's games part, which marks the chunk written
                tables = [table for _, table in sorted(self.decisions, key=_first)] or [DecisionRecorder().table()]
                directory.write_decisions(self.chunk, pa.concat_tables(tables))
            directory.write_chunk(self.chunk, *recorder.tables())
        expected = len(self.settings.chunk_games(self.chunk))
        logger.debug("chunk %d: %d of %d games written", self.chunk, recorder.game_count, expected)
        return ChunkReport(self.chunk, recorder.game_count, recorder.game_count == expected, tuple(self.wins),
                           self.forfeits, self.error)


# --- worker processes ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _worker_logging(context, handlers: Sequence[logging.Handler]) -> Iterator[WorkerLogs]:
    """Route worker log records to ``handlers`` while the pool runs: yield the :class:`WorkerLogs` whose
    ``channel()`` each worker takes (:mod:`canasta_sim.runs.worker_log`)."""
    logs = WorkerLogs(context, handlers)
    try:
        yield logs
    finally:
        logs.close()


worker_logging = _worker_logging
"""Route worker log records to the given handlers while the pool runs (``compare`` and ``tune`` use it too)."""
