"""Two attempts at one chunk playing at once on a machine: the attempt of a submission the client gave up, which Dask
cannot stop, and the chunk's next submission.  Played for real (the Dask task, ``play_chunk_task``, in threads of this
process as a worker's threads), against a scripted client: the late attempt adds nothing to the chunk's rows and
changes none (sim/runs/dask_journal.py)."""

import os
import tempfile
import threading
import types

import distributed
import pytest

import canasta_sim.runs.dask_backend as dask_backend
from canasta_sim.core.rules import Rules
from canasta_sim.runs.dask_resubmission import BEGAN, ENDED
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.strategies.greedy import Greedy
from tests.fake_dask import FakeAsCompleted, FakeClient
from tests.helpers import assert_same_run_tables, read_run_tables

FIRST_ATTEMPT = "attempt of submission 1"
PAUSED = threading.Event()
RESUMED = threading.Event()


class PausesInItsFirstAttempt(Greedy):
    """Greedy that, in the first attempt's thread only, waits at its first discard until the test resumes it: an
    attempt still playing when the scheduler gave its submission up."""

    name = "pauses-in-its-first-attempt"

    def choose_discard(self, view):
        if threading.current_thread().name == FIRST_ATTEMPT and not RESUMED.is_set():
            PAUSED.set()
            RESUMED.wait(60)
        return super().choose_discard(view)


class _Attempt(threading.Thread):
    """One attempt at a chunk, the task itself, announcing when it begins and ends as a worker's attempt does."""

    def __init__(self, client: "_Client", job, chunk: int, submission: int) -> None:
        super().__init__(name=f"attempt of submission {submission}", daemon=True)
        self.client, self.job, self.chunk, self.submission = client, job, chunk, submission
        self.result = None

    def run(self) -> None:
        self.client.announce(self.chunk, self.submission, BEGAN)
        self.result = dask_backend.play_chunk_task(self.job, self.chunk, self.submission)
        self.client.announce(self.chunk, self.submission, ENDED)


class _Future:
    def __init__(self, key: str, attempt: _Attempt) -> None:
        self.key, self.attempt = key, attempt

    @property
    def given_up(self) -> bool:
        """The first submission is given up by the scheduler once its attempt is under way, as when the worker
        playing it lost touch with the scheduler, which counted it dead (its fourth death), but plays on."""
        return self.attempt.submission == 1 and PAUSED.is_set()

    @property
    def status(self) -> str:
        if self.given_up:
            return "error"
        return "pending" if self.attempt.is_alive() else "finished"

    def result(self, timeout=None):
        if self.given_up:
            raise distributed.KilledWorker(self.key, types.SimpleNamespace(address="tcp://10.0.0.7:40000"), 3)
        self.attempt.join(timeout)
        return self.attempt.result

    def release(self) -> None:
        pass


class _Client(FakeClient):
    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token
        self.attempts: list[_Attempt] = []
        self.keys: list[str] = []

    def announce(self, chunk: int, submission: int, what: str) -> None:
        if self.handler is not None:
            self.handler((0.0, [self.token, chunk, submission, what]))

    def submit(self, function, job, chunk, submission, key, pure, retries):
        attempt = _Attempt(self, job, chunk, submission)
        self.attempts.append(attempt)
        self.keys.append(key)
        attempt.start()
        return _Future(key, attempt)


class _AsCompleted(FakeAsCompleted):
    @staticmethod
    def is_done(future) -> bool:
        return future.status != "pending"


@pytest.mark.timeout(120)
def test_an_attempt_still_playing_after_its_submission_was_given_up_changes_no_row_of_the_next(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this machine's journals: in the test's folder
    monkeypatch.setattr(distributed, "as_completed", _AsCompleted)
    spec = f"{__name__}:PausesInItsFirstAttempt"
    settings = RunSettings(games=4, seed=3, specs=(spec, "greedy"), rules=Rules(target_score=1000), chunk_size=4)
    local = RunDirectory(tmp_path / "local")
    assert run_chunks(settings, local, [0], workers=1, on_error="forfeit") == (False, None)

    job = dask_backend.prepare_job(settings, "forfeit")
    client, reports = _Client(job.token), []
    remote = RunDirectory(tmp_path / "dask")
    remote.create()
    try:
        error = dask_backend._drive(client, job, [0], remote, reports.append, 60.0, {"interrupted": False})
        late = client.attempts[0]
        assert late.is_alive()  # still in its game when the chunk was written from the next submission
    finally:
        RESUMED.set()
    late.join(30)
    assert error is None and [report.chunk for report in reports] == [0]
    assert [attempt.submission for attempt in client.attempts] == [1, 2]
    assert client.cancelled == client.keys[:1]  # the submission given up, which Dask could not stop
    games = read_run_tables(remote.path)[0]
    assert not (games.termination == "forfeit").any()  # the game the late attempt was in was no death
    assert_same_run_tables(local.path, remote.path)
    # Both attempts removed their monitors as they ended, and nobody charged anything.
    assert not list((tmp_path / f"canasta-sim-monitors-{os.getuid()}").iterdir())
