"""The decision monitor: a few floats on memory shared with the run's supervisor.

The engine writes which game and which seat's call it is before every call into strategy code, so that
when a worker process dies or hangs the supervisor knows whom to charge.
"""

from __future__ import annotations

from canasta_sim.arbiter.clock import STARTUP_ALLOWANCE

__all__ = [
    "CALL_CODES", "DECISIONS", "MONITOR_CALL", "MONITOR_GAME", "MONITOR_SIZE", "MONITOR_START", "decode_call",
    "overrun",
]

# The monitor: a few floats on memory shared with the supervisor, written before every call into strategy
# code, so that when the process dies or hangs the supervisor knows which game and which seat's call it was.
MONITOR_GAME = 0
"""Index of the game being played (-1 between games); the runner writes it."""
MONITOR_CALL = 1
"""Index of the call: ``CALL_CODES[decision] + seat``."""
MONITOR_START = 2
"""Index of the call's start, in :func:`time.monotonic` seconds (system-wide on Linux).  Written after the call's
code, and again when a seat's build ends, so that a reader who reads the code first never pairs a decision with the
start of a build (which may have begun many decision limits ago)."""
MONITOR_SIZE = 3

DECISIONS = ("acquire", "ask", "answer", "meld", "discard", "event", "hand start", "hand end", "build", "game")
CALL_CODES = {decision: 4 * index for index, decision in enumerate(DECISIONS)}
"""The code of each decision in the monitor; the seat is added to it."""


def decode_call(code: float) -> tuple[int, str]:
    """The ``(seat, decision)`` of a call code written in the monitor."""
    number = int(code)
    return number % 4, DECISIONS[number // 4]


def overrun(code: float, running: float, time_limit: float, margin: float) -> str | None:
    """The failure's words when the call ``code`` has run ``running`` seconds, past what it may take plus ``margin``,
    and its process is to be killed; else ``None``.

    A seat's build (its bot process's start-up and handshake) may take :data:`STARTUP_ALLOWANCE`, every other call
    the decision ``time_limit``.  Read the code before the start (see :data:`MONITOR_START`).  A run's worker and the
    game of a replay, ``watch`` or ``check-strategy`` say the same, so that a replay's forfeit reads as the run's
    ``error`` column does.
    """
    if decode_call(code)[1] == "build":
        if running <= max(STARTUP_ALLOWANCE, time_limit) + margin:
            return None
        return (f"was still starting {running:.1f} s after it began, past the start-up allowance of "
                f"{STARTUP_ALLOWANCE:g} s; its worker was killed")
    if running <= time_limit + margin:
        return None
    return (f"was still running {running:.1f} s after it began, past the time limit of {time_limit} s; its worker "
            "was killed")
