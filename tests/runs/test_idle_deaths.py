"""A run whose workers keep dying outside any game ends with one line instead of replacing them forever."""

import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.timeout(120)
def test_workers_dying_again_and_again_outside_any_game_stop_the_run_in_one_line(tmp_path):
    bot = ROOT / "tests" / "bots" / "idle_deaths.py"
    script = ("import os; os.environ['IDLE_DEATHS_PARENT'] = str(os.getpid()); "
              "from canasta_sim.cli import main; main()")
    # two one-game chunks on two workers: one plays a long game, the other waits, dies, and so do its successors;
    # the slow one stops half a second once chosen, as a busy machine may stop it, and must still be the one whose
    # game lasts
    command = [sys.executable, "-c", script, "run", "--games", "2", "--chunk-size", "1", "--workers", "2",
               "-s", f"{bot}:IdleDeaths", "-s", "greedy", "--out", str(tmp_path / "run"), "-q"]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=100,
                               env={**os.environ, "IDLE_DEATHS_DIR": str(tmp_path),
                                    # Wide enough that a loaded machine's pauses never pass for idleness in the
                                    # worker playing the long game, which must outlive three of the others.
                                    "IDLE_DEATHS_AFTER": "1.0", "IDLE_DEATHS_DELAY": "0.4",
                                    "IDLE_DEATHS_PAUSE": "0.5"})
    assert completed.returncode != 0, completed.stdout + completed.stderr
    lines = [line for line in completed.stderr.splitlines() if "keep dying" in line]
    assert len(lines) == 1, completed.stderr
    assert "3 in a row" in lines[0] and "exit code 3" in lines[0]
    assert "Traceback" not in completed.stderr
