"""The Dask backend's resubmissions: a chunk lost while it waited behind a crashing one costs it nothing, a chunk
that keeps killing its own workers spends its budget loss by loss, and workers that die whatever they play end the
run (docs/cluster.md, "A strategy that kills its worker in a game costs that game, not the run")."""

import types

import distributed
import pytest

import canasta_sim.runs.dask_backend as dask_backend
from canasta_sim.core.rules import Rules
from canasta_sim.runs.dask_resubmission import ATTEMPT_TOPIC, BEGAN, ENDED, UNEXPLAINED_LOSSES, Resubmissions
from canasta_sim.runs.runner import ChunkReport, RunSettings
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.supervisor import IDLE_DEATHS
from tests.fake_dask import FakeAsCompleted, FakeClient

FOUR_GAMES = 4
SETTINGS = RunSettings(games=4 * FOUR_GAMES, seed=1, specs=("greedy",), rules=Rules(), chunk_size=FOUR_GAMES)
KILLED = "Attempted to run task canasta-chunk-1 on 4 different workers, but all those workers died while running it"


def book_of_run() -> Resubmissions:
    return Resubmissions("run", SETTINGS, range(SETTINGS.chunk_count))


def hear(book: Resubmissions, chunk: int, submission: int, *what: str, token: str = "run") -> None:
    for each in what:
        book.heard((0.0, [token, chunk, submission, each]))


def test_a_chunk_lost_while_it_waited_behind_a_crashing_one_costs_it_nothing():
    book = book_of_run()
    book.submitted(0, 1)
    hear(book, 0, 1, BEGAN)
    for submission in range(1, 3 * FOUR_GAMES):  # far more losses than the chunk has games
        book.submitted(1, submission)
        hear(book, 0, 1, BEGAN)  # chunk 0's next attempt, on the worker that replaced the one it crashed
        assert book.lost(1, submission, KILLED) is None
    assert book.own_losses[1] == 0 and book.free_losses == 3 * FOUR_GAMES - 1


def test_a_chunk_whose_rows_died_with_their_worker_after_it_played_them_is_not_charged_for_it():
    book = book_of_run()
    for submission in range(1, 2 * FOUR_GAMES):
        book.submitted(1, submission)
        hear(book, 1, submission, BEGAN, ENDED)  # played to the end; the worker holding its rows died
        hear(book, 0, 1, BEGAN)
        assert book.lost(1, submission, "its finished rows could not be fetched") is None
    assert book.own_losses[1] == 0


def test_a_chunk_that_keeps_killing_its_own_workers_is_charged_loss_by_loss_up_to_three_per_game():
    # Each game may cost one death charged and two played again (deaths in built-in strategies' calls).
    allowed = IDLE_DEATHS * FOUR_GAMES
    book = book_of_run()
    for submission in range(1, allowed + 1):
        book.submitted(0, submission)
        hear(book, 0, submission, BEGAN, BEGAN, ENDED)  # one attempt died playing, the next came back too late
        assert book.lost(0, submission, KILLED) is None  # the next attempt charges the game its worker died in
    book.submitted(0, allowed + 1)
    hear(book, 0, allowed + 1, BEGAN)
    failure = book.lost(0, allowed + 1, KILLED)
    assert failure.startswith("chunk 0 was lost: the Dask workers playing it kept dying (Attempted to run task")
    assert "\n" not in failure and book.own_losses[0] == allowed + 1


def test_workers_that_die_whatever_they_play_end_the_run_after_a_few_losses_with_nothing_begun():
    book = book_of_run()
    book.submitted(0, 1)
    hear(book, 0, 1, BEGAN)  # began before chunk 1 was submitted: it cannot have killed chunk 1's later workers
    for submission in range(1, UNEXPLAINED_LOSSES):
        book.submitted(1, submission)
        assert book.lost(1, submission, KILLED) is None
    book.submitted(1, UNEXPLAINED_LOSSES)
    failure = book.lost(1, UNEXPLAINED_LOSSES, KILLED)
    assert failure.startswith("chunk 1 was lost: its Dask workers kept dying while no chunk began to play (3 such")
    assert "\n" not in failure and book.own_losses[1] == 0


def test_an_attempt_beginning_in_between_clears_the_losses_with_nothing_begun_before_it():
    book = book_of_run()
    for submission in range(1, 3 * UNEXPLAINED_LOSSES):
        book.submitted(1, submission)
        assert book.lost(1, submission, KILLED) is None, submission
        if submission % (UNEXPLAINED_LOSSES - 1) == 0:
            hear(book, 0, 1, BEGAN)


def test_the_attempts_of_another_run_on_the_same_scheduler_do_not_count():
    book = book_of_run()
    failures = []
    for submission in range(1, UNEXPLAINED_LOSSES + 1):
        book.submitted(1, submission)
        hear(book, 1, submission, BEGAN, token="another run")  # the same chunk and submission, another run
        failures.append(book.lost(1, submission, KILLED))
    assert failures[:-1] == [None] * (UNEXPLAINED_LOSSES - 1) and failures[-1] is not None
    assert book.own_losses[1] == 0 and book.free_losses == UNEXPLAINED_LOSSES


def test_losses_that_cost_nothing_still_end_the_run_once_they_outnumber_its_games():
    book = Resubmissions("run", SETTINGS, [0, 1])  # this session plays two chunks: 8 games
    for submission in range(1, 2 * FOUR_GAMES + 2):
        book.submitted(1, submission)
        hear(book, 0, 1, BEGAN)
        failure = book.lost(1, submission, KILLED)
        assert (failure is None) == (submission <= 2 * FOUR_GAMES)
    assert failure.startswith("chunk 1 was lost: the run's Dask workers died so often that 9 chunks were lost")


# --- the same through the client's loop, against a scripted cluster -------------------------------------------


class _Future:
    def __init__(self, client: "_Client", key: str, chunk: int, submission: int) -> None:
        self.client, self.key, self.chunk, self.submission = client, key, chunk, submission

    def ready(self) -> bool:
        return self.chunk == 1 or self.client.finished_chunk_1

    @property
    def killed(self) -> bool:
        return self.chunk == 1 and self.submission <= self.client.waiting_losses

    @property
    def status(self) -> str:
        return "error" if self.killed else "finished"

    def result(self, timeout=None):
        if self.killed:
            # Chunk 0's next attempt began on the worker holding chunk 1 and killed it: the fourth such death.
            self.client.announce(0, 1, BEGAN)
            raise distributed.KilledWorker(self.key, types.SimpleNamespace(address="tcp://127.0.0.1:1"), 3)
        self.client.announce(self.chunk, self.submission, BEGAN, ENDED)
        self.client.finished_chunk_1 |= self.chunk == 1
        return dask_backend.ChunkResult(ChunkReport(self.chunk, 0, True, (0,)), None, None)

    def release(self) -> None:
        pass


class _Client(FakeClient):
    """One worker thread; chunk 0 crashes its worker game after game (each attempt announces itself), and chunk 1,
    queued behind it, is lost ``waiting_losses`` times without ever beginning before it is played."""

    def __init__(self, token: str, waiting_losses: int) -> None:
        super().__init__()
        self.token, self.waiting_losses = token, waiting_losses
        self.finished_chunk_1 = False
        self.submitted: list[tuple[int, int]] = []

    def announce(self, chunk: int, submission: int, *what: str) -> None:
        for each in what if self.handler is not None else ():
            self.handler((0.0, [self.token, chunk, submission, each]))

    def submit(self, function, job, chunk, *submission, key, pure, retries):
        number = submission[0] if submission else int(key.rsplit("-", 1)[1]) if key.count("-") == 4 else 1
        self.submitted.append((chunk, number))
        if chunk == 0:
            self.announce(0, number, BEGAN)
        return _Future(self, key, chunk, number)


class _AsCompleted(FakeAsCompleted):
    @staticmethod
    def is_done(future) -> bool:
        return future.ready()


@pytest.mark.timeout(30)
def test_the_client_plays_again_a_chunk_lost_more_times_than_it_has_games_while_it_waited(tmp_path, monkeypatch):
    monkeypatch.setattr(distributed, "as_completed", _AsCompleted)
    settings = RunSettings(games=8, seed=1, specs=("greedy",), rules=Rules(), chunk_size=FOUR_GAMES)
    job = types.SimpleNamespace(settings=settings, token="run")
    client, reports = _Client(job.token, waiting_losses=FOUR_GAMES + 2), []
    error = dask_backend._drive(client, job, [0, 1], RunDirectory(tmp_path), reports.append, 60.0,
                                {"interrupted": False})
    assert error is None
    assert sorted(report.chunk for report in reports) == [0, 1]
    assert client.submitted.count((0, 1)) == 1 and [number for chunk, number in client.submitted if chunk == 1] == [
        *range(1, FOUR_GAMES + 4)]
    assert client.handler is None  # the run's subscription ended with it
    assert client.cleaned == ("run",)  # and the records of charged games on the workers with it


@pytest.mark.timeout(30)
def test_the_client_ends_the_run_when_workers_die_before_anything_plays(tmp_path, monkeypatch):
    monkeypatch.setattr(distributed, "as_completed", _AsCompleted)
    settings = RunSettings(games=8, seed=1, specs=("greedy",), rules=Rules(), chunk_size=FOUR_GAMES)
    job = types.SimpleNamespace(settings=settings, token="run")
    client = _Client(job.token, waiting_losses=10)
    client.announce = lambda chunk, submission, *what: None  # nothing ever begins
    with pytest.raises(dask_backend.ClusterError, match="chunk 1 was lost: its Dask workers kept dying while no"):
        dask_backend._drive(client, job, [0, 1], RunDirectory(tmp_path), lambda report: None, 60.0,
                            {"interrupted": False})
    assert client.submitted == [(0, 1), *((1, number) for number in range(1, UNEXPLAINED_LOSSES + 1))]
    assert client.handler is None


def _announce_and_say_whether_a_client_was_made() -> bool:
    from canasta_sim.runs.dask_resubmission import announce_attempt

    announce_attempt("announced", 7, 2, BEGAN)
    return distributed.get_worker()._client is not None


@pytest.mark.timeout(60)
def test_an_attempt_announces_itself_to_the_scheduler_without_making_a_client_on_its_worker(dask_cluster):
    # A client made on the worker for this outlived the worker's event loop when the process ended, and printed
    # "Exception ignored in: <function Client.__del__ ...> RuntimeError: IOLoop is closed" after failed runs.
    heard = []
    with distributed.Client(dask_cluster, set_as_default=False) as client:
        client.subscribe_topic(ATTEMPT_TOPIC, heard.append)
        made_a_client = client.submit(_announce_and_say_whether_a_client_was_made, pure=False).result(timeout=30)
        client.unsubscribe_topic(ATTEMPT_TOPIC)
    assert made_a_client is False
    assert [list(event[1]) for event in heard if event[1][0] == "announced"] == [["announced", 7, 2, BEGAN]]
