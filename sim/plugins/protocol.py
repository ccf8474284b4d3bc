"""The bot protocol's messages: JSON lines between the arbiter and a bot process (``docs/protocol.md``).

Every message is one JSON object on one line with a ``type``.  This module builds the arbiter's
messages, parses the bot's, and turns a bot's answer into what the engine expects from a
:class:`~canasta_sim.core.strategy.Strategy` decision: a move record, ``True``/``False`` or ``None``.  It
does no I/O (:mod:`canasta_sim.plugins.process` owns the process).

>>> parse_answer("ask", decode(b'{"type": "move", "move": null}'))
False
>>> parse_answer("discard", decode(b'{"type": "move", "move": "discard 7"}'))
parse_move('discard 7')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

from canasta_sim.core.cards import KIND_NAMES
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, Move, Stop, TakePile
from canasta_sim.core.parameters import Parameter
from canasta_sim.core.rules import Rules
from canasta_sim.core.wire import move_from_text
from canasta_sim.errors import CanastaError, IllegalMoveError, MoveParseError
from canasta_sim.plugins.specs import NAME_ACCEPTED, is_one_line, is_strategy_name

__all__ = [
    "DECISIONS",
    "INLINE_EVENTS",
    "JUDGED_ANSWERS",
    "PROTOCOLS",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "answer_value",
    "check_answer",
    "checked_message",
    "decode",
    "encode",
    "game_message",
    "hello_message",
    "null_meld_is_legal",
    "parse_answer",
    "parse_ready",
    "shown_json",
    "unawaited_problem",
]

PROTOCOL_VERSION = 2
"""The protocol's version, exchanged in the handshake; bumped when a message changes meaning."""

PROTOCOLS = (1, 2)
"""The versions a bot may answer ``hello`` with: 1 (one game at a time, whole views) and 2 (up to
``games`` games at once, every message naming its game, views sent as their changes)."""

MAX_GAMES = 256
"""The most games one protocol-2 bot process may announce it plays at once."""

DECISIONS = ("acquire", "ask", "answer", "meld", "discard")
"""The decisions a ``decide`` request names, one per :class:`~canasta_sim.core.strategy.Strategy` decision method."""

_ANSWERS = {"answer yes": True, "answer no": False}

INLINE_EVENTS = "inline"
"""A ``ready``'s ``events`` value asking for the events before a request inside the request (its ``events``
field) rather than in an ``events`` message of their own: a line, and its parse, fewer per request."""


class ProtocolError(CanastaError, ValueError):
    """A bot wrote something that is not the protocol: not JSON, not an object, a wrong type or field."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line of compact JSON (orjson: about a tenth of the standard library's time)."""
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)


def decode(line: bytes) -> dict[str, Any]:
    """Parse one line a bot wrote.

    :raises ProtocolError: when it is not a JSON object with a text ``type``.
    """
    try:
        message = orjson.loads(line)
    except (ValueError, UnicodeDecodeError):
        shown = line[:120].decode(errors="replace")
        raise ProtocolError(f"the line {shown!r} is not JSON") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"the message {shown_json(message)} is not a JSON object with a text field 'type'")
    return message


def hello_message() -> dict[str, Any]:
    """The arbiter's first message."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "protocols": list(PROTOCOLS), "kinds": list(KIND_NAMES)}


def parse_ready(message: Mapping[str, Any], *, own_server: bool = False) -> dict[str, Any]:
    """Check the bot's answer to ``hello`` and return its ``name``, ``version``, ``description``,
    ``parameters`` (names and defaults), ``legal`` (the decisions whose requests list the legal answers), ``events``
    (whether it wants ``event`` messages), ``inline_events`` (whether it takes a request's events in the request,
    ``"events": "inline"``), ``hand_ends`` (whether it wants ``hand_end`` messages), ``drawn`` (whether it wants
    the cards of a draw that is the only legal answer in the ``acquire`` request), ``choices_only`` (whether the
    arbiter plays a decision's one legal answer itself instead of asking), ``protocol`` (1 or 2) and
    ``games`` (how many games it plays at once: 1 under protocol 1).

    :param own_server: the answer of canasta-sim's own server (``isolated:``), whose name is the in-process
        strategy's, any text on one line (a ``policy:`` spec's holds colons, its path perhaps spaces).
    :raises ProtocolError: naming the field that is missing or wrong.
    """
    if message.get("type") != "ready":
        raise ProtocolError(f"the answer to hello must be a 'ready' message; got {shown_json(message)}")
    unknown = sorted(set(message) - _READY_FIELDS)
    if unknown:  # a misspelt option would otherwise be dropped without a word, and the bot run without it
        raise ProtocolError(f"'ready' has no field {shown_json(unknown[0])}; its fields are "
                            f"{', '.join(sorted(_READY_FIELDS - {'type'}))}")
    protocol = message.get("protocol")
    speaks = " or ".join(map(str, PROTOCOLS))
    if type(protocol) is not int:  # "2" or a missing field would read as a version the bot does not speak
        raise ProtocolError(f"'ready' field 'protocol' must be the number {speaks}; got "
                            f"{shown_json(protocol) if 'protocol' in message else 'no protocol field'}")
    if protocol not in PROTOCOLS:
        raise ProtocolError(f"the bot speaks protocol version {protocol}; this arbiter speaks {speaks}")
    games = message.get("games", 1)
    if protocol == 1 and "games" in message:
        raise ProtocolError("'ready' field 'games' needs protocol 2 (protocol 1 plays one game at a time)")
    if type(games) is not int or not 1 <= games <= MAX_GAMES:
        raise ProtocolError(f"'ready' field 'games' must be a whole number from 1 to {MAX_GAMES}; "
                            f"got {shown_json(games)}")
    legal = message.get("legal", False)
    if legal is True or legal is False:
        listed = frozenset(DECISIONS) if legal else frozenset()
    elif isinstance(legal, list) and all(item in DECISIONS for item in legal):
        listed = frozenset(legal)
    else:
        raise ProtocolError(f"'ready' field 'legal' must be true, false or a list of decisions among "
                            f"{', '.join(DECISIONS)}; got {shown_json(legal)}")
    name = message.get("name")
    version = message.get("version", 1)
    parameters = message.get("parameters", {})
    # canasta-sim's own server plays the spec forms too, whose names are their specs (``openspiel:mcts``).
    accepted = bool(name) and is_one_line(name) if own_server else is_strategy_name(name)
    if not accepted:
        raise ProtocolError(f"'ready' needs a 'name' {'on one line' if own_server else NAME_ACCEPTED}; got "
                            f"{shown_json(name) if 'name' in message else 'no name field'}")
    description = message.get("description", "")
    if not is_one_line(description):  # the strategies table shows one line, as of an in-process class's
        raise ProtocolError(f"'ready' field 'description' must be one line of text; got {shown_json(description)}")
    if type(version) is not int:
        raise ProtocolError(f"'ready' field 'version' must be a whole number; got {shown_json(version)}")
    if not isinstance(parameters, dict) or not all(
        isinstance(value, (str, int, float, bool, dict)) for value in parameters.values()
    ):
        raise ProtocolError(f"'ready' field 'parameters' must map names to defaults (text, number, bool) or "
                            f"declarations; got {shown_json(parameters)}")
    parameters = {key: _declared(key, value) if isinstance(value, dict) else value for key, value in parameters.items()}
    hand_ends = message.get("hand_ends", True)
    if type(hand_ends) is not bool:
        raise ProtocolError(f"'ready' field 'hand_ends' must be true or false; got {shown_json(hand_ends)}")
    drawn = message.get("drawn", False)
    if type(drawn) is not bool:
        raise ProtocolError(f"'ready' field 'drawn' must be true or false; got {shown_json(drawn)}")
    events = message.get("events", True)
    if events is not True and events is not False and events != INLINE_EVENTS:
        raise ProtocolError(f"'ready' field 'events' must be true, false or {shown_json(INLINE_EVENTS)}; "
                            f"got {shown_json(events)}")
    choices_only = message.get("choices_only", False)
    if type(choices_only) is not bool:
        raise ProtocolError(f"'ready' field 'choices_only' must be true or false; got {shown_json(choices_only)}")
    return {
        "name": name,
        "version": version,
        "description": description,
        "parameters": parameters,
        "legal": listed,
        "events": events is not False,
        "inline_events": events == INLINE_EVENTS,
        "hand_ends": hand_ends,
        "drawn": drawn,
        "choices_only": choices_only,
        "protocol": protocol,
        "games": games,
    }


def _declared(key: str, declaration: dict) -> Parameter:
    """A ``ready`` parameter given as a declaration, ``{"default": D, "low": L, "high": H, "step": S, "help": T}``
    (all but ``default`` optional): the range a spec's value must keep to and a tuner explores, as in-process."""
    unknown = sorted(set(declaration) - _DECLARATION_FIELDS)
    if unknown:
        raise ProtocolError(f"'ready' parameter {key!r} has no field {shown_json(unknown[0])}; its fields are "
                            f"{', '.join(sorted(_DECLARATION_FIELDS))}")
    if "default" not in declaration:
        raise ProtocolError(f"'ready' parameter {key!r} needs a 'default'; got {shown_json(declaration)}")
    default = declaration["default"]
    bounds = [declaration.get(field) for field in ("low", "high", "step")]
    if not isinstance(default, (str, int, float, bool)) or not isinstance(declaration.get("help", ""), str) or not all(
            bound is None or type(bound) in (int, float) for bound in bounds):
        raise ProtocolError(f"'ready' parameter {key!r} needs a default (text, number, bool), numbers for low, high "
                            f"and step, and text for help; got {shown_json(declaration)}")
    try:
        return Parameter(default, low=bounds[0], high=bounds[1], step=bounds[2], help=declaration.get("help", ""))
    except ValueError as error:
        raise ProtocolError(f"'ready' parameter {key!r}: {error}") from None


_DECLARATION_FIELDS = frozenset({"default", "low", "high", "step", "help"})


_READY_FIELDS = frozenset({"type", "protocol", "games", "name", "version", "description", "parameters", "legal",
                           "events", "hand_ends", "drawn", "choices_only"})


def game_message(
    seat: int, seed: int, rules: Rules, parameters: Mapping[str, Any], time_limit: float | None
) -> dict[str, Any]:
    """A new game: the bot builds a fresh player for ``seat``, seeded with ``seed``; each request must be
    answered within ``time_limit`` seconds."""
    return {
        "type": "game", "seat": seat, "seed": seed, "rules": rules.options(), "parameters": dict(parameters),
        "time_limit": time_limit,
    }


def checked_message(sent: Any, move: Move | None, error: Exception | None) -> dict[str, Any]:
    """The answer to a bot's ``check`` request: whether the move is legal now (its canonical text), and if not the
    rule broken, echoing what the bot ``sent``."""
    if error is None:
        return {"type": "checked", "move": str(move), "legal": True}
    message = {"type": "checked", "move": sent, "legal": False, "reason": str(error)}
    if isinstance(error, IllegalMoveError):
        message["rule"] = error.rule
    return message


def parse_answer(decision: str, message: Mapping[str, Any]):
    """Turn a bot's ``move`` message into the decision's value.

    ``acquire`` and ``discard`` give a move record; ``meld`` a move record or ``None`` (``null``: stop
    melding); ``ask`` ``True`` for ``"ask"`` and ``False`` for ``null``; ``answer`` ``True`` for
    ``"answer yes"`` and ``False`` for ``"answer no"``.  Whether the move is legal is the engine's
    judgement, not this function's.

    :raises ProtocolError: when the message is not a ``move`` or its text is not a move.
    """
    if message.get("type") != "move" or "move" not in message:
        raise ProtocolError(f"the answer to the {decision} request must be a 'move' message; got {shown_json(message)}")
    return answer_value(decision, message["move"])


def answer_value(decision: str, text: Any):
    """The decision's value for the move text ``text`` of a bot's answer (see :func:`parse_answer`).

    :raises ProtocolError: when ``text`` is not an answer to ``decision``.
    """
    # Answers repeat ("draw", "discard 7", null) and their values are immutable: each is judged once, and
    # the arbiter's every request and plan item after that costs one lookup.  Only good answers are kept.
    value = JUDGED_ANSWERS.get((decision, text), _UNSEEN) if type(text) is str or text is None else _UNSEEN
    if value is _UNSEEN:
        value = _judge_answer(decision, text)
        if text is None or len(text) <= _TEXT_KEPT:  # a bot padding each answer would fill the worker's memory
            if len(JUDGED_ANSWERS) >= _ANSWERS_KEPT:
                JUDGED_ANSWERS.clear()
            JUDGED_ANSWERS[decision, text] = value
    return value


_ANSWERS_KEPT = 4096
_TEXT_KEPT = 256  # characters of an answer's text worth keeping: a canonical move has a few dozen
JUDGED_ANSWERS: dict[tuple[str, Any], Any] = {}
"""The good answers :func:`answer_value` has judged, ``(decision, text)`` to value, for a caller that looks one up
before calling it (a Python call fewer): look up only a ``str`` text or ``None``, whose keys no other type's can equal
(``1`` would find ``True``'s)."""
_UNSEEN = object()


def _judge_answer(decision: str, text: Any):
    if decision == "ask":
        if text is None or text == "ask":
            return text == "ask"
        raise ProtocolError(f"the answer to an ask request is \"ask\" or null; got {shown_json(text)}")
    if decision == "answer":
        value = _ANSWERS.get(text) if isinstance(text, str) else None
        if value is None:
            raise ProtocolError("the answer to an answer request is 'answer yes' or 'answer no'; "
                                f"got {shown_json(text)}")
        return value
    if text is None and decision == "meld":
        return None
    if not isinstance(text, str):
        raise ProtocolError(f"the answer to the {decision} request must be a move in the notation; "
                            f"got {shown_json(text)}")
    try:
        move = move_from_text(text)
    except MoveParseError as error:
        raise ProtocolError(str(error)) from None
    if isinstance(move, Answer):
        raise ProtocolError(f"the answer to the {decision} request cannot be {text!r}")
    return move


def shown_json(value: Any, width: int = 120) -> str:
    """``value`` (what a bot wrote) as JSON for a message, cut to ``width`` characters; never raises: a value nested
    too deep for the encoder (a bot's line may nest 1,024 levels) is named by its type instead."""
    try:
        shown = json.dumps(value, default=repr)
    except RecursionError:
        shown = f"a JSON {'array' if isinstance(value, list) else type(value).__name__} nested too deep to show"
    return shown if len(shown) <= width else shown[:width - 3] + "..."


_ANSWERING = {
    "acquire": ((Draw, TakePile, Stop), "draw, take [CARDS][; GROUPS] or stop"),
    "ask": ((Ask,), "ask, or null"),
    "answer": ((Answer,), "answer yes or answer no"),
    "meld": ((Meld,), "meld GROUP[; GROUP...], or null"),
    "discard": ((Discard,), "discard CARD"),
}


def null_meld_is_legal(view) -> bool:
    """Whether ``null`` (no more melds this turn) may answer the seat's pending ``meld`` decision: not while its
    partner's yes binds it to go out (R12.5, ``ask_partner_yes_forces_out``) with more than one card left."""
    return not (view.partner_answer is True and view.rules.ask_partner_yes_forces_out and sum(view.hand) > 1)


def check_answer(view, decision: str, text: Any) -> dict[str, Any]:
    """The answer to a ``check``: whether ``text`` would be a legal answer to the pending ``decision`` now.

    :raises ProtocolError: when ``text`` cannot be echoed (nested deeper than the arbiter's messages may be).
    """
    if text is None:
        if decision not in ("ask", "meld"):
            return checked_message(None, None, MoveParseError(
                f"null answers a meld or an ask decision only; the {decision} decision takes "
                f"{_ANSWERING[decision][1]}"))
        if decision == "meld" and not null_meld_is_legal(view):
            return checked_message(None, None, IllegalMoveError(
                "R12.5", "the partner answered yes, so the player must go out this turn: melding must go on "
                "until at most one card is left", seat=view.seat))
        return {"type": "checked", "move": None, "legal": True}
    if not isinstance(text, str):
        message = checked_message(text, None, MoveParseError(f"{shown_json(text)} is not a move in the notation"))
        if isinstance(text, (list, dict)):
            try:  # echoed as sent: nested deeper than the arbiter writes, it is no protocol message
                encode(message)
            except orjson.JSONEncodeError:  # orjson's TypeError, as for nesting past its 255 levels
                raise ProtocolError(f"the check's 'move' {shown_json(text)} is nested too deep to be a move") from None
        return message
    try:
        move = move_from_text(text)  # the canonical texts read straight into records, as answers are
        types, forms = _ANSWERING[decision]
        if not isinstance(move, types):
            raise MoveParseError(f"{text!r} does not answer the {decision} decision, which takes {forms}")
        view.verify(move)
    except (MoveParseError, ValueError) as error:
        return checked_message(text, None, error)
    return checked_message(text, move, None)


def unawaited_problem(line: bytes, message: dict[str, Any], playing: Mapping[int, object]) -> str:
    """What is wrong with a protocol-2 line that answers no game waiting for an answer: it names no game, names one by
    something other than its number, or names a game that owes no answer now."""
    shown = repr(line[:120].decode(errors="replace"))
    if "game" not in message:
        return f"the message {shown} names no game: every message after 'ready' names its game with 'game'"
    tag = message["game"]
    if type(tag) is not int:
        return (f"the message {shown} names its game by {shown_json(tag, 40)}: a game is named by the "
                "whole number its 'game' message gave, e.g. \"game\":0")
    if tag not in playing:
        return f"the message {shown} names game {tag}, which this process is not playing"
    return (f"the message {shown} names game {tag}, which is waiting for no answer (a second answer to one request, "
            "or a 'check' or 'view' after the answer)")
