"""Playing a run's chunks on this machine: ``canasta-sim run`` without ``--backend dask``.

:func:`run_chunks` is the local :class:`~canasta_sim.runs.runner.ChunkRunner`: it starts the supervised worker
processes (:mod:`canasta_sim.runs.supervisor`) on the run's :class:`RunSchedule`, routes their log records to the
parent's handlers and turns the first Ctrl-C or SIGTERM into a clean stop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import is_built_in_spec
from canasta_sim.runs.records import game_rows
from canasta_sim.runs.runner import (
    ON_ERROR_CHOICES,
    ChunkBook,
    ChunkPlayer,
    ChunkReport,
    RunSettings,
)
from canasta_sim.runs.stopping import stop_on_signals
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.supervisor import (
    MIN_PIECE_GAMES,
    StopFlag,
    charged_failure,
    worker_context,
    worker_pool,
)

__all__ = ["RunSchedule", "run_chunks", "workers_for"]


def run_chunks(
    settings: RunSettings,
    directory: RunDirectory,
    chunks: Sequence[int],
    *,
    workers: int,
    on_error: str = "stop",
    on_chunk: Callable[[ChunkReport], None] = lambda report: None,
    on_games: Callable[[int], None] | None = None,
    log_handlers: Sequence[logging.Handler] = (),
    memory_limit: int | None = None,
) -> tuple[bool, str | None]:
    """Play the given chunks in supervised worker processes (:mod:`canasta_sim.runs.supervisor`), calling
    ``on_chunk`` in this process as each one ends, and ``on_games`` with the number of games that came back
    since its last call (at most once a tick of the supervisor, before their chunk ends).

    Strategy code never runs in this process, even with one worker: a strategy that crashes, exits,
    hangs or raises ``KeyboardInterrupt`` costs its seat the game, never the run.

    :param memory_limit: megabytes of address space each worker may use (``None``: no limit).
    :returns: ``(interrupted, error)``: whether Ctrl-C/SIGTERM stopped the run, and the description of
        the strategy failure that stopped it (``on_error='stop'``), or ``None``.
    :raises ~canasta_sim.runs.supervisor.WorkerStartError: when workers cannot load the strategies or keep
        dying before playing.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error={on_error!r} is not accepted; use one of: {', '.join(ON_ERROR_CHOICES)}")
    directory.create()
    if not chunks:
        return False, None
    stop_event = StopFlag(worker_context())  # watched for Ctrl-C before any worker starts
    with stop_on_signals(stop_event) as signals:
        try:
            schedule = RunSchedule(settings, str(directory.path))
            with worker_pool(schedule, workers=workers_for(settings, chunks, workers), on_error=on_error,
                             log_handlers=log_handlers, memory_limit=memory_limit, stop_event=stop_event) as pool:
                error = pool.play(chunks, on_chunk, directory, on_games=on_games)
        except BaseException:
            stop_event.set()
            raise
    return signals["interrupted"], error


def workers_for(settings: RunSettings, chunks: Sequence[int], workers: int) -> int:
    """How many of ``workers`` can play ``chunks``: one a chunk, and more for chunks the supervisor can share out in
    pieces (:data:`~canasta_sim.runs.supervisor.MIN_PIECE_GAMES` games or more each), so that a run of fewer
    chunks than workers (a ``--chunk-size`` as large as the run, a resume whose last chunk is left) still plays
    on all of them rather than on one worker per chunk."""
    pieces = sum(len(settings.chunk_games(chunk)) for chunk in chunks) // MIN_PIECE_GAMES
    return max(1, min(workers, max(len(chunks), pieces)))


class RunSchedule:
    """The games of a ``canasta-sim run``: numbered chunks of :class:`~canasta_sim.runs.runner.RunSettings`, played
    by a :class:`~canasta_sim.runs.runner.ChunkPlayer` and kept in a :class:`~canasta_sim.runs.runner.ChunkBook`."""

    stops_at_failure = True
    """A failure under ``on_error='stop'`` stops the whole run (its worker sets the stop event at once); a schedule
    without this attribute keeps playing its other chunks and decides itself what a failure ends."""

    splits_chunks = True
    """The last chunks may be played in pieces by several workers: a :class:`~canasta_sim.runs.runner.ChunkBook`
    takes a chunk's games in any order and writes them in game order.  A schedule without this attribute gets
    whole chunks only."""

    def __init__(self, settings: RunSettings, named: str | None = None) -> None:
        self.settings = settings
        self.named = named
        """The run's directory as the user named it, which a failure's log line gives the command to replay with."""
        self.time_limit = settings.time_limit
        self._built_in = frozenset(filter(is_built_in_spec, settings.specs))

    def chunk_games(self, chunk: int) -> range:
        """The chunk's game ids."""
        return self.settings.chunk_games(chunk)

    def new_player(self, on_error: str, stop_event) -> _RunPlayer:
        """The worker's player, loading the run's strategies."""
        return _RunPlayer(ChunkPlayer(self.settings, "", on_error, stop_event, named=self.named))

    def is_built_in(self, chunk: int, game_id: int, seat: int) -> bool:
        """Whether the strategy at ``seat`` in game ``game_id`` is one of canasta-sim's own, played in the worker.

        Judged here, from the run's specs, not from anything a worker reports: a worker runs the other strategies'
        code too."""
        return self.settings.sides(game_id)[seat % 2] in self._built_in

    def charge(self, chunk: int, game_id: int, seat: int, decision: str, reason: str, message: str) -> StrategyError:
        """The failure of a game lost with its worker."""
        return _charge(self.settings, game_id, seat, decision, reason, message)

    def new_book(self, chunk: int, on_error: str) -> ChunkBook:
        """The chunk's book, written as Parquet parts when the chunk ends."""
        return ChunkBook(self.settings, chunk, on_error)


class _RunPlayer:
    """A :class:`ChunkPlayer` as the worker loop calls it: each game's outcome and its decision rows.

    A finished game goes to the supervisor as its table rows (:class:`~canasta_sim.runs.records.GameRows`): built
    here, in parallel with the other workers, and far cheaper to send than the result's objects."""

    def __init__(self, player: ChunkPlayer) -> None:
        self.player = player
        self.settings = player.settings

    def loaded_strategies(self, chunk: int | None = None):
        """The run's strategies (:func:`~canasta_sim.runs.interleave.games_at_once` reads their bots' widths)."""
        return self.player.factories.values()

    def play_game(self, chunk: int, game_id: int, monitor):
        outcome = self.player.play_game(game_id, monitor)
        if not isinstance(outcome, StrategyError):
            settings = self.settings
            outcome = game_rows(game_id, outcome, settings.sides(game_id), settings.deal_id(game_id))
        return outcome, self.player.last_decisions


def _charge(settings: RunSettings, game_id: int, seat: int, decision: str, reason: str, message: str):
    """The failure of a game charged by the supervisor (its hands are lost with the worker)."""
    return charged_failure(settings.sides(game_id)[seat % 2], settings.game_seed(game_id), seat, decision, reason,
                           message)
