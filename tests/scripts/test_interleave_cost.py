"""``scripts/interleave_cost.py`` plays the same games side by side as one at a time, and says what it costs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import script_module

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "interleave_cost.py"


def _script():
    return script_module("interleave_cost")


@pytest.mark.timeout(120)
def test_games_side_by_side_are_the_games_played_one_at_a_time():
    module = _script()
    one, digest = module.play_width(1, 6)
    side_by_side, same = module.play_width(4, 6)
    assert same == digest and one > 0 and side_by_side > 0
    # In a process of its own: the script settles the collector (gc.freeze), as a worker does.
    done = subprocess.run([sys.executable, str(SCRIPT), "--games", "4", "--rounds", "1", "--widths", "3"],
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stderr
    output = done.stdout
    assert re.search(r"^\s+3 at once: [\d.]+ ms of CPU a game", output, re.MULTILINE)
    assert re.search(r"expert's decisions, one at a time: [\d.]+ ms of a [\d.]+ ms game", output)
    assert "DIFFER" not in output


@pytest.mark.timeout(60)
def test_a_width_that_is_not_a_whole_number_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        _script().main(["--widths", "1,x"])
    assert stopped.value.code == 2
    assert "--widths '1,x' is not a list of whole numbers" in capsys.readouterr().err
