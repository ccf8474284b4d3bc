"""A narrated game (``watch``, ``replay``) played in a forked process, so that no strategy can end the command unheard.

In the command's own process, a strategy that calls ``os._exit`` or is killed by the kernel ended ``watch`` and
``replay`` with no word of which seat did it, and what it printed ran through the narration.  :func:`narrate_apart`
plays the game in a child process that publishes its calls in a shared monitor, as a run's worker does: the
narration's lines come back as they are written, what the strategies print is kept out of it, and a child that dies
is its running call's seat's failure (``crash``), in the one line every other failure has.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_SIZE, decode_call
from canasta_sim.core.engine import GameResult
from canasta_sim.errors import StrategyError
from canasta_sim.runs.supervisor import exit_text
from canasta_sim.runs.worker import OUTPUT_LIMIT, CappedOutput, die_with_parent
from canasta_sim.terminal.narrate import narrate_game

__all__ = ["narrate_apart"]

INTERRUPT_WAIT = 10.0
"""Seconds the game's process waits, after passing a Ctrl-C on to the command's process, to be ended by it."""


def _to_the_parent(number, frame) -> None:
    """The user's Ctrl-C in the game's process (a terminal sends it to both): the command's process stops as it always
    does (with its own message, exit 130), and ends this one; the strategy running is not blamed."""
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(INTERRUPT_WAIT)
    os._exit(130)


def narrate_apart(players: Sequence, *, write: Callable[[str], object], seed: int, names: Sequence[str],
                  **game) -> GameResult:
    """:func:`~canasta_sim.terminal.narrate.narrate_game` in a forked process, its lines given to ``write`` here.

    Where ``fork`` does not exist, the game is played in this process.

    :raises StrategyError: a strategy's failure, as in this process; or ``crash`` for the seat whose call was running
        when the process died.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return narrate_game(players, write=write, seed=seed, names=names, **game)
    context = multiprocessing.get_context("fork")
    memory = context.RawArray("d", MONITOR_SIZE)
    receiver, sender = context.Pipe(duplex=False)

    def child() -> None:
        signal.signal(signal.SIGINT, _to_the_parent)
        die_with_parent()
        sys.stdout = sys.stderr = CappedOutput(OUTPUT_LIMIT)  # what strategies print stays out of the narration
        monitor = memoryview(memory).cast("B").cast("d")
        try:
            result = narrate_game(players, write=lambda line: sender.send(("line", line)), seed=seed, names=names,
                                  monitor=monitor, **game)
        except StrategyError as error:
            sender.send(("failure", error))
        else:
            sender.send(("result", result))

    process = context.Process(target=child, daemon=True)
    process.start()
    sender.close()
    try:
        while True:
            try:
                kind, value = receiver.recv()
            except (EOFError, OSError):
                break
            if kind == "line":
                write(value)
            elif kind == "failure":
                raise value
            else:
                return value
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    seat, decision = decode_call(memoryview(memory).cast("B").cast("d")[MONITOR_CALL])
    raise StrategyError(f"its process died ({exit_text(process.exitcode)}) during this call", spec=names[seat],
                        seat=seat, game_seed=seed, decision=decision, reason="crash")
