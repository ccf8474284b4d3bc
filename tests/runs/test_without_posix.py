"""On a system without Linux's process controls (Windows; macOS in part) canasta-sim plays the same games, contains
strategies with what the system has, and refuses in one line what it cannot do.

No Windows or macOS machine runs these: what they lack is taken away here.  :data:`WITHOUT_POSIX` makes ``resource``
and ``fcntl`` unimportable, ``fork``, ``select.poll``, the ``SIGALRM`` timer, ``SIGHUP``, ``os.killpg`` and
``os.sched_getaffinity`` absent, in the command's process and in every process it starts.  That checks the import
graph and every use of those names on the paths a run takes.  It cannot catch what differs in what remains: Windows's
paths, its console's Ctrl-C, its pipes and sockets, ``ctypes`` without a libc, ``msvcrt``'s locks (an empty stand-in
here), macOS's frameworks under ``fork``; nor anything of a path a run does not take (bot processes, which are refused
on Windows: tests/plugins/test_specs_on_windows.py, and the Dask backend).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import canasta_sim.arbiter.clock
import canasta_sim.plugins.process
from canasta_sim.arbiter.clock import DecisionClock
from canasta_sim.core.engine import play_game
from canasta_sim.errors import StrategyError
from canasta_sim.strategies.greedy import Greedy
from tests.helpers import BOTS, assert_same_run_tables

WITHOUT_POSIX = textwrap.dedent("""\
    import multiprocessing, os, select, signal, subprocess, sys, types
    sys.modules["resource"] = None
    sys.modules["fcntl"] = None
    # Windows's, imported in fcntl's place; a run locks nothing.  After subprocess, which takes msvcrt for Windows.
    sys.modules["msvcrt"] = types.ModuleType("msvcrt")
    multiprocessing.get_all_start_methods = lambda: ["spawn"]
    for owner, name in ((select, "poll"), (signal, "SIGALRM"), (signal, "setitimer"), (signal, "SIGHUP"),
                        (os, "killpg"), (os, "sched_getaffinity")):
        if hasattr(owner, name):
            delattr(owner, name)
""")
"""A ``sitecustomize`` taking away what Windows lacks, in every Python process started with it on the path."""


@pytest.mark.timeout(120)
def test_a_run_without_the_posix_modules_and_fork_plays_to_the_end_with_linuxs_tables(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(WITHOUT_POSIX)
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "4", "--workers", "2", "--seed", "9",
               "--rules", "target_score=1000", "--quiet"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"),
                                                                os.environ.get("PYTHONPATH", "")])}
    without = subprocess.run([*command, "--out", str(tmp_path / "without")], env=environment, capture_output=True,
                             text=True, timeout=100)
    assert without.returncode == 0, without.stderr
    linux = subprocess.run([*command, "--out", str(tmp_path / "linux")], capture_output=True, text=True, timeout=100)
    assert linux.returncode == 0, linux.stderr
    assert_same_run_tables(tmp_path / "linux", tmp_path / "without")
    manifest = (tmp_path / "without" / "run.json").read_text()
    assert "spawned workers, decision clock by watchdog thread" in manifest and "no memory limits" in manifest


@pytest.mark.timeout(30)
def test_without_the_alarm_a_decision_past_its_time_limit_is_still_the_seats_timeout(monkeypatch):
    # Windows has no SIGALRM: DecisionClock armed the missing timer, and every game with a time limit failed.
    monkeypatch.setattr(canasta_sim.arbiter.clock, "HAS_ALARM", False)
    monkeypatch.delattr(canasta_sim.arbiter.clock.signal, "setitimer")
    monkeypatch.delattr(canasta_sim.arbiter.clock.signal, "SIGALRM")
    import importlib.util

    loaded = importlib.util.spec_from_file_location("bad_strategies_without_alarm", BOTS / "bad_strategies.py")
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    with pytest.raises(StrategyError) as caught:
        for seed in range(40):  # the trap springs in some games only
            play_game([module.LoopsForever, Greedy] * 2, seed=seed, time_limit=0.2)
    assert caught.value.reason == "timeout" and "time limit of 0.2 s" in str(caught.value)
    assert caught.value.seat in (0, 2)
    DecisionClock(0.1)  # built in the main thread without the timer: the watchdog


def test_memory_limit_is_refused_in_one_line_where_no_memory_can_be_capped(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from canasta_sim.cli import main

    monkeypatch.setattr(canasta_sim.plugins.process, "resource", None)
    result = CliRunner().invoke(main, ["run", "--games", "2", "--memory-limit", "2048", "--out", str(tmp_path / "r")])
    assert result.exit_code != 0 and result.exception is None or isinstance(result.exception, SystemExit)
    assert "Error: --memory-limit 2048: capping a worker's memory needs an address-space limit (RLIMIT_AS)" in \
        result.output
    assert "Traceback" not in result.output and not (tmp_path / "r" / "games").exists()


def test_a_memory_limit_asked_of_a_worker_pool_from_python_is_refused_where_none_can_be_set(monkeypatch, tmp_path):
    # From Python (run_chunks, a pool of one's own) the limit was dropped without a word where resource is missing.
    from canasta_sim.core.rules import Rules
    from canasta_sim.runs.local_backend import run_chunks
    from canasta_sim.runs.runner import RunSettings
    from canasta_sim.runs.storage import RunDirectory
    from canasta_sim.runs.supervisor import WorkerStartError

    monkeypatch.setattr(canasta_sim.plugins.process, "resource", None)
    settings = RunSettings(games=2, seed=1, specs=("greedy", "random"), rules=Rules(target_score=1000), chunk_size=2)
    with pytest.raises(WorkerStartError, match=r"memory_limit=2048: capping a worker's memory needs"):
        run_chunks(settings, RunDirectory(tmp_path / "run"), [0], workers=1, on_error="stop", memory_limit=2048)


@pytest.mark.timeout(60)
def test_a_bot_memory_limit_set_by_hand_is_refused_in_one_line_on_macos_which_would_not_hold_it(monkeypatch,
                                                                                                 tmp_path):
    # --memory-limit was refused on macOS, where the kernel takes RLIMIT_AS and holds no allocation to it, but the
    # variable it sets, set by hand, started every bot process under a limit that looked set and was not.
    from click.testing import CliRunner

    from canasta_sim.cli import main

    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("CANASTA_SIM_BOT_MEMORY_LIMIT_MB", "512")
    result = CliRunner().invoke(main, ["watch", "-s", "isolated:greedy", "-s", "greedy", "--seed", "1"])
    assert result.exit_code != 0 and (result.exception is None or isinstance(result.exception, SystemExit))
    [error] = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "CANASTA_SIM_BOT_MEMORY_LIMIT_MB='512': capping a bot process's memory needs an address-space limit " \
           "(RLIMIT_AS), and macOS does not enforce it; unset it" in error, result.output
    assert "Traceback" not in result.output
