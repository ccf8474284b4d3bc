"""Where a worker and its bot processes run: a core of the worker's own, the cores left over for its bots.

A bot speaking the protocol decides in microseconds, so a worker and its bot processes hand the turn back and
forth thousands of times a second.  Left to the kernel, a bot woken by the worker's write often runs on the
worker's core, and the worker, the critical path of every game it plays, waits for its core back; each switch
also leaves the other's data in the core's caches.  Placed (``--pin-cores`` of ``run``, ``compare`` and
``tune``, or ``CANASTA_SIM_AFFINITY=1``), each worker takes a core of its own and
starts its bots on the cores no worker holds, when the machine has at least two cores a worker
(``scripts/bench_isolation.py`` measures what it gains).  Placement is off by default: a process pinned to a
core cannot leave it when something else on the machine keeps it busy.  It changes where processes run, never
what they play.

Only Linux (and other systems with :func:`os.sched_setaffinity`) places processes; elsewhere this module does
nothing.
"""

from __future__ import annotations

import logging
import os
from typing import NamedTuple

__all__ = ["AFFINITY_VARIABLE", "Placement", "affinity_enabled", "affinity_impossible", "pin_worker", "place_bot",
           "placement"]

logger = logging.getLogger("canasta_sim.bots")

AFFINITY_VARIABLE = "CANASTA_SIM_AFFINITY"
"""Environment variable: ``1`` gives each worker a core of its own and its bots the cores left over, when there are
two cores a worker; ``0`` (the default) leaves workers and bot processes wherever the kernel puts them."""


class Placement(NamedTuple):
    """The cores of one worker slot: its own, and those its bot processes share."""

    worker: int
    """The core the worker runs on."""
    bots: frozenset[int]
    """The cores its bot processes run on: those no worker holds."""


_bot_cores: frozenset[int] | None = None  # set in a worker by pin_worker; read as each bot process starts


def affinity_enabled() -> bool:
    """Whether ``CANASTA_SIM_AFFINITY`` allows placement.

    :raises ValueError: for a value other than ``0`` or ``1`` (read by the run's parent before any worker
        starts, so that a typo stops the run in one line).
    """
    return _asked() and hasattr(os, "sched_setaffinity")


def affinity_impossible() -> bool:
    """Whether placement is asked for (``CANASTA_SIM_AFFINITY=1``, ``--pin-cores``) on a system that cannot pin a
    process to a core (macOS, Windows), where it pins nothing.

    :raises ValueError: as :func:`affinity_enabled` does.
    """
    return _asked() and not hasattr(os, "sched_setaffinity")


def _asked() -> bool:
    """Whether ``CANASTA_SIM_AFFINITY`` asks for placement (``1``), checked to be ``0``, ``1`` or unset."""
    value = os.environ.get(AFFINITY_VARIABLE, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{AFFINITY_VARIABLE}={value!r} is not accepted; use 1 (on) or 0 (off, the default)")
    return value == "1"


def placement(slot: int, workers: int, cores: frozenset[int] | None = None) -> Placement | None:
    """The placement of worker ``slot`` (0 to ``workers - 1``) among ``workers``, or ``None`` when there are
    fewer than two cores a worker (or placement is off).

    :param cores: the cores this process may run on (its own affinity when not given).
    """
    if not affinity_enabled():
        return None
    if cores is None:
        cores = frozenset(os.sched_getaffinity(0))
    ordered = sorted(cores)
    # A worker's bots take about as much CPU as the worker: without a spare core per worker they would
    # queue on too few cores, and the kernel's own spreading does better.
    if not 0 <= slot < workers or 2 * workers > len(ordered):
        return None
    return Placement(ordered[slot], frozenset(ordered[workers:]))


_started_unplaced: dict[int, list] = {}
"""The bot processes (:class:`subprocess.Popen`) each process started while placement was on but before it was
pinned, by the starter's pid: a forked worker inherits its parent's list, and places only its own."""


def pin_worker(where: Placement | None) -> None:
    """Run this process (a worker) on its own core, and its bot processes on the spare cores: those it starts
    from now on, and those it started before (loading an ``isolated:`` strategy starts one for its handshake,
    kept for the first game); nothing when ``where`` is ``None``."""
    global _bot_cores
    if where is None:
        return
    try:
        os.sched_setaffinity(0, {where.worker})
    except OSError as error:  # a core taken away since the plan (a container's limits changed): run unplaced
        logger.warning("--pin-cores: this worker could not take core %d and runs unplaced: %s", where.worker, error)
        return
    _bot_cores = where.bots
    for process in _started_unplaced.pop(os.getpid(), []):
        if process.poll() is None:  # still running, so its pid is still its own (an ended one is reaped here)
            place_bot(process)


def place_bot(process) -> None:
    """Move a bot process just started (its :class:`subprocess.Popen`) onto the worker's spare cores (when
    :func:`pin_worker` set them, else when it does)."""
    if _bot_cores is None:
        if affinity_enabled():  # kept for pin_worker; ended ones dropped, as a worker never pinned may start many
            started = _started_unplaced.setdefault(os.getpid(), [])
            started[:] = [earlier for earlier in started if earlier.poll() is None]
            started.append(process)
        return
    try:
        os.sched_setaffinity(process.pid, _bot_cores)
    except OSError as error:  # the bot already exited: its failure is reported where it is read
        logger.debug("bot process %d was left unplaced: %s", process.pid, error)
