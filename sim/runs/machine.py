"""What a run's worker processes take from the machine: memory shared with the run, and the processes, threads and
pipes themselves; the machine's refusal (a container's limits) said in one line.

A locked-down container or CI job gives less than a desktop: a ``/dev/shm`` read-only or absent, a limit on the
processes and threads of its user (``ulimit -u``, a pids limit), few open files (``ulimit -n``).
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator

from canasta_sim.errors import StrategyLoadError, machine_refused

__all__ = ["StopFlag", "WorkerStartError", "shared_memory", "starting"]


class WorkerStartError(StrategyLoadError):
    """Workers could not start: the strategies do not load there, the machine refuses them, or they die before
    playing anything."""


def shared_memory(context, size: int):
    """``size`` bytes of zeroed memory shared with the processes ``context`` starts, indexed byte by byte, and
    viewable whole (``memoryview``).

    Forked processes share an anonymous mapping, which needs no file.  multiprocessing's shared memory is a file in
    ``/dev/shm``, and a container with that read-only (or absent) stopped every run before its first game.  Spawned
    processes are sent multiprocessing's, which they can open again.
    """
    if context.get_start_method() == "fork":
        return mmap.mmap(-1, size)
    return context.RawArray("B", size)


class StopFlag:
    """The stop signal a run's processes share (``set``, ``is_set``, as :class:`threading.Event` has them): one byte
    of shared memory, written and read whole, with no lock.

    A :class:`multiprocessing.Event` takes a lock shared by every process to be set or read, and a worker killed
    while it held the lock (by a bot that kills its worker, by a signal) left every other process waiting for it
    for ever: a run that never ended.
    """

    def __init__(self, context) -> None:
        self._flag = shared_memory(context, 1)

    def set(self) -> None:
        """Ask every process to stop."""
        self._flag[0] = 1

    def is_set(self) -> bool:
        """Whether a stop was asked."""
        return self._flag[0] == 1


@contextlib.contextmanager
def starting(what: str) -> Iterator[None]:
    """Within the block, the machine refusing ``what`` (``a worker process``) a process, a thread, a pipe or memory
    raises :class:`WorkerStartError` naming the limit, where the ``OSError`` or ``RuntimeError`` ended the command in
    a traceback, or in a message blaming the disk."""
    try:
        yield
    except (OSError, RuntimeError) as error:  # threading's "can't start new thread" is a RuntimeError
        refused = machine_refused(what, error)
        if refused is None:
            refused = f"{what} cannot be started: {getattr(error, 'strerror', None) or error}"
        raise WorkerStartError(refused) from None
