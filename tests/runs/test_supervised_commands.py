"""``compare`` and ``tune`` play under the run's supervisor: no strategy can hang them, kill them or print into them.

Each failure kind of tests/bots/late_failures.py (a strategy failing at its first decision once its worker has
played a few clean games) is played in a real two-worker ``compare`` and ``tune``; each must end on its own
(hard timeouts turn a hang into a failure), with exit code 1, one ``Error:`` line naming the seat and the
reason, no traceback, and the games (iterations) finished before the failure kept.  Clean comparisons and
tunings must give exactly what the same games played in this process give.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.compare import MatchPlan
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.sprt import ResultCounts, Sprt
from canasta_sim.tuning.iteration import TunedStrategy, iteration_tasks, play_deals
from canasta_sim.tuning.run import TuningDirectory, TuningSettings, new_manifest, run_tuning
from tests.helpers import BOTS, read_run_tables, run_key, wait_for_a_trap

FAILING = BOTS / "late_failures.py"
QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short
# A limit on every decision, the clean games' too: at 0.3 s a greedy discard of a clean game overran it once in a
# full suite at load 12 on two cores (the seat charged before the trap sprang), and the test failed.
LIMIT = ["--time-limit", "1.0"]
PATCHED = ("changed canasta-sim's or a strategy's code during the game (canasta_sim.core.engine.score_hand), "
           "put back as it was")


def spec(name: str) -> str:
    return f"{FAILING}:{name}"


FAILURES = [
    # (class, extra options, reason, words of the one-line message)
    ("Raises", [], "exception", "raised RuntimeError: no move today"),
    ("ExitsItsProcess", [], "crash", "its worker process died (exit code 3) during this call"),
    ("Segfaults", [], "crash", "its worker process died (signal SIGSEGV) during this call"),
    ("LoopsForever", LIMIT, "timeout", "was stopped at the time limit of 1.0 s"),
    ("SleepsPastTheLimit", LIMIT, "timeout", "was stopped at the time limit of 1.0 s"),
    ("SwallowsTheAlarm", LIMIT, "timeout", "past the time limit of 1.0 s; its worker was killed"),
    ("AllocatesTooMuch", ["--memory-limit", "1500"], "exception", "raised MemoryError"),
    # The engine's own checks (the fingerprint) and run's check after each game hold in compare and tune too.
    ("AddsAJoker", [], "tampering", "changed the game: a hand differs"),
    ("PatchesTheEngine", [], "tampering", PATCHED),
]
IDS = [case[0] for case in FAILURES]


def one_error_line(text: str, name: str, reason: str, message: str) -> str:
    """The output holds exactly one ``Error:`` line, naming the strategy, its seat, the reason and the message."""
    errors = [line for line in text.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, text
    line = errors[0]
    named = {spec(name), run_key(spec(name))}  # compare names a file from where it starts, tune as given
    assert any(named_so in line for named_so in named), line
    assert " at seat " in line and f"(reason: {reason})" in line and message in line, line
    assert "Traceback" not in text and "Interrupted" not in text
    return line


def compare(*arguments: str):
    return CliRunner().invoke(main, ["compare", *arguments, "--seed", "3", "--workers", "2", *QUICK])


def tune(*arguments: str):
    return CliRunner().invoke(main, ["tune", *arguments, "--seed", "3", "--workers", "2", "--games-per-iteration", "4",
                                     "-q", *QUICK])


# --- compare ----------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "options", "reason", "message"), FAILURES, ids=IDS)
def test_compare_stops_at_a_failure_with_its_seat_and_reason_and_keeps_the_games_counted(tmp_path, name, options,
                                                                                       reason, message):
    out = tmp_path / "saved"
    result = compare(spec(name), "--baseline", "greedy", "--max-games", "400", "--out", str(out), *options)
    assert result.exit_code == 1, result.output
    line = one_error_line(result.output, name, reason, message)
    # A worker plays 8 clean games (16 players of the failing strategy) first: the first failure in game
    # order is game 8 of block 0, so the 8 games before it are counted and saved.
    assert line.startswith("Error: game 8: ") and "the 8 games counted are saved" in line
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "stopped" and manifest["games_done"] == 8 and manifest["on_error"] == "stop"
    games, _ = read_run_tables(out)
    assert list(games.game_id) == list(range(8)) and (games.termination != "forfeit").all()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["Raises", "ExitsItsProcess", "SwallowsTheAlarm", "PatchesTheEngine"])
def test_compare_on_error_forfeit_counts_the_failing_sides_loss_and_goes_on(tmp_path, name):
    out = tmp_path / "saved"
    result = compare(spec(name), "--baseline", "greedy", "--max-games", "20", "--on-error", "forfeit", *LIMIT,
                     "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and not any(line.startswith("Error") for line in result.output.splitlines())
    games, _ = read_run_tables(out)
    forfeits = games[games.termination == "forfeit"]
    assert len(games) == 20 and len(forfeits) >= 1
    assert (forfeits.forfeit_reason == FAILURES[IDS.index(name)][2]).all()
    failing = [row.team_a_strategy if row.forfeit_team == "A" else row.team_b_strategy
               for row in forfeits.itertuples()]
    assert set(failing) == {run_key(spec(name))}
    assert all(FAILURES[IDS.index(name)][3] in error for error in forfeits.error)
    assert f"{len(forfeits)} games counted were forfeited" in result.output
    # Each forfeit is a loss of the failing side in the counts: W-D-L of NEW.
    assert f"-{len(forfeits) + int(((games.termination != 'forfeit') & (games.winner_strategy == 'greedy')).sum())}"\
        in [line for line in result.output.splitlines() if line.startswith("games ")][-1].split()[3]


@pytest.mark.timeout(60)
def test_a_supervised_compare_gives_the_verdict_of_the_same_games_played_in_process(tmp_path, capfd):
    plan = MatchPlan(spec("Prints"), "random", 3, Rules(target_score=1000), True, 12)
    new, old = load_strategy(plan.new), load_strategy(plan.old)
    counts = ResultCounts()
    test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    for observation in range(plan.observations):  # the games compare played before, in this process
        scores = []
        for seed, new_side in plan.games(observation):
            first, second = (new, old) if new_side == 0 else (old, new)
            result = play_game([first, second, first, second], seed=seed, rules=plan.rules,
                               names=[first.spec, second.spec] * 2)
            scores.append(0.5 if result.winner is None else float(result.winner == new_side))
        counts.add_pair(*scores)
    capfd.readouterr()
    log = tmp_path / "compare.log"
    result = compare(plan.new, "--baseline", "random", "--max-games", "24", "--print-every", "1000", "--log-file",
                     str(log))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-2].startswith(f"games     24  {counts.text()}  LLR {test.llr(counts):6.2f} "), lines[-2]
    assert lines[-1].startswith("no decision after 24 games")
    # What the strategy printed is in the log, never in the output.
    assert "xxxxxxxxxx" not in result.output and "printed to stderr" not in result.output
    assert "descriptor" not in result.output
    logged = log.read_text()
    assert "the strategies printed" in logged and "printed to stderr" in logged and "more characters dropped" in logged


# --- tune -------------------------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "options", "reason", "message"), FAILURES, ids=IDS)
def test_tune_stops_at_a_failure_with_its_seat_and_reason_and_keeps_finished_iterations(tmp_path, name, options,
                                                                                     reason, message):
    out = tmp_path / "tuned"
    result = tune(spec(name), "--games", "400", "--out", str(out), *options)
    assert result.exit_code == 1, result.output
    line = one_error_line(result.output, name, reason, message)
    assert "finished iterations are kept" in line
    # A worker plays 4 clean games (16 players of the tuned strategy) first, 2 per iteration when both
    # workers share the iteration's deals, all 4 of the first when one worker started late.
    kept = pq.read_table(out / "trajectory.parquet").num_rows
    manifest = json.loads((out / "tune.json").read_text())
    assert 1 <= kept <= 2 and manifest["status"] == "stopped" and manifest["iterations_done"] == kept
    assert line.startswith(f"Error: iteration {kept}: strategy ")


@pytest.mark.timeout(60)
def test_the_tune_failure_line_says_the_deal_seed_once(tmp_path):
    result = tune(spec("Raises"), "--games", "400", "--out", str(tmp_path / "tuned"))
    line = one_error_line(result.output, "Raises", "exception", "raised RuntimeError")
    failure, again = line.split("; play it again where a debugger stops: ")  # the command repeats it, as it must
    seed = failure.split("(game seed ")[1].split(")")[0]
    assert seed.isdigit() and failure.count(seed) == 1 and failure.count("seed") == 1, line
    assert again.startswith(f"canasta-sim watch --seed {seed} "), line


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["Raises", "ExitsItsProcess", "PatchesTheEngine"])
def test_tune_on_error_forfeit_records_forfeits_and_goes_on(tmp_path, name):
    out = tmp_path / "tuned"
    result = tune(spec(name), "--games", "16", "--on-error", "forfeit", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and not any(line.startswith("Error") for line in result.output.splitlines())
    table = pq.read_table(out / "trajectory.parquet").to_pylist()
    assert len(table) == 4 and sum(row["forfeits"] for row in table) >= 1
    assert json.loads((out / "tune.json").read_text())["status"] == "finished"


@pytest.mark.timeout(120)
def test_a_supervised_tuning_follows_the_trajectory_of_the_same_games_played_in_process(tmp_path):
    settings = TuningSettings(spec="expert", params=("aggression", "wild_take_pile"), against=None, games=12,
                              games_per_iteration=4, seed=5, rules=Rules(target_score=1000))
    directory = TuningDirectory(tmp_path / "tuned")
    directory.write_manifest(new_manifest(settings, "test", seed_drawn=False))
    supervised = run_tuning(settings, directory, workers=2)
    rows = directory.read_trajectory().to_pylist()
    # The loop of run_tuning with every task played in this process by play_deals.
    import random

    from canasta_sim.tuning.spsa import Spsa

    tuned, loaded = TunedStrategy.from_spec(settings.spec, settings.params)
    spsa = Spsa(tuned.dimensions(), settings.spsa_settings())
    theta = spsa.start(tuned.start_values(loaded(random.Random(0))))
    for iteration, row in enumerate(rows):
        proposal = spsa.propose(theta, iteration)
        tasks = iteration_tasks(tuned.spec(proposal.plus), tuned.spec(proposal.minus), None, settings.rules,
                                settings.seed, iteration, settings.deals_per_iteration, 1)
        match = play_deals(tasks[0])
        assert (match.games, match.plus_points, match.forfeits) == (row["games"], row["plus_points"], row["forfeits"])
        theta = spsa.update(theta, proposal, match.result(head_to_head=True))
    assert len(rows) == 3 and theta == supervised.theta


# --- Ctrl-C, and no process left behind --------------------------------------------------------------------


def assert_session_gone(process: subprocess.Popen) -> None:
    """No process of the command's session is left: workers and bot processes died with it."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    survivors = subprocess.run(["ps", "-o", "pid,stat,cmd", "-g", str(process.pid)], capture_output=True, text=True)
    os.killpg(process.pid, signal.SIGKILL)
    pytest.fail(f"processes outlived the command:\n{survivors.stdout}")


def start(arguments: list[str], **environment: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "canasta_sim", *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, **environment})


@pytest.mark.timeout(60)
def test_ctrl_c_stops_a_compare_whose_isolated_bot_loops_and_no_process_outlives_it(tmp_path):
    sprung = tmp_path / "sprung"
    process = start(["compare", f"isolated:{spec('LoopsForever')}", "--baseline", "greedy", "--seed", "3",
                     "--workers", "2", *QUICK], LATE_FAILURES_CLEAN="0", TRAP_SPRUNG_LOG=str(sprung))
    assert process.stdout.readline().startswith("compare ")  # the workers start right after this line
    wait_for_a_trap(sprung, process)  # a bot was asked its first decision and loops (no time limit)
    process.send_signal(signal.SIGINT)
    _, error = process.communicate(timeout=20)
    assert process.returncode == 130 and "Interrupted after 0 games" in error and "Traceback" not in error
    assert_session_gone(process)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_one_signal_stops_a_tuning_stuck_in_a_loop_dropping_its_iteration_and_keeping_finished_ones(tmp_path,
                                                                                                   number):
    out = tmp_path / "tuned"
    sprung = tmp_path / "sprung"
    process = start(["tune", spec("LoopsForever"), "--games", "400", "--games-per-iteration", "4", "--seed", "3",
                     "--workers", "2", "--out", str(out), *QUICK], TRAP_SPRUNG_LOG=str(sprung))
    deadline = time.monotonic() + 40
    while not (out / "trajectory.parquet").exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    # A worker is then stuck in a decision with no time limit: the stop's grace runs out, it is killed.  (A worker's
    # first 16 players play clean, 4 games of the first iteration on two workers: no trap springs before it is kept.)
    wait_for_a_trap(sprung, process)
    process.send_signal(number)
    signalled = time.monotonic()
    stdout, error = process.communicate(timeout=20)
    assert process.returncode == 130, error
    assert time.monotonic() - signalled < 2.0 + 5  # the grace, then the summary (no iteration is waited for)
    assert "Interrupted: finished iterations are kept" in error and "Traceback" not in error
    kept = pq.read_table(out / "trajectory.parquet").num_rows
    manifest = json.loads((out / "tune.json").read_text())
    assert kept >= 1 and manifest["status"] == "interrupted" and manifest["iterations_done"] == kept
    assert manifest["sessions"][-1]["status"] == "interrupted"
    assert stdout.strip().splitlines()[-1] == manifest["final_spec"]
    assert_session_gone(process)


@pytest.mark.timeout(60)
def test_an_isolated_bot_that_timed_out_is_killed_with_its_game(monkeypatch):
    from canasta_sim.plugins.pools import close_all
    from canasta_sim.plugins.process import BotProcess
    from canasta_sim.strategies import Greedy

    monkeypatch.setenv("LATE_FAILURES_CLEAN", "0")
    started = []
    original = BotProcess.start

    def recording_start(self):
        original(self)
        started.append(self.process.pid)

    monkeypatch.setattr(BotProcess, "start", recording_start)
    looping = load_strategy(f"isolated:{spec('SwallowsTheAlarm')}")
    with pytest.raises(StrategyError) as caught:
        play_game([looping, Greedy, looping, Greedy], seed=1, rules=Rules(target_score=1000), time_limit=0.3)
    assert caught.value.reason == "timeout" and caught.value.seat in (0, 2) and len(started) == 2
    with pytest.raises(ProcessLookupError):  # the bot that timed out is gone already, not at the command's end
        os.kill(started[[0, 2].index(caught.value.seat)], 0)
    close_all()
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_time_limit_is_a_setting_of_the_tuning_recorded_and_kept_on_resume(tmp_path):
    settings = TuningSettings(spec="expert", params=("aggression",), against=None, games=8, games_per_iteration=4,
                              seed=5, rules=Rules(target_score=1000), time_limit=0.5)
    out = tmp_path / "tuned"
    TuningDirectory(out).write_manifest(new_manifest(settings, "test", seed_drawn=False))
    assert TuningSettings.from_manifest(json.loads((out / "tune.json").read_text())) == settings
    result = CliRunner().invoke(main, ["tune", "--resume", str(out), "--time-limit", "2"])
    assert result.exit_code == 2 and "(--time-limit 0.5, not 2)" in result.output
