"""Playing a run's chunks on a Dask cluster: ``canasta-sim run --backend dask``.

The chunks, seeds and sides are those of the local runner (:class:`canasta_sim.runs.runner.RunSettings`), and each
chunk is played by the same :class:`canasta_sim.runs.runner.ChunkPlayer`, so the tables are identical to the local
backend's for the same settings.  What differs is where the games are played and who writes:

* **Workers return rows, the client writes.**  Workers of a real cluster do not share the client's
  filesystem, so a task returns its chunk's two Arrow tables and the client writes them as the chunk's
  Parquet parts (atomically, :meth:`canasta_sim.runs.storage.RunDirectory.write_chunk`) as soon as they come back.
  At most twice as many chunks as the cluster has worker threads are in flight, so the client's memory
  stays flat however many games are played.
* **Tasks are pure.**  A task (:mod:`canasta_sim.runs.dask_task`) only reads its arguments and returns rows, so
  Dask may run it again when the worker running it dies; the part of a chunk is named by its index, so nothing
  is lost or doubled.
* **Strategies travel as specs, files as their text** (:mod:`canasta_sim.runs.dask_strategies`, which also
  ends a run's bot processes on the workers with the run).  Built-ins, modules, plugins and the programs of
  ``cmd:`` bots must be installed on the workers.  Each worker checks that its engine version and every
  strategy's ``name@version`` match the client's, since anything else would give other tables.
* **Nothing hangs silently.**  A chunk that has not come back ``task_timeout`` seconds after it could
  start (see :func:`default_task_timeout`), a strategy that no worker can load, and a chunk whose
  workers keep dying end the run with a one-line :class:`ClusterError`; finished chunks are kept.

Worker log records (forfeits, and the per-chunk lines under ``--verbose``) come back with the rows and
are handled by the client's loggers; Dask's own records go to the run's log file
(:mod:`canasta_sim.runs.dask_logging`).  Dask itself is imported only when a run uses it: it is the
optional extra ``dask`` (``pip install '.[dask]'`` in a checkout).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import logging
import pickle
import signal
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import LoadedStrategy
from canasta_sim.runs.dask_cluster import (
    ClusterError,
    LocalWorkers,
    connect,
    normalize_scheduler_address,
    played_by,
    scheduler_lost,
    start_local_cluster,
    worker_threads,
)
from canasta_sim.runs.dask_journal import forget_run
from canasta_sim.runs.dask_resubmission import ATTEMPT_TOPIC, Resubmissions
from canasta_sim.runs.dask_results import ChunkLost, RowsFetch, failure_advice, write_result
from canasta_sim.runs.dask_strategies import ShippedFile, end_run_on_workers, remove_run_files, shipped_files
from canasta_sim.runs.dask_task import DASK_DEATH, ChunkJob, ChunkResult, play_chunk_task, prepare_job
from canasta_sim.runs.runner import ChunkReport, RunSettings
from canasta_sim.runs.stopping import stop_on_signals
from canasta_sim.runs.storage import RunDirectory

__all__ = [
    "DASK_DEATH",
    "ChunkJob",
    "ChunkResult",
    "ClusterError",
    "DaskChunkRunner",
    "ShippedFile",
    "default_task_timeout",
    "is_available",
    "normalize_scheduler_address",
    "play_chunk_task",
    "played_by",
    "prepare_job",
]

logger = logging.getLogger(__name__)

IN_FLIGHT_PER_THREAD = 2
"""Chunks in flight per worker thread: one playing and one queued, so no worker waits for the client."""

POLL_SECONDS = 0.05
"""How often the client looks for finished chunks, a stop request and overdue chunks."""

THREAD_COUNT_SECONDS = 1.0
"""How often the client asks the scheduler how many worker threads there are."""

def is_available() -> bool:
    """Whether Dask distributed is installed (the ``dask`` extra)."""
    return importlib.util.find_spec("distributed") is not None


def default_task_timeout(settings: RunSettings) -> float:
    """Seconds a chunk may take once it could start: a minute plus ten seconds per game of the chunk.

    The built-in strategies play a game in well under a second, so only a hung or very slow strategy
    reaches it; a deliberately slow one needs ``--task-timeout``.

    >>> from canasta_sim.core.rules import Rules
    >>> default_task_timeout(RunSettings(games=1000, seed=1, specs=("greedy",), rules=Rules(), chunk_size=50))
    560.0
    """
    return 60.0 + 10.0 * settings.chunk_size


# --- the client side --------------------------------------------------------------------------------


@dataclasses.dataclass
class _Flight:
    """A chunk sent to the cluster; its clock starts once fewer chunks than worker threads are ahead of it."""

    chunk: int
    started: float | None = None
    submissions: int = 1
    fetch: RowsFetch | None = None
    """Set once Dask reported the chunk done: the fetch of its rows."""


class DaskChunkRunner:
    """Plays chunks on a Dask cluster; a :class:`~canasta_sim.runs.runner.ChunkRunner`.

    :param scheduler: the scheduler's address; ``None`` starts a local cluster of ``workers`` processes
        with one thread each for the run and closes it afterwards.
    :param task_timeout: seconds a chunk may take once it could start; ``None`` for
        :func:`default_task_timeout`.
    """

    def __init__(self, scheduler: str | None = None, task_timeout: float | None = None) -> None:
        self.scheduler = None if scheduler is None else normalize_scheduler_address(scheduler)
        self.task_timeout = task_timeout
        self.description = "Dask"
        """How the last run was played, for the closing line: ``2 workers on a local Dask cluster``, or on a cluster
        given by address the worker threads that played its chunks (:func:`played_by`)."""
        self.players: set[tuple[str, int]] = set()
        """The worker threads (the worker's address, the thread's id) that played the last run's chunks."""
        self._files: tuple[RunSettings, tuple[ShippedFile, ...]] | None = None
        self._held = None

    @contextlib.contextmanager
    def connected(self) -> Iterator[None]:
        """Reach the scheduler given by address, and wait for a worker, before anything of the run is written: the
        runs played in the block use this client, closed on leaving.  Without an address it does nothing (the local
        cluster starts with the run).

        :raises ClusterError: when no scheduler answers at the address, or it has no worker
            (:func:`~canasta_sim.runs.dask_cluster.connect`).
        """
        if self.scheduler is None:
            yield
            return
        client = connect(self.scheduler)
        try:
            worker_threads(client, wait=True, address=self.scheduler)
            self._held = client
            yield
        finally:
            self._held = None
            client.close()

    def session_record(self, *, ended: bool) -> dict[str, Any]:
        """What ``run.json``'s session says of how the cluster played it: the backend, the scheduler (not its address:
        a published folder names no machine of the organizer's), and on a cluster given by address the Dask workers
        and threads that played the session's chunks once it ``ended`` (``None`` while it runs), not ``--workers``."""
        if self.scheduler is None:
            return {"backend": "dask", "scheduler": "local cluster"}
        workers = len({worker for worker, _ in self.players}) if ended else None
        return {"backend": "dask", "scheduler": "given with --scheduler", "workers": workers,
                "worker_threads": len(self.players) if ended else None}

    def read_files(self, settings: RunSettings, loaded: dict[str, LoadedStrategy]) -> None:
        """Read the run's strategy files now, to send them with its tasks: before anything of the run is written,
        so that a file that cannot be read leaves no run behind.  ``loaded`` holds the strategies by spec.

        :raises StrategyLoadError: if a file cannot be read, naming it.
        """
        self._files = (settings, shipped_files(settings, loaded))

    def __call__(
        self,
        settings: RunSettings,
        directory: RunDirectory,
        chunks: Sequence[int],
        *,
        workers: int,
        on_error: str = "stop",
        on_chunk: Callable[[ChunkReport], None] = lambda report: None,
        on_games: Callable[[int], None] | None = None,
        log_handlers: Sequence[logging.Handler] = (),
    ) -> tuple[bool, str | None]:
        """Play the given chunks, writing each one's parts and calling ``on_chunk`` as it comes back.

        ``on_games`` is accepted for the local runner's signature: a chunk's games come back with it, all at once
        (``on_chunk``).  Worker records are handled by the client's loggers, which carry ``log_handlers`` already;
        Dask's own records go to ``log_handlers`` as :mod:`canasta_sim.runs.dask_logging` says.  However the run
        ends, what its attempts left in the machines' ``canasta-sim-monitors`` folders is removed
        (:mod:`canasta_sim.runs.dask_journal`).

        :returns: ``(interrupted, error)`` as every :class:`~canasta_sim.runs.runner.ChunkRunner` does.
        :raises ClusterError: when the run cannot go on (see the module docstring).
        """
        from canasta_sim.runs.dask_logging import dask_records_to

        self.players = set()
        if not chunks:  # a complete run resumed: no cluster to reach, nor to start
            self.description = "none left to play"
            return False, None
        files = self._files[1] if self._files is not None and self._files[0] == settings else None
        job = prepare_job(settings, on_error, logging.getLogger().getEffectiveLevel(), files)
        directory.create()
        timeout = self.task_timeout or default_task_timeout(settings)
        players = self.players
        try:
            # Without handlers of the run's own (a caller of the API), Dask's records go to the root logger's.
            with dask_records_to(log_handlers or logging.getLogger().handlers) as dask_records, \
                    self._client(workers, dask_records) as (client, keeper):
                with stop_on_signals(threading.Event()) as signals:
                    error = _drive(client, job, chunks, directory, on_chunk, timeout, signals, players, keeper)
                return signals["interrupted"], error
        finally:
            if self.scheduler is not None:  # workers may have joined, left or died and come back since it began
                self.description = played_by(players, self.scheduler)
            # What the run left on this machine: all of it for a local cluster, whose workers are gone by now (those
            # of a cluster given by address were asked at the end of _drive).
            forget_run(job.token)
            remove_run_files(job.token)

    @contextlib.contextmanager
    def _client(self, workers: int, dask_records) -> Iterator[Any]:
        """A client of the scheduler, or of a local cluster started here whose workers send their Dask records to
        ``dask_records`` (:mod:`canasta_sim.runs.dask_logging`); both closed on leaving.  Yields the client and, for
        a local cluster, what keeps its workers (:class:`~canasta_sim.runs.dask_cluster.LocalWorkers`), else
        ``None``."""
        from distributed import Client

        from canasta_sim.runs.dask_logging import RunClusterNanny, hear_workers

        if self._held is not None:  # reached already (connected)
            yield self._held, None
            return
        if self.scheduler is not None:
            client = connect(self.scheduler)
            try:
                worker_threads(client, wait=True, address=self.scheduler)
                yield client, None
            finally:
                client.close()
            return
        with _workers_ignoring_ctrl_c():
            cluster = start_local_cluster(workers, RunClusterNanny)
        with cluster, Client(cluster, set_as_default=False) as client:
            hear_workers(client, dask_records)  # the workers of this run's own cluster only
            self.description = f"{workers} worker{'s' * (workers != 1)} on a local Dask cluster"
            yield client, LocalWorkers(cluster, workers)


@contextlib.contextmanager
def _workers_ignoring_ctrl_c() -> Iterator[None]:
    """Ignore Ctrl-C while a local cluster's worker processes start, so that they inherit ignoring it.

    Ctrl-C reaches every process of the terminal's group; as with the local runner, only this process
    decides what it means (stop, then close the cluster), and the workers print no tracebacks.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _drive(client, job: ChunkJob, chunks: Sequence[int], directory: RunDirectory,
           on_chunk: Callable[[ChunkReport], None], timeout: float, signals: dict[str, Any],
           players: set[tuple[str, int]] | None = None, keeper: LocalWorkers | None = None) -> str | None:
    """Keep a bounded number of chunks in flight, write each as it comes back, adding the worker thread that played
    it to ``players`` when given; return the stopping error.  ``keeper`` keeps a local cluster's workers."""
    players = set() if players is None else players
    from distributed import as_completed

    run_token = uuid.uuid4().hex[:12]
    waiting = deque(chunks)
    flights: dict[Any, _Flight] = {}  # in the order sent, which is the order Dask starts them in
    completed = as_completed(loop=client.loop)
    resubmissions = Resubmissions(job.token, job.settings, chunks)
    client.subscribe_topic(ATTEMPT_TOPIC, resubmissions.heard)  # sent before any task: none is missed

    packed_job = pickle.dumps(job)  # unpickled by the task (play_chunk_task), once per chunk

    def submit(chunk: int, submissions: int = 1) -> None:
        suffix = "" if submissions == 1 else f"-{submissions}"
        resubmissions.submitted(chunk, submissions)
        future = client.submit(play_chunk_task, packed_job, chunk, submissions,
                               key=f"canasta-chunk-{chunk}-{run_token}{suffix}", pure=False, retries=0)
        flights[future] = _Flight(chunk, submissions=submissions)
        completed.add(future)

    threads, counted_at = 1, -THREAD_COUNT_SECONDS
    count_threads = _WorkerCount(client, timeout, told=keeper is None)  # a local cluster's keeper restarts workers
    error: str | None = None
    try:
        while (waiting or flights) and not signals["interrupted"] and error is None:
            now = time.monotonic()
            if now - counted_at >= THREAD_COUNT_SECONDS:  # workers may join or leave a cluster mid-run
                threads, counted_at = count_threads(flights.values(), now), now
                if keeper is not None:
                    keeper.check()
            while waiting and len(flights) < IN_FLIGHT_PER_THREAD * threads:
                submit(waiting.popleft())
            for flight in list(flights.values())[:threads]:
                if flight.started is None:
                    flight.started = now
            for future in completed.next_batch(block=False):
                flights[future].fetch = RowsFetch(future, flights[future].chunk)
            came_back = False
            for future, flight in list(flights.items()):
                try:
                    result = _poll(flight, job.settings.specs)
                except ChunkLost as lost:
                    if client.status != "running":  # cancelled by the client itself, which lost the scheduler
                        raise scheduler_lost(client) from None
                    del flights[future]
                    client.cancel([future])  # a lost attempt Dask may still be computing: it is not wanted any more
                    failure = resubmissions.lost(flight.chunk, flight.submissions, str(lost))
                    if failure is not None:
                        raise ClusterError(failure) from None
                    games = job.settings.chunk_games(flight.chunk)
                    logger.warning("chunk %d (games %d-%d) was lost on the Dask cluster (%s); it is played again",
                                   flight.chunk, games.start, games.stop - 1, lost.summary)
                    # The next attempts on the machine charge each game a worker died in (dask_journal): go on.
                    submit(flight.chunk, flight.submissions + 1)
                    came_back = True
                    continue
                if result is None:
                    continue
                del flights[future]
                future.release()  # the client keeps nothing of a chunk once it is written
                report = write_result(result, flight.chunk, directory)
                players.add(result.played_by)
                error = error or report.error
                on_chunk(report)
                came_back = True
            if not came_back:
                _check_deadlines(flights.values(), now, timeout, job.settings)
                time.sleep(POLL_SECONDS)
    finally:
        client.unsubscribe_topic(ATTEMPT_TOPIC)
        if flights and client.status == "running":
            # Stopping, failing or interrupted: what is still playing is not wanted any more.  (A client that lost
            # its scheduler cancelled everything itself, and would wait for Dask's connect timeout to ask.)
            client.cancel(list(flights))
        # However the run ended, Ctrl-C included: one round trip to each worker.
        end_run_on_workers(client, job.token)
    return error


class _WorkerCount:
    """Counts the cluster's worker threads for the client loop; with ``told``, says once each time that none is left
    (the run then plays nothing until one joins or ``--task-timeout`` ends it), and when one is back."""

    def __init__(self, client, timeout: float, *, told: bool) -> None:
        self.client = client
        self.timeout = timeout
        self.told = told
        self.gone = False

    def __call__(self, flights: Iterable[_Flight], now: float) -> int:
        """The worker threads to keep busy ``now`` (one at least); the chunks in flight tell how long the run waits."""
        try:
            threads = worker_threads(self.client)
        except OSError:  # Dask's CommClosedError: the client gave up reconnecting
            raise scheduler_lost(self.client) from None
        if self.told and threads == 0 and not self.gone:
            address = self.client.scheduler.address
            started = [flight.started for flight in flights if flight.started is not None]
            left = max(0.0, min(started, default=now) + self.timeout - now)
            logger.warning("no Dask worker is connected to the scheduler at %s: the run waits for one, at most %.0f s "
                           "more (--task-timeout %g s per chunk), then ends keeping its finished games; start workers "
                           "with: dask worker %s", address, left, self.timeout, address)
        elif self.told and threads and self.gone:
            logger.warning("Dask workers are connected to the scheduler at %s again (%d worker thread%s): the run goes "
                           "on", self.client.scheduler.address, threads, "s" * (threads != 1))
        self.gone = threads == 0
        return max(1, threads)


def _poll(flight: _Flight, specs: Sequence[str]) -> ChunkResult | None:
    """The chunk's result once its rows are fetched; ``None`` while it plays or they are fetched.

    :raises ChunkLost: as soon as the chunk will not come back (:class:`~canasta_sim.runs.dask_results.RowsFetch`).
    :raises ClusterError: when its attempt failed: a worker cannot load the strategies, plays another version, or
        failed otherwise (as a worker installed with another canasta-sim than the client's may, before it checks, or
        as its machine may: :func:`~canasta_sim.runs.dask_results.failure_advice`).
    """
    try:
        return None if flight.fetch is None else flight.fetch.poll()
    except (ChunkLost, ClusterError):
        raise
    except StrategyLoadError as failure:
        raise ClusterError(f"a Dask worker cannot load the strategies: {failure}; {_install_advice(specs)}") from None
    except Exception as failure:  # noqa: BLE001 - whatever a worker raised ends the run in one line, its traceback logged
        logger.debug("chunk %d failed on a Dask worker", flight.chunk, exc_info=failure)
        raise ClusterError(f"chunk {flight.chunk} failed on a Dask worker: {type(failure).__name__}: "
                           f"{' '.join(str(failure).split())}; {failure_advice(failure)} "
                           "(the traceback is in the run's log file, --log-file)") from None


def _install_advice(specs: Sequence[str]) -> str:
    advice = "install canasta-sim and any strategy modules or plugins on every worker (strategy files are sent)"
    if any(spec.strip().startswith("cmd:") for spec in specs):
        advice += ("; a cmd: bot's command runs on the workers: its program must be there, at the path the spec "
                   "names (a relative one from each worker's working directory)")
    return advice


def _check_deadlines(flights, now: float, timeout: float, settings: RunSettings) -> None:
    for flight in flights:
        if flight.started is not None and now - flight.started > timeout:
            games = settings.chunk_games(flight.chunk)
            raise ClusterError(f"chunk {flight.chunk} (games {games.start}-{games.stop - 1}) did not come back "
                               f"within {timeout:g} s of starting (--task-timeout); a strategy may hang or play "
                               "far slower than expected, or the cluster lost its workers")
