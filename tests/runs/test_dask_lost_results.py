"""The Dask backend's client never waits on a chunk whose rows died with the worker that held them: it plays the
chunk again as soon as the scheduler reports them lost (sim/runs/dask_results.py)."""

import pickle
import threading
import time
import types

import distributed
import pytest

import canasta_sim.runs.dask_backend as dask_backend
from canasta_sim.core.rules import Rules
from canasta_sim.runs.runner import ChunkReport, RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.fake_dask import FakeAsCompleted, FakeClient

LOST_AT_ONCE = "lost before the client fetched them"
LOST_WHILE_FETCHED = "lost while the client fetched them"


class _Future:
    """A chunk's future.  The first attempt finished on a worker that died before its rows were fetched: the
    scheduler reports the future ``lost`` (``LOST_AT_ONCE``), or a fetch under way fails and Dask's gather puts it
    back to ``pending`` (``LOST_WHILE_FETCHED``); either way the gather then waits for the chunk to be computed
    again, for ever here (seen with distributed 2025: "Couldn't gather keys ... rescheduling", then nothing).  A
    later submission comes back."""

    def __init__(self, key: str, chunk: int, submission: int, how: str) -> None:
        self.key, self.chunk, self.submission, self.how = key, chunk, submission, how
        self.status = "lost" if submission == 1 and how == LOST_AT_ONCE else "finished"

    def result(self, timeout=None):
        if self.submission == 1:
            if self.how == LOST_WHILE_FETCHED:
                threading.Timer(0.2, setattr, (self, "status", "pending")).start()
            threading.Event().wait(timeout)  # no timeout: for ever, as the gather did
            raise TimeoutError(f"timed out after {timeout} s.")
        return dask_backend.ChunkResult(ChunkReport(self.chunk, 0, True, (0,)), None, None)

    def release(self) -> None:
        pass


class _Client(FakeClient):
    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how
        self.submitted: list[str] = []

    def submit(self, function, job, chunk, submission, key, pure, retries):
        self.submitted.append(key)  # canasta-chunk-CHUNK-RUN, then -2, -3, ... for each submission after the first
        token = pickle.loads(job).token  # the job travels pickled, as play_chunk_task takes it
        for what in ("began", "ended"):  # the attempt plays the chunk to its end: its rows are lost afterwards
            self.handler((0.0, [token, chunk, submission, what]))
        return _Future(key, chunk, submission, self.how)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", [LOST_AT_ONCE, LOST_WHILE_FETCHED])
def test_a_chunk_whose_rows_died_with_their_worker_is_played_again_at_once(how, tmp_path, monkeypatch, caplog):
    # Every future added is done at the next look (the lost one as Dask reported it: finished).
    monkeypatch.setattr(distributed, "as_completed", FakeAsCompleted)
    settings = RunSettings(games=4, seed=1, specs=("greedy",), rules=Rules(), chunk_size=4)
    job = types.SimpleNamespace(settings=settings, token="run")
    client, reports = _Client(how), []
    started = time.monotonic()
    error = dask_backend._drive(client, job, [0], RunDirectory(tmp_path), reports.append, 60.0,
                                {"interrupted": False})
    assert time.monotonic() - started < 5  # not the 30 s the client used to give the fetch
    assert error is None
    assert [report.chunk for report in reports] == [0]
    assert len(client.submitted) == 2 and client.submitted[1].endswith("-2")  # played again, under a new key
    assert client.cancelled == [client.submitted[0]]  # and the lost attempt given up, so that Dask forgets it
    warnings = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    assert warnings == ["chunk 0 (games 0-3) was lost on the Dask cluster (the worker holding its finished rows died "
                        "before they were fetched); it is played again"]


class _CancelledFuture:
    """A chunk's future that the client cancelled itself on losing the scheduler (Dask's ``_reconnect``)."""

    status = "cancelled"

    def __init__(self, key: str) -> None:
        self.key = key


class _ClientThatLostItsScheduler(FakeClient):
    """A client whose scheduler died once the run's first chunks were sent: it is reconnecting, its futures were
    cancelled, and asking the scheduler anything fails once it gave up (``CommClosedError``, an ``OSError``)."""

    scheduler = types.SimpleNamespace(address="tcp://10.0.0.5:8786")

    def __init__(self, answers_nthreads: bool) -> None:
        super().__init__()
        self.answers_nthreads = answers_nthreads
        self.submitted: list[str] = []

    def submit(self, function, job, chunk, submission, key, pure, retries):
        self.submitted.append(key)
        self.status = "connecting"
        return _CancelledFuture(key)

    def nthreads(self) -> dict[str, int]:
        if self.answers_nthreads or not self.submitted:
            return super().nthreads()
        self.status = "closed"
        raise distributed.comm.CommClosedError("ConnectionPool closing.")


class _NeverDone(FakeAsCompleted):
    @staticmethod
    def is_done(future) -> bool:
        return False


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seen", ["cancelled chunks", "a failed question"])
def test_a_lost_scheduler_ends_the_run_with_one_line_naming_it(seen, tmp_path, monkeypatch, caplog):
    # The chunks Dask cancelled were played again, each with a warning, until "chunk 1 was lost: its Dask workers
    # kept dying while no chunk began to play", or until a question to the scheduler failed, which the command then
    # reported as "writing the run failed: ConnectionPool closing.".
    monkeypatch.setattr(distributed, "as_completed", FakeAsCompleted if seen == "cancelled chunks" else _NeverDone)
    settings = RunSettings(games=8, seed=1, specs=("greedy",), rules=Rules(), chunk_size=4)
    job = types.SimpleNamespace(settings=settings, token="run")
    client = _ClientThatLostItsScheduler(answers_nthreads=seen == "cancelled chunks")
    with pytest.raises(dask_backend.ClusterError) as caught:
        dask_backend._drive(client, job, [0, 1], RunDirectory(tmp_path), lambda report: None, 60.0,
                            {"interrupted": False})
    assert str(caught.value).startswith("lost the connection to the Dask scheduler at tcp://10.0.0.5:8786")
    assert "\n" not in str(caught.value)
    assert len(client.submitted) == 2  # nothing sent again to a scheduler that is gone
    assert not [record for record in caplog.records if record.levelname == "WARNING"]
    assert client.cancelled == []  # nor asked of it: each question would wait for Dask's connect timeout
