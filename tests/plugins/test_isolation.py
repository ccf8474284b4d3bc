"""Strategies in their own processes: the same games as in-process, failures charged to the seat
with a clear message, and fairness by construction (no other hand in reach, no way to change the game,
nothing shared between partners but moves)."""

from __future__ import annotations

import json
import pickle
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.errors import SeatFailure, StrategyError, StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import MEMORY_LIMIT_VARIABLE
from canasta_sim.plugins.specs import bot_command, isolate_spec
from canasta_sim.strategies import BUILTIN, Greedy
from tests.helpers import BOTS, read_run_tables, run_key

BOTS = BOTS
MISBEHAVING = BOTS / "protocol_misbehaving.py"
NUMPY = BOTS / "numpy_strategies.py"
SHORT = Rules(target_score=1500)
SHORTER = Rules(target_score=500)
PROTOCOL_DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def _reports(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ------------------------------------------------------------------------------------------ same games


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["expert", "greedy", "random"])
def test_isolated_builtin_plays_the_same_games_as_in_process(name):
    honest = load_strategy(name)
    isolated = load_strategy(f"isolated:{name}")
    opponent = load_strategy("greedy" if name != "greedy" else "expert")
    assert isolated.label == honest.label
    for seed in range(2):
        expected = play_game([honest, opponent, honest, opponent], seed=seed, rules=SHORT)
        assert play_game([isolated, opponent, isolated, opponent], seed=seed, rules=SHORT) == expected
    expected = play_game([opponent, honest, opponent, honest], seed=9)
    assert play_game([opponent, isolated, opponent, isolated], seed=9) == expected


@pytest.mark.timeout(120)
def test_isolated_plans_replay_exactly_under_rule_variants():
    # Asking is compulsory, a last red 3 forbids the discard, dealt red 3s wait for the first turn: the turn
    # plans the bot process answers ahead (docs/protocol.md, "Plans") must follow every one of these paths.
    rules = Rules(target_score=1500, ask_partner="mandatory", last_card_red_three="meld_no_discard",
                  dealt_red_three_timing="first_turn", stock_exhausted_rule="official")
    for name in ("expert", "random"):
        honest, isolated = load_strategy(name), load_strategy(f"isolated:{name}")
        opponent = load_strategy("greedy")
        for seed in range(2):
            expected = play_game([honest, opponent, honest, opponent], seed=seed, rules=rules)
            assert play_game([isolated, opponent, isolated, opponent], seed=seed, rules=rules) == expected


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("prefix", "kept"), [("isolated:", True), ("", False)], ids=["bot-process", "worker"])
def test_a_crash_keeps_the_hands_finished_before_it_unless_the_worker_died(tmp_path, prefix, kept):
    # The strategy calls os._exit in the second hand: isolated, that ends its bot process, and the worker that plays
    # the game keeps its first hand; in-process, it ends the worker, and the game's hands go with it.
    spec = f"{prefix}{BOTS / 'bad_strategies.py'}:ExitsItsProcess"
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "1", "--workers", "1", "-q", "--on-error",
                                       "forfeit", "--out", str(out), "-s", spec, "-s", "greedy"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    games, hands = read_run_tables(out)
    crashed = games[games.termination == "forfeit"]
    assert len(crashed) >= 1 and set(crashed.forfeit_reason) == {"crash"}
    for row in crashed.itertuples():
        own = hands[hands.game_id == row.game_id]
        assert own.hand_no.nunique() == row.hands == (1 if kept else 0), row
        assert own[own.team == "A"].score.sum() == row.score_a and own[own.team == "B"].score.sum() == row.score_b
    assert all(("its bot process ended" if kept else "its worker process died") in error for error in crashed.error)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "my_bot.py"


@pytest.mark.timeout(120)
def test_isolate_flag_runs_a_round_robin_with_every_file_spec_isolated(tmp_path):
    out = tmp_path / "robin"
    result = CliRunner().invoke(main, ["run", "--isolate", "--games", "6", "--seed", "2", "--workers", "1", "-q",
                                       "--rules", "target_score=1000", "--out", str(out), "-s", f"{EXAMPLE}:MyBot",
                                       "-s", "greedy", "-s", "random"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    specs = [entry["spec"] for entry in json.loads((out / "run.json").read_text())["strategies"]]
    assert specs == [run_key(f"isolated:{EXAMPLE}:MyBot"), "greedy", "random"]


@pytest.mark.timeout(120)
def test_check_strategy_isolate_checks_the_strategy_in_its_own_process():
    # A limit wider than the default 1 s: on a machine busy with other suites a decision of the bot's fresh process
    # overran it, and what this checks is where the bot runs, not its speed.
    result = CliRunner().invoke(main, ["check-strategy", "--isolate", f"{EXAMPLE}:MyBot", "--games", "2",
                                       "--rules", "target_score=1000", "--time-limit", "10"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"checking isolated:{EXAMPLE}:MyBot" in result.output and "no problems found" in result.output
    # what the bot's ready asked for: MyBot hears events (inline) and no hand ends; a bot server plans shown draws
    assert ("its ready message: protocol 2, 128 games at once; legal lists: none; events: inline; hand ends: no; "
            "forced draws' cards: yes; decisions with one legal answer: asked") in result.output


@pytest.mark.timeout(60)
def test_check_strategy_says_what_a_protocol_bot_s_ready_asked_for_and_nothing_of_an_in_process_one():
    simple = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {BOTS / 'protocol_simple.py'} 1",
                                       "--games", "2", "--rules", "target_score=500"], catch_exceptions=False)
    assert ("its ready message: protocol 1, 1 game at once; legal lists: acquire, ask, answer, meld, discard; "
            "events: none; hand ends: yes; forced draws' cards: no; decisions with one legal answer: asked"
            ) in simple.output
    in_process = CliRunner().invoke(main, ["check-strategy", "greedy", "--games", "2", "--rules", "target_score=500"])
    assert in_process.exit_code == 0 and "ready message" not in in_process.output
    # The rules the bot was checked under, as compare's header names them: several variants' checks looked alike.
    assert "checking greedy (greedy@2): 2 games against greedy under rules target_score=500\n" in in_process.output


def test_isolate_flag_isolates_every_spec_but_the_builtins():
    assert isolate_spec("expert", BUILTIN) == "expert"
    assert isolate_spec("expert:aggression=0.7", BUILTIN) == "expert:aggression=0.7"
    assert isolate_spec("bots/x.py:Bot", BUILTIN) == "isolated:bots/x.py:Bot"
    assert isolate_spec("isolated:greedy", BUILTIN) == "isolated:greedy"
    assert isolate_spec("cmd:node bot.js", BUILTIN) == "cmd:node bot.js"


def test_bot_specs_name_what_is_wrong():
    with pytest.raises(StrategyLoadError, match="not found"):
        bot_command("cmd:no-such-program-here --flag")
    with pytest.raises(StrategyLoadError, match="names no command"):
        bot_command("cmd:   ")
    with pytest.raises(StrategyLoadError, match="in a process already"):
        bot_command("isolated:cmd:node bot.js")
    assert bot_command("cmd:python bot.py --depth=2")[1] == ()
    with pytest.raises(StrategyLoadError, match="has no parameter 'depth'"):
        load_strategy("isolated:greedy:depth=2")
    with pytest.raises(StrategyLoadError, match="failed its handshake"):
        load_strategy(f"cmd:python {BOTS / 'protocol_misbehaving.py'}")  # a Python file that speaks no protocol


# ------------------------------------------------------------------------------------------ failures


def _fail(spec: str, *, time_limit: float | None = None) -> tuple[StrategyError, float]:
    loaded = load_strategy(spec)
    greedy = load_strategy("greedy")
    start = time.monotonic()
    with pytest.raises(StrategyError) as caught:
        play_game([loaded, greedy, greedy, greedy], seed=77, names=[spec, "greedy", "greedy", "greedy"],
                  time_limit=time_limit)
    return caught.value, time.monotonic() - start


@pytest.mark.timeout(60)
def test_a_hanging_bot_is_killed_and_loses_on_time_within_the_deadline_plus_one_second(tmp_path):
    report = tmp_path / "hang.jsonl"
    spec = f"isolated:{MISBEHAVING}:Hangs:report={report}"
    error, _ = _fail(spec, time_limit=1.0)
    caught_at = time.time()
    started = _reports(report)[0]["hang_started"]
    assert caught_at - started < 1.0 + 1.0
    cause = error.__cause__
    assert isinstance(cause, SeatFailure) and cause.reason == "timeout"
    text = str(error)
    assert spec in text and "seat 0" in text and "game seed 77" in text and "decision acquire" in text
    assert "about to hang" in text  # the bot's last stderr lines


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("Exits", ["exit status 3", "exiting now, status 3"]),
        ("Crashes", ["killed by signal 11", "about to crash"]),
    ],
)
def test_a_bot_that_exits_or_crashes_is_its_seat_failure(target, words):
    spec = f"isolated:{MISBEHAVING}:{target}"
    error, _ = _fail(spec)
    assert isinstance(error.__cause__, SeatFailure) and error.__cause__.reason == "crash"
    text = str(error)
    assert spec in text and "seat 0" in text and "game seed 77" in text and "decision acquire" in text
    for word in words:
        assert word in text


@pytest.mark.timeout(60)
def test_a_bot_writing_garbage_is_its_seat_failure():
    spec = f"cmd:python {BOTS / 'protocol_garbage.py'}"
    error, _ = _fail(spec)
    assert isinstance(error.__cause__, SeatFailure) and error.__cause__.reason == "malformed"
    text = str(error)
    assert "is not JSON" in text and "I am not JSON" in text and "garbage, not the protocol" in text
    assert "decision acquire" in text and "game seed 77" in text


@pytest.mark.timeout(60)
def test_a_bot_breaking_the_protocol_is_not_said_to_have_returned_anything():
    error, _ = _fail(f"cmd:python {BOTS / 'protocol_garbage.py'}")
    assert str(error).endswith("its last stderr lines: garbage, not the protocol"), str(error)
    assert "returned" not in str(error)


def _bot_script(ready: dict, on_decide: str, *, setup: str = "") -> str:
    """The text of a bot speaking docs/protocol.md's lines: ``ready`` answers the hello, ``on_decide`` (its lines,
    unindented) runs for each decision, a quit ends it; ``setup`` runs first."""
    decide = textwrap.indent(textwrap.dedent(on_decide).strip("\n"), " " * 8)
    return f"""import json, sys
{setup}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print({json.dumps(ready)!r}, flush=True)
    elif message["type"] == "decide":
{decide}
    elif message["type"] == "quit":
        break
"""


STOPPING_BOT = _bot_script({"type": "ready", "protocol": 1, "name": "stopper", "version": 1}, """
    if sys.argv[1:] == ["logs"]:
        print("stopping on purpose", file=sys.stderr, flush=True)
    print(json.dumps({"type": "move", "move": "stop"}), flush=True)
""")


@pytest.mark.timeout(60)
def test_a_bot_s_illegal_move_is_shown_in_the_move_notation(tmp_path):
    bot = tmp_path / "stopper.py"
    bot.write_text(STOPPING_BOT)
    error, _ = _fail(f"cmd:{sys.executable} {bot}")
    assert error.reason == "illegal" and error.decision == "acquire"
    # docs/protocol.md's failure table shows this very message.
    row = next(line for line in PROTOCOL_DOC.splitlines() if line.startswith("| `illegal` |"))
    example = row.split("`")[3]
    assert example.endswith("; returned stop") and str(error).endswith(f"decision acquire: {example}"), str(error)


@pytest.mark.timeout(60)
def test_a_bot_s_illegal_move_ends_with_its_last_stderr_lines_as_every_failure_does(tmp_path):
    bot = tmp_path / "stopper.py"
    bot.write_text(STOPPING_BOT)
    error, _ = _fail(f"cmd:{sys.executable} {bot} logs")
    assert error.reason == "illegal" and error.decision == "acquire"
    promise = "A failure's message carries the bot's last five stderr lines whatever was logged"
    assert promise in " ".join(PROTOCOL_DOC.split())
    assert str(error).endswith("; returned stop; its last stderr lines: stopping on purpose"), str(error)
    assert pickle.loads(pickle.dumps(error)).args == error.args  # as a worker sends it to the run


HUGE_LINE_BOT = _bot_script({"type": "ready", "protocol": 1, "name": "huge", "version": 1}, """
    print("writing a long line", file=sys.stderr, flush=True)
    sys.stdout.write('{"type":"move","move":"' + "x" * (16 * 1024 * 1024) + '"}\\n')
    sys.stdout.flush()
""")


@pytest.mark.timeout(60)
def test_a_bot_writing_a_line_past_the_documented_limit_is_malformed_at_once(tmp_path):
    bot = tmp_path / "huge.py"
    bot.write_text(HUGE_LINE_BOT)
    row = next(line for line in PROTOCOL_DOC.splitlines() if line.startswith("| `malformed` |"))
    said = re.search(r"`(wrote a line longer than \d+ bytes)`", row).group(1)
    error, _ = _fail(f"cmd:{sys.executable} {bot}")
    assert error.reason == "malformed" and error.decision == "acquire"
    assert str(error).endswith(f"decision acquire: {said}; its last stderr lines: writing a long line"), str(error)


VIEW_FLOODING_BOT = _bot_script({"type": "ready", "protocol": 2, "games": 2, "name": "flooder", "version": 1}, """
    ask = json.dumps({"type": "view", "game": message["game"]}) + "\\n"
    while True:  # valid requests, without end: with each answer read, or none
        sys.stdout.write(ask)
        if reads:
            sys.stdout.flush()
            sys.stdin.readline()
""", setup='reads = sys.argv[1] == "reads"')


@pytest.mark.timeout(120)
@pytest.mark.parametrize("answers", ["reads", "ignores"])
def test_a_bot_asking_for_views_without_end_is_out_of_time_by_the_arbiter_s_clock(tmp_path, answers):
    # The views it asks for count against its request's time (docs/protocol.md): the arbiter kills the bot at the
    # deadline, as it does a slow one, and the worker playing the games (two at once, on one bot process) is not
    # held up past it until its supervisor kills it.
    bot = tmp_path / "flooder.py"
    bot.write_text(VIEW_FLOODING_BOT)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "--workers", "1", "--chunk-size", "2",
                                       "-q", "--on-error", "forfeit", "--time-limit", "0.5", "--out", str(out),
                                       "-s", f"cmd:{sys.executable} {bot} {answers}", "-s", "greedy"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    games, _ = read_run_tables(out)
    assert list(games.forfeit_reason) == ["timeout", "timeout"]
    for error in games.error:
        assert "its worker was killed" not in error
        assert error.endswith("decision acquire: its bot process did not answer in time and was killed"), error


@pytest.mark.timeout(60)
def test_a_strategy_raising_in_its_process_is_reported_with_its_exception():
    error, _ = _fail(f"isolated:{MISBEHAVING}:Raises")
    assert isinstance(error.__cause__, SeatFailure) and error.__cause__.reason == "exception"
    # raised while the bot planned its turn: charged at the very decision that raised, as in-process
    assert "RuntimeError: boom in the bot" in str(error) and "decision discard" in str(error)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "decision", "words"), [
    ("CallsSysExit", "discard", "raised SystemExit: 3"),
    ("RaisesKeyboardInterrupt", "event", "raised KeyboardInterrupt"),
])
def test_an_isolated_strategy_s_sys_exit_or_keyboard_interrupt_is_an_exception_as_in_process(name, decision, words):
    # Either once ended the bot's process: a crash, charged at the request that carried the turn's plan (acquire).
    error, _ = _fail(f"isolated:{MISBEHAVING}:{name}")
    in_process, _ = _fail(f"{MISBEHAVING}:{name}")
    assert error.reason == in_process.reason == "exception", error
    assert in_process.decision == decision and words in str(error) and words in str(in_process), error


@pytest.mark.timeout(120)
def test_an_isolated_seat_plays_the_same_game_against_a_strategy_of_numpy_kinds():
    # A numpy integer discarded went on the pile as it was, and the isolated seat's next request could not be written
    # in JSON: that seat was charged ("raised TypeError: Type is not JSON serializable: numpy.int64").
    numpy_greedy, isolated = load_strategy(f"{NUMPY}:NumpyGreedy"), load_strategy("isolated:greedy")
    result = play_game([numpy_greedy, isolated, numpy_greedy, isolated], seed=77, rules=SHORT)
    assert result == play_game([Greedy] * 4, seed=77, rules=SHORT)


@pytest.mark.timeout(60)
def test_an_isolated_strategy_s_record_that_is_no_move_is_named_e1_as_in_process():
    # Its text went to the arbiter as it was, "meld 13; 13; 13" say, and came back as a protocol error.
    error, _ = _fail(f"isolated:{NUMPY}:MeldsAnArray")
    assert error.decision == "meld"
    expected = "returned an illegal move: E1: a Meld's groups are MeldGroup records in a tuple; it holds array("
    assert expected in str(error)
    # Charged with the reason it has in-process, which the games table keeps (it was "exception").
    in_process, _ = _fail(f"{NUMPY}:MeldsAnArray")
    assert error.reason == in_process.reason == "illegal"


@pytest.mark.timeout(60)
def test_an_isolated_strategy_s_numpy_bool_is_named_by_its_type():
    error, _ = _fail(f"isolated:{NUMPY}:AsksWithNumpy")
    assert error.decision == "ask" and "returned a numpy.bool" in str(error) and ", not True or False: " in str(error)
    in_process, _ = _fail(f"{NUMPY}:AsksWithNumpy")
    assert error.reason == in_process.reason == "malformed"


@pytest.mark.timeout(60)
def test_memory_limit_caps_each_bot_process(monkeypatch):
    greedy = load_strategy("greedy")
    unlimited = load_strategy(f"isolated:{MISBEHAVING}:Hoards")
    play_game([unlimited, greedy, greedy, greedy], seed=77, rules=Rules(target_score=100))  # 400 MB is fine here
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "300")
    error, _ = _fail(f"isolated:{MISBEHAVING}:Hoards")
    assert "MemoryError" in str(error)


@pytest.mark.timeout(120)
def test_with_forfeit_a_new_process_takes_the_next_game(tmp_path):
    report = tmp_path / "exits.jsonl"
    spec = f"isolated:{MISBEHAVING}:ExitsNow:at=30,report={report}"
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "5", "--workers", "1", "-q", "--out",
                                       str(out), "--on-error", "forfeit", "--rules", "target_score=1500",
                                       "-s", spec, "-s", "greedy"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["games_done"] == 4
    pids = []
    for entry in _reports(report):
        if not pids or pids[-1] != entry["pid"]:
            pids.append(entry["pid"])
    # two seats, each a process exiting at its 30th decision: more processes than seats were started
    assert len(set(pids)) > 2


# ------------------------------------------------------------------------------------------ fairness


@pytest.mark.timeout(120)
def test_an_isolated_bot_searching_its_memory_finds_no_other_hand_and_no_stock(tmp_path):
    report = tmp_path / "snoop.jsonl"
    spec = f"{MISBEHAVING}:Snoops:report={report}"
    greedy = load_strategy("greedy")
    snooper = load_strategy(f"isolated:{spec}")
    play_game([snooper, greedy, snooper, greedy], seed=3, rules=SHORTER)
    entries = _reports(report)
    assert entries and all(entry["states"] >= 1 for entry in entries)  # it did find the state it was sent
    assert sum(entry["leaks"] for entry in entries) == 0
    # the very same search in-process finds the other hands at once: the test can fail
    report.unlink()
    play_game([load_strategy(spec), greedy, greedy, greedy], seed=3, rules=SHORTER)
    assert sum(entry["leaks"] for entry in _reports(report)) > 0


@pytest.mark.timeout(120)
def test_an_isolated_bot_cannot_change_the_game():
    greedy = load_strategy("greedy")
    tamperer = load_strategy(f"isolated:{MISBEHAVING}:Tampers")
    for seed in range(2):
        honest = play_game([greedy] * 4, seed=seed, rules=SHORT)
        assert play_game([tamperer, greedy, tamperer, greedy], seed=seed, rules=SHORT) == honest


@pytest.mark.timeout(120)
def test_isolated_partners_share_nothing_but_moves(tmp_path):
    report = tmp_path / "whisper.jsonl"
    spec = f"{MISBEHAVING}:Whispers:report={report}"
    greedy = load_strategy("greedy")
    whisperer = load_strategy(f"isolated:{spec}")
    play_game([whisperer, greedy, whisperer, greedy], seed=8, rules=SHORT)
    entries = _reports(report)
    seats = {entry["seat"]: entry["pid"] for entry in entries}
    assert set(seats) == {0, 2} and seats[0] != seats[2]
    assert not any(entry["found_partner_hand"] for entry in entries)
    report.unlink()
    in_process = load_strategy(spec)
    play_game([in_process, greedy, in_process, greedy], seed=8, rules=SHORT)
    assert any(entry["found_partner_hand"] for entry in _reports(report))


# ------------------------------------------------------------------------------------------ the process


@pytest.mark.timeout(30)
def test_bot_stderr_is_logged_capped_and_never_blocks_it(caplog):
    import logging
    import sys as system

    from canasta_sim.plugins.process import STDERR_LOG_LIMIT, BotProcess

    # 300 KiB of stderr before its answer: far more than a pipe holds, so only reading it as it comes helps
    script = "import sys\nfor i in range(3000): sys.stderr.write('line %d ' % i + 'x' * 90 + '\\n')\nprint('done')"
    bot = BotProcess([system.executable, "-c", script], label="chatty")
    caplog.set_level(logging.INFO, logger="canasta_sim.bots")
    bot.start()
    assert bot.read_line(time.monotonic() + 20) == b"done"
    bot.close()
    logged = [record.getMessage() for record in caplog.records if record.name == "canasta_sim.bots"]
    assert logged[0].startswith("bot 'chatty' stderr: line 0 ")
    assert sum(len(message) for message in logged) < STDERR_LOG_LIMIT * 1.5
    assert "further bytes of stderr not logged" in logged[-1]


@pytest.mark.timeout(30)
def test_a_write_larger_than_a_pipe_waits_for_the_bot_to_read_it_and_is_no_crash():
    import sys as system

    from canasta_sim.plugins.process import BotProcess

    # The bot reads only after a pause, so the write fills the pipe and waits for room: the room's arrival was taken
    # for the bot's exit, and the live bot was killed and charged with a crash (every large batch of requests).
    script = "import sys, time\ntime.sleep(0.3)\ndata = sys.stdin.buffer.read(300_000)\nprint(len(data), flush=True)"
    bot = BotProcess([system.executable, "-c", script], label="slow reader")
    bot.start()
    try:
        bot.write(b"x" * 300_000, time.monotonic() + 20)
        assert bot.read_line(time.monotonic() + 20) == b"300000"
    finally:
        bot.close()


@pytest.mark.timeout(30)
def test_a_protocol_1_bot_s_line_when_no_answer_is_due_is_malformed():
    import sys as system

    from canasta_sim.plugins.channel import SharedBot
    from canasta_sim.plugins.process import BotProcess

    # It answers its request twice and ends.  The second line was found when the hand's end was written to the gone
    # process, with no request waiting: a KeyError out of the channel ("popitem(): dictionary is empty"), not the
    # seat's failure.
    script = ("import sys\nsys.stdin.readline()\n"
              "sys.stdout.write('{\"type\":\"move\",\"move\":\"draw\"}\\n' * 2)\nsys.stdout.flush()")
    bot = BotProcess([system.executable, "-c", script], label="twice")
    bot.start()
    shared = SharedBot(bot, tagged=False, capacity=1)
    endpoint = shared.endpoint()
    try:
        assert endpoint.exchange(b'{"type":"decide"}\n', 10.0, fresh=True) == {"type": "move", "move": "draw"}
        bot.process.wait(10)
        endpoint.send(b'{"type":"hand_end"}\n')  # written to the gone process: the line it left is read now
        with pytest.raises(SeatFailure) as caught:
            endpoint.exchange(b'{"type":"decide"}\n', 10.0, fresh=True)
        assert caught.value.reason == "malformed" and "came when no answer was due" in str(caught.value)
    finally:
        bot.close()


@pytest.mark.timeout(30)
def test_a_bot_log_cut_at_the_cap_says_so_when_it_is_cut_and_the_cap_counts_bytes(caplog):
    import logging
    import sys as system

    from canasta_sim.plugins.process import STDERR_LOG_LIMIT, BotProcess

    # 270 KiB of two-byte characters, more than a pipe holds: the arbiter has read past the cap before 'done' comes.
    script = ("import sys\nfor i in range(1500): sys.stderr.write('\u00e9' * 90 + '\\n')\nsys.stderr.flush()\n"
              "print('done', flush=True)\nsys.stdin.readline()")
    bot = BotProcess([system.executable, "-c", script], label="chatty")
    caplog.set_level(logging.INFO, logger="canasta_sim.bots")
    bot.start()
    try:
        assert bot.read_line(time.monotonic() + 20) == b"done"
        # While the bot still runs (a protocol-2 bot may live for a whole run): the log says at once where it stops.
        logged = [record.getMessage() for record in caplog.records if record.name == "canasta_sim.bots"]
        lines = [message.removeprefix("bot 'chatty' stderr: ") for message in logged if " stderr: " in message]
        assert logged[len(lines)] == (f"bot 'chatty': its stderr reached the log's limit of {STDERR_LOG_LIMIT // 1024} "
                                      "KiB per bot process; the rest is counted, not logged")
        assert STDERR_LOG_LIMIT - 200 < sum(len(line.encode()) + 1 for line in lines) <= STDERR_LOG_LIMIT
    finally:
        bot.close()


@pytest.mark.timeout(120)
def test_an_isolated_bot_hears_of_every_hands_end_the_games_last_included(tmp_path):
    report = tmp_path / "listen.jsonl"
    listener = load_strategy(f"isolated:{MISBEHAVING}:Listens:report={report}")
    greedy = load_strategy("greedy")
    for seed in (4, 5):  # the second game reuses the processes: the first game's last hand must not wait for it
        result = play_game([listener, greedy, listener, greedy], seed=seed, rules=SHORT)
        deadline = time.monotonic() + 10  # the bots read the last hand_end after play_game has returned
        while len(_reports(report)) < 2 * len(result.hands) and time.monotonic() < deadline:
            time.sleep(0.05)
        by_process: dict[int, list[dict]] = {}
        for entry in _reports(report):
            by_process.setdefault(entry["pid"], []).append(entry)
        assert len(by_process) == 2  # seats 0 and 2, a process each
        for heard in by_process.values():
            assert [entry["hand_number"] for entry in heard] == [hand.hand_number for hand in result.hands]
            assert heard[-1]["totals_after"] == list(result.scores)
        report.unlink()


class _KillsSeatTwosBot(Greedy):
    """Plays as greedy, and at the first hand's end kills seat 2's bot process before seat 2 hears of it."""

    isolated: type | None = None

    def on_hand_end(self, result) -> None:
        if result.hand_number == 1:
            for shared in self.isolated.pool.seats[2]:
                shared.bot.process.kill()
                shared.bot.process.wait()


@pytest.mark.timeout(60)
def test_a_bot_process_lost_between_hands_is_its_seat_crash_at_its_next_decision(tmp_path):
    # A bot that hears hands' ends: the hand's end is written to the dead process, and nothing is charged yet.
    spec = f"isolated:{MISBEHAVING}:Listens:report={tmp_path / 'listen.jsonl'}"
    isolated = load_strategy(spec)
    _KillsSeatTwosBot.isolated = isolated.cls
    greedy = load_strategy("greedy")
    with pytest.raises(StrategyError) as caught:
        play_game([greedy, _KillsSeatTwosBot, isolated, greedy], seed=77, names=["greedy", "killer", spec, "greedy"])
    error = caught.value
    assert (error.seat, error.reason, len(error.finished_hands)) == (2, "crash", 1), error
    assert error.decision == "acquire" and "killed by signal 9" in str(error), error
