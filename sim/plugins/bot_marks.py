"""The mark every bot process carries in its environment, and what it finds: the processes a bot started wherever they
went, and how many of this user's processes and threads they hold.

A bot's process group holds what it starts, and ending the group ends them; a process that leaves the group (a daemon's
double fork and ``setsid``, a child in a session of its own holding the bot's stdout) is out of its reach, and would
outlive the bot and the run.  Every process a bot starts inherits its environment, so the mark
(:data:`MARK_VARIABLE`, ``STARTER.SERIAL``: the process that started the bot, and the bot's number there) finds
them in ``/proc`` wherever they went.  A bot that starts a program with an environment of its own making can still
escape it: canasta-sim isolates processes, it is no sandbox (docs/fairness.md).

Where there is no ``/proc``, nothing is found, and only the group is ended, as before.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator

__all__ = ["MARK_VARIABLE", "end_marked", "end_orphaned", "new_mark", "tasks_held"]

logger = logging.getLogger("canasta_sim.bots")

MARK_VARIABLE = "CANASTA_SIM_BOT_MARK"
"""The environment variable marking a bot process and whatever it starts."""

_SERIAL = itertools.count()
_SWEEPS = 8
"""Looks at ``/proc`` at most for one ending: each ends the marked processes the one before found, and a process
forking meanwhile is found by the next."""


_STARTING_WAITS = 3
_STARTING_SECONDS = 0.02
"""How often, and how long, an ending waits for programs still starting (their environment not yet readable)."""


def new_mark() -> str:
    """A mark for a new bot process started by this process."""
    return f"{os.getpid()}.{next(_SERIAL)}"


def _marked() -> Iterator[tuple[int, str | None, int, int]]:
    """``(pid, mark, real uid, tasks)`` of each living process (``mark`` empty for one without; ``None`` for one whose
    environment cannot be read yet), tasks being its threads, which the limit on a user's processes counts as it
    counts processes."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    prefix = MARK_VARIABLE.encode() + b"="
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as file:
                status = file.read()
            with open(f"/proc/{name}/environ", "rb") as file:
                environment = file.read()
        except OSError:  # gone meanwhile, or another user's
            continue
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        if fields.get(b"State", b"").strip().startswith(b"Z"):
            continue  # ended, its parent yet to reap it: it holds nothing
        mark = next((item[len(prefix):].decode(errors="replace") for item in environment.split(b"\0")
                     if item.startswith(prefix)), "")
        if not environment and b"VmSize" in fields:
            # A program between the steps of its start (exec): its parent already went on, so a process a bot started
            # just before it exited is seen so, its environment set a moment later.  (A kernel thread has no memory.)
            mark = None
        uid = int(fields.get(b"Uid", b"-1").split()[0])
        tasks = int(fields.get(b"Threads", b"1").strip() or 1)
        yield int(name), mark, uid, tasks


def end_marked(mark: str = "", *, started_by: int | None = None) -> int:
    """Kill every process carrying ``mark``, or, with ``started_by``, the mark of any bot that process started (a
    worker that died, its bots with it); return how many were found."""
    if started_by is None:
        return _end(lambda found: found == mark)
    prefix = f"{started_by}."
    return _end(lambda found: found.startswith(prefix))


def end_orphaned() -> int:
    """Kill every marked process whose bot's starter has died, wherever it went; return how many were found.

    A local run's supervisor ends a dead worker's bots and what they started (:func:`end_marked`); a Dask worker
    that died has no such keeper on its machine, and its bots' daemons ran on.  A starter's id taken by a new
    process since only hides its orphans: nothing living is ever ended for it."""
    alive: dict[str, bool] = {}

    def orphaned(found: str) -> bool:
        starter = found.partition(".")[0]
        if starter not in alive:
            alive[starter] = not starter.isdigit() or _running(int(starter))  # no mark of ours: not ours to end
        return not alive[starter]

    return _end(orphaned)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process not yet ended (a zombie, ended and not yet reaped, holds nothing)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            status = file.read()
    except FileNotFoundError:
        return False
    except OSError:  # there, and not ours to read
        return True
    return b"\nState:\tZ" not in status


def _end(matches: Callable[[str], bool]) -> int:
    """Kill every marked process whose mark ``matches``, sweeping ``/proc`` again for those forked meanwhile."""
    own = os.getpid()
    ended: set[int] = set()
    waits = 0
    for _ in range(_SWEEPS):
        found, starting = [], False
        for pid, found_mark, _, _ in _marked():
            if pid == own or pid in ended:
                continue
            if found_mark is None:
                starting = True
            elif found_mark and matches(found_mark):
                found.append(pid)
        if not found:
            if not starting or waits == _STARTING_WAITS:
                break
            waits += 1  # a program still starting may carry the mark: looked at again in a moment
            time.sleep(_STARTING_SECONDS)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
            ended.add(pid)
    return len(ended)


def tasks_held(marks: Iterable[str]) -> tuple[dict[str, int], int]:
    """The processes and threads each of ``marks`` holds, and all this user's (the real user's, as the limit on a
    user's processes counts them)."""
    held = dict.fromkeys(marks, 0)
    uid = os.getuid()
    total = 0
    for _, mark, owner, tasks in _marked():
        if owner != uid:
            continue
        total += tasks
        if mark in held:
            held[mark] += tasks
    return held, total
