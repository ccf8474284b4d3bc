"""The commands on a machine that gives them less than a desktop does: a container or CI job with no writable
``/dev/shm``, a limit on processes and threads (``ulimit -u``, a pids limit), no writable folder for matplotlib, a
disk that fills up, a current folder that cannot be written.

Each condition is made in the test's process (or a child of it) without being root: what the system would refuse is
refused by a stand-in at the call that meets it."""

from __future__ import annotations

import errno
import json
import multiprocessing.heap
import os
import stat
import subprocess
import sys
import tempfile
import threading

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.plot_figures import choose_matplotlib_folder
from canasta_sim.runs.storage import RunDirectory

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short


@pytest.fixture
def no_writable_dev_shm(monkeypatch):
    """multiprocessing's shared memory as a read-only ``/dev/shm`` leaves it: every new arena refused."""

    def refused(self, size, fd=-1):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), "/dev/shm/pym-1-x")

    monkeypatch.setattr(multiprocessing.heap.Arena, "__init__", refused)
    # A fresh heap, so that no arena an earlier test made in this process serves the request without a new one.
    monkeypatch.setattr(multiprocessing.heap.BufferWrapper, "_heap", multiprocessing.heap.Heap())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_plays_where_dev_shm_cannot_be_written(tmp_path, no_writable_dev_shm, workers):
    # A container with /dev/shm read-only: the run stopped before its first game ("writing the run failed: Read-only
    # file system: '/dev/shm/pym-...'", though nothing of the run was being written), on every try.
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "3", "--workers", workers, "--out", str(out),
                                       "-q", *QUICK])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    assert sum(RunDirectory(out).chunk_game_counts().values()) == 4


@pytest.mark.timeout(120)
def test_check_strategy_plays_where_dev_shm_cannot_be_written(no_writable_dev_shm):
    # It ended in a traceback from multiprocessing's heap before its first game.
    result = CliRunner().invoke(main, ["check-strategy", "random", "--games", "2", *QUICK])
    assert result.exit_code == 0, result.output
    assert "2 of 2 games finished" in result.output


def _fork_refused():
    raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))


def _thread_refused(*_arguments, **_options):
    raise RuntimeError("can't start new thread")


# The private function Thread.start asks for a thread: Python 3.13 renamed it (_start_joinable_thread).
_THREAD_START = "_start_joinable_thread" if hasattr(threading, "_start_joinable_thread") else "_start_new_thread"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("refused", [(os, "fork", _fork_refused), (threading, _THREAD_START, _thread_refused)],
                         ids=["process", "thread"])
def test_a_run_whose_workers_the_machine_refuses_ends_in_one_line_naming_the_limit(tmp_path, monkeypatch, refused):
    # Under a low ulimit -u (or a container's pids limit) the run ended in a traceback ("can't start new thread") or
    # in "writing the run failed: [Errno 11] Resource temporarily unavailable", which sent the user to the disk.
    monkeypatch.setattr(*refused)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "3", "--workers", "2", "--out", str(out),
                                       "-q", *QUICK])
    monkeypatch.undo()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception  # not raised
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "writing the run failed" not in errors[0], errors
    assert "cannot be started" in errors[0] and "ulimit -u" in errors[0], errors
    assert f"run canasta-sim run --resume {out}" in errors[0]
    resumed = CliRunner().invoke(main, ["run", "--resume", str(out), "-q"])
    assert resumed.exit_code == 0, resumed.output


@pytest.mark.timeout(120)
def test_compare_whose_workers_the_machine_refuses_ends_in_one_line(tmp_path, monkeypatch):
    # It ended in a traceback from multiprocessing's fork.
    monkeypatch.setattr(os, "fork", _fork_refused)
    result = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "random", "--max-games", "4",
                                       "--workers", "2", "--seed", "1", *QUICK])
    monkeypatch.undo()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception  # not raised
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "cannot be started" in errors[0] and "ulimit -u" in errors[0], errors


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["plot", "--out", "{tmp}/plots"],
                                     ["report", "--format", "html", "-o", "{tmp}/report.html"]])
def test_charts_without_a_writable_folder_for_matplotlib_end_in_one_line_naming_mplconfigdir(tmp_path, command):
    # No writable HOME, MPLCONFIGDIR or temporary folder (a locked-down container): report --format html ended in
    # matplotlib's traceback, and plot blamed its --out folder.
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "--workers", "1", "--out", str(run), "-q",
                                     *QUICK])
    assert made.exit_code == 0, made.output
    blocked = tmp_path / "a file"
    blocked.write_text("no folder can be made under a file, whoever asks")
    environment = {**os.environ, "MPLCONFIGDIR": str(blocked / "matplotlib")}
    # The temporary folder as the one tempfile module would use, which no environment variable can block for root.
    starter = ("import sys, tempfile; tempfile.tempdir = sys.argv[1]; sys.argv = ['canasta-sim', *sys.argv[2:]]; "
               "from canasta_sim.cli import main; main()")
    arguments = [command[0], str(run), *(part.format(tmp=tmp_path) for part in command[1:])]
    result = subprocess.run([sys.executable, "-c", starter, str(blocked / "tmp"), *arguments], env=environment,
                            capture_output=True, text=True, timeout=50)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "MPLCONFIGDIR" in errors[0] and "--out" not in errors[0], result.stderr


@pytest.fixture
def no_writable_home(tmp_path, monkeypatch):
    """A home folder nothing can be made in (``HOME=/nonexistent`` for a user not root), and a temporary folder of
    the test's; returns the temporary folder."""
    blocked = tmp_path / "a file"
    blocked.write_text("no folder can be made under a file, whoever asks")
    monkeypatch.setenv("HOME", str(blocked / "home"))
    for variable in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    return temporary


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="matplotlib's folders under HOME as Linux has them")
def test_charts_without_a_writable_home_keep_matplotlibs_folder_in_the_temporary_folder(no_writable_home):
    choose_matplotlib_folder()
    kept = no_writable_home / f"canasta-sim-matplotlib-{os.getuid()}"
    assert os.environ["MPLCONFIGDIR"] == str(kept)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o700
    del os.environ["MPLCONFIGDIR"]
    choose_matplotlib_folder()  # the next command's: the same folder, its font cache built once
    assert os.environ["MPLCONFIGDIR"] == str(kept)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="matplotlib's folders under HOME as Linux has them")
def test_a_temporary_folder_of_that_name_others_may_write_is_not_given_to_matplotlib(no_writable_home):
    taken = no_writable_home / f"canasta-sim-matplotlib-{os.getuid()}"
    taken.mkdir()
    taken.chmod(0o777)
    choose_matplotlib_folder()
    assert "MPLCONFIGDIR" not in os.environ


def test_a_writable_home_or_mplconfigdir_leaves_matplotlib_its_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    choose_matplotlib_folder()
    assert "MPLCONFIGDIR" not in os.environ
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mine"))
    choose_matplotlib_folder()
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path / "mine")


@pytest.mark.timeout(60)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="matplotlib's folders under HOME as Linux has them")
def test_a_chart_without_a_writable_home_prints_no_warning(no_writable_home):
    # HOME=/nonexistent in a container: every plot and HTML report printed matplotlib's two warnings ("mkdir -p
    # failed", "Matplotlib created a temporary cache directory ... set the MPLCONFIGDIR") and rebuilt its font cache.
    environment = {**os.environ, "TMPDIR": str(no_writable_home)}
    starter = "from canasta_sim.cli.plot_figures import new_figure; new_figure()"
    result = subprocess.run([sys.executable, "-c", starter], env=environment, capture_output=True, text=True,
                            timeout=50)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def _full_disk(*_arguments, **_keywords):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.timeout(120)
def test_compare_saving_to_a_full_disk_ends_in_one_line_and_resumes(tmp_path, monkeypatch):
    # It ended in pyarrow's traceback; the games saved before the disk filled were kept, but nothing said how to go on.
    out = tmp_path / "saved"
    arguments = ["compare", "greedy", "--baseline", "random", "--max-games", "8", "--workers", "1", "--seed", "1",
                 *QUICK]
    monkeypatch.setattr(RunDirectory, "write_chunk", _full_disk)
    result = CliRunner().invoke(main, [*arguments, "--out", str(out)])
    monkeypatch.undo()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception  # not raised
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: writing failed: No space left on device; what was written before is kept; fix it and "
                      f"run canasta-sim compare --resume {out}"], result.output
    resumed = CliRunner().invoke(main, ["compare", "--resume", str(out)])
    assert resumed.exit_code == 0, resumed.output


@pytest.mark.timeout(120)
def test_tune_on_a_full_disk_ends_in_one_line_and_resumes(tmp_path, monkeypatch):
    # It ended in a traceback, from tune.json or from the trajectory, whichever the disk refused first.
    from canasta_sim.tuning.run import TuningDirectory

    out = tmp_path / "tuned"
    monkeypatch.setattr(TuningDirectory, "write_trajectory", _full_disk)
    result = CliRunner().invoke(main, ["tune", "expert", "--games", "4", "--games-per-iteration", "2", "--workers",
                                       "1", "--seed", "1", "-q", "--out", str(out), *QUICK])
    monkeypatch.undo()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception  # not raised
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: writing failed: No space left on device; what was written before is kept; fix it and "
                      f"run canasta-sim tune --resume {out}"], result.output
    resumed = CliRunner().invoke(main, ["tune", "--resume", str(out), "-q"])
    assert resumed.exit_code == 0, resumed.output


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["run", "--games", "4"], ["tune", "expert", "--games", "4",
                                                                "--games-per-iteration", "2"]])
def test_a_default_output_folder_that_cannot_be_made_is_one_line_naming_out(tmp_path, monkeypatch, command):
    # A current folder read-only (a container's, a CI checkout's) or holding a file named results: a traceback.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("a file where the default output folder would go")
    result = CliRunner().invoke(main, [*command, "--workers", "1", "-q", *QUICK])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.exception  # not raised
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "cannot be made in the current folder" in errors[0], result.output
    assert errors[0].endswith("give --out a folder this user can write")
