"""The check after every game against rebound code (:mod:`canasta_sim.runs.code_guard`), the same for ``run``,
``compare``
and ``tune``: each command's worker-side player is played here in-process on a strategy of tests/bots/late_failures.py
that springs at its first decision, so what is put back can be looked at.  The real two-worker runs are in
tests/runs/test_supervised_commands.py.
"""

from __future__ import annotations

import sys

import pytest

from canasta_sim.cli.compare import CompareSchedule, MatchPlan
from canasta_sim.core import engine
from canasta_sim.core.rules import Rules
from canasta_sim.errors import MachineRefusal, StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.code_guard import CodeGuard, tampering_failure
from canasta_sim.runs.runner import ChunkPlayer, RunSettings
from canasta_sim.tuning.iteration import TuningSchedule, iteration_tasks
from tests.helpers import BOTS

FAILING = BOTS / "late_failures.py"
QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short
PATCHED = ("changed canasta-sim's or a strategy's code during the game (canasta_sim.core.engine.score_hand), "
           "put back as it was")


def spec(name: str) -> str:
    return f"{FAILING}:{name}"


@pytest.fixture
def late_failures(monkeypatch):
    """The module of tests/bots/late_failures.py, its count of players built put back after the test: the workers
    that tests/runs/test_supervised_commands.py forks from this process must count from where they always do."""
    module = sys.modules[load_strategy(spec("Raises")).cls.__module__]
    monkeypatch.setattr(module, "_built", module._built)
    return module


@pytest.fixture
def springs_at_once(monkeypatch, late_failures):
    """The late failures spring at the first decision; the engine's scoring is put back after the test whatever
    happens in it."""
    monkeypatch.setattr(late_failures, "CLEAN_PLAYERS", 0)
    monkeypatch.setattr(engine, "score_hand", engine.score_hand)
    return engine.score_hand


def compare_game(name: str):
    """Game 0 of a comparison of ``name`` against greedy, played by compare's worker-side player."""
    plan = MatchPlan(spec(name), "greedy", 3, QUICK, True, 2)
    outcome, _ = CompareSchedule(plan, None, record=False).new_player("forfeit", None).play_game(0, 0, None)
    return outcome


def tune_game(name: str):
    """Game 0 of a tuning of ``name``, played by tune's worker-side player."""
    task = iteration_tasks(f"{spec(name)}:knob=0.4", f"{spec(name)}:knob=0.6", None, QUICK, 3, 0, 1, 1, "forfeit")[0]
    outcome, _ = TuningSchedule(None).new_player("forfeit", None).play_game(task, task.first_game, None)
    return outcome


def run_game(name: str):
    """Game 0 of a run of ``name`` against greedy, played by run's worker-side player."""
    settings = RunSettings(games=1, seed=3, specs=(spec(name), "greedy"), rules=QUICK, chunk_size=1)
    return ChunkPlayer(settings, "", "forfeit", None).play_game(0)


PLAYERS = [run_game, compare_game, tune_game]
PLAYER_IDS = ["run", "compare", "tune"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("play", PLAYERS, ids=PLAYER_IDS)
def test_code_rebound_during_a_game_is_put_back_and_charged_as_tampering_in_every_command(springs_at_once, play):
    outcome = play("PatchesTheEngine")
    assert isinstance(outcome, StrategyError), outcome
    assert outcome.reason == "tampering" and outcome.message == PATCHED and outcome.decision == "game"
    assert outcome.spec.startswith(spec("PatchesTheEngine")) and outcome.seat == 0  # side A plays it in game 0
    assert outcome.first_dealer in range(4)
    assert engine.score_hand is springs_at_once  # the original is back for the worker's next game


@pytest.mark.timeout(60)
@pytest.mark.parametrize("play", PLAYERS, ids=PLAYER_IDS)
def test_the_engines_fingerprint_guards_every_commands_games(springs_at_once, play):
    outcome = play("AddsAJoker")
    assert isinstance(outcome, StrategyError) and outcome.reason == "tampering", outcome
    assert "changed the game: a hand differs" in outcome.message and outcome.decision == "acquire"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("play", PLAYERS, ids=PLAYER_IDS)
def test_a_clean_game_passes_the_check(monkeypatch, late_failures, play):
    monkeypatch.setattr(late_failures, "CLEAN_PLAYERS", 10**9)
    outcome = play("Raises")
    assert not isinstance(outcome, StrategyError) and getattr(outcome, "forfeits", 0) == 0, outcome


def test_a_strategy_added_later_is_watched_from_then_on():
    greedy = load_strategy("greedy")
    patcher = load_strategy(spec("PatchesTheEngine"))
    guard = CodeGuard()
    guard.add([patcher, greedy])
    guard.add([patcher])  # already watched: nothing is added twice
    original = patcher.cls.choose_discard
    patcher.cls.choose_discard = lambda self, view: None
    try:
        failure = guard.checked("result", (greedy, patcher), game_seed=7)
    finally:
        if "choose_discard" in vars(patcher.cls):  # the guard failed to put it back: do not leak the patch
            del patcher.cls.choose_discard
    assert isinstance(failure, StrategyError) and failure.reason == "tampering"
    assert "PatchesTheEngine.choose_discard" in failure.message and patcher.cls.choose_discard is original
    # Replaced by a lambda of this file: no strategy's file defined it, the only one not built in is charged.
    assert failure.spec == patcher.spec and failure.seat == 1 and "cannot be told" not in failure.message
    assert guard.checked("result", (greedy, patcher), game_seed=7) == "result"


def test_a_replacement_is_charged_to_the_strategy_whose_file_defined_it():
    first, second = load_strategy(spec("Raises")), load_strategy(spec("PatchesTheEngine"))
    import tests.helpers as elsewhere

    changed = [("canasta_sim.core.engine.score_hand", second.cls.spring)]
    assert tampering_failure((first, second), 5, changed).seat == 0  # same file for both: the first is charged
    failure = tampering_failure((load_strategy("greedy"), second), 5, [("x.y", elsewhere.read_run_tables)])
    assert failure.spec == second.spec and failure.seat == 1
    failure = tampering_failure((load_strategy("greedy"), load_strategy("expert")), 5, [("x.y", print)])
    assert failure.spec == "greedy" and failure.seat == 0 and failure.game_seed == 5
    assert "cannot be told in-process" in failure.message


def _out_of_memory(spec: str) -> StrategyError:
    return StrategyError("raised MemoryError", spec=spec, seat=1, game_seed=7, decision="discard", reason="exception")


@pytest.mark.parametrize("guard", [CodeGuard(), CodeGuard([load_strategy(spec("Raises"))])],
                         ids=["built-ins only", "watching a strategy file"])
def test_a_built_in_out_of_memory_stops_the_command_instead_of_forfeiting_its_side(guard):
    # Under --memory-limit, a strategy holding memory just below the worker's limit made greedy's next call fail,
    # and greedy's side forfeited the game: the holder won by it. A built-in keeps little, so no seat is charged.
    with pytest.raises(MachineRefusal, match=r"ran out of memory during a call of built-in strategy 'greedy'.*"
                                             r"--memory-limit"):
        guard.checked(_out_of_memory("greedy"), (), 7)
    own = _out_of_memory(spec("Raises"))
    assert guard.checked(own, (), 7) is own  # a strategy of the user's own out of memory is charged, as before
