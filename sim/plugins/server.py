"""Serve a Python strategy over the bot protocol: ``python -m canasta_sim.plugins.server SPEC``.

This is the process an ``isolated:SPEC`` seat runs in.  It loads the strategy, answers ``hello``
with the strategy's name, version and parameters (protocol 2, up to :data:`GAMES` games at once), and
then for each ``game`` builds a fresh player with the seat's seed (the very generator the engine would
give it in-process), rebuilds its view from each message (:class:`~canasta_sim.plugins.messages.MessageView`;
a ``decide`` carries the view's changes, merged into the last view) and answers each ``decide`` request
with the strategy's decision in the move notation.  It knows only what the messages say.  It reads
whatever the arbiter wrote at once and writes each answer as soon as it is found.  A strategy that names an
event follower has it fed every move, as the engine feeds it in-process.

Anything the strategy prints goes to stderr (the protocol owns stdout).  A strategy that raises, or
returns a value that is no answer, is reported with an ``error`` message; the arbiter charges it
to the seat.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

import orjson

from canasta_sim.core.cards import CARD_KIND, KIND_COUNT
from canasta_sim.core.kernels import CardMemory
from canasta_sim.core.moves import ASK, Discard, Draw, Meld, Stop, TakePile, move_text, record_problem
from canasta_sim.core.parameters import Parameter, declared_parameters
from canasta_sim.core.rules import Rules
from canasta_sim.core.seats import names_followers, not_a_bool
from canasta_sim.core.strategy import PublicEvent, SeatRandom, Strategy
from canasta_sim.core.wire import hear_events
from canasta_sim.errors import (
    CanastaError,
    IllegalMoveError,
    SeatFailure,
    UserInterrupt,
    error_text,
    exception_text,
    raised_text,
    shown_value,
)
from canasta_sim.plugins.kept_state import CLAIMED_NAMES, KeptStateWatch, watched
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.messages import MessageView, hand_result_from_message, set_whole_view
from canasta_sim.plugins.protocol import INLINE_EVENTS, PROTOCOL_VERSION, shown_json

__all__ = ["GAMES", "BotServer", "main", "refusal", "serve", "settle_collector"]

GAMES = 128
"""Games one bot server plays at once (its ``ready`` message's ``games``), and so the games a worker plays side by
side.  A worker alternates a spec's side from game to game and gives each seat a process of its own, so each of a
seat's processes holds about half of them: 64, the batch from which a larger one no longer pays (at 64 games side
by side, 32 a process, an isolated expert took 6% more CPU a game; at 256, 128 a process, no less than at 128)."""

_GAME_MESSAGES = frozenset({"decide", "events", "hand_start", "hand_end"})
"""The messages about an open game's play (``game`` and ``game_end`` open and close one)."""

_DISCARD_TEXTS = tuple(str(Discard(kind)) for kind in range(KIND_COUNT))
"""Each card's discard as the move notation writes it."""

_KIND_CARD = tuple(CARD_KIND.index(kind) for kind in range(KIND_COUNT))
"""A card of each kind: a rebuilt state's stock holds cards, and a shown draw's kind is all the seat may know."""

_PLANNING_SHARE = 0.25  # of the decision time limit, spent at most on planning the rest of a turn ahead

_METHODS = {
    "acquire": ("choose_acquire", (Draw, TakePile, Stop), "Draw, TakePile or Stop", None),
    "ask": ("choose_ask", (bool,), "True or False", (None, "ask")),
    "answer": ("answer_go_out", (bool,), "True or False", ("answer no", "answer yes")),
    "meld": ("choose_meld", (Meld, type(None)), "a Meld or None", None),
    "discard": ("choose_discard", (Discard,), "a Discard", None),
}
"""Each decision's method, the types of its answers, their names, and for a yes-or-no decision its answers' texts."""


class _Game:
    """One game this process plays: its player, rules, rebuilt view, last view message, planning budget."""

    __slots__ = ("player", "rules", "view", "message", "planning_budget", "started", "planned", "follows",
                 "follower")

    def __init__(self, player: Strategy, rules: Rules, planning_budget: float | None) -> None:
        self.player = player
        self.follows = names_followers(type(player))
        """Whether the player may name an event follower, asked at each hand's start as the engine asks it."""
        self.follower: CardMemory | None = None
        """This hand's event follower: fed every move in place of ``on_event``, as in-process."""
        self.rules = rules
        self.view: MessageView | None = None
        self.message: dict[str, Any] | None = None
        """The last view message as the arbiter sees it: a protocol-2 ``decide`` sends only what changed."""
        self.planning_budget = planning_budget
        """Seconds of a request worth planning ahead in: a plan must never cost a decision its deadline."""
        self.started = 0.0
        self.planned = False
        """Whether a plan laid melds on the view since the last message: the next one then resets it whole."""


class BotServer:
    """Answers the protocol's messages for one strategy spec, for every game the arbiter opens.

    :param spec: the strategy spec, without ``isolated:``.
    """

    def __init__(self, spec: str) -> None:
        self.loaded = load_strategy(spec)
        self.games: dict[Any, _Game] = {}
        self._rules: dict[bytes, Rules] = {}
        self._moves: dict[str, Any] = {}  # event texts parsed so far: moves repeat, and records are immutable
        cls = self.loaded.cls
        # What the strategy keeps between games is in this process, out of the arbiter's reach: looked at as a game
        # ends, and what changed is claimed in the next answer (``kept``), warned of as an in-process change is.
        self._watch = KeptStateWatch({spec: cls}) if watched(cls) else None
        self._kept: list[str] | None = None

    def ready(self) -> dict[str, Any]:
        """The answer to ``hello``."""
        cls = self.loaded.cls
        return {
            "type": "ready",
            "protocol": PROTOCOL_VERSION,
            "games": GAMES,
            "name": cls.name,
            "version": cls.version,
            "description": cls.description,
            # A declaration with a range or help crosses whole, so the arbiter checks a spec's values and tune finds
            # the range as in-process; a plain default goes as it is.
            "parameters": {key: _ready_parameter(item) for key, item in declared_parameters(cls.parameters).items()},
            "legal": False,
            # Its events in its requests: one line less to read and parse per request.
            "events": INLINE_EVENTS if cls.on_event is not Strategy.on_event else False,
            "hand_ends": cls.on_hand_end is not Strategy.on_hand_end,
            # A draw's cards in its request when it is the only legal acquire: such a turn then takes one round
            # trip, the draw answered with the rest of the turn.
            "drawn": True,
            # Asked every decision, one legal answer or not: a strategy's decision methods may keep state (what
            # it saw, a generator's draws), so each is called as in-process and the games stay the same.
            "choices_only": False,
        }

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Act on one message; return the reply to write, if it needs one (naming the message's game).

        :raises ValueError: for a game's ``decide`` request the server cannot read (no decision it knows, no view),
            before any call into the strategy: :func:`serve` refuses it as a line it cannot read.
        """
        kind = message.get("type")
        tag = message.get("game")
        # A game's messages first, in the order of their frequency: every line costs this dispatch.
        game = self.games.get(tag) if kind in _GAME_MESSAGES else None
        if game is not None:
            # A request the server cannot read is refused by serve, as any line it cannot read, before the strategy
            # is called: nothing the strategy raises below is taken for the server's own refusal.
            if kind == "decide":
                decision = message.get("decision")
                if type(decision) is not str or decision not in _METHODS or type(message.get("view")) is not dict:
                    raise _Unreadable(_unreadable_decide(message))
            try:
                if kind == "decide":
                    reply = self._decide(game, message)
                elif kind == "events":
                    try:
                        hear_events(game.player, game.follower, message["events"], self._moves)
                    except BaseException as error:
                        raise _HookFailure.of("on_event", error) from None
                    return None
                elif kind == "hand_start":
                    self._start_hand(game, message["view"])
                    return None
                else:
                    result = hand_result_from_message(message["result"])
                    try:
                        game.player.on_hand_end(result)
                    except BaseException as error:
                        raise _HookFailure.of("on_hand_end", error) from None
                    return None
            except _HookFailure as failure:  # answered at the seat's next request: the line names the hook
                reply = {"type": "error", "message": str(failure)}
                if failure.reason is not None:
                    reply["reason"] = failure.reason
            # The strategy's own failure, whatever it is, is the seat's to answer for: a sys.exit or a
            # KeyboardInterrupt too, as in-process (the terminal's Ctrl-C never reaches it: a process group of its own).
            except BaseException as error:
                reply = {"type": "error", "message": raised_text(error)}
        elif kind == "hello":
            reply = self.ready()
        elif kind == "game":
            self._open(tag, message)
            return None
        elif kind == "game_end":
            self.games.pop(tag, None)
            if self._watch is not None:
                for _, names in self._watch.changes():
                    self._kept = names[:CLAIMED_NAMES]
            return None
        elif kind in _GAME_MESSAGES:
            reply = {"type": "error", "message": f"a {kind!r} message came for no open game (game {tag!r})"}
        else:
            reply = {"type": "error", "message": f"unknown message type {kind!r}"}
        if "game" in message:
            reply["game"] = tag
            if self._kept is not None:  # any game's answer carries it: the arbiter counts it for the process's spec
                reply["kept"], self._kept = self._kept, None
        return reply

    def _start_hand(self, game: _Game, view: dict[str, Any]) -> None:
        game.message = view
        self._follow(game)
        try:
            game.player.on_hand_start(game.view)
        except BaseException as error:
            raise _HookFailure.of("on_hand_start", error) from None
        game.follower = _follower(game) if game.follows else None

    def _open(self, tag: Any, message: dict[str, Any]) -> None:
        key = orjson.dumps(message["rules"], option=orjson.OPT_SORT_KEYS)
        rules = self._rules.get(key)
        if rules is None:
            rules = self._rules[key] = Rules.from_mapping(message["rules"])
        rng = SeatRandom(message["seed"], seat=message["seat"])
        limit = message.get("time_limit")
        player = self.loaded.cls(rng, **message["parameters"])
        self.games[tag] = _Game(player, rules, None if limit is None else limit * _PLANNING_SHARE)

    def _follow(self, game: _Game) -> None:
        if game.view is None:
            game.view = MessageView(game.message, game.rules, check=False)  # the arbiter's own message
        else:
            game.view.update(game.message, check=False)  # the arbiter's own messages: checked by construction

    def _decide(self, game: _Game, message: dict[str, Any]) -> dict[str, Any]:
        decision = message["decision"]  # one of _METHODS, with a view: handle refused any other request
        game.started = time.monotonic()
        events = message.get("events")
        if events:  # the moves since the last request, heard before the request as from an events message
            try:
                hear_events(game.player, game.follower, events, self._moves)
            except BaseException as error:
                raise _HookFailure.of("on_event", error) from None
        changes = message["view"]
        if "format" in changes or game.message is None or game.view is None:
            game.message = changes  # a whole view (protocol 1 sends one with every request)
            self._follow(game)
        else:
            message_view = game.message
            message_view.update(changes)
            view = game.view
            if not game.planned:
                view.apply_changes(changes, message_view)
            elif "hand_number" in changes or "dealer" in changes or "scores" in changes:
                view.update(message_view, check=False)
            else:  # the hand's fixed facts as they were: every field set again from the whole view
                set_whole_view(view, message_view)
        game.planned = False
        player = game.player
        value, answer = self._answer(game, decision)
        if "error" in answer:
            reply = {"type": "error", "message": answer["error"]}
            if "reason" in answer:
                reply["reason"] = answer["reason"]
            return reply
        reply = {"type": "move", "move": answer["move"]}
        if decision in ("ask", "meld") and not (decision == "ask" and value) or type(value) is TakePile:
            reply["then"] = self._plan(game, player, decision, value)
        elif type(value) is Draw and "drawn" in message:
            _show_draw(game.view._state, message["drawn"])
            reply["then"] = self._plan(game, player, decision, value)
        return reply

    def _answer(self, game: _Game, decision: str) -> tuple[Any, dict[str, Any]]:
        """Ask the strategy for one decision: its value, and the answer as a plan item; a failure's item names the
        reason the engine would charge in-process (``malformed`` for a value of the wrong kind, ``illegal`` for a
        record that is no move, none for an exception), so that the tables are the same isolated."""
        name, types, wanted, said = _METHODS[decision]
        try:
            value = getattr(game.player, name)(game.view)
        except SeatFailure as error:  # an adapter's verdict on what it asked (a policy's action): its reason
            return None, {"decision": decision, "error": str(error), "reason": error.reason}
        except BaseException as error:  # the strategy's own failure of any kind, charged to the seat at this decision
            return None, {"decision": decision, "error": raised_text(error)}
        if said is not None:  # a yes or no: bool has no subclass, so two identity tests are isinstance
            if value is not True and value is not False:
                return None, {"decision": decision, "error": f"{not_a_bool(value)}: {shown_value(value)}",
                              "reason": "malformed"}
            return value, {"decision": decision, "move": said[value]}
        if not issubclass(type(value), types):  # by its type: isinstance would read __class__, the strategy's code
            return None, {"decision": decision, "reason": "malformed",
                          "error": f"returned something that is not {wanted}: {shown_value(value)}"}
        if value is None:
            return value, {"decision": decision, "move": None}
        # Draws and discards, most answers, have their texts by their card: no check and no text made for them
        # (a discard's card is read again each time, so a record whose card is no kind takes the full check).
        kind = type(value)
        if kind is Discard:
            card = value.card
            if type(card) is int and 0 <= card < KIND_COUNT:
                return value, {"decision": decision, "move": _DISCARD_TEXTS[card]}
        elif kind is Draw:
            return value, {"decision": decision, "move": "draw"}
        # A record its text would not read back as (E1, as in-process): a meld of text groups reads as a meld.
        text = move_text(value)  # None for a record of the strategy's own class too: no move (E1), as in-process
        if text is None:
            try:
                problem = record_problem(value) or f"{shown_value(value)} is not a move"
            except UserInterrupt:
                raise
            except BaseException as error:  # groups of the strategy's own classes failed when read, as in-process
                return None, {"decision": decision, "reason": "malformed",
                              "error": f"returned a malformed move ({error_text(error)})"}
            return None, {"decision": decision, "error": f"returned an illegal move: E1: {problem}",
                          "reason": "illegal"}
        return value, {"decision": decision, "move": text}

    def _plan(self, game: _Game, player: Strategy, decision: str, value: Any) -> list[dict[str, Any]]:
        """The answers to the rest of the turn, found by playing it out on the seat's own view.

        After the partner is not asked (or the first meld, or taking the pile: every card the seat takes is
        known; or a draw whose cards the request showed, ``drawn``), nothing the seat does not know can change its
        turn: only its own moves, which
        :meth:`HandState.apply` makes on the rebuilt state exactly as the engine will.  The strategy hears of
        each of its moves (``on_event``) right after making it, as in-process, and the arbiter sends no event
        for them.  After a take or a draw the engine may ask whether to ask the partner: asking ends the plan (the
        partner's answer is not known).  The plan stops at the discard, at a move this state finds illegal
        (the engine will judge it), or where the hand ends.
        """
        state = game.view._state
        plan: list[dict[str, Any]] = []
        # Planning only saves round trips; what is not planned in time is asked for in requests of its own.
        # The budget is checked inline at each step (a Python call fewer each).
        deadline = None if game.planning_budget is None else game.started + game.planning_budget
        if decision == "acquire":
            if not self._lay(game, value):
                return plan
            if not state.asked and state.can_ask(ASK):  # the engine's own condition for the ask decision
                if deadline is not None and time.monotonic() > deadline:
                    return plan
                value, answer = self._answer(game, "ask")
                plan.append(answer)
                if "error" in answer:
                    return plan
                if value:  # asked: the plan ends with it, and the arbiter sends no event of the plan's own moves
                    _hear(game, ASK)
                    return plan
            melding = True
        elif decision == "meld":
            if value is not None and not self._lay(game, value):
                return plan
            melding = value is not None
        else:
            melding = True
        while melding and state.phase != "over":
            if deadline is not None and time.monotonic() > deadline:
                return plan
            value, answer = self._answer(game, "meld")
            plan.append(answer)
            if "error" in answer:
                return plan
            if value is None:
                break
            if not self._lay(game, value):
                return plan
        if state.phase == "over" or state.must_stop or (deadline is not None and time.monotonic() > deadline):
            return plan
        value, answer = self._answer(game, "discard")
        plan.append(answer)
        if "error" not in answer:
            if game.follower is None:
                _hear(game, value)
            else:  # _hear's follower, written out
                game.follower.follow(game.view.seat, value)
        return plan

    def _lay(self, game: _Game, move: Meld | TakePile) -> bool:
        game.planned = True
        state = game.view._state
        seat = game.view.seat
        before = state.red_threes[seat]
        try:
            state.apply(move)
        except (IllegalMoveError, ValueError, TypeError):
            return False  # the engine will judge it: nothing after it can be planned
        follower = game.follower
        if follower is None:
            _hear(game, move, state.red_threes[seat] - before)  # a take lays the pile's red 3s (R4.3)
        else:  # _hear's follower, written out: a Python call fewer for each move a plan lays
            follower.follow(seat, move)
        return True


def _show_draw(state, kinds: list[int]) -> None:
    """Put the cards a request showed on top of the rebuilt state's stock of placeholders, the first drawn last
    (the stock's top), so that the state's own draw brings them as the engine's will."""
    stock = state.stock
    if len(kinds) > len(stock):
        raise ValueError(f"the request showed {len(kinds)} cards drawn from a stock of {len(stock)}")
    for place, kind in enumerate(kinds, 1):
        stock[-place] = _KIND_CARD[kind]


def _hear(game: _Game, move, red_threes: int = 0) -> None:
    # A plan's own moves reach the strategy's on_event (or its follower) at once, in the order the engine
    # would call it.
    if game.follower is None:
        try:
            game.player.on_event(PublicEvent(game.view.seat, move, red_threes))
        except BaseException as error:
            raise _HookFailure.of("on_event", error) from None
    else:
        game.follower.follow(game.view.seat, move)


def _follower(game: _Game) -> CardMemory | None:
    """The player's event follower for this hand, asked after its ``on_hand_start`` as the engine asks it."""
    try:
        follower = game.player.event_follower()
    except BaseException as error:
        raise _HookFailure.of("event_follower", error) from None
    if follower is not None and type(follower) is not CardMemory:
        raise _HookFailure(f"returned an event follower that is not a CardMemory or None: {follower!r}", "malformed")
    return follower


def _ready_parameter(parameter: Parameter) -> Any:
    """A parameter as ``ready`` says it: its default, or its declaration when it has a range or help."""
    if parameter.low is None and not parameter.help:
        return parameter.default
    fields = {"default": parameter.default, "low": parameter.low, "high": parameter.high, "step": parameter.step,
              "help": parameter.help}
    return {key: value for key, value in fields.items() if value is not None and value != ""}


class _Unreadable(ValueError):
    """A request of an open game that is not one the server can read: refused by :func:`serve` as every line it
    cannot read is (:func:`refusal`), never said as the strategy's failure.  Raised by :meth:`BotServer.handle`
    before it calls the strategy, so that nothing the strategy raises is taken for it."""


def _unreadable_decide(message: dict[str, Any]) -> str:
    decision = message.get("decision")
    if type(decision) is not str or decision not in _METHODS:
        return (f"its 'decision' is {shown_json(message.get('decision'), 40)}, not one of "
                f"{', '.join(map(repr, _METHODS))}")
    return "it has no 'view' object (the view's changes since the last request, or the whole view)"


class _HookFailure(Exception):
    """A hook of the strategy failed (``on_hand_start``, ``event_follower``, ``on_event``, ``on_hand_end``).  No
    request asks for a hook, so the arbiter charges the failure at the seat's next decision: the message names
    the hook, and ``reason`` is the one the engine charges in-process (``None``: an exception)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason

    @classmethod
    def of(cls, hook: str, error: BaseException) -> _HookFailure:
        return cls(f"{raised_text(error)} (in {hook})")


def serve(server: BotServer, source: int, sink: int) -> None:
    """Read messages from the fd ``source`` until ``quit`` or end of input; answer on the fd ``sink``.

    Whatever the arbiter wrote is read at once (a batch of requests for many games); each answer is
    written as soon as it is found, so that a strategy that hangs or crashes leaves every earlier answer
    delivered and the arbiter charges the very game it failed in.
    """
    pending = b""
    while True:
        chunk = os.read(source, _READ_SIZE)
        if not chunk:
            return
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                message = orjson.loads(line)
                if message.get("type") == "quit":
                    return
                reply = server.handle(message)
                if reply is None:
                    continue
                # Written here, not through a helper: a Python call fewer for every answer.
                data = orjson.dumps(reply, option=orjson.OPT_APPEND_NEWLINE)  # the protocol's encode
            except _UNREADABLE as error:  # a line that is no request it can read: refused, and the server goes on
                data = orjson.dumps(refusal(line, error), option=orjson.OPT_APPEND_NEWLINE)
            written = os.write(sink, data)
            if written < len(data):
                _write_rest(sink, data, written)


_UNREADABLE = (ValueError, TypeError, KeyError, IndexError, AttributeError, CanastaError)
"""What reading a line that is no request raises: not JSON (orjson's error is a ValueError), not an object, a field
missing or of the wrong kind.  A strategy's own failures never reach :func:`serve`: :meth:`BotServer.handle` answers
them with an ``error`` (its decisions and hooks are called within it)."""


def refusal(line: bytes, error: Exception) -> dict[str, Any]:
    """The ``error`` answering a line the server cannot read (``error`` what reading it raised), in one line naming
    what was wrong; it names the line's game when the line names one by its number."""
    shown = repr(line[:120].decode(errors="replace"))
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError:
        return {"type": "error", "message": f"the line {shown} is not JSON"}
    if type(message) is not dict or type(message.get("type")) is not str:
        return {"type": "error", "message": f"the line {shown} is not a JSON object with a text field 'type'"}
    if "game" in message and type(message["game"]) is not int:  # the reply would name it as it came
        problem = f"it names its game by {shown_json(message['game'], 40)}, not by a whole number"
    elif isinstance(error, KeyError):
        problem = f"it has no field {shown_value(error.args[0])}"
    else:
        problem = " ".join(exception_text(error).split()) or type(error).__name__
    said = f"the {shown_value(message['type'])} message {shown} could not be read: {problem}"
    reply = {"type": "error", "message": said}
    if type(message.get("game")) is int:
        reply["game"] = message["game"]
    return reply


_READ_SIZE = 1 << 16
"""Bytes asked of each read: a pipe holds 64 KiB.  A larger request costs more than it brings: Python allocates
the whole size for each read (a megabyte is mapped and unmapped by the kernel each time)."""


def _write_rest(sink: int, reply: bytes, written: int) -> None:
    """Write what is left of ``reply`` after a write that took only its first ``written`` bytes (a full pipe):
    the rest goes as the arbiter reads."""
    data = memoryview(reply)[written:]
    while data:
        data = data[os.write(sink, data):]


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m canasta_sim.plugins.server SPEC``."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 1:
        print("usage: python -m canasta_sim.plugins.server SPEC", file=sys.stderr)
        return 2
    # The protocol owns stdout: keep a private copy of it, and send fd 1 (print, C libraries) to stderr.
    sink = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # And stdin: a debugger the strategy starts (breakpoint(), pdb) reads the end of input from fd 0 and quits at once,
    # the seat's failure in one line, where it read the arbiter's requests and hung until the process was killed.
    source = os.dup(0)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    try:
        server = BotServer(arguments[0])
    except CanastaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    settle_collector()
    serve(server, source, sink)
    return 0


_YOUNG_THRESHOLD = 20_000
"""Container objects made (net) between the collector's scans of the youngest ones: Python's default is 700."""


def settle_collector() -> None:
    """Take what the process has built so far (the imports, the loaded strategy) out of the collector's scans,
    and scan the young objects less often: a bot server after loading, a worker before its games side by side.

    Each message makes dozens of short-lived dicts and lists, so the collector's scans came every few messages,
    each walking the objects still alive, and the full ones every module and class: a fortieth of the process's
    instructions.  Freed at once by their reference counts, those objects never needed the collector; only
    cycles do, and a scan every 20,000 objects still finds them.  Answers are unchanged: the collector frees only
    unreachable cycles.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


if __name__ == "__main__":
    sys.exit(main())
