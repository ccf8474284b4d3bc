"""The code base passes its own linter (the rules and their reasons are in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff")
    command = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    completed = subprocess.run(
        [*command, "check", "--output-format", "concise", str(ROOT)], capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
