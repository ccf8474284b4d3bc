"""What a Dask task leaves on its machine so that, if a strategy kills its worker, the next attempt can tell whom.

Locally, the supervisor reads a dead worker's monitor (:mod:`canasta_sim.arbiter`) from memory it shares with it
and charges the game to the seat whose call was running.  A Dask task has no supervisor beside it: when its
worker process dies, Dask plays the task again, on a new worker.  So a task plays with its monitor on a small
file under the machine's temporary folder (a memory map: the engine's stores cost what they cost on shared
memory, and the kernel keeps them when the process dies), named by the run and the chunk.  The next attempt at
that chunk on the machine finds a game still marked in progress there: that game is charged to the seat whose
call was running (reason ``crash``), recorded in a second file, and played by nobody again; the attempt replays
the chunk's other games (games are pure functions of their seeds) and goes past it.

An attempt that plays the chunk to its end keeps the record of the games charged: Dask plays a finished chunk
again when the worker holding its rows dies before the client fetched them, and that attempt must not die in the
same games again.  The client removes the records once the run's chunks are all written (:func:`forget_run`).

An attempt that lands on another machine finds no journal and plays the game again, which costs one more death;
the client resubmits a chunk whose workers kept dying a bounded number of times
(:mod:`canasta_sim.runs.dask_resubmission`).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import tempfile
from pathlib import Path

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_SIZE, decode_call

__all__ = ["ChunkJournal", "forget_run", "forget_run_on_workers"]

_DOUBLE = 8


def _folder() -> Path:
    return Path(tempfile.gettempdir()) / "canasta-sim-monitors"


def forget_run(run_token: str, folder: Path | None = None) -> None:
    """Remove what a run's chunks left on this machine (run on every worker once the run's chunks are written)."""
    for path in (folder or _folder()).glob(f"{run_token}-*"):
        with contextlib.suppress(FileNotFoundError):  # several workers of the machine remove them at once
            path.unlink()


def forget_run_on_workers(client, run_token: str) -> None:
    """Have every worker of the client's cluster :func:`forget_run`.  A worker, or the scheduler, gone by then
    costs the few bytes it keeps, not the finished run."""
    with contextlib.suppress(OSError):
        client.run(forget_run, run_token, on_error="ignore")


class ChunkJournal:
    """The monitor and the games charged so far of one chunk of one run, on this machine.

    Use it as a context manager around the attempt; :meth:`close` with ``done=True`` removes its monitor, and
    its record of charged games if there is none.

    :param run_token: names the run (the same for every attempt at its chunks).
    """

    def __init__(self, run_token: str, chunk: int, folder: Path | None = None) -> None:
        folder = folder or _folder()
        folder.mkdir(parents=True, exist_ok=True)
        self.monitor_path = folder / f"{run_token}-{chunk}.monitor"
        self.charged_path = folder / f"{run_token}-{chunk}.charged"
        self.charged: dict[int, tuple[int, str]] = self._read_charged()
        """The games whose worker died during a call, by game id: ``(seat, decision)`` of that call."""
        if not self.monitor_path.exists():
            # Made whole, then renamed: a file an attempt died creating would read as game 0 in progress.
            fresh = folder / f".{self.monitor_path.name}.{os.getpid()}"
            fresh.write_bytes(struct.pack(f"{MONITOR_SIZE}d", *([-1.0] + [0.0] * (MONITOR_SIZE - 1))))
            os.replace(fresh, self.monitor_path)
        with open(self.monitor_path, "r+b") as handle:
            self._map = mmap.mmap(handle.fileno(), MONITOR_SIZE * _DOUBLE)
        self.monitor = memoryview(self._map).cast("d")
        """The monitor to play with (:func:`canasta_sim.core.engine.play_game`'s ``monitor``)."""
        game = int(self.monitor[MONITOR_GAME])
        if game >= 0:
            # The last attempt died in this game: charge the call that was running, once.
            seat, decision = decode_call(self.monitor[MONITOR_CALL])
            self.charged[game] = (seat, decision)
            with open(self.charged_path, "a", encoding="utf-8") as handle:
                handle.write(f"{game} {seat} {decision}\n")
            self.monitor[MONITOR_GAME] = -1

    def _read_charged(self) -> dict[int, tuple[int, str]]:
        charged: dict[int, tuple[int, str]] = {}
        with contextlib.suppress(FileNotFoundError):
            for line in self.charged_path.read_text(encoding="utf-8").splitlines():
                game, seat, decision = line.split(" ", 2)
                charged[int(game)] = (int(seat), decision)
        return charged

    def __enter__(self) -> ChunkJournal:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close(done=kind is None)

    def close(self, *, done: bool) -> None:
        """Release the map; with ``done`` (the attempt returned its rows), remove the monitor, and the record of
        charged games if it holds none (else :func:`forget_run` does, at the end of the run)."""
        self.monitor.release()
        self._map.close()
        if done:
            for path in (self.monitor_path, *(() if self.charged else (self.charged_path,))):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
