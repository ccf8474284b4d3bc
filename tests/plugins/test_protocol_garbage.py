"""A protocol bot that writes garbage in the middle of a game: the run goes on, the game it wrote it in is charged to
its seat with the reason docs/protocol.md names, and every other game is the one a well-behaved bot plays; a bot
padding its answers costs the worker no memory, and an isolated strategy's odd meld reaches the arbiter whole.

The bot is written to a temporary folder by the tests: a protocol-2 bot playing each request's first legal answer,
which in the games named by its ``plan`` parameter (``SEED.KIND+...``, a seat's seed and a kind of garbage) answers
its first request with that garbage instead.  All kinds are played in one run, side by side, one game each.
"""

from __future__ import annotations

import array
import sys
import threading

import orjson
import pytest

from canasta_sim.core.engine import derive_seed
from canasta_sim.core.moves import DRAW, Meld, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.wire import move_from_text
from canasta_sim.errors import StrategyError
from canasta_sim.plugins import protocol
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.protocol import answer_value
from canasta_sim.plugins.server import BotServer
from canasta_sim.runs.interleave import games_at_once, play_side_by_side
from canasta_sim.runs.local_backend import RunSchedule
from canasta_sim.runs.runner import RunSettings
from tests.protocol_fuzzing import game_opening

BOT = r'''import json, os, sys

def deep(depth):
    return "[" * depth + "]" * depth

GARBAGE = {
    "not_utf8": '{"type":"move","game":G,"move":"\udcff"}',
    "nan": '{"type":"move","game":G,"move":NaN}',
    "deep_line": deep(1000),
    "deep_game": '{"type":"move","move":"draw","game":' + deep(1000) + '}',
    "deep_move": '{"type":"move","game":G,"move":' + deep(1000) + '}',
    "deep_check": '{"type":"check","game":G,"move":' + deep(300) + '}',
    "deep_error": '{"type":"error","game":G,"message":' + deep(1000) + '}',
    "huge_game": '{"type":"move","game":1e300,"move":"draw"}',
    "almost_a_move": '{"type":"move","game":G,"move":"take 11"}',
}
out = open(sys.stdout.fileno(), "w", encoding="utf-8", errors="surrogateescape", closefd=False)
plans, spoilt = {}, set()

def send(text):
    out.write(text + "\n")
    out.flush()

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send(json.dumps({"type": "ready", "protocol": 2, "games": 16, "name": "garbage", "legal": True,
                         "events": False, "parameters": {"plan": ""}}))
    elif kind == "game":
        plan = dict(item.split(".") for item in message["parameters"]["plan"].split("+") if item)
        plans[message["game"]] = plan.get(str(message["seed"]))
    elif kind == "decide":
        game = message["game"]
        garbage = plans.get(game)
        if garbage is not None and game not in spoilt:
            spoilt.add(game)
            if garbage == "partial_exit":
                out.write('{"type":"mo')
                out.flush()
                os._exit(0)
            send(GARBAGE[garbage].replace('"game":G', f'"game":{game}'))
            continue
        send(json.dumps({"type": "move", "game": game, "move": message["legal"][0]}))
    elif kind == "quit":
        break
'''

KINDS = {
    "not_utf8": ("malformed", "is not JSON"),
    "nan": ("malformed", "is not JSON"),
    "deep_line": ("malformed", "is not a JSON object"),
    "deep_game": ("malformed", "names its game by "),
    "deep_move": ("malformed", "must be a move in the notation; got "),
    "deep_check": ("malformed", "is nested too deep to be a move"),
    "deep_error": ("exception", "the bot reported an error: "),
    "huge_game": ("malformed", "names its game by 1e+300"),
    "almost_a_move": ("malformed", "'11' is not a card"),
    "partial_exit": ("crash", "its bot process ended (exit status 0)"),
}
"""Each kind of garbage: the reason its game is charged with, and words of the failure's line."""


def _play(spec: str, games: int, plan: dict[int, str]) -> list:
    """Games 0..games-1 of ``spec`` against greedy, side by side in this process, failures forfeited; ``plan`` names
    the kind of garbage the bot writes in some of them (even games: its seat 0)."""
    settings = RunSettings(games=games, seed=41, specs=(spec, "greedy"), rules=Rules(target_score=500),
                           chunk_size=games)
    seeds = "+".join(f"{derive_seed(settings.game_seed(game_id), 'seat0')}.{kind}" for game_id, kind in plan.items())
    settings = RunSettings(games=games, seed=41, specs=(f"{spec}:plan={seeds}", "greedy"),
                           rules=Rules(target_score=500), chunk_size=games)
    stop = threading.Event()
    player = RunSchedule(settings).new_player("forfeit", stop)
    outcomes: dict[int, object] = {}

    def report(game_id, played, error):
        assert error is None, error
        outcomes[game_id] = played[0]
        return True

    monitor = memoryview(array.array("d", [0.0] * 3))
    try:
        play_side_by_side(lambda game_id: player.play_game(0, game_id, monitor), range(games),
                          games_at_once(player, games), monitor, stop_event=stop, report=report)
    finally:
        close_all()
    return [outcomes[game_id] for game_id in range(games)]


def _played(rows) -> tuple:
    """A game's rows but the specs' names (the spec's parameters differ from run to run here)."""
    game = rows.game
    return game[:3], game[5:8], game[9:], rows.hands, rows.winner


@pytest.mark.timeout(120)
def test_garbage_in_one_game_is_charged_to_its_seat_with_its_reason_and_costs_no_other_game(tmp_path):
    bot = tmp_path / "garbage.py"
    bot.write_text(BOT, encoding="utf-8")
    spec = f"cmd:{sys.executable} {bot}"
    games = 2 * len(KINDS) + 2
    plan = {2 * index: kind for index, kind in enumerate(KINDS)}  # the last two games are played as they come
    clean = _play(spec, games, {})
    assert not any(isinstance(outcome, StrategyError) for outcome in clean), clean
    outcomes = _play(spec, games, plan)
    for game_id, outcome in enumerate(outcomes):
        if game_id not in plan:
            assert _played(outcome) == _played(clean[game_id]), game_id
            continue
        reason, words = KINDS[plan[game_id]]
        assert isinstance(outcome, StrategyError), (plan[game_id], outcome)
        assert (outcome.reason, outcome.seat, outcome.decision) == (reason, 0, "acquire"), (plan[game_id], outcome)
        assert words in str(outcome) and "\n" not in str(outcome), (plan[game_id], str(outcome))


def test_a_bot_padding_its_answers_leaves_none_of_them_in_the_worker_s_memory():
    # Each answer a new text of the same move: kept by the thousand, lines of up to 16 MiB would fill the worker.
    padded = "draw" + " " * 1000
    assert answer_value("acquire", padded) == DRAW
    assert ("acquire", padded) not in protocol.JUDGED_ANSWERS
    assert answer_value("acquire", "draw") == DRAW and ("acquire", "draw") in protocol.JUDGED_ANSWERS


def test_an_isolated_strategy_s_group_holding_another_rank_s_card_reaches_the_arbiter_as_that_group(tmp_path):
    # In-process the engine refuses such a meld as illegal; its text once read "meld 7 K K", which is no move, and
    # the isolated seat was charged as malformed instead.
    path = tmp_path / "odd_group.py"
    path.write_text("from canasta_sim.core.moves import Meld, MeldGroup\n"
                    "from canasta_sim.strategies import Greedy\n\n\n"
                    "class OddGroup(Greedy):\n"
                    "    name = 'odd-group'\n\n"
                    "    def choose_meld(self, view):\n"
                    "        return Meld((MeldGroup(13, (7, 13, 13)),))\n", encoding="utf-8")
    server = BotServer(f"{path}:OddGroup")
    opening = [orjson.loads(line) for line in game_opening()]
    for message in opening:
        server.handle(message)
    reply = server.handle({"type": "decide", "game": 0, "decision": "meld", "view": {}})
    assert reply["type"] == "move", reply
    assert move_from_text(reply["move"]) == Meld((MeldGroup(13, (7, 13, 13)),)), reply
