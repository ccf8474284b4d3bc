"""A bot may be asked only its choices (``ready``'s ``choices_only``): the arbiter plays a decision's one legal answer
itself.

Such a bot is never sent a request whose legal answers are one, plays the games it plays when asked every decision
(when it would have given that answer), and hears the moves played for it as it hears its own.
"""

from __future__ import annotations

import collections
import json
import random
import sys

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Discard, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.plugins.answers import LISTINGS
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.proxy import load_bot_class
from tests.helpers import BOTS, position

SIMPLE = BOTS / "protocol_simple.py"


def _games(tmp_path, monkeypatch, protocol: int, options: str) -> tuple[list, list[dict], dict[int, list]]:
    """Three games of the simple protocol bot (it draws when it may, never melds, discards the first legal card) in
    seats 0 and 2 against greedy, speaking ``protocol`` with the ``ready`` options ``options``: the games, the
    requests it read, and the moves it heard in ``events`` messages, in order, by seat."""
    log = tmp_path / f"messages {protocol} {options}.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy, rules = load_strategy("greedy"), Rules(target_score=1000)
    bot = load_strategy(f"cmd:{sys.executable} {SIMPLE} {protocol} 8 {options}")
    games = [play_game([bot, greedy, bot, greedy], seed=seed, rules=rules) for seed in (4, 5, 6)]
    close_all()
    seats, requests, heard = {}, [], {0: [], 2: []}
    for entry in map(json.loads, log.read_text().splitlines()):
        message = entry["message"]
        if message["type"] == "hand_start":
            seats[entry["process"]] = message["view"]["seat"]
        elif message["type"] == "decide":
            requests.append(message)
        elif message["type"] == "events":
            heard[seats[entry["process"]]].extend(message["events"])
    return games, requests, heard


@pytest.mark.timeout(120)
@pytest.mark.parametrize("listed", ["", "unlisted_melds"])
@pytest.mark.parametrize("protocol", [1, 2])
def test_a_bot_asked_only_its_choices_plays_the_same_games_and_hears_the_same_moves(tmp_path, monkeypatch, protocol,
                                                                                     listed):
    # Whether a decision has one answer is read from the list a request carries, or, where the bot takes no list
    # (its meld decisions, with unlisted_melds), found apart.
    games, every, heard = _games(tmp_path, monkeypatch, protocol, "events")
    chosen_games, choices, chosen_heard = _games(tmp_path, monkeypatch, protocol, f"events choices {listed}")
    assert chosen_games == games
    assert chosen_heard == heard and len(heard[0]) > 100  # its own moves included, whoever played them
    assert all(("legal" in request) == (request["decision"] != "meld" or not listed) for request in choices)
    forced = [request for request in every if len(request["legal"]) == 1]
    # Each request it is no longer sent had one legal answer: acquires with only a draw, melds with only null, ...
    assert len(choices) == len(every) - len(forced) and len(forced) > len(every) / 3
    assert {request["decision"] for request in forced} >= {"acquire", "meld"}
    # ... and each it is still sent has more than one, listed or not.
    chosen = collections.Counter(request["decision"] for request in choices)
    assert chosen == collections.Counter(request["decision"] for request in every if len(request["legal"]) > 1)
    assert chosen["meld"] > 0


@pytest.mark.timeout(60)
def test_a_plan_answers_its_turn_s_decisions_even_those_with_one_legal_answer():
    cls, _ = load_bot_class(f"cmd:{sys.executable} {SIMPLE} 2 4 choices")
    try:
        bot = cls(random.Random(1))  # no seat: no process until a game starts
        # Seat 0 to meld, side A not melded (R10.2's 50 points): no meld is legal, so null is the one legal answer.
        state = position(hands={0: "4 6 8 10 Q"}, pile="5 7", seat=0, phase=PLAY, side_has_melded=[False, False])
        view = SeatView(state, 0, (0, 0))
        assert next(iter(view.legal_melds()), None) is None
        assert bot.choose_meld(view) is None  # played by the arbiter: no process was asked
        bot._plan = [{"decision": "meld", "move": None}, {"decision": "discard", "move": "discard 4"}]
        assert bot.choose_meld(view) is None and len(bot._plan) == 1  # the plan's own null, not the arbiter's
        assert bot.choose_discard(view) == Discard(4) and not bot._plan
    finally:
        close_all()


@pytest.mark.timeout(60)
def test_after_a_binding_yes_null_is_no_legal_answer_and_a_bot_asked_only_its_choices_plays_the_one_meld_out():
    # R12.5: the partner answered yes, so seat 0 must go out this turn; only K K K keeps that possible (7 discarded).
    state = position(hands={0: "K K K 7"}, melds={0: "Q Q Q Q Q Q Q"}, pile="5", seat=0, phase=PLAY)
    state.asked, state.answer = True, True
    view = SeatView(state, 0, (0, 0))
    meld = parse_move("meld K K K")
    assert LISTINGS["meld"](view) == [meld]  # the legal list a bot is sent: no null
    cls, _ = load_bot_class(f"cmd:{sys.executable} {SIMPLE} 2 4 choices")
    try:
        assert cls(random.Random(1)).choose_meld(view) == meld  # played by the arbiter: no process was asked
    finally:
        close_all()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("options", "drawn"), [("choices", "no"),
                                                ("drawn choices", "asked for, never sent: forced draws are not asked")])
def test_check_strategy_says_a_bot_is_asked_only_its_choices(options, drawn):
    result = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {SIMPLE} 2 4 {options}", "--games",
                                       "2", "--rules", "target_score=500"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"forced draws' cards: {drawn}; decisions with one legal answer: not asked" in result.output
