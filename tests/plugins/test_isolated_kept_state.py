"""A strategy played ``isolated:`` that changes what its class or module keeps between games is warned of as it is
in-process: canasta-sim's bot server claims the change in an answer's ``kept`` field, and the claim, untrusted,
is bounded, escaped and never charged (docs/protocol.md)."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.cli.test_run_of_many_student_files import LEARNER  # counts its hands in its class

KEPT = "keeps from one game to the next"
QUICK = ["--rules", "target_score=500", "--workers", "1"]


def run_isolated(tmp_path, monkeypatch, file_name: str, source: str):
    """``run`` of four games of ``source``'s ``Learner``, written to ``file_name``, ``isolated:`` against random."""
    (tmp_path / file_name).write_text(source)
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["run", "--games", "4", "--out", "rr", *QUICK,
                                     "-s", f"isolated:{file_name}:Learner", "-s", "random"])


@pytest.mark.timeout(120)
def test_run_warns_of_an_isolated_strategy_that_keeps_state_between_games(tmp_path, monkeypatch):
    result = run_isolated(tmp_path, monkeypatch, "learner.py", LEARNER)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if KEPT in line]
    assert len(warnings) == 1 and "'isolated:learner.py:Learner'" in warnings[0], result.output
    assert "(Learner.hands)" in warnings[0] and "--workers" in warnings[0]


@pytest.mark.timeout(120)
def test_compare_warns_of_an_isolated_strategy_that_keeps_state_between_games(tmp_path):
    (tmp_path / "learner.py").write_text(LEARNER)
    result = CliRunner().invoke(main, ["compare", f"isolated:{tmp_path}/learner.py:Learner", "--baseline", "random",
                                       "--max-games", "4", "--seed", "3", *QUICK])
    warnings = [line for line in result.output.splitlines() if KEPT in line]
    assert len(warnings) == 1 and "(Learner.hands)" in warnings[0], result.output


STEADY = LEARNER.replace("Learner.hands += 1", "self.hands = getattr(self, 'hands', 0) + 1")


@pytest.mark.timeout(120)
def test_an_isolated_strategy_that_keeps_state_on_its_instances_is_not_warned_of(tmp_path, monkeypatch):
    result = run_isolated(tmp_path, monkeypatch, "steady.py", STEADY)
    assert result.exit_code == 0 and KEPT not in result.output, result.output


HOSTILE = '''
import sys

from canasta_sim.plugins import server

answer = server.BotServer.handle


def handle(self, message):
    reply = answer(self, message)
    if reply is not None and "game" in reply:
        # Huge, control characters, wrong types: a claim is the bot's word, taken bounded and escaped
        reply["kept"] = (["\\x1b[2J\\x1b[31mwiped" * 5000, 7, None, {"a": 1}, ["b"], ""]
                         + [f"name{i}" for i in range(5000)]) if message.get("game", 0) % 2 else {"not": "a list"}
    return reply


server.BotServer.handle = handle
sys.exit(server.main())
'''


@pytest.mark.timeout(120)
def test_a_hostile_kept_claim_is_bounded_escaped_and_charges_no_seat(tmp_path, monkeypatch):
    (tmp_path / "hostile.py").write_text(HOSTILE)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--games", "4", "--out", "rr", *QUICK,
                                       "-s", f"cmd:{sys.executable} hostile.py greedy", "-s", "random"])
    assert result.exit_code == 0, result.output
    assert "forfeit" not in result.output.lower() and "\x1b" not in result.output, result.output
    warnings = [line for line in result.output.splitlines() if KEPT in line]
    assert len(warnings) == 1, result.output
    names = warnings[0].split(" next (", 1)[1].split(") in a worker", 1)[0].split(", ")
    # The first 16 entries of a claim are read: the 6 of other kinds or empty are ignored, 10 names after them taken
    assert len(names) == 11 and names[0].startswith("\\x1b[2J\\x1b[31mwiped") and len(names[0]) <= 80, names
    assert sorted(names[1:]) == sorted(f"name{i}" for i in range(10)), names


HISTORY = '''
import os

from canasta_sim.strategies import Greedy


class Learner(Greedy):
    """Greedy that counts in its class the hands it saw, and writes the count it starts each game with."""

    name = "learner"
    hands = 0

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        with open(os.environ["LEARNER_HISTORY"], "a") as history:
            history.write(f"{Learner.hands}\\n")

    def on_hand_start(self, view):
        Learner.hands += 1
'''


@pytest.mark.timeout(120)
@pytest.mark.parametrize("isolation", ["", "isolated:"], ids=["in-process", "isolated"])
def test_a_resumed_learner_starts_without_what_it_kept_in_the_sessions_before(tmp_path, monkeypatch, isolation):
    """docs/strategies.md: what a strategy keeps outside ``self`` lives as long as its process, and a resume's
    processes are new ones: it starts the resumed games as it started the run."""
    (tmp_path / "history.py").write_text(HISTORY)
    log = tmp_path / "history.txt"
    monkeypatch.setenv("LEARNER_HISTORY", str(log))
    monkeypatch.chdir(tmp_path)
    # One game at a time: a bot process playing its games side by side begins them all before any hand is dealt
    at_once = ["--games-at-once", "1"] if isolation else []
    started = CliRunner().invoke(main, ["run", "--games", "3", "--chunk-size", "3", "--out", "rr", *QUICK, *at_once,
                                        "-s", f"{isolation}history.py:Learner", "-s", "random"])
    assert started.exit_code == 0, started.output
    first = log.read_text().split()
    log.unlink()
    grown = CliRunner().invoke(main, ["run", "--resume", "rr", "--games", "6", "--workers", "1"])
    assert grown.exit_code == 0, grown.output
    resumed = log.read_text().split()
    assert first[0] == "0" and first[-1] != "0", first  # a process played games 0 and 2, game 2 from game 0's
    assert resumed[0] == "0" and resumed[-1] != "0", resumed


UNPICKLABLE = '''
from canasta_sim.strategies import Greedy


class Learner(Greedy):
    name = "learner"
    seen = [lambda: 0]  # what it learned, as functions: a list that never pickles

    def on_hand_start(self, view):
        Learner.seen.append(lambda: view.hand_number)
'''


@pytest.mark.timeout(120)
@pytest.mark.parametrize("isolation", ["", "isolated:"], ids=["in-process", "isolated"])
def test_a_learner_keeping_what_does_not_pickle_in_a_list_is_warned_of(tmp_path, monkeypatch, isolation):
    # The list was compared by its identity alone, the same however much was appended to it
    (tmp_path / "unpicklable.py").write_text(UNPICKLABLE)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--games", "3", "--chunk-size", "3", "--out", "rr", *QUICK,
                                       "-s", f"{isolation}unpicklable.py:Learner", "-s", "random"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if KEPT in line]
    assert len(warnings) == 1 and "(Learner.seen)" in warnings[0], result.output
