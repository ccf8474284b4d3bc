"""``canasta-sim run`` on a disk that misbehaves under it: full, read-only, parts removed while the run goes on."""

import errno
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli import run as run_module
from canasta_sim.runs import storage
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.storage import RunDirectory
from tests.helpers import assert_same_run_tables

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short


def _run(out, *extra):
    return CliRunner().invoke(main, ["run", "--games", "40", "--seed", "3", "--chunk-size", "5", "--workers", "2",
                                     "--out", str(out), "-q", *QUICK, *extra])


@pytest.mark.timeout(120)
def test_a_full_disk_refusing_run_json_too_ends_in_one_line_and_the_run_resumes(tmp_path, monkeypatch):
    # A disk that fills up refuses everything after the part it first refused, run.json's last update included: that
    # second refusal ended the run in a traceback, after the one-line error had been decided.
    write_chunk, write_manifest = RunDirectory.write_chunk, RunDirectory.write_manifest
    full = []

    def refusing_chunks(self, chunk, games, hands):
        if chunk >= 2 or full:
            full.append(chunk)
            raise OSError(28, "No space left on device")
        write_chunk(self, chunk, games, hands)

    def refusing_manifest(self, manifest):
        if full:
            raise OSError(28, "No space left on device")
        write_manifest(self, manifest)

    monkeypatch.setattr(RunDirectory, "write_chunk", refusing_chunks)
    monkeypatch.setattr(RunDirectory, "write_manifest", refusing_manifest)
    out = tmp_path / "run"
    result = _run(out)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: writing the run failed: [Errno 28] No space left on device; finished games are kept; "
                      f"fix it and run canasta-sim run --resume {out}"]
    assert json.loads((out / "run.json").read_text())["status"] == "running"  # as a kill -9 leaves it
    monkeypatch.undo()
    resumed = CliRunner().invoke(main, ["run", "--resume", str(out), "-q"])
    assert resumed.exit_code == 0, resumed.output
    whole = _run(tmp_path / "whole")
    assert whole.exit_code == 0, whole.output
    assert_same_run_tables(out, tmp_path / "whole")


def test_a_write_refused_gives_back_the_space_of_its_temporary_file(tmp_path):
    # On a full disk the half-written temporary held its bytes until the next resume cleared it.
    directory = RunDirectory(tmp_path / "run")
    directory.create()

    def half_written(path):
        path.write_bytes(b"x" * 1000)
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        storage.write_atomically(directory.manifest_path, half_written)
    assert sorted(entry.name for entry in directory.path.iterdir()) == ["games", "hands"]


@pytest.mark.timeout(120)
def test_parts_removed_while_the_run_goes_on_end_it_with_an_error_not_exit_code_0(tmp_path, monkeypatch):
    # Someone clearing the run's folder while it ran: every chunk was played, some parts were gone at the end, and the
    # run said "incomplete" in run.json but exited 0 with no word of it.
    write_chunk = RunDirectory.write_chunk
    written = []

    def clearing(self, chunk, games, hands):
        write_chunk(self, chunk, games, hands)
        written.append(chunk)
        if len(written) == 8:  # the last chunk: nothing plays chunk 0 again
            for folder in (self.games_path, self.hands_path):
                (folder / "part-000000.parquet").unlink(missing_ok=True)

    monkeypatch.setattr(RunDirectory, "write_chunk", clearing)
    out = tmp_path / "run"
    result = _run(out)
    assert json.loads((out / "run.json").read_text())["status"] == "incomplete"
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: 5 of the run's games are missing from {out}: their parts were removed while it ran; "
                      f"finished games are kept; fix it and run canasta-sim run --resume {out}"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("second", [["--resume", "{out}", "--games", "80"],
                                    ["--out", "{out}", "--games", "40", "--seed", "3", "--chunk-size", "5", *QUICK]])
def test_a_second_run_into_a_run_being_written_is_refused_in_one_line(tmp_path, second):
    # Two processes writing one run each rewrote run.json from their own copy (a session lost, another left "running"
    # for ever) and removed each other's temporary files in flight.
    out = tmp_path / "run"
    assert _run(out).exit_code == 0
    before = (out / "run.json").read_text()
    with RunDirectory(out).claimed():  # as the first run holds it while it plays
        result = CliRunner().invoke(main, ["run", *[word.format(out=out) for word in second], "-q"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.splitlines() == [f"Error: '{out}' is being written by another canasta-sim process; wait for "
                                          "it to end (or stop it), then resume the run"]
    assert (out / "run.json").read_text() == before
    resumed = CliRunner().invoke(main, ["run", *[word.format(out=out) for word in second], "-q"])
    assert resumed.exit_code == 0, resumed.output  # the claim goes with its holder


_UNDER_A_LOCKED_FOLDER = [
    ["run", "--games", "4", "-s", "greedy", "--out", "{locked}/run"],
    ["run", "--resume", "{locked}/run"],
    ["report", "{locked}/run"],
    ["compare", "greedy", "--baseline", "random", "--max-games", "4", "--out", "{locked}/run"],
    ["tune", "greedy", "--games", "32", "--out", "{locked}/run"],
]


def _assert_refused_in_one_line(result, locked):
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    [line] = result.output.splitlines()
    assert line.startswith(f"Error: '{locked}/run") and line.endswith(
        ": Permission denied: this user may not read or write there"), line


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters any folder: the same path is covered by the test below")
@pytest.mark.parametrize("command", _UNDER_A_LOCKED_FOLDER, ids=lambda command: " ".join(command[:2]))
def test_a_path_under_a_folder_this_user_may_not_enter_is_one_line_not_a_traceback(tmp_path, command):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    try:
        result = CliRunner().invoke(main, [word.format(locked=locked) for word in command])
    finally:
        locked.chmod(0o700)
    _assert_refused_in_one_line(result, locked)


@pytest.mark.parametrize("command", _UNDER_A_LOCKED_FOLDER, ids=lambda command: " ".join(command[:2]))
def test_a_path_under_a_folder_refused_as_the_kernel_refuses_it_is_one_line_not_a_traceback(tmp_path, monkeypatch,
                                                                                            command):
    # The test above, for any user: the system calls refuse what lies under the folder with EACCES, as Linux does for
    # a user without search permission on it (root is never refused, so that test skips there).
    locked = tmp_path / "locked"
    locked.mkdir()
    for name in ("stat", "lstat", "listdir", "scandir", "mkdir"):
        monkeypatch.setattr(os, name, _refusing_under(getattr(os, name), locked))
    result = CliRunner().invoke(main, [word.format(locked=locked) for word in command])
    monkeypatch.undo()
    _assert_refused_in_one_line(result, locked)


def _refusing_under(call, folder):
    def refusing(path, *arguments, **keywords):
        if isinstance(path, (str, os.PathLike)) and folder in Path(os.fspath(path)).absolute().parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return call(path, *arguments, **keywords)
    return refusing


@pytest.mark.timeout(120)
def test_runs_started_in_the_same_second_with_no_out_each_get_a_folder_of_their_own(tmp_path, monkeypatch):
    # The default --out, results/<date-time>, was only looked for when chosen: another run started in the same second
    # took it while this one loaded its strategies, and both then wrote one folder, their games mixed in one run.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_module, "_default_out", lambda: Path("results") / "20261206-211500")
    other = tmp_path / "results" / "20261206-211500"
    load_strategies = RunSettings.load_strategies

    def loading_while_another_run_starts(self):
        if not other.exists():  # the run's own load (its workers load them again)
            other.mkdir(parents=True)
            (other / "run.json").write_text("{}")
        return load_strategies(self)

    monkeypatch.setattr(RunSettings, "load_strategies", loading_while_another_run_starts)
    result = CliRunner().invoke(main, ["run", "--games", "4", "-s", "greedy", "--workers", "1", "-q", *QUICK])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in other.iterdir()) == ["run.json"]
    assert (other / "run.json").read_text() == "{}"
    assert "4 of 4 games in results/20261206-211500-2 " in result.stdout
    assert sum(RunDirectory(tmp_path / "results" / "20261206-211500-2").chunk_game_counts().values()) == 4


@pytest.mark.timeout(120)
def test_a_file_system_without_locks_still_runs_and_resumes(tmp_path, monkeypatch):
    # NFS mounted with nolock answers flock with ENOLCK: the claim on the run's folder must not cost the run.
    def no_locks(descriptor, operation):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(storage.fcntl, "flock", no_locks)
    out = tmp_path / "run"
    result = _run(out)
    assert result.exit_code == 0, result.output
    assert RunDirectory(out).is_claimed() is None
    assert CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "80", "-q"]).exit_code == 0
