"""One worker process of a run as its supervisor holds it: the process, its pipe, its monitor and its task.

The supervisor (:mod:`canasta_sim.runs.supervisor`) decides what each worker plays and what a death costs; a
:class:`WorkerProcess` is the one worker: started with its monitor in shared memory (:mod:`canasta_sim.arbiter`) and
its log's pipe (:mod:`canasta_sim.runs.worker_log`), asked without blocking whether a message waits, killed with
the bot processes it started, or told to end.  What it runs is :func:`canasta_sim.runs.worker.worker_main`.
"""

from __future__ import annotations

import contextlib
import select
from collections.abc import Hashable

from canasta_sim.arbiter import MONITOR_GAME, MONITOR_SIZE
from canasta_sim.plugins.affinity import Placement
from canasta_sim.plugins.bot_marks import end_marked
from canasta_sim.plugins.process import STOP_GRACE
from canasta_sim.runs.machine import shared_memory, starting
from canasta_sim.runs.worker import worker_main
from canasta_sim.runs.worker_log import WorkerLogs

__all__ = ["ENDING_GAMES", "WorkerProcess"]

ENDING_GAMES = 16
"""Games left in a worker's task, with nothing sent ahead, from which each of its messages wakes the supervisor.  At
the tick alone the supervisor would learn of such a task's end half a tick late on average, the worker idle
meanwhile, in the last pieces of a run that is about 1% of it.  Earlier in the task the tick is soon enough, and a
message that wakes the supervisor costs its worker the wake-up in its send."""


class WorkerProcess:
    """One worker process, its pipe, its monitor and its task."""

    started = 0
    """Workers started in this process so far, which numbers each one's name (``Worker-3``)."""

    def __init__(self, context, logs: WorkerLogs, arguments, where: Placement | None) -> None:
        self.where = where
        """The worker's core and its bots' (:mod:`canasta_sim.plugins.affinity`), kept by the worker replacing it."""
        with starting("a worker process"):
            self.monitor_memory = shared_memory(context, MONITOR_SIZE * 8)
            self.monitor = memoryview(self.monitor_memory).cast("B").cast("d")
            self.monitor[MONITOR_GAME] = -1
            self.connection, child = context.Pipe()
            log_channel = logs.channel()
            WorkerProcess.started += 1
            self.process = context.Process(target=worker_main,
                                           args=(child, log_channel, self.monitor_memory, where, *arguments),
                                           name=f"Worker-{WorkerProcess.started}", daemon=True)
            try:
                self.process.start()
            finally:  # the worker's alone now, or never started: its log's pipe ends with it, so the reader lets go
                child.close()
                log_channel.close()
        self.ready = False
        self.task: tuple[Hashable, int, int] | None = None
        """``(chunk, next game, end)`` while busy: the worker plays the chunk's games up to ``end`` (excluded)."""
        self.queued: tuple[Hashable, int, int] | None = None
        """``(chunk, first game, end)`` sent ahead while busy, so that the worker goes on to it at once: the
        supervisor may be writing a chunk's parts just then."""
        self.killed_for: str | None = None
        """The overrun the supervisor killed it for (its call past the time limit), the message of the timeout its
        death is charged with; ``None`` while it was not killed for one (a death is then a crash)."""
        self.hung_up = False
        """Whether its pipe reached its end (the worker is ending): waiting on it would return at once, forever."""
        # One poll object for the pipe, kept: Connection.poll sets up a selector at each call, once per game here.
        self.poller = None
        if hasattr(select, "poll"):
            self.poller = select.poll()
            self.poller.register(self.connection.fileno(), select.POLLIN)

    def has_message(self) -> bool:
        """Whether a message (or the end of the pipe) waits to be read, asked without blocking."""
        if self.poller is None:
            return self.connection.poll()
        return bool(self.poller.poll(0))

    def ending(self) -> bool:
        """Whether the supervisor should wake at its next message: it is starting, or within :data:`ENDING_GAMES`
        of its task's end with no task sent ahead, so that it will wait idle for the next."""
        if self.hung_up:
            return False
        task = self.task
        return not self.ready or task is not None and self.queued is None and task[2] - task[1] <= ENDING_GAMES

    def kill(self) -> None:
        """Kill the worker at once, and the bot processes it started."""
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.join(5)
        # Its bots die with it (PR_SET_PDEATHSIG), but not what they started out of their groups' reach.
        end_marked(started_by=self.process.pid)

    def close(self) -> None:
        """End the worker: told to end when idle, given its bots' grace period, killed when busy or past it."""
        if self.task is not None:
            self.kill()  # still playing: the run is ending (an error or a second Ctrl-C), do not wait
        with contextlib.suppress(OSError):
            if self.process.is_alive():
                self.connection.send(None)
        # The worker's bots each have their grace period after quit, shared, before the worker itself can exit.
        self.process.join(2 + STOP_GRACE)
        if self.process.is_alive():
            self.kill()
        self.connection.close()
