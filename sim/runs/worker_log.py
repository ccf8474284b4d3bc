"""Worker log records to the run's handlers, each worker over a pipe of its own.

The workers of a pool used to share one multiprocessing queue, whose every write takes a lock shared by all the
processes.  A worker killed while its writing thread held that lock (a strategy's ``os._exit``, a segfault, an
out-of-memory kill, the supervisor's kill at the time limit) kept it for ever: no later record of any worker, nor,
with forked workers, of the run itself, reached the log, and the run hung at its very end, its interpreter waiting
on the queue's thread.  A pipe written by one worker alone has no lock in common: a worker that dies mid-record
leaves a cut record at the end of its own pipe, which the reading thread drops with the pipe.
"""

from __future__ import annotations

import logging
import multiprocessing.connection
import pickle
import threading
import time
from collections.abc import Sequence

from canasta_sim.runs.machine import starting

__all__ = ["CLOSE_SECONDS", "PipeLogHandler", "WorkerLogs", "portable_record", "send_records_to"]

CLOSE_SECONDS = 5.0
"""How long closing waits for the records still in the pipes: the workers have ended by then, so every pipe ends
at once but one a process the worker started still holds open."""


class WorkerLogs:
    """The run's side: one pipe per worker (:meth:`channel`), read by a thread that hands each record to the
    handlers (each at its own level, as :class:`logging.handlers.QueueListener` with ``respect_handler_level``)."""

    def __init__(self, context, handlers: Sequence[logging.Handler]) -> None:
        self.context = context
        self.handlers = tuple(handlers)
        self._new: list = []
        self._lock = threading.Lock()
        self._closing = False
        # Wakes the reading thread for a new pipe and for the close, at once: it waits on the pipes without a tick.
        with starting("the thread reading the workers' messages"):
            self._wake_reader, self._wake_writer = context.Pipe(duplex=False)
            self._thread = threading.Thread(target=self._read, name="canasta-sim-worker-logs", daemon=True)
            self._thread.start()

    def channel(self):
        """A new pipe: its writing end for a worker, which :func:`send_records_to` takes (close this process's copy
        once the worker has started, so that the pipe ends with the worker)."""
        reader, writer = self.context.Pipe(duplex=False)
        with self._lock:
            self._new.append(reader)
        self._wake_writer.send_bytes(b"")
        return writer

    def close(self) -> None:
        """Hand on the records still in the pipes of the workers, which have ended, and stop reading."""
        self._closing = True
        try:
            self._wake_writer.send_bytes(b"")
        except BrokenPipeError:
            pass  # the reader saw the close before this wake-up, its pipes all ended, and closed its end: it is done
        self._thread.join(CLOSE_SECONDS)
        self._wake_writer.close()

    def _read(self) -> None:
        readers: list = []
        deadline = None
        while True:
            with self._lock:
                readers += self._new
                self._new.clear()
            if self._closing:
                deadline = deadline or time.monotonic() + CLOSE_SECONDS
                if not readers or time.monotonic() > deadline:
                    break
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            for reader in multiprocessing.connection.wait([self._wake_reader, *readers], timeout=timeout):
                if reader is self._wake_reader:
                    reader.recv_bytes()
                    continue
                try:
                    record = reader.recv()
                except (EOFError, OSError, pickle.UnpicklingError):
                    # The worker has ended, perhaps in the middle of a record: nothing more comes down this pipe.
                    readers.remove(reader)
                    reader.close()
                    continue
                self._handle(record)
        for reader in (self._wake_reader, *readers):
            reader.close()

    def _handle(self, record: logging.LogRecord) -> None:
        for handler in self.handlers:
            if record.levelno >= handler.level:
                try:
                    handler.handle(record)
                except Exception:  # noqa: BLE001 - a thread that died here would leave the workers' pipes to fill
                    handler.handleError(record)


class PipeLogHandler(logging.Handler):
    """The worker's side: each record, made picklable (its message formatted, its traceback as text), down the
    worker's own pipe."""

    def __init__(self, connection) -> None:
        super().__init__()
        self.connection = connection

    def emit(self, record: logging.LogRecord) -> None:
        """Send ``record`` down the pipe, made picklable; nothing once the run is gone."""
        try:
            # Under the handler's lock: one record at a time down the pipe.
            self.connection.send(portable_record(record))
        except (BrokenPipeError, EOFError):
            pass  # the run is gone; its worker is about to die with it
        except Exception:  # noqa: BLE001 - a record that cannot be sent is the logging system's to report
            self.handleError(record)


def portable_record(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of ``record`` that pickles whatever its arguments were, for a handler in another process to format: its
    message formatted and its traceback as text, as :meth:`logging.handlers.QueueHandler.prepare` leaves them."""
    portable = logging.makeLogRecord(record.__dict__)
    portable.msg, portable.args = record.getMessage(), None
    if record.exc_info and not portable.exc_text:
        portable.exc_text = logging.Formatter().formatException(record.exc_info)
    portable.exc_info = None
    return portable


def send_records_to(connection, level: int) -> None:
    """In a worker: every record at ``level`` or above goes down ``connection`` instead of to the handlers the
    worker inherited."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(PipeLogHandler(connection))
    root.setLevel(level)
