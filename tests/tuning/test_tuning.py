"""``canasta-sim tune``: the games an iteration plays, determinism, resume, output, plotting and bad input."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.rules import Rules
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.matchmaking import deal_seed
from canasta_sim.tuning.iteration import MatchResult, TunedStrategy, TuningError, iteration_tasks, play_deals
from canasta_sim.tuning.run import TuningDirectory, TuningSettings, new_manifest, run_tuning
from tests.helpers import invoke

QUICK_RULES = Rules(target_score=1000)  # R15.1 with a low target keeps games short
QUICK = ["--rules", "target_score=1000"]


def settings(**changes) -> TuningSettings:
    values = {"spec": "expert", "params": ("aggression", "wild_take_pile"), "against": None, "games": 16,
              "games_per_iteration": 4, "seed": 5, "rules": QUICK_RULES}
    values.update(changes)
    return TuningSettings(**values)


def tune(path: Path, chosen: TuningSettings, workers: int, **options):
    directory = TuningDirectory(path)
    if not directory.manifest_path.exists():
        directory.write_manifest(new_manifest(chosen, "test", seed_drawn=False))
    return run_tuning(chosen, directory, workers=workers, **options)


@pytest.mark.timeout(300)
def test_resumed_runs_end_exactly_where_an_uninterrupted_one_does_whatever_the_workers(tmp_path):
    chosen = settings()
    whole = tune(tmp_path / "whole", chosen, workers=1)
    assert whole.status == "finished" and whole.iterations_done == 4 and whole.games_done == 16
    checks = iter([False, False, True])  # stop before the third iteration, as the first Ctrl-C would
    part = tune(tmp_path / "split", chosen, workers=2, should_stop=lambda: next(checks))
    assert part.status == "interrupted" and part.iterations_done == 2
    rest = tune(tmp_path / "split", chosen, workers=2)
    assert rest.status == "finished" and rest.theta == whole.theta and rest.spec == whole.spec
    assert pq.read_table(tmp_path / "split" / "trajectory.parquet").equals(
        pq.read_table(tmp_path / "whole" / "trajectory.parquet"))


@pytest.mark.timeout(120)
def test_an_iteration_plays_each_deal_with_the_sides_swapped():
    tasks = iteration_tasks("expert:aggression=0.3", "expert:aggression=0.7", None, QUICK_RULES, seed=9, iteration=3,
                            deals=3, parts=2)
    assert [len(task.seeds) for task in tasks] == [2, 1]
    assert [seed for task in tasks for seed in task.seeds] == [deal_seed(9, 9), deal_seed(9, 10), deal_seed(9, 11)]
    one = play_deals(tasks[1])
    assert one.games == 2 and one.plus_points + one.minus_points == 2
    # The same deal between identical players: the swap gives each side one game of each seat pair's cards.
    mirror = play_deals(iteration_tasks("expert", "expert", None, QUICK_RULES, 9, 0, 1, 1)[0])
    assert mirror.plus_points == 1.0 and mirror.result(head_to_head=True) == 0.0
    against = play_deals(iteration_tasks("expert", "expert", "greedy", QUICK_RULES, 9, 0, 1, 1)[0])
    assert against.games == 4 and against.plus_points == against.minus_points  # equal candidates, equal points
    assert against.result(head_to_head=False) == 0.0


PATCHER = """
from canasta_sim.core import engine
from canasta_sim.strategies.greedy import Greedy


class Patcher(Greedy):
    name = "patcher"

    def choose_acquire(self, view):
        if engine.score_hand.__name__ != "patched_score_hand":
            original = engine.score_hand

            def patched_score_hand(state):
                return original(state)

            engine.score_hand = patched_score_hand
        return super().choose_acquire(view)
"""


@pytest.mark.timeout(120)
def test_deals_played_in_process_are_checked_for_rebound_engine_code(tmp_path):
    from canasta_sim.core import engine

    original = engine.score_hand
    path = tmp_path / "patcher.py"
    path.write_text(PATCHER)
    match = play_deals(iteration_tasks(f"{path}:Patcher", "greedy", None, QUICK_RULES, 9, 0, 2, 1)[0])
    # The first game is charged to the strategy whose file defined the replacement, and the engine is
    # put back as it was, so no later game plays with it.
    assert match.error is not None and "(reason: tampering)" in match.error and "score_hand" in match.error
    assert match.games == 0 and engine.score_hand is original


def test_match_results_are_the_documented_estimates():
    assert MatchResult(16, 10.0, 6.0).result(head_to_head=True) == pytest.approx(10 / 16 - 0.5)
    assert MatchResult(8, 3.0, 1.0).result(head_to_head=False) == pytest.approx(3 / 4 - 1 / 4)
    with pytest.raises(ValueError):
        MatchResult().result(head_to_head=True)


def test_the_tuned_spec_keeps_fixed_parameters_and_starts_from_the_specs_values():
    tuned, loaded = TunedStrategy.from_spec("expert:ask_cards=7,aggression=0.9", ["aggression"])
    assert tuned.start_values(loaded(None)) == {"aggression": 0.9}
    assert tuned.spec([0.4]) == "expert:ask_cards=7,aggression=0.4"
    assert load_strategy(tuned.spec([0.4]))(None).ask_cards == 7
    every, _ = TunedStrategy.from_spec("expert")
    assert every.names == ("aggression", "freeze", "ask_cards", "answer_cost", "wild_take_pile")


@pytest.mark.parametrize(
    ("spec", "names", "message"),
    [
        ("greedy", None, "declares no parameter with a range"),
        ("expert", ["boldness"], "has no parameter 'boldness'; its tunable parameters: aggression"),
        ("expert", [], "--params is empty"),
        ("expert", ["freeze", "freeze"], "names freeze twice"),
    ],
)
def test_untunable_choices_are_refused(spec, names, message):
    with pytest.raises(TuningError, match=message):
        TunedStrategy.from_spec(spec, names)


def test_a_parameter_without_a_range_cannot_be_tuned(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("from canasta_sim.strategies.greedy import Greedy\n\n\nclass Bot(Greedy):\n    name = 'bot'\n"
                   "    parameters = {'depth': 2}\n")
    with pytest.raises(TuningError, match="parameter 'depth' declares no range, so it cannot be tuned"):
        TunedStrategy.from_spec(f"{bot}:Bot", ["depth"])


@pytest.mark.timeout(120)
def test_a_failing_strategy_stops_the_tuning_and_keeps_finished_iterations(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "from canasta_sim.core.parameters import Parameter\nfrom canasta_sim.strategies.greedy import Greedy\n\n\n"
        "class Fragile(Greedy):\n    name = 'fragile'\n"
        "    parameters = {'fail': Parameter(0.0, low=0.0, high=1.0)}\n\n"
        "    def choose_discard(self, view):\n"
        "        if self.fail > 0.5:\n            raise RuntimeError('oops')\n"
        "        return super().choose_discard(view)\n")
    chosen = settings(spec=f"{bot}:Fragile:fail=0.5", params=("fail",))
    with pytest.raises(TuningError, match=r"iteration 0: strategy .* \(game seed \d+\), .*oops"):
        tune(tmp_path / "run", chosen, workers=1)
    assert not (tmp_path / "run" / "trajectory.parquet").exists()
    forfeiting = tune(tmp_path / "forfeit", settings(spec=f"{bot}:Fragile:fail=0.5", params=("fail",),
                                                     on_error="forfeit", games=4), workers=1)
    row = pq.read_table(tmp_path / "forfeit" / "trajectory.parquet").to_pylist()[0]
    assert forfeiting.iterations_done == 1 and row["forfeits"] >= 1


@pytest.mark.timeout(300)
def test_the_cli_tunes_prints_a_ready_spec_and_plots_the_trajectory(tmp_path):
    out = tmp_path / "tuned"
    command = [sys.executable, "-m", "canasta_sim", "tune", "expert", "--params", "aggression,ask_cards", "--games",
               "8", "--games-per-iteration", "4", "--seed", "3", "--workers", "2", "--out", str(out), *QUICK]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    spec = done.stdout.strip().splitlines()[-1]
    assert spec.startswith("expert:aggression=") and ",ask_cards=" in spec
    load_strategy(spec)
    # Two iterations of four games move neither value at this seed: no compare of the start against itself.
    assert spec == "expert:aggression=0.5,ask_cards=5"
    assert done.stdout.strip().splitlines()[-2] == "nothing to check: the values are the starting ones"
    manifest = json.loads((out / "tune.json").read_text())
    assert manifest["status"] == "finished" and manifest["final_spec"] == spec and manifest["iterations_done"] == 2
    assert [entry["name"] for entry in manifest["parameters"]] == ["aggression", "ask_cards"]
    table = pq.read_table(out / "trajectory.parquet")
    assert table.num_rows == 2 and {"theta.aggression", "plus.ask_cards", "result"} <= set(table.column_names)
    plotted = CliRunner().invoke(main, ["plot", str(out)], catch_exceptions=False)
    assert plotted.exit_code == 0 and (out / "plots" / "trajectory.png").stat().st_size > 10_000
    again = invoke("tune", "--resume", str(out))
    assert again.exit_code == 0 and again.output.strip().splitlines()[-1] == spec  # nothing left to play


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["expert", "--params", "boldness"], "expert@1 has no parameter 'boldness'"),
        (["expert", "--params", "aggression", "--games", "4", "--games-per-iteration", "16"],
         "--games 4 is less than one iteration (16 games)"),
        (["expert", "--games-per-iteration", "3"], "--games-per-iteration must be a positive multiple of 2"),
        (["expert", "--against", "greedy", "--games-per-iteration", "6"], "a positive multiple of 4 against"),
        (["expert:aggression=7"], "expert: aggression=7 is out of range"),
        (["grandmaster"], "unknown strategy 'grandmaster'"),
        (["expert", "--against", "nowhere.py:Bot"], "strategy file 'nowhere.py' does not exist"),
        (["greedy"], "declares no parameter with a range"),
        ([], "tune needs a strategy SPEC"),
        # Each gain named as the option typed, not as the update rule's field ("the learning rate a").
        (["expert", "--perturbation", "0.9"],
         "Error: --perturbation must be above 0 and at most 0.5 (a fraction of each range); got 0.9"),
        (["expert", "--learning-rate", "0"], "Error: --learning-rate must be a finite number above 0; got 0\n"),
        (["expert", "--learning-rate", "inf"], "Error: --learning-rate must be a finite number above 0; got inf"),
        (["expert", "--stability", "inf"], "Error: --stability must be a finite number, 0 or more; got inf"),
        (["expert", "--stability", "-1"], "Error: --stability must be a finite number, 0 or more; got -1"),
        (["expert", "--rules", "target_score=-1"], "target_score=-1 is not accepted"),
        (["--resume", "no/such/dir"], "--resume: no/such/dir does not exist"),
    ],
)
def test_bad_input_gets_one_line_and_exit_code_2(arguments, message, tmp_path):
    result = (invoke("tune", *arguments, "--out", str(tmp_path / "out")) if arguments[:1] != ["--resume"]
              else invoke("tune", *arguments))
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


DECLARATIONS_BOT = '''
from canasta_sim.core.parameters import Parameter
from canasta_sim.strategies.greedy import Greedy


class Bot(Greedy):
    name = "declared"
    parameters = {"knob": Parameter(1.0, low=%s), "depth": Parameter(2, low=1, high=3)}
'''


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ("0.0, high=2.0, step=5.0", "failed to import: ValueError: a parameter step must be at most its range's "
                                    "width; got step 5 for 0 to 2"),
        ("1.0, high=1.0", "declared@2 parameter 'knob' has a range of one value (1 to 1), so it cannot be tuned"),
    ],
)
def test_declarations_a_tuner_cannot_use_get_one_line_before_any_game(declaration, message, tmp_path):
    (tmp_path / "bot.py").write_text(DECLARATIONS_BOT % declaration)
    result = invoke("tune", f"{tmp_path / 'bot.py'}:Bot", "--params", "knob", "--games", "4", "--games-per-iteration",
                    "4", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.mark.timeout(120)
def test_resume_refuses_other_settings_and_out_refuses_a_used_directory(tmp_path):
    out = tmp_path / "run"
    TuningDirectory(out).write_manifest(new_manifest(settings(), "test", seed_drawn=False))
    result = invoke("tune", "--resume", str(out), "--seed", "6")
    assert result.exit_code == 2 and "the tuning was made with other settings (--seed 5, not 6)" in result.output
    # Each as its option takes it: the parameters and the rules showed as Python's tuple and rule set.
    result = invoke("tune", "--resume", str(out), "--params", "freeze", "--rules", "target_score=600")
    assert result.exit_code == 2 and ("(--params aggression,wild_take_pile, not freeze; --rules target_score=1000, "
                                      "not target_score=600)") in result.output, result.output
    result = invoke("tune", "expert", "--out", str(out))
    assert result.exit_code == 2 and f"continue it with --resume {out}" in result.output
    (tmp_path / "file").write_text("x")
    assert "is a file" in invoke("tune", "expert", "--out", str(tmp_path / "file")).output
    with pytest.raises(StrategyLoadError):
        load_strategy("expert:wild_take_pile=0")


SLOW_BOT = '''
import time

from canasta_sim.core.parameters import Parameter
from canasta_sim.strategies.greedy import Greedy


class Slow(Greedy):
    """Greedy with a tunable parameter that changes nothing, pausing at each hand so a run can be caught."""

    name = "slow"
    parameters = {"knob": Parameter(0.5, low=0.0, high=1.0)}

    def on_hand_start(self, view):
        time.sleep(0.05)
'''


@pytest.mark.timeout(300)
def test_ctrl_c_keeps_finished_iterations_and_resume_finishes_the_run(tmp_path):
    import signal
    import time

    (tmp_path / "slow.py").write_text(SLOW_BOT)
    out = tmp_path / "run"
    command = [sys.executable, "-m", "canasta_sim", "tune", f"{tmp_path / 'slow.py'}:Slow", "--games", "400",
               "--games-per-iteration", "4", "--seed", "1", "--workers", "2", "--out", str(out), *QUICK]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 200
    while not (out / "trajectory.parquet").exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Interrupted: finished iterations are kept; continue with canasta-sim tune --resume" in stderr
    kept = pq.read_table(out / "trajectory.parquet").num_rows
    manifest = json.loads((out / "tune.json").read_text())
    assert 1 <= kept < 100 and manifest["status"] == "interrupted" and manifest["iterations_done"] == kept
    assert stdout.strip().splitlines()[-1] == manifest["final_spec"]


def test_resuming_a_tuning_whose_trajectory_is_no_parquet_says_so_in_one_line(tmp_path):
    out = tmp_path / "tuned"
    assert invoke("tune", "expert", "--params", "aggression", "--games", "8", "--games-per-iteration", "4", "--workers",
                  "1", "--seed", "1", "-q", "--rules", "target_score=500", "--out", str(out)).exit_code == 0
    (out / "trajectory.parquet").write_bytes(b"cut short\n")
    result = invoke("tune", "--resume", str(out))
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "trajectory.parquet cannot be read" in result.output


def test_the_suggested_check_plays_the_tuned_strategy_against_its_start_even_when_tuned_against_another(capsys):
    from canasta_sim.cli.tune import _print_outcome
    from canasta_sim.tuning.run import TuningOutcome

    tuned = settings(spec="expert:freeze=0.5", params=("aggression",), against="greedy")
    outcome = TuningOutcome(("aggression",), (0.5,), (0.61,), (0.61,), "expert:freeze=0.5,aggression=0.61", 2, 2, 16,
                            "finished")
    manifest = {"parameters": [{"name": "aggression", "default": 0.5, "low": 0.0, "high": 1.0}]}
    _print_outcome(tuned, manifest, outcome)
    check = shlex.split(capsys.readouterr().out.strip().splitlines()[-2].removeprefix("check it: "))
    assert check[:5] == ["canasta-sim", "compare", outcome.spec, "--baseline", "expert:freeze=0.5"], check
    # It plays the tuning's games: its rules; on compare's own workers, which decide no game.
    assert " ".join(check[5:]) == " ".join(f"--rules {word}" for word in QUICK[1::2])


def test_the_suggested_check_carries_every_option_that_decides_the_tunings_games(capsys, monkeypatch):
    # It carried the rules and the clock but not --memory-limit (nor --games-at-once, nor --on-error forfeit), which
    # decide which strategies fail and what a failure counts for: the check played other games than the tuning.
    from canasta_sim.cli.tune import _print_outcome
    from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE
    from canasta_sim.tuning.run import TuningOutcome

    monkeypatch.setenv(GAMES_AT_ONCE_VARIABLE, "3")
    tuned = settings(params=("aggression",), on_error="forfeit", time_limit=2.5)
    outcome = TuningOutcome(("aggression",), (0.5,), (0.61,), (0.61,), "expert:aggression=0.61", 2, 2, 16, "finished")
    manifest = {"parameters": [{"name": "aggression", "default": 0.5, "low": 0.0, "high": 1.0}]}
    _print_outcome(tuned, manifest, outcome, memory_limit=2048)
    check = capsys.readouterr().out.strip().splitlines()[-2].removeprefix("check it: ")
    assert check == ("canasta-sim compare expert:aggression=0.61 --baseline expert --rules target_score=1000 "
                     "--time-limit 2.5 --on-error forfeit --memory-limit 2048 --games-at-once 3"), check


def test_a_one_iteration_tuning_counts_it_as_one(tmp_path):
    result = invoke("tune", "expert", "--params", "aggression", "--games", "4", "--games-per-iteration", "4", "--seed",
                    "3", "--workers", "1", "--out", str(tmp_path / "one"), *QUICK)
    assert result.exit_code == 0, result.output
    assert "1 iteration of 4 games, seed 3, 1 worker ->" in result.output, result.output
    assert "1 of 1 iteration (4 games), finished:" in result.output, result.output


def test_a_tuning_that_moved_nothing_suggests_no_check_of_its_start_against_itself(capsys):
    from canasta_sim.cli.tune import _print_outcome
    from canasta_sim.tuning.run import TuningOutcome

    tuned = settings(spec="expert", params=("aggression",))
    outcome = TuningOutcome(("aggression",), (0.5,), (0.5,), (0.5,), "expert:aggression=0.5", 0, 2, 0, "interrupted")
    manifest = {"parameters": [{"name": "aggression", "default": 0.5, "low": 0.0, "high": 1.0}]}
    _print_outcome(tuned, manifest, outcome)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2] == "nothing to check: the values are the starting ones" and lines[-1] == outcome.spec, lines


@pytest.mark.timeout(120)
def test_a_tune_resume_while_the_tuning_still_plays_is_refused_in_one_line(tmp_path):
    # Both went on into one folder, each writing tune.json and the trajectory from its own copy.
    from canasta_sim.runs.storage import claimed_directory

    out = tmp_path / "tuned"
    checks = iter([False, True])  # stopped after its first iteration, as the first Ctrl-C would
    assert tune(out, settings(), workers=1, should_stop=lambda: next(checks)).status == "interrupted"
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    with claimed_directory(out):  # as the tuning still playing holds it
        result = CliRunner().invoke(main, ["tune", "--resume", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.splitlines() == [f"Error: '{out}' is being written by another canasta-sim process; wait for "
                                          "it to end (or stop it), then resume the run"]
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    assert invoke("tune", "--resume", str(out), "-q").exit_code == 0  # the claim goes with its holder


def test_a_tuning_out_under_a_file_is_one_line(tmp_path):
    (tmp_path / "a_file").write_text("not a folder\n")
    out = tmp_path / "a_file" / "tuned"
    result = CliRunner().invoke(main, ["tune", "expert", "--params", "aggression", "--games", "8",
                                       "--games-per-iteration", "4", "--out", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output == f"Error: '{out}' cannot be created: Not a directory\n"


def test_tunings_started_in_the_same_second_with_no_out_each_get_a_folder_of_their_own(tmp_path, monkeypatch):
    # results/tune-<date-time> was only looked for when chosen: a tuning started in the same second chose it too, and
    # was then refused as the folder's second writer.
    import datetime
    import types

    from canasta_sim.cli import tune as tune_module

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 12, 6, 22, 40, 0)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tune_module, "datetime", types.SimpleNamespace(datetime=Frozen))
    first, second = tune_module._default_out(), tune_module._default_out()
    assert (first, second) == (Path("results/tune-20261206-224000"), Path("results/tune-20261206-224000-2"))
    assert first.is_dir() and second.is_dir()
