"""Worker log records reaching the run's log: a worker dying while it writes one costs no later record, no hang."""

import logging
import multiprocessing
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest

from canasta_sim.runs.worker_log import WorkerLogs

DIES_WRITING = '''
import logging
import os
import threading
import time

from canasta_sim.strategies.greedy import Greedy


class DiesWriting(Greedy):
    """Greedy, but its worker dies once in the run, while a thread of its own writes large log records, and its
    discards fail now and then afterwards, which its worker logs."""

    name = "dies-writing"

    def choose_acquire(self, view):
        if view.hand_number == 1 and self.first_to_die():

            def chatter():
                while True:
                    logging.getLogger("tests.chatter").warning("%s", "x" * 1_000_000)

            threading.Thread(target=chatter, daemon=True).start()
            time.sleep(0.3)  # long enough for the record being written to be cut by the exit
            os._exit(3)
        return super().choose_acquire(view)

    @staticmethod
    def first_to_die() -> bool:
        try:  # created at once or not at all: one worker of the two playing side by side dies
            os.close(os.open(os.environ["CANASTA_TEST_MARKER"], os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    def choose_discard(self, view):
        if self.rng.random() < 0.02:
            raise RuntimeError("failed on purpose")
        return super().choose_discard(view)
'''


@pytest.mark.timeout(120)
def test_a_worker_dying_while_it_writes_a_log_record_loses_no_later_record_and_the_run_ends(tmp_path):
    # The workers shared one queue, whose writes took a lock held in common by every process: a worker that died
    # while its thread held it (here os._exit; a segfault or a kill at the time limit alike) kept it for ever.  No
    # later record of any process reached the log file, and the run hung at its end, waiting on the queue's thread.
    (tmp_path / "dies.py").write_text(DIES_WRITING)
    out, log = tmp_path / "run", tmp_path / "run.log"
    command = [sys.executable, "-c", "from canasta_sim.cli import main; main()", "run", "--games", "40", "--seed", "3",
               "--rules", "target_score=1000", "--chunk-size", "5", "--workers", "2", "-s",
               f"{tmp_path}/dies.py:DiesWriting", "-s", "greedy", "--on-error", "forfeit", "--out", str(out),
               "--log-file", str(log), "-q"]
    environment = {**os.environ, "CANASTA_TEST_MARKER": str(tmp_path / "died")}
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True, text=True)
    try:
        _, errors = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the run did not end within 60 s of its start")
    assert process.returncode == 0, errors
    games = pd.read_parquet(out / "games")
    forfeits = games[games.termination == "forfeit"]
    assert (forfeits.forfeit_reason == "crash").sum() == 1
    assert (forfeits.forfeit_reason == "exception").sum() >= 3, "the seed should make the strategy fail a few times"
    text = log.read_text(encoding="utf-8")
    for game_id in forfeits.game_id:  # the worker's line for each exception, the run's own for the death
        assert f" game {game_id}: strategy " in text, game_id


@pytest.mark.timeout(30)
def test_closing_after_the_reader_has_ended_on_its_own_raises_nothing():
    # The reader ends as soon as it sees the close asked and every worker's pipe ended, and closes its end of the
    # wake-up pipe: when the last worker's pipe ended just as the close was asked, the close's own wake-up found that
    # end closed, and a run whose games were all played failed with "Broken pipe".
    logs = WorkerLogs(multiprocessing.get_context("fork"), [logging.NullHandler()])
    logs._closing = True  # the close asked, as WorkerLogs.close asks it, and seen by the reader before its wake-up
    logs._wake_writer.send_bytes(b"")
    logs._thread.join(10)
    assert not logs._thread.is_alive()
    logs.close()


def _logs_a_failure(connection) -> None:
    from canasta_sim.runs.worker_log import send_records_to

    send_records_to(connection, logging.DEBUG)
    try:
        raise RuntimeError("failed in the worker")
    except RuntimeError:
        logging.getLogger("tests.worker").exception("a strategy failed: %s", {"seat": 2})


@pytest.mark.timeout(30)
def test_a_worker_s_record_reaches_the_run_s_log_with_its_message_and_traceback():
    # What a worker sends must pickle whatever its arguments were, and the run's handler must still print the message
    # and the traceback as the worker's own handler would have.
    context = multiprocessing.get_context("fork")
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            seen.append(self.format(record))

    logs = WorkerLogs(context, [Collect()])
    channel = logs.channel()
    worker = context.Process(target=_logs_a_failure, args=(channel,))
    worker.start()
    channel.close()
    worker.join(20)
    logs.close()
    assert len(seen) == 1
    assert seen[0].startswith("a strategy failed: {'seat': 2}\nTraceback (most recent call last):")
    assert seen[0].rstrip().endswith("RuntimeError: failed in the worker")
