"""The ready message of protocol 2: what a bot asks for as it starts (hand ends, its events inline, a forced draw's
cards or only its choices), each field refused by name when it is not one the protocol knows or not of its kind, and
the games a bot asking for less or for more plays: the same as in-process (docs/protocol.md).
"""

from __future__ import annotations

import shlex
import sys

import orjson
import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.protocol import INLINE_EVENTS, ProtocolError, parse_ready
from canasta_sim.plugins.server import BotServer
from tests.helpers import BOTS

MISBEHAVING = BOTS / "protocol_misbehaving.py"


@pytest.mark.timeout(30)
def test_ready_may_refuse_hand_ends_and_says_so_as_true_or_false():
    base = {"type": "ready", "protocol": 2, "name": "b"}
    assert parse_ready(base)["hand_ends"] is True
    assert parse_ready({**base, "hand_ends": False})["hand_ends"] is False
    with pytest.raises(ProtocolError, match="'hand_ends' must be true or false"):
        parse_ready({**base, "hand_ends": "no"})
    # the bot server refuses them for a strategy that does not hear hand ends, and asks for them otherwise
    assert BotServer("expert").ready()["hand_ends"] is False
    assert BotServer(f"{MISBEHAVING}:Listens").ready()["hand_ends"] is True


def _recorded_expert(tmp_path, seeds) -> tuple[type, dict]:
    """Play ``seeds`` with expert isolated (each process's input recorded) and in-process, the games equal; the
    bot's class and each recorded process's messages."""
    rules = Rules(target_score=1500)
    greedy, expert = load_strategy("greedy"), load_strategy("expert")
    inner = f"tee {tmp_path}/in.$$ | {sys.executable} -m canasta_sim.plugins.server expert"
    isolated = load_strategy("cmd:sh -c " + shlex.quote(inner))
    for seed in seeds:
        assert (play_game([isolated, greedy, isolated, greedy], seed=seed, rules=rules)
                == play_game([expert, greedy, expert, greedy], seed=seed, rules=rules))
    close_all()
    return isolated.cls, {path: [orjson.loads(line) for line in path.read_bytes().splitlines()]
                          for path in tmp_path.glob("in.*")}


@pytest.mark.timeout(120)
def test_a_bot_refusing_hand_ends_is_sent_none_and_plays_the_same_games(tmp_path):
    cls, recorded = _recorded_expert(tmp_path, (4, 5))
    assert cls.hears_hand_ends is False
    lines = [message for messages in recorded.values() for message in messages]
    kinds = {message["type"] for message in lines}
    assert {"hand_start", "events", "decide"} <= kinds and "hand_end" not in kinds


def test_a_ready_may_ask_for_its_events_inline():
    base = {"type": "ready", "protocol": 2, "name": "b"}
    assert parse_ready(base)["inline_events"] is False
    assert parse_ready({**base, "events": True})["inline_events"] is False
    ready = parse_ready({**base, "events": INLINE_EVENTS})
    assert ready["inline_events"] is True and ready["events"] is True
    assert parse_ready({**base, "events": False})["events"] is False
    for wrong in ("false", 0, "Inline", None):
        with pytest.raises(ProtocolError, match="'events' must be true, false or \"inline\"; got "):
            parse_ready({**base, "events": wrong})
    # the bot server asks for them for a strategy that hears events, and for none otherwise
    assert BotServer("expert").ready()["events"] == INLINE_EVENTS
    assert BotServer("greedy").ready()["events"] is False


def test_a_ready_field_the_protocol_does_not_know_is_refused_by_name():
    with pytest.raises(ProtocolError, match="'ready' has no field \"choices_onyl\"; its fields are choices_only, "):
        parse_ready({"type": "ready", "protocol": 2, "name": "b", "choices_onyl": True})


@pytest.mark.parametrize(("field", "served"), [("drawn", True), ("choices_only", False)])
def test_a_ready_may_ask_for_a_forced_draw_s_cards_or_only_its_choices_as_true_or_false(field, served):
    base = {"type": "ready", "protocol": 2, "name": "b"}
    assert parse_ready(base)[field] is False
    assert parse_ready({**base, field: True})[field] is True
    assert parse_ready({**base, "protocol": 1, field: True})[field] is True
    with pytest.raises(ProtocolError, match=f"'{field}' must be true or false; got \"yes\""):
        parse_ready({**base, field: "yes"})
    # The bot server plans the turn a shown draw begins, and is asked every decision: a strategy's decision methods
    # may keep state, as in-process.
    assert BotServer("expert").ready()[field] is served


@pytest.mark.timeout(120)
def test_a_bot_taking_events_inline_hears_each_request_s_in_it_and_plays_the_same_games(tmp_path):
    cls, recorded = _recorded_expert(tmp_path, (6, 7))
    assert cls.inline_events is True
    carried = 0
    for messages_of_process in recorded.values():
        by_game: dict = {}
        for message in messages_of_process:
            by_game.setdefault(message.get("game"), []).append(message)
        for messages in by_game.values():
            for before, after in zip(messages, messages[1:], strict=False):
                # events never come on their own right before a request: they ride in it
                assert not (before["type"] == "events" and after["type"] == "decide")
            carried += sum(1 for message in messages if message["type"] == "decide" and message.get("events"))
    assert carried > 50


def test_a_ready_name_keeps_colons_and_spaces_out_unless_from_canasta_sims_own_server():
    # isolated: serves an in-process strategy under its own name, which a policy: spec writes with colons.
    for name in ("a:b", "a@b", "a b"):
        with pytest.raises(ProtocolError, match="needs a 'name' without"):
            parse_ready({"type": "ready", "protocol": 2, "name": name})
    assert parse_ready({"type": "ready", "protocol": 2, "name": "policy:my agent.py:act"},
                       own_server=True)["name"] == "policy:my agent.py:act"
    with pytest.raises(ProtocolError):
        parse_ready({"type": "ready", "protocol": 2, "name": "a\nb"}, own_server=True)
