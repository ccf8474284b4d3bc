"""What this system gives canasta-sim to contain strategy code with, which differs between Linux, macOS and Windows:
how worker processes start, whether a worker's memory can be capped, whether workers die with the command, and how a
decision's clock interrupts it.

The games never differ: a game is a pure function of its rules, seed and strategies on every system.  What differs is
only what the containment can stop, and a run says which it had (``run.json``'s session ``containment``).
"""

from __future__ import annotations

import multiprocessing
import sys

from canasta_sim.arbiter.clock import HAS_ALARM

# Where a bot process's limit is applied, and a worker's by the same means: re-exported as this system's containment.
from canasta_sim.plugins.process import has_memory_limit, no_memory_limit_reason

__all__ = ["containment_text", "dies_with_parent", "has_memory_limit", "no_memory_limit_reason", "worker_start_method"]


def worker_start_method() -> str:
    """How worker processes start: ``fork`` on Linux (a worker starts at once, with the strategies the command loaded),
    ``spawn`` elsewhere.

    macOS has ``fork``, but CPython starts processes by ``spawn`` there because a forked child of a process that has
    used the system's frameworks or started threads (the run's log reader has) may crash or hang; Windows has no
    ``fork`` at all.  A spawned worker imports the package and loads the strategies again (about a second), and plays
    the same games.
    """
    forks = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
    return "fork" if forks else "spawn"


def dies_with_parent() -> bool:
    """Whether the kernel ends a worker (and its bot processes) when the command's process dies, however it dies: Linux
    only (``PR_SET_PDEATHSIG``).  Elsewhere a worker ends at its next task once its pipe to the command is closed."""
    return sys.platform.startswith("linux")


def containment_text() -> str:
    """One line saying how this system contains a run's strategies, as ``run.json`` records it: ``spawned workers,
    decision clock by watchdog thread, workers end at their next task when the command dies, no memory limits``."""
    parts = ["forked workers" if worker_start_method() == "fork" else "spawned workers",
             # Without the alarm (Windows) a watchdog thread stops pure-Python code only, and the supervisor's kill, a
             # second past the time limit, the rest.
             "decision clock by alarm" if HAS_ALARM else "decision clock by watchdog thread",
             "workers die with the command" if dies_with_parent() else
             "workers end at their next task when the command dies",
             "memory limits" if has_memory_limit() else "no memory limits"]
    return ", ".join(parts)
