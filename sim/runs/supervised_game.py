"""One game in a process of its own, which no strategy can hang or end: ``check-strategy``'s games, and the narrated
and recorded games of ``watch``, ``replay`` and ``report``.

:func:`play_supervised` is the supervisor's watch (:mod:`canasta_sim.runs.supervisor`) over a single game: the
game runs in a child process that publishes its calls in the shared monitor, and a child that dies or outlives
its clock is charged to the seat whose call was running, as a run's worker would be.  What the strategies print is
kept out of the command's output (the log has it); the lines the game writes on purpose (a narration) come back as
they are written.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_SIZE, MONITOR_START, decode_call, overrun
from canasta_sim.plugins.bot_marks import end_marked
from canasta_sim.runs.containment import worker_start_method
from canasta_sim.runs.machine import shared_memory, starting
from canasta_sim.runs.supervisor import HARD_TIMEOUT_MARGIN, died_during_call
from canasta_sim.runs.worker import OUTPUT_LIMIT, CappedOutput, debugger_without_terminal, die_with_parent

__all__ = ["CTRL_C_IGNORED", "CTRL_C_TO_THE_COMMAND", "INTERRUPT_WAIT", "POLL_SECONDS", "play_supervised"]

logger = logging.getLogger("canasta_sim.runs.runner")

POLL_SECONDS = 0.1
"""How often :func:`play_supervised` looks at its game's clock when no message arrives."""

CTRL_C_IGNORED = "ignored"
"""The game's process ignores a Ctrl-C: the command's own process alone hears the user's (``check-strategy``), and a
strategy that interrupts its own process interrupts nothing."""

CTRL_C_TO_THE_COMMAND = "to the command"
"""A Ctrl-C in the game's process (a terminal sends it to both, or a strategy's ``os.kill`` to itself, which is how a
person's arrives while a bot thinks) is passed to the command's process, which stops as it always does (its own
message, exit 130) and ends the game's; the strategy running is not blamed (``watch``, ``replay``)."""

INTERRUPT_WAIT = 10.0
"""Seconds the game's process waits, after passing a Ctrl-C on to the command's process, to be ended by it."""


def _to_the_command(number, frame) -> None:
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(INTERRUPT_WAIT)
    os._exit(130)


# On Windows a terminal's Ctrl-C reaches every process of the console, the command's too, and os.kill with SIGINT would
# end the command's process outright (TerminateProcess): the game's process leaves the Ctrl-C to the command.
_CTRL_C_HANDLERS = {CTRL_C_IGNORED: signal.SIG_IGN,
                    CTRL_C_TO_THE_COMMAND: signal.SIG_IGN if os.name == "nt" else _to_the_command}


def _ignore_line(line: str) -> None:
    pass  # a game whose lines no one reads


def _play_in_child(play: Callable, memory, sender, ctrl_c: str) -> None:
    """The game's process: play the game, sending each line it writes and then its outcome and what the strategies
    printed."""
    signal.signal(signal.SIGINT, _CTRL_C_HANDLERS[ctrl_c])
    die_with_parent()
    debugger_without_terminal()
    output = CappedOutput(OUTPUT_LIMIT)
    sys.stdout = sys.stderr = output  # what strategies print stays out of the command's output
    child_monitor = memoryview(memory).cast("B").cast("d")
    child_monitor[MONITOR_GAME] = 0
    outcome = play(child_monitor, lambda line: sender.send((True, line)))
    child_monitor[MONITOR_GAME] = -1
    sender.send((False, (outcome, output.take())))


def play_supervised(play: Callable, charge: Callable, time_limit: float | None, game: str = "the game", *,
                    lines: Callable[[str], object] = _ignore_line, ctrl_c: str = CTRL_C_IGNORED):
    """Run ``play(monitor, write)`` (one game) in a process of its own and return what it returns; if the process dies
    or a call outlives ``time_limit + 1`` s, return ``charge(seat, decision, reason, message)`` for the call that was
    running.  Each line the game gives ``write`` there is given to ``lines`` here as it comes.  ``ctrl_c`` says what
    a Ctrl-C in the game's process does (:data:`CTRL_C_IGNORED`, :data:`CTRL_C_TO_THE_COMMAND`).  ``game`` names the
    game in the log's record of what the strategies printed (``game 3``).

    The process starts as a run's workers do (:func:`~canasta_sim.runs.containment.worker_start_method`): forked on
    Linux, spawned elsewhere, where ``play`` is pickled to it, so it must be a module's function or a
    :func:`functools.partial` of one, its strategies :class:`~canasta_sim.plugins.loader.LoadedStrategy` (which a
    spawned process loads again from their specs).

    :raises ValueError: for a ``ctrl_c`` that is neither.
    """
    if ctrl_c not in _CTRL_C_HANDLERS:
        raise ValueError(f"ctrl_c is {ctrl_c!r}; expected {CTRL_C_IGNORED!r} or {CTRL_C_TO_THE_COMMAND!r}")
    context = multiprocessing.get_context(worker_start_method())
    with starting(game):
        memory = shared_memory(context, MONITOR_SIZE * 8)
        receiver, sender = context.Pipe(duplex=False)
    monitor = memoryview(memory).cast("B").cast("d")
    monitor[MONITOR_GAME] = -1

    process = context.Process(target=_play_in_child, args=(play, memory, sender, ctrl_c), daemon=True)
    try:
        with starting(game):
            process.start()
    finally:
        sender.close()
    killed_for = None
    try:
        while True:
            if receiver.poll(POLL_SECONDS):
                try:
                    is_line, value = receiver.recv()
                except (EOFError, OSError):
                    break
                if is_line:
                    lines(value)
                    continue
                outcome, printed = value
                process.join()
                if printed:
                    logger.info("%s: the strategies printed:\n%s", game, printed.rstrip())
                return outcome
            if not process.is_alive():
                if receiver.poll():  # it sent its outcome and ended between the wait above and here: read it first
                    continue
                break
            # The call before its start (MONITOR_START): a build (a bot's start-up) has an allowance of its own.
            call = monitor[MONITOR_CALL]
            started = monitor[MONITOR_START]
            if time_limit is not None and monitor[MONITOR_GAME] >= 0 and started:
                killed_for = overrun(call, time.monotonic() - started, time_limit, HARD_TIMEOUT_MARGIN)
                if killed_for is not None:
                    process.kill()
                    break
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
        end_marked(started_by=process.pid)  # what its bots started out of their groups' reach, had it no time to end
    seat, decision = decode_call(monitor[MONITOR_CALL])
    if killed_for is not None:
        return charge(seat, decision, "timeout", killed_for)
    return charge(seat, decision, "crash", died_during_call(process.exitcode))
