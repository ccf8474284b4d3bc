"""A run on a cluster given by address (``run --scheduler``) whose workers have all gone says so at once, and how long
it will wait for one (the chunk's ``--task-timeout``), then says when workers are back (sim/runs/dask_backend.py)."""

import time
import types

import distributed
import pytest

import canasta_sim.runs.dask_backend as dask_backend
from canasta_sim.core.rules import Rules
from canasta_sim.runs.runner import ChunkReport, RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.fake_dask import FakeAsCompleted, FakeClient

ADDRESS = "tcp://10.0.0.5:8786"


def gone(seconds: int) -> str:
    """The warning of a run on ``ADDRESS`` that has no worker left, with ``seconds`` of --task-timeout to wait."""
    return (f"no Dask worker is connected to the scheduler at {ADDRESS}: the run waits for one, at most {seconds} s "
            f"more (--task-timeout {seconds} s per chunk), then ends keeping its finished games; start workers with: "
            f"dask worker {ADDRESS}")


class _Future:
    """A chunk's future, done a second after the cluster has a worker again (never, for one whose workers stay gone)."""

    def __init__(self, key: str, chunk: int, client: "_ClientLosingItsWorkers") -> None:
        self.key, self.chunk, self.client = key, chunk, client

    @property
    def status(self) -> str:
        return "finished" if self.client.has_workers(since=1.0) else "pending"

    def result(self, timeout=None):
        return dask_backend.ChunkResult(ChunkReport(self.chunk, 0, True, (0,)), None, None)

    def release(self) -> None:
        pass


class _ClientLosingItsWorkers(FakeClient):
    """A client of a cluster whose only worker has left when the run begins, and joins again ``back_after`` seconds
    later (``None``: never); the run counts the worker threads once a second."""

    scheduler = types.SimpleNamespace(address=ADDRESS)

    def __init__(self, back_after: float | None) -> None:
        super().__init__()
        self.back_at = None if back_after is None else time.monotonic() + back_after

    def has_workers(self, since: float = 0.0) -> bool:
        """Whether the worker is back, and has been for ``since`` seconds."""
        return self.back_at is not None and time.monotonic() >= self.back_at + since

    def nthreads(self) -> dict[str, int]:
        return {"worker": 1} if self.has_workers() else {}

    def submit(self, function, job, chunk, submission, key, pure, retries):
        return _Future(key, chunk, self)


class _DoneWithWorkers(FakeAsCompleted):
    @staticmethod
    def is_done(future) -> bool:
        return future.status == "finished"


def _drive(client, tmp_path, timeout: float):
    settings = RunSettings(games=4, seed=1, specs=("greedy",), rules=Rules(), chunk_size=4)
    job = types.SimpleNamespace(settings=settings, token="run")
    return dask_backend._drive(client, job, [0], RunDirectory(tmp_path), lambda report: None, timeout,
                               {"interrupted": False})


def _warnings(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]


@pytest.mark.timeout(30)
def test_a_cluster_left_without_workers_is_said_at_once_with_how_long_the_run_waits(tmp_path, monkeypatch, caplog):
    # The run said nothing until the chunk's --task-timeout ended it: 5,060 s for chunks of 500 games.
    monkeypatch.setattr(distributed, "as_completed", _DoneWithWorkers)
    with pytest.raises(dask_backend.ClusterError, match="did not come back within 1 s"):
        _drive(_ClientLosingItsWorkers(back_after=None), tmp_path, 1.0)
    assert _warnings(caplog) == [gone(1)]


@pytest.mark.timeout(30)
def test_workers_joining_again_are_said_and_the_run_goes_on(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(distributed, "as_completed", _DoneWithWorkers)
    assert _drive(_ClientLosingItsWorkers(back_after=0.5), tmp_path, 60.0) is None
    assert _warnings(caplog) == [gone(60), f"Dask workers are connected to the scheduler at {ADDRESS} again (1 worker "
                                       "thread): the run goes on"]
