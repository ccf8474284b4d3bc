"""The bot server's side of a request: the view's fields set in compiled code, the events a seat hears, and
an event follower fed each move as the engine feeds it in-process."""

import dataclasses
import os
import subprocess
import sys

import orjson
import pytest

from canasta_sim.core.cards import RED_THREE, TWO
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.core.wire import EventLog, set_view_fields
from canasta_sim.plugins.messages import MessageView, view_message
from canasta_sim.plugins.server import BotServer, serve
from canasta_sim.strategies import Greedy


def _first_view() -> tuple[dict, Rules]:
    """The whole view message of the first decision of a game, as the arbiter sends it."""
    seen = []

    class Watching(Greedy):
        def choose_acquire(self, view):
            if not seen:
                seen.append(orjson.loads(orjson.dumps(view_message(view))))
            return super().choose_acquire(view)

    rules = Rules(target_score=500)
    play_game([Watching, Greedy, Greedy, Greedy], seed=3, rules=rules)
    return seen[0], rules


@pytest.mark.timeout(30)
def test_setting_a_view_refuses_fields_it_does_not_know_and_a_whole_view_missing_one():
    message, rules = _first_view()
    view = MessageView(message, rules)
    with pytest.raises(KeyError, match="bogus"):
        set_view_fields(view._state, view.seat, {"phase": "play", "bogus": 1}, False, None)
    partial = {key: value for key, value in message.items() if key != "pile"}
    with pytest.raises(KeyError, match="pile"):
        set_view_fields(view._state, view.seat, partial, True, None)
    # the changes it knows are set, the others kept: a seat's hand and the stock's size
    hand = [0] * 15
    hand[7] = 2
    seen = set_view_fields(view._state, view.seat, {"hand": hand, "stock_count": 9, "initial_minimum": [0, 0]},
                           False, message["melds"])
    assert list(view.hand) == hand and view.stock_count == 9
    assert seen is message["melds"]
    assert view._state.hands[(view.seat + 1) % 4] == (0,) * 15  # another seat's hand stays unknown


@pytest.mark.timeout(30)
def test_each_seat_hears_a_move_once_as_its_event_line():
    first, second = EventLog(), EventLog()
    second.mover = 2
    second.known = 1  # seat 2 planned its next move: it is not written back to it
    discard = PublicEvent(2, parse_move("discard 7"), 0)
    for log in (first, second):
        log.hear(discard)
    draw = PublicEvent(3, parse_move("draw"), 1)
    again = PublicEvent(1, parse_move("discard 7"), 0)  # an equal move, another record: the same text
    for event in (draw, again):
        for log in (first, second):
            log.hear(event)
    assert first.take() == b'[2,"discard 7",0],[3,"draw",1],[1,"discard 7",0]'
    assert second.take() == b'[3,"draw",1],[1,"discard 7",0]'


@pytest.mark.timeout(30)
def test_a_follower_that_is_no_card_memory_is_the_strategy_s_error(tmp_path):
    path = tmp_path / "follows.py"
    path.write_text(
        "from canasta_sim import Strategy\n"
        "from canasta_sim.strategies import Greedy\n\n\n"
        "class Follows(Greedy):\n"
        "    name = 'follows'\n\n"
        "    def on_event(self, event):\n"
        "        pass\n\n"
        "    def event_follower(self):\n"
        "        return 'a note'\n",
        encoding="utf-8",
    )
    message, rules = _first_view()
    server = BotServer(f"{path}:Follows")
    assert server.handle({"type": "game", "game": 0, "seat": message["seat"], "seed": 5, "rules": rules.options(),
                          "parameters": {}, "time_limit": 60.0}) is None
    reply = server.handle({"type": "hand_start", "game": 0, "view": message})
    assert reply["type"] == "error" and "event follower that is not a CardMemory" in reply["message"]
    assert reply["game"] == 0


_BOT_MACHINERY = ("canasta_sim.plugins.proxy", "canasta_sim.plugins.channel", "canasta_sim.plugins.process",
                  "canasta_sim.plugins.affinity", "greenlet")
"""The arbiter's side of the bots (the standard library's modules it imports are left out: other code may import
them); a bot process answers its requests without any of it."""


@pytest.mark.timeout(60)
def test_a_bot_process_imports_none_of_the_arbiters_bot_machinery():
    # Every isolated seat starts a bot process: these imports, with the standard library's they bring, cost every
    # start about a fifth of its instructions, so a bot server that needed one would show here.
    script = (
        "import sys\n"
        "from canasta_sim.plugins.server import BotServer, serve\n"
        "server = BotServer('expert')\n"
        "assert server.handle({'type': 'hello', 'protocol': 2})['type'] == 'ready'\n"
        f"print(','.join(name for name in {_BOT_MACHINERY!r} if name in sys.modules))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=50)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "", f"a bot server imported {completed.stdout.strip()}"



@pytest.mark.timeout(30)
@pytest.mark.parametrize("last_card", ["end_no_meld", "meld_no_discard"])
def test_a_shown_draw_of_a_red_3_as_the_last_card_ends_the_turn_s_plan_as_the_engine_ends_the_turn_r13_1(last_card):
    message, rules = _first_view()
    rules = dataclasses.replace(rules, last_card_red_three=last_card)
    # A deuce on the pile (R8.1: no take) and one card left: the draw is forced, and the card shown a red 3.
    view = {**message, "pile": [TWO], "pile_freezers": 1, "stock_count": 1}
    server = BotServer("greedy")
    server.handle({"type": "game", "game": 0, "seat": message["seat"], "seed": 1, "rules": rules.options(),
                   "parameters": {}, "time_limit": None})
    server.handle({"type": "hand_start", "game": 0, "view": view})
    reply = server.handle({"type": "decide", "game": 0, "decision": "acquire", "view": {}, "drawn": [RED_THREE]})
    state = server.games[0].view._state
    assert reply["move"] == "draw" and state.red_threes[message["seat"]] == message["red_threes"][message["seat"]] + 1
    if last_card == "end_no_meld":
        assert reply["then"] == [] and state.end_reason == "red_three_last_card"
    else:  # the turn goes on to its melds, and ends without a discard
        assert state.must_stop and reply["then"][-1] == {"decision": "meld", "move": None}
        assert all(item["decision"] != "discard" for item in reply["then"])


def _served(spec: str, messages: list[dict]) -> list[dict]:
    """The replies the bot server of ``spec`` writes, through :func:`serve`, to ``messages`` (one line each)."""
    server = BotServer(spec)
    source_out, source_in = os.pipe()
    sink_out, sink_in = os.pipe()
    os.write(source_in, b"".join(orjson.dumps(message) + b"\n" for message in messages))
    os.close(source_in)
    serve(server, source_out, sink_in)
    os.close(source_out)
    os.close(sink_in)
    with os.fdopen(sink_out, "rb") as replies:
        return [orjson.loads(line) for line in replies.read().splitlines()]


def _opening(message: dict, rules: Rules) -> list[dict]:
    return [{"type": "game", "game": 0, "seat": message["seat"], "seed": 1, "rules": rules.options(),
             "parameters": {}, "time_limit": None},
            {"type": "hand_start", "game": 0, "view": message}]


@pytest.mark.timeout(30)
def test_a_decide_request_the_server_cannot_read_is_refused_as_every_unreadable_line_not_as_the_strategy_s():
    # It answered "raised KeyError: 'view'", as if the strategy had raised; then in words of its own, beside the
    # refusal of every other line it could not read.
    message, rules = _first_view()
    no_view, other, unhashable, played = _served("greedy", [
        *_opening(message, rules),
        {"type": "decide", "game": 0, "decision": "acquire"},
        {"type": "decide", "game": 0, "decision": "pass", "view": {}},
        {"type": "decide", "game": 0, "decision": ["acquire"], "view": {}},
        {"type": "decide", "game": 0, "decision": "acquire", "view": {}},
    ])
    assert no_view == {"type": "error", "game": 0, "message": "the 'decide' message '{\"type\":\"decide\",\"game\":0,"
                       "\"decision\":\"acquire\"}' could not be read: it has no 'view' object (the view's changes "
                       "since the last request, or the whole view)"}
    assert "could not be read: its 'decision' is \"pass\", not one of 'acquire'" in other["message"]
    assert "could not be read: its 'decision' is [\"acquire\"], not one of 'acquire'" in unhashable["message"]
    assert "reason" not in no_view and played["move"] == "draw"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("name", "said"), [
    ("RaisesTheRefusal", "raised _Unreadable: posing as the server"),
    ("RaisesKeyError", "raised KeyError: 'view'"),
    ("RaisesValueErrorAtHandStart", "raised ValueError: posing as a line that is not JSON (in on_hand_start)"),
])
def test_what_a_strategy_raises_is_its_failure_even_what_the_server_raises_for_a_line_it_cannot_read(name, said):
    # The server's own refusal must not swallow a strategy's exception of the same kind: every call into the
    # strategy stays under handle's catch-all, charged to the strategy.
    message, rules = _first_view()
    replies = _served(f"tests/bots/raises_like_the_server.py:{name}", [
        *_opening(message, rules), {"type": "decide", "game": 0, "decision": "acquire", "view": {}}])
    assert replies[0] == {"type": "error", "game": 0, "message": said}
