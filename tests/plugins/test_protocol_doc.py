"""docs/protocol.md's examples hold against the arbiter: every move of its notation table parses back to
itself and is legal in a position built for it, and every complete message of its exchanges is one the
arbiter writes or accepts (the bot's through the arbiter's own parsers)."""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import ASK, Answer, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import HandResult, SideHandResult
from canasta_sim.core.state import ACQUIRE, PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.plugins.answers import CHOICE, LAZY_LISTINGS, LISTINGS, only_answer
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.messages import hand_result_from_message, view_message
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.protocol import (
    DECISIONS,
    check_answer,
    decode,
    parse_answer,
    parse_ready,
)
from tests.helpers import BOTS, position

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

# A position for each example move, built so that exactly that move is legal there (seat 0 to move).
POSITIONS = {
    "draw": lambda: position(seat=0, phase=ACQUIRE),
    "take 7 7": lambda: position(hands={0: "7 7 9 9 4 5"}, pile="4 8 7", melds={0: "K K K"}, seat=0),
    "take": lambda: position(hands={0: "9 4 5 6"}, pile="4 8 7", melds={0: "7 7 7"}, seat=0),
    "take Q 2": lambda: position(hands={0: "Q 2 9 4 5 6"}, pile="4 8 Q", melds={0: "K K K"}, seat=0),
    "take K K; A A 2": lambda: position(hands={0: "K K A A 2 5 6"}, pile="4 8 K", seat=0,
                                        side_has_melded=[False, False]),
    "meld K K K": lambda: position(hands={0: "K K K 5 6"}, melds={0: "Q Q Q"}, seat=0, phase=PLAY),
    "meld 8 8 2": lambda: position(hands={0: "8 8 2 5 6"}, melds={0: "Q Q Q"}, seat=0, phase=PLAY),
    "meld K K K; 8 8 JK": lambda: position(hands={0: "K K K 8 8 JK 5 6"}, seat=0, phase=PLAY,
                                           side_has_melded=[False, False]),
    "meld 7": lambda: position(hands={0: "7 5 6"}, melds={0: "7 7 7"}, seat=0, phase=PLAY),
    "meld 7:JK": lambda: position(hands={0: "JK 5 6"}, melds={0: "7 7 7"}, seat=0, phase=PLAY),
    "stop": lambda: position(seat=0, phase=ACQUIRE, stock_size=0, pile="4 8 7"),
    "ask": lambda: position(hands={0: "K K K 5"}, melds={0: "Q Q Q Q Q Q Q"}, seat=0, phase=PLAY),
    "answer yes": lambda: _asked(),
    "discard 9": lambda: position(hands={0: "9 5 6"}, seat=0, phase=PLAY),
}


def _asked():
    state = position(hands={0: "K K K 5"}, melds={0: "Q Q Q Q Q Q Q"}, seat=0, phase=PLAY)
    state.apply(ASK)
    return state


def _doc_moves() -> list[str]:
    table = DOC.split("<!-- moves:")[1].split("<!-- end moves -->")[0]
    return [row.split("|")[2].strip().strip("`") for row in table.splitlines() if row.startswith("| ") and "`" in row]


def test_the_doc_shows_a_move_of_every_form():
    moves = _doc_moves()
    assert set(moves) == set(POSITIONS), "a move example was added or removed: give it a position here"
    kinds = {type(parse_move(text)).__name__ for text in moves}
    assert kinds == {"Draw", "TakePile", "Meld", "Stop", "Ask", "Answer", "Discard"}


@pytest.mark.parametrize("text", _doc_moves())
def test_each_example_move_parses_back_to_itself_and_is_legal_in_its_position(text):
    move = parse_move(text)
    assert str(move) == text
    state = POSITIONS[text]()
    state.verify(move)  # raises IllegalMoveError naming the rule if the doc's example were wrong


def _exchanges() -> list[tuple[str, str]]:
    """Every complete message line (``>`` the arbiter's, ``<`` the bot's) of the doc's JSON blocks."""
    lines = []
    for block in re.findall(r"```json\n(.*?)```", DOC, flags=re.S):
        for line in block.splitlines():
            if line[:2] in ("> ", "< ") and "..." not in line:
                lines.append((line[0], line[2:]))
    return lines


def test_every_complete_message_of_the_doc_is_the_protocol():
    lines = _exchanges()
    assert len(lines) >= 20
    arbiter_types = {"hello", "game", "hand_start", "events", "hand_end", "decide", "checked", "view", "game_end",
                     "quit"}
    decision = None
    for side, text in lines:
        message = decode(text.encode())
        kind = message["type"]
        if side == ">":
            assert kind in arbiter_types, text
            if kind == "decide":
                decision = message["decision"]
                assert decision in DECISIONS
            if kind == "hand_end":
                assert hand_result_from_message(message["result"]).end_reason == "went_out"
            if kind == "hello":
                assert message["protocol"] == 2 and message["protocols"] == [1, 2]
        elif kind == "ready":
            assert parse_ready(message)["protocol"] in (1, 2)
        elif kind == "move":
            assert decision is not None, text
            parse_answer(decision, message)  # raises ProtocolError if the doc's answer were no answer
        else:
            assert kind in ("check", "view", "error"), text


def test_the_docs_checked_answers_are_the_arbiters():
    # The position of the doc's check example: seat 0 to meld, side A not yet melded (minimum 50).
    state = position(hands={0: "K K 7 7 2 2 4 9 Q 3b"}, pile="2 2 8 7 6", seat=0, phase=PLAY,
                     side_has_melded=[False, False])
    view = SeatView(state, 0, (0, 0))
    checked = [json.loads(text) for side, text in _exchanges() if side == ">" and '"checked"' in text]
    assert len(checked) >= 3
    for shown in checked:
        answer = check_answer(view, "meld", shown["move"])
        answer["game"] = shown["game"]
        assert answer == shown


def test_a_checked_answer_echoes_what_was_sent_when_it_is_no_move():
    state = position(hands={0: "K K 7 7 2 2 4 9 Q 3b"}, pile="2 2 8 7 6", seat=0, phase=PLAY,
                     side_has_melded=[False, False])
    view = SeatView(state, 0, (0, 0))
    for decision, sent, reason in [("discard", None, "null answers a meld or an ask decision only; the discard "
                                    "decision takes discard CARD"), ("meld", ["draw"], '["draw"] is not a move')]:
        answer = check_answer(view, decision, sent)
        assert answer["move"] == sent and answer["legal"] is False and reason in answer["reason"], answer
        assert "rule" not in answer


def test_the_doc_names_every_failure_reason_end_reason_and_hand_end_field():
    for reason in ("illegal", "exception", "malformed", "crash", "timeout"):
        assert f"| `{reason}` |" in DOC
    for end_reason in ("went_out", "stock_exhausted", "red_three_last_card", "turn_cap"):
        assert f"`{end_reason}`" in DOC
    for field in (*HandResult.FIELDS, *SideHandResult.FIELDS):
        assert f"`{field}`" in DOC, f"hand_end field {field} is not documented"


def test_the_doc_names_every_field_a_ready_may_hold():
    # The fields parse_ready reads, found in its source: a field added there and not here fails this test.
    fields = set(re.findall(r'message\.get\("(\w+)"', inspect.getsource(parse_ready))) - {"type"}
    assert {"protocol", "games", "legal", "hand_ends", "drawn", "events"} <= fields
    table = DOC.split("The bot's `ready`:")[1].split("\n\n")[1]
    named = set(re.findall(r"`(\w+)`", "\n".join(row.split("|")[1] for row in table.splitlines()[2:])))
    assert fields <= named, f"'ready' fields not in the doc's table: {sorted(fields - named)}"


def _listed(decision: str, view) -> list:
    # A request's list as the arbiter writes it: each move's text, None for null.
    return [None if move is None else str(move) for move in LISTINGS[decision](view)]


def test_the_docs_ask_answer_and_empty_lists_are_the_arbiters():
    row = next(line for line in DOC.splitlines() if line.startswith("| `legal` |"))
    ask_list, answer_list = map(json.loads, re.findall(r"list(?: is)? `(\[[^`]*\])`", row))
    state = _asked()
    assert _listed("answer", SeatView(state, 2, (0, 0))) == answer_list
    asker = position(hands={0: "K K K 5"}, melds={0: "Q Q Q Q Q Q Q"}, seat=0, phase=PLAY)
    assert _listed("ask", SeatView(asker, 0, (0, 0))) == ask_list
    # A yes binds seat 0 (4 cards) to go out: a null meld leaves its discard no legal answer, asked all the same.
    state.apply(Answer(True))
    bound = SeatView(state, 0, (0, 0))
    assert "`[]`" in row and _listed("discard", bound) == []
    assert only_answer(LAZY_LISTINGS["discard"](bound)) is CHOICE  # so a bot asked only its choices is asked it


def test_an_answer_requests_view_shows_the_asker_as_the_seat_to_move():
    assert "in an `answer` request `seat_to_move` is the asker" in DOC
    shown = view_message(SeatView(_asked(), 2, (0, 0)))
    assert shown["phase"] == "answer" and shown["seat_to_move"] == 0 and shown["seat"] == 2


@pytest.mark.timeout(60)
def test_a_process_numbers_its_games_from_0_and_a_request_after_no_move_has_no_events_field(tmp_path, monkeypatch):
    assert "numbers its games 0, 1, 2, ... in the order it\nopens them and never reuses a number" in DOC
    assert "A request that follows no move since\nthe bot's last request has no `events` field." in DOC
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy = load_strategy("greedy")
    bot = load_strategy(f"cmd:{sys.executable} {BOTS / 'protocol_simple.py'} 2 8 inline")
    for seed in (4, 5):
        play_game([bot, greedy, bot, greedy], seed=seed, rules=Rules(target_score=1000))
    close_all()
    games: dict[int, list[int]] = {}
    requests = []
    for entry in map(json.loads, log.read_text().splitlines()):
        if entry["message"]["type"] == "game":
            games.setdefault(entry["process"], []).append(entry["message"]["game"])
        elif entry["message"]["type"] == "decide":
            requests.append(entry["message"])
    assert games and all(numbers == list(range(len(numbers))) for numbers in games.values()), games
    assert max(map(len, games.values())) == 2  # each seat's process played both games, numbered 0 and 1
    assert all(request.get("events", True) for request in requests)  # never an empty list
    assert any("events" not in request for request in requests)


ASKING_BOT = """
import json, sys
views = {}
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({"type": "ready", "protocol": 2, "games": 4, "name": "asker", "legal": True,
                          "events": False, "hand_ends": False}), flush=True)
    elif kind == "hand_start":
        views[message["game"]] = message["view"]
    elif kind == "decide":
        game, legal = message["game"], message["legal"]
        view = views[game]
        view.update(message["view"])
        reply = {"type": "move", "game": game, "move": legal[0]}  # asks, answers yes, melds out as listed
        if message["decision"] == "meld" and view["answer"] is True and sum(view["hand"]) == 1:
            # the partner said yes and one card is left: the plan's discard goes out
            card = view["hand"].index(1)
            reply = {"type": "move", "game": game, "move": None, "then": [{"decision": "discard",
                     "move": "discard " + ["JK", "2", "3b", "3r", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                                           "A"][card]}]}
            print("planned out", file=sys.stderr, flush=True)
        print(json.dumps(reply), flush=True)
    elif kind == "quit":
        break
"""


@pytest.mark.timeout(60)
def test_under_mandatory_asking_a_plan_sent_after_the_partners_yes_may_go_out(tmp_path, caplog):
    # An ask ends a plan, so a plan sent before the answer cannot go out; one sent at a meld request after a yes
    # is judged as requests would be, its going out included.
    text = " ".join(DOC.split())
    assert "a plan sent before the partner's yes cannot go out" in text
    assert "a plan sent at a `meld` request after the yes may go out" in text
    bot = tmp_path / "asker.py"
    bot.write_text(ASKING_BOT)
    asker, greedy = load_strategy(f"cmd:{sys.executable} {bot}"), load_strategy("greedy")
    rules = Rules(target_score=1500, ask_partner="mandatory")
    with caplog.at_level("INFO", logger="canasta_sim.bots"):
        for seed in (1, 2, 3):
            play_game([asker, greedy, asker, greedy], seed=seed, rules=rules)  # no StrategyError: each plan legal
        close_all()
    assert "planned out" in caplog.text


@pytest.mark.timeout(60)
def test_an_ask_event_names_the_asker_and_the_answer_event_the_partner_who_answers(tmp_path, monkeypatch):
    said = "An `ask` names the seat that asks and the `answer yes`\nor `answer no` after it the partner that answers"
    assert said + ': `[0,"ask",0],[2,"answer yes",0]`.' in DOC
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy = load_strategy("greedy")
    bot = load_strategy(f"cmd:{sys.executable} {BOTS / 'protocol_simple.py'} 2 8 events")
    for seed in range(4):  # greedy asks whenever it may; the bot answers its partner at seat 2
        play_game([bot, greedy, greedy, greedy], seed=seed, rules=Rules(target_score=1000))
    close_all()
    heard = [event for entry in map(json.loads, log.read_text().splitlines())
             if entry["message"]["type"] == "events" for event in entry["message"]["events"]]
    pairs = [(asked, answered) for asked, answered in zip(heard, heard[1:], strict=False) if asked[1] == "ask"]
    assert all(answered[0] == (asked[0] + 2) % 4 and answered[1].startswith("answer ") for asked, answered in pairs)
    assert any(answered[0] == 0 for _, answered in pairs), pairs  # the bot's own answers among them
