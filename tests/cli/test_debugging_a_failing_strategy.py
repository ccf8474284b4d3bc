"""A bot author's strategy fails deep in one game of a run: the failure's line names the command that plays that very
game again in the author's own process, where ``breakpoint()`` stops with no time limit; a debugger started in a game's
own process (a run's worker, an ``isolated:`` strategy's) quits at once, said in one line, never a hang."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

FAILS_DEEP = '''
from canasta_sim import Discard, SeatView
from canasta_sim.strategies.greedy import Greedy


class FailsDeep(Greedy):
    name = "fails-deep"
    version = 1

    def choose_discard(self, view: SeatView) -> Discard:
        if self.rng.random() < 0.004:  # a rare position: game 8 of the run below meets it, and no other game
            return Discard(list(view.hand)[99])
        return super().choose_discard(view)
'''

STOPS = '''
from canasta_sim import Discard, SeatView
from canasta_sim.strategies.greedy import Greedy


class Stops(Greedy):
    name = "stops"
    version = 1

    def choose_discard(self, view: SeatView) -> Discard:
        breakpoint()
        return super().choose_discard(view)
'''

FAILING_GAME = 8


def _spec(tmp_path, source: str, cls: str) -> str:
    path = tmp_path / f"{cls.lower()}.py"
    path.write_text(source)
    return f"{path}:{cls}"


def _run(tmp_path, spec: str, *extra: str):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "12", "--seed", "3", "--workers", "2", "-q", "--out", str(out),
                                       "-s", spec, "-s", "greedy", "--rules", "target_score=1000", *extra])
    return out, result


def _error_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("Error: "))


@pytest.mark.timeout(60)
def test_a_run_stopped_by_a_failing_strategy_names_the_command_that_plays_that_game_here(tmp_path):
    out, run = _run(tmp_path, _spec(tmp_path, FAILS_DEEP, "FailsDeep"))
    assert run.exit_code == 1, run.output
    line = _error_line(run.output)
    assert line.startswith(f"Error: game {FAILING_GAME}: strategy ")
    command = f"canasta-sim replay {out} {FAILING_GAME} --debug"
    assert f"; play it again where a debugger stops: {command}; fix the strategy" in line
    failure = line[len(f"Error: game {FAILING_GAME}: "):line.index(" (reason: exception)")]
    # The game the run stopped at is not recorded, and is played all the same: the same failure, its traceback.
    replayed = CliRunner().invoke(main, shlex.split(command)[1:])
    assert replayed.exit_code == 1, replayed.output
    assert _error_line(replayed.output) == f"Error: {failure} (reason: exception)"
    assert "the run did not record it" in replayed.output
    assert "IndexError: list index out of range" in replayed.output
    assert f"{tmp_path / 'failsdeep.py'}\", line 12, in choose_discard" in replayed.output


@pytest.mark.timeout(60)
def test_replay_debug_plays_a_runs_game_move_for_move_as_the_run_did(tmp_path):
    # Played by two workers, recorded as a forfeit: the watched replay checks the game against the run's record, and
    # the one in this process narrates every move as it does.
    log = tmp_path / "run.log"
    out, run = _run(tmp_path, _spec(tmp_path, FAILS_DEEP, "FailsDeep"), "--on-error", "forfeit", "--log-file", str(log))
    assert run.exit_code == 0, run.output
    # The log names the command with the forfeit's line and again under its traceback.
    command = f"play it again where a debugger stops: canasta-sim replay {out} {FAILING_GAME} --debug"
    text = log.read_text()
    assert f"forfeits the game; {command}\n" in text
    assert f"IndexError: list index out of range\n{command}\n" in text
    for game in (FAILING_GAME, FAILING_GAME - 1):
        watched = CliRunner().invoke(main, ["replay", str(out), str(game)])
        here = CliRunner().invoke(main, ["replay", str(out), str(game), "--debug"])
        assert watched.exit_code == here.exit_code == 0, here.output
        narration = [text.stdout.split("\n\n", 1)[1] for text in (watched, here)]
        assert narration[0] == narration[1]
        ending = ("The game stops here, as it did in the run (a forfeit)" if game == FAILING_GAME
                  else "The replay ends at the scores the run recorded")
        assert ending in narration[1]


@pytest.mark.timeout(60)
def test_breakpoint_in_a_runs_worker_quits_at_once_and_the_line_says_why(tmp_path):
    # As the author types it: the test's own stdin and hooks (pytest's, CliRunner's) are not a terminal's.
    out = tmp_path / "run"
    run = subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--games", "2", "--workers", "2", "-q",
                          "--out", str(out), "-s", _spec(tmp_path, STOPS, "Stops"), "-s", "greedy"],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=50,
                         env={**os.environ, "PYTHONBREAKPOINT": ""})
    assert run.returncode == 1, run.stderr
    line = _error_line(run.stderr)
    assert "decision discard: raised BdbQuit (a debugger, breakpoint() or pdb, quit in the strategy: where a game " \
           "is played in a process of its own" in line
    assert "(reason: exception); finished games are kept; play it again where a debugger stops: canasta-sim " \
           f"replay {out} " in line


@pytest.mark.timeout(30)
def test_breakpoint_in_an_isolated_strategy_is_its_failure_at_once_not_a_wait_for_the_arbiter(tmp_path):
    # Its process's stdin is the protocol's: pdb read the arbiter's requests, and the game hung until the process was
    # killed a minute later, charged as a timeout.
    start = time.monotonic()
    _, run = _run(tmp_path, "isolated:" + _spec(tmp_path, STOPS, "Stops"), "--time-limit", "20")
    assert run.exit_code == 1, run.output
    line = _error_line(run.output)
    assert "the bot reported an error: raised BdbQuit (a debugger, breakpoint() or pdb, quit" in line
    assert "(reason: exception)" in line
    assert time.monotonic() - start < 15


@pytest.mark.timeout(60)
def test_replay_debug_stops_in_this_process_where_a_pause_is_no_decisions_time(tmp_path, monkeypatch):
    out, run = _run(tmp_path, _spec(tmp_path, STOPS, "Stops"), "--time-limit", "0.3")
    assert run.exit_code == 1, run.output
    seen = []

    def debugger(*args, **kwargs):
        view = sys._getframe(1).f_locals["view"]  # what the seat saw where it stopped
        seen.append((os.getpid(), view.seat, view.hand_size))
        if len(seen) == 1:
            time.sleep(0.5)  # the author reads the view, past the run's time limit

    monkeypatch.setattr(sys, "breakpointhook", debugger)
    replayed = CliRunner().invoke(main, ["replay", str(out), "0", "--debug"])
    assert replayed.exit_code == 0, replayed.output
    assert "in this process with no time limit" in replayed.output and "timeout" not in replayed.output
    assert seen and seen[0][0] == os.getpid() and seen[0][1] in (0, 2)


@pytest.mark.timeout(60)
def test_check_strategy_names_the_watch_that_plays_the_failing_game_here(tmp_path):
    checked = CliRunner().invoke(main, ["check-strategy", _spec(tmp_path, FAILS_DEEP, "FailsDeep"), "--games", "4",
                                        "--seed", "1", "--rules", "target_score=1000"])
    assert checked.exit_code == 1, checked.output
    lines = checked.output.splitlines()
    problem = next(index for index, line in enumerate(lines) if line.startswith("problem in game"))
    failure = lines[problem].split(": ", 1)[1]
    hint = next(line for line in lines[problem:] if line.startswith("play it again where a debugger stops: "))
    command = shlex.split(hint.split(": ", 1)[1])
    assert command[:2] == ["canasta-sim", "watch"] and command[-3:] == ["--rules", "target_score=1000", "--debug"]
    watched = CliRunner().invoke(main, command[1:])
    assert watched.exit_code == 1, watched.output
    assert f"{_error_line(watched.output)} (reason: exception)" == f"Error: {failure}"
    assert "IndexError: list index out of range" in watched.output


@pytest.mark.timeout(60)
def test_a_compare_stopped_by_a_failing_strategy_names_the_watch_that_plays_that_game_here(tmp_path):
    # Its line named no command.  replay OUT N --debug cannot play the game: the saved run holds the games counted,
    # and the failing one comes after them; its seed and sides are known, and watch --debug plays them.
    out = tmp_path / "compared"
    compared = CliRunner().invoke(main, ["compare", _spec(tmp_path, FAILS_DEEP, "FailsDeep"), "--baseline", "greedy",
                                         "--max-games", "40", "--seed", "3", "--workers", "1", "-q", "--out",
                                         str(out), "--rules", "target_score=1000"])
    assert compared.exit_code == 1, compared.output
    line = _error_line(compared.output)
    failure = line[len("Error: game 17: "):line.index(" (reason: exception)")]
    seed = failure[failure.index("(game seed ") + len("(game seed "):failure.index(")")]
    command = f"canasta-sim watch --seed {seed} -s greedy -s {tmp_path / 'failsdeep.py'}:FailsDeep --rules " \
              "target_score=1000 --debug"
    assert f"; play it again where a debugger stops: {command}; stopped after 16 games" in line, line
    watched = CliRunner().invoke(main, shlex.split(command)[1:])
    assert watched.exit_code == 1, watched.output
    assert _error_line(watched.output) == f"Error: {failure}"
    assert "IndexError: list index out of range" in watched.output


FRAGILE = '''
from canasta_sim.core.parameters import Parameter
from canasta_sim.strategies.greedy import Greedy


class Fragile(Greedy):
    name = "fragile"
    parameters = {"fail": Parameter(0.0, low=0.0, high=1.0)}

    def choose_discard(self, view):
        if self.fail > 0.5:  # the candidate perturbed upwards fails, the one downwards plays
            raise RuntimeError("oops")
        return super().choose_discard(view)
'''


@pytest.mark.timeout(60)
def test_a_tuning_stopped_by_a_failing_candidate_names_the_watch_that_plays_its_game_with_its_values(tmp_path):
    # Its line named no command, and a tuning directory holds no game to replay: the game's two candidates, with
    # their perturbed values in their specs, and its seed are what watch --debug plays.
    spec = _spec(tmp_path, FRAGILE, "Fragile")
    tuned = CliRunner().invoke(main, ["tune", f"{spec}:fail=0.5", "--params", "fail", "--games", "4",
                                      "--games-per-iteration", "4", "--seed", "5", "--workers", "1", "-q", "--out",
                                      str(tmp_path / "tuned"), "--rules", "target_score=1000"])
    assert tuned.exit_code == 1, tuned.output
    line = _error_line(tuned.output)
    failure = line[len("Error: iteration 0: "):line.index(" (reason: exception)")]
    seed = failure[failure.index("(game seed ") + len("(game seed "):failure.index(")")]
    command = f"canasta-sim watch --seed {seed} -s {spec}:fail=0.3 -s {spec}:fail=0.7 --rules target_score=1000 --debug"
    assert f"; play it again where a debugger stops: {command}; finished iterations are kept" in line, line
    watched = CliRunner().invoke(main, shlex.split(command)[1:])
    assert watched.exit_code == 1, watched.output
    assert _error_line(watched.output) == f"Error: {failure}" and "RuntimeError: oops" in watched.output
