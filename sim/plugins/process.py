"""One bot process, owned by the arbiter: start it, write to it, read one line by a deadline, kill it.

:class:`BotProcess` is the only code that touches a bot's pipes.  Reads wait with :mod:`selectors` on
the bot's stdout and stderr together, so a bot that writes a lot to stderr never blocks, and a read
past its deadline kills the process.  The bot's stderr is kept in a capped buffer (its last lines go
into failure messages) and logged, capped too, to the ``canasta_sim.bots`` logger, which a run's log
receives.  Failures are :class:`~canasta_sim.errors.SeatFailure` with reason ``timeout`` or ``crash``.

Each bot runs in a process group of its own, and ending it (a kill, or the end of the grace after ``quit``) ends
the whole group: whatever the bot started (a wrapper script's real bot, a helper process) goes with it, and a
terminal's Ctrl-C, which reaches the foreground group, reaches the arbiter alone, which ends its bots itself.  A
bot also dies with the process that started it (Linux ``PR_SET_PDEATHSIG``): when the supervisor kills a worker (a
hung decision, the end of a ``compare``) or a Dask worker dies, its bots go with it even if they no longer read
their input.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import ctypes
import functools
import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

from canasta_sim.errors import MachineRefusal, SeatFailure, machine_refused, refuses_processes
from canasta_sim.plugins.affinity import place_bot
from canasta_sim.plugins.bot_marks import MARK_VARIABLE, end_marked, new_mark

try:
    import resource
except ImportError:  # Windows
    resource = None

__all__ = ["BotProcess", "STDERR_LOG_LIMIT", "STOP_GRACE", "has_memory_limit", "libc_prctl", "no_memory_limit_reason"]

logger = logging.getLogger("canasta_sim.bots")

STDERR_LOG_LIMIT = 64 * 1024
"""Bytes of one bot process's stderr written to the log; the rest is counted, not logged, and the log says so when
the limit is reached and, with the count, when the process ends."""

_STDERR_LINES_KEPT = 20
_LINE_LIMIT = 16 * 1024 * 1024  # one protocol line longer than this is no protocol at all
STOP_GRACE = 2.0
"""Seconds a bot has to exit after ``quit`` (and its input closed) before it is killed.  A bot that exits at once
waits for none of it; the margin is for runtimes slow to stop on a busy machine (a JVM took more than half a second
with the machine's load at 13, its last log line then lost to the kill)."""
_STOP_GRACE = STOP_GRACE


def has_memory_limit() -> bool:
    """Whether a process's address space can be capped here (``RLIMIT_AS``), which ``--memory-limit`` and a bot
    process's limit need: not on Windows (no such limit) nor on macOS (the limit is taken but its kernel does not hold
    allocations to it)."""
    return sys.platform != "darwin" and resource is not None and hasattr(resource, "RLIMIT_AS")


def no_memory_limit_reason(of: str = "a worker's memory") -> str:
    """Why capping ``of`` cannot be had here, in words for its refusal."""
    where = "macOS does not enforce it" if sys.platform == "darwin" else "this system has none"
    return f"capping {of} needs an address-space limit (RLIMIT_AS), and {where}"


class BotProcess:
    """A bot process speaking lines on its stdin and stdout.

    :param argv: the command and its arguments.
    :param label: how messages and the log name the bot (its spec).
    :param memory_limit: the process's address-space limit in MiB (``RLIMIT_AS``), or ``None``.
    """

    def __init__(self, argv: Sequence[str], *, label: str, memory_limit: int | None = None) -> None:
        self.argv = list(argv)
        self.label = label
        self.memory_limit = memory_limit
        self.process: subprocess.Popen | None = None
        self._buffer = bytearray()
        self._stderr_lines: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES_KEPT)
        self._stderr_partial = b""
        self._stderr_logged = 0
        self._stderr_dropped = 0
        self._selector: selectors.BaseSelector | None = None
        self._exit: _ExitWatch | None = None
        self.outstayed = False
        """Whether it was still running when its time to exit after ``quit`` ran out (and so was killed)."""
        self.left_processes = False
        """Whether it exited leaving processes it started running, or started processes that left its group (they
        were killed)."""
        self.mark = new_mark()
        """The mark in its environment, inherited by what it starts (:mod:`~canasta_sim.plugins.bot_marks`)."""

    # ------------------------------------------------------------------------------------------ life

    def start(self) -> None:
        """Start the process.

        :raises SeatFailure: (``crash``) when it cannot be started.
        :raises MachineRefusal: when the machine refuses it a process, a thread or a pipe (its limit, named).
        """
        limit = self.memory_limit
        prctl = libc_prctl()
        parent = os.getpid()

        def prepare() -> None:  # in the child, before the bot starts
            if prctl is not None:
                prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
                if os.getppid() != parent:  # the parent died before the line above
                    os._exit(1)
            if limit is not None:
                _limit_memory(limit)

        popen = functools.partial(
            subprocess.Popen,
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env={**os.environ, MARK_VARIABLE: self.mark},
            preexec_fn=None if prctl is None and limit is None else prepare,
            process_group=0,  # its own group: see the module's note
        )
        try:
            # The kernel's signal follows the thread that started the child: from another thread than the main one
            # (a Dask worker's pool thread, which may end while its bots serve others), a thread that lives as long as
            # this process starts it.
            self.process = (popen() if threading.current_thread() is threading.main_thread()
                            else _starter().submit(popen).result())
        except (OSError, RuntimeError) as error:  # a thread the starter could not start is a RuntimeError
            self._refused(error)
            raise SeatFailure(f"bot {self.label!r} could not be started: {error}", reason="crash") from None
        place_bot(self.process)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            os.set_blocking(stream.fileno(), False)
        try:
            self._selector = selectors.DefaultSelector()  # one more file: the last a low ulimit -n may refuse
        except OSError as error:
            self.kill()
            self._refused(error)
            raise
        self._selector.register(self.process.stdout, selectors.EVENT_READ, "out")
        self._selector.register(self.process.stderr, selectors.EVENT_READ, "err")
        # Its exit, seen as it happens: a process it started that left its group may hold its stdout open, and then
        # the end of its output never comes.
        self._exit = _ExitWatch.of(self.process.pid)
        if self._exit is not None:
            self._selector.register(self._exit, selectors.EVENT_READ, "exit")

    def _refused(self, error: BaseException) -> None:
        """Raise :class:`~canasta_sim.errors.MachineRefusal` when ``error`` is the machine refusing the bot a process,
        a thread, a pipe or memory (its limit, which no bot should be charged with); raise ``error`` itself when it is
        a ``RuntimeError`` of another kind."""
        refused = machine_refused(f"a process of bot {self.label!r}", error)
        if refused is not None:
            raise MachineRefusal(f"{refused}; the machine's limit, not the bot's failure",
                                 of_processes=refuses_processes(error)) from None
        if isinstance(error, RuntimeError):
            raise error

    @property
    def running(self) -> bool:
        """Whether the process has been started and has not been closed or seen to exit."""
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kill the process and every process of its group at once, and release its pipes."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            _kill_group(process.pid)
            process.kill()  # itself too, should it have left its group
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # a process stuck in the kernel: leave it to the system
                logger.warning("bot %r (pid %d) did not die after SIGKILL", self.label, process.pid)
        elif _kill_group(process.pid):  # it exited, leaving processes it started running in its group
            self.left_processes = True
        if end_marked(self.mark):  # what it started out of its group's reach (a daemon) goes with it too
            self.left_processes = True
        if self.left_processes:
            logger.info("bot %r left processes it started running; they were killed (canasta-sim docs protocol, "
                           "Endings)", self.label)
        self._drain_stderr()
        self._release()

    def close(self, farewell: bytes = b"") -> None:
        """Write ``farewell`` (the quit message), give the bot a moment to exit, then kill it."""
        self.say_farewell(farewell)
        self.finish(time.monotonic() + _STOP_GRACE)

    def say_farewell(self, farewell: bytes) -> None:
        """Write ``farewell`` (the quit message) if the bot still runs, and close its input."""
        process = self.process
        if process is None:
            return
        if farewell and process.poll() is None:
            try:
                os.write(process.stdin.fileno(), farewell)
            except OSError:
                pass  # it is going anyway
        try:
            process.stdin.close()
        except OSError:
            pass

    def finish(self, deadline: float) -> None:
        """Wait until ``deadline`` for the bot to exit (after :meth:`say_farewell`), then kill it."""
        process = self.process
        if process is None:
            return
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.outstayed = True
        self.kill()

    def _release(self) -> None:
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if self._exit is not None:
            self._exit.close()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self._flush_stderr_line()
        self.process = None

    # ------------------------------------------------------------------------------------------ I/O

    def write(self, data: bytes, deadline: float | None) -> None:
        """Write all of ``data`` by ``deadline`` (a :func:`time.monotonic` value, or ``None``).

        :raises SeatFailure: ``crash`` when the bot has exited, ``timeout`` past the deadline.
        """
        fd = self.process.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise self._crashed("closed its input") from None
            view = view[written:]
            if view:
                self._wait(deadline, writing=True)

    def read_line(self, deadline: float | None) -> bytes:
        """Return the next line the bot writes (without its newline), waiting at most until ``deadline``.

        :raises SeatFailure: ``timeout`` past the deadline (the process is killed first), ``crash`` when
            the process exits or closes its output first.
        """
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                # A line read whole in one go is held to the limit as well as one still arriving: which of the two
                # it is depends on how fast the bot wrote it, and the failure must not.
                if end > _LINE_LIMIT:
                    raise self._too_long()
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                return line
            if len(buffer) > _LINE_LIMIT:
                raise self._too_long()
            self._wait(deadline, writing=False)

    def _too_long(self) -> SeatFailure:
        return SeatFailure(f"wrote a line longer than {_LINE_LIMIT} bytes{self.stderr_tail()}", reason="malformed")

    # --------------------------------------------------------------- for a reader waiting on many bots

    @property
    def streams(self) -> tuple:
        """The bot's stdout and stderr (and what says it exited, where the system tells), for a selector waiting on
        several bots at once."""
        if self._exit is None:
            return (self.process.stdout, self.process.stderr)
        return (self.process.stdout, self.process.stderr, self._exit)

    def has_line(self) -> bool:
        """Whether a complete line the bot wrote is waiting to be taken."""
        return b"\n" in self._buffer

    def buffered_line(self) -> bytes | None:
        """The next complete line already read from the bot, or ``None`` (never waits)."""
        buffer = self._buffer
        end = buffer.find(b"\n")
        if end < 0:
            if len(buffer) > _LINE_LIMIT:
                raise self._too_long()
            return None
        if end > _LINE_LIMIT:  # read whole, as in read_line
            raise self._too_long()
        line = bytes(buffer[:end])
        del buffer[: end + 1]
        return line

    def buffered_lines(self) -> list[bytes]:
        """Every complete line already read from the bot, in order, taken out together (empty when none; never waits):
        one call for the answers of a whole write, where :meth:`buffered_line` is one a line.  A line past the limit is
        refused when it comes next, as there.
        """
        buffer = self._buffer
        end = buffer.rfind(b"\n")
        if end > _LINE_LIMIT:  # the lines together past the limit: one at a time, each held to it
            return [self.buffered_line()]
        if end < 0:
            if len(buffer) > _LINE_LIMIT:
                raise self._too_long()
            return []
        lines = bytes(buffer[:end]).split(b"\n")
        del buffer[: end + 1]
        return lines

    def unread(self, lines: list[bytes]) -> None:
        """Put ``lines`` (taken by :meth:`buffered_lines`, not handed on) back in front of what is still to be taken."""
        self._buffer[:0] = b"".join(line + b"\n" for line in lines)

    def take_output(self, stream) -> bool:
        """Take in what ``stream`` (one of :attr:`streams`, found readable) holds; ``False`` once stderr
        has ended (stop watching it).

        :raises SeatFailure: ``crash`` when the bot closed its output.
        """
        if stream is self._exit:
            self._exited()
            return True
        chunk = _read(stream)
        if stream is self.process.stdout:
            if chunk == b"":
                raise self._crashed("closed its output")
            if chunk is not None:
                self._buffer += chunk
            return True
        if chunk:
            self._take_stderr(chunk)
        return chunk != b""

    def timed_out(self) -> SeatFailure:
        """Kill the bot, which did not answer by its deadline, and return the seat's ``timeout`` failure."""
        return self._timed_out()

    def _wait(self, deadline: float | None, *, writing: bool) -> None:
        """Wait for output (or room to write) and take in whatever the bot wrote meanwhile."""
        selector = self._selector
        if writing:
            selector.register(self.process.stdin, selectors.EVENT_WRITE, "in")
        try:
            # Past the deadline, what the bot wrote in time still counts: one look without waiting.
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            events = selector.select(timeout)
            if not events:
                raise self._timed_out()
            for key, _ in events:
                if key.data == "out":
                    chunk = _read(key.fileobj)
                    if chunk == b"":
                        raise self._crashed("closed its output")
                    if chunk is not None:
                        self._buffer += chunk
                elif key.data == "err":
                    chunk = _read(key.fileobj)
                    if chunk:
                        self._take_stderr(chunk)
                    elif chunk == b"":
                        selector.unregister(key.fileobj)
                elif key.data == "exit":
                    self._exited()
                # "in": room to write, which the caller's next write takes
        finally:
            if writing and self._selector is not None:
                self._selector.unregister(self.process.stdin)

    def _exited(self) -> None:
        """The process has exited: take what it wrote before it went (its answers count, and the exit is seen again at
        the next wait), or, with nothing left to read, fail as the end of its output would."""
        chunk = _read(self.process.stdout)
        if chunk:
            self._buffer += chunk
            return
        if b"\n" in self._buffer:  # its output was read in the same wait, before its exit was seen: its lines count
            return
        raise self._crashed("exited" if chunk is None else "closed its output")

    # ------------------------------------------------------------------------------------------ failures

    def _timed_out(self) -> SeatFailure:
        logger.info("bot %r (pid %d) did not answer in time and was killed", self.label, self.process.pid)
        self.kill()
        return SeatFailure(f"its bot process did not answer in time and was killed{self.stderr_tail()}",
                           reason="timeout")

    def _crashed(self, what: str) -> SeatFailure:
        process = self.process
        pid = process.pid
        try:
            code = process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        # What it wrote before it went is still its answers (found lost at a write, they are not read yet): kept, so
        # that its loss is charged to the request it did not answer.
        while chunk := _read(process.stdout):
            self._buffer += chunk
        self.kill()
        if code is None:
            status = "still running, killed"
        elif code < 0:
            status = f"killed by signal {-code}"
        else:
            status = f"exit status {code}"
        # The message goes into the run's tables, which must read the same in every run of the same games: no process
        # id, nor whether the loss was found at a write or a read.  The log keeps both.
        logger.info("bot %r (pid %d) %s (%s)", self.label, pid, what, status)
        return SeatFailure(f"its bot process ended ({status}){self.stderr_tail()}", reason="crash")

    def stderr_tail(self) -> str:
        """The bot's last stderr lines, as a suffix for failure messages (empty when it wrote none)."""
        lines = list(self._stderr_lines)
        if self._stderr_partial:
            lines.append(self._stderr_partial.decode(errors="replace"))
        if not lines:
            return ""
        return "; its last stderr lines: " + " | ".join(line.rstrip() for line in lines[-5:])

    # ------------------------------------------------------------------------------------------ stderr

    def _drain_stderr(self) -> None:
        process = self.process
        if process is None or process.stderr.closed:
            return
        while True:
            chunk = _read(process.stderr)
            if not chunk:
                return
            self._take_stderr(chunk)

    def _take_stderr(self, chunk: bytes) -> None:
        data = self._stderr_partial + chunk
        *lines, self._stderr_partial = data.split(b"\n")
        if len(self._stderr_partial) > 4096:  # a line without end: its first 4 KiB are a line, the rest is dropped
            lines.append(self._stderr_partial[:4096])
            self._stderr_partial = b""
        for raw in lines:
            self._log_stderr(raw)

    def _flush_stderr_line(self) -> None:
        if self._stderr_partial:
            self._log_stderr(self._stderr_partial)
            self._stderr_partial = b""
        if self._stderr_dropped:
            logger.info("bot %r: %d further bytes of stderr not logged (the limit is %d KiB per bot process)",
                        self.label, self._stderr_dropped, STDERR_LOG_LIMIT // 1024)
            self._stderr_dropped = 0

    def _log_stderr(self, raw: bytes) -> None:
        line = raw.decode(errors="replace")
        self._stderr_lines.append(line)
        size = len(raw) + 1  # the cap is in bytes, as written: a line of accented text counts twice its characters
        if not self._stderr_dropped and self._stderr_logged + size <= STDERR_LOG_LIMIT:
            self._stderr_logged += size
            logger.info("bot %r stderr: %s", self.label, line)
            return
        if not self._stderr_dropped:
            # Said when it happens, not only when the process ends: a protocol-2 bot may live for a whole run, and a
            # log that simply stops reads as a bot that stopped writing.
            logger.info("bot %r: its stderr reached the log's limit of %d KiB per bot process; the rest is counted, "
                        "not logged", self.label, STDERR_LOG_LIMIT // 1024)
        self._stderr_dropped += size


class _ExitWatch:
    """A process's pidfd (Linux 5.3 and later), readable once the process has exited, as a selector watches a file."""

    __slots__ = ("fd", "closed")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.closed = False

    @classmethod
    def of(cls, pid: int) -> _ExitWatch | None:
        """The watch of process ``pid``; ``None`` where the system offers none (then its output's end is awaited)."""
        try:
            return cls(os.pidfd_open(pid))
        except (AttributeError, OSError):
            return None

    def fileno(self) -> int:
        """The pidfd."""
        return self.fd

    def close(self) -> None:
        """Close the pidfd (once)."""
        if not self.closed:
            self.closed = True
            os.close(self.fd)


def _read(stream) -> bytes | None:
    """Read what is there: bytes, ``b''`` at end of file, ``None`` when nothing is ready after all."""
    try:
        return os.read(stream.fileno(), 65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _kill_group(group: int) -> bool:
    """Kill every process of the process group ``group``; whether it had any."""
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user: it left the bot's reach, as no bot should
        logger.warning("a process of bot process group %d could not be killed", group)
    return True


_STARTER: tuple[int, concurrent.futures.ThreadPoolExecutor] | None = None
_STARTER_LOCK = threading.Lock()


def _starter() -> concurrent.futures.ThreadPoolExecutor:
    """This process's bot starter: one thread that lives as long as the process, which starts the bots other threads
    than the main one ask for (a forked child makes its own: its parent's thread did not come with it)."""
    global _STARTER
    with _STARTER_LOCK:
        if _STARTER is None or _STARTER[0] != os.getpid():
            _STARTER = (os.getpid(), concurrent.futures.ThreadPoolExecutor(1, "canasta-sim-bot-starter"))
        return _STARTER[1]


def libc_prctl():
    """libc's ``prctl``, looked up before forking (``None`` where there is none: not Linux): a bot process and a run's
    worker ask the kernel through it to be killed with their parent (``PR_SET_PDEATHSIG``)."""
    if not sys.platform.startswith("linux"):  # (Windows has no libc to open by no name: CDLL(None) raises TypeError)
        return None
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl
    return None


def _limit_memory(megabytes: int) -> None:
    """In the child, before the bot starts: cap its address space (a bot past it fails to allocate)."""
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
