"""The arbiter: no strategy can hang, crash, corrupt or quietly win a run.

Each failure kind of tests/bots/bad_strategies.py is played in a real run (worker processes under the
supervisor), once with ``--on-error forfeit`` and, for most, once with ``--on-error stop``; each run must
end on its own (a hard timeout turns a regression into a failure, not a hang), leave ``run.json`` final,
charge the right seat with the right reason in one line, and keep every other game identical to the same
game played by greedy.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.arbiter import MONITOR_CALL, MONITOR_SIZE, MONITOR_START, decode_call
from canasta_sim.cli import main
from canasta_sim.core.engine import MAX_HANDS_PER_GAME, play_game
from canasta_sim.core.rules import DEFAULT_RULES
from canasta_sim.errors import StrategyError
from canasta_sim.runs.supervisor import HARD_TIMEOUT_MARGIN
from canasta_sim.strategies import Greedy
from tests.helpers import BOTS, read_run_tables, run_key, wait_for_a_trap

BAD = BOTS / "bad_strategies.py"
GAMES = 8
SEED = 5
RUN = ["--games", str(GAMES), "--seed", str(SEED), "--workers", "2", "--chunk-size", "4",
       "--rules", "target_score=1500"]
# The timing cases: a limit an honest decision (a millisecond or two of greedy's) cannot reach on a loaded machine, as
# it could reach 0.3 s; four games in two chunks (given after RUN's options, they win), whose one trap (game 2) is
# followed by a game of the same chunk.
TIME_LIMIT = 1.0
TIMED_GAMES = 4
TIMED = ["--time-limit", str(TIME_LIMIT), "--games", str(TIMED_GAMES), "--chunk-size", "2"]
SAME_AS_GREEDY = ["seed", "score_a", "score_b", "winner", "margin", "hands", "termination", "first_dealer"]


def spec(name: str) -> str:
    return f"{BAD}:{name}"


def run(out: Path, *arguments: str):
    result = CliRunner().invoke(main, ["run", *RUN, "--out", str(out), "-q", *arguments])
    return result, result.output  # click's output holds what went to stdout and stderr


@pytest.fixture(scope="module")
def greedy_games(tmp_path_factory):
    out = tmp_path_factory.mktemp("greedy") / "run"
    result, _ = run(out, "-s", "greedy")
    assert result.exit_code == 0
    return read_run_tables(out)[0].set_index("game_id")


def check_forfeits(out: Path, result, greedy_games, bad: str, reason: str, games_run: int = GAMES) -> pd.DataFrame:
    """The run finished, its run.json is final, every forfeit is the bad strategy's with ``reason``, and every
    other game is the one greedy plays."""
    assert result.exit_code == 0, result.output
    bad = run_key(bad)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "complete" and manifest["games_done"] == games_run
    games, hands = read_run_tables(out)
    assert sorted(games.game_id) == list(range(games_run))
    forfeits = games[games.termination == "forfeit"]
    assert len(forfeits) >= 1, "the fixture seed must spring the trap at least once"
    assert set(forfeits.forfeit_reason) == {reason}
    assert all(bad in error and "\n" not in error for error in forfeits.error), forfeits.error.tolist()
    failing = [row.team_a_strategy if row.forfeit_team == "A" else row.team_b_strategy
               for row in forfeits.itertuples()]
    assert set(failing) == {bad}
    assert games[games.termination != "forfeit"].forfeit_reason.isna().all()
    clean = games[games.termination != "forfeit"].set_index("game_id")
    assert len(clean) >= 1, "the fixture seed must leave some games clean"
    pd.testing.assert_frame_equal(clean[SAME_AS_GREEDY], greedy_games.loc[clean.index, SAME_AS_GREEDY])
    # The hands of each game add up to its totals (a forfeit keeps the hands finished before it).
    for row in games.itertuples():
        own = hands[hands.game_id == row.game_id]
        assert own.hand_no.nunique() == row.hands
        assert own[own.team == "A"].score.sum() == row.score_a and own[own.team == "B"].score.sum() == row.score_b
    return forfeits


def check_stop(out: Path, bad: str, *arguments: str, message: str, reason: str) -> None:
    result, text = run(out, "-s", bad, "-s", "greedy", *arguments)
    assert result.exit_code == 1, text
    bad = run_key(bad)
    error_lines = [line for line in text.splitlines() if line.startswith("Error: ")]
    assert len(error_lines) == 1 and message in error_lines[0] and bad in error_lines[0], text
    # The reason --on-error forfeit would record, named as compare's, tune's and check-strategy's lines name it.
    assert f" (reason: {reason}); finished games are kept" in error_lines[0], text
    assert "Interrupted" not in text and "Traceback" not in text
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "stopped" and manifest["ended_at"]


FAILURES = [
    # (class, extra options, forfeit reason, words of the one-line message)
    ("RaisesKeyboardInterrupt", [], "exception", "raised KeyboardInterrupt"),
    ("CallsSysExit", [], "exception", "raised SystemExit: 3"),
    ("ExitsItsProcess", [], "crash", "its worker process died (exit code 1)"),
    ("LoopsForever", TIMED, "timeout", "was stopped at the time limit of 1.0 s"),
    ("SwallowsTheAlarm", TIMED, "timeout", "past the time limit of 1.0 s; its worker was killed"),
    ("SleepsPastTheLimit", TIMED, "timeout", "was stopped at the time limit of 1.0 s"),
    ("AddsJokers", [], "tampering", "changed the game: a hand differs"),
    ("RewritesThePile", [], "tampering", "changed the game: the discard pile differs"),
    ("SwapsWithTheStock", [], "tampering", "changed the game: the stock differs"),
    ("GrowsItsMelds", [], "tampering", "changed the game: the melds differs"),
    ("BlamesItsOpponent", [], "exception", "raised StrategyError"),
    ("AllocatesTooMuch", ["--memory-limit", "1500"], "exception", "raised MemoryError"),
    ("PatchesGreedy", [], "tampering", "changed canasta-sim's or a strategy's code during the game "
                                       "(Greedy.choose_discard), put back as it was"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "options", "reason", "message"), FAILURES, ids=[case[0] for case in FAILURES])
def test_a_failure_is_the_seats_forfeit_and_the_run_goes_on(tmp_path, greedy_games, name, options, reason, message):
    bad = spec(name)
    out = tmp_path / "forfeit"
    result, _ = run(out, "-s", bad, "-s", "greedy", "--on-error", "forfeit", *options)
    forfeits = check_forfeits(out, result, greedy_games, bad, reason, TIMED_GAMES if options is TIMED else GAMES)
    assert all(message in error for error in forfeits.error)
    # The time a timed-out game costs, as the arbiter measured it, never the run's wall time (a loaded machine's):
    # the clock's own words say it stopped the call at the limit, and a call that swallowed the alarm was killed once
    # the supervisor saw it past the limit plus its margin, never before, and at its next look, not a second later.
    kill_at = TIME_LIMIT + HARD_TIMEOUT_MARGIN
    for error in forfeits.error if "its worker was killed" in message else ():
        killed = re.search(r"was still running (\d+\.\d) s after it began", error)
        assert killed and kill_at <= float(killed[1]) < kill_at + 1, error


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "options", "reason", "message"), FAILURES[:6] + FAILURES[10:11],
                         ids=[case[0] for case in FAILURES[:6] + FAILURES[10:11]])
def test_a_failure_stops_the_run_with_the_seats_one_line_error(tmp_path, name, options, reason, message):
    check_stop(tmp_path / "stop", spec(name), *options, message=message, reason=reason)


@pytest.mark.timeout(60)
def test_a_fake_strategy_error_is_charged_to_the_seat_that_raised_it(tmp_path, greedy_games):
    out = tmp_path / "run"
    result, _ = run(out, "-s", spec("BlamesItsOpponent"), "-s", "greedy", "--on-error", "forfeit")
    forfeits = check_forfeits(out, result, greedy_games, spec("BlamesItsOpponent"), "exception")
    assert all(error.startswith(f"strategy '{run_key(spec('BlamesItsOpponent'))}'") for error in forfeits.error)


@pytest.mark.timeout(60)
def test_tampering_from_on_event_is_found_and_charged_to_the_listener(tmp_path, greedy_games):
    bad = spec("TampersInItsEvents")
    out = tmp_path / "run"
    result, _ = run(out, "-s", bad, "-s", "greedy", "--on-error", "forfeit")
    forfeits = check_forfeits(out, result, greedy_games, bad, "tampering")
    assert all("decision event" in error for error in forfeits.error)


@pytest.mark.timeout(60)
def test_what_a_strategy_prints_goes_to_the_log_capped_never_to_the_output(tmp_path, greedy_games):
    out = tmp_path / "run"
    log = tmp_path / "run.log"
    result, text = run(out, "-s", spec("PrintsMegabytes"), "-s", "greedy", "--log-file", str(log))
    assert result.exit_code == 0 and "xxxxxxxxxx" not in text and len(text) < 5000
    games, _ = read_run_tables(out)
    assert (games.termination != "forfeit").all()
    pd.testing.assert_frame_equal(games.set_index("game_id")[SAME_AS_GREEDY], greedy_games[SAME_AS_GREEDY])
    logged = log.read_text()
    assert "the strategies printed" in logged and "more characters dropped" in logged
    assert len(logged) < GAMES * 40_000


@pytest.mark.timeout(60)
def test_a_closed_stdout_pipe_costs_no_game(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "canasta_sim", "run", *RUN, "-s", spec("PrintsMegabytes"), "-s", "greedy",
               "--out", str(out), "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdout.close()  # nobody reads the tool's output
    process.wait(timeout=50)
    games, _ = read_run_tables(out)
    assert len(games) == GAMES and (games.termination != "forfeit").all()
    assert json.loads((out / "run.json").read_text())["status"] == "complete"


@pytest.mark.timeout(60)
def test_sigterm_stops_workers_stuck_in_strategy_code_and_leaves_run_json_final(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "canasta_sim", "run", *RUN, "-s", spec("LoopsForever"), "-s", "greedy",
               "--out", str(out), "-q"]
    sprung = tmp_path / "sprung"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "TRAP_SPRUNG_LOG": str(sprung)})
    wait_for_a_trap(sprung, process)  # a worker is now stuck in the looping seat's discard
    process.send_signal(signal.SIGTERM)
    _, error = process.communicate(timeout=20)
    assert process.returncode == 130 and "Interrupted" in error
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["ended_at"]
    # No worker left behind: the whole session is gone, once the kernel has run the kills (at once, unless busy).
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)


@pytest.mark.timeout(60)
def test_check_strategy_stops_an_endless_loop_and_shows_a_tracebacks_lines():
    # One game, whose trap springs: each game that loops costs the time limit and the supervisor's margin (1.3 s).
    looping = CliRunner().invoke(main, ["check-strategy", spec("SwallowsTheAlarm"), "--games", "1",
                                        "--time-limit", "0.3", "--rules", "target_score=1500"])
    assert looping.exit_code == 1 and "timeout" in looping.output
    raising = CliRunner().invoke(main, ["check-strategy", spec("RaisesKeyboardInterrupt"), "--games", "4",
                                        "--rules", "target_score=1500"])
    text = raising.output
    assert raising.exit_code == 1 and "Interrupted" not in text and "raised KeyboardInterrupt" in text
    assert "Traceback" in text and f'"{BAD}", line' in text and "in spring" in text


def test_a_strategy_error_keeps_the_strategys_own_traceback_and_crosses_processes():
    class Raises(Greedy):
        name = "raises"

        def choose_discard(self, view):
            raise ValueError("oops in my discard code")

    with pytest.raises(StrategyError) as caught:
        play_game([Raises, Greedy, Raises, Greedy], seed=3)
    error = caught.value
    assert error.reason == "exception" and "\n" not in str(error)
    assert "in choose_discard" in error.traceback and "oops in my discard code" in error.traceback
    assert "engine.py" not in error.traceback.splitlines()[1]  # it starts at the strategy's frame
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error) and copy.traceback == error.traceback and copy.reason == error.reason


@pytest.mark.timeout(120)
def test_the_built_in_strategies_never_change_the_game_so_they_may_go_unchecked(monkeypatch):
    # Built-ins are trusted (canasta_sim.arbiter.is_trusted): this is what earns them that trust.
    import canasta_sim.core.engine
    import canasta_sim.core.seats
    from canasta_sim.strategies import Expert, RandomPlay

    monkeypatch.setattr(canasta_sim.core.seats, "is_trusted", lambda player: False)
    for seed, (first, second) in enumerate([(Expert, Greedy), (Greedy, RandomPlay), (RandomPlay, Expert)]):
        players = [first, second, first, second]
        names = [player.name for player in players]
        # Strict: the game is compared with its fingerprint after every single call.
        result = canasta_sim.core.engine._play(
            players, seed, DEFAULT_RULES, names, None, MAX_HANDS_PER_GAME, None, None, strict=True
        )
        assert result == play_game(players, seed=seed)


@pytest.mark.timeout(60)
def test_the_strategys_traceback_is_in_the_runs_log_and_the_message_stays_one_line(tmp_path):
    log = tmp_path / "run.log"
    result, text = run(tmp_path / "run", "-s", spec("CallsSysExit"), "-s", "greedy", "--log-file", str(log))
    assert result.exit_code == 1 and "Traceback" not in text
    logged = log.read_text()
    assert "Traceback (most recent call last)" in logged and f'"{BAD}", line' in logged and "in spring" in logged
    assert "sys.exit(3)" in logged


@pytest.mark.timeout(30)
def test_the_clock_stops_an_endless_loop_in_a_thread_too_as_on_a_dask_worker():
    import importlib.util
    import threading

    loaded = importlib.util.spec_from_file_location("bad_strategies_for_threads", BAD)
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    outcome = {}

    def play():
        try:
            for seed in range(40):  # the trap springs in some games only
                play_game([module.LoopsForever, Greedy] * 2, seed=seed, time_limit=0.2)
        except StrategyError as error:
            outcome["error"] = error

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    thread.join(20)
    assert not thread.is_alive()
    assert outcome["error"].reason == "timeout" and "time limit of 0.2 s" in str(outcome["error"])


def test_a_seat_failure_raised_by_a_strategy_proxy_keeps_its_reason():
    from canasta_sim.errors import SeatFailure

    class DeadProcess(Greedy):
        name = "dead-process"

        def choose_acquire(self, view):
            raise SeatFailure("the bot process exited with code 9", reason="crash")

    with pytest.raises(StrategyError) as caught:
        play_game([DeadProcess, Greedy, DeadProcess, Greedy], seed=1)
    assert caught.value.reason == "crash" and "the bot process exited with code 9" in str(caught.value)
    assert caught.value.spec == "dead-process" and caught.value.seat in (0, 2)


@pytest.mark.timeout(60)
def test_report_counts_each_strategys_forfeits_by_reason(tmp_path):
    out = tmp_path / "run"
    result, _ = run(out, "-s", spec("AddsJokers"), "-s", "greedy", "--on-error", "forfeit")
    assert result.exit_code == 0
    forfeited = int((read_run_tables(out)[0].forfeit_reason == "tampering").sum())
    text = CliRunner().invoke(main, ["report", str(out)]).output
    assert f"forfeits of adds-jokers@2: {forfeited} tampering" in text  # named as the header names it
    described = json.loads(CliRunner().invoke(main, ["report", str(out), "--format", "json"]).output)
    assert described["run"]["forfeit_reasons"] == {run_key(spec("AddsJokers")): {"tampering": forfeited}}


def _monitored_game(time_limit):
    """Play one game with a monitor, each greedy seat noting what the monitor says during its own calls."""
    cells = memoryview(multiprocessing.RawArray("d", MONITOR_SIZE)).cast("B").cast("d")
    seen = []

    class Noting(Greedy):
        def on_event(self, event):
            seen.append((self.seat, "event", decode_call(cells[MONITOR_CALL]), cells[MONITOR_START], time.monotonic()))

        def choose_discard(self, view):
            seen.append((self.seat, "discard", decode_call(cells[MONITOR_CALL]), cells[MONITOR_START],
                         time.monotonic()))
            return super().choose_discard(view)

    def factory(seat):
        def build(generator):
            player = Noting(generator)
            player.seat = seat
            return player
        return build

    play_game([factory(seat) for seat in range(4)], seed=3, rules=dataclasses.replace(DEFAULT_RULES, target_score=500),
              time_limit=time_limit, monitor=cells)
    return seen


@pytest.mark.timeout(60)
@pytest.mark.parametrize("time_limit", [None, 30.0])
def test_the_monitor_names_the_seat_and_decision_of_every_call_in_progress(time_limit):
    # The supervisor charges a worker's crash to the call the monitor names: events (the engine's inlined
    # path) and decisions alike must be published before strategy code runs.
    seen = _monitored_game(time_limit)
    assert {kind for _, kind, _, _, _ in seen} == {"event", "discard"}
    for seat, kind, published, _, _ in seen:
        assert published == (seat, kind)
    if time_limit is not None:  # a hang past the limit is found from the call's start
        starts = [start for _, _, _, start, _ in seen]
        assert all(0 < start <= now for _, _, _, start, now in seen)
        assert len(set(starts)) > len(seen) // 2
