"""The Dask backend's client never waits for ever on a chunk whose rows died with the worker that held them."""

import threading
import types

import distributed
import pytest

import canasta_sim.runs.dask_backend as dask_backend
from canasta_sim.core.rules import Rules
from canasta_sim.runs.runner import ChunkReport, RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.fake_dask import FakeClient


class _Future:
    """A chunk's future: its first attempt finished on a worker that died before the client fetched its rows, and
    Dask's gather then waited for them without end (seen with distributed 2025: "Couldn't gather keys ...
    rescheduling", the key then failed, and the client was never told); a later attempt comes back."""

    def __init__(self, key: str, chunk: int, submissions: int) -> None:
        self.key, self.chunk, self.submissions = key, chunk, submissions

    def result(self, timeout=None):
        if self.submissions == 1:
            threading.Event().wait(timeout)  # no timeout: for ever, as the gather did
            raise TimeoutError(f"timed out after {timeout} s.")
        return dask_backend.ChunkResult(ChunkReport(self.chunk, 0, True, (0,)), None, None)

    def release(self) -> None:
        pass


class _Client(FakeClient):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []

    def submit(self, function, job, chunk, submission, key, pure, retries):
        self.submitted.append(key)  # canasta-chunk-CHUNK-RUN, then -2, -3, ... for each submission after the first
        for what in ("began", "ended"):  # the attempt plays the chunk to its end: its rows are lost afterwards
            self.handler((0.0, [job.token, chunk, submission, what]))
        return _Future(key, chunk, submission)


class _AsCompleted:
    """Every future added is done at the next look (the lost one as Dask reported it: finished)."""

    def __init__(self, loop=None) -> None:
        self.done: list = []

    def add(self, future) -> None:
        self.done.append(future)

    def next_batch(self, block=True):
        batch, self.done = self.done, []
        return batch


@pytest.mark.timeout(30)
def test_a_chunk_whose_rows_died_with_their_worker_is_played_again_not_waited_for(tmp_path, monkeypatch):
    monkeypatch.setattr(dask_backend, "RESULT_SECONDS", 0.2)
    monkeypatch.setattr(distributed, "as_completed", _AsCompleted)
    settings = RunSettings(games=4, seed=1, specs=("greedy",), rules=Rules(), chunk_size=4)
    job = types.SimpleNamespace(settings=settings, token="run")
    client, reports = _Client(), []
    error = dask_backend._drive(client, job, [0], RunDirectory(tmp_path), reports.append, 60.0,
                                {"interrupted": False})
    assert error is None
    assert [report.chunk for report in reports] == [0]
    assert len(client.submitted) == 2 and client.submitted[1].endswith("-2")  # played again, under a new key
    assert client.cancelled == [client.submitted[0]]  # and the lost attempt given up, so that Dask forgets it
