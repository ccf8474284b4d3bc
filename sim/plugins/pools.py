"""The bot processes of each loaded bot spec in a process: started, shared between games, ended.

A :class:`BotPool` keeps a loaded ``isolated:`` or ``cmd:`` spec's processes by seat (partners never share one),
the one its handshake started among them; :class:`~canasta_sim.plugins.proxy.ProcessStrategy` takes an
:class:`~canasta_sim.plugins.channel.Endpoint` on one for each game.  :func:`close_all` ends every process this
process started: each hears ``quit``, then has :data:`~canasta_sim.plugins.process.STOP_GRACE` seconds to exit
before it is killed; it runs at exit, and in a forked child (a run's worker, a game of ``check-strategy``) at its
end.
"""

from __future__ import annotations

import atexit
import logging
import os
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from canasta_sim.arbiter import STARTUP_ALLOWANCE
from canasta_sim.errors import MachineRefusal, SeatFailure, StrategyLoadError
from canasta_sim.plugins.bot_marks import tasks_held
from canasta_sim.plugins.channel import Endpoint, SharedBot, current_hub
from canasta_sim.plugins.process import STOP_GRACE, BotProcess, has_memory_limit, no_memory_limit_reason
from canasta_sim.plugins.protocol import ProtocolError, decode, encode, hello_message, parse_ready
from canasta_sim.plugins.specs import is_own_server

if TYPE_CHECKING:
    from canasta_sim.plugins.proxy import ProcessStrategy

__all__ = ["MEMORY_LIMIT_VARIABLE", "BotPool", "close_all", "handshake", "memory_limit"]

MEMORY_LIMIT_VARIABLE = "CANASTA_SIM_BOT_MEMORY_LIMIT_MB"
"""Environment variable holding the address-space limit of every bot process in MiB (``--memory-limit``);
an environment variable so that worker processes inherit it whatever their start method."""

_QUIT = encode({"type": "quit"})

logger = logging.getLogger("canasta_sim.bots")

HOARDING_SHARE = 4
"""A bot holding at least 1/``HOARDING_SHARE`` (a quarter, as its failure says) of its user's processes and threads
when the machine refuses a new bot process for the limit on them is taken to have reached it, and is killed with
them."""


def memory_limit() -> int | None:
    """The bot processes' memory limit in MiB from :data:`MEMORY_LIMIT_VARIABLE`, or ``None``.

    :raises StrategyLoadError: when it is no whole number of MiB, or where no memory can be capped
        (:func:`~canasta_sim.plugins.process.has_memory_limit`: macOS takes the limit and holds no allocation to it),
        rather than bots that look limited and are not, as ``--memory-limit`` is refused there.
    """
    text = os.environ.get(MEMORY_LIMIT_VARIABLE, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise StrategyLoadError(f"{MEMORY_LIMIT_VARIABLE}={text!r} is not a whole number of MiB") from None
    if value < 1:
        raise StrategyLoadError(f"{MEMORY_LIMIT_VARIABLE}={text!r}: a memory limit is at least 1 MiB")
    if not has_memory_limit():
        reason = no_memory_limit_reason("a bot process's memory")
        raise StrategyLoadError(f"{MEMORY_LIMIT_VARIABLE}={text!r}: {reason}; unset it")
    return value


def handshake(bot: BotProcess, argv: Sequence[str]) -> dict:
    """Start ``bot`` and return its ``ready``, read within :data:`~canasta_sim.arbiter.STARTUP_ALLOWANCE` of its start
    (never the decision time limit: a runtime's start-up is no decision).

    :raises SeatFailure: ``crash`` when it cannot start or ends, ``timeout`` (it is killed) when it has not answered
        ``hello`` by the end of the allowance, in words naming the start-up.
    :raises ProtocolError: when its answer is not a ``ready`` this arbiter accepts.
    """
    bot.start()
    deadline = time.monotonic() + STARTUP_ALLOWANCE
    try:
        bot.write(encode(hello_message()), deadline)
        answer = bot.read_line(deadline)
    except SeatFailure as failure:
        if failure.reason != "timeout":
            raise
        raise SeatFailure(f"its bot process did not finish starting (answer hello) within the start-up allowance of "
                          f"{STARTUP_ALLOWANCE:g} s and was killed{bot.stderr_tail()}", reason="timeout") from None
    return parse_ready(decode(answer), own_server=is_own_server(argv))


class BotPool:
    """The processes of one loaded bot spec in this process, by seat (partners never share one), plus
    started spares.  Games played one at a time take a seat's process over from the game before; under a
    :class:`~canasta_sim.plugins.channel.Hub` a protocol-2 process serves up to ``capacity`` games at once."""

    def __init__(self, argv: Sequence[str], label: str, *, tagged: bool = False, capacity: int = 1) -> None:
        self.argv = list(argv)
        self.label = label
        self.tagged = tagged
        self.capacity = capacity
        self.seats: dict[int, list[SharedBot]] = {}
        self.spares: list[BotProcess] = []
        self.pid = os.getpid()
        self.closed = False
        """Set by :meth:`close`: the pool starts no process any more."""
        self.owed: SeatFailure | None = None
        """The failure of a process of this pool killed for the processes it held while no game waited on it, charged
        to the next game to take one of the pool's processes (:func:`_end_hoarder`)."""
        _POOLS.add(self)

    def _forked(self) -> None:
        # A forked worker inherits the parent's pool: those processes are the parent's, never to be shared.
        if self.pid != os.getpid():
            self.seats, self.spares = {}, []
            self.pid = os.getpid()

    def processes(self) -> list[BotProcess]:
        """The running bot processes (for measuring them)."""
        return [shared.bot for bots in self.seats.values() for shared in bots if shared.running]

    def acquire(self, seat: int | None, owner: ProcessStrategy) -> Endpoint:
        """An endpoint for ``owner``'s game on a running process of ``seat`` (``None``: a process of its
        own, closed with ``owner``)."""
        self._forked()
        owed, self.owed = self.owed, None
        if owed is not None:
            raise owed
        if seat is None:
            shared = self._fresh()
            weakref.finalize(owner, _close, shared)
            return shared.endpoint()
        hub = current_hub()
        bots = self.seats.setdefault(seat, [])
        bots[:] = [shared for shared in bots if shared.running]
        if hub is None:
            # One game at a time: the seat's process leaves the game before for this one.
            shared = bots[0] if bots else None
            if shared is None:
                shared = self._fresh()
                bots.append(shared)
            for endpoint in list(shared.open.values()):
                endpoint.close()
            return shared.endpoint()
        shared = next((shared for shared in bots if shared.has_room), None)
        if shared is None:
            shared = self._fresh()
            bots.append(shared)
        endpoint = shared.endpoint()
        hub.adopt(endpoint)
        return endpoint

    def _fresh(self) -> SharedBot:
        if self.closed:
            # A Dask task plays on after its run ended (Dask cannot stop it): its games need no bot any more.
            raise SeatFailure(f"the processes of bot {self.label!r} were ended with its run", reason="crash")
        while self.spares:
            bot = self.spares.pop()
            if bot.running:
                return SharedBot(bot, tagged=self.tagged, capacity=self.capacity)
        try:
            bot = self._started()
        except MachineRefusal as refusal:
            # A bot that starts processes without end reaches the limit on them, and then it is the next process
            # anyone starts that is refused: the one holding them is killed and charged, and the start tried again.
            if not refusal.of_processes or not (_end_hoarder() or _freeing()):
                raise
            bot = _once_freed(self._started)
        return SharedBot(bot, tagged=self.tagged, capacity=self.capacity)

    def _started(self) -> BotProcess:
        bot = BotProcess(self.argv, label=self.label, memory_limit=memory_limit())
        try:
            handshake(bot, self.argv)
        except ProtocolError as error:
            bot.kill()
            raise SeatFailure(f"a new process of bot {self.label!r} failed its handshake: {error}",
                              reason="malformed") from None
        return bot

    def close(self) -> None:
        """End every process of this pool as :func:`close_all` ends them, for good: a game that asks for one
        afterwards fails (a Dask worker, at the end of the run that started them)."""
        self.closed = True
        _say_farewells(self.detach())

    def release(self) -> None:
        """End every process of this pool now, as :func:`close_all` ends them, the spare its handshake left included;
        unlike :meth:`close`, a later game starts new ones (an environment's ``close``, before a ``reset`` perhaps)."""
        _say_farewells(self.detach())

    def detach(self) -> list[BotProcess]:
        """Every process of this pool, told of the end of its games and taken from the pool."""
        if self.pid != os.getpid():
            return []
        bots = list(self.spares)
        for shared_bots in self.seats.values():
            for shared in shared_bots:
                for endpoint in list(shared.open.values()):
                    endpoint.close()
                shared.flush()
                bots.append(shared.bot)
        self.seats.clear()
        self.spares.clear()
        return bots


_FREEING_SECONDS = 3.0
"""How long a start is tried again after a hoarding bot was killed: its processes hold their places under the limit
until whoever adopted them reaps them, which is not at once (a container's first process took up to a second)."""

_LAST_HOARDER_ENDED = -_FREEING_SECONDS


def _freeing() -> bool:
    """Whether the processes of a hoarding bot killed lately may still hold their places under the limit."""
    return time.monotonic() - _LAST_HOARDER_ENDED < _FREEING_SECONDS


def _once_freed(start: Callable[[], BotProcess]) -> BotProcess:
    deadline = time.monotonic() + _FREEING_SECONDS
    while True:
        try:
            return start()
        except MachineRefusal as refusal:
            if not refusal.of_processes or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def _end_hoarder() -> bool:
    """Kill the bot process of this process holding the most of its user's processes and threads, with them, if it
    holds at least 1/:data:`HOARDING_SHARE` of them, and charge it: to the game waiting on it, or else to the next game
    of its pool; whether there was one."""
    holders: dict[str, tuple[BotPool, SharedBot | BotProcess]] = {}
    for pool in list(_POOLS):
        if pool.pid != os.getpid():
            continue
        holders.update((bot.mark, (pool, bot)) for bot in pool.spares if bot.running)
        holders.update((shared.bot.mark, (pool, shared))
                       for bots in pool.seats.values() for shared in bots if shared.running)
    if not holders:
        return False
    held, total = tasks_held(holders)
    mark = max(held, key=held.__getitem__)
    if held[mark] * HOARDING_SHARE < total:
        return False
    pool, holder = holders[mark]
    global _LAST_HOARDER_ENDED
    _LAST_HOARDER_ENDED = time.monotonic()
    logger.warning("bot %r held %d of its user's %d processes and threads when the machine refused a new bot process; "
                   "it was killed with them", pool.label, held[mark], total)
    # No count in the message: it goes into the run's tables, which read the same in every run of the same games.
    failure = SeatFailure("its bot process was killed with the processes it started: they held a quarter or more of "
                          "its user's processes and threads when the machine refused a new bot process (ulimit -u, or "
                          "the container's pids limit)", reason="crash")
    if isinstance(holder, BotProcess):
        holder.kill()
        pool.owed = failure
    else:
        holder.die(failure)
        if holder.culprit is None:
            pool.owed = failure
    return True


def _close(shared: SharedBot) -> None:
    for endpoint in list(shared.open.values()):
        endpoint.close()
    shared.flush()
    shared.bot.close(_QUIT)


def _say_farewells(bots: list[BotProcess]) -> None:
    # Every process hears quit at once and they share one grace period: a worker ending with many bots
    # must not take a grace period per bot (its supervisor kills a worker that takes too long to end).
    for bot in bots:
        bot.say_farewell(_QUIT)
    deadline = time.monotonic() + STOP_GRACE
    for bot in bots:
        bot.finish(deadline)


_POOLS: weakref.WeakSet[BotPool] = weakref.WeakSet()


def close_all() -> list[BotProcess]:
    """Close every bot process this process started (at exit, and at a worker's end): each hears ``quit``,
    then has :data:`~canasta_sim.plugins.process.STOP_GRACE` seconds to exit before it and whatever it started
    are killed.  Returns them, ended (``check-strategy`` reads how)."""
    bots = [bot for pool in list(_POOLS) for bot in pool.detach()]
    _say_farewells(bots)
    return bots


atexit.register(close_all)
try:  # multiprocessing's children end without running atexit handlers; their finalizers do run
    from multiprocessing import util as _multiprocessing_util

    _multiprocessing_util.Finalize(None, close_all, exitpriority=50)
    # A forked child starts with no finalizers: each registers its own (check-strategy's games, a run's workers).
    _multiprocessing_util.register_after_fork(
        close_all, lambda _: _multiprocessing_util.Finalize(None, close_all, exitpriority=50))
except ImportError:  # pragma: no cover - a Python without multiprocessing
    pass
