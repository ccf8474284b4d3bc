"""Fuzzing the bot protocol's readers: the inputs (hypothesis strategies) and the properties they must keep, shared
by the property tests (``tests/plugins/test_protocol_properties.py``, a few examples each) and the longer campaigns
of ``scripts/fuzz_protocol.py`` (:data:`PROPERTIES`).

The inputs:

* :func:`move_texts`: texts near the move notation (its words, cards with suits and aliases, groups with and without
  a rank, odd spacing and separators) and any text at all; :func:`random_move_text` draws the same shapes from a
  seeded generator, for a corpus two processes read alike;
* :func:`reply_lines`, :func:`naming_lines`: lines a bot may write: any bytes, not UTF-8, not JSON, JSON of any
  shape, messages of every type with fields of every kind (huge and fractional numbers, texts, nesting deeper than
  any writer allows, duplicate keys, ``NaN``);
* :func:`request_lines`: lines the bot server may read, in the same spirit, after :func:`game_opening` opened a game.

The properties (each a ``check_`` function, raising ``AssertionError`` when broken):

* :func:`check_move_text`: the compiled reader (``move_from_text``) and the general one (``parse_move``) give the
  same record or the same ``MoveParseError``, and a text that parses round-trips (``str(record)`` reads back as an
  equal record and is its own canonical form);
* :func:`check_record_text`: the text of any record the readers can make reads back as that record;
* :func:`check_reply_line`: the arbiter reads any line as a message or a ``ProtocolError``, a message as an answer's
  value or a ``ProtocolError``, and answers a ``check`` with a message it can write (or a ``ProtocolError``);
* :func:`check_dispatch`: a shared bot process hands any line to the game it answers or charges it as ``malformed``,
  in one line, and never raises;
* :func:`check_server_lines`: the bot server answers every line it reads (an ``error`` for one it cannot read) and
  goes on to the next.
"""

from __future__ import annotations

import functools
import json
import random

import orjson
from hypothesis import strategies as st

CANONICAL_CARDS = ("JK", "2", "3b", "3r", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
CARDS = ("JK", "joker", "Joker", "2", "3b", "3r", "3", "3s", "3♥", "3♣", "3d", "4", "5", "6", "7", "8", "9", "10",
         "T", "J", "Q", "K", "A", "Ks", "k", "a♠", "10h", "JKs", "x", "11", "0", "-1", "", "wild", "Wild")
"""Card tokens: every kind's name, aliases, suits, case, and near misses."""
SEPARATORS = (" ", "  ", ",", " , ", "\t", "\u00a0", "\u2003", "")
VERBS = ("draw", "take", "meld", "discard", "ask", "answer yes", "answer no", "answer", "stop", "Take", "MELD",
         " meld", "dRaW", "discard:", "yes")
GROUP_SEPARATORS = (";", "; ", " ;", ";;", " ; ")


def _cards(tokens: list[str], separators: list[str]) -> str:
    return "".join(token + separator for token, separator in zip(tokens, separators, strict=False))


@st.composite
def _card_list(draw) -> str:
    # Mostly the canonical names, one space apart: a text must read whole for its record to be written back.
    tokens = draw(st.lists(st.one_of(st.sampled_from(CANONICAL_CARDS), st.sampled_from(CARDS)), max_size=6))
    spaces = st.one_of(st.just(" "), st.sampled_from(SEPARATORS))
    return _cards(tokens, draw(st.lists(spaces, min_size=len(tokens), max_size=len(tokens))))


@st.composite
def _group(draw) -> str:
    cards = draw(_card_list())
    if draw(st.booleans()):
        return draw(st.sampled_from(CANONICAL_CARDS + CARDS)) + draw(st.sampled_from((":", " : ", ": "))) + cards
    return cards


@st.composite
def _groups(draw) -> str:
    return draw(st.sampled_from(GROUP_SEPARATORS)).join(draw(st.lists(_group(), max_size=4)))


@st.composite
def _notation(draw) -> str:
    verb = draw(st.sampled_from(VERBS))
    space = draw(st.sampled_from((" ", "", "  ")))
    rest = draw(st.one_of(_card_list(), _groups(),
                          st.tuples(_card_list(), st.sampled_from(GROUP_SEPARATORS), _groups()).map("".join)))
    return verb + space + rest


_KINDS = st.integers(min_value=0, max_value=14)
_GROUPS = st.builds(lambda rank, cards: (rank, tuple(cards)), _KINDS, st.lists(_KINDS, min_size=1, max_size=5))


def _record(kind: str, cards: tuple, groups: list, card: int):
    from canasta_sim.core.moves import Discard, Meld, MeldGroup, TakePile

    made = [MeldGroup(rank, group_cards) for rank, group_cards in groups]
    if kind == "meld":
        return Meld(tuple(made))
    if kind == "take":
        return TakePile(cards, tuple(made[1:]))
    return Discard(card)


def move_records() -> st.SearchStrategy:
    """Records of every shape the readers can make: any kinds in any group (of any rank), takes with and without
    cards or melds, discards."""
    return st.builds(_record, st.sampled_from(("meld", "take", "discard")), st.lists(_KINDS, max_size=4).map(tuple),
                     st.lists(_GROUPS, min_size=1, max_size=3), _KINDS)


def _as_typed(text: str, upper: bool, spaces: str) -> str:
    """``text`` as a person may type it: another case, other spacing."""
    return (text.upper() if upper else text).replace(" ", spaces)


def move_texts() -> st.SearchStrategy[str]:
    """Texts near the move notation (records' texts as typed, and near misses), and any text."""
    typed = st.builds(_as_typed, move_records().map(str), st.booleans(), st.sampled_from((" ", "  ", "\t ")))
    return st.one_of(_notation(), typed, st.text(max_size=40))


def random_move_text(rng: random.Random) -> str:
    """A text of :func:`move_texts`' near-notation shapes, drawn from ``rng``."""
    def cards() -> str:
        return "".join(rng.choice(CARDS) + rng.choice(SEPARATORS) for _ in range(rng.randint(0, 6)))

    def group() -> str:
        return rng.choice(CARDS) + rng.choice((":", " : ")) + cards() if rng.random() < 0.3 else cards()

    groups = rng.choice(GROUP_SEPARATORS).join(group() for _ in range(rng.randint(0, 4)))
    rest = rng.choice((cards(), groups, cards() + rng.choice(GROUP_SEPARATORS) + groups))
    return rng.choice(VERBS) + rng.choice((" ", "", "  ")) + rest


# ------------------------------------------------------------------------------------------ JSON lines

_JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
JSON_VALUES = st.recursive(_JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
"""Any JSON value, small."""

_DEEP = "\u0000deep:"


def _deep(depth: int) -> str:
    """A placeholder for an array nested ``depth`` deep, spliced into the line as text (no encoder writes it)."""
    return f"{_DEEP}{depth}\u0000"


def _line(message: dict) -> bytes:
    text = json.dumps(message, ensure_ascii=False)
    marker = json.dumps(_DEEP)[:-1]  # the placeholder as JSON writes it: its control character escaped
    while marker in text:
        start = text.index(marker)
        end = text.index('"', start + 1)
        depth = int(json.loads(text[start:end + 1])[len(_DEEP):-1])
        text = text[:start] + "[" * depth + "]" * depth + text[end + 1:]
    return text.encode(errors="surrogatepass")


DEEP_VALUES = st.one_of(st.sampled_from((254, 255, 256, 300, 999, 1000, 1020, 1023, 1024, 1025)),
                        st.integers(min_value=1, max_value=1100)).map(_deep)
"""Arrays nested up to past the reader's own limit (1024), around the writer's (255) and Python's recursion limit."""
FIELD_VALUES = st.one_of(JSON_VALUES, DEEP_VALUES, move_texts())
GAMES = st.one_of(st.integers(min_value=-2, max_value=5), st.integers(min_value=2 ** 60, max_value=2 ** 70),
                  st.sampled_from([0.0, 1.0, 1e300, True, False, "0", None]), DEEP_VALUES, JSON_VALUES)

ODD_LINES = (b"", b"I am not JSON", b'{"type":"move","move":NaN}', b'{"type":"move","move":Infinity}',
             b'{"type":"move","move":"draw","move":"stop"}', b'{"type":"move","move":"\xff\xfe"}', b"\xff\xfe\x00",
             b'{"type":"move","move":"draw"} trailing', b'{"type":"move","move":"\\ud800"}', b"null", b"[]", b'"move"',
             b'{"type":"move","game":1e400}', b'{"type":"move","move":123456789012345678901234567890}',
             b'{"type":"move","move":"draw","game":' + b"[" * 1000 + b"]" * 1000 + b"}",
             b'{"type":"error","game":0,"message":' + b"[" * 1000 + b"]" * 1000 + b"}")
"""Lines no generator writes by chance: not UTF-8, not JSON (NaN, infinity, trailing text, a lone surrogate), or
JSON of doubtful meaning (a key twice, an integer past 64 bits), or nested past Python's recursion limit where a
game's number or an error's message goes."""


@st.composite
def _reply(draw) -> bytes:
    message = {"type": draw(st.one_of(st.sampled_from(("move", "check", "view", "error", "ready", "hello")),
                                      st.text(max_size=8)))}
    fields = {"move": FIELD_VALUES, "game": GAMES, "message": FIELD_VALUES, "reason": FIELD_VALUES,
              "then": st.one_of(FIELD_VALUES, st.lists(st.dictionaries(
                  st.sampled_from(("decision", "move", "error", "reason")),
                  st.one_of(st.sampled_from(("meld", "discard", "ask", "acquire")), FIELD_VALUES)), max_size=3))}
    for name in draw(st.lists(st.sampled_from(sorted(fields)), unique=True)):
        message[name] = draw(fields[name])
    return _line(message)


def reply_lines() -> st.SearchStrategy[bytes]:
    """Lines a bot may write (without their newline)."""
    deep = DEEP_VALUES.map(lambda value: _line({"v": value})[5:-1])  # an array nested deep, alone on its line
    raw = st.binary(max_size=40).filter(lambda line: b"\n" not in line)
    plain = JSON_VALUES.map(lambda value: json.dumps(value).encode())
    return st.one_of(_reply(), st.sampled_from(ODD_LINES), raw, plain, deep)


def naming_lines() -> st.SearchStrategy[bytes]:
    """Answers naming their game by any value: what a shared process reads first of a line."""
    return st.builds(lambda game: _line({"type": "move", "move": "draw", "game": game}), GAMES)


# ------------------------------------------------------------------------------------------ the server's side


@functools.cache
def game_opening() -> tuple[bytes, bytes]:
    """A ``game`` message opening game 0 and its ``hand_start``, as the arbiter writes them."""
    from canasta_sim.core.engine import play_game
    from canasta_sim.core.rules import Rules
    from canasta_sim.plugins.messages import view_message
    from canasta_sim.strategies import Greedy

    seen = []

    class Watching(Greedy):
        def choose_acquire(self, view):
            if not seen:
                seen.append(view_message(view))
            return super().choose_acquire(view)

    rules = Rules(target_score=500)
    play_game([Watching, Greedy, Greedy, Greedy], seed=3, rules=rules)
    view = seen[0]
    game = {"type": "game", "game": 0, "seat": view["seat"], "seed": 5, "rules": rules.options(), "parameters": {},
            "time_limit": 60.0}
    return orjson.dumps(game), orjson.dumps({"type": "hand_start", "game": 0, "view": view})


@st.composite
def _request(draw) -> bytes:
    kinds = ("hello", "game", "game_end", "decide", "events", "hand_start", "hand_end")
    message = {"type": draw(st.one_of(st.sampled_from(kinds), st.text(max_size=8), JSON_VALUES))}
    small = st.one_of(JSON_VALUES, DEEP_VALUES)
    fields = {"game": st.one_of(st.just(0), GAMES), "decision": st.one_of(st.sampled_from(
        ("acquire", "ask", "answer", "meld", "discard")), small), "view": st.one_of(st.just({}), small),
        "events": st.one_of(st.lists(st.tuples(st.integers(0, 3), move_texts(), st.integers(0, 2)), max_size=3), small),
        "drawn": st.one_of(st.lists(st.integers(-1, 16), max_size=3), small), "result": small, "rules": small,
        "seat": small, "seed": small, "parameters": small, "time_limit": small, "legal": small}
    for name in draw(st.lists(st.sampled_from(sorted(fields)), unique=True)):
        message[name] = draw(fields[name])
    return _line(message)


def request_lines() -> st.SearchStrategy[bytes]:
    """Lines the bot server may read (without their newline), none of them ``quit``."""
    return st.one_of(_request(), st.sampled_from(ODD_LINES),
                     st.binary(max_size=40).filter(lambda line: b"\n" not in line and b"quit" not in line))


# ------------------------------------------------------------------------------------------ the properties


def _read(parse, text: str):
    from canasta_sim.errors import MoveParseError

    try:
        return parse(text), None
    except MoveParseError as error:
        return None, str(error)


def check_move_text(text: str) -> None:
    """Both move readers agree on ``text``, and what parses round-trips."""
    from canasta_sim.core.moves import parse_move
    from canasta_sim.core.wire import move_from_text

    expected, expected_error = _read(parse_move, text)
    move, error = _read(move_from_text, text)
    assert (error, repr(move)) == (expected_error, repr(expected)), text
    if move is not None:
        canonical = str(move)
        for parse in (parse_move, move_from_text):
            again = parse(canonical)
            assert again == move and type(again) is type(move) and str(again) == canonical, (text, canonical)


def check_record_text(record) -> None:
    """The text of any record the readers can make reads back, by both, as an equal record."""
    from canasta_sim.core.moves import parse_move
    from canasta_sim.core.wire import move_from_text

    text = str(record)
    for parse in (parse_move, move_from_text):
        again = parse(text)
        assert again == record and str(again) == text, (record, text)


@functools.cache
def _views() -> dict:
    from canasta_sim.core.state import PLAY
    from canasta_sim.core.view import SeatView
    from tests.helpers import position

    acquire = position(hands={0: "K K 7 7 8 9 JK 2 4 5 6"}, pile="9 7")
    play = position(hands={0: "K K K 7 7 8 9 JK 2 4 5 6"}, pile="9 7", phase=PLAY)
    return {"acquire": SeatView(acquire, 0, (0, 0)), "meld": SeatView(play, 0, (0, 0)),
            "discard": SeatView(play, 0, (0, 0))}


DECISIONS = st.sampled_from(("acquire", "ask", "answer", "meld", "discard"))


def check_reply_line(line: bytes, decision: str) -> None:
    """The arbiter reads ``line`` as a message or a ``ProtocolError``, then as the answer to ``decision``, and answers
    it as a ``check`` with a message it can write."""
    from canasta_sim.plugins.protocol import ProtocolError, check_answer, decode, encode, parse_answer

    try:
        message = decode(line)
    except ProtocolError as error:
        assert "\n" not in str(error)
        return
    assert type(message) is dict and type(message["type"]) is str
    try:
        parse_answer(decision, message)
    except ProtocolError as error:
        assert "\n" not in str(error)
    view = _views().get(decision)
    if view is not None:
        try:
            answer = check_answer(view, decision, message.get("move"))
        except ProtocolError:
            return
        assert orjson.loads(encode(answer))["type"] == "checked"


class _NoProcess:
    """What a shared bot needs of its process to dispatch lines, with no process behind it."""

    process = object()

    def kill(self) -> None:
        self.process = None

    def stderr_tail(self) -> str:
        return ""


def check_dispatch(line: bytes, tagged: bool) -> None:
    """A shared bot process (protocol 2 if ``tagged``, else 1) hands ``line`` to the game waiting for it or charges
    it as ``malformed``, and never raises."""
    from canasta_sim.plugins.channel import SharedBot

    shared = SharedBot(_NoProcess(), tagged=tagged, capacity=4 if tagged else 1)
    first = shared.endpoint()
    if tagged:
        shared.endpoint()  # a second game, waiting for no answer
    shared.awaiting[first.tag] = first
    shared.owed.append(first)
    shared.dispatch(line)
    if shared.failure is None:
        assert first.reply is not None or tagged, line
    else:
        assert shared.failure.reason == "malformed" and "\n" not in str(shared.failure), shared.failure


@functools.cache
def _server():
    from canasta_sim.plugins.server import BotServer

    return BotServer("random")


def check_server_lines(lines: list[bytes]) -> None:
    """The bot server, its game 0 opened, answers every line of ``lines`` as it can and then a last ``hello``."""
    import tempfile

    from canasta_sim.plugins.server import serve

    opening = [b'{"type":"hello","protocol":2}', *game_opening()]
    with tempfile.TemporaryFile() as source, tempfile.TemporaryFile() as sink:
        source.write(b"\n".join([*opening, *lines, b'{"type":"hello"}']) + b"\n")
        source.seek(0)
        serve(_server(), source.fileno(), sink.fileno())
        sink.seek(0)
        replies = [orjson.loads(line) for line in sink.read().splitlines()]
    # The last hello is answered too: nothing before it stopped the server.
    assert replies[0]["type"] == "ready" and replies[-1]["type"] == "ready", replies[-3:]
    assert all(type(reply) is dict and reply["type"] in ("ready", "move", "error") for reply in replies), replies
    assert all(reply["type"] != "error" or "\n" not in reply["message"] for reply in replies), replies


_NESTED = b"[" * 1000 + b"]" * 1000  # past Python's recursion limit, within the reader's (1024)

PROPERTIES = {
    "move-text": (check_move_text, (move_texts(),), [("meld 2:2",), ("meld K:7 K",)]),
    "record-text": (check_record_text, (move_records(),), []),
    "reply-line": (check_reply_line, (reply_lines(), DECISIONS), [
        (b'{"type":"move","move":' + _NESTED + b"}", "discard"),
        (b'{"type":"check","move":' + b"[" * 300 + b"]" * 300 + b"}", "meld"), (_NESTED, "acquire")]),
    "dispatch": (check_dispatch, (st.one_of(reply_lines(), naming_lines()), st.booleans()), [
        (b'{"type":"move","move":"draw","game":' + _NESTED + b"}", True), (_NESTED, True), (_NESTED, False)]),
    "server": (check_server_lines, (st.lists(request_lines(), min_size=1, max_size=6),), [
        ([b"I am not JSON", b"null", b'{"type":"game","game":0}', b'{"type":"hello","game":' + _NESTED + b"}"],)]),
}
"""Each property by name: its check, the strategies of its arguments, and inputs that once broke it (tried first)."""


def with_examples(name: str, run):
    """``run`` (a property's check under ``given``) trying first the inputs that once broke property ``name``."""
    from hypothesis import example

    for arguments in PROPERTIES[name][2]:
        run = example(*arguments)(run)
    return run
