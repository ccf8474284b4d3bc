"""The Dask backend: the same tables as the local runner, file strategies the workers cannot see,
a worker dying mid-run, and one-line errors for strategies the workers cannot load and chunks that hang."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import dask
import pandas as pd
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

import canasta_sim.runs.dask_backend
import canasta_sim.runs.dask_cluster
from canasta_sim.cli import main
from canasta_sim.core.rules import Rules
from canasta_sim.runs.dask_backend import (
    DASK_DEATH,
    ClusterError,
    DaskChunkRunner,
    normalize_scheduler_address,
    prepare_job,
)
from canasta_sim.runs.dask_cluster import LocalWorkers
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.helpers import (
    BOTS,
    FLAKY_BOT_SOURCE,
    assert_same_run_tables,
    invoke,
    parts_stamps,
    read_run_tables,
    run_stamp,
)
from tests.run_helpers import warnings_logged

QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short

ON_A_WORKER = '''
def on_a_dask_worker():
    """Whether this code runs in a Dask worker's task (not in the client, nor in a local worker process)."""
    try:
        from distributed import get_worker
        get_worker()
    except ValueError:
        return False
    return True
'''

MINE = '''
from canasta_sim.strategies.greedy import Greedy


class Mine(Greedy):
    """Greedy under another name, loaded from a file only the client can see."""

    name = "mine"
'''

FLAKY = FLAKY_BOT_SOURCE

KILLER = ON_A_WORKER + '''
import os
import signal

from canasta_sim.strategies.greedy import Greedy

MARKER = {marker!r}

if on_a_dask_worker():
    try:
        os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL))  # only the first worker to load this file dies
    except FileExistsError:
        pass
    else:
        os.kill(os.getpid(), signal.SIGKILL)


class Killer(Greedy):
    """Greedy, whose file, loaded on a Dask worker, kills that worker once: outside any game, so nobody's failure
    (a death during a game is charged to the call that was running, as locally)."""

    name = "killer"
'''

WORKER_ONLY_IMPORT_FAILURE = ON_A_WORKER + '''
from canasta_sim.strategies.greedy import Greedy

if on_a_dask_worker():
    raise ImportError("No module named 'gpu_only_library'")


class Picky(Greedy):
    name = "picky"
'''

HANG = ON_A_WORKER + '''
import threading

from canasta_sim.strategies.greedy import Greedy


class Hang(Greedy):
    """Greedy that, on a Dask worker, never comes back from its first hand."""

    name = "hang"

    def on_hand_start(self, view):
        if on_a_dask_worker():
            threading.Event().wait()
'''


@pytest.fixture
def cluster(dask_cluster):
    """Two worker processes of one thread each, as ``--backend dask --workers 2`` starts: the tests' shared cluster."""
    return dask_cluster


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


read_tables = read_run_tables
assert_same_tables = assert_same_run_tables


def play_both(settings: RunSettings, tmp_path: Path, cluster, on_error="stop"):
    """Play the run locally (one process) and on the cluster; return both directories and the Dask reports."""
    chunks = list(range(settings.chunk_count))
    local = RunDirectory(tmp_path / "local")
    assert run_chunks(settings, local, chunks, workers=1, on_error=on_error) == (False, None)
    remote = RunDirectory(tmp_path / "dask")
    reports = []
    runner = DaskChunkRunner(cluster.scheduler_address)
    outcome = runner(settings, remote, chunks, workers=2, on_error=on_error, on_chunk=reports.append)
    return local, remote, outcome, reports


def test_dask_tables_equal_the_local_tables(cluster, tmp_path):
    settings = RunSettings(games=40, seed=7, specs=("greedy", "random"), rules=QUICK, chunk_size=5)
    local, remote, outcome, reports = play_both(settings, tmp_path, cluster)
    assert outcome == (False, None)
    assert_same_tables(local.path, remote.path)
    assert sorted(report.chunk for report in reports) == list(range(8))  # each chunk once, none lost or doubled
    assert sum(report.games for report in reports) == 40 and all(report.complete for report in reports)
    assert sorted(remote.chunk_game_counts()) == list(range(8))
    assert not [p for p in (remote.path / "games").iterdir() if p.name.startswith(".")]  # no temporaries left


def test_forfeits_and_worker_log_records_come_back_like_local_ones(cluster, tmp_path):
    spec = f"{write(tmp_path / 'bots', 'flaky.py', FLAKY)}:Flaky"
    settings = RunSettings(games=30, seed=11, specs=(spec, "random"), rules=QUICK, chunk_size=5)
    with warnings_logged() as records:
        local, remote, outcome, _ = play_both(settings, tmp_path, cluster, on_error="forfeit")
    assert outcome == (False, None)
    assert_same_tables(local.path, remote.path)  # the error column names the spec as given, on both backends
    games = read_tables(remote.path)[0]
    forfeited = sorted(games.game_id[games.termination == "forfeit"])
    assert forfeited, "the fixture seed should make the flaky strategy fail at least once"
    from_workers = [record for record in records if record.processName.startswith("Dask worker tcp://")]
    assert sorted(int(record.getMessage().split()[1].rstrip(":")) for record in from_workers) == forfeited


LEARNER = '''
from canasta_sim.strategies.greedy import Greedy


class Learner(Greedy):
    """Greedy that counts, in its class, the games it was built for: state a worker carries into its next game."""

    name = "learner"
    games_seen = 0

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        type(self).games_seen += 1
'''


@pytest.mark.timeout(120)
def test_a_strategy_keeping_state_between_games_is_warned_of_from_dask_workers_as_from_local_ones(cluster, tmp_path):
    """A local worker warns of a class attribute or module global a game changed; a Dask worker, which plays many
    of a run's chunks from one import of the strategy, said nothing."""
    spec = f"{write(tmp_path / 'bots', 'learner.py', LEARNER)}:Learner"
    settings = RunSettings(games=4, seed=3, specs=(spec, "greedy"), rules=QUICK, chunk_size=2)
    with warnings_logged() as records:
        outcome = DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "dask"), [0, 1],
                                                              workers=2, on_error="stop")
    assert outcome == (False, None)
    warned = [record.getMessage() for record in records if record.processName.startswith("Dask worker tcp://")]
    assert warned and all(f"strategy {spec!r} changed what its class or module keeps from one game to the next "
                          "(Learner.games_seen) in a worker" in line for line in warned), warned


def test_a_file_strategy_reaches_workers_that_cannot_see_it(cluster, tmp_path, monkeypatch):
    write(tmp_path / "only_here", "mine.py", MINE)
    monkeypatch.chdir(tmp_path)  # the spec is relative to the client's folder, not to the workers'
    spec = "only_here/mine.py:Mine"
    with Client(cluster, set_as_default=False) as client:
        seen = client.run(os.path.exists, "only_here/mine.py")
    assert list(seen.values()) == [False, False]
    settings = RunSettings(games=20, seed=3, specs=(spec, "random"), rules=QUICK, chunk_size=5)
    assert [shipped.source for shipped in prepare_job(settings, "stop").files] == [MINE.encode()]
    local, remote, outcome, _ = play_both(settings, tmp_path, cluster)
    assert outcome == (False, None)
    assert_same_tables(local.path, remote.path)
    assert set(read_tables(remote.path)[0].team_a_strategy) == {spec, "random"}


def test_a_worker_dying_mid_run_costs_only_time(cluster, tmp_path):
    marker = tmp_path / "killed"
    spec = f"{write(tmp_path / 'bots', 'killer.py', KILLER.format(marker=str(marker)))}:Killer"
    settings = RunSettings(games=40, seed=5, specs=(spec, "random"), rules=QUICK, chunk_size=4)
    local, remote, outcome, reports = play_both(settings, tmp_path, cluster)
    assert marker.exists(), "a worker should have killed itself during the run"
    assert outcome == (False, None)
    assert sorted(report.chunk for report in reports) == list(range(10))
    assert_same_tables(local.path, remote.path)


def test_a_strategy_the_workers_cannot_import_ends_the_run_with_one_line(cluster, tmp_path):
    spec = f"{write(tmp_path / 'bots', 'picky.py', WORKER_ONLY_IMPORT_FAILURE)}:Picky"
    settings = RunSettings(games=20, seed=1, specs=(spec, "random"), rules=QUICK, chunk_size=5)
    with pytest.raises(ClusterError) as caught:
        DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "run"), [0, 1, 2, 3], workers=2)
    message = str(caught.value)
    assert "\n" not in message and "cannot load the strategies" in message
    assert spec in message and "gpu_only_library" in message
    assert "on Dask worker tcp://" in message  # which machine lacks it
    assert not list((tmp_path / "run" / "games").iterdir())


def test_the_closing_line_names_the_worker_threads_that_played(cluster, tmp_path):
    # It said the threads the cluster had when the run began ("2 worker threads at ..."), whichever played.
    settings = RunSettings(games=4, seed=1, specs=("greedy",), rules=QUICK, chunk_size=4)
    runner = DaskChunkRunner(cluster.scheduler_address)
    assert runner(settings, RunDirectory(tmp_path / "run"), [0], workers=1) == (False, None)
    assert runner.description == f"chunks played by 1 worker thread of 1 worker at {cluster.scheduler_address}"


def hide_shipped_file_class(hide: bool) -> None:
    """On a worker: act as a canasta-sim without the class of the shipped files (an older one), or have it again."""
    import canasta_sim.runs.dask_strategies as strategies

    if hide:
        strategies.hidden_class = strategies.__dict__.pop("ShippedFile")
    else:
        strategies.ShippedFile = strategies.__dict__.pop("hidden_class")


def test_a_worker_lacking_a_class_of_the_job_fails_its_task_and_lives(cluster, tmp_path):
    # Dask unpickled the job with the task's message: a worker of an older canasta-sim failed to, lost its connection
    # to the scheduler and stopped, and the run went on without it.  It refuses the chunk now, as for a version.
    spec = f"{write(tmp_path / 'bots', 'mine.py', MINE)}:Mine"
    settings = RunSettings(games=4, seed=1, specs=(spec, "random"), rules=QUICK, chunk_size=4)
    with Client(cluster, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)  # one an earlier test killed is back: each has the class hidden
        workers = set(client.nthreads())
        client.run(hide_shipped_file_class, True)
        try:
            with pytest.raises(ClusterError, match=r"^chunk 0 failed on a Dask worker: AttributeError: .*ShippedFile"):
                DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "run"), [0], workers=1)
            assert set(client.nthreads()) == workers  # none stopped, none restarted
        finally:
            client.run(hide_shipped_file_class, False, on_error="ignore")  # a worker restarted has it again


def test_a_task_failing_otherwise_on_a_worker_ends_the_run_with_one_line(cluster, tmp_path, monkeypatch):
    # A worker installed with another canasta-sim than the client's fails before it can compare versions: here the
    # file of a client that sent it as text.  The run ended with the worker's traceback.
    spec = f"{write(tmp_path / 'bots', 'mine.py', MINE)}:Mine"
    settings = RunSettings(games=4, seed=1, specs=(spec, "random"), rules=QUICK, chunk_size=4)
    job = prepare_job(settings, "stop")
    other_client = dataclasses.replace(job, files=(dataclasses.replace(job.files[0], source=MINE),))
    monkeypatch.setattr(canasta_sim.runs.dask_backend, "prepare_job", lambda *args, **options: other_client)
    with pytest.raises(ClusterError) as caught:
        DaskChunkRunner(cluster.scheduler_address)(settings, RunDirectory(tmp_path / "run"), [0], workers=1)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("chunk 0 failed on a Dask worker: TypeError: ")
    assert "install the same one on the client and every worker" in message


def test_a_hanging_chunk_ends_the_run_with_a_timeout_error(tmp_path):
    spec = f"{write(tmp_path / 'bots', 'hang.py', HANG)}:Hang"
    settings = RunSettings(games=4, seed=1, specs=(spec, "random"), rules=QUICK, chunk_size=2)
    runner = DaskChunkRunner(task_timeout=0.5)  # no address: the runner starts and closes its own local cluster
    with pytest.raises(ClusterError, match=r"chunk 0 \(games 0-1\) did not come back within 0.5 s"):
        runner(settings, RunDirectory(tmp_path / "run"), [0, 1], workers=1)
    assert runner.description == "1 worker on a local Dask cluster"


def test_a_scheduler_without_workers_ends_the_run_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(canasta_sim.runs.dask_cluster, "WORKER_WAIT_SECONDS", 0.5)
    settings = RunSettings(games=4, seed=1, specs=("greedy",), rules=QUICK, chunk_size=2)
    with LocalCluster(n_workers=0, dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"}) as empty:
        with pytest.raises(ClusterError, match=r"has no workers \(waited 0.5 s\); start some with: dask worker"):
            DaskChunkRunner(empty.scheduler_address)(settings, RunDirectory(tmp_path / "run"), [0, 1], workers=1)
    assert not list((tmp_path / "run" / "games").iterdir())


def test_scheduler_addresses_are_checked():
    assert normalize_scheduler_address("127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert normalize_scheduler_address(" tcp://[::1]:8786 ") == "tcp://[::1]:8786"
    # A mistyped scheme or port was tried for Dask's connect timeout (30 s), then the run stopped, leaving run.json.
    # An IPv6 host without its brackets, or a colon too many, ended the run with a traceback of Dask's.
    for bad in ("http://host:8786", "tcp://host", "tcp://:8786", "host:port", "tcp//host:8786", "host:88610",
                "tcp://host:0", "tcp://host:8786/", "::1:8786", "tcp://host:8786:1", "tcp://host:\u0663", "inproc://"):
        with pytest.raises(ValueError, match="SCHEME://HOST:PORT"):
            normalize_scheduler_address(bad)


# --- the command line ----------------------------------------------------------------------------------

CLI_RUN = ["--games", "30", "--seed", "9", "-s", "greedy", "-s", "random", "--chunk-size", "5",
           "--rules", "target_score=1000"]


def test_cli_dask_run_and_resume_give_the_local_tables(cluster, tmp_path):
    assert invoke("run", *CLI_RUN, "--workers", "1", "--out", str(tmp_path / "local"), "-q").exit_code == 0
    out = tmp_path / "dask"
    result = invoke("run", *CLI_RUN, "--backend", "dask", "--workers", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "30 of 30 games" in result.stdout and "2 workers on a local Dask cluster" in result.stdout
    assert_same_tables(tmp_path / "local", out)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "complete" and manifest["sessions"][0]["backend"] == "dask"
    assert "--backend" not in manifest["command"]  # the backend does not change the tables
    # Lose three chunks, as a crash would, and let the Dask backend play only those again.
    for chunk in (1, 3, 4):
        (out / "games" / f"part-{chunk:06d}.parquet").unlink()
    result = invoke("run", "--resume", str(out), "--scheduler", cluster.scheduler_address)  # on a running cluster
    assert result.exit_code == 0, result.output
    assert "30 of 30 games" in result.stdout and "15 played now" in result.stdout
    assert_same_tables(tmp_path / "local", out)
    # Each part, of either session, names its run's seed and rules as a local run's parts do.
    assert all(stamp == run_stamp(out) for stamp in parts_stamps(out))


def test_a_run_resumed_on_dask_plays_and_records_no_kept_games_at_once(cluster, tmp_path, monkeypatch):
    # docs/cluster.md: the cap is handed to local workers only, so the Dask session records none, and a later local
    # resume does not take it from a session that did not play under it.  With the cap in the environment
    # (CANASTA_SIM_GAMES_AT_ONCE, as --games-at-once leaves it in the command's process), the Dask session's command
    # said --games-at-once 2, which its workers on another machine never read.
    out = tmp_path / "run"
    assert invoke("run", *CLI_RUN, "--games", "10", "--workers", "1", "--games-at-once", "2", "--out", str(out),
                  "-q").exit_code == 0
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["games_at_once"] == 2 and "--games-at-once 2" in manifest["command"]
    monkeypatch.setenv("CANASTA_SIM_GAMES_AT_ONCE", "2")
    result = invoke("run", "--resume", str(out), "--games", "20", "--scheduler", cluster.scheduler_address, "-q")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    assert "games_at_once" not in manifest["sessions"][-1] and "--games-at-once" not in manifest["command"]


BAD_OPTIONS = {
    "malformed scheduler": (["--scheduler", "http://host:1"], "SCHEME://HOST:PORT"),
    "scheduler without its scheme's colon": (["--scheduler", "tcp//127.0.0.1:8786"], "SCHEME://HOST:PORT"),
    "scheduler with local backend": (["--backend", "local", "--scheduler", "tcp://h:1"], "needs --backend dask"),
    "workers with a scheduler": (["--scheduler", "tcp://h:1", "--workers", "2"], "--workers does not apply"),
    "timeout with local backend": (["--task-timeout", "5"], "--backend dask only"),
    "non-positive timeout": (["--backend", "dask", "--task-timeout", "0"], "--task-timeout"),
    "unknown backend": (["--backend", "spark"], "--backend"),
}


@pytest.mark.parametrize("arguments, message", BAD_OPTIONS.values(), ids=BAD_OPTIONS.keys())
def test_cli_bad_backend_options_are_one_line_exit_2(arguments, message, tmp_path):
    result = CliRunner().invoke(main, ["run", *CLI_RUN, "--out", str(tmp_path / "run"), *arguments])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.output
    assert not (tmp_path / "run").exists()


def test_cli_a_strategy_file_that_cannot_be_sent_is_one_line_exit_2_before_anything_is_written(tmp_path,
                                                                                                 monkeypatch):
    # Read only once the run had begun, it left run.json (status failed) behind, with no game played.
    bot = write(tmp_path / "bots", "mine.py", MINE)
    read_text, read_bytes = Path.read_text, Path.read_bytes

    def unreadable(reader):
        def read(path, *args, **options):
            if path == bot:
                raise PermissionError(13, "Permission denied", str(path))
            return reader(path, *args, **options)
        return read

    # Python imports the file (it opens it itself); reading it to send it then fails.
    monkeypatch.setattr(Path, "read_text", unreadable(read_text))
    monkeypatch.setattr(Path, "read_bytes", unreadable(read_bytes))
    result = CliRunner().invoke(main, ["run", *CLI_RUN[:4], "-s", f"{bot}:Mine", "-s", "random", "--backend", "dask",
                                       "--workers", "1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: strategy file ") and "cannot be read" in lines[0]
    assert "Permission denied" in lines[0] and not (tmp_path / "run").exists()


def test_a_local_cluster_starts_a_worker_again_for_each_dask_gave_up_on():
    from distributed.core import Status

    class Cluster:
        """What the run's keeper reads of a LocalCluster: its spec, its nannies, its loop and scale."""

        def __init__(self) -> None:
            self.worker_spec = {0: {}, 1: {}, 2: {}}
            self.workers = {name: SimpleNamespace(status=Status.running) for name in self.worker_spec}
            self.loop = SimpleNamespace(add_callback=lambda function, *args: function(*args))
            self.scaled: list[tuple[int, set]] = []

        def scale(self, workers: int) -> None:
            self.scaled.append((workers, set(self.workers)))
            self.workers.update({name: SimpleNamespace(status=Status.running) for name in self.worker_spec})

    cluster = Cluster()
    keeper = LocalWorkers(cluster, 3)
    keeper.check()
    assert cluster.scaled == [] and keeper.started == 0  # all alive, restarting or not: nothing to do
    cluster.workers[0].status = Status.closed  # the nanny gave up restarting its worker
    del cluster.workers[2]  # the cluster gave up a worker whose restart took longer than its lost-worker timeout
    keeper.check()
    assert cluster.scaled == [(3, {1})] and keeper.started == 2  # started again, under their own names


@pytest.mark.timeout(180)
def test_a_strategy_that_kills_its_dask_worker_is_charged_to_its_seat_as_locally_whether_dask_restarts_it_or_not(
        tmp_path):
    killer = f"{BOTS / 'bad_strategies.py'}:ExitsItsProcess"
    # Games 0 and 3 kill their worker, one in each chunk.
    arguments = ["--games", "4", "--seed", "10", "--chunk-size", "2", "--rules", "target_score=1500", "-s", killer,
                 "-s", "greedy", "--on-error", "forfeit", "-q"]
    assert invoke("run", *arguments, "--workers", "2", "--out", str(tmp_path / "local")).exit_code == 0
    # The cluster's one worker dies twice.  Under load a restarted worker may come up after the cluster's
    # lost-worker timeout, and the cluster gives it up for good: with a timeout of 0 it gives up every dead worker.
    # With no worker left, the run used to wait out its task timeout; it starts another.
    with dask.config.set({"distributed.deploy.lost-worker-timeout": 0}):
        result = invoke("run", *arguments, "--backend", "dask", "--workers", "1", "--task-timeout", "40", "--out",
                        str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    local, remote = read_tables(tmp_path / "local"), read_tables(tmp_path / "dask")
    forfeits = remote[0][remote[0].termination == "forfeit"]
    assert sorted(forfeits.game_id) == [0, 3] and set(forfeits.forfeit_reason) == {"crash"}
    assert forfeits.error.str.contains(DASK_DEATH).all()
    # The same games, the same seats charged; only the words of the crash differ (the exit code is the nanny's).
    pd.testing.assert_frame_equal(remote[0].drop(columns="error"), local[0].drop(columns="error"))
    pd.testing.assert_frame_equal(remote[1], local[1])


@pytest.mark.timeout(240)
def test_a_strategy_that_kills_its_dask_worker_in_every_game_costs_it_each_game_and_never_the_run(tmp_path):
    # Every game kills a worker, and Dask blames each death on the chunks queued behind the crashing one too:
    # those were lost more often than they have games, and finished chunks whose rows died with their worker
    # were played again from their first game, dying in the games already charged ("chunk N was lost").
    # Three chunks of two games: chunks queued behind crashing ones as with chunks of four, half the deaths to wait for.
    killer = f"{BOTS / 'late_failures.py'}:ExitsItsProcess"
    arguments = ["run", "--games", "6", "--seed", "7", "--chunk-size", "2", "--rules", "target_score=1000",
                 "-s", killer, "-s", "greedy", "--on-error", "forfeit", "--workers", "2", "-q"]
    environment = {**os.environ, "LATE_FAILURES_CLEAN": "0"}  # each player fails at its first decision
    for backend in ("local", "dask"):  # in processes of their own, which import the strategy file afresh
        result = subprocess.run([sys.executable, "-m", "canasta_sim", *arguments, "--backend", backend, "--out",
                                 str(tmp_path / backend)], env=environment, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "6 of 6 games" in result.stdout
    local, remote = read_tables(tmp_path / "local"), read_tables(tmp_path / "dask")
    games = remote[0]
    assert len(games) == 6 and set(games.termination) == {"forfeit"} and set(games.forfeit_reason) == {"crash"}
    assert games.error.str.contains(DASK_DEATH).all()
    pd.testing.assert_frame_equal(games.drop(columns="error"), local[0].drop(columns="error"))  # the same seats


@pytest.mark.timeout(180)
def test_an_isolated_strategy_plays_on_dask_the_games_it_plays_locally(cluster, tmp_path):
    arguments = ["--games", "6", "--seed", "4", "--chunk-size", "3", "--rules", "target_score=1000",
                 "-s", "isolated:greedy", "-s", "random", "-q"]
    assert invoke("run", *arguments, "--workers", "2", "--out", str(tmp_path / "local")).exit_code == 0
    result = invoke("run", *arguments, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    assert "6 of 6 games" in result.stdout
    assert_same_tables(tmp_path / "local", tmp_path / "dask")
