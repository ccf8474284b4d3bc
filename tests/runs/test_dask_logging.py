"""Dask's own log records during a run (sim/runs/dask_logging.py): whole in the run's log file, on the terminal only
under -v and one line each, never under -q; the run says in its own line what a worker's death cost it."""

import logging
import os
import subprocess
import sys

import pytest

from canasta_sim.runs.dask_logging import DASK_LOGGERS, dask_records_to
from tests.helpers import BOTS


class Collect(logging.Handler):
    """A terminal's handler at the level -q (ERROR), no flag (WARNING) or -v (DEBUG) sets, keeping its lines."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_dask_records_go_whole_to_the_log_file_and_as_one_line_to_a_verbose_terminal_only(tmp_path):
    quiet, default, verbose = Collect(logging.ERROR), Collect(logging.WARNING), Collect(logging.DEBUG)
    log_file = logging.FileHandler(tmp_path / "run.log", encoding="utf-8")
    log_file.setLevel(logging.DEBUG)
    log_file.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    before = {name: (logging.getLogger(name).handlers[:], logging.getLogger(name).propagate) for name in DASK_LOGGERS}
    with dask_records_to([quiet, default, verbose, log_file]) as router:
        try:
            raise ConnectionError("Stream is closed")
        except ConnectionError:
            logging.getLogger("distributed.worker").error("Failed to communicate with scheduler during heartbeat.",
                                                          exc_info=True)
        logging.getLogger("distributed.scheduler").error("Task %s marked as failed because %d workers died",
                                                         "canasta-chunk-1", 4)
        logging.getLogger("distributed.scheduler").info("Receive client connection")  # routine: nowhere
        # A record a worker of the run's own local cluster sent.
        router.heard((0.0, {"name": "distributed.worker.memory", "levelno": logging.WARNING, "levelname": "WARNING",
                            "msg": "Unmanaged memory use is high\nworker: tcp://127.0.0.1:1", "exc_text": None,
                            "processName": "Dask worker tcp://127.0.0.1:1"}))
    log_file.close()
    assert quiet.lines == [] and default.lines == []
    assert verbose.lines == [
        "ERROR: distributed.worker: Failed to communicate with scheduler during heartbeat.",
        "ERROR: distributed.scheduler: Task canasta-chunk-1 marked as failed because 4 workers died",
        "WARNING: distributed.worker.memory: Unmanaged memory use is high",
    ]
    text = (tmp_path / "run.log").read_text()
    assert "Traceback" in text and "ConnectionError: Stream is closed" in text
    assert "distributed.worker.memory WARNING Unmanaged memory use is high\nworker: tcp://127.0.0.1:1" in text
    assert "Receive client connection" not in text
    assert {name: (logging.getLogger(name).handlers, logging.getLogger(name).propagate)
            for name in DASK_LOGGERS} == before  # as they were


# Under -q a run's terminal stays empty even when its Dask workers log errors: the local cluster's test below.
@pytest.mark.timeout(240)
@pytest.mark.parametrize("flag", ["", "-v"])
def test_a_run_whose_dask_workers_die_shows_dask_s_messages_only_under_verbose(flag, tmp_path):
    killer = f"{BOTS / 'bad_strategies.py'}:ExitsItsProcess"
    log = tmp_path / "run.log"
    # Games 0 and 3 kill their worker, one in each chunk: two deaths, played at once on the two workers.
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "4", "--seed", "10", "--chunk-size", "2",
               "--rules", "target_score=1500", "-s", killer, "-s", "greedy", "--on-error", "forfeit", "--workers",
               "2", "--backend", "dask", "--out", str(tmp_path / "run"), "--log-file", str(log), *filter(None, [flag])]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    assert "4 of 4 games" in result.stdout
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr
    forfeits = [line for line in lines if line.startswith("WARNING: game ") and "its Dask worker process died" in line]
    dask_lines = [line for line in lines if ": distributed." in line]
    assert len(forfeits) >= 2
    own = [line for line in lines if line.startswith(("canasta-sim run:", "WARNING: game ", "WARNING: chunk "))]
    assert own == [line for line in lines if line not in dask_lines and not line.startswith("DEBUG: chunk ")]
    assert all("was lost on the Dask cluster" in line for line in own if line.startswith("WARNING: chunk "))
    if flag == "-v":  # Dask's messages too, one line each, named by their logger
        assert any(line.startswith("WARNING: distributed.nanny: Restarting worker") for line in dask_lines)
    else:
        assert dask_lines == []
    text = log.read_text()
    assert " distributed.nanny WARNING Restarting worker" in text  # the run's log file has them all


LOGS_AS_DASK = '''
import logging

from canasta_sim.strategies.greedy import Greedy


class LogsAsDask(Greedy):
    """Greedy that, at each hand's start on a Dask worker, logs an error with a traceback as Dask's worker would."""

    name = "logs-as-dask"

    def on_hand_start(self, view):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:  # not on a worker
            return
        try:
            raise OSError("Stream is closed")
        except OSError:
            logging.getLogger("distributed.worker").error("Failed to communicate with scheduler", exc_info=True)
'''


LOGS_AT_START = '''
import logging


def dask_setup(worker):
    """As Dask's disk utilities do when a restarted worker cannot remove a dead one's folder: before the worker has
    reached its scheduler, so before the run's cluster could tell it where its records go."""
    logging.getLogger("distributed.diskutils").error("Failed to remove 'dask-scratch-space/worker-1' (as a test)")
'''


@pytest.mark.timeout(120)
def test_the_dask_messages_of_a_local_cluster_s_workers_go_to_the_log_file_not_to_the_terminal(tmp_path):
    bot = tmp_path / "logs_as_dask.py"
    bot.write_text(LOGS_AS_DASK)
    preload = tmp_path / "logs_at_start.py"
    preload.write_text(LOGS_AT_START)
    log = tmp_path / "run.log"
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "2", "--seed", "1", "--chunk-size", "2",
               "--rules", "target_score=1000", "-s", f"{bot}:LogsAsDask", "-s", "random", "--workers", "1",
               "--backend", "dask", "--out", str(tmp_path / "run"), "--log-file", str(log), "-q"]
    # Each worker process of the run's cluster runs the preload as it starts (Dask's configuration, from the
    # environment the run's process hands down to its workers).
    environment = {**os.environ, "DASK_DISTRIBUTED__WORKER__PRELOAD": repr([str(preload)])}
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    # The worker processes share the terminal, and used to print there, traceback and all: at any time, and then
    # what they said before they had reached the scheduler.
    assert result.stderr == ""
    text = log.read_text()
    assert "Dask worker tcp://" in text and " distributed.worker ERROR Failed to communicate with scheduler" in text
    assert "OSError: Stream is closed" in text
    assert " distributed.diskutils ERROR Failed to remove 'dask-scratch-space/worker-1' (as a test)" in text
