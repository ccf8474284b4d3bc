"""Stopping a run as a person asks: Ctrl-C, SIGTERM or a closed terminal (SIGHUP) sets the run's stop event.

``run``, ``compare`` and ``tune`` act on the first such signal by stopping their workers between games (the games
finished are kept); a second Ctrl-C raises KeyboardInterrupt.  ``run`` takes the signals from the moment its
``run.json`` first says "running" (:func:`hold_stop_signals`), so that a stop in the instant before its handlers are
in place still ends the run with ``run.json`` final.  Worker processes ignore them all: they are the parent's to act on.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = [
    "STOPPING_SIGNALS",
    "hold_stop_signals",
    "release_stop_signals",
    "stop_on_signals",
    "stop_signals_released",
]


STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that stop a run as Ctrl-C does.  SIGHUP is a closed terminal (or ssh session): left to its default it
would kill the run where it stands, the games of the chunks in play lost and ``run.json`` saying "running" for ever; a
run started under ``nohup`` (SIGHUP ignored) keeps it ignored.  Workers ignore them all: the terminal sends them to the
whole group, and they are the parent's to act on."""


@contextlib.contextmanager
def stop_on_signals(stop_event) -> Iterator[dict[str, bool]]:
    """Make the first Ctrl-C (or SIGTERM, or SIGHUP: the terminal closed) set ``stop_event``; a second Ctrl-C raises
    KeyboardInterrupt."""
    state = {"interrupted": False}
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    held = release_stop_signals()
    previous = {number: signal.getsignal(number) for number in STOPPING_SIGNALS}
    if previous.get(getattr(signal, "SIGHUP", None)) is signal.SIG_IGN:
        # Started under nohup, which asks that a closed terminal not stop the run.
        del previous[signal.SIGHUP]

    def on_signal(number, frame) -> None:
        state["interrupted"] = True
        # Not stop_event.set() here: a threading.Event's set() takes a lock that the interrupted main thread may
        # hold, which would then wait on itself for ever.  A thread of its own sets it once the main thread lets go.
        threading.Thread(target=stop_event.set, name="canasta-sim-stop", daemon=True).start()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    for number in previous:
        signal.signal(number, on_signal)
    if held:  # one sent while hold_stop_signals held them: acted on now, as if it came now
        on_signal(held[0], None)
    try:
        yield state
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


_hold: dict[str, Any] = {"previous": {}, "pending": []}
"""While :func:`hold_stop_signals` holds them: the handlers it replaced, and the signals that came meanwhile."""


def hold_stop_signals() -> None:
    """Take the stopping signals and keep them, until :func:`stop_on_signals` has its handlers in place (and acts on
    them then) or :func:`release_stop_signals`: a SIGTERM between ``run.json``'s first "running" and the handlers
    stops the run as one a moment later does, where by default it would kill the process, ``run.json`` saying
    "running" for ever.
    (Blocking them would not do: the kernel gives a signal to any thread not blocking it, pyarrow's included.)"""
    if _hold["previous"] or threading.current_thread() is not threading.main_thread():
        return
    for number in STOPPING_SIGNALS:
        previous = signal.getsignal(number)
        if previous is not signal.SIG_IGN:  # an ignored one (SIGHUP under nohup) stays ignored
            _hold["previous"][number] = previous
            signal.signal(number, _keep_signal)


def _keep_signal(number, frame) -> None:
    _hold["pending"].append(number)


def release_stop_signals() -> list[int]:
    """Put back the handlers :func:`hold_stop_signals` replaced; the signals that came meanwhile."""
    previous, pending = _hold["previous"], _hold["pending"]
    _hold.update(previous={}, pending=[])
    for number, handler in previous.items():
        signal.signal(number, handler)
    return pending


@contextlib.contextmanager
def stop_signals_released() -> Iterator[None]:
    """Release at its end what :func:`hold_stop_signals` held within and nothing took: nothing was left to play, or
    a failure came first.  A stop asked meanwhile finds the run ended, ``run.json`` final."""
    try:
        yield
    finally:
        release_stop_signals()
