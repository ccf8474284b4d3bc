"""The decision monitor: a few floats on memory shared with the run's supervisor.

The engine writes which game and which seat's call it is before every call into strategy code, so that
when a worker process dies or hangs the supervisor knows whom to charge.
"""

from __future__ import annotations

__all__ = ["CALL_CODES", "DECISIONS", "MONITOR_CALL", "MONITOR_GAME", "MONITOR_SIZE", "MONITOR_START", "decode_call"]

# The monitor: a few floats on memory shared with the supervisor, written before every call into strategy
# code, so that when the process dies or hangs the supervisor knows which game and which seat's call it was.
MONITOR_GAME = 0
"""Index of the game being played (-1 between games); the runner writes it."""
MONITOR_CALL = 1
"""Index of the call: ``CALL_CODES[decision] + seat``."""
MONITOR_START = 2
"""Index of the call's start, in :func:`time.monotonic` seconds (system-wide on Linux)."""
MONITOR_SIZE = 3

DECISIONS = ("acquire", "ask", "answer", "meld", "discard", "event", "hand start", "hand end", "build", "game")
CALL_CODES = {decision: 4 * index for index, decision in enumerate(DECISIONS)}
"""The code of each decision in the monitor; the seat is added to it."""


def decode_call(code: float) -> tuple[int, str]:
    """The ``(seat, decision)`` of a call code written in the monitor."""
    number = int(code)
    return number % 4, DECISIONS[number // 4]
