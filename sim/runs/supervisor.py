"""The supervisor of a run's worker processes: no strategy can hang, kill or silence a run.

Strategy code runs only in worker processes, never in the process that owns the run.  Each worker plays
the games it is given one by one and sends every finished game back at once (its result, or the
:class:`~canasta_sim.errors.StrategyError` that ended it); the supervisor records them and writes each
chunk's Parquet parts when the chunk ends.  Before every call into strategy code a worker publishes
the game, the seat and decision asked and the time in a few floats of shared memory (the *monitor*,
:mod:`canasta_sim.arbiter`), which costs a couple of stores.  From them the supervisor can act when:

* **a worker dies** (a crash, ``os._exit``, an out-of-memory kill): the game in progress is charged to
  the seat whose call was running (reason ``crash``), the games already sent are kept, and a new worker
  takes over the chunk from the next game;
* **a decision outlives its clock**: with a time limit, the worker's own alarm normally stops it
  (reason ``timeout``); a strategy that swallows the alarm or blocks in C is killed once its call has run
  ``time_limit + 1`` seconds, its game charged to it (``timeout``), and a new worker takes over;
* **the user stops the run** (Ctrl-C or SIGTERM): workers finish the game they are playing, and those
  still busy after :data:`STOP_GRACE_SECONDS` are killed; finished games are written, ``run.json`` made
  final by the command.

Workers ignore Ctrl-C (only the supervisor decides what it means), die with the supervisor (Linux
``PR_SET_PDEATHSIG``), optionally run under a memory limit (``RLIMIT_AS``), and capture what strategies
print: it goes to the run's log (size-capped per game), never to the tool's output.

Games are pure functions of their seeds, so the tables are the same whatever the number of workers,
and a game not charged to a failure is the same as in a run without failures.

What the games are is the *schedule*'s business (:class:`RunSchedule` for ``canasta-sim run``; ``compare``
and ``tune`` bring their own): it numbers each chunk's games, builds the worker's player, charges a game
whose worker died and keeps the parent's book of each chunk.  A :class:`WorkerPool` keeps its workers
for several :meth:`WorkerPool.play` calls (a tuning plays one iteration per call).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import io
import logging
import logging.handlers
import multiprocessing
import multiprocessing.connection
import os
import pickle
import random
import resource
import signal
import sys
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Protocol

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_SIZE, MONITOR_START, decode_call
from canasta_sim.core.engine import derive_seed
from canasta_sim.errors import StrategyError, StrategyLoadError
from canasta_sim.runs.runner import ChunkBook, ChunkPlayer, ChunkReport, RunSettings, log_failure, worker_logging
from canasta_sim.runs.storage import RunDirectory

__all__ = [
    "OUTPUT_LIMIT",
    "POLL_SECONDS",
    "STOP_GRACE_SECONDS",
    "RunSchedule",
    "Schedule",
    "StopPlaying",
    "WorkerPool",
    "WorkerStartError",
    "charged_failure",
    "play_supervised",
    "supervise",
    "worker_pool",
]

logger = logging.getLogger("canasta_sim.runs.runner")

POLL_SECONDS = 0.1
"""How often the supervisor looks at its workers' clocks when no message arrives."""

HARD_TIMEOUT_MARGIN = 1.0
"""Seconds past the time limit after which a decision's worker is killed (its alarm did not stop it)."""

STOP_GRACE_SECONDS = 2.0
"""Seconds a worker may take to finish its game once the run is stopping, before it is killed."""

OUTPUT_LIMIT = 16_000
"""Characters of what the strategies print during one game kept for the run's log."""

START_FAILURES = 3
"""Workers that die before playing anything, in a row, before the run gives up."""


class WorkerStartError(StrategyLoadError):
    """Workers could not start: the strategies do not load there, or they die before playing anything."""


class StopPlaying(Exception):  # noqa: N818 - a signal from the caller, not an error
    """Raised by a pool's ``on_chunk`` when the games still being played are not needed (a test decided, a
    failure ends the command): busy workers are killed at once and unfinished chunks are dropped."""


class Schedule(Protocol):
    """What the supervisor needs to know about the games it plays; a chunk is any hashable, picklable key."""

    time_limit: float | None
    """Seconds one decision may take (``None``: no limit); a call past it plus a second gets its worker killed."""

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


class RunSchedule:
    """The games of a ``canasta-sim run``: numbered chunks of :class:`~canasta_sim.runs.runner.RunSettings`, played
    by a :class:`~canasta_sim.runs.runner.ChunkPlayer` and kept in a :class:`~canasta_sim.runs.runner.ChunkBook`."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.time_limit = settings.time_limit

    def chunk_games(self, chunk: int) -> range:
        """The chunk's game ids."""
        return self.settings.chunk_games(chunk)

    def new_player(self, on_error: str, stop_event) -> _RunPlayer:
        """The worker's player, loading the run's strategies."""
        return _RunPlayer(ChunkPlayer(self.settings, "", on_error, stop_event))

    def charge(self, chunk: int, game_id: int, seat: int, decision: str, reason: str, message: str) -> StrategyError:
        """The failure of a game lost with its worker."""
        return _charge(self.settings, game_id, seat, decision, reason, message)

    def new_book(self, chunk: int, on_error: str) -> ChunkBook:
        """The chunk's book, written as Parquet parts when the chunk ends."""
        return ChunkBook(self.settings, chunk, on_error)


class _RunPlayer:
    """A :class:`ChunkPlayer` as the worker loop calls it: each game's outcome and its decision rows."""

    def __init__(self, player: ChunkPlayer) -> None:
        self.player = player

    def play_game(self, chunk: int, game_id: int, monitor):
        outcome = self.player.play_game(game_id, monitor)
        return outcome, self.player.last_decisions


# --- in the worker ------------------------------------------------------------------------------------


class _CappedOutput(io.TextIOBase):
    """Stands in for ``sys.stdout`` and ``sys.stderr`` in a worker: keeps the first characters printed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> str:
        """What was printed since the last call (with a note of what was dropped), then forget it."""
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n... ({self.dropped} more characters dropped)"
        self.parts, self.kept, self.dropped = [], 0, 0
        return text


def _die_with_parent() -> None:
    # A worker spinning in strategy code never checks on its parent: let the kernel kill it (Linux).
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _limit_memory(megabytes: int | None) -> None:
    if megabytes is not None:
        limit = megabytes * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard == resource.RLIM_INFINITY else min(limit, hard)))


def _worker_main(connection, monitor_memory, schedule, on_error, stop_event, log_queue, log_level, memory_limit):
    """A worker: play the ``(chunk, first game)`` tasks received, sending each game back as it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if log_queue is not None:
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        root.addHandler(logging.handlers.QueueHandler(log_queue))
        root.setLevel(log_level)
    # What strategies print goes to the log; raw writes to the descriptors are dropped.
    output = _CappedOutput(OUTPUT_LIMIT)
    sys.stdout = sys.stderr = output
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
    monitor = memoryview(monitor_memory).cast("B").cast("d")
    monitor[MONITOR_GAME] = -1
    try:
        player = schedule.new_player(on_error, stop_event)
    except Exception as error:  # a plugin failing to load in the worker: the run cannot go on
        connection.send(("load_error", f"a worker could not load the strategies: {type(error).__name__}: {error}"))
        return
    _limit_memory(memory_limit)
    connection.send(("ready",))
    while True:
        task = connection.recv()
        if task is None:
            return
        chunk, first = task
        for game_id in range(first, schedule.chunk_games(chunk).stop):
            if stop_event.is_set():
                break
            monitor[MONITOR_START] = time.monotonic()  # never an old start with a new game: see the supervisor
            monitor[MONITOR_GAME] = game_id
            try:
                outcome, extra = player.play_game(chunk, game_id, monitor)
            except BaseException as error:  # noqa: BLE001 - strategy code broke out of its call; see below
                # Raised outside any call the engine guards (e.g. a MemoryError in the engine while a
                # strategy holds the memory): the worker may be unsound, so it reports and stops.
                seat, decision = decode_call(monitor[MONITOR_CALL])
                message = f"its worker failed outside the strategy's calls: {type(error).__name__}: {error}"
                outcome = schedule.charge(chunk, game_id, seat, decision, "crash", message)
                log_failure(game_id, outcome, on_error)
                connection.send(("game", game_id, outcome))
                monitor[MONITOR_GAME] = -1
                os._exit(70)
            monitor[MONITOR_GAME] = -1
            printed = output.take()
            if printed:
                logger.info("game %d: the strategies printed:\n%s", game_id, printed.rstrip())
            connection.send(("game", game_id, outcome, extra))
            if isinstance(outcome, StrategyError) and on_error == "stop":
                break
        connection.send(("done", chunk))


def _charge(settings: RunSettings, game_id: int, seat: int, decision: str, reason: str, message: str):
    """The failure of a game charged by the supervisor (its hands are lost with the worker)."""
    return charged_failure(settings.sides(game_id)[seat % 2], settings.game_seed(game_id), seat, decision, reason,
                           message)


def charged_failure(spec: str, game_seed: int, seat: int, decision: str, reason: str, message: str) -> StrategyError:
    """The failure of a game whose worker died or was killed during ``spec``'s call at ``seat``: its hands are
    lost with the worker, its first dealer is known without it."""
    error = StrategyError(message, spec=spec, seat=seat, game_seed=game_seed, decision=decision, reason=reason)
    # The first dealer is drawn first from the deck generator (engine.play_game, R2.2).
    error.first_dealer = random.Random(derive_seed(game_seed, "deck")).randrange(4)
    return error


# --- in the supervisor --------------------------------------------------------------------------------


class _Worker:
    """One worker process, its pipe, its monitor and its task."""

    started = 0

    def __init__(self, context, arguments) -> None:
        self.monitor_memory = context.RawArray("d", MONITOR_SIZE)
        self.monitor = memoryview(self.monitor_memory).cast("B").cast("d")
        self.monitor[MONITOR_GAME] = -1
        self.connection, child = context.Pipe()
        _Worker.started += 1
        self.process = context.Process(target=_worker_main, args=(child, self.monitor_memory, *arguments),
                                       name=f"Worker-{_Worker.started}", daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.task: tuple[int, int] | None = None
        """``(chunk, next game)`` while busy."""
        self.killed_for: str | None = None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.join(5)

    def close(self) -> None:
        if self.task is not None:
            self.kill()  # still playing: the run is ending (an error or a second Ctrl-C), do not wait
        with contextlib.suppress(OSError):
            if self.process.is_alive():
                self.connection.send(None)
        self.process.join(2)
        if self.process.is_alive():
            self.kill()
        self.connection.close()


class WorkerPool:
    """Supervised worker processes playing a schedule's chunks; they are kept from one :meth:`play` to the next.

    Use it as a context manager: leaving it stops the workers (killing any still busy).

    :param memory_limit: megabytes of address space each worker may use (``None``: no limit).
    :raises WorkerStartError: (from :meth:`play`) when workers cannot load the strategies or keep dying.
    """

    def __init__(self, schedule: Schedule, *, workers: int, on_error: str, stop_event, context, log_queue,
                 memory_limit: int | None = None) -> None:
        level = logging.getLogger().getEffectiveLevel()
        self.schedule = schedule
        self.on_error = on_error
        self.stop_event = stop_event
        self.context = context
        self.arguments = (schedule, on_error, stop_event, log_queue, level, memory_limit)
        self.workers = [_Worker(context, self.arguments) for _ in range(max(1, workers))]
        self.start_failures = 0

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker: idle ones are told to end, busy ones are killed."""
        for worker in self.workers:
            worker.close()

    def play(self, chunks: Sequence[Hashable], on_chunk: Callable[[Any], None],
             directory: RunDirectory | None = None) -> str | None:
        """Play ``chunks``, calling ``on_chunk`` with each chunk's finished book (``book.finish(directory)``) as the
        chunk ends; return the failure that stopped the run (a book's ``error``), or ``None``.

        ``on_chunk`` may raise :class:`StopPlaying` to end at once.  The stop event ends it too: workers
        finish their game and those still busy after :data:`STOP_GRACE_SECONDS` are killed.
        """
        schedule, stop_event, context, pool = self.schedule, self.stop_event, self.context, self.workers
        pending = collections.deque((chunk, schedule.chunk_games(chunk).start) for chunk in chunks)
        books: dict[Hashable, Any] = {}
        error: str | None = None
        stop_seen: float | None = None
        abandoned = False

        def finish(chunk) -> None:
            book = books.pop(chunk)
            on_chunk(book.finish(directory))

        def record(worker: _Worker, game_id: int, outcome, extra=None) -> None:
            nonlocal error
            chunk, _ = worker.task
            worker.task = (chunk, game_id + 1)
            book = books[chunk]
            if not book.add(game_id, outcome, extra) and error is None:
                error = book.error
                stop_event.set()

        def handle(worker: _Worker, message) -> None:
            kind = message[0]
            if kind == "ready":
                worker.ready = True
                self.start_failures = 0
            elif kind == "load_error":
                raise WorkerStartError(message[1])
            elif kind == "game":
                record(worker, *message[1:])
            elif kind == "done":
                chunk, _ = worker.task
                worker.task = None
                finish(chunk)

        def drain(worker: _Worker) -> None:
            # A worker killed while sending leaves a cut message: what came before it is kept.
            with contextlib.suppress(EOFError, OSError, pickle.UnpicklingError):
                while worker.connection.poll():
                    handle(worker, worker.connection.recv())

        def receive(worker: _Worker) -> None:
            with contextlib.suppress(EOFError, OSError, pickle.UnpicklingError):
                handle(worker, worker.connection.recv())

        def replace(worker: _Worker) -> _Worker:
            """Charge the game the dead worker was playing, keep its chunk going on a new worker."""
            drain(worker)
            worker.kill()
            game_id = int(worker.monitor[MONITOR_GAME])
            if not worker.ready:
                self.start_failures += 1
                if self.start_failures >= START_FAILURES:
                    raise WorkerStartError(f"workers die before playing any game (exit code {worker.process.exitcode})")
            if worker.task is not None:
                chunk, next_game = worker.task
                if game_id >= 0 and game_id == next_game:
                    seat, decision = decode_call(worker.monitor[MONITOR_CALL])
                    if worker.killed_for is not None:
                        reason, message = "timeout", worker.killed_for
                    else:
                        code = worker.process.exitcode
                        killed = code is not None and code < 0
                        how = f"signal {signal.Signals(-code).name}" if killed else f"exit code {code}"
                        reason, message = "crash", f"its worker process died ({how}) during this call"
                    outcome = schedule.charge(chunk, game_id, seat, decision, reason, message)
                    log_failure(game_id, outcome, self.on_error)
                    record(worker, game_id, outcome)
                    next_game = game_id + 1
                worker.task = None
                if next_game < schedule.chunk_games(chunk).stop and not stop_event.is_set():
                    pending.appendleft((chunk, next_game))
                else:
                    finish(chunk)
            worker.connection.close()
            return _Worker(context, self.arguments)

        for index, worker in enumerate(pool):
            if worker.ready and not worker.process.is_alive():  # killed when a previous play ended early
                worker.connection.close()
                pool[index] = _Worker(context, self.arguments)
        try:
            while True:
                stopping = stop_event.is_set()
                if stopping and stop_seen is None:
                    stop_seen = time.monotonic()
                for worker in pool:
                    if worker.task is None and worker.ready and pending and not stopping:
                        worker.task = pending.popleft()
                        if worker.task[0] not in books:
                            books[worker.task[0]] = schedule.new_book(worker.task[0], self.on_error)
                        worker.connection.send(worker.task)
                busy = [worker for worker in pool if worker.task is not None]
                if not busy and (stopping or not pending):
                    break
                waiting = [worker.connection for worker in pool] + [worker.process.sentinel for worker in pool]
                ready = multiprocessing.connection.wait(waiting, timeout=POLL_SECONDS)
                now = time.monotonic()
                for index, worker in enumerate(pool):
                    if worker.connection in ready:
                        # One message a wake: wait() is level-triggered, so the next turn takes any other at
                        # once, and no poll() (a selector set up each time) is spent on an idle pipe.
                        receive(worker)
                    overdue = (schedule.time_limit is not None and worker.monitor[MONITOR_GAME] >= 0
                               and now - worker.monitor[MONITOR_START] > schedule.time_limit + HARD_TIMEOUT_MARGIN)
                    if overdue and worker.task is not None and not stopping:
                        worker.killed_for = (f"was still running {now - worker.monitor[MONITOR_START]:.1f} s after "
                                             f"it began, past the time limit of {schedule.time_limit} s; its worker "
                                             "was killed")
                        worker.kill()
                    if stopping and worker.task is not None and now - stop_seen > STOP_GRACE_SECONDS:
                        worker.monitor[MONITOR_GAME] = -1  # the user's stop: the game in progress is nobody's failure
                        worker.kill()
                    if not worker.process.is_alive():
                        pool[index] = replace(worker)
        except StopPlaying:
            abandoned = True
        finally:
            for worker in pool:
                if worker.task is not None:  # the play is ending early (an error, Ctrl-C, StopPlaying): do not wait
                    worker.task = None
                    worker.kill()
            if not abandoned:
                for chunk in list(books):
                    try:
                        finish(chunk)
                    except StopPlaying:
                        break
        return error


@contextlib.contextmanager
def worker_pool(schedule: Schedule, *, workers: int, on_error: str, log_handlers: Sequence[logging.Handler] = (),
                memory_limit: int | None = None) -> Iterator[WorkerPool]:
    """A :class:`WorkerPool` started the way ``run`` starts its workers (``fork`` where it exists), their log
    records sent to ``log_handlers``; its ``stop_event`` is made here (set it to stop, as Ctrl-C does)."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with worker_logging(context, log_handlers) as log_queue, WorkerPool(
            schedule, workers=workers, on_error=on_error, stop_event=context.Event(), context=context,
            log_queue=log_queue, memory_limit=memory_limit) as pool:
        yield pool


def supervise(
    settings: RunSettings,
    directory: RunDirectory,
    chunks: Sequence[int],
    *,
    workers: int,
    on_error: str,
    stop_event,
    context,
    log_queue,
    on_chunk: Callable[[ChunkReport], None],
    memory_limit: int | None = None,
) -> str | None:
    """Play ``chunks`` of a run in ``workers`` supervised processes; return the failure that stopped the run, or
    ``None``.

    :raises WorkerStartError: when workers cannot load the strategies or keep dying before playing.
    """
    with WorkerPool(RunSchedule(settings), workers=min(workers, len(chunks)), on_error=on_error,
                    stop_event=stop_event, context=context, log_queue=log_queue, memory_limit=memory_limit) as pool:
        return pool.play(chunks, on_chunk, directory)


def play_supervised(play: Callable, charge: Callable, time_limit: float | None):
    """Run ``play(monitor)`` (one game) in a forked process and return what it returns; if the process dies or
    a call outlives ``time_limit + 1`` s, return ``charge(seat, decision, reason, message)`` for the call
    that was running.  Where ``fork`` does not exist, ``play`` runs in this process.

    ``check-strategy`` plays its games this way, so that no strategy can hang or end it.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return play(None)
    context = multiprocessing.get_context("fork")
    memory = context.RawArray("d", MONITOR_SIZE)
    monitor = memoryview(memory).cast("B").cast("d")
    monitor[MONITOR_GAME] = -1
    receiver, sender = context.Pipe(duplex=False)

    def child() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _die_with_parent()
        output = _CappedOutput(OUTPUT_LIMIT)
        sys.stdout = sys.stderr = output
        child_monitor = memoryview(memory).cast("B").cast("d")
        child_monitor[MONITOR_GAME] = 0
        outcome = play(child_monitor)
        child_monitor[MONITOR_GAME] = -1
        sender.send((outcome, output.take()))

    process = context.Process(target=child, daemon=True)
    process.start()
    sender.close()
    killed_for = None
    try:
        while True:
            if receiver.poll(POLL_SECONDS):
                try:
                    outcome, printed = receiver.recv()
                except (EOFError, OSError):
                    break
                process.join()
                if printed:
                    logger.info("the strategies printed:\n%s", printed.rstrip())
                return outcome
            if not process.is_alive():
                break
            started = monitor[MONITOR_START]
            if (time_limit is not None and monitor[MONITOR_GAME] >= 0 and started
                    and time.monotonic() - started > time_limit + HARD_TIMEOUT_MARGIN):
                killed_for = (f"was still running {time.monotonic() - started:.1f} s after it began, past the time "
                              f"limit of {time_limit} s; its process was killed")
                process.kill()
                break
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    seat, decision = decode_call(monitor[MONITOR_CALL])
    if killed_for is not None:
        return charge(seat, decision, "timeout", killed_for)
    code = process.exitcode
    how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
    return charge(seat, decision, "crash", f"its process died ({how}) during this call")
