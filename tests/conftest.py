"""What every test starts from: none of the settings a command hands its workers and bot processes through the
environment (``--memory-limit``, ``--games-at-once``, ``--pin-cores``).

A command run in the test process (``CliRunner``) sets them in ``os.environ`` for the processes it starts, where
they would outlast it: a later test's bots would run under an earlier test's memory limit.  A test that wants one
sets it (``monkeypatch.setenv``) or passes the option.
"""

from __future__ import annotations

import logging
import os

import pytest

from canasta_sim.plugins.affinity import AFFINITY_VARIABLE
from canasta_sim.plugins.pools import MEMORY_LIMIT_VARIABLE
from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE

_HANDED_DOWN = (MEMORY_LIMIT_VARIABLE, GAMES_AT_ONCE_VARIABLE, AFFINITY_VARIABLE)


@pytest.fixture(autouse=True)
def _handed_down_settings_stay_with_their_test():
    saved = {name: os.environ.pop(name, None) for name in _HANDED_DOWN}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def dask_cluster():
    """A Dask cluster of two worker processes of one thread each, as ``--backend dask --workers 2`` starts, shared by
    the tests that play on a running cluster (starting one costs seconds).  A test may kill a worker: its nanny starts
    another, which the next test waits for (``Client.wait_for_workers``) when it needs both."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR) as cluster:
        yield cluster
