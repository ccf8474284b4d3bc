"""The worker side of a supervised run (:mod:`canasta_sim.runs.supervisor`): the loop a worker process runs.

A worker ignores Ctrl-C, dies with its parent, optionally runs under a memory limit, and plays the
``(chunk, first game, end)`` tasks it receives one game at a time, publishing the game and the call in progress
in the shared *monitor* and sending each game back as it ends.  What strategies print goes to the run's log.

No game of a run has a terminal to debug in: a strategy's ``breakpoint()`` quits at once, charged to its seat, in
a worker process (:func:`debugger_without_terminal`) and in a Dask worker's thread
(:func:`debugger_quits_in_this_thread`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import sys
import threading
import time

try:
    import resource
except ImportError:  # Windows: no address-space limit (--memory-limit is refused there: see options.limit_memory)
    resource = None

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_GAME, MONITOR_START, decode_call
from canasta_sim.errors import MachineRefusal, StrategyError
from canasta_sim.plugins.affinity import pin_worker
from canasta_sim.plugins.kept_state import KeptStateWatch, kept_state_warning, unread_warning
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.process import libc_prctl
from canasta_sim.runs.interleave import games_at_once, play_side_by_side, runs_bot_processes
from canasta_sim.runs.records import GameRows
from canasta_sim.runs.runner import log_failure
from canasta_sim.runs.stopping import STOPPING_SIGNALS
from canasta_sim.runs.worker_log import send_records_to

__all__ = [
    "OUTPUT_LIMIT", "CappedOutput", "debugger_quits_in_this_thread", "debugger_without_terminal", "die_with_parent",
    "worker_main",
]

logger = logging.getLogger("canasta_sim.runs.runner")

OUTPUT_LIMIT = 16_000
"""Characters of what the strategies print during one game kept for the run's log."""


class CappedOutput(io.TextIOBase):
    """Stands in for ``sys.stdout`` and ``sys.stderr`` in a worker: keeps the first characters printed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        """Always: whatever strategy code prints is taken."""
        return True

    def write(self, text) -> int:
        """Keep ``text`` up to the limit, count the rest as dropped, and report it all written."""
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> str:
        """What was printed since the last call (with a note of what was dropped), then forget it."""
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n... ({self.dropped} more characters dropped: at most {self.limit:,} are kept a game)"
        self.parts, self.kept, self.dropped = [], 0, 0
        return text


def die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux ``PR_SET_PDEATHSIG``; elsewhere nothing)."""
    # A worker spinning in strategy code never checks on its parent: let the kernel kill it (Linux).  Elsewhere a
    # worker's pipe reaching its end ends it at its next task.
    prctl = libc_prctl()
    if prctl is not None:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def debugger_without_terminal() -> None:
    """Give this game-playing process Python's own ``breakpoint()`` hook, in place of any its parent installed.

    The process has no terminal (its standard input is the null device), so a strategy's ``breakpoint()`` should quit
    at once, the seat's failure saying a debugger quit (:data:`canasta_sim.errors.DEBUGGER_HERE`).  A parent's hook
    would not: a notebook kernel's (debugpy's, with no debugger attached) returns and the game plays on, so its tables
    would differ from a terminal's run; a test runner's (pytest's) swaps the standard streams, and the game would be
    charged as tampering.  ``PYTHONBREAKPOINT`` still works as Python documents it (``0``: ``breakpoint()`` does
    nothing).
    """
    sys.breakpointhook = _breakpoint_without_terminal


def _breakpoint_without_terminal(*args, **kwargs):
    """``breakpoint()`` as Python's own hook runs it, with ``pdb``'s own debugger: a test runner's ``pdb.set_trace``
    (pytest replaces it) would swap the streams too."""
    if _hook_named_by_environment():
        return sys.__breakpointhook__(*args, **kwargs)
    import pdb

    pdb.Pdb().set_trace(sys._getframe(1))
    return None


def _hook_named_by_environment() -> bool:
    """Whether ``PYTHONBREAKPOINT`` names a hook other than ``pdb``'s (``0`` among them), which Python's own hook then
    runs as Python documents it: the one rule of both of this module's hooks."""
    return os.environ.get("PYTHONBREAKPOINT", "") not in ("", "pdb.set_trace")


_playing_here = threading.local()
"""Whether this thread plays a run's games (:func:`debugger_quits_in_this_thread`)."""

_hook_lock = threading.Lock()


@contextlib.contextmanager
def debugger_quits_in_this_thread():
    """While the block runs, a strategy's ``breakpoint()`` in this thread quits at once, as in a run's worker process
    (:func:`debugger_without_terminal`), charged to its seat as a debugger quitting; other threads keep the process's
    hook.

    A Dask worker plays chunks in threads of a process that is not canasta-sim's: a cluster of threads of the user's
    own process (``LocalCluster(processes=False)``, in a notebook whose kernel's hook returns, so the game would play
    on) or a worker started in a terminal (``dask worker --no-nanny``, where ``pdb`` would wait for someone to type).
    """
    with _hook_lock:  # the hook is the process's: installed once, over whatever hook it had
        if sys.breakpointhook is not _breakpoint_in_a_game:
            _breakpoint_in_a_game.before = sys.breakpointhook
            sys.breakpointhook = _breakpoint_in_a_game
    _playing_here.games = getattr(_playing_here, "games", 0) + 1
    try:
        yield
    finally:
        _playing_here.games -= 1


def _breakpoint_in_a_game(*args, **kwargs):
    """``breakpoint()`` in a thread playing a run's games: ``PYTHONBREAKPOINT`` as Python documents it, else the
    debugger quitting at once; in any other thread, the hook the process had."""
    if not getattr(_playing_here, "games", 0):
        return _breakpoint_in_a_game.before(*args, **kwargs)
    if _hook_named_by_environment():
        return sys.__breakpointhook__(*args, **kwargs)
    import bdb

    raise bdb.BdbQuit


_breakpoint_in_a_game.before = sys.__breakpointhook__


def _limit_memory(megabytes: int | None) -> None:
    if megabytes is not None and resource is not None:
        limit = megabytes * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard == resource.RLIM_INFINITY else min(limit, hard)))


def _capture_output(log_channel, log_level) -> CappedOutput:
    """Send this worker's log records down its own pipe to the run's log, and what strategies print to the log; raw
    writes to the descriptors are dropped."""
    send_records_to(log_channel, log_level)
    output = CappedOutput(OUTPUT_LIMIT)
    sys.stdout = sys.stderr = output
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
    return output


def worker_main(connection, log_channel, monitor_memory, where, schedule, on_error, stop_event, log_level,
                memory_limit):
    """A worker: play the ``(chunk, first game, end)`` tasks received, sending each game back as it ends.

    ``where`` is its placement (:mod:`canasta_sim.plugins.affinity`), taken at its first task with bot processes;
    ``log_channel`` the writing end of its log pipe (:class:`canasta_sim.runs.worker_log.WorkerLogs`).
    """
    # The user's Ctrl-C, SIGTERM and SIGHUP are the parent's to act on (it sets the stop flag, and ends the workers):
    # one sent to the whole group (a terminal, kill -TERM -PGID) must not kill a worker mid-game, charged to its seat.
    for number in STOPPING_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    die_with_parent()
    debugger_without_terminal()
    output = _capture_output(log_channel, log_level)
    monitor = memoryview(monitor_memory).cast("B").cast("d")
    monitor[MONITOR_GAME] = -1
    try:
        player = schedule.new_player(on_error, stop_event)
    except Exception as error:  # a plugin failing to load in the worker, or the machine's refusal: the run cannot go on
        _cannot_play(connection, error)
        return
    _limit_memory(memory_limit)
    connection.send(("ready",))
    watch = None
    while True:
        task = connection.recv()
        if task is None:
            if watch is not None:  # what changed since a look the budget put off is told before the worker ends
                _warn_of_kept_state(watch, look_now=True)
            close_all()  # every bot process this worker started hears quit (a worker's end runs no atexit)
            return
        chunk, first, end = task

        def report(game_id, played, error, chunk=chunk) -> bool:
            """Send one game back; ``False`` when the task stops there."""
            if isinstance(error, MachineRefusal):
                # The machine refused a bot seat a process (CodeGuard): no forfeit; the run stops, this game unplayed.
                monitor[MONITOR_GAME] = -1
                _cannot_play(connection, error)
                return False
            if error is not None:
                # Raised outside any call the engine guards (e.g. a MemoryError in the engine while a
                # strategy holds the memory): the worker may be unsound, so it reports and stops.
                seat, decision = decode_call(monitor[MONITOR_CALL])
                message = f"its worker failed outside the strategy's calls: {type(error).__name__}: {error}"
                outcome = schedule.charge(chunk, game_id, seat, decision, "crash", message)
                log_failure(game_id, outcome, on_error)
                connection.send(("game", game_id, outcome))
                monitor[MONITOR_GAME] = -1
                os._exit(70)
            outcome, extra = played
            monitor[MONITOR_GAME] = -1
            printed = output.take()
            if printed:
                logger.info("game %d: the strategies printed:\n%s", game_id, printed.rstrip())
            if isinstance(outcome, GameRows):
                # As a plain tuple: a named tuple pickles in about three times a tuple's time (its class is looked
                # up and called on each side), once a game.
                connection.send(("rows", game_id, *outcome, extra))
            else:
                connection.send(("game", game_id, outcome, extra))
            if isinstance(outcome, StrategyError) and on_error == "stop":
                if getattr(schedule, "stops_at_failure", False):
                    stop_event.set()  # now, before this worker takes up the chunk sent ahead of this one
                return False
            return True

        try:
            if where is not None and runs_bot_processes(player, chunk):
                pin_worker(where)  # before the task's first game starts its bots
                where = None
            if watch is None:  # from before the first game: what importing the strategies' files left is theirs
                watch = KeptStateWatch({loaded.spec: loaded.cls for loaded in player.loaded_strategies(chunk)})
            _play_task(player, chunk, range(first, end), monitor, stop_event, report)
        except MachineRefusal as error:  # a task's strategies loaded for it (tune's candidates): told, not a death
            _cannot_play(connection, error)
            continue
        _warn_of_kept_state(watch)
        connection.send(("done", chunk))


def _cannot_play(connection, error: Exception) -> None:
    """Tell the run that this worker cannot play its strategies (``load_error``), which stops the run: the machine's
    refusal of a process or of memory said as it is, the strategies not to blame; anything else as a strategy that
    could not be loaded here."""
    said = str(error) if isinstance(error, MachineRefusal) else \
        f"a worker could not load the strategies: {type(error).__name__}: {error}"
    connection.send(("load_error", said))


def _warn_of_kept_state(watch: KeptStateWatch, look_now: bool = False) -> None:
    for spec, names in watch.changes(look_now):
        logger.warning("%s", kept_state_warning(spec, names))
    for spec in watch.unread():
        logger.warning("%s", unread_warning(spec))


def _play_task(player, chunk, games: range, monitor, stop_event, report) -> None:
    """Play a task's games, each sent back by ``report`` (``False`` when the task stops there)."""
    width = games_at_once(player, len(games), chunk)
    if width > 1:  # bots playing several games per process: the chunk's games side by side
        play_side_by_side(lambda game_id: player.play_game(chunk, game_id, monitor), games, width,
                          monitor, stop_event=stop_event, report=report)
        return
    for game_id in games:
        if stop_event.is_set():
            break
        monitor[MONITOR_START] = time.monotonic()  # never an old start with a new game: see the supervisor
        monitor[MONITOR_GAME] = game_id
        try:
            played, error = player.play_game(chunk, game_id, monitor), None
        except BaseException as caught:  # noqa: BLE001 - strategy code broke out of its call; see report
            played, error = None, caught
        if not report(game_id, played, error):
            break
