"""Strategies in their own processes: the ``isolated:SPEC`` and ``cmd:COMMAND`` spec forms.

A :class:`ProcessStrategy` is a :class:`~canasta_sim.core.strategy.Strategy` whose decisions are answered
by a bot process speaking the protocol of ``docs/protocol.md`` (messages in :mod:`canasta_sim.plugins.protocol`,
the process in :mod:`canasta_sim.plugins.process`), so the engine and the runner need no special path:

* ``isolated:SPEC`` runs any Python strategy spec (``expert``, ``bots/my_bot.py:MyBot:depth=2``) in
  ``python -m canasta_sim.plugins.server``, a process of its own that sees only its seat's messages;
* ``cmd:COMMAND ARGS[:KEY=VALUE,...]`` runs any executable speaking the protocol, e.g.
  ``cmd:node examples/protocol/bot.js``.

Each seat gets a process of its own (partners never share one), kept for the seat's next games in the
same worker; a new ``game`` message gives the bot a fresh player seeded with the seat's seed, so a
process's history never changes a game.  A process that fails (timeout, crash, output outside the
protocol) is killed, and the seat's next game starts a new one.  Hooks (hand start, events, hand end)
are queued and written with the next decision request, one write per decision.

A strategy talks to its process through an :class:`~canasta_sim.plugins.channel.Endpoint`: under
protocol 2 every message names the game, a request carries only the view's fields that changed, and
under a :class:`~canasta_sim.plugins.channel.Hub` (a worker playing games side by side) one process of a
seat serves that seat in up to ``games`` games at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson

from canasta_sim.arbiter import trust_builtin_strategies
from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.legal import forced_draw
from canasta_sim.core.moves import Draw, TakePile
from canasta_sim.core.strategy import Strategy
from canasta_sim.core.wire import EventLog, ViewWire
from canasta_sim.errors import SeatFailure, StrategyLoadError
from canasta_sim.plugins.answers import CHOICE, LAZY_LISTINGS, LISTINGS, only_answer
from canasta_sim.plugins.channel import Endpoint
from canasta_sim.plugins.messages import hand_result_message, view_message
from canasta_sim.plugins.pools import BotPool, handshake, memory_limit
from canasta_sim.plugins.process import BotProcess
from canasta_sim.plugins.protocol import (
    DECISIONS,
    JUDGED_ANSWERS,
    ProtocolError,
    answer_value,
    check_answer,
    game_message,
    parse_answer,
    shown_json,
)
from canasta_sim.plugins.specs import BOT_PREFIXES, bot_command, is_bot_spec, isolate_spec

__all__ = [
    "BOT_PREFIXES",
    "DEFAULT_DECISION_DEADLINE",
    "ProcessStrategy",
    "bot_command",
    "is_bot_spec",
    "isolate_spec",
    "load_bot_class",
]

DEFAULT_DECISION_DEADLINE = 60.0
"""Seconds a bot process may take over one decision when the game sets no ``time_limit``."""



def load_bot_class(spec: str, *, file: str | None = None) -> tuple[type[ProcessStrategy], tuple[tuple[str, str], ...]]:
    """Start the bot once, read its handshake, and return a :class:`ProcessStrategy` class named after it
    (its ``name``, ``version``, ``description`` and ``parameters`` are the bot's) and the spec's parameters.

    :raises StrategyLoadError: when the bot cannot start or its handshake is not the protocol.
    """
    argv, parameters = bot_command(spec, file=file)
    stripped = spec.strip()
    bot = BotProcess(argv, label=stripped, memory_limit=memory_limit())
    try:
        ready = handshake(bot, argv)
    except (SeatFailure, ProtocolError) as error:
        bot.kill()
        raise StrategyLoadError(f"bot {stripped!r} failed its handshake: {error}") from None
    pool = BotPool(argv, stripped, tagged=ready["protocol"] >= 2, capacity=ready["games"])
    pool.spares.append(bot)
    attributes: dict[str, Any] = {
        "name": ready["name"],
        "version": ready["version"],
        "description": ready["description"],
        "parameters": ready["parameters"],
        "wants_legal": ready["legal"],
        "hears_hand_ends": ready["hand_ends"],
        "inline_events": ready["inline_events"],
        "shown_draws": ready["drawn"],
        "choices_only": ready["choices_only"],
        "games": ready["games"],
        "pool": pool,
        "__module__": __name__,
    }
    if not ready.get("events", True):
        attributes["on_event"] = Strategy.on_event  # the engine then skips the calls altogether
    cls = type(f"Bot_{_identifier(ready['name'])}", (ProcessStrategy,), attributes)
    # The proxy is canasta-sim's own code and the bot's runs in another process, which cannot reach the game:
    # the engine need not fingerprint the game around its calls (docs/fairness.md), nor watch it for patches.
    trust_builtin_strategies([cls])
    return cls, parameters


def _identifier(name: str) -> str:
    return "".join(character if character.isalnum() else "_" for character in name)


class ProcessStrategy(Strategy):
    """A strategy answered by a bot process (see the module's note); made by :func:`load_bot_class`.

    The seat, the seed and the deadline come from the engine's
    :class:`~canasta_sim.core.strategy.SeatRandom`.  A generator of another kind (one built by hand)
    gets a process of its own, seeded with 64 bits drawn from that generator.
    """

    pool: ClassVar[BotPool]
    wants_legal: ClassVar[frozenset[str]] = frozenset()
    hears_hand_ends: ClassVar[bool] = True
    """Whether its process wants ``hand_end`` messages (its `ready` message's ``hand_ends``)."""
    inline_events: ClassVar[bool] = False
    """Whether its process takes the events before a request in the request (``"events": "inline"``)."""
    shown_draws: ClassVar[bool] = False
    """Whether its process is told the cards of a draw that is the only legal acquire (``"drawn": true``), and so
    may answer the rest of such a turn with the draw."""
    choices_only: ClassVar[bool] = False
    """Whether its process is asked only the decisions that have more than one legal answer (``"choices_only":
    true``): the arbiter plays the one legal answer of the others itself, and the bot hears it as it hears a move."""
    games: ClassVar[int] = 1
    """How many games one of its processes plays at once (its `ready` message's `games`; 1 under protocol 1)."""
    keeps_own_clock: ClassVar[bool] = True
    """The proxy enforces the time limit itself (it kills the process and keeps its stderr), on the time the bot takes
    over each request (:meth:`~canasta_sim.plugins.channel.SharedBot.deadline`), so the engine does not time its
    decisions: a worker playing games side by side plays other games while one waits for its answer."""

    @classmethod
    def protocol_summary(cls) -> str:
        """What the bot's ``ready`` asked for, in one line: the protocol's options that decide its speed."""
        listed = ", ".join(decision for decision in DECISIONS if decision in cls.wants_legal) or "none"
        if cls.inline_events:
            events = "inline"
        else:
            events = "none" if cls.on_event is Strategy.on_event else "in events messages"
        # A bot asked only its choices is never asked a forced draw, so it is never shown one's cards.
        if cls.shown_draws:
            drawn = "asked for, never sent: forced draws are not asked" if cls.choices_only else "yes"
        else:
            drawn = "no"
        return (f"protocol {2 if cls.pool.tagged else 1}, {cls.games} game{'s' * (cls.games != 1)} at once; "
                f"legal lists: {listed}; events: {events}; hand ends: {'yes' if cls.hears_hand_ends else 'no'}; "
                f"forced draws' cards: {drawn}; "
                f"decisions with one legal answer: {'not asked' if cls.choices_only else 'asked'}")

    def __init__(self, rng, **parameters: Any) -> None:
        super().__init__(rng, **parameters)
        self._seat: int | None = getattr(rng, "seat", None)
        seed = getattr(rng, "initial_seed", None)
        self._seed = seed if isinstance(seed, int) else rng.getrandbits(64)
        time_limit = getattr(rng, "time_limit", None)
        self._seconds = DEFAULT_DECISION_DEADLINE if time_limit is None else time_limit
        self._game_started = False
        # Started now, while the engine builds the players: a process's start-up is no decision's time.
        self._bot: Endpoint | None = None if self._seat is None else self.pool.acquire(self._seat, self)
        self._tagged = self.pool.tagged
        self._wire = ViewWire()
        """The view as last sent to the bot in this hand: a protocol-2 request carries only what changed."""
        self._pending: list[bytes] = []
        self._log = EventLog()
        """Events since the last message queued, written as one ``events`` message (one parse for them all),
        less this seat's own moves the bot made in a plan and saw (``EventLog.known``)."""
        self._log.mover = -1 if self._seat is None else self._seat
        self.on_event = self._log.hear  # the engine binds the compiled method: no Python call per event
        self._plan: list[Any] = []
        """Answers the bot gave ahead for the rest of its turn (a reply's ``then``), next first."""
        self._values = {key: getattr(self, key) for key in self.parameters}

    # ------------------------------------------------------------------------------------ the process

    def _start_game(self, view) -> None:
        # Called at the game's first hook or decision (the engine starts every hand with on_hand_start),
        # when the rules are known; the process itself is started when the engine builds the player.
        self._game_started = True
        if self._bot is None:
            self._bot = self.pool.acquire(self._seat, self)
        seat = view.seat if self._seat is None else self._seat
        self._log.mover = seat
        message = game_message(seat, self._seed, view.rules, self._values, self._seconds)
        self._pending.insert(0, self._bot.tagged(message))

    def _listing(self, decision: str, view) -> tuple[Any, list[str] | None]:
        """The decision's one legal answer when the bot is asked only its choices and it has one (else ``CHOICE``), and
        the legal answers' texts when the bot lists them (else ``None``)."""
        # A bot asked only its choices is not asked a decision with one legal answer: it is played for it.  A list
        # the request carries anyway says so; otherwise the one answer is found lazily (full lists cost bot.js's
        # worker a tenth).
        moves = LISTINGS[decision](view) if decision in self.wants_legal else None
        if self.choices_only:
            if moves is not None:
                if len(moves) == 1:
                    return moves[0], None
            elif decision in LAZY_LISTINGS:
                only = only_answer(LAZY_LISTINGS[decision](view))
                if only is not CHOICE:
                    return only, None
        return CHOICE, None if moves is None else [None if move is None else str(move) for move in moves]

    def _decide(self, decision: str, view):
        """The seat's answer to ``decision``: played for the bot when it has one legal answer and the bot is asked only
        its choices, else the bot's, asked in a ``decide`` request (the plan it replies with kept for the turn)."""
        listed = None
        if self.wants_legal or self.choices_only:  # neither for an isolated: strategy's server, a Python call fewer
            only, listed = self._listing(decision, view)
            if only is not CHOICE:
                return only
        if not self._game_started:
            self._start_game(view)
        # Protocol 2: only the fields that changed since the last view sent; protocol 1: the whole view.
        shown = self._wire.changes(view) if self._tagged else self._wire.whole(view)
        # The arbiter's side reads the live state, as the view wire does; the seat learns only what its one legal
        # answer brings it.
        drawn = forced_draw(view._state) if decision == "acquire" and self.shown_draws else None
        # The request itself, written on here: a Python call fewer a request.
        bot = self._bot
        if bot is not None and bot.tag not in bot.shared.open:
            raise SeatFailure(f"the process of seat {self._seat} was taken by another game; games sharing a "
                              "loaded bot spec must be played one at a time", reason="crash")
        # Written out as bytes, the fields in the order docs/protocol.md shows them: the view's changes, the legal
        # answers when the bot lists them, the events since its last message when it takes them inline, a forced
        # draw's cards when it asked for them, and the game (protocol 2); joined once, behind the messages queued.
        parts = self._pending
        inline = self.inline_events
        if not inline:
            self._flush_events()
        parts.append(_DECIDE_HEADS[decision])
        parts.append(orjson.dumps(shown))
        if listed is not None:
            parts.append(b',"legal":')
            parts.append(orjson.dumps(listed))
        if inline:
            events = self._log.take()
            if events:
                parts.append(b',"events":[')
                parts.append(events)
                parts.append(b"]")
        if drawn is not None:
            parts.append(_DRAWN[drawn[0]] if len(drawn) == 1 else b',"drawn":' + orjson.dumps(drawn))
        parts.append(b',"game":%d}\n' % bot.tag if self._tagged else b"}\n")
        data = b"".join(parts)
        parts.clear()
        bot.started = True  # the game message went first, if not before: the bot will hear of the game's end
        try:
            reply = bot.exchange(data, self._seconds, fresh=True)
            while True:
                kind = reply["type"]
                if kind == "move":
                    # Its text judged at once, looked up where it was judged before: parse_answer would check the type
                    # again, and answer_value look it up, each a Python call more a request.
                    move = reply.get("move", _UNJUDGED)
                    value = JUDGED_ANSWERS.get((decision, move), _UNJUDGED) if type(move) is str else _UNJUDGED
                    if value is _UNJUDGED:
                        value = parse_answer(decision, reply) if move is _UNJUDGED else answer_value(decision, move)
                    plan = reply.get("then")
                    if plan is not None:
                        answered = type(value)
                        # Nearly every reply plans after a take, a shown draw or a meld laid, each a move the engine
                        # reports: kept here, two Python calls fewer.  The rule is _keep_plan's (_check_plan and
                        # _makes_event), which judges the rest: a change to either is made here too.
                        if type(plan) is list and (answered is TakePile or answered is Draw and drawn is not None
                                                   or decision == "meld" and value is not None):
                            self._plan = plan
                            self._log.known += 1  # the bot saw its own move: no event for it
                            return value
                        self._keep_plan(decision, value, plan, drawn)
                    return value
                reply = self._within_request(decision, view, reply)
        except ProtocolError as error:
            failure = SeatFailure(f"the bot wrote something outside the protocol: {error}{bot.stderr_tail()}",
                                  reason="malformed")
            bot.kill(failure)
            raise failure from None
        except SeatFailure:
            raise
        except BaseException:
            self._interrupted(bot)
            raise

    def _interrupted(self, bot: Endpoint) -> None:
        """The request was interrupted (the engine's clock, the user's Ctrl-C, an abandoned game): the process may still
        answer later.  A protocol-2 bot's late answer names a game now ended and is dropped; a protocol-1 process cannot
        serve another request, and the seat's next game starts a new one."""
        if self._tagged:
            bot.close()
        else:
            bot.kill(SeatFailure("interrupted during a request", reason="crash"))

    def _keep_plan(self, decision: str, value: Any, plan: Any, drawn: list[int] | None) -> None:
        """Keep the reply's plan ``plan`` for the rest of the turn, once :func:`_check_plan` finds it one."""
        _check_plan(decision, value, plan, drawn)
        # After "ask" the partner's answer is not known: the plan ends there.
        self._plan = [] if decision == "ask" and value is True else plan
        if _makes_event(decision, value):
            self._log.known += 1  # the bot saw its own move: no event for it

    def _within_request(self, decision: str, view, reply: dict[str, Any]) -> dict[str, Any]:
        """The bot's next message once ``reply``, which is no move, is answered: a ``check`` or a ``view`` it asked for.

        :raises SeatFailure: for an ``error`` the bot reported.
        :raises ProtocolError: for a message no decide request is answered with.
        """
        kind = reply["type"]
        bot = self._bot
        if kind == "check":
            answer = check_answer(view, decision, reply.get("move"))
            return bot.exchange(bot.tagged(answer), self._seconds, fresh=False)
        if kind == "view" and self._tagged:  # the whole view, asked for by a protocol-2 bot
            answer = {"type": "view", "view": view_message(view)}
            return bot.exchange(bot.tagged(answer), self._seconds, fresh=False)
        if kind == "error":
            raise SeatFailure(f"the bot reported an error: {_reported(reply.get('message', ''))}{bot.stderr_tail()}",
                              reason=_reported_reason(reply))
        forms = "'move', 'check', 'view' or 'error'" if self._tagged else "'move', 'check' or 'error'"
        raise ProtocolError(f"a bot answers a decide request with {forms}, not {kind!r}")

    def _planned_value(self, decision: str, item: dict):
        """The engine's value of a plan item's move; a move outside the protocol ends the plan, charged as malformed."""
        try:
            return answer_value(decision, item.get("move"))
        except ProtocolError as error:
            self._plan = []
            raise SeatFailure(f"the bot's plan holds something outside the protocol: {error}",
                              reason="malformed") from None

    def _planned(self, decision: str):
        """The next answer of the bot's plan for this turn, without asking the process; ``_UNPLANNED`` when the plan
        holds none for ``decision`` (it ended with an ask the engine did not ask for)."""
        plan = self._plan
        item = plan[0]
        planned = item.get("decision") if type(item) is dict else None
        # Whether the engine asks the ask decision is R12.5's to say (going out must be possible, by default), and a
        # bot need not work it out: an ask answer the engine does not ask for is passed over (a loop, not a call per
        # item: a plan's length is the bot's to choose), and an ask it did not plan for is answered "not asking".
        while planned == "ask" and decision != "ask":
            del plan[0]
            if item.get("move") is not None or not plan:  # "ask" ends a plan: the turn goes on by requests
                self._plan = []
                return _UNPLANNED
            item = plan[0]
            planned = item.get("decision") if type(item) is dict else None
        if planned != decision and decision == "ask":
            return False
        del plan[0]
        if planned != decision:
            self._plan = []
            tail = self._bot.stderr_tail()
            if decision == "acquire":  # a plan holds one turn: this item was past its discard
                raise SeatFailure(f"the bot's plan held {_short(item)} past the end of its turn{tail}",
                                  reason="malformed")
            raise SeatFailure(f"the bot's plan answered {_short(item)} where the game asked the {decision} "
                              f"decision{tail}", reason="malformed")
        if "error" in item:
            self._plan = []
            try:
                reason = _reported_reason(item)
            except ProtocolError as error:
                raise SeatFailure(f"the bot's plan holds something outside the protocol: {error}",
                                  reason="malformed") from None
            raise SeatFailure(f"the bot reported an error: {_reported(item['error'])}", reason=reason)
        value = self._planned_value(decision, item)
        if decision == "ask" and value is True:
            self._plan = []  # the partner's answer is not known: the plan ends at "ask"
        if _makes_event(decision, value):
            self._log.known += 1
        return value

    # ------------------------------------------------------------------------------------ decisions

    def choose_acquire(self, view):
        """Forwarded to the bot as a ``decide`` request (``acquire``), answered from the bot's plan, or, when it has one
        legal answer and the bot is asked only its choices, answered with it."""
        # Each decision looks for a plan itself: most meld and discard decisions are a plan's answers, each
        # then a Python call fewer.
        if self._plan and (value := self._planned("acquire")) is not _UNPLANNED:
            return value
        return self._decide("acquire", view)

    def choose_ask(self, view) -> bool:
        """Forwarded to the bot as a ``decide`` request (``ask``), or answered from the bot's plan (not asking, when
        the plan holds no answer to it)."""
        if self._plan and (value := self._planned("ask")) is not _UNPLANNED:
            return value
        return self._decide("ask", view)

    def answer_go_out(self, view) -> bool:
        """Forwarded to the bot as a ``decide`` request (``answer``), or answered from the bot's plan."""
        if self._plan and (value := self._planned("answer")) is not _UNPLANNED:
            return value
        return self._decide("answer", view)

    def choose_meld(self, view):
        """Forwarded to the bot as a ``decide`` request (``meld``), answered from the bot's plan, or, when it has one
        legal answer and the bot is asked only its choices, answered with it."""
        plan = self._plan
        if plan:
            # Two or three of a request's plan items are melds and a discard, each judged before: such an item is taken
            # here, a Python call fewer each.  The rule is _planned's (with _makes_event for what the bot saw), which
            # takes every other item: a change to it is made here and in choose_discard too.
            item = plan[0]
            if type(item) is dict and item.get("decision") == "meld" and "error" not in item:
                move = item.get("move")  # a text, or null: melding ends
                value = _UNJUDGED if type(move) is not str and move is not None else JUDGED_ANSWERS.get(("meld", move),
                                                                                                      _UNJUDGED)
                if value is not _UNJUDGED:
                    del plan[0]
                    if value is not None:  # a meld laid, which the engine reports: the bot saw it
                        self._log.known += 1
                    return value
            if (value := self._planned("meld")) is not _UNPLANNED:
                return value
        return self._decide("meld", view)

    def choose_discard(self, view):
        """Forwarded to the bot as a ``decide`` request (``discard``), answered from the bot's plan, or, when it has one
        legal answer and the bot is asked only its choices, answered with it."""
        plan = self._plan
        if plan:
            item = plan[0]  # taken here when judged before, a twin of _planned's rule as in choose_meld
            if type(item) is dict and item.get("decision") == "discard" and "error" not in item:
                move = item.get("move")
                value = JUDGED_ANSWERS.get(("discard", move), _UNJUDGED) if type(move) is str else _UNJUDGED
                if value is not _UNJUDGED:
                    del plan[0]
                    self._log.known += 1  # a discard, which the engine reports: the bot saw it
                    return value
            if (value := self._planned("discard")) is not _UNPLANNED:
                return value
        return self._decide("discard", view)

    # ------------------------------------------------------------------------------------ hooks

    def on_hand_start(self, view) -> None:
        """Queued for the next request as a ``hand_start`` message with the view."""
        if not self._game_started:
            self._start_game(view)
        self._plan = []
        self._flush_events()
        self._log.known = 0
        shown = self._wire.whole(view)
        self._pending.append(self._bot.tagged({"type": "hand_start", "view": shown}))

    def on_event(self, event) -> None:
        """Queued for the next request in an ``events`` message, unless the bot made the move in a plan."""
        self._log.hear(event)  # each instance's on_event is its log's own (see __init__)

    def _flush_events(self) -> None:
        events = self._log.take()
        if events:
            if self._tagged:
                self._pending.append(b'{"type":"events","game":%d,"events":[%s]}\n' % (self._bot.tag, events))
            else:
                self._pending.append(b'{"type":"events","events":[%s]}\n' % events)

    def stderr_tail(self) -> str:
        """The bot process's last stderr lines as the suffix of a failure message (``""`` when it wrote none): the
        engine ends the failure of an answer it refuses (an illegal move) with them."""
        bot = self._bot
        return "" if bot is None else bot.stderr_tail()

    def on_hand_end(self, result) -> None:
        """Sent at once as a ``hand_end`` message with the result, behind the messages still queued.

        Not queued for the next request like the other hooks: after a game's last hand there is none, and
        the process may be handed to another game.  A bot that cannot take it is its seat's failure, as
        at a request.  A bot that wants no hand ends (``"hand_ends": false``) is sent only the hand's last
        events, if any: it hears every move, as in-process.
        """
        bot = self._bot
        self._flush_events()
        if self.hears_hand_ends:
            self._pending.append(bot.tagged({"type": "hand_end", "result": hand_result_message(result)}))
        self._wire.forget()
        shared = bot.shared
        # Not shared.running: a process that died unseen is found at this write as at a request's, and asking
        # the kernel at every hand's end was 10 of a game's 16 system calls to poll a process.
        if not self._pending or shared.failure is not None or shared.bot.process is None or bot.tag not in shared.open:
            return  # nothing to say, or the next request reports what became of the process
        data = b"".join(self._pending)
        self._pending.clear()
        bot.started = True
        bot.send(data)


_UNPLANNED = object()
_UNJUDGED = object()

_REPORTED_REASONS = ("exception", "illegal", "malformed")


def _reported_reason(message: dict[str, Any]) -> str:
    """The reason a bot's ``error`` (a message, or a plan item) is charged with: its ``reason``, by default
    ``exception``; an ``isolated:`` strategy's server names the one the engine charges in-process.

    :raises ProtocolError: for a reason the protocol does not name.
    """
    reason = message.get("reason", "exception")
    if reason not in _REPORTED_REASONS:
        raise ProtocolError(f"an error's 'reason' is one of {', '.join(_REPORTED_REASONS)}, not {_short(reason)}")
    return reason


def _makes_event(decision: str, value: Any) -> bool:
    """Whether an answer of the seat's own turn is a move the engine reports to the seats: a move record, or asking
    the partner (answering the partner's ask is never a plan's, so never left out of the events)."""
    if decision == "ask":
        return value is True
    return value is not None and value is not True and value is not False


def _check_plan(decision: str, value: Any, plan: Any, drawn: list[int] | None) -> None:
    """Refuse a reply's ``then`` that is no plan, or that comes where the seat does not know the rest of its turn: a
    plan goes after a meld, an ask, a take, or a draw whose cards the request showed.

    :raises ProtocolError: naming which of these the plan broke, the plan shown as the bot wrote it (JSON).
    """
    if not isinstance(plan, list):
        raise ProtocolError(f"'then' is a list of items {{\"decision\": D, \"move\": M}}; got {_short(plan)}")
    if decision in _PLANNING or type(value) is TakePile or drawn is not None and type(value) is Draw:
        return
    if type(value) is Draw:
        raise ProtocolError("'then' after a draw needs the draw's cards, and this request did not show them: a request "
                            "shows them (its 'drawn' field) only when the draw is the one legal answer and the bot's "
                            "ready says \"drawn\": true")
    raise ProtocolError(f"'then' goes with an ask, meld or take answer, or a draw whose cards the request showed; got "
                        f"it with an answer to the {decision} decision")


_DRAWN = tuple(b',"drawn":[%d]' % kind for kind in range(KIND_COUNT))
"""A forced draw's one card as the request shows it, by its kind."""
_PLANNING = ("ask", "meld")
_DECIDE_HEADS = {decision: b'{"type":"decide","decision":"%s","view":' % decision.encode() for decision in DECISIONS}


def _short(value: Any) -> str:
    try:
        text = orjson.dumps(value, default=repr).decode()  # a plan item as the bot wrote it, in JSON
    except orjson.JSONEncodeError:  # nested deeper than orjson writes (a bot's line may nest deeper)
        return shown_json(value, 80)
    return text if len(text) <= 80 else text[:77] + "..."


def _reported(text: Any) -> str:
    """What a bot's ``error`` reported (its ``message``, a plan item's ``error``): its text, or any other value as
    JSON."""
    return text if type(text) is str else shown_json(text)
