"""Taking a finished chunk's rows from a Dask cluster, without waiting on rows that are gone.

Dask reports a chunk done once an attempt returned its rows, which stay on that attempt's worker until the client
fetches them.  When that worker dies first, the scheduler tells the client that the rows are lost (the future's
status turns from ``finished`` to ``lost``; a fetch under way fails, and Dask's gather puts the future back to
``pending``), and plays the chunk again.  Dask's own gather then waits for that attempt, as long as the whole chunk
takes, or for ever when the attempt fails and the client is not told (seen: ``Couldn't gather keys ...
rescheduling``, then nothing).

So the rows are fetched in a thread of their own (:class:`RowsFetch`), the client writing the other chunks
meanwhile, and the chunk is given up as soon as its status says its rows are gone: the client cancels it and
submits it again at once (:mod:`canasta_sim.runs.dask_resubmission`), with nothing waited for.  Games are pure
functions of their seeds, so the chunk's games come back the same, and every chunk already written stays.
"""

from __future__ import annotations

import logging
import threading
import uuid
from concurrent.futures import CancelledError

from canasta_sim.errors import MachineRefusal
from canasta_sim.runs.dask_cluster import ClusterError
from canasta_sim.runs.runner import ChunkReport
from canasta_sim.runs.storage import RunDirectory

__all__ = ["CANCELLED", "ROWS_GONE", "THIS_PROCESS", "ChunkLost", "RowsFetch", "failure_advice", "write_result"]

ROWS_GONE = "the worker holding its finished rows died before they were fetched"
CANCELLED = "it was cancelled on the cluster"


class ChunkLost(Exception):  # noqa: N818 - a chunk's fate, not an error of the run
    """A submission of a chunk that will not come back: its workers kept dying (Dask's ``KilledWorker``), its
    finished rows died with their worker, or it was cancelled on the cluster.  It may be submitted again.

    :ivar summary: a few words for the run's warning that the chunk is played again.
    """

    def __init__(self, cause: str, summary: str) -> None:
        super().__init__(cause)
        self.summary = summary


class RowsFetch:
    """The fetch of the result of one chunk that Dask reported done (by ``as_completed``); :meth:`poll` it."""

    def __init__(self, future, chunk: int) -> None:
        self.future = future
        self.chunk = chunk
        self._done = threading.Event()
        self._outcome = None
        self._fetching = future.status == "finished"
        if self._fetching:
            threading.Thread(target=self._fetch, name=f"canasta-sim-rows-{chunk}", daemon=True).start()

    def _fetch(self) -> None:
        try:
            self._outcome = self.future.result()
        except Exception as error:  # noqa: BLE001 - handed to the thread driving the run, which poll() raises it in
            self._outcome = error
        self._done.set()

    def poll(self):
        """The chunk's :class:`~canasta_sim.runs.dask_task.ChunkResult` once fetched, ``None`` while the fetch is
        under way.

        :raises ChunkLost: as soon as the chunk will not come back (see :class:`ChunkLost`).
        :raises Exception: what the chunk's attempt raised, e.g. :class:`~canasta_sim.errors.StrategyLoadError`.
        """
        if not self._fetching:  # done with no rows to fetch: failed, cancelled, or its rows lost already
            if self.future.status == "error":
                try:
                    self.future.result()  # raises the attempt's error at once
                except Exception as error:  # noqa: BLE001 - each kind is told apart in _failure
                    raise _failure(error) from None
            if self.future.status == "cancelled":
                raise ChunkLost(CANCELLED, CANCELLED)
            raise ChunkLost(ROWS_GONE, ROWS_GONE)
        if self._done.is_set():
            if isinstance(self._outcome, Exception):
                raise _failure(self._outcome) from None
            return self._outcome
        if self.future.status != "finished":
            raise ChunkLost(ROWS_GONE, ROWS_GONE)
        return None


def _failure(error: Exception) -> Exception:
    """What a chunk's failed result means for the run: :class:`ChunkLost` when the chunk may be submitted again."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        return ChunkLost(str(error), f"the {error.allowed_failures + 1} Dask workers that held it died")
    if isinstance(error, CancelledError):  # by someone else: the run cancels only the submissions it gave up
        return ChunkLost(CANCELLED, CANCELLED)
    if isinstance(error, MachineRefusal):  # the machine's limit, no other canasta-sim on the worker: said as it is
        return ClusterError(f"on a Dask worker: {error}")
    return error


def failure_advice(error: BaseException) -> str:
    """What a chunk's attempt failing on a worker with ``error`` (none of the kinds :class:`RowsFetch` tells apart)
    asks of the user, in words for its one line.

    A worker installed with another canasta-sim than the client's fails in its code (an attribute, an argument, a
    module missing) before it can compare versions.  An ``OSError`` or a ``MemoryError`` is the worker's machine (a
    temporary folder it may not write in, a full disk): naming another canasta-sim there sent the user the wrong way.
    """
    if isinstance(error, (OSError, MemoryError)):
        return "an error of the worker's machine (a file or folder there, its disk, its memory), not of a strategy"
    return "a worker may run another canasta-sim than this client: install the same one on the client and every worker"


THIS_PROCESS = uuid.uuid4().hex
"""This process, as a task's records name the process that logged them (``emitted_in``): a record a worker thread
of the client's own process logged (a notebook's ``LocalCluster(processes=False)``) reached its handlers then."""


def write_result(result, chunk: int, directory: RunDirectory) -> ChunkReport:
    """Write a fetched chunk's parts and hand its workers' log records to this process's loggers.

    :raises ClusterError: when the machine refused the chunk a bot process (its games before that are written)."""
    if result.games is not None:
        directory.write_chunk(chunk, result.games, result.hands)
    for record in result.records:
        if getattr(record, "emitted_in", None) == THIS_PROCESS:
            continue  # told once already, as it was logged
        named_logger = logging.getLogger(record.name)
        if named_logger.isEnabledFor(record.levelno):
            named_logger.handle(record)
    if result.report.refused is not None:  # the machine refused a bot process: the run stops, the games before it kept
        raise ClusterError(f"on a Dask worker: {result.report.refused}")
    return result.report
