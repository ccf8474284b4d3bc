"""The import namespace ``canasta_sim``: a user's own ``sim/`` or ``strategies/``
folder in the working directory, or another distribution's top-level ``sim``, cannot shadow canasta-sim."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from canasta_sim.core._compiled import accelerator


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    """A working directory holding a user's own ``strategies/`` and ``sim/`` packages, as a bot author's might."""
    for name in ("strategies", "sim"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('the user\\'s own {name} was imported')\n")
    (tmp_path / "strategies" / "mine.py").write_text(textwrap.dedent("""
        from canasta_sim.strategies import Greedy


        class Mine(Greedy):
            name = "mine"
            version = 1
    """))
    return tmp_path


@pytest.mark.timeout(120)
def test_the_cli_runs_from_a_directory_with_the_users_own_strategies_and_sim(crowded):
    out = crowded / "run"
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "4", "--seed", "3", "--workers", "1",
               "-s", "strategies/mine.py:Mine", "-s", "greedy", "--out", str(out), "-q"]
    completed = subprocess.run(command, cwd=crowded, capture_output=True, text=True, timeout=110)
    assert completed.returncode == 0, completed.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert [entry["label"] for entry in manifest["strategies"]] == ["mine@1", "greedy@2"]


@pytest.mark.timeout(60)
def test_the_version_line_sees_the_whole_build_from_such_a_directory(crowded):
    completed = subprocess.run([sys.executable, "-m", "canasta_sim", "--version"], cwd=crowded,
                               capture_output=True, text=True, timeout=50)
    assert completed.returncode == 0, completed.stderr
    assert accelerator.describe() in completed.stdout


@pytest.mark.timeout(60)
def test_the_python_api_imports_from_such_a_directory(crowded):
    code = "from canasta_sim.strategies import Greedy; from canasta_sim import play_game; print(Greedy.label())"
    completed = subprocess.run([sys.executable, "-c", code], cwd=crowded, capture_output=True, text=True, timeout=50)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "greedy@2"
