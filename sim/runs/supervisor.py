"""The supervisor of a run's worker processes: no strategy can hang, kill or silence a run.

Strategy code runs only in worker processes, never in the process that owns the run.  Each worker plays
the games it is given one by one and sends every finished game back at once (its result, or the
:class:`~canasta_sim.errors.StrategyError` that ended it); the supervisor records them and writes each
chunk's Parquet parts when the chunk ends.  Before every call into strategy code a worker publishes
the game, the seat and decision asked and the time in a few floats of shared memory (the *monitor*,
:mod:`canasta_sim.arbiter`), which costs a couple of stores.  From them the supervisor can act when:

* **a worker dies** (a crash, ``os._exit``, an out-of-memory kill): the game in progress is charged to
  the seat whose call was running (reason ``crash``), the games already sent are kept, and a new worker
  takes over the chunk from the next game; if that call was a built-in strategy's, the death is not its doing
  (the OOM killer, a ``kill -9``): the game is played again, uncharged (:meth:`_Play._played_again`);
* **a decision outlives its clock**: with a time limit, the worker's own alarm normally stops it
  (reason ``timeout``); a strategy that swallows the alarm or blocks in C is killed once its call has run
  ``time_limit + 1`` seconds, its game charged to it (``timeout``), and a new worker takes over;
* **the user stops the run** (Ctrl-C or SIGTERM): workers finish the game they are playing, and those
  still busy after :data:`STOP_GRACE_SECONDS` are killed; finished games are written, ``run.json`` made
  final by the command.

Workers ignore Ctrl-C (only the supervisor decides what it means), die with the supervisor (Linux
``PR_SET_PDEATHSIG``), optionally run under a memory limit (``RLIMIT_AS``), and capture what strategies
print: it goes to the run's log (size-capped per game), never to the tool's output.  The supervisor holds each
as a :class:`~canasta_sim.runs.worker_process.WorkerProcess`.

Games are pure functions of their seeds, so the tables are the same whatever the number of workers,
and a game not charged to a failure is the same as in a run without failures.

What the games are is the *schedule*'s business (:class:`~canasta_sim.runs.local_backend.RunSchedule` for
``canasta-sim run``; ``compare`` and ``tune`` bring their own): it numbers each chunk's games, builds the
worker's player, charges a game whose worker died and keeps the parent's book of each chunk.  A
:class:`WorkerPool` keeps its workers for several :meth:`WorkerPool.play` calls (a tuning plays one iteration
per call).
"""

from __future__ import annotations

import collections
import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Protocol

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_START, decode_call, overrun
from canasta_sim.core.engine import first_dealer
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.affinity import affinity_enabled, affinity_impossible, placement
from canasta_sim.runs.containment import has_memory_limit, no_memory_limit_reason, worker_start_method
from canasta_sim.runs.machine import StopFlag, WorkerStartError
from canasta_sim.runs.records import GameRows
from canasta_sim.runs.runner import log_failure, worker_logging
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.worker import OUTPUT_LIMIT
from canasta_sim.runs.worker_log import WorkerLogs
from canasta_sim.runs.worker_process import WorkerProcess

__all__ = [
    "OUTPUT_LIMIT",
    "STOP_GRACE_SECONDS",
    "Schedule",
    "StopFlag",
    "StopPlaying",
    "WorkerPool",
    "WorkerStartError",
    "charged_failure",
    "died_during_call",
    "exit_text",
    "worker_context",
    "worker_pool",
]

logger = logging.getLogger("canasta_sim.runs.runner")

TICK_SECONDS = 0.01
"""How often the supervisor takes its workers' messages (at once when a worker dies)."""

HARD_TIMEOUT_MARGIN = 1.0
"""Seconds past the time limit after which a decision's worker is killed (its alarm did not stop it)."""

STOP_GRACE_SECONDS = 2.0
"""Seconds a worker may take to finish its game once the run is stopping, before it is killed."""

START_FAILURES = 3
"""Workers that die before playing anything, in a row, before the run gives up."""

MIN_PIECE_GAMES = 16
"""The fewest games the supervisor hands a worker when it shares the last chunks out in pieces (see
:meth:`_Play._next_piece`): fewer would spend more on the messages than the pieces save."""

IDLE_DEATHS = 3
"""Workers that die in a row outside any game (no game to charge, none played since the last death) before the
run gives up: such a death is no strategy's doing, and a new worker would only die the same way."""


class StopPlaying(Exception):  # noqa: N818 - a signal from the caller, not an error
    """Raised by a pool's ``on_chunk`` when the games still being played are not needed (a test decided, a
    failure ends the command): busy workers are killed at once and unfinished chunks are dropped."""


class Schedule(Protocol):
    """What the supervisor needs to know about the games it plays; a chunk is any hashable, picklable key."""

    time_limit: float | None
    """Seconds one decision may take (``None``: no limit); a call past it plus a second gets its worker killed (a
    seat's build, :data:`~canasta_sim.arbiter.STARTUP_ALLOWANCE`)."""

    def chunk_games(self, chunk: Hashable) -> range:
        """The game numbers of a chunk, played in this order."""

    def new_player(self, on_error: str, stop_event) -> Any:
        """In the worker: an object whose ``play_game(chunk, game_id, monitor)`` returns ``(outcome, extra)``,
        the outcome a :class:`~canasta_sim.errors.StrategyError` when a strategy failed."""

    def charge(self, chunk: Hashable, game_id: int, seat: int, decision: str, reason: str,
               message: str) -> StrategyError:
        """The failure of a game whose worker died or was killed during ``seat``'s call."""

    def new_book(self, chunk: Hashable, on_error: str) -> Any:
        """In the supervisor: an object whose ``add(game_id, outcome, extra)`` returns ``False`` when the failure
        stops the run (its ``error`` then says why) and whose ``finish(directory)`` is given to ``on_chunk``."""


def exit_text(code: int | None) -> str:
    """How a process ended, from its exit code: ``signal SIGKILL`` (killed by a signal) or ``exit code 3``."""
    return f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"


def died_during_call(code: int | None) -> str:
    """The failure's words for a call whose process died with exit code ``code`` (as
    :func:`~canasta_sim.arbiter.overrun`, one wording for a run's worker and a single game's process)."""
    return f"its worker process died ({exit_text(code)}) during this call"


def charged_failure(spec: str, game_seed: int, seat: int, decision: str, reason: str, message: str) -> StrategyError:
    """The failure of a game whose worker died or was killed during ``spec``'s call at ``seat``: its hands are
    lost with the worker, its first dealer is known without it."""
    error = StrategyError(message, spec=spec, seat=seat, game_seed=game_seed, decision=decision, reason=reason)
    # The first dealer is drawn first from the deck generator (engine.play_game, R2.2).
    error.first_dealer = first_dealer(game_seed)
    return error


# --- in the supervisor --------------------------------------------------------------------------------


class WorkerPool:
    """Supervised worker processes playing a schedule's chunks; they are kept from one :meth:`play` to the next.

    Use it as a context manager: leaving it stops the workers (killing any still busy).

    :param memory_limit: megabytes of address space each worker may use (``None``: no limit); refused where no memory
        can be capped (:func:`~canasta_sim.runs.containment.has_memory_limit`).
    :raises WorkerStartError: (from :meth:`play`) when workers cannot load the strategies or keep dying.
    """

    def __init__(self, schedule: Schedule, *, workers: int, on_error: str, stop_event, context, logs: WorkerLogs,
                 memory_limit: int | None = None) -> None:
        # Records no handler takes are not sent: with -q, a forfeit's warning stays in its worker.
        level = max(logging.getLogger().getEffectiveLevel(),
                    min((handler.level for handler in logs.handlers), default=logging.CRITICAL + 1))
        self.schedule = schedule
        self.on_error = on_error
        self.stop_event = stop_event
        self.context = context
        self.logs = logs
        self.arguments = (schedule, on_error, stop_event, level, memory_limit)
        if memory_limit is not None and not has_memory_limit():  # (the command line refuses it before this)
            raise WorkerStartError(f"memory_limit={memory_limit}: {no_memory_limit_reason()}")
        count = max(1, workers)
        try:
            placements = [placement(slot, count) for slot in range(count)]
            if placements[0] is None and affinity_enabled():  # asked for, and said when impossible
                cores = len(os.sched_getaffinity(0))
                logger.warning("--pin-cores pins nothing: %d worker%s on %d cores leave no two cores a worker "
                               "(use --workers)", count, "s" if count > 1 else "", cores)
            if affinity_impossible():
                logger.warning("--pin-cores pins nothing: this system cannot pin a process to a core (Linux only)")
        except ValueError as error:  # a bad CANASTA_SIM_AFFINITY
            raise WorkerStartError(str(error)) from None
        self.workers: list[WorkerProcess] = []
        try:
            for where in placements:
                self.workers.append(WorkerProcess(context, logs, self.arguments, where))
        except WorkerStartError:  # the machine refused one (ulimit -u): those started are ended with the command
            self.close()
            raise
        self.start_failures = 0
        self.idle_deaths = 0
        """Workers that died in a row without a game being charged for it or played since: see :data:`IDLE_DEATHS`."""

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker: idle ones are told to end, busy ones are killed."""
        for worker in self.workers:
            worker.close()

    def play(self, chunks: Sequence[Hashable], on_chunk: Callable[[Any], None],
             directory: RunDirectory | None = None, *, on_games: Callable[[int], None] | None = None) -> str | None:
        """Play ``chunks``, calling ``on_chunk`` with each chunk's finished book (``book.finish(directory)``) as the
        chunk ends; return the failure that stopped the run (a book's ``error``), or ``None``.

        ``on_games(count)`` hears of the games kept since its last call, at most once a tick: a progress bar
        then moves with the games, not only with the chunks written.

        ``on_chunk`` may raise :class:`StopPlaying` to end at once.  The stop event ends it too: workers
        finish their game and those still busy after :data:`STOP_GRACE_SECONDS` are killed.
        """
        for index, worker in enumerate(self.workers):
            if worker.ready and not worker.process.is_alive():  # killed when a previous play ended early
                worker.connection.close()
                self.workers[index] = WorkerProcess(self.context, self.logs, self.arguments, worker.where)
        return _Play(self, chunks, on_chunk, directory, on_games).run()


class _Play:
    """One :meth:`WorkerPool.play`: the chunks still to start, the books of the chunks under way, and the
    failure that stopped the run."""

    def __init__(self, pool: WorkerPool, chunks: Sequence[Hashable], on_chunk: Callable[[Any], None],
                 directory: RunDirectory | None, on_games: Callable[[int], None] | None = None) -> None:
        self.pool = pool
        self.schedule = pool.schedule
        self.on_chunk = on_chunk
        self.directory = directory
        self.on_games = on_games
        self.kept = 0
        """Games kept since ``on_games`` was last called."""
        ranges = [(chunk, pool.schedule.chunk_games(chunk)) for chunk in chunks]
        self.pending = collections.deque((chunk, games.start, games.stop) for chunk, games in ranges)
        """``(chunk, first game still to play, end)`` waiting for a worker; a dead worker's piece goes back first."""
        self.pieces = collections.Counter(chunk for chunk, _, _ in self.pending)
        """How many pieces of each unfinished chunk are pending, sent ahead or being played: the chunk is finished
        when its last piece ends."""
        self.books: dict[Hashable, Any] = {}
        self.error: str | None = None
        self.deaths_in_built_ins: collections.Counter = collections.Counter()  # by (chunk, game): _played_again
        self.stop_seen: float | None = None
        """When the stop event was first seen set: busy workers get :data:`STOP_GRACE_SECONDS` from then."""

    def run(self) -> str | None:
        """Play until every chunk is finished or the run stops; the failure that stopped it, or ``None``."""
        abandoned = False
        try:
            while self._turn():
                pass
        except StopPlaying:
            abandoned = True
        finally:
            self._end(abandoned)
        return self.error

    def _turn(self) -> bool:
        """Hand idle workers a chunk (and busy ones the next, while chunks wait), take the messages that came,
        enforce the clocks; ``False`` once nothing is left to play (or to wait for, when stopping)."""
        workers = self.pool.workers
        stopping = self.pool.stop_event.is_set()
        if stopping and self.stop_seen is None:
            self.stop_seen = time.monotonic()
        if not stopping:
            for worker in workers:
                if worker.task is None and worker.ready and self.pending:
                    self._start(worker, self._send_next(worker))
                # A chunk sent ahead only while every worker can have one: the last chunks go to idle workers.
                if worker.task is not None and worker.queued is None and len(self.pending) >= len(workers):
                    worker.queued = self._send_next(worker)
        busy = [worker for worker in workers if worker.task is not None]
        if not busy and (stopping or not self.pending):
            return False
        # Woken by a death or by the tick, not by each message: a worker whose message wakes this process pays for
        # the wake-up in its send, once a game.  Only a worker about to wait for its next task is heard at once.
        waited = [worker.process.sentinel for worker in workers]
        waited += [worker.connection for worker in workers if worker.ending()]
        multiprocessing.connection.wait(waited, timeout=TICK_SECONDS)
        now = time.monotonic()
        for index, worker in enumerate(workers):
            if worker.has_message():
                self._receive(worker)
            self._enforce_clocks(worker, now, stopping)
            if not worker.process.is_alive():
                workers[index] = self._replace(worker)
        if self.kept and self.on_games is not None:
            kept, self.kept = self.kept, 0
            self.on_games(kept)
        return True

    def _send_next(self, worker: WorkerProcess) -> tuple[Hashable, int, int] | None:
        """Send the worker the next pending ``(chunk, first game, end)`` and return it; ``None`` if the worker is
        dead (the task stays pending, and the worker is replaced once its death is seen)."""
        task = self._next_piece()
        try:
            worker.connection.send(task)
        except OSError:
            self.pending.appendleft(task)
            return None
        return task

    def _next_piece(self) -> tuple[Hashable, int, int]:
        """Take the next pending task, or only its first games when the run is near its end.

        Whole chunks are dealt out while there are plenty; a worker that finishes its last chunk early would
        then wait, on average, half a chunk's time for the others, idle.  So once fewer than two chunks per
        worker are pending, a worker gets a piece of about a quarter of the games left per worker (never fewer
        than :data:`MIN_PIECE_GAMES`): the pieces shrink as the run ends and the workers finish together.
        """
        chunk, first, end = self.pending.popleft()
        workers = len(self.pool.workers)
        if not getattr(self.schedule, "splits_chunks", False) or workers == 1 or len(self.pending) >= 2 * workers:
            return chunk, first, end  # (a lone worker has nobody to wait for)
        games = end - first
        left = games + sum(stop - start for _, start, stop in self.pending)
        size = max(MIN_PIECE_GAMES, -(-left // (2 * workers)))
        # The task in equal parts of about that size (no part under the minimum): no small remainder left over.
        parts = min(-(-games // size), games // MIN_PIECE_GAMES)
        if parts <= 1:
            return chunk, first, end
        piece = -(-games // parts)
        self.pending.appendleft((chunk, first + piece, end))
        self.pieces[chunk] += 1
        return chunk, first, first + piece

    def _start(self, worker: WorkerProcess, task: tuple[Hashable, int, int] | None) -> None:
        """Make ``task`` the one the worker plays now, opening its chunk's book."""
        worker.task = task
        if task is not None and task[0] not in self.books:
            self.books[task[0]] = self.schedule.new_book(task[0], self.pool.on_error)

    def _enforce_clocks(self, worker: WorkerProcess, now: float, stopping: bool) -> None:
        """Kill a worker whose call overran the time limit, or that is still busy past the stop's grace."""
        time_limit = self.schedule.time_limit
        # The number before the start, as a worker writes them the other way round: read in the other order, a game
        # begun between the two reads would show the worker's last start (0 before its first game), hours overdue.
        # The call before its start too (MONITOR_START): a build (a bot's start-up) has an allowance of its own.
        game, call = worker.monitor[MONITOR_GAME], worker.monitor[MONITOR_CALL]
        started = worker.monitor[MONITOR_START]
        overdue = None if time_limit is None or game < 0 else overrun(call, now - started, time_limit,
                                                                        HARD_TIMEOUT_MARGIN)
        if overdue is not None and worker.task is not None and not stopping:
            worker.killed_for = overdue
            worker.kill()
        if stopping and worker.task is not None and now - self.stop_seen > STOP_GRACE_SECONDS:
            worker.monitor[MONITOR_GAME] = -1  # the user's stop: the game in progress is nobody's failure
            worker.kill()

    def _end(self, abandoned: bool) -> None:
        for worker in self.pool.workers:
            worker.queued = None
            if worker.task is not None:  # the play is ending early (an error, Ctrl-C, StopPlaying): do not wait
                worker.task = None
                worker.kill()
        if not abandoned:
            for chunk in list(self.books):
                try:
                    self._finish(chunk)
                except StopPlaying:
                    break

    def _finish(self, chunk: Hashable) -> None:
        self.pieces.pop(chunk, None)
        book = self.books.pop(chunk)
        self.on_chunk(book.finish(self.directory))

    def _piece_ended(self, chunk: Hashable) -> None:
        """One piece of ``chunk`` is over (played, or cut short by a stop); the chunk is finished with its last."""
        self.pieces[chunk] -= 1
        if self.pieces[chunk] <= 0:
            self._finish(chunk)

    def _record(self, worker: WorkerProcess, game_id: int, outcome, extra=None) -> None:
        self.pool.idle_deaths = 0
        chunk, _, end = worker.task
        worker.task = (chunk, game_id + 1, end)
        book = self.books[chunk]
        if book.add(game_id, outcome, extra):
            self.kept += 1
        elif self.error is None:
            self.error = book.error
            self.pool.stop_event.set()

    def _handle(self, worker: WorkerProcess, message) -> None:
        kind = message[0]
        if kind == "ready":
            worker.ready = True
            self.pool.start_failures = 0
        elif kind == "load_error":
            raise WorkerStartError(message[1])
        elif kind == "rows":  # a finished game's rows, sent as a plain tuple (see the worker's report)
            _, game_id, game, hands, winner, extra = message
            self._record(worker, game_id, GameRows(game, hands, winner), extra)
        elif kind == "game":
            self._record(worker, *message[1:])
        elif kind == "done":
            chunk = worker.task[0]
            next_task, worker.queued = worker.queued, None
            if next_task is None and self.pending and not self.pool.stop_event.is_set():
                next_task = self._send_next(worker)  # before the chunk's parts are written: the worker goes on
            self._start(worker, next_task)
            self._piece_ended(chunk)

    def _receive(self, worker: WorkerProcess) -> None:
        """Take every message the worker has sent so far."""
        while True:
            # Only the reading is guarded: a part the disk refuses while a message is handled stops the run.
            try:
                message = worker.connection.recv()
            except (EOFError, OSError):  # the pipe's end, or a message cut by the worker's death: the earlier are kept
                worker.hung_up = True
                return
            except pickle.UnpicklingError:
                return
            self._handle(worker, message)
            if not worker.has_message():
                return

    def _replace(self, worker: WorkerProcess) -> WorkerProcess:
        """Charge the game the dead worker was playing, keep its chunk going on a new worker."""
        if worker.has_message():
            self._receive(worker)
        worker.kill()
        pool = self.pool
        if not worker.ready:
            pool.start_failures += 1
            if pool.start_failures >= START_FAILURES:
                raise WorkerStartError(f"workers die before playing any game (exit code {worker.process.exitcode})")
        in_game = False
        if worker.task is not None:
            chunk, next_game, end = worker.task
            game_id = int(worker.monitor[MONITOR_GAME])
            in_game = game_id >= 0 and game_id == next_game
            if in_game and not self._played_again(worker, chunk, game_id):
                self._charge_death(worker, chunk, game_id)
                next_game = game_id + 1
            worker.task = None
            if worker.queued is not None and not pool.stop_event.is_set():
                self.pending.appendleft(worker.queued)  # sent ahead, never started: played by the next worker
            if next_game < end and not pool.stop_event.is_set():
                self.pending.appendleft((chunk, next_game, end))
            else:
                self._piece_ended(chunk)
        worker.connection.close()
        if in_game:
            pool.idle_deaths = 0
        elif worker.ready and not pool.stop_event.is_set():
            pool.idle_deaths += 1
            if pool.idle_deaths >= IDLE_DEATHS:
                raise WorkerStartError(f"workers keep dying outside any game ({pool.idle_deaths} in a row, the last "
                                       f"with exit code {worker.process.exitcode}); no more are started")
        return WorkerProcess(pool.context, pool.logs, pool.arguments, worker.where)

    def _played_again(self, worker: WorkerProcess, chunk: Hashable, game_id: int) -> bool:
        """Whether the dead worker's game is played again rather than charged: it died during a built-in strategy's
        call, which cannot have caused it (its alarm's kill past the time limit is charged as ever)."""
        is_built_in = getattr(self.schedule, "is_built_in", None)
        if worker.killed_for is not None or is_built_in is None:
            return False
        seat, _ = decode_call(worker.monitor[MONITOR_CALL])
        if not is_built_in(chunk, game_id, seat):
            return False
        self.deaths_in_built_ins[chunk, game_id] += 1
        if self.deaths_in_built_ins[chunk, game_id] >= IDLE_DEATHS:
            raise WorkerStartError(f"game {game_id}'s worker died {IDLE_DEATHS} times during a built-in strategy's "
                                   f"call (the last with {exit_text(worker.process.exitcode)}), which no strategy is "
                                   "charged with: is the machine short of memory, or killing them?")
        logger.warning("game %d: its worker died (%s) during a built-in strategy's call, not that strategy's doing; "
                       "the game is played again", game_id, exit_text(worker.process.exitcode))
        return True

    def _charge_death(self, worker: WorkerProcess, chunk: Hashable, game_id: int) -> None:
        """Charge game ``game_id`` to the seat whose call was running when its worker died or was killed."""
        seat, decision = decode_call(worker.monitor[MONITOR_CALL])
        if worker.killed_for is not None:
            reason, message = "timeout", worker.killed_for
        else:
            reason, message = "crash", died_during_call(worker.process.exitcode)
        outcome = self.schedule.charge(chunk, game_id, seat, decision, reason, message)
        log_failure(game_id, outcome, self.pool.on_error)
        self._record(worker, game_id, outcome)


def worker_context():
    """The start method of every worker pool: ``fork`` on Linux (a worker starts at once, with the strategies the run
    loaded), ``spawn`` elsewhere (:func:`~canasta_sim.runs.containment.worker_start_method`)."""
    return multiprocessing.get_context(worker_start_method())


@contextlib.contextmanager
def worker_pool(schedule: Schedule, *, workers: int, on_error: str, log_handlers: Sequence[logging.Handler] = (),
                memory_limit: int | None = None, stop_event=None) -> Iterator[WorkerPool]:
    """A :class:`WorkerPool` started the way ``run`` starts its workers (:func:`worker_context`), their log records
    sent to ``log_handlers``; its ``stop_event`` (a :class:`StopFlag`) is made here unless given (a caller watching for
    Ctrl-C makes it first), and set to stop, as Ctrl-C does."""
    context = worker_context()
    if stop_event is None:
        stop_event = StopFlag(context)
    with worker_logging(context, log_handlers) as logs, WorkerPool(
            schedule, workers=workers, on_error=on_error, stop_event=stop_event, context=context,
            logs=logs, memory_limit=memory_limit) as pool:
        yield pool
