"""An ``isolated:`` bot's process imports nothing from the folder it starts in: a module lying there is never run in
place of canasta-sim's own or its dependencies', and a spec's module is found on the Python path alone, as
in-process (docs/security.md)."""

from __future__ import annotations

import pytest

from tests.helpers import invoke

PLANTED = '''
import pathlib

pathlib.Path(__file__).with_name("planted-module-ran").write_text("imported")
raise ImportError("a planted module")
'''


@pytest.mark.timeout(60)
def test_a_module_planted_in_the_folder_an_isolated_bot_starts_in_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "orjson.py").write_text(PLANTED)  # the bot server's own dependency, shadowed
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "--games", "2", "--seed", "3", "--workers", "1", "-q", "-s", "isolated:greedy", "-s",
                    "random", "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "planted-module-ran").exists()


@pytest.mark.timeout(60)
def test_an_isolated_module_spec_is_found_on_the_python_path_alone_as_in_process(tmp_path, monkeypatch):
    (tmp_path / "mybot.py").write_text("from canasta_sim.strategies.greedy import Greedy as Bot\n")
    monkeypatch.chdir(tmp_path)
    isolated = invoke("run", "--games", "1", "--workers", "1", "-q", "-s", "isolated:mybot:Bot", "-s", "random",
                      "--out", tmp_path / "isolated")
    assert isolated.exit_code == 2 and "mybot" in isolated.output, isolated.output
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the way to name a folder's module, in either
    isolated = invoke("run", "--games", "1", "--workers", "1", "-q", "-s", "isolated:mybot:Bot", "-s", "random",
                      "--out", tmp_path / "on-the-path")
    assert isolated.exit_code == 0, isolated.output
