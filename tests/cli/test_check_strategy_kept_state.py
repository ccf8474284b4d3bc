"""``check-strategy`` names what a strategy keeps from one game to the next outside its instances: a worker plays many
games, so a class attribute or module global that changes makes a run's games depend on which worker played them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

LEARNER = '''
from canasta_sim.strategies.greedy import Greedy

SEEN = []


class Learner(Greedy):
    name = "learner"
    hands = 0  # every hand this class ever played: its play a few hundred hands in would differ

    def on_hand_start(self, view):
        Learner.hands += 1
        SEEN.append(view.hand_number)
'''

STEADY = '''
import functools

from canasta_sim.strategies.greedy import Greedy

ORDER = tuple(range(14, 3, -1))


@functools.lru_cache(maxsize=None)
def weight(kind):
    return 15 - kind


class Steady(Greedy):
    name = "steady"
    table = {"keep": 2}

    def on_hand_start(self, view):
        self.hands = getattr(self, "hands", 0) + 1  # on the seat's own instance: new each game
        weight(view.hand_number % 14)
'''

CHECK = ["--games", "1", "--rules", "target_score=500"]


@pytest.mark.timeout(120)
def test_a_class_attribute_or_module_global_changed_by_a_game_is_a_problem_naming_it(tmp_path):
    (tmp_path / "learner.py").write_text(LEARNER)
    result = CliRunner().invoke(main, ["check-strategy", f"{tmp_path}/learner.py:Learner", *CHECK])
    assert result.exit_code == 1, result.output
    problems = [line for line in result.output.splitlines() if line.startswith("problem")]
    assert len(problems) == 1 and "Learner.hands, SEEN" in problems[0], result.output
    assert "1 problem found" in result.output


@pytest.mark.timeout(120)
def test_constants_caches_and_state_on_the_instance_are_no_problem(tmp_path):
    (tmp_path / "steady.py").write_text(STEADY)
    result = CliRunner().invoke(main, ["check-strategy", f"{tmp_path}/steady.py:Steady", *CHECK])
    assert result.exit_code == 0 and "no problems found" in result.output, result.output


LAZY = '''
from canasta_sim.strategies.greedy import Greedy

_MODEL = None  # a model file's weights, loaded at the first decision and then used by every game of the process


def model():
    global _MODEL
    if _MODEL is None:
        _MODEL = {"weights": [0.5] * 1000}
    return _MODEL


class Lazy(Greedy):
    name = "lazy"
    table = None

    def choose_discard(self, view):
        model()
        if Lazy.table is None:
            Lazy.table = tuple(range(100))
        return super().choose_discard(view)
'''


@pytest.mark.timeout(120)
def test_a_model_loaded_into_a_global_or_class_attribute_at_the_first_decision_is_no_problem(tmp_path):
    (tmp_path / "lazy.py").write_text(LAZY)
    result = CliRunner().invoke(main, ["check-strategy", f"{tmp_path}/lazy.py:Lazy", *CHECK])
    assert result.exit_code == 0 and "no problems found" in result.output, result.output


@pytest.mark.timeout(120)
def test_a_lazily_loaded_model_that_a_later_game_changes_is_still_a_problem(tmp_path):
    (tmp_path / "lazy.py").write_text(LAZY.replace("model()\n", "model()['weights'].append(view.hand_number)\n"))
    result = CliRunner().invoke(main, ["check-strategy", f"{tmp_path}/lazy.py:Lazy", *CHECK])
    assert result.exit_code == 1 and "(_MODEL)" in result.output, result.output
