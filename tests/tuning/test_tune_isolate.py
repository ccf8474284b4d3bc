"""``canasta-sim tune --isolate``: the strategies a tuning plays moved to processes of their own, as ``run``,
``compare`` and ``check-strategy`` take the option, and a resume refusing it where it would change them."""

import pytest

import canasta_sim.cli.tune as tune_module
from canasta_sim.core.rules import Rules
from canasta_sim.tuning.run import TuningDirectory, TuningSettings, new_manifest
from tests.helpers import invoke

TUNABLE = '''
from canasta_sim.strategies import Expert


class Mine(Expert):
    """Expert under a name of its own: a file strategy with parameters to tune."""

    name = "mine"
    version = 1
'''


@pytest.fixture
def tuned(tmp_path, monkeypatch):
    """A tunable file strategy in the current folder, and the settings each tuning started would play (none is)."""
    (tmp_path / "mine.py").write_text(TUNABLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    played = []
    monkeypatch.setattr(tune_module, "_tune", lambda settings, *_args, **_options: played.append(settings))
    return played


def test_isolate_plays_the_tuned_strategy_and_its_opponent_in_processes_of_their_own_but_built_ins(tuned):
    # tune had no --isolate: a strategy tuned in isolation had to be typed isolated:SPEC, unlike run and compare.
    result = invoke("tune", "mine.py:Mine", "--against", "mine.py:Mine", "--isolate", "--out", "a")
    assert result.exit_code == 0, result.output
    result = invoke("tune", "expert", "--against", "greedy", "--isolate", "--out", "b")
    assert result.exit_code == 0, result.output
    assert [(settings.spec, settings.against) for settings in tuned] == [
        ("isolated:mine.py:Mine", "isolated:mine.py:Mine"), ("expert", "greedy")]


def test_a_resume_refuses_isolate_where_it_would_change_the_tunings_strategies(tuned, tmp_path):
    made = TuningSettings(spec="mine.py:Mine", params=None, against=None, games=16, games_per_iteration=4, seed=5,
                          rules=Rules(target_score=1000))
    TuningDirectory(tmp_path / "kept").write_manifest(new_manifest(made, "test", seed_drawn=False))
    result = invoke("tune", "--resume", "kept", "--isolate")
    assert result.exit_code == 2, result.output
    assert result.output == ("Error: --resume kept: the tuning was made with strategies mine.py:Mine, which --isolate "
                             "would change; resume it without that option or start a new tuning\n")
    assert tuned == []


def test_a_resumed_tuning_names_the_file_it_will_import_first(tuned, tmp_path):
    # A tuning's folder from someone else names the file its resume imports; it was imported with no word of it.
    made = TuningSettings(spec="mine.py:Mine", params=None, against="greedy", games=16, games_per_iteration=4, seed=5,
                          rules=Rules(target_score=1000))
    TuningDirectory(tmp_path / "kept").write_manifest(new_manifest(made, "test", seed_drawn=False))
    result = invoke("tune", "--resume", "kept")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("note: resuming the tuning runs code the run's folder names, as your user, not "
                                    f"canasta-sim's own: the file {str(tmp_path / 'mine.py')!r} (mine.py:Mine) ")
    assert len(tuned) == 1
