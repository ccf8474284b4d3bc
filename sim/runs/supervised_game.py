"""One game in a forked process: ``check-strategy``'s games, which no strategy can hang or end.

:func:`play_supervised` is the supervisor's watch (:mod:`canasta_sim.runs.supervisor`) over a single game: the
game runs in a child process that publishes its calls in the shared monitor, and a child that dies or outlives
its clock is charged to the seat whose call was running, as a run's worker would be.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
import time
from collections.abc import Callable

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_SIZE, MONITOR_START, decode_call
from canasta_sim.runs.supervisor import HARD_TIMEOUT_MARGIN, exit_text
from canasta_sim.runs.worker import OUTPUT_LIMIT, CappedOutput, die_with_parent

__all__ = ["POLL_SECONDS", "play_supervised"]

logger = logging.getLogger("canasta_sim.runs.runner")

POLL_SECONDS = 0.1
"""How often :func:`play_supervised` looks at its game's clock when no message arrives."""


def play_supervised(play: Callable, charge: Callable, time_limit: float | None, game: str = "the game"):
    """Run ``play(monitor)`` (one game) in a forked process and return what it returns; if the process dies or
    a call outlives ``time_limit + 1`` s, return ``charge(seat, decision, reason, message)`` for the call
    that was running.  Where ``fork`` does not exist, ``play`` runs in this process.  ``game`` names the game in
    the log's record of what the strategies printed (``game 3``).

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
        die_with_parent()
        output = CappedOutput(OUTPUT_LIMIT)
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
                    logger.info("%s: the strategies printed:\n%s", game, printed.rstrip())
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
    return charge(seat, decision, "crash", f"its process died ({exit_text(process.exitcode)}) during this call")
