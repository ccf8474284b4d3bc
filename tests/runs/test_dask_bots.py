"""Bots in processes of their own (``isolated:``, ``cmd:``) on a Dask cluster that outlives the run, as one started
with ``dask scheduler`` and ``dask worker`` does: an ``isolated:`` file strategy reaches workers that cannot see the
file, a worker of two threads plays the local games, and a run's bot processes end with the run, so that a later
run never plays with them (docs/cluster.md)."""

import contextlib
import logging
import sys
from pathlib import Path

import dask
import psutil
import pytest
from distributed import Client, LocalCluster

from canasta_sim.core.rules import Rules
from canasta_sim.errors import SeatFailure, StrategyLoadError
from canasta_sim.runs.dask_backend import ClusterError, DaskChunkRunner, prepare_job
from canasta_sim.runs.dask_strategies import end_run_here, load_on_worker, strategy_folder
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.helpers import BOTS, ROOT, assert_same_run_tables, invoke, read_run_tables
from tests.plugins.test_endings import _ends_soon

QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short

MINE = '''
from canasta_sim.strategies.greedy import Greedy


class Mine(Greedy):
    """Greedy under another name, in a file only the client can see."""

    name = "mine"
'''


@pytest.fixture(scope="module")
def cluster():
    """One worker process of two threads, which play two chunks at once, left running between runs."""
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}, silence_logs=logging.ERROR) as local_cluster:
        yield local_cluster


def bot_processes() -> list[str]:
    """The processes this process started that still run (on a worker: its bots), as ``PID COMMAND LINE``."""
    running = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):  # one that ended meanwhile
            if child.status() != psutil.STATUS_ZOMBIE:
                running.append(f"{child.pid} {' '.join(child.cmdline())}")
    return running


def bots_on_workers(cluster) -> list[str]:
    with Client(cluster, set_as_default=False) as client:
        return [line for lines in client.run(bot_processes).values() for line in lines]


def play_both(settings: RunSettings, tmp_path: Path, cluster):
    """Play the run locally and on the cluster; return both directories and the Dask runner's outcome."""
    chunks = list(range(settings.chunk_count))
    assert run_chunks(settings, RunDirectory(tmp_path / "local"), chunks, workers=1) == (False, None)
    outcome = DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "dask"), chunks,
                                                         workers=1)
    return tmp_path / "local", tmp_path / "dask", outcome


def strategy_folders() -> list[str]:
    """The folders of strategy files sent to this machine (on a worker: those its runs left)."""
    folder = strategy_folder()
    return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []


@pytest.mark.timeout(180)
def test_an_isolated_file_strategy_reaches_workers_that_cannot_see_it(cluster, tmp_path, monkeypatch):
    (tmp_path / "only_here").mkdir()
    # A file of this test's own (its folder in a comment): other runs on the machine send other files.
    (tmp_path / "only_here" / "mine.py").write_text(f"# {tmp_path}\n{MINE}")
    monkeypatch.chdir(tmp_path)  # the spec is relative to the client's folder; the worker's is another
    spec = "isolated:only_here/mine.py:Mine"
    settings = RunSettings(games=8, seed=3, specs=(spec, "random"), rules=QUICK, chunk_size=4)
    local, remote, outcome = play_both(settings, tmp_path, cluster)
    assert outcome == (False, None)
    assert_same_run_tables(local, remote)
    assert set(read_run_tables(remote)[0].team_a_strategy) == {spec, "random"}
    # The worker outlives the run; the file it was sent went with the run.
    (digest,) = {file.digest for file in prepare_job(settings, "stop").files}
    with Client(cluster, set_as_default=False) as client:
        left = [name for names in client.run(strategy_folders).values() for name in names if name.endswith(digest)]
    assert not left


@pytest.mark.timeout(180)
def test_bots_on_a_worker_of_two_threads_play_the_local_games(cluster, tmp_path):
    # Each of the worker's two threads plays a chunk at once, a game at a time; sharing a seat's process, each
    # game took it from the other's ("the process of seat 0 was taken by another game"), charged to the bot.
    settings = RunSettings(games=16, seed=5, specs=("isolated:greedy", "random"), rules=QUICK, chunk_size=4)
    local, remote, outcome = play_both(settings, tmp_path, cluster)
    assert outcome == (False, None)
    games = read_run_tables(remote)[0]
    assert len(games) == 16 and set(games.termination) != {"forfeit"}
    assert_same_run_tables(local, remote)


@pytest.mark.timeout(180)
def test_a_runs_bot_processes_end_with_it_and_a_later_run_starts_its_own(cluster, tmp_path):
    # A bot's program changed between two runs (a new version): the second run plays the new one, where the
    # first run's processes, still running on the worker, used to answer it ("loads ... as pybot@3, the client
    # as pybot@4").
    bot = tmp_path / "bot.py"
    source = (ROOT / "examples" / "protocol" / "bot.py").read_text()
    bot.write_text(source)
    spec = f"cmd:{sys.executable} {bot}"
    for version in (3, 4):
        bot.write_text(source.replace("VERSION = 3", f"VERSION = {version}"))
        # One chunk: played by one thread of the worker.
        settings = RunSettings(games=4, seed=version, specs=(spec, "greedy"), rules=QUICK, chunk_size=4)
        outcome = DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / f"run{version}"),
                                                             [0], workers=1)
        assert outcome == (False, None)
        assert len(read_run_tables(tmp_path / f"run{version}")[0]) == 4
        assert not [line for line in bots_on_workers(cluster) if str(bot) in line]


@pytest.mark.timeout(120)
def test_a_cmd_bot_whose_program_the_workers_lack_is_one_line_saying_it_runs_there(cluster, tmp_path, monkeypatch):
    # The advice was only to install canasta-sim and strategy modules on the workers, "strategy files are sent":
    # a cmd: bot's program is not sent, and a relative path is read from each worker's working directory.
    (tmp_path / "only_here").mkdir()
    (tmp_path / "only_here" / "bot.py").write_text((ROOT / "examples" / "protocol" / "bot.py").read_text())
    monkeypatch.chdir(tmp_path)  # the workers were started in another folder
    spec = f"cmd:{sys.executable} only_here/bot.py"
    settings = RunSettings(games=2, seed=1, specs=(spec, "greedy"), rules=QUICK, chunk_size=2)
    with pytest.raises(ClusterError) as caught:
        DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "run"), [0], workers=1)
    message = str(caught.value)
    assert "\n" not in message and "cannot load the strategies" in message and spec in message
    assert "a cmd: bot's command runs on the workers" in message and "working directory" in message


@pytest.mark.timeout(60)
def test_an_attempt_still_playing_when_its_run_ended_starts_no_bot_process():
    # Dask cannot stop a running task: an attempt of a run stopped by Ctrl-C plays on, and one that loaded its
    # bots just as the run ended found them gone; either started processes that nothing ended while the worker
    # lived (seen: eight `node` processes on a long-lived worker after Ctrl-C).
    spec = "isolated:greedy"
    before = set(bot_processes())  # this process's own: a cluster's workers, other tests' bots
    loaded = load_on_worker(spec, None, "ended run")
    assert set(bot_processes()) > before
    end_run_here("ended run")
    assert set(bot_processes()) == before
    with pytest.raises(SeatFailure, match="were ended with its run"):
        loaded.cls.pool.acquire(0, None)  # the next game of the attempt still playing
    with pytest.raises(StrategyLoadError, match="its run ended on this worker"):
        load_on_worker(spec, None, "ended run")  # an attempt that loads its strategies only now
    assert set(bot_processes()) == before


@pytest.mark.timeout(60)
def test_preparing_a_run_leaves_no_bot_process_idling_in_the_client():
    # The client starts each bot once to read its name and version; that process idled beside the run to its end.
    before = set(bot_processes())
    settings = RunSettings(games=2, seed=1, specs=("isolated:greedy", "random"), rules=QUICK, chunk_size=2)
    assert dict(prepare_job(settings, "stop").labels)["isolated:greedy"].startswith("greedy@")
    assert set(bot_processes()) == before


@pytest.mark.timeout(180)
def test_the_daemon_of_a_bot_whose_dask_worker_died_ends_with_the_run(tmp_path, monkeypatch):
    # Locally the supervisor ends what a dead worker's bots started; on Dask nobody did: the bots died with their
    # worker, and their daemons (double fork, setsid) ran on after the run on the worker's machine.
    log = tmp_path / "spawned"
    monkeypatch.setenv("SPAWNED_LOG", str(log))  # the cluster's workers, started by the run, inherit it
    daemon = f"cmd:{sys.executable} {BOTS / 'spawns_processes.py'} daemon"
    ends = f"{BOTS / 'ends_its_process.py'}:EndsQuietly"  # ends its worker at its discard of turn 4
    with dask.config.set({"distributed.deploy.lost-worker-timeout": 0}):  # as in test_dask_backend.py
        result = invoke("run", "--games", "1", "--seed", "1", "--rules", "target_score=1000", "-s", daemon, "-s",
                        ends, "--on-error", "forfeit", "--backend", "dask", "--workers", "1", "--task-timeout", "40",
                        "-q", "--out", str(tmp_path / "run"))
    assert result.exit_code == 0, result.output
    assert set(read_run_tables(tmp_path / "run")[0].termination) == {"forfeit"}
    spawned = [int(line) for line in log.read_text().split()]
    assert len(spawned) == 2, spawned  # one daemon for each process of the bot that asked
    assert all(_ends_soon(pid) for pid in spawned), spawned
