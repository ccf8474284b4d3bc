"""What a Dask task leaves on its machine so that, if a strategy kills its worker, the next attempt can tell whom.

Locally, the supervisor reads a dead worker's monitor (:mod:`canasta_sim.arbiter`) from memory it shares with it
and charges the game to the seat whose call was running.  A Dask task has no supervisor beside it: when its
worker process dies, Dask plays the task again, on a new worker.  So each attempt plays with its monitor on a
small file of its own under the machine's temporary folder (a memory map: the engine's stores cost what they cost
on shared memory, and the kernel keeps them when the process dies), named by the run, the chunk and the attempt,
and holds a lock on that file while it lives.  The kernel drops the lock when the process dies, so the next
attempt at the chunk on the machine can tell a monitor left by an attempt that died (it takes the lock) from one
of an attempt still playing (it cannot).  From a dead one's monitor it charges the game still marked in progress
to the seat whose call was running (reason ``crash``), records it in the chunk's file of charged games, and
removes the monitor; the attempt then replays the chunk's other games (games are pure functions of their seeds)
and goes past the charged one.

A monitor of its own matters when two attempts at one chunk play at once on a machine: Dask cannot stop a running
task, so an attempt of a submission the client gave up (:mod:`canasta_sim.runs.dask_resubmission`) may still be
playing when the chunk's next submission begins beside it.  Neither reads the other's game in progress as a
death, nor writes into the other's monitor; each charges only the deaths of attempts whose process is gone.

An attempt that plays the chunk to its end keeps the record of the games charged: the client plays a finished chunk
again when the worker holding its rows dies before it fetched them, and that attempt must not die in the
same games again.  The client removes the records when the run ends, however it ends (:func:`forget_run`).

An attempt that lands on another machine finds no journal and plays the game again, which costs one more death;
the client resubmits a chunk whose workers kept dying a bounded number of times.

A death during a built-in strategy's call is no strategy's doing (the kernel's out-of-memory killer, someone's
``kill -9``): as locally (:mod:`canasta_sim.runs.supervisor`), the next attempt records it without charging it and
plays the game again, and the third such death of one game ends the run in one line.  Which seats are built-in is
judged from the run's specs (``is_built_in``), never from what the dead attempt left.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import mmap
import os
import struct
import uuid
from collections.abc import Callable
from pathlib import Path

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_SIZE, decode_call
from canasta_sim.runs.dask_cluster import ClusterError
from canasta_sim.runs.machine import made_users_folder, users_folder
from canasta_sim.runs.supervisor import IDLE_DEATHS

try:
    import fcntl
except ImportError:  # Windows: byte-range locks instead
    fcntl = None
    import msvcrt

__all__ = ["ChunkJournal", "forget_run", "monitor_folder"]

logger = logging.getLogger(__name__)

_AGAIN = "again"
"""What begins a journal's line for a death in a built-in strategy's call: recorded, not charged."""

_DOUBLE = 8
_MONITOR_BYTES = MONITOR_SIZE * _DOUBLE
_LOCKED_BYTE = _MONITOR_BYTES
"""Where Windows locks a monitor: one byte past its data, so that the lock keeps nobody from reading the data."""


def monitor_folder() -> Path:
    """The folder of this machine's journals of this user's runs: ``canasta-sim-monitors-UID`` under the temporary
    folder (``TMPDIR``; :func:`~canasta_sim.runs.machine.users_folder`)."""
    return users_folder("canasta-sim-monitors")


def forget_run(run_token: str, folder: Path | None = None) -> None:
    """Remove what a run's chunks left on this machine (run on every worker once the run ends, and by the client).

    An attempt still playing keeps its lock on a monitor removed from under it, and removes nothing when it ends.
    """
    for path in (folder or monitor_folder()).glob(f"{run_token}-*"):
        # Several workers of the machine remove them at once; on Windows an open file cannot be removed (an attempt
        # still playing): it goes with the attempt.
        with contextlib.suppress(FileNotFoundError, PermissionError):
            path.unlink()


def _lock(handle, *, wait: bool) -> bool:
    """Take the lock of an open monitor; without ``wait``, ``False`` when another attempt holds it (it is alive)."""
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        return True
    handle.seek(_LOCKED_BYTE)
    try:
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
    except OSError:
        if wait:
            raise
        return False
    return True


class ChunkJournal:
    """One attempt's monitor, and the games charged so far, of one chunk of one run on this machine.

    Opening it charges the games that attempts at the chunk died in on this machine.  Use it as a context manager
    around the attempt: leaving it, however the attempt ends in its process, removes its monitor; only the
    attempt's death leaves the monitor for the next one.

    :param run_token: names the run (the same for every attempt at its chunks).
    :param is_built_in: whether the strategy at a seat of a game is a built-in one played in the worker, by
        ``(game id, seat)``: a death in its call is played again, not charged.  Without it every death is charged.
    :raises ClusterError: if a game's workers died :data:`~canasta_sim.runs.supervisor.IDLE_DEATHS` times during
        built-in strategies' calls.
    """

    def __init__(self, run_token: str, chunk: int, folder: Path | None = None, *,
                 is_built_in: Callable[[int, int], bool] | None = None) -> None:
        folder = made_users_folder(folder or monitor_folder())
        self._is_built_in = is_built_in
        self.charged_path = folder / f"{run_token}-{chunk}.charged"
        for path in sorted(folder.glob(f"{run_token}-{chunk}-*.monitor")):
            self._charge_if_dead(path)
        self.charged: dict[int, tuple[int, str]] = {}
        """The games whose worker died during a call, by game id: ``(seat, decision)`` of that call."""
        self.deaths_in_built_ins: collections.Counter[int] = collections.Counter()
        """The deaths of each game's workers during built-in strategies' calls, by game id: played again."""
        self._read_charged()
        self._judge_deaths_in_built_ins()
        self.monitor_path = folder / f"{run_token}-{chunk}-{uuid.uuid4().hex[:12]}.monitor"
        # Locked before a byte is written: another attempt looking at it meanwhile finds it too short to be a monitor
        # (and holds the lock a moment, for which this one waits).
        self._handle = open(self.monitor_path, "x+b")  # noqa: SIM115 - held open for its lock until close()
        _lock(self._handle, wait=True)
        self._handle.seek(0)
        self._handle.write(struct.pack(f"{MONITOR_SIZE}d", *([-1.0] + [0.0] * (MONITOR_SIZE - 1))))
        self._handle.flush()
        self._map = mmap.mmap(self._handle.fileno(), _MONITOR_BYTES)
        self.monitor = memoryview(self._map).cast("d")
        """The monitor to play with (:func:`canasta_sim.core.engine.play_game`'s ``monitor``)."""

    def _charge_if_dead(self, path: Path) -> None:
        """Charge the game in progress on the monitor of an attempt whose process is gone, once, and remove it."""
        try:
            handle = open(path, "r+b")  # noqa: SIM115 - closed below, before the file is removed
        except FileNotFoundError:  # its attempt ended, or another attempt charged it, meanwhile
            return
        with handle:
            if not _lock(handle, wait=False):
                return  # its attempt is still playing (a submission the client gave up, say): not a death
            handle.seek(0)
            data = handle.read(_MONITOR_BYTES)
            if len(data) < _MONITOR_BYTES:
                return  # its attempt died creating it, before it played anything: forget_run removes it
            values = struct.unpack(f"{MONITOR_SIZE}d", data)
            game = int(values[MONITOR_GAME])
            if game >= 0:
                seat, decision = decode_call(values[MONITOR_CALL])
                again = self._is_built_in is not None and self._is_built_in(game, seat)
                if again:
                    logger.warning("game %d: its Dask worker died during a built-in strategy's call, not that "
                                   "strategy's doing; the game is played again", game)
                # One write, appended: attempts of the machine charging games of the chunk at once add whole lines.
                line = f"{_AGAIN + ' ' if again else ''}{game} {seat} {decision}\n".encode()
                descriptor = os.open(self.charged_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(descriptor, line)
                finally:
                    os.close(descriptor)
                # Cleared before the lock is let go: an attempt that opened the file meanwhile charges nothing again.
                handle.seek(_DOUBLE * MONITOR_GAME)
                handle.write(struct.pack("d", -1.0))
        with contextlib.suppress(FileNotFoundError, PermissionError):  # see forget_run
            path.unlink()

    def _read_charged(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            for line in self.charged_path.read_text(encoding="utf-8").splitlines():
                again = line.startswith(f"{_AGAIN} ")
                game, seat, decision = line.removeprefix(f"{_AGAIN} ").split(" ", 2)
                if again:
                    self.deaths_in_built_ins[int(game)] += 1
                else:
                    self.charged[int(game)] = (int(seat), decision)

    def _judge_deaths_in_built_ins(self) -> None:
        for game, deaths in sorted(self.deaths_in_built_ins.items()):
            if deaths >= IDLE_DEATHS and game not in self.charged:
                raise ClusterError(f"game {game}'s Dask workers died {deaths} times during a built-in strategy's "
                                   "call, which no strategy is charged with: are the machines short of memory, or "
                                   "killing them?")

    def __enter__(self) -> ChunkJournal:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close()

    def close(self) -> None:
        """Remove this attempt's monitor: the attempt ended in its process, so no game of it is anybody's death.  The
        record of charged games stays (see the module's docstring)."""
        self.monitor[MONITOR_GAME] = -1  # first: an attempt that takes the lock next finds no game in progress
        self.monitor.release()
        self._map.close()
        self._handle.close()
        with contextlib.suppress(FileNotFoundError, PermissionError):  # removed by forget_run at the run's end
            self.monitor_path.unlink()
