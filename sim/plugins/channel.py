"""Games sharing bot processes: each game's seat talks to its process through an :class:`Endpoint`.

A protocol-2 bot process plays up to ``games`` games at once (``docs/protocol.md``): every message names
its game, and a :class:`SharedBot` routes the bot's answers to the game they name.  A protocol-1 process
is a :class:`SharedBot` of one game whose messages name none.

Two ways to wait for an answer:

* alone (no :class:`Hub` running): the request is written at once and the caller reads the bot's output
  until its answer comes, as a single game always did;
* under a :class:`Hub`: each game is a greenlet; a request queues its message and gives way to the hub,
  which runs the other games up to their own requests, writes every process's queued messages in one
  write, and hands each answer back to the game it names.  K games then cost one exchange of messages
  where they cost K, and a game waits only while the bots think.

Failures stay each game's own: an answer is charged to the game it names; a process that dies, hangs or
writes something outside the protocol is charged to the game whose answer it owed first (it answers in
the order it was asked), and each other game it was playing is played again from its start on a new process
(:data:`REPLAYS` times at most; a game lost once more loses its seat with a ``crash`` naming the game that
cost it), so that one game's failure costs no other game and the tables do not depend on how many games were
at once.  A line the bot writes for a game that has ended since (a late answer to an interrupted request) is
dropped.

Time is each request's own.  A process answers the requests written to it in turn, so a request's clock starts when
it is written or when the process has answered every request written to it before, whichever is later
(:meth:`SharedBot.deadline`): each decision has the whole time limit however many games the process plays at once,
and a bot that answers out of turn gains no time, since the clock of the oldest request it owes runs on.
"""

from __future__ import annotations

import collections
import selectors
import time
from collections.abc import Callable, Iterator
from typing import Any

import greenlet
import orjson

from canasta_sim.errors import SeatFailure
from canasta_sim.plugins.kept_state import note_claim
from canasta_sim.plugins.process import BotProcess
from canasta_sim.plugins.protocol import ProtocolError, decode, encode, unawaited_problem

__all__ = ["REPLAYS", "Endpoint", "Hub", "SharedBot", "current_hub"]

_HUB: Hub | None = None

REPLAYS = 100
"""Times a game is played again from its start after another game cost it its bot process.  Each loss is charged to
one game, which then ends, so replays end without it; the bound only keeps a process that keeps dying unseen from
costing a game without end.  A game lost once more is charged as before."""


def current_hub() -> Hub | None:
    """The hub interleaving games in this thread, or ``None`` when games are played one at a time."""
    hub = _HUB
    return hub if hub is not None and hub.thread_greenlet is greenlet.getcurrent().parent else None


class SharedBot:
    """One bot process and the games it serves.

    :param tagged: whether messages name their game (protocol 2); a protocol-1 process serves one game.
    :param capacity: how many games it plays at once (1 under protocol 1).
    """

    def __init__(self, bot: BotProcess, *, tagged: bool, capacity: int) -> None:
        self.bot = bot
        self.tagged = tagged
        self.capacity = capacity if tagged else 1
        self.open: dict[int, Endpoint] = {}
        self.awaiting: dict[int, Endpoint] = {}
        """Games waiting for an answer, oldest request first."""
        self.outgoing: list[bytes] = []
        self.starting: list[Endpoint] = []
        """Games whose new request's clock starts with the next write."""
        self.closed: set[int] = set()
        self.failure: SeatFailure | None = None
        self.culprit: Endpoint | None = None
        """The game charged with the process's loss; the others it was playing lost it through no fault of theirs."""
        self.owed: collections.deque[Endpoint] = collections.deque()
        """The games whose requests the process has not answered, in the order written: it answers them in turn."""
        self.head_since = 0.0
        """When the process last answered the oldest request it owed: the clock of the request after it started then."""
        self._next_tag = 0

    @property
    def running(self) -> bool:
        """Whether the process still serves games."""
        return self.failure is None and self.bot.running

    @property
    def has_room(self) -> bool:
        """Whether it may take another game."""
        return self.running and len(self.open) < self.capacity

    def deadline(self) -> float | None:
        """When the process must answer the oldest request it owes: the game's time limit after the request was
        written or after the process answered the request before it, whichever is later; ``None`` while it owes
        none, or the request is not written yet."""
        owed = self.owed
        if not owed or owed[0].deadline is None:
            return None
        head = owed[0]
        return max(head.deadline, self.head_since + head.seconds)

    def endpoint(self) -> Endpoint:
        """A new game's endpoint on this process."""
        tag = self._next_tag
        self._next_tag += 1
        endpoint = self.open[tag] = Endpoint(self, tag)
        return endpoint

    def flush(self) -> None:
        """Write every queued message in one write (a dead process is charged to its waiting games)."""
        try:
            self.write_queued()
        except SeatFailure as failure:
            self.lost(failure)

    def write_queued(self, deadline: float | None = None) -> None:
        """Write every queued message in one write by ``deadline`` (default: a minute from now), starting the clock
        of each request among them.

        :raises SeatFailure: ``crash`` when the process has gone, ``timeout`` past the deadline (it is killed).
        """
        now = time.monotonic()
        for endpoint in self.starting:
            if endpoint.deadline is None:
                endpoint.deadline = now + endpoint.seconds
        self.starting.clear()
        if not self.outgoing:
            return
        data = b"".join(self.outgoing)
        self.outgoing.clear()
        if self.failure is not None or self.bot.process is None:
            return
        self.bot.write(data, now + _WRITE_SECONDS if deadline is None else deadline)

    def lost(self, failure: SeatFailure) -> None:
        """The process was found gone (at a write or a read): its answers read but not yet handed on go to their games
        first, so that the loss is charged to the game whose answer it did not write."""
        while self.failure is None:
            try:
                line = self.bot.buffered_line()
            except SeatFailure:  # a line past the limit: nothing more to hand on
                break
            if line is None:
                break
            self.dispatch(line)
        self.die(failure)

    def die(self, failure: SeatFailure, culprit: Endpoint | None = None) -> None:
        """The process is lost: kill it; ``culprit`` (default: the game it owed an answer first) is charged
        with ``failure``, each other waiting game with a ``crash`` naming it, and marked :attr:`Endpoint.lost` (a hub
        plays it again).  A culprit not waiting for an answer is charged at its next request."""
        self.bot.kill()
        waiting = list(self.awaiting.values())
        self.awaiting.clear()
        if culprit is None:  # the game whose request it owes first
            culprit = self.owed[0] if self.owed else waiting[0] if waiting else None
        self.owed.clear()
        if self.failure is None:
            self.failure = failure
            self.culprit = culprit
        if culprit is not None and culprit not in waiting:
            culprit.failure = failure
        hub = _HUB
        for endpoint in waiting:
            if endpoint is culprit:
                error = failure
            else:
                endpoint.lost = True
                error = SeatFailure(f"its bot process, shared with another game, was lost there: {failure}",
                                    reason="crash")
            if hub is not None and endpoint.waiter is not None:
                hub.resume(endpoint, error)
            else:
                endpoint.failure = error

    def dispatch(self, line: bytes) -> None:
        """Hand one line the bot wrote to the game it answers."""
        named = None
        try:
            # decode written out, a Python call fewer an answer; it reads a line again only to say what is wrong.
            try:
                message = orjson.loads(line)
            except ValueError:  # orjson's JSONDecodeError, and a line that is no UTF-8
                message = None
            if type(message) is not dict or type(message.get("type")) is not str:
                message = decode(line)
            if self.tagged:
                tag = message.get("game")
                if type(tag) is not int:  # false and 0.0 would find game 0 by their equal hashes, true game 1
                    raise ProtocolError(unawaited_problem(line, message, self.open))
                if tag in self.closed:
                    return  # a late answer for a game that ended meanwhile
                endpoint = self.awaiting.pop(tag, None)
                if endpoint is None:
                    # A second answer, or a question after the answer: the game it names broke the protocol, not the
                    # game the process owes an answer first.
                    named = self.open.get(tag)
                    raise ProtocolError(unawaited_problem(line, message, self.open))
            else:
                if not self.awaiting:  # one game, asked one request at a time: a line when none is due answers nothing
                    named = next(iter(self.open.values()), None)
                    raise ProtocolError(f"the message {line[:120].decode(errors='replace')!r} came when no answer "
                                        "was due (a request has one answer)")
                tag, endpoint = self.awaiting.popitem()
        except ProtocolError as error:
            self.die(SeatFailure(f"the bot wrote something outside the protocol: {error}{self.bot.stderr_tail()}",
                                 reason="malformed"), named)
            return
        if "kept" in message:  # a claim, never a charge: warned of as a change seen in-process (docs/protocol.md)
            note_claim(self.bot.label, message["kept"])
        if message.get("type") not in _WITHIN_REQUEST:  # an answer (or an error): the request is over
            owed = self.owed
            if owed and owed[0] is endpoint:
                owed.popleft()
                self.head_since = time.monotonic()  # the clock of the request written after it starts now
            elif endpoint in owed:
                owed.remove(endpoint)  # answered out of turn: the clock of the oldest request runs on
        hub = _HUB
        if hub is not None and endpoint.waiter is not None:
            hub.runnable.append((endpoint.waiter, message))  # Hub.resume, written out: every answer comes here
        else:
            endpoint.reply = message


_WRITE_SECONDS = 60.0  # a bot that takes no input for this long has stopped reading: a timeout
_WITHIN_REQUEST = frozenset({"check", "view"})  # what a bot asks within a request, which goes on after the reply
_CLOSED_KEPT = 4096  # ended games whose late answers are still recognised (and dropped)


class Endpoint:
    """One game's seat on a :class:`SharedBot`."""

    __slots__ = ("shared", "tag", "seconds", "deadline", "waiter", "reply", "failure", "started", "lost")

    def __init__(self, shared: SharedBot, tag: int) -> None:
        self.shared = shared
        self.tag = tag
        self.seconds = 0.0
        self.deadline: float | None = None
        self.waiter: Any = None
        self.reply: dict[str, Any] | None = None
        self.failure: SeatFailure | None = None
        self.started = False
        """Whether the bot was sent this game's ``game`` message: only then does it hear of its end (a game lost before
        its first message was written, its partner's process dead, is none of the bot's business)."""
        self.lost = False
        """Whether the game lost its seat's process to another game's failure (the hub then plays it again)."""

    def tagged(self, message: dict[str, Any]) -> bytes:
        """``message`` encoded, naming this game when the process plays several."""
        if self.shared.tagged:
            message["game"] = self.tag
        return encode(message)

    def send(self, data: bytes) -> None:
        """Queue ``data``, written with the next request (or when the hub next writes)."""
        self.shared.outgoing.append(data)
        if current_hub() is None:
            self.shared.flush()

    def exchange(self, data: bytes, seconds: float, *, fresh: bool) -> dict[str, Any]:
        """Write ``data`` and return the bot's next message for this game.

        :param seconds: the time the bot has to answer, counted from when the request is written.
        :param fresh: a new request (its clock starts now); ``False`` for a further exchange within one
            request (the answer to a ``check`` or a ``view``), written at once, which keeps the request's deadline.
        :raises SeatFailure: the seat's failure (``timeout``, ``crash``, ``malformed``).
        """
        shared = self.shared
        if self.failure is not None:  # charged while it waited for none (SharedBot.die)
            return self._take()
        if shared.failure is not None or shared.bot.process is None:
            if shared.culprit is not None and shared.culprit is not self:
                self.lost = True
            raise SeatFailure(f"the bot process is no longer running{_cause(shared)}", reason="crash")
        if fresh:
            self.seconds = seconds
            self.deadline = None
            shared.owed.append(self)
            shared.starting.append(self)
            if data:
                shared.outgoing.append(data)
        elif data and self._serve(data):
            return self._take()
        shared.awaiting[self.tag] = self
        hub = _HUB
        if hub is None:
            return self._wait_alone()
        game = greenlet.getcurrent()
        if hub.thread_greenlet is not game.parent:  # current_hub(), a call fewer
            return self._wait_alone()
        # Give way to the hub until the answer arrives: it resumes this game with the answer, or the failure to raise
        # (written here, not in a method of the hub's: a Python call fewer a request).
        if shared not in hub.bots:
            hub.bots.append(shared)
        self.waiter = game
        try:
            result = hub.thread_greenlet.switch()
        finally:
            self.waiter = None
        if isinstance(result, BaseException):
            raise result
        return result

    def _serve(self, data: bytes) -> bool:
        """Write ``data``, what the bot asked for within its request (a check, a view), at once and on the request's
        time; ``True`` when that ended the process (the seat's failure, or an answer it wrote before it went, is
        then waiting in :meth:`_take`).

        The request's time covers what the bot asks meanwhile (docs/protocol.md): one that keeps asking, or stops
        reading the answers, is out of time as a slow one is, and is not waited for past it.
        """
        shared = self.shared
        shared.outgoing.append(data)
        deadline = shared.deadline()
        if self.deadline is None or deadline is None:  # its request not written yet, so its clock not started
            return False
        if time.monotonic() >= deadline:
            shared.outgoing.clear()  # nothing more goes to a process being killed
            failure = shared.bot.timed_out()
        else:
            try:
                shared.write_queued(deadline)
                return False
            except SeatFailure as error:
                failure = error
        if failure.reason == "timeout":
            # Charged to the game the process owes first: this one, unless the bot asks out of turn.  One waiting for
            # no answer (this one) is charged at its next request (SharedBot.die).
            shared.die(failure)
        else:  # found gone: its answers already read go to their games first, as at any write
            shared.awaiting[self.tag] = self
            shared.lost(failure)
        return True

    def _wait_alone(self) -> dict[str, Any]:
        shared = self.shared
        shared.flush()
        bot = shared.bot
        while self.reply is None and self.failure is None:
            if shared.failure is not None:
                raise SeatFailure(f"the bot process is no longer running{_cause(shared)}", reason="crash")
            try:
                line = bot.read_line(self.deadline)
            except SeatFailure as failure:
                shared.die(failure, self)
                continue
            shared.dispatch(line)
        return self._take()

    def _take(self) -> dict[str, Any]:
        reply, failure = self.reply, self.failure
        self.reply = self.failure = None
        if failure is not None:
            raise failure
        return reply

    def kill(self, failure: SeatFailure) -> None:
        """The bot broke the protocol in this game: its process is lost for every game it serves."""
        self.shared.awaiting.pop(self.tag, None)
        self.shared.die(failure, self)

    def close(self) -> None:
        """This game is over for the bot: it hears so (protocol 2) and drops the game."""
        shared = self.shared
        if shared.open.pop(self.tag, None) is None:
            return
        shared.awaiting.pop(self.tag, None)
        if self in shared.owed:  # an abandoned request is owed no more
            shared.owed.remove(self)
        closed = shared.closed
        closed.add(self.tag)
        if len(closed) > _CLOSED_KEPT:  # tags only grow: a late answer can only name a game closed lately
            shared.closed = set(sorted(closed)[_CLOSED_KEPT // 2:])
        if shared.tagged and self.started and shared.running:
            shared.outgoing.append(b'{"type":"game_end","game":%d}\n' % self.tag)

    def stderr_tail(self) -> str:
        """The bot's last stderr lines, for a failure message."""
        return self.shared.bot.stderr_tail()


def _cause(shared: SharedBot) -> str:
    return f" ({shared.failure})" if shared.failure is not None else ""


class Hub:
    """Plays several games at once in one thread, each a greenlet, writing each bot's requests together.

    A game gives way only in a bot's request, which the engine's decision clock does not time (the proxy keeps its
    own, :meth:`SharedBot.deadline`): no clock set in one game can fire in another.
    """

    def __init__(self) -> None:
        self.thread_greenlet: Any = None
        self.runnable: collections.deque = collections.deque()
        self.endpoints: dict[Any, list[Endpoint]] = {}
        self.deferred: dict[Any, list[Callable[[], None]]] = {}
        self.bots: list[SharedBot] = []
        self._selector: selectors.BaseSelector | None = None
        self._watched: dict[Any, SharedBot] = {}

    # ------------------------------------------------------------------------ the games' side

    def resume(self, endpoint: Endpoint, result: Any) -> None:
        """Schedule ``endpoint``'s game to go on with ``result`` (a message, or the failure to raise)."""
        self.runnable.append((endpoint.waiter, result))

    def defer(self, action: Callable[[], None]) -> None:
        """Run ``action`` when the current game ends for good, never when it is played again: an attempt that lost its
        bot process to another game is not the game's result (a failure it logged would be logged again)."""
        self.deferred.setdefault(greenlet.getcurrent(), []).append(action)

    def adopt(self, endpoint: Endpoint) -> None:
        """Close ``endpoint`` when the game playing it (the current greenlet) ends."""
        self.endpoints.setdefault(greenlet.getcurrent(), []).append(endpoint)

    # ------------------------------------------------------------------------ the loop

    def play(self, tasks: Iterator[tuple[Any, Callable[[], Any]]], room: Callable[[int], bool],
             on_switch: Callable[[Any], None], on_done: Callable[[Any, Any], bool]) -> None:
        """Play ``tasks`` (``(key, function)``), at most as many at once as ``room(active)`` allows.

        ``on_switch(key)`` runs before a game goes on; ``on_done(key, (value, error))`` when it ends,
        returning ``False`` to stop: games still under way are then abandoned.
        """
        global _HUB
        if _HUB is not None:
            raise RuntimeError("a hub is already playing in this process")
        _HUB = self
        self.thread_greenlet = greenlet.getcurrent()
        games: dict[Any, tuple[Any, Callable[[], Any]]] = {}  # each game's greenlet: its task, to play it again
        replays: dict[Any, int] = {}
        pending = iter(tasks)
        exhausted = False

        def start(task: tuple[Any, Callable[[], Any]]) -> None:
            game = greenlet.greenlet(_catching(task[1]), parent=self.thread_greenlet)
            games[game] = task
            self.runnable.append((game, None))

        try:
            while True:
                while not exhausted and room(len(games)):
                    task = next(pending, None)
                    if task is None:
                        exhausted = True
                        break
                    start(task)
                if not games:
                    return
                while self.runnable:
                    game, value = self.runnable.popleft()
                    on_switch(games[game][0])
                    result = game.switch(value)
                    if game.dead:
                        endpoints = self.endpoints.pop(game, ())
                        for endpoint in endpoints:
                            endpoint.close()
                        task = games.pop(game)
                        key = task[0]
                        deferred = self.deferred.pop(game, ())
                        if any(endpoint.lost for endpoint in endpoints) and replays.get(key, 0) < REPLAYS:
                            # Another game cost it its bot process: it is played again from its start.
                            replays[key] = replays.get(key, 0) + 1
                            start(task)
                            continue
                        for action in deferred:
                            action()
                        if not on_done(key, result):
                            return
                if games:
                    self._exchange()
        finally:
            _HUB = None
            self.deferred.clear()  # the abandoned games' attempts count for nothing
            for game in list(games):  # abandoned: each hears it is over, and its bots that it ended
                for endpoint in self.endpoints.pop(game, ()):
                    endpoint.close()
                if not game.dead:
                    game.throw(greenlet.GreenletExit)
            for shared in self.bots:
                shared.flush()
            self._close_selector()

    def _exchange(self) -> None:
        """Write every process's queued messages, then wait for answers until some game can go on."""
        bots = self.bots
        for shared in bots:
            shared.flush()
        while not self.runnable:
            waiting = [shared for shared in bots if shared.awaiting]
            if not waiting:
                raise RuntimeError("every game waits, and no bot owes an answer")
            for shared in waiting:
                self._take_lines(shared)
            if self.runnable:
                return
            self._watch(waiting)
            deadline = min((due for due in map(SharedBot.deadline, waiting) if due is not None), default=None)
            # Every request waited for was written by the flush above, so each process has a deadline; the bound only
            # keeps a wait finite if that ever fails.
            wait = _WRITE_SECONDS if deadline is None else max(0.0, deadline - time.monotonic())
            events = self._selector.select(wait)
            for key, _ in events:
                shared = self._watched.get(key.fileobj)
                if shared is None or not shared.awaiting or shared.bot.process is None:
                    continue
                try:
                    if not shared.bot.take_output(key.fileobj):
                        self._unwatch(key.fileobj)
                except SeatFailure as failure:
                    shared.lost(failure)
            now = time.monotonic()
            for shared in waiting:
                if shared.awaiting and shared.bot.process is not None and not shared.bot.has_line():
                    due = shared.deadline()
                    if due is not None and now >= due:
                        shared.die(shared.bot.timed_out())  # charged to the game it owes first

    def _take_lines(self, shared: SharedBot) -> None:
        bot = shared.bot
        while shared.awaiting and bot.process is not None:
            try:
                lines = bot.buffered_lines()  # a write's answers in one call, not one a line
            except SeatFailure as failure:
                shared.die(failure)
                return
            if not lines:
                return
            for index, line in enumerate(lines):
                if not shared.awaiting or bot.process is None:
                    bot.unread(lines[index:])  # put back in order, to be taken when a game awaits them
                    return
                shared.dispatch(line)

    def _watch(self, waiting: list[SharedBot]) -> None:
        if self._selector is None:
            self._selector = selectors.DefaultSelector()
        for stream, shared in list(self._watched.items()):
            if shared.bot.process is None or stream.closed:
                self._unwatch(stream)
        for shared in waiting:
            if shared.bot.process is None:
                continue
            for stream in shared.bot.streams:
                if stream not in self._watched and not stream.closed:
                    self._selector.register(stream, selectors.EVENT_READ)
                    self._watched[stream] = shared

    def _unwatch(self, stream) -> None:
        self._watched.pop(stream, None)
        try:
            self._selector.unregister(stream)
        except (KeyError, ValueError):
            pass  # closed with its process already

    def _close_selector(self) -> None:
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        self._watched.clear()


def _catching(function: Callable[[], Any]) -> Callable[[], tuple[Any, BaseException | None]]:
    def run(*_: Any) -> tuple[Any, BaseException | None]:
        try:
            return function(), None
        except BaseException as error:  # noqa: BLE001 - handed to the caller, which decides what it means
            return None, error

    return run
