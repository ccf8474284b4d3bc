"""The machine refusing a bot process (a low ``ulimit -u``, a pids limit) inside a Dask task: one line naming the
limit, no strategy blamed, no forfeit recorded for it, and the games the chunk finished before it kept, as the local
backend keeps them.

The cluster's worker is a thread of this process, so that the stand-in for ``subprocess.Popen`` (of
tests/cli/test_refused_bot_processes.py) that refuses bot processes past a count reaches it."""

from __future__ import annotations

import errno
import logging
import multiprocessing.synchronize
import os

import pytest
from click.testing import CliRunner
from distributed import LocalCluster

import canasta_sim.runs.dask_strategies
from canasta_sim.cli import main
from canasta_sim.runs.storage import RunDirectory
from tests.cli.test_refused_bot_processes import BOTS, QUICK, _one_error, refuse_bots  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def cluster():
    """One worker thread in this process, left running between the runs (starting one costs about a second)."""
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR) as local_cluster:
        yield local_cluster


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("here", "kept"), [(2, 0), (3, 0), (5, 1)], ids=["the-jobs-load", "the-tasks-load",
                                                                          "mid-chunk"])
def test_a_bot_process_refused_for_a_dask_run_stops_it_in_one_line_keeping_the_chunks_finished_games(
        refuse_bots, cluster, tmp_path, here, kept):  # noqa: F811 - the fixture imported above
    # In a task it said "chunk 0 failed on a Dask worker: MachineRefusal: ...; a worker may run another canasta-sim
    # than this client: install the same one on the client and every worker", and mid-chunk the game the chunk had
    # finished was lost with it; at the job's own load in the command (its strategies loaded again for the tasks) it
    # exited 2, a spec that cannot be used.  EndsQuietly ends its process in every game: each needs new ones.
    bot = f"isolated:{BOTS / 'ends_its_process.py'}:EndsQuietly"
    out = tmp_path / "run"
    refuse_bots(here, 0)
    result = CliRunner().invoke(main, ["run", "--strategy", bot, "--strategy", "greedy", "--games", "4",
                                       "--chunk-size", "4", "--seed", "3", "--on-error", "forfeit",
                                       "--scheduler", cluster.scheduler_address, "--out", str(out), *QUICK])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    error = _one_error(result.output)
    assert f"run canasta-sim run --resume {out}" in error and "another canasta-sim" not in error, error
    assert sum(RunDirectory(out).chunk_game_counts().values()) == kept, result.output


@pytest.mark.timeout(60)
def test_a_file_a_dask_workers_machine_refuses_is_said_as_the_machines_not_as_another_canasta_sim(cluster, tmp_path,
                                                                                                 monkeypatch):
    # A worker that may not write its copy of a strategy file (its temporary folder another user's, or read-only)
    # ended the run with "...: PermissionError: ...; a worker may run another canasta-sim than this client".
    bot = tmp_path / "mine.py"
    bot.write_text("from canasta_sim.strategies.greedy import Greedy\n\n\nclass Mine(Greedy):\n    name = 'mine'\n")

    def refused(shipped, run_token):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/tmp/canasta-sim-strategies-1000")

    monkeypatch.setattr(canasta_sim.runs.dask_strategies, "_materialize", refused)
    result = CliRunner().invoke(main, ["run", "--strategy", f"{bot}:Mine", "--strategy", "greedy", "--games", "2",
                                       "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "run"),
                                       *QUICK])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    [error] = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "PermissionError: [Errno 13] Permission denied: '/tmp/canasta-sim-strategies-1000'" in error, error
    assert "an error of the worker's machine" in error and "another canasta-sim" not in error, error


def _refusing(number):
    def refused(self, *arguments, **options):
        raise OSError(number, os.strerror(number))

    return refused


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("number", "told"), [(errno.EROFS, ["Read-only file system", "/dev/shm",
                                                             "without --backend dask"]),
                                              (errno.EMFILE, ["a local Dask worker process", "ulimit -n"])],
                         ids=["dev-shm", "open-files"])
def test_a_local_dask_cluster_whose_workers_the_machine_refuses_ends_in_one_line_naming_why(tmp_path, monkeypatch,
                                                                                            number, told):
    # In a container with /dev/shm read-only, run --backend dask ended in Dask's 114-line traceback ("RunClusterNanny
    # failed to start"): each worker's nanny takes a multiprocessing lock, a semaphore in /dev/shm.
    monkeypatch.setattr(multiprocessing.synchronize.SemLock, "__init__", _refusing(number))
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "-s", "greedy", "-s", "random", "--games", "2", "--workers", "1",
                                       "--backend", "dask", "--out", str(out), *QUICK])
    monkeypatch.undo()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (result.exception, result.output)
    [error] = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert all(words in error for words in told), error
