"""File specs are recorded with their absolute path, so a run resumes and replays from any directory."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import assert_same_run_tables

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--rules", "target_score=1000", "--seed", "3", "-s", "my_bot.py:MyBot", "-s", "random", "-q"]


def canasta(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "canasta_sim", *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ""})


@pytest.mark.timeout(300)
def test_a_run_started_with_a_relative_file_resumes_and_replays_from_another_directory(tmp_path, monkeypatch):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    shutil.copy(ROOT / "examples" / "my_bot.py", project / "my_bot.py")
    monkeypatch.chdir(project)  # the run starts where the bot is, as a user's would
    for games, out in (("6", "grown"), ("12", "reference")):
        result = CliRunner().invoke(main, ["run", "--games", games, *QUICK, "--workers", "1", "--out",
                                           str(tmp_path / out)])
        assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "grown" / "run.json").read_text())
    assert manifest["strategies"][0]["spec"] == "my_bot.py:MyBot"  # what the user typed stays the label
    assert manifest["strategies"][0]["file"] == str(project / "my_bot.py")
    assert manifest["strategies"][1]["file"] is None

    # From a directory without my_bot.py, in fresh processes (so no module is cached from the project's
    # directory): the parent and its 2 worker processes must load the recorded file.
    resumed = canasta("run", "--resume", "../grown", "--games", "12", "--workers", "2", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    replayed = canasta("replay", "../grown", "9", cwd=elsewhere)
    assert replayed.returncode == 0, replayed.stderr
    assert "The replay ends at the scores the run recorded" in replayed.stdout
    assert_same_run_tables(tmp_path / "grown", tmp_path / "reference")


@pytest.mark.timeout(120)
def test_a_moved_file_is_found_where_the_spec_says_and_a_missing_one_names_both_places(tmp_path):
    from canasta_sim.errors import StrategyLoadError
    from canasta_sim.plugins.loader import load_strategy

    shutil.copy(ROOT / "examples" / "my_bot.py", tmp_path / "my_bot.py")
    spec = f"{tmp_path}/my_bot.py:MyBot"
    loaded = load_strategy(spec, file=str(tmp_path / "gone" / "my_bot.py"))  # the recorded file moved away
    assert loaded.file == str(tmp_path / "my_bot.py") and loaded.label == "my-bot@1"
    with pytest.raises(StrategyLoadError, match="does not exist here, nor where the run found it"):
        load_strategy("nowhere/my_bot.py:MyBot", file=str(tmp_path / "gone" / "my_bot.py"))
    # A new run records the spec's own file: a missing one is named once.
    missing = tmp_path / "missing.py"
    with pytest.raises(StrategyLoadError, match=r"^strategy file '.*missing\.py' does not exist$"):
        load_strategy(f"{missing}:MyBot", file=str(missing))


def test_an_isolated_file_spec_records_its_inner_file():
    from canasta_sim.plugins.specs import spec_file

    assert spec_file("isolated:bots/mine.py:Mine:depth=2") == Path("bots/mine.py").resolve()
    assert spec_file("isolated:expert") is None


@pytest.mark.timeout(120)
def test_an_isolated_file_bot_loads_the_recorded_file_from_any_directory(tmp_path, monkeypatch):
    from canasta_sim.plugins.loader import load_strategy
    from canasta_sim.plugins.specs import bot_command

    (tmp_path / "project").mkdir()
    recorded = tmp_path / "project" / "my_bot.py"
    shutil.copy(ROOT / "examples" / "my_bot.py", recorded)
    monkeypatch.chdir(tmp_path)  # no my_bot.py here: only the recorded path can load it
    argv, _ = bot_command("isolated:my_bot.py:MyBot", file=str(recorded))
    assert argv[-1] == f"{recorded}:MyBot"
    assert bot_command("isolated:my_bot.py:MyBot", file=str(tmp_path / "gone.py"))[0][-1] == "my_bot.py:MyBot"
    loaded = load_strategy("isolated:my_bot.py:MyBot", file=str(recorded))
    assert loaded.label == "my-bot@1"


@pytest.mark.timeout(120)
def test_an_isolated_file_spec_records_the_file_its_process_loads(tmp_path, monkeypatch):
    # run.json recorded no file for it, so replay and resume looked for the spec's path from wherever they were given.
    from canasta_sim.plugins.loader import load_strategy
    from canasta_sim.plugins.pools import close_all

    (tmp_path / "project").mkdir()
    shutil.copy(ROOT / "examples" / "my_bot.py", tmp_path / "project" / "my_bot.py")
    monkeypatch.chdir(tmp_path / "project")
    loaded = load_strategy("isolated:my_bot.py:MyBot")
    close_all()
    assert loaded.file == str(tmp_path / "project" / "my_bot.py")


def test_a_run_that_recorded_no_file_for_an_isolated_spec_finds_it_where_the_run_started(tmp_path, monkeypatch):
    # Resolved from here, it loaded another file of the same name in the folder replay or --resume was given in.
    from canasta_sim.runs.runner import settings_from_manifest

    manifest = {"games": 2, "seed": 1, "chunk_size": 2, "rules": {}, "directory": str(tmp_path / "project"),
                "strategies": [{"spec": "isolated:bots/my_bot.py:MyBot", "file": None}, {"spec": "greedy"}]}
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    settings = settings_from_manifest(manifest)
    assert settings.file_of("isolated:bots/my_bot.py:MyBot") == str(tmp_path / "project" / "bots" / "my_bot.py")
    assert settings.file_of("greedy") is None
