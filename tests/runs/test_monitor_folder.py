"""Every run, local or on a Dask cluster, removes what it left in the machine's ``canasta-sim-monitors`` folder (the
Dask backend's chunk journals, sim/runs/dask_journal.py) and ``canasta-sim-strategies`` folder (the strategy files
sent to the workers, sim/runs/dask_strategies.py), whether it finished, failed or was interrupted with Ctrl-C.
Each run is a process of its own with the temporary folder (``TMPDIR``) in the test's folder, which its local Dask
cluster's workers inherit."""

import os
import signal
import subprocess
import sys
import time

import pytest

HANGS = '''
import threading

from canasta_sim.strategies.greedy import Greedy


class Hangs(Greedy):
    """Greedy that never comes back from its first hand when it plays."""

    name = "hangs"

    def on_hand_start(self, view):
        threading.Event().wait()
'''

SLOW = '''
import time

from canasta_sim.strategies.greedy import Greedy


class Slow(Greedy):
    """Greedy taking 0.05 s at each hand's start: a run long enough to interrupt (200 games, about ten seconds on
    two workers), whose first chunk comes back soon."""

    name = "slow"

    def on_hand_start(self, view):
        time.sleep(0.05)
'''

RUNS = {
    "local, finished": (["--games", "8", "--chunk-size", "4", "-s", "greedy", "-s", "random", "--workers", "2"], 0),
    # One worker, which plays the run's chunks one after another (each worker process costs a second or more).
    "dask, finished": (["--games", "8", "--chunk-size", "4", "-s", "greedy", "-s", "random", "--backend", "dask",
                        "--workers", "1"], 0),
    "dask, failed": (["--games", "4", "--chunk-size", "2", "-s", "{bots}/hangs.py:Hangs", "-s", "random",
                      "--backend", "dask", "--task-timeout", "1", "--workers", "1"], 1),
    # Chunks of two games: the first is written soon, others still playing on both workers.
    "dask, interrupted": (["--games", "200", "--chunk-size", "2", "-s", "{bots}/slow.py:Slow", "-s", "random",
                           "--backend", "dask", "--workers", "2"], 130),
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("arguments, exit_code", RUNS.values(), ids=RUNS.keys())
def test_a_run_leaves_nothing_in_the_monitors_folder(arguments, exit_code, tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "hangs.py").write_text(HANGS)
    (bots / "slow.py").write_text(SLOW)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "run"
    command = [sys.executable, "-m", "canasta_sim", "run", "--seed", "3", "--rules", "target_score=1000",
               "-q", "--out", str(out), *(argument.format(bots=bots) for argument in arguments)]
    run = subprocess.Popen(command, env={**os.environ, "TMPDIR": str(temporary)}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if exit_code == 130:  # Ctrl-C once a chunk is written, with others under way
        deadline = time.monotonic() + 120
        while not list((out / "games").glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert run.poll() is None, run.communicate()
        run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=150)
    assert run.returncode == exit_code, stderr
    monitors = temporary / f"canasta-sim-monitors-{os.getuid()}"
    assert not monitors.exists() or not list(monitors.iterdir())
    # The strategy files the Dask runs sent their workers stayed, one folder per file for ever.
    strategies = temporary / f"canasta-sim-strategies-{os.getuid()}"
    assert not strategies.exists() or not list(strategies.iterdir())
