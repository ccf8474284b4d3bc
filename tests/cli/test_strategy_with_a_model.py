"""A strategy that carries a model trained offline: weights read from a file beside it, held for every game of the
process, scored with numpy at each decision."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

LAZY_MODEL = '''
from pathlib import Path

import numpy as np

from canasta_sim.strategies.greedy import Greedy

_WEIGHTS = None  # read at the first decision, then used by every game the process plays


def weights():
    global _WEIGHTS
    if _WEIGHTS is None:
        _WEIGHTS = np.load(Path(__file__).resolve().parent / "weights.npy")
    return _WEIGHTS


class Modelled(Greedy):
    name = "modelled"

    def choose_discard(self, view):
        weights()
        return super().choose_discard(view)
'''

RUN = ["run", "--games", "4", "--chunk-size", "2", "--workers", "1", "--rules", "target_score=500", "--out", "out"]


@pytest.mark.timeout(120)
def test_a_model_loaded_at_the_first_decision_is_not_warned_of_as_state_kept_between_games(tmp_path, monkeypatch):
    import numpy as np

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "modelled.py").write_text(LAZY_MODEL)
    np.save(tmp_path / "bots" / "weights.npy", np.arange(1000.0))
    learning = LAZY_MODEL.replace("weights()\n", "weights()[view.hand_number] += 1\n")
    learning = learning.replace('"modelled"', '"learning"')
    (tmp_path / "bots" / "learning.py").write_text(learning)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*RUN, "-s", "bots/modelled.py:Modelled", "-s", "bots/learning.py:Modelled"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if "keeps from one game to the next" in line]
    # the model only loaded is no state kept; the one each game changes after loading it is
    assert len(warnings) == 1 and "'bots/learning.py:Modelled'" in warnings[0] and "(_WEIGHTS)" in warnings[0], \
        result.output


def test_a_model_array_changed_in_place_changes_its_kept_state(monkeypatch):
    import sys
    import types

    import numpy as np

    from canasta_sim.plugins.kept_state import changed_names, kept_state

    module = types.ModuleType("a_model_bot")
    exec("class Bot:\n    pass\n", module.__dict__)
    module.WEIGHTS = np.zeros((300, 300))
    monkeypatch.setitem(sys.modules, "a_model_bot", module)
    before = kept_state(module.Bot)
    module.WEIGHTS[7, 7] = 1.0  # its data is read where it lies, not pickled: the change is seen all the same
    assert changed_names(before, kept_state(module.Bot)) == ["WEIGHTS"]
    assert changed_names(kept_state(module.Bot), kept_state(module.Bot)) == []


THREADS = '''
import os

from canasta_sim.strategies.greedy import Greedy


class Threads(Greedy):
    name = "threads"

    def choose_discard(self, view):
        seen = {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        if seen != {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"}:
            raise RuntimeError(f"numpy's threads: {seen}")
        return super().choose_discard(view)
'''


@pytest.mark.timeout(60)
def test_numpy_in_a_strategy_gets_one_thread_a_process_unless_the_user_sets_it(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "threads.py").write_text(THREADS)
    env = {key: value for key, value in os.environ.items() if key not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env["OPENBLAS_NUM_THREADS"] = "3"  # the user's own choice is kept
    checked = subprocess.run([sys.executable, "-m", "canasta_sim", "check-strategy", "threads.py:Threads", "--games",
                              "1", "--rules", "target_score=500"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=50)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_worker_looks_at_a_large_kept_state_at_most_a_twentieth_of_its_time(monkeypatch):
    import sys
    import types

    from canasta_sim.plugins import kept_state as watched

    now = [0.0]
    digest = watched.kept_state

    def one_second_digest(cls):  # a model so large that digesting it takes a second
        now[0] += 1.0
        return digest(cls)

    monkeypatch.setattr(watched, "kept_state", one_second_digest)
    module = types.ModuleType("a_large_model_bot")
    exec("class Bot:\n    pass\n", module.__dict__)
    monkeypatch.setitem(sys.modules, "a_large_model_bot", module)
    watch = watched.KeptStateWatch({"bot.py:Bot": module.Bot}, clock=lambda: now[0])
    module.FIRST = 1
    assert watch.changes() == [("bot.py:Bot", ["FIRST"])]  # the first task's end is looked at
    module.SECOND = 2
    now[0] += 5.0  # a task of 5 s: looking again now would spend a second of every six
    assert watch.changes() == []
    now[0] += 15.0
    assert watch.changes() == [("bot.py:Bot", ["FIRST", "SECOND"])]  # deferred, not lost
    module.THIRD = 3
    assert watch.changes() == [] and watch.changes(look_now=True) == [("bot.py:Bot", ["FIRST", "SECOND", "THIRD"])]


COUNTS_ITS_GAMES = '''
from canasta_sim.strategies.greedy import Greedy


class Counting(Greedy):
    name = "counting"
    games = 0

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        type(self).games += 1
'''


@pytest.mark.timeout(60)
def test_check_strategy_isolate_names_state_kept_between_games_as_in_process(tmp_path):
    """In-process the check names a class attribute a game changed; isolated, nothing read the bot process's class:
    it said "not checked isolated", and now its bot server claims the change, named as in-process."""
    (tmp_path / "counting.py").write_text(COUNTS_ITS_GAMES)
    spec = f"{tmp_path / 'counting.py'}:Counting"
    checked = CliRunner().invoke(main, ["check-strategy", spec, "--games", "1", "--rules", "target_score=500"])
    assert checked.exit_code == 1 and "(Counting.games)" in checked.output, checked.output
    isolated = CliRunner().invoke(main, ["check-strategy", "--isolate", spec, "--games", "1", "--rules",
                                         "target_score=500", "--time-limit", "10"])
    assert isolated.exit_code == 1, isolated.output
    problems = [line for line in isolated.output.splitlines() if line.startswith("problem")]
    assert len(problems) == 1 and "(Counting.games)" in problems[0], isolated.output
