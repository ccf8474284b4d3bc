"""Reaching a Dask cluster given by address (``run --scheduler``, sim/runs/dask_cluster.py): a scheduler that cannot be
reached leaves nothing written and says so in one line, at once when nothing listens there; a run on such a cluster
records the workers that played it and a command that plays it again; a complete run resumed reaches no cluster."""

import json
import shlex
import socket

import dask
import distributed  # noqa: F401 - its config defaults are loaded before a test overrides one of them
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.runs import dask_cluster
from tests.helpers import assert_same_run_tables, invoke

RUN = ["--games", "4", "--seed", "9", "-s", "greedy", "-s", "random", "--chunk-size", "2",
       "--rules", "target_score=1000"]


def free_port() -> int:
    """A port nothing listens on (one the system just handed out and took back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.strip()]


@pytest.mark.timeout(60)
def test_a_scheduler_address_nothing_listens_on_is_one_line_at_once_and_writes_nothing(tmp_path, monkeypatch):
    # The run wrote run.json (status failed) and its folders, then waited for Dask's connect timeout.
    monkeypatch.setattr(dask_cluster, "REFUSED_GRACE_SECONDS", 0.1)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    with dask.config.set({"distributed.comm.timeouts.connect": "20s"}):  # which the refusal does not wait for
        result = invoke("run", *RUN, "--scheduler", address, "--out", str(tmp_path / "run"))
    assert result.exit_code == 1, result.output
    assert error_lines(result) == [f"Error: cannot reach the Dask scheduler at {address}: the connection was refused: "
                                   f"nothing listens on port {port} of 127.0.0.1; give the address the scheduler "
                                   f"printed (Scheduler at: ...), or start one there (dask scheduler --port {port})"]
    assert not (tmp_path / "run").exists()


@pytest.mark.timeout(60)
def test_a_scheduler_that_never_answers_leaves_a_resumed_run_as_it_was(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", *RUN, "--games", "2", "--workers", "1", "--out", str(out), "-q").exit_code == 0
    before = (out / "run.json").read_bytes()
    with socket.socket() as silent:  # takes connections and says nothing: Dask's handshake times out
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
            result = invoke("run", "--resume", str(out), "--games", "4", "--scheduler", address)
    assert result.exit_code == 1, result.output
    lines = error_lines(result)
    assert len(lines) == 1 and lines[0].startswith(f"Error: cannot reach the Dask scheduler at {address}: ")
    assert "--resume" not in lines[0]  # nothing of the run changed: there is nothing to resume
    assert (out / "run.json").read_bytes() == before


@pytest.mark.timeout(60)
def test_a_complete_run_resumed_on_a_cluster_says_so_without_reaching_it(tmp_path):
    # It connected first: a scheduler gone since the run ended failed the resume of a run with nothing to play.
    out = tmp_path / "run"
    assert invoke("run", *RUN, "--workers", "1", "--out", str(out), "-q").exit_code == 0
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = invoke("run", "--resume", str(out), "--scheduler", f"tcp://127.0.0.1:{free_port()}")
    assert result.exit_code == 0, result.output
    assert "the run is complete (4 games): nothing left to play" in result.stderr
    assert "4 of 4 games" in result.stdout and "none left to play" in result.stdout


@pytest.mark.timeout(120)
def test_a_run_on_a_scheduler_records_the_workers_that_played_not_its_address_and_a_command_that_replays_it(
        dask_cluster, tmp_path):
    # The session recorded the local --workers default, and the command --workers with it, neither of which played.
    address = dask_cluster.scheduler_address
    out = tmp_path / "cluster"
    assert invoke("run", *RUN, "--scheduler", address, "--out", str(out), "-q").exit_code == 0
    recorded = (out / "run.json").read_text()
    manifest = json.loads(recorded)
    session = manifest["sessions"][-1]
    # A published folder named a machine of the organizer's network, which no one elsewhere can reach.
    assert session["backend"] == "dask" and session["scheduler"] == "given with --scheduler"
    assert address.removeprefix("tcp://") not in recorded
    assert 1 <= session["workers"] <= session["worker_threads"] <= 2
    words = shlex.split(manifest["command"])
    assert "--workers" not in words and words[-2:] == ["--out", str(out)]
    again = tmp_path / "again"
    assert invoke("run", *words[2:-2], "--out", str(again), "-q").exit_code == 0  # on this machine's local workers
    assert_same_run_tables(out, again)


@pytest.mark.parametrize("address, said", [
    ("ucx://127.0.0.1:1", "this Dask cannot connect over ucx://"),
    ("inproc://127.0.0.1/1/1", "an inproc:// address names a scheduler inside the process that started it"),
])
@pytest.mark.timeout(30)
def test_a_scheduler_address_dask_cannot_reach_from_here_is_one_line_at_once(address, said, tmp_path):
    # Dask's client retried these for ever, a traceback each time (ucx:// without the package that speaks it), or
    # waited for ever (an inproc:// address, which only a scheduler in the same process has).
    result = CliRunner().invoke(main, ["run", "--games", "2", "-s", "greedy", "--scheduler", address,
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: cannot reach the Dask scheduler at {address}: {said}")
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "run").exists()
