"""A round robin of many strategy files, as a class hands them in: what the teacher meets before any game."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

GOOD = '''
from canasta_sim.strategies import Greedy


class Good(Greedy):
    name = "good"
'''


def test_every_file_that_cannot_be_loaded_is_named_in_a_line_of_its_own_before_any_game(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "typo.py").write_text("class Bot(object)\n    pass\n")
    (tmp_path / "needs.py").write_text("import a_module_no_student_installed\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--games", "12", "--out", "rr", "-s", "good.py:Good",
                                       "-s", "typo.py:Bot", "-s", "needs.py:Bot", "-s", "good.py:Goood"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("Error: ") for line in lines), result.output
    assert "typo.py' failed to import: SyntaxError" in lines[0]
    assert "needs.py' failed to import: ModuleNotFoundError" in lines[1]
    assert "has no class 'Goood'" in lines[2]
    assert not Path("rr").exists()


LEARNER = '''
from canasta_sim.strategies import Greedy


class Learner(Greedy):
    name = "learner"
    hands = 0  # every hand the class ever played, so its play a few hundred hands in would differ

    def on_hand_start(self, view):
        Learner.hands += 1
'''


@pytest.mark.timeout(120)
def test_a_strategy_that_keeps_state_between_games_in_a_worker_is_named_in_a_warning(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "learner.py").write_text(LEARNER)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--games", "6", "--workers", "1", "--out", "rr", "--rules",
                                       "target_score=500", "-s", "good.py:Good", "-s", "learner.py:Learner",
                                       "-s", "random"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if "keeps from one game to the next" in line]
    assert len(warnings) == 1 and "'learner.py:Learner'" in warnings[0] and "(Learner.hands)" in warnings[0], \
        result.output
    assert "--workers" in warnings[0]
