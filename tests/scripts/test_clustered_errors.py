"""``scripts/clustered_errors.py`` compares the plot's standard errors with those clustered by game and by deal."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import script_module

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "clustered_errors.py"


def _script():
    return script_module("clustered_errors")


def test_one_value_a_cluster_gives_the_plain_standard_error():
    values = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
    plain = values.std(ddof=1) / math.sqrt(len(values))
    assert _script().clustered_error(values, np.arange(len(values))) == pytest.approx(plain)


def test_values_moving_together_in_a_cluster_widen_the_error():
    values = np.array([1.0, 1.0, 5.0, 5.0, 2.0, 2.0, 7.0, 7.0])
    plain = values.std(ddof=1) / math.sqrt(len(values))
    assert _script().clustered_error(values, np.array([0, 0, 1, 1, 2, 2, 3, 3])) > 1.3 * plain


@pytest.mark.timeout(60)
def test_the_script_prints_the_range_of_a_duplicate_runs_ratios(tmp_path):
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "8", "--duplicate", "--seed", "1", "--workers", "1", "-q",
                                     "--out", str(run), "--rules", "target_score=1000"])
    assert made.exit_code == 0, made.output
    printed = subprocess.run([sys.executable, str(SCRIPT), str(run)], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    last = printed.stdout.strip().splitlines()[-1]
    assert last.startswith("clustered / plain: from ") and "smaller to" in last and "larger" in last, last
    assert "red 3s per hand" in printed.stdout and "score part: hand score" in printed.stdout
