"""Playing a run's chunks on this machine: ``canasta-sim run`` without ``--backend dask``.

:func:`run_chunks` is the local :class:`~canasta_sim.runs.runner.ChunkRunner`: it starts the supervised worker
processes (:mod:`canasta_sim.runs.supervisor`), routes their log records to the parent's handlers and turns the
first Ctrl-C or SIGTERM into a clean stop.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Sequence

from canasta_sim.runs.runner import ON_ERROR_CHOICES, ChunkReport, RunSettings, stop_on_signals, worker_logging
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.supervisor import supervise

__all__ = ["run_chunks"]


def run_chunks(
    settings: RunSettings,
    directory: RunDirectory,
    chunks: Sequence[int],
    *,
    workers: int,
    on_error: str = "stop",
    on_chunk: Callable[[ChunkReport], None] = lambda report: None,
    log_handlers: Sequence[logging.Handler] = (),
    memory_limit: int | None = None,
) -> tuple[bool, str | None]:
    """Play the given chunks in supervised worker processes (:mod:`canasta_sim.runs.supervisor`), calling
    ``on_chunk`` in this process as each one ends.

    Strategy code never runs in this process, even with one worker: a strategy that crashes, exits,
    hangs or raises ``KeyboardInterrupt`` costs its seat the game, never the run.

    :param memory_limit: megabytes of address space each worker may use (``None``: no limit).
    :returns: ``(interrupted, error)``: whether Ctrl-C/SIGTERM stopped the run, and the description of
        the strategy failure that stopped it (``on_error='stop'``), or ``None``.
    """
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error={on_error!r} is not accepted; use one of: {', '.join(ON_ERROR_CHOICES)}")
    directory.create()
    if not chunks:
        return False, None
    # fork where it exists (multiprocessing-logging needs it); spawn elsewhere, with a QueueHandler.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    stop_event = context.Event()
    with stop_on_signals(stop_event) as signals, worker_logging(context, log_handlers) as log_queue:
        try:
            error = supervise(settings, directory, chunks, workers=workers, on_error=on_error, stop_event=stop_event,
                              context=context, log_queue=log_queue, on_chunk=on_chunk, memory_limit=memory_limit)
        except BaseException:
            stop_event.set()
            raise
    return signals["interrupted"], error
