"""Protocol 2: one bot process plays many games at once, and a worker plays a chunk's games side by side.

The games and tables are the ones played one game at a time, in-process or isolated, whatever the number
of games at once or of workers; every failure is still charged to the seat and the game it happened in;
protocol-1 bots keep playing as before.
"""

from __future__ import annotations

import array
import gc
import json
import shlex
import sys
import threading
from pathlib import Path

import orjson
import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.cards import RED_THREE
from canasta_sim.core.engine import derive_seed, play_game
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.strategy import SeatRandom
from canasta_sim.core.view import SeatView
from canasta_sim.errors import SeatFailure, StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.proxy import load_bot_class
from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE, games_at_once, play_side_by_side
from canasta_sim.runs.local_backend import RunSchedule
from canasta_sim.runs.runner import RunSettings
from tests.helpers import BOTS, position

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

MISBEHAVING = BOTS / "protocol_misbehaving.py"
SIMPLE = BOTS / "protocol_simple.py"
RULES = "target_score=1500"


def _run(out, specs, *extra, env=None) -> dict:
    arguments = ["run", "--games", "12", "--seed", "21", "--chunk-size", "12", "-q", "--out", str(out), "--rules",
                 RULES, *extra]
    for spec in specs:
        arguments += ["-s", spec]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False, env=env)
    assert result.exit_code == 0, result.output
    return json.loads((out / "run.json").read_text())


def _tables(out) -> list[pd.DataFrame]:
    games = pd.read_parquet(out / "games").sort_values("game_id").reset_index(drop=True)
    hands = pd.read_parquet(out / "hands").sort_values(["game_id", "hand_no", "team"]).reset_index(drop=True)
    # Everything but the columns naming the strategies' specs, which differ by their isolated: prefix.
    return [table.drop(columns=[name for name in table.columns if "strategy" in name]) for table in (games, hands)]


@pytest.mark.timeout(180)
def test_games_side_by_side_write_the_tables_of_games_played_alone(tmp_path):
    _run(tmp_path / "plain", ["expert", "greedy"], "--workers", "1")
    expected = _tables(tmp_path / "plain")
    assert len(expected[0]) == 12 and len(expected[1]) > 24
    runs = {
        "side by side": (["--workers", "1"], None),
        "one at a time": (["--workers", "1"], {GAMES_AT_ONCE_VARIABLE: "1"}),
        "three at a time, two workers": (["--workers", "2", "--chunk-size", "6"], {GAMES_AT_ONCE_VARIABLE: "3"}),
    }
    for name, (extra, env) in runs.items():
        out = tmp_path / name.replace(" ", "_").replace(",", "")
        manifest = _run(out, ["isolated:expert", "greedy"], *extra, env=env)
        assert [entry["spec"] for entry in manifest["strategies"]] == ["isolated:expert", "greedy"]
        for table, wanted in zip(_tables(out), expected, strict=True):
            pd.testing.assert_frame_equal(table, wanted, obj=name)


def _side_by_side(spec: str, games: int, *, time_limit: float | None = None, width: int | None = None):
    """Play games 0..games-1 of ``spec`` against greedy side by side in this process, forfeiting failures."""
    settings = RunSettings(games=games, seed=33, specs=(spec, "greedy"), rules=Rules(target_score=1500),
                           chunk_size=games, time_limit=time_limit)
    stop = threading.Event()
    player = RunSchedule(settings).new_player("forfeit", stop)
    width = games_at_once(player, games) if width is None else width
    monitor = memoryview(array.array("d", [0.0] * 3))
    outcomes: dict[int, object] = {}

    def report(game_id, played, error):
        assert error is None
        outcomes[game_id] = played[0]
        return True

    play_side_by_side(lambda game_id: player.play_game(0, game_id, monitor), range(games), width, monitor,
                      stop_event=stop, report=report)
    return settings, width, [outcomes[game_id] for game_id in range(games)]


def _target(settings: RunSettings, game_id: int) -> int:
    return derive_seed(settings.game_seed(game_id), "seat0")


KILLING = {"crash": "crash", "exit": "crash", "hang": "timeout", "garbage": "malformed", "wrong_game": "malformed",
           "plan_after_draw": "malformed"}


@pytest.mark.timeout(120)
def test_games_side_by_side_on_duplicate_deals_keep_each_process_to_one_seat(tmp_path):
    # Games 2k and 2k + 1 deal the same cards with the sides swapped, and are played at once: a process that
    # served seat 0 of one and seat 1 of the other would hold its own opponent's hand.  Each seat has its own.
    report = tmp_path / "whispers.jsonl"
    _run(tmp_path / "run", [f"isolated:{MISBEHAVING}:Whispers:report={report}", "greedy"], "--workers", "1",
         "--duplicate")
    seats: dict[int, set[int]] = {}
    for line in report.read_text().splitlines():
        entry = json.loads(line)
        seats.setdefault(entry["pid"], set()).add(entry["seat"])
    assert sorted(seat for played in seats.values() for seat in played) == [0, 1, 2, 3], seats
    assert all(len(played) == 1 for played in seats.values()), seats


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("spec", "kind", "reason"),
    [
        (f"isolated:{MISBEHAVING}:FailsIn", "exception", "exception"),
        (f"isolated:{MISBEHAVING}:FailsIn", "illegal", "illegal"),
        (f"isolated:{MISBEHAVING}:FailsIn", "crash", "crash"),
        (f"isolated:{MISBEHAVING}:FailsIn", "exit", "crash"),
        (f"isolated:{MISBEHAVING}:FailsIn", "hang", "timeout"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "garbage", "malformed"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "wrong_game", "malformed"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "plan_after_draw", "malformed"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "check_then_hang", "timeout"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "error_illegal", "illegal"),
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "error_bogus", "malformed"),
        # Its exit is seen, not only the end of its output, which a process it started may hold open (without a time
        # limit the run waited for that process).
        (f"cmd:{sys.executable} {SIMPLE} 2 8", "exit_leaving_output", "crash"),
    ],
)
def test_a_failure_among_games_sharing_a_process_is_charged_to_its_seat_and_game(spec, kind, reason):
    games, culprit = 6, 2
    settings = RunSettings(games=games, seed=33, specs=("greedy", "greedy"), rules=Rules(), chunk_size=games)
    spec = f"{spec}:kind={kind},target={_target(settings, culprit)}"
    time_limit = 1.0 if kind in ("hang", "check_then_hang") else None
    settings, width, outcomes = _side_by_side(spec, games, time_limit=time_limit)
    assert width == games
    failure = outcomes[culprit]
    assert isinstance(failure, StrategyError), failure
    assert (failure.reason, failure.seat, failure.decision) == (reason, 0, "acquire"), failure
    assert failure.game_seed == settings.game_seed(culprit)
    if kind == "wrong_game":  # a game the process was never given: the request it was answering is charged
        assert "names game 10000, which this process is not playing" in str(failure)
        assert "names game 10000, which this process is not playing`), or naming none, is charged to the oldest " \
               "request it has not answered" in " ".join(DOC.split())
    # Every other game is played out: one that lost its process to the culprit's failure is played again from its
    # start, so the games are those the bot plays one game at a time.
    assert not any(isinstance(outcome, StrategyError) for game_id, outcome in enumerate(outcomes) if game_id != culprit)
    *_, alone = _side_by_side(spec, games, time_limit=time_limit, width=1)
    assert [outcome for game_id, outcome in enumerate(alone) if game_id != culprit] == [
        outcome for game_id, outcome in enumerate(outcomes) if game_id != culprit]
    assert (alone[culprit].reason, alone[culprit].seat, alone[culprit].decision) == (reason, 0, "acquire")
    assert str(alone[culprit]) == str(failure)  # the tables' error column reads the same: no process id in it


@pytest.mark.timeout(120)
def test_a_request_written_behind_others_to_its_process_has_the_whole_time_limit():
    # The process answers the requests written to it in turn: 32 games side by side, four processes, and each game's
    # first acquire takes 0.1 s, so a process's first batch of about eight takes about 0.8 s.  Each request's clock
    # starts when the process has answered those before it, and no decision is past the limit of 0.5 s.  (Limits
    # this wide leave each decision 0.4 s to spare on a machine busy with other suites, where a margin of 0.2 s failed.)
    games = 33
    spec = f"isolated:{BOTS / 'deliberate.py'}:Deliberate:seconds=0.1"
    _, width, outcomes = _side_by_side(spec, games, time_limit=0.5)
    assert width == games
    assert not [outcome for outcome in outcomes if isinstance(outcome, StrategyError)]
    # Its play is greedy's: the games are greedy's against greedy in-process (their hands' rows, the same bytes).
    *_, greedy = _side_by_side("greedy", games)
    assert [outcome.hands for outcome in outcomes] == [outcome.hands for outcome in greedy]


@pytest.mark.timeout(120)
def test_a_chunk_side_by_side_keeps_its_bot_processes_from_first_game_to_last(monkeypatch):
    # 128 games at once fill a bot's pipe, whose room to write was once taken for the bot's exit: live bots were
    # killed, their games forfeited as crashes and new processes started, with no error raised.
    from canasta_sim.plugins import process

    started, start = [], process.BotProcess.start
    monkeypatch.setattr(process.BotProcess, "start", lambda bot: started.append(bot.label) or start(bot))
    try:
        _, width, outcomes = _side_by_side("isolated:expert", 128)
    finally:
        close_all()
    assert width == 128 and not [outcome for outcome in outcomes if isinstance(outcome, StrategyError)]
    assert len(started) == 4, started  # the loading handshake's process, kept for a seat, and one for each other seat


def _messages_by_process(log) -> dict[int, list[dict]]:
    """The messages the simple bot noted in ``log`` (``SIMPLE_BOT_MESSAGE_LOG``), in order, by its process id."""
    by_process: dict[int, list[dict]] = {}
    for entry in map(json.loads, log.read_text().splitlines()):
        by_process.setdefault(entry["process"], []).append(entry["message"])
    return by_process


def _games_of_a_simple_bot_shown_draws(tmp_path, monkeypatch, parameters: str = "", **options) -> list[tuple]:
    """Two games of the simple protocol bot asking for ``drawn``, under rules ``options``, checked to be the games of
    the same bot that does not; each ``hand_start`` and ``decide`` message it read, as ``((its process, its game),
    message)``."""
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy, rules = load_strategy("greedy"), Rules(target_score=1000, **options)
    shown = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8 drawn{parameters}")
    results = [play_game([shown, greedy, shown, greedy], seed=seed, rules=rules) for seed in (4, 5)]
    close_all()
    monkeypatch.delenv("SIMPLE_BOT_MESSAGE_LOG")
    plain = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8")
    assert [play_game([plain, greedy, plain, greedy], seed=seed, rules=rules) for seed in (4, 5)] == results
    entries = map(json.loads, log.read_text().splitlines())
    return [((entry["process"], entry["message"].get("game")), entry["message"]) for entry in entries
            if entry["message"]["type"] in ("hand_start", "decide")]


@pytest.mark.timeout(120)
def test_a_draw_that_is_the_only_legal_acquire_shows_the_cards_it_brings_in_its_request(tmp_path, monkeypatch):
    hands, waiting, forced, checked = {}, {}, 0, 0
    for key, message in _games_of_a_simple_bot_shown_draws(tmp_path, monkeypatch):
        if message["type"] == "hand_start":
            hands[key] = message["view"]["hand"]
            waiting.pop(key, None)
            continue
        hand = hands[key] = message["view"].get("hand", hands[key])
        if key in waiting:  # the request after a shown draw: the hand holds the card kept (red 3s are laid)
            before, drawn = waiting.pop(key)
            if drawn[-1] != RED_THREE:
                before[drawn[-1]] += 1
                assert hand == before
                checked += 1
        if message["decision"] != "acquire":
            continue
        assert ("drawn" in message) == (message["legal"] == ["draw"])  # shown exactly when the draw is forced
        if "drawn" in message:
            forced += 1
            waiting[key] = list(hand), message["drawn"]
    assert forced > 20 and checked > 20


@pytest.mark.timeout(120)
def test_any_bot_may_answer_a_shown_draw_with_the_rest_of_its_turn_and_plays_the_same_games(tmp_path, monkeypatch):
    after_plan, planned = set(), 0
    for key, message in _games_of_a_simple_bot_shown_draws(tmp_path, monkeypatch, ":kind=plan_shown_draws"):
        if key in after_plan:  # the plan answered the meld decision: the turn's next request is its discard
            after_plan.discard(key)
            assert message["type"] == "decide" and message["decision"] == "discard"
            planned += 1
        if message["type"] == "decide" and "drawn" in message:
            after_plan.add(key)
    assert planned > 20


@pytest.mark.timeout(120)
def test_a_bot_hears_the_end_only_of_games_it_heard_of(tmp_path, monkeypatch):
    # A seat's process leaves at its first request in game 2: the games that process was playing end, game 1 among
    # them before its partner's process was sent anything of it.
    culprit = 2
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    settings = RunSettings(games=6, seed=33, specs=("greedy", "greedy"), rules=Rules(), chunk_size=6)
    _side_by_side(f"cmd:{sys.executable} {SIMPLE} 2 8:kind=exit,target={_target(settings, culprit)}", 6)
    close_all()
    opened: dict = {}
    ended = 0
    for entry in map(json.loads, log.read_text().splitlines()):
        message = entry["message"]
        games = opened.setdefault(entry["process"], set())
        if message["type"] == "game":
            games.add(message["game"])
        elif message["type"] == "game_end":
            assert message["game"] in games, entry
            ended += 1
        else:
            assert message["game"] in games, entry  # every message of a game comes after its game message
    assert ended >= 6


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("kind", "yes_forces_out"), [("plan_shown_draws", False), ("plan_shown_draws_asking", True)])
def test_a_plan_need_not_know_whether_the_engine_will_ask_the_partner(tmp_path, monkeypatch, kind, yes_forces_out):
    # R12.5: without ask_partner_yes_forces_out the engine asks the ask decision on most turns, and a plan without
    # an ask answer means not asking; with it the engine asks only when the hand could go out, and a plan's ask answer
    # is passed over where it does not.  Either way the games are the plain bot's, who answers every ask with null.
    plans = [message for _, message in _games_of_a_simple_bot_shown_draws(
        tmp_path, monkeypatch, f":kind={kind}", ask_partner_yes_forces_out=yes_forces_out) if "drawn" in message]
    assert len(plans) > 20


@pytest.mark.timeout(120)
def test_a_plan_ends_at_its_ask_and_the_bot_hears_no_event_of_its_own_ask(tmp_path, monkeypatch):
    # R12.5: without ask_partner_yes_forces_out the engine asks on most turns: the bot's plans ask, and their meld
    # answer after the ask is not played (the partner's answer is not known): the meld decision comes as a request.
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy, rules = load_strategy("greedy"), Rules(target_score=1000, ask_partner_yes_forces_out=False)
    bot = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8 drawn events:kind=plan_shown_draws_asking_yes")
    for seed in (4, 5):
        play_game([bot, greedy, bot, greedy], seed=seed, rules=rules)
    close_all()
    by_process = _messages_by_process(log)
    asked = 0
    for messages in by_process.values():
        seat, planned = None, False
        for message in messages:
            if message["type"] == "hand_start":
                seat = message["view"]["seat"]
            elif message["type"] == "events":
                asked += sum(1 for event in message["events"] if event[1] == "ask")
                assert not any(event[0] == seat and event[1] == "ask" for event in message["events"]), message
            elif message["type"] == "decide":
                if planned:
                    assert message["decision"] == "meld", message
                planned = "drawn" in message
    assert asked > 20  # the partner's asks, heard


@pytest.mark.timeout(60)
def test_a_plan_s_ask_answers_the_engine_does_not_ask_for_are_passed_over_however_many():
    cls, _ = load_bot_class(f"cmd:{sys.executable} {SIMPLE} 2 4")
    try:
        bot = cls(SeatRandom(1, seat=0))
        # R12.5: side A has not melded, so the hand cannot go out and the engine asks the meld decision, not ask.
        view = SeatView(position(hands={0: "4 6 8 10 Q"}, pile="5 7", seat=0, phase=PLAY), 0, (0, 0))
        bot._plan = [{"decision": "ask", "move": None}] * 5000 + [{"decision": "meld", "move": None}]
        assert bot.choose_meld(view) is None and not bot._plan
    finally:
        close_all()


@pytest.mark.timeout(60)
def test_a_plan_item_past_the_end_of_its_turn_is_malformed_and_says_so():
    cls, _ = load_bot_class(f"cmd:{sys.executable} {SIMPLE} 2 4")
    try:
        bot = cls(SeatRandom(1, seat=0))
        bot._plan = [{"decision": "meld", "move": None}]  # left over from the turn before
        view = SeatView(position(hands={0: "4 6 8 10 Q"}, pile="5 7", seat=0), 0, (0, 0))
        with pytest.raises(SeatFailure, match='plan held {"decision":"meld","move":null} past the end of its turn'):
            bot.choose_acquire(view)
    finally:
        close_all()


@pytest.mark.timeout(120)
def test_protocol_one_bots_keep_playing_one_game_at_a_time(tmp_path):
    spec = f"cmd:{sys.executable} {SIMPLE} 1"
    loaded = load_strategy(spec)
    assert loaded.cls.games == 1
    greedy = load_strategy("greedy")
    result = play_game([loaded, greedy, loaded, greedy], seed=4, rules=Rules(target_score=1000))
    assert result.winner is not None
    settings, width, outcomes = _side_by_side(spec, 4)
    assert width == 1 and not any(isinstance(outcome, StrategyError) for outcome in outcomes)
    again = play_game([loaded, greedy, loaded, greedy], seed=4, rules=Rules(target_score=1000))
    assert again == result
    two = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8")
    assert two.cls.games == 8
    assert play_game([two, greedy, two, greedy], seed=4, rules=Rules(target_score=1000)) == result


@pytest.mark.timeout(120)
def test_every_bot_process_of_a_run_hears_quit_when_its_work_is_over(tmp_path):
    started, log = tmp_path / "started", tmp_path / "log"
    # Quits and the games' messages noted in one file, in the order they happened.
    env = {"SIMPLE_BOT_START_LOG": str(started), "SIMPLE_BOT_QUIT_LOG": str(log), "SIMPLE_BOT_MESSAGE_LOG": str(log)}
    for protocol in ("1", "2 4"):
        _run(tmp_path / f"run{protocol[0]}", [f"cmd:{sys.executable} {SIMPLE} {protocol}", "greedy"], "--workers",
             "2", "--chunk-size", "3", env=env)
        # Each worker's processes (every seat of both sides) heard quit as the worker ended, and the load-time
        # handshake's, in this process, which plays no game, before any game began.  On a loaded machine one worker
        # may play all four chunks before the other asks for one, so only one worker's four are certain.
        pids = started.read_text().split()
        lines = log.read_text().splitlines()
        assert len(pids) >= 1 + 4
        assert sorted(line for line in lines if not line.startswith("{")) == sorted(pids)
        assert lines[0] == pids[0] and json.loads(lines[1])["message"]["type"] == "game"
        started.unlink()
        log.unlink()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("command", [
    ["compare", "greedy", "--baseline", "BOT", "--max-games", "4"],
    ["tune", "expert", "--against", "BOT", "--params", "aggression", "--games", "8", "--games-per-iteration", "4"],
])
def test_compare_and_tune_leave_no_bot_process_idle_while_their_workers_play(tmp_path, monkeypatch, command):
    # Each loads the bot spec in this process to check it, and plays no game here: that process hears quit at once.
    started, quit_ = tmp_path / "started", tmp_path / "quit"
    monkeypatch.setenv("SIMPLE_BOT_START_LOG", str(started))
    monkeypatch.setenv("SIMPLE_BOT_QUIT_LOG", str(quit_))
    bot = f"cmd:{sys.executable} {SIMPLE} 2 4"
    arguments = [bot if word == "BOT" else word for word in command]
    result = CliRunner().invoke(main, [*arguments, "--seed", "3", "--workers", "1", "--rules", "target_score=500",
                                       "--out", str(tmp_path / "out")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(started.read_text().split()) >= 1 + 2
    assert sorted(quit_.read_text().split()) == sorted(started.read_text().split())


@pytest.mark.timeout(60)
def test_every_bot_process_of_check_strategy_hears_the_end_of_its_games_and_quit(tmp_path, monkeypatch):
    # check-strategy plays each game in a forked process of its own, which starts the seats' bot processes.
    started, quit_, log = tmp_path / "started", tmp_path / "quit", tmp_path / "messages.jsonl"
    for variable, path in [("START", started), ("QUIT", quit_), ("MESSAGE", log)]:
        monkeypatch.setenv(f"SIMPLE_BOT_{variable}_LOG", str(path))
    result = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {SIMPLE} 2 4", "--games", "3",
                                       "--rules", "target_score=500"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    # Every process heard quit by the command's end: the load-time handshake's too, though this process lives on.
    assert len(started.read_text().split()) >= 1 + 3 * 2
    assert sorted(quit_.read_text().split()) == sorted(started.read_text().split())
    opened, ended = set(), set()
    for entry in map(json.loads, log.read_text().splitlines()):
        key = (entry["process"], entry["message"]["game"])
        if entry["message"]["type"] == "game":
            opened.add(key)
        elif entry["message"]["type"] == "game_end":
            ended.add(key)
    assert len(opened) >= 3 * 2 and ended == opened


@pytest.mark.timeout(60)
def test_playing_side_by_side_freezes_what_the_process_built_before_once():
    spec = f"cmd:{sys.executable} {SIMPLE} 2 4"
    _side_by_side(spec, 2)
    frozen = gc.get_freeze_count()
    assert frozen > 0  # the modules and loaded strategies: out of the collector's full scans
    _side_by_side(spec, 2)
    # once a process: nothing of a later chunk is frozen (frozen objects freed since may leave the count lower)
    assert gc.get_freeze_count() <= frozen


@pytest.mark.timeout(120)
def test_an_isolated_bot_plans_its_turn_after_a_take_or_a_shown_draw_and_hears_what_it_would_in_process(tmp_path):
    rules = Rules(target_score=1500, ask_partner="mandatory")  # a take may be followed by the ask decision
    greedy = load_strategy("greedy")
    served = f"{sys.executable} -m canasta_sim.plugins.server {MISBEHAVING}:Heeds | tee {tmp_path}/out.$$"
    heard = {}
    for name, spec in (("in-process", f"{MISBEHAVING}:Heeds"), ("isolated", "cmd:sh -c " + shlex.quote(served))):
        report = tmp_path / f"{name}.jsonl"
        heeds = load_strategy(f"{spec}:report={report}")
        results = [play_game([heeds, greedy, heeds, greedy], seed=seed, rules=rules) for seed in (4, 5)]
        close_all()
        entries = [json.loads(line) for line in report.read_text().splitlines()]
        heard[name] = results, {seat: [entry["event"] for entry in entries if entry["seat"] == seat] for seat in (0, 2)}
    assert heard["isolated"] == heard["in-process"]
    replies = [orjson.loads(line) for path in tmp_path.glob("out.*") for line in path.read_bytes().splitlines()]
    takes = [reply for reply in replies if reply["type"] == "move" and str(reply["move"]).startswith("take")]
    assert len(takes) > 10 and all(reply["then"] for reply in takes)  # each take answered the rest of its turn
    # Heeds draws only when it may not take, so each draw's request showed its cards: each draw answered the rest
    # of its turn as well.
    draws = [reply for reply in replies if reply["type"] == "move" and reply["move"] == "draw"]
    assert len(draws) > 20 and all("then" in reply for reply in draws)


@pytest.mark.timeout(120)
def test_a_bot_listing_legal_answers_takes_its_events_inline_too(tmp_path, monkeypatch):
    log = tmp_path / "messages.jsonl"
    monkeypatch.setenv("SIMPLE_BOT_MESSAGE_LOG", str(log))
    greedy, rules = load_strategy("greedy"), Rules(target_score=1000)
    inline = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8 inline")  # it has every decision's legal answers listed
    games = [play_game([inline, greedy, inline, greedy], seed=seed, rules=rules) for seed in (4, 5)]
    close_all()
    monkeypatch.delenv("SIMPLE_BOT_MESSAGE_LOG")
    plain = load_strategy(f"cmd:{sys.executable} {SIMPLE} 2 8")
    assert [play_game([plain, greedy, plain, greedy], seed=seed, rules=rules) for seed in (4, 5)] == games
    by_process = _messages_by_process(log)
    carried = 0
    for messages in by_process.values():
        assert all("legal" in message for message in messages if message["type"] == "decide")
        for before, after in zip(messages, messages[1:], strict=False):
            assert not (before["type"] == "events" and after["type"] == "decide")  # they ride in the request
        carried += sum(1 for message in messages if message["type"] == "decide" and message.get("events"))
    assert carried > 20


@pytest.mark.timeout(120)
def test_a_message_for_a_game_that_awaits_none_is_charged_to_that_game_not_to_the_next_in_line():
    # The second answer names a game already answered: the process is lost, and the game it named is charged at its
    # next request, not the game whose request came next in the process's queue.
    games, culprit = 6, 2
    settings = RunSettings(games=games, seed=33, specs=("greedy", "greedy"), rules=Rules(), chunk_size=games)
    spec = f"cmd:{sys.executable} {SIMPLE} 2 8:kind=twice,target={_target(settings, culprit)}"
    settings, width, outcomes = _side_by_side(spec, games)
    assert width == games
    failure = outcomes[culprit]
    assert isinstance(failure, StrategyError), failure
    # Read before the game asks again, the answer names a game waiting for none; read after, it is taken as the answer
    # to the game's next decision, and judged so: either way the game it named is charged.
    assert (failure.reason, failure.seat, failure.game_seed) == ("malformed", 0, settings.game_seed(culprit)), failure
    assert not any(isinstance(outcome, StrategyError) for game_id, outcome in enumerate(outcomes) if game_id != culprit)
