"""Dask's own log records during a run on a Dask cluster: to the run's log file, not to the terminal.

A local run hands its workers' records to the run's handlers, each at its own level
(:mod:`canasta_sim.runs.worker_log`), and its supervisor says in one line each what a worker's death cost the run.
Dask's own records (its scheduler's, nannies' and client's, which run in this process for a local cluster, and
its workers') are of another kind: they tell how Dask handled a death (``Restarting worker``, ``Task ... marked
as failed because 4 workers died``), often with a traceback from Dask's internals, while the run itself says what
the death cost it (a game charged, a chunk played again) in one line of its own.  So during a run:

* the run's log file (a :class:`logging.FileHandler` among the run's handlers) gets Dask's warnings and errors
  whole, tracebacks included;
* the terminal (every other handler) gets them only when it takes messages below warnings (``-v``), one line
  each, named by their logger, without traceback; never under ``-q``;
* Dask's own handler, which writes to the terminal past the run's handlers, is set aside, as are those of the
  worker processes of the local cluster a run starts (:class:`WorkerRecordsToClient`), whose records come to
  the run's handlers instead.  What such a worker says before it has reached the scheduler (a restarted worker
  that cannot remove a dead one's folder, say) is held from the process's start (:class:`RunClusterNanny`) and
  sent with the rest.  The workers of a cluster given with ``--scheduler`` are left as their owner set them up:
  their records are in their logs.

Dask is imported by this module: import it only for a run that uses Dask.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence

from distributed import Nanny, Worker, WorkerPlugin
from distributed.comm import CommClosedError

from canasta_sim.runs.worker_log import portable_record

__all__ = ["DASK_LOGGERS", "HELD_RECORDS", "SUBSCRIBED_SECONDS", "WORKER_RECORDS_TOPIC", "DaskRecords",
           "RunClusterNanny", "RunClusterWorker", "WorkerRecordsToClient", "dask_records_to", "hear_workers"]

DASK_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")
"""The loggers of Dask and of the event loop it runs on (the run itself uses none of them)."""

WORKER_RECORDS_TOPIC = "canasta-sim-worker-records"
"""The scheduler event topic on which the local cluster's workers send the client their Dask records."""

HELD_RECORDS = 200
"""How many of its first records a worker of the run's local cluster holds until it can send them; later ones are
dropped until then (a worker that keeps failing to reach its scheduler would otherwise hold them all)."""

SUBSCRIBED_SECONDS = 30.0
"""How long a run on its local cluster waits for its subscription to its workers' records to reach the scheduler."""

_RECORD_FIELDS = ("name", "levelno", "levelname", "msg", "exc_text", "created", "processName", "pathname", "lineno")


class DaskRecords(logging.Handler):
    """Hands Dask's records to the run's handlers: whole to its log file, one line to a terminal that takes
    messages below warnings (see the module's docstring)."""

    def __init__(self, handlers: Sequence[logging.Handler]) -> None:
        super().__init__(logging.WARNING)
        self.handlers = tuple(handlers)

    def emit(self, record: logging.LogRecord) -> None:
        """Hand ``record`` whole to each log file, and as one line to each terminal handler that shows it."""
        for handler in self.handlers:
            if isinstance(handler, logging.FileHandler):
                if record.levelno >= handler.level:
                    handler.handle(record)
            elif handler.level <= logging.INFO:
                handler.handle(_one_line(record))

    def heard(self, event: tuple[float, dict]) -> None:
        """Take a record a worker sent (:class:`WorkerRecordsToClient`): a scheduler event ``(time, fields)``."""
        self.handle(logging.makeLogRecord(event[1]))


def _one_line(record: logging.LogRecord) -> logging.LogRecord:
    brief = logging.makeLogRecord(record.__dict__)
    lines = record.getMessage().strip().splitlines() or [""]
    brief.msg, brief.args = f"{record.name}: {lines[0]}", None
    brief.exc_info = brief.exc_text = brief.stack_info = None
    return brief


@contextlib.contextmanager
def dask_records_to(handlers: Sequence[logging.Handler]) -> Iterator[DaskRecords]:
    """While the block runs, Dask's records (at warning and above) go to ``handlers`` as :class:`DaskRecords`
    says, and nowhere else; the loggers are put back as they were afterwards."""
    router = DaskRecords(handlers)
    saved = []
    for name in DASK_LOGGERS:
        named = logging.getLogger(name)
        saved.append((named, named.level, named.propagate, list(named.handlers)))
        if named.getEffectiveLevel() < logging.WARNING:  # the scheduler's and nannies' routine messages stay out
            named.setLevel(logging.WARNING)
        for handler in saved[-1][3]:
            named.removeHandler(handler)
        named.addHandler(router)
        named.propagate = False
    try:
        yield router
    finally:
        for named, level, propagate, own_handlers in saved:
            named.removeHandler(router)
            for handler in own_handlers:
                named.addHandler(handler)
            named.setLevel(level)
            named.propagate = propagate


def hear_workers(client, records: DaskRecords) -> None:
    """Have the workers of the run's local cluster send their Dask records to ``records``, those they held since they
    started included (:class:`WorkerRecordsToClient`)."""
    client.subscribe_topic(WORKER_RECORDS_TOPIC, records.heard)
    # The subscription travels with the client's stream of tasks, the plugin by a call of its own that may overtake
    # it: the records a worker held would reach the scheduler before the client listens, and go nowhere.  A task
    # sent after the subscription has come back once the scheduler has it.  (Not waited for beyond a while: the
    # run's own deadlines deal with a cluster that plays nothing.)
    with contextlib.suppress(TimeoutError):
        client.submit(_nothing, pure=False).result(timeout=SUBSCRIBED_SECONDS)
    client.register_plugin(WorkerRecordsToClient())


def _nothing() -> None:
    """A task that does nothing (see :func:`hear_workers`)."""


class WorkerRecordsToClient(WorkerPlugin):
    """On each worker of the local cluster a run starts: Dask's records (at warning and above) go to the client on
    :data:`WORKER_RECORDS_TOPIC`, not to the terminal the worker process shares with the run."""

    name = "canasta-sim-worker-records"

    def setup(self, worker) -> None:
        """Send Dask's records on ``worker`` to the client from now on, the ones held since it started first."""
        sender = _SendToClient(worker)
        held: list[logging.LogRecord] = []
        for name in DASK_LOGGERS:
            named = logging.getLogger(name)
            for handler in list(named.handlers):
                if isinstance(handler, _Held):
                    held, handler.records = held + handler.records, []  # one handler on every logger: taken once
                named.removeHandler(handler)
            named.addHandler(sender)
            named.propagate = False
        for record in held:
            sender.handle(record)


def _hold_records() -> None:
    """In a worker process of the run's local cluster, before the worker is made: its Dask records are held
    (:class:`_Held`), not written to the terminal, until :class:`WorkerRecordsToClient` sends them on."""
    held = _Held()
    for name in DASK_LOGGERS:
        named = logging.getLogger(name)
        for handler in list(named.handlers):
            named.removeHandler(handler)
        named.addHandler(held)
        named.propagate = False


class _Held(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) < HELD_RECORDS:
            self.records.append(portable_record(record))


class RunClusterWorker(Worker):
    """A Dask worker of the local cluster a run starts: its Dask records are held from the moment it is made until
    the run's plugin sends them to the client (:class:`WorkerRecordsToClient`), so that none reaches the terminal."""

    def __init__(self, *args, **options) -> None:
        _hold_records()
        super().__init__(*args, **options)


class RunClusterNanny(Nanny):
    """The nanny of a worker of the local cluster a run starts: its worker processes make :class:`RunClusterWorker`
    workers (the nanny itself runs in the run's process, whose Dask records :func:`dask_records_to` routes)."""

    def __init__(self, *args, **options) -> None:
        super().__init__(*args, worker_class=RunClusterWorker, **options)


class _SendToClient(logging.Handler):
    def __init__(self, worker) -> None:
        super().__init__(logging.WARNING)
        self.worker = worker
        self.sending = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self.sending, "now", False):  # a record about sending a record: it could not be sent either
            return
        self.sending.now = True
        try:
            portable = portable_record(record)
            fields = {name: getattr(portable, name) for name in _RECORD_FIELDS}
            fields["processName"] = f"Dask worker {self.worker.address}"
            self.worker.log_event(WORKER_RECORDS_TOPIC, fields)
        except CommClosedError:
            pass  # the worker has lost its scheduler (it is ending): nobody is left to tell
        finally:
            self.sending.now = False
