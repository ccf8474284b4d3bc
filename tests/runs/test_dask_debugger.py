"""A strategy's ``breakpoint()`` in a game a Dask worker plays is the debugger quitting at once, charged to its seat, as
in a local run's worker process, whatever hook or terminal the worker's process has: here the worker is a thread of
this process, whose hook (a notebook kernel's) returns."""

from __future__ import annotations

import logging
import sys

import pytest
from distributed import LocalCluster

from tests.helpers import invoke
from tests.run_helpers import BREAKPOINT_BOT_SOURCE, kernels_breakpoint_hook


@pytest.mark.timeout(60)
def test_breakpoint_in_a_game_on_a_dask_worker_thread_is_the_debugger_quitting_charged_to_its_seat(tmp_path,
                                                                                                   monkeypatch):
    # On a cluster of threads of the user's process (a notebook's LocalCluster(processes=False)) the kernel's hook
    # returned and the game played on, so the run's tables differed from a local run's.
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    monkeypatch.setattr(sys, "breakpointhook", kernels_breakpoint_hook)
    bot = tmp_path / "stops.py"
    bot.write_text(BREAKPOINT_BOT_SOURCE)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR) as cluster:
        result = invoke("run", "--games", "2", "--seed", "3", "-q", "-s", f"{bot}:Stops", "-s", "greedy",
                        "--out", tmp_path / "run", "--scheduler", cluster.scheduler_address)
    assert result.exit_code == 1, result.output
    assert "raised BdbQuit (a debugger, breakpoint() or pdb, quit in the strategy" in result.output
    assert "(reason: exception)" in result.output
    breakpoint()  # this test's own thread keeps the process's hook, which returns
