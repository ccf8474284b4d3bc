"""The strategy files a Dask run sends to its workers (sim/runs/dask_strategies.py), without a cluster: each run writes
its own copy under the machine's temporary folder and removes it when it ends, so that a long-lived worker keeps no
file of a finished run and one run's end takes nothing from another playing the same file at once; and the bytes sent
are those of the file the client loaded."""

import contextlib
import dataclasses
import linecache
import os
import re
import stat
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest
from distributed.protocol.pickle import dumps

from canasta_sim.core.rules import Rules
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy
from canasta_sim.plugins.specs import is_bot_spec
from canasta_sim.runs.dask_journal import ChunkJournal
from canasta_sim.runs.dask_strategies import end_run_here, end_run_on_workers, load_on_worker, shipped_files
from canasta_sim.runs.runner import RunSettings

QUICK = Rules(target_score=1000)

FAILING = '''# -*- coding: latin-1 -*-
# Caf\xe9 au lait: a file Python reads in its declared encoding, not UTF-8.
from canasta_sim.strategies.greedy import Greedy


class Fails(Greedy):
    """Greedy under another name, whose discard fails."""

    name = "fails"
    version = 1

    def choose_discard(self, view):
        raise RuntimeError("the line of this failure is shown")
'''


def strategy_folder() -> Path:
    """Where a worker machine keeps the strategy files sent to this user's runs (docs/cluster.md)."""
    return Path(tempfile.gettempdir()) / f"canasta-sim-strategies-{os.getuid()}"


@pytest.fixture
def machine_temporary(tmp_path, monkeypatch) -> Path:
    """The temporary folder of the 'worker machine': the test's own, where the shipped files are written."""
    folder = tmp_path / "machine"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def loaded_by_client(settings: RunSettings) -> dict[str, LoadedStrategy]:
    """The run's strategies as the client loads them, the bots' processes it starts to ask them ended."""
    loaded = {spec: load_strategy(spec, file=settings.file_of(spec)) for spec in settings.specs}
    for spec, strategy in loaded.items():
        if is_bot_spec(spec):
            strategy.cls.pool.close()
    return loaded


def shipped(tmp_path: Path, spec: str):
    """The file of ``spec`` as a client sends it (``spec`` names ``fails.py`` in the client's folder)."""
    client = tmp_path / "client"
    client.mkdir(exist_ok=True)
    (client / "fails.py").write_bytes(FAILING.encode("latin-1"))
    with contextlib.chdir(client):
        settings = RunSettings(games=2, seed=1, specs=(spec, "random"), rules=QUICK, chunk_size=2)
        (file,) = shipped_files(settings, loaded_by_client(settings))
    return file


def test_files_sent_are_the_bytes_python_loaded_in_any_declared_encoding(tmp_path):
    # Read as UTF-8 text, the file that loads locally could not be sent at all.
    file = shipped(tmp_path, "fails.py:Fails")
    assert file.source == FAILING.encode("latin-1") and file.file_name == "fails.py" and not file.isolated


@pytest.mark.timeout(60)
def test_each_run_removes_its_strategy_files_and_leaves_another_runs_copy(tmp_path, machine_temporary):
    spec = "isolated:fails.py:Fails"
    file = shipped(tmp_path, spec)
    first = load_on_worker(spec, file, "run-one")
    second = load_on_worker(spec, file, "run-two")  # the same file, played by another run at once
    assert first.label == second.label == "fails@1"
    copies = sorted(path.parent.name for path in strategy_folder().rglob("fails.py"))
    assert copies == [f"run-one-{file.digest}", f"run-two-{file.digest}"]
    end_run_here("run-one")
    assert [path.parent.name for path in strategy_folder().rglob("fails.py")] == [f"run-two-{file.digest}"]
    with pytest.raises(StrategyLoadError, match="its run ended on this worker"):
        load_on_worker("fails.py:Fails", shipped(tmp_path, "fails.py:Fails"), "run-one")  # a late attempt's load
    end_run_here("run-two")
    assert not list(strategy_folder().iterdir())  # the runs' folders too


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "getuid"), reason="a temporary folder shared by users, as POSIX systems have it")
def test_a_worker_machine_where_another_user_ran_keeps_this_users_files_in_folders_of_its_own(tmp_path,
                                                                                             machine_temporary):
    # The two folders were one per machine, the first user's: every other user's Dask run there failed, "Permission
    # denied: '/tmp/canasta-sim-monitors/...monitor'".  (Root is refused nothing: a file where that user's folder was
    # stands for it.)
    for shared in ("canasta-sim-strategies", "canasta-sim-monitors"):
        (machine_temporary / shared).write_text("another user's")
    spec = "fails.py:Fails"
    file = shipped(tmp_path, spec)  # a source of its own, loaded anew whatever the other tests loaded in this process
    load_on_worker(spec, dataclasses.replace(file, source=file.source + b"\n# the second user's\n"),
                   "run-of-the-second-user")
    with ChunkJournal("run-of-the-second-user", 0):
        pass
    for name in ("canasta-sim-strategies", "canasta-sim-monitors"):
        own = machine_temporary / f"{name}-{os.getuid()}"
        assert own.is_dir() and stat.S_IMODE(own.stat().st_mode) == 0o700  # its runs' code: this user's to read
    end_run_here("run-of-the-second-user")


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "getuid"), reason="a temporary folder shared by users, as POSIX systems have it")
def test_a_strategy_folder_of_this_users_name_that_others_may_write_in_is_refused_naming_it(tmp_path,
                                                                                           machine_temporary):
    # In a temporary folder every user shares, anyone may make the folder first and swap a shipped file in it
    # before the worker imports it.
    taken = machine_temporary / f"canasta-sim-strategies-{os.getuid()}"
    taken.mkdir()
    taken.chmod(0o777)
    file = shipped(tmp_path, "fails.py:Fails")
    with pytest.raises(PermissionError, match=re.escape(str(taken))):
        load_on_worker("fails.py:Fails", dataclasses.replace(file, source=file.source + b"\n# taken\n"),
                       "run-in-a-taken-folder")
    assert not list(taken.iterdir())


@pytest.mark.timeout(60)
def test_a_strategy_loaded_by_an_ended_run_keeps_its_source_lines_in_tracebacks(tmp_path, machine_temporary):
    # In-process strategies are loaded once per worker for every run; the file goes with the run that wrote it.
    file = shipped(tmp_path, "fails.py:Fails")
    loaded = load_on_worker("fails.py:Fails", file, "earlier-run")
    end_run_here("earlier-run")
    assert not list(strategy_folder().iterdir())
    assert load_on_worker("fails.py:Fails", file, "later-run") is loaded  # the next run's: nothing written again
    assert not list(strategy_folder().iterdir())
    linecache.checkcache()
    with pytest.raises(RuntimeError) as caught:
        loaded(None).choose_discard(None)
    assert 'raise RuntimeError("the line of this failure is shown")' in "".join(traceback.format_tb(caught.tb))
    end_run_here("later-run")


def test_an_isolated_file_whose_recorded_path_is_gone_is_sent_from_where_its_bot_loads_it(tmp_path):
    # The bot's process loads the spec's own path when the file the run recorded is gone (a run copied to another
    # machine with its bots); the client read the recorded one, and could not send the file.
    client = tmp_path / "client"
    client.mkdir()
    (client / "fails.py").write_bytes(FAILING.encode("latin-1"))
    spec = "isolated:fails.py:Fails"
    with contextlib.chdir(client):
        settings = RunSettings(games=2, seed=1, specs=(spec,), rules=QUICK, chunk_size=2,
                               files=((spec, str(tmp_path / "gone" / "fails.py")),))
        (file,) = shipped_files(settings, loaded_by_client(settings))
    assert file.source == FAILING.encode("latin-1") and file.isolated


@pytest.mark.timeout(60)
def test_a_worker_of_another_canasta_sim_takes_the_end_of_a_run_and_does_nothing():
    # Sent by reference, the function ending a run could not be unpickled by a worker whose canasta-sim lacks its
    # module (an older one): Dask stopped that worker, at the end of every run.
    sent = []

    class Client:
        status = "running"

        def run(self, function, *args, **options):
            sent.append(dumps((function, args)))  # as Dask sends them

    end_run_on_workers(Client(), "a-run")
    program = ("import pickle, sys; sys.modules['canasta_sim.runs.dask_strategies'] = None; "
               "function, args = pickle.loads(sys.stdin.buffer.read()); print(function(*args))")
    result = subprocess.run([sys.executable, "-c", program], input=sent[0], capture_output=True, timeout=50)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split() == ["None"]
