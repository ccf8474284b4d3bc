"""A strategy that learns between games, in what its class keeps, on a Dask cluster: played ``isolated:``, its bot
server claims the change and the run warns of it from the worker, in every run on a cluster that outlives runs; on
worker threads of the user's own process the warning is one line; and in a worker's threads the strategy is
imported once for every run there (docs/cluster.md, docs/protocol.md, docs/strategies.md)."""

from __future__ import annotations

import logging

import pytest
from distributed import LocalCluster

from canasta_sim.core.rules import Rules
from canasta_sim.runs.dask_backend import DaskChunkRunner
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.helpers import invoke
from tests.run_helpers import warnings_logged

QUICK = Rules(target_score=500)  # R15.1 with a low target keeps games short
KEPT = "changed what its class or module keeps from one game to the next (Learner.hands_seen) in a worker"

LEARNER = '''
from canasta_sim.strategies.greedy import Greedy


class Learner(Greedy):
    """Greedy until its class has seen a hand, then discarding the last legal discard: play learned between games."""

    name = "learner"
    hands_seen = 0

    def on_hand_start(self, view):
        type(self).hands_seen += 1

    def choose_discard(self, view):
        if type(self).hands_seen > 1:
            return list(view.legal_discards())[-1]
        return super().choose_discard(view)
'''


@pytest.fixture(scope="module")
def threads_cluster():
    """One worker thread in this process, as a notebook's ``LocalCluster(processes=False)``, left running between
    runs: its bot processes see this process's environment as it is when they start."""
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR) as cluster:
        yield cluster


@pytest.mark.timeout(120)
def test_an_isolated_learner_on_dask_is_warned_of_from_the_worker_that_played_it(dask_cluster, tmp_path):
    (tmp_path / "learner.py").write_text(LEARNER)
    spec = f"isolated:{tmp_path / 'learner.py'}:Learner"
    # One chunk of three games: one worker's bot process plays them in turn, and claims the change in game 1's answers
    settings = RunSettings(games=3, seed=3, specs=(spec, "random"), rules=QUICK, chunk_size=3)
    with warnings_logged() as records:
        outcome = DaskChunkRunner(dask_cluster.scheduler_address)(settings, RunDirectory(tmp_path / "dask"), [0],
                                                                   workers=2, on_error="stop")
    assert outcome == (False, None)
    warned = [record.getMessage() for record in records if KEPT in record.getMessage()]
    assert len(warned) == 1 and f"strategy {spec!r}" in warned[0], [record.getMessage() for record in records]


@pytest.mark.timeout(120)
def test_each_run_of_an_isolated_learner_on_a_cluster_that_outlives_runs_is_warned_of(threads_cluster, tmp_path,
                                                                                     monkeypatch):
    # A module on the path, not a file: a file is sent to the workers under a folder of its run, a module is loaded
    # by the same name run after run, and a worker kept what the first run's bot processes claimed, so that the
    # second run's claims looked old and went unwarned.
    (tmp_path / "learner_between_runs.py").write_text(LEARNER)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the bot processes of this process's worker thread find it
    spec = "isolated:learner_between_runs:Learner"
    settings = RunSettings(games=3, seed=3, specs=(spec, "random"), rules=QUICK, chunk_size=3)
    for run in ("first", "second"):
        with warnings_logged() as records:
            outcome = DaskChunkRunner(threads_cluster.scheduler_address)(settings, RunDirectory(tmp_path / run), [0],
                                                                         workers=1, on_error="stop")
        assert outcome == (False, None)
        assert any(KEPT in record.getMessage() for record in records), (run, [r.getMessage() for r in records])


@pytest.mark.timeout(120)
def test_a_learner_on_worker_threads_of_the_users_own_process_is_warned_of_in_one_line(threads_cluster, tmp_path):
    # A notebook's LocalCluster(processes=False): the worker's warning reached this process's handlers as it was
    # logged, and again with the chunk's records.
    (tmp_path / "learner.py").write_text(LEARNER)
    result = invoke("run", "--games", "2", "--seed", "3", "--rules", "target_score=500", "-s",
                    f"{tmp_path / 'learner.py'}:Learner", "-s", "random", "--out", tmp_path / "run",
                    "--scheduler", threads_cluster.scheduler_address)
    assert result.exit_code == 0, result.output
    assert [KEPT in line for line in result.output.splitlines()].count(True) == 1, result.output


HISTORY = "import os\n" + LEARNER + '''
    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        with open(os.environ["LEARNER_HISTORY"], "a") as history:
            history.write(f"{type(self).hands_seen}\\n")
'''
"""The learner, writing the count of hands its class had seen as each instance began."""


@pytest.mark.timeout(120)
def test_a_learner_in_worker_threads_begins_a_run_with_what_the_last_run_on_the_cluster_left(threads_cluster, tmp_path,
                                                                                           monkeypatch):
    """docs/cluster.md: a worker that outlives runs imports a strategy once for all of them, where a local run's
    workers import it afresh."""
    (tmp_path / "history.py").write_text(HISTORY)
    monkeypatch.setenv("LEARNER_HISTORY", str(tmp_path / "history.txt"))
    settings = RunSettings(games=2, seed=3, specs=(f"{tmp_path / 'history.py'}:Learner", "random"), rules=QUICK,
                           chunk_size=2)
    began: list[list[str]] = []  # the counts each run's instances began with
    for run in ("first", "second"):
        outcome = DaskChunkRunner(threads_cluster.scheduler_address)(settings, RunDirectory(tmp_path / run), [0],
                                                                     workers=1, on_error="stop")
        assert outcome == (False, None)
        began.append((tmp_path / "history.txt").read_text().split())
        (tmp_path / "history.txt").unlink()
    # Imported afresh, the same run's last game would begin with the same count again
    assert int(began[1][-1]) > int(began[0][-1]) > 0, began


HANGS = '''
import time

from canasta_sim.strategies.greedy import Greedy


class Memory:
    """What the learner learned, whose pickling outlasts any run."""

    def __reduce__(self):
        time.sleep(60)
        return (Memory, ())


class Learner(Greedy):
    name = "learner"
    memory = Memory()
'''


@pytest.mark.timeout(30)
def test_a_learner_whose_state_never_pickles_is_given_up_in_one_line_and_the_run_goes_on(threads_cluster, tmp_path,
                                                                                        monkeypatch):
    # The look at what it keeps, between games and outside any clock, waited for its __reduce__ for good
    from canasta_sim.plugins import kept_state

    monkeypatch.setattr(kept_state, "LOOK_LIMIT", 0.5)  # the worker's thread is in this process
    (tmp_path / "hangs.py").write_text(HANGS)
    result = invoke("run", "--games", "2", "--seed", "3", "--rules", "target_score=500", "-s",
                    f"{tmp_path / 'hangs.py'}:Learner", "-s", "random", "--out", tmp_path / "run",
                    "--scheduler", threads_cluster.scheduler_address)
    assert result.exit_code == 0 and "2 of 2 games" in result.output, result.output
    assert [line for line in result.output.splitlines() if "no longer watched" in line] == [
        f"WARNING: {kept_state.unread_warning(str(tmp_path / 'hangs.py') + ':Learner')}"], result.output
