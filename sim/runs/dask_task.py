"""A Dask task of a run: what it carries to a worker, how it plays one chunk there, and what it brings back.

The client sends every task the same :class:`ChunkJob` (the run's settings, its strategy files' text, the labels and
engine version the worker must match); :func:`play_chunk_task` plays the chunk with the local runner's
:class:`~canasta_sim.runs.runner.ChunkPlayer` and returns a :class:`ChunkResult`: the chunk's report, its two tables
and the log records it emitted.  The task only reads its arguments and returns rows, so Dask may run it again when
the worker running it dies (:mod:`canasta_sim.runs.dask_backend` drives the tasks from the client).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import pickle
import threading
import uuid

import pyarrow as pa

from canasta_sim import ENGINE_VERSION
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy
from canasta_sim.plugins.specs import is_bot_spec
from canasta_sim.runs.dask_cluster import ClusterError
from canasta_sim.runs.dask_journal import ChunkJournal
from canasta_sim.runs.dask_resubmission import BEGAN, ENDED, announce_attempt
from canasta_sim.runs.dask_results import THIS_PROCESS
from canasta_sim.runs.dask_strategies import ShippedFile, kept_state_told, load_on_worker, shipped_files
from canasta_sim.runs.local_backend import RunSchedule
from canasta_sim.runs.runner import ON_ERROR_CHOICES, ChunkPlayer, ChunkReport, RunSettings
from canasta_sim.runs.worker import debugger_quits_in_this_thread
from canasta_sim.runs.worker_log import portable_record

__all__ = [
    "DASK_DEATH",
    "ChunkJob",
    "ChunkResult",
    "play_chunk_task",
    "prepare_job",
]

DASK_DEATH = "its Dask worker process died during this call"
"""The failure of a game during which its worker died (the exit code, which the local backend names, is the
nanny's, out of the task's reach)."""


# --- what a task carries ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ChunkJob:
    """Everything a worker needs to play any chunk of a run; the same object goes with every task.

    :ivar labels: ``(spec, name@version)`` as the client loaded them, checked on each worker.
    :ivar log_level: the client's level; worker records at or above it come back with the rows.
    """

    settings: RunSettings
    on_error: str
    files: tuple[ShippedFile, ...]
    labels: tuple[tuple[str, str], ...]
    engine_version: str
    log_level: int
    token: str = ""
    """Names the run in each worker machine's chunk journals (:mod:`canasta_sim.runs.dask_journal`)."""


@dataclasses.dataclass(frozen=True)
class ChunkResult:
    """What a task returns: the chunk's report, its two tables (``None`` when nothing was recorded), the
    log records it emitted, and the worker thread that played it (the worker's address and the thread's id)."""

    report: ChunkReport
    games: pa.Table | None
    hands: pa.Table | None
    records: tuple[logging.LogRecord, ...] = ()
    played_by: tuple[str, int] = ("", 0)


def prepare_job(settings: RunSettings, on_error: str, log_level: int = logging.WARNING,
                files: tuple[ShippedFile, ...] | None = None) -> ChunkJob:
    """Load the strategies here and read the source of each file strategy, to send them with the tasks.

    :param files: the file strategies' sources read already
        (:meth:`~canasta_sim.runs.dask_backend.DaskChunkRunner.read_files`); ``None`` reads them.
    :raises StrategyLoadError: if a strategy does not load or a file cannot be read.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error={on_error!r} is not accepted; use one of: {', '.join(ON_ERROR_CHOICES)}")
    loaded = {spec: load_strategy(spec, file=settings.file_of(spec)) for spec in settings.specs}
    labels = [(spec, strategy.label) for spec, strategy in loaded.items()]
    for spec, strategy in loaded.items():
        if is_bot_spec(spec):  # started to read its name and version: the client plays no game, the workers do
            strategy.cls.pool.close()
    if files is None:
        files = shipped_files(settings, loaded)
    return ChunkJob(settings, on_error, files, tuple(labels), ENGINE_VERSION, log_level, uuid.uuid4().hex)


# --- the worker side --------------------------------------------------------------------------------

def _worker_address() -> str:
    from distributed import get_worker

    try:
        return get_worker().address
    except ValueError:  # called outside a worker (tests call the task function directly)
        return f"process {os.getpid()}"


def _worker_name() -> str:
    from distributed import get_worker

    address = _worker_address()
    if address.startswith("process "):
        return address
    name = get_worker().name
    # A worker started with --name says it; Dask's own names are its address or a number.
    return f"Dask worker {address}" + (f" ({name})" if isinstance(name, str) and name != address else "")


def _check_versions(job: ChunkJob, factories: dict[str, LoadedStrategy]) -> None:
    if ENGINE_VERSION != job.engine_version:
        raise ClusterError(f"{_worker_name()} has canasta-sim engine version {ENGINE_VERSION}, the client "
                           f"{job.engine_version}; install the same canasta-sim on the client and every worker")
    for spec, label in job.labels:
        if factories[spec].label != label:
            raise ClusterError(f"{_worker_name()} loads strategy {spec!r} as {factories[spec].label}, the client "
                               f"as {label}; install the same version on the client and every worker")


class _RecordCollector(logging.Handler):
    """Keeps the log records one thread emits, made picklable, to send them back with a chunk's rows."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.thread = threading.get_ident()
        self.records: list[logging.LogRecord] = []
        self.process_name = _worker_name()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:  # another task running in a thread of the same worker
            return
        portable = portable_record(record)
        portable.processName = self.process_name
        portable.emitted_in = THIS_PROCESS
        self.records.append(portable)


def play_chunk_task(job: ChunkJob | bytes, chunk: int, submission: int = 1) -> ChunkResult:
    """Play one chunk on a worker and return its rows (the Dask task; pure, so it may be run again).

    :param job: the run's job, or the job pickled, as the client sends it: a worker with another canasta-sim, which
        may lack a class of the job, then fails this task, where failing to unpickle its arguments Dask stops it.
    :param submission: how many times the chunk was submitted, this one included, which the attempt announces
        as it begins and ends (:mod:`canasta_sim.runs.dask_resubmission`).
    :raises StrategyLoadError: if a strategy cannot be loaded on this worker.
    :raises ClusterError: if this worker's engine or a strategy's version differs from the client's.
    """
    if isinstance(job, bytes):
        job = pickle.loads(job)  # the client's own job, which the scheduler the user named passed on
    announce_attempt(job.token, chunk, submission, BEGAN)
    shipped = {entry.spec: entry for entry in job.files}
    try:
        factories = {spec: load_on_worker(spec, shipped.get(spec), job.token) for spec in job.settings.specs}
    except StrategyLoadError as error:  # named, so that the user knows which machine lacks what
        raise StrategyLoadError(f"on {_worker_name()}: {error}") from None
    _check_versions(job, factories)
    collector = _RecordCollector(job.log_level)
    sim_logger = logging.getLogger("canasta_sim")
    if sim_logger.getEffectiveLevel() > job.log_level:
        sim_logger.setLevel(job.log_level)  # e.g. the per-chunk debug lines asked for with --verbose
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        player = ChunkPlayer(job.settings, "", job.on_error, threading.Event(), factories=factories)
        captured: dict[str, pa.Table] = {}
        # The player writes through its directory; here "writing" keeps the tables to return them.
        player.directory = _TableCatcher(captured)
        # The local backend's judgements, from the client's specs: who is built in, and the failure a death charges.
        schedule = RunSchedule(job.settings)
        with ChunkJournal(job.token, chunk, is_built_in=functools.partial(schedule.is_built_in, chunk)) as journal, \
                kept_state_told(job.token, factories):  # warned of as a local worker warns
            # A game during which an earlier attempt's worker died is that call's seat's failure, as locally.
            charged = {game_id: schedule.charge(chunk, game_id, seat, decision, "crash", DASK_DEATH)
                       for game_id, (seat, decision) in journal.charged.items()}
            with debugger_quits_in_this_thread():  # as in a local worker, whatever the worker's process
                report = player.play(chunk, monitor=journal.monitor, charged=charged)
    finally:
        root.removeHandler(collector)
    announce_attempt(job.token, chunk, submission, ENDED)
    return ChunkResult(report, captured.get("games"), captured.get("hands"), tuple(collector.records),
                       (_worker_address(), threading.get_ident()))


class _TableCatcher:
    """Stands in for the run directory on a worker: keeps the chunk's tables instead of writing them."""

    def __init__(self, captured: dict[str, pa.Table]) -> None:
        self.captured = captured

    def write_chunk(self, chunk: int, games: pa.Table, hands: pa.Table) -> None:
        self.captured.update(games=games, hands=hands)
