"""Every command piped into a reader that stops reading (``canasta-sim watch | head``) ends quietly, as the standard
tools do: no traceback, no error line, exit status 141 (128 + SIGPIPE, what the shell reports for ``cat``).  Output
that cannot be written at all (``> /dev/full``) is one error line, not a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import subprocess
import sys

import pytest
from click.testing import CliRunner

from canasta_sim.cli import EXIT_OUTPUT_CLOSED, _reader_gone, main


def _read_then_close(arguments, until=b"", answer=b""):
    """The first line of what the command prints, read as head does (more, up to a line holding ``until``) before
    closing the pipe; then ``answer`` is typed and standard input closed, so that a command waiting for its person
    can neither go on nor end before its reader has gone."""
    process = subprocess.Popen([sys.executable, "-m", "canasta_sim", *arguments], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = line = process.stdout.readline()
    while line and until not in line:
        line = process.stdout.readline()
    process.stdout.close()  # as head does once it has its lines
    with contextlib.suppress(BrokenPipeError):  # the command may already have ended at its next write
        process.stdin.write(answer)
        process.stdin.close()
    errors = process.stderr.read()
    return first, process.wait(timeout=60), errors.decode()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("arguments", "until", "answer"),
    [
        # The narration, longer than a pipe holds (96 KB to 10,000; 21 KB to 1,500 fitted in the pipe, and on a busy
        # machine the command had written it all and ended before the reader closed).
        (["watch", "--seed", "3", "--rules", "target_score=10000"], b"", b""),
        # The person's seat writes the prompts: its failure reached the command as the seat's, "raised BrokenPipeError".
        # The pipe is closed at the first prompt, which waits for the answer given only then: a whole game's answers
        # given at the start played a game shorter than a pipe holds (56 KB), which on a busy machine ended, exit 0,
        # before the reader closed.
        (["play", "--seed", "7", "--rules", "target_score=1500"], b"  1. draw", b"help\n"),
    ],
    ids=["watch", "play"],
)
def test_a_closed_pipe_ends_the_command_quietly_with_exit_status_141(arguments, until, answer):
    first, status, errors = _read_then_close(arguments, until, answer)
    assert first.startswith(b"Canasta, game seed")
    assert (status, errors) == (EXIT_OUTPUT_CLOSED, "")


@pytest.mark.timeout(60)
def test_play_in_a_terminal_ends_as_soon_as_its_reader_has_gone_without_waiting_for_an_answer():
    # play | head -3 in a terminal waited at its prompt for one more answer: the closed pipe was seen at the next write.
    terminal, persons_side = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "canasta_sim", "play", "--seed", "7", "--rules",
                                "target_score=1500"], stdin=persons_side, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    os.close(persons_side)
    try:
        shown = b""
        while not shown.endswith(b"\n> "):  # the prompt is written: the command waits for the person
            shown += os.read(process.stdout.fileno(), 4096) or pytest.fail(f"play ended early: {shown[-300:]!r}")
        process.stdout.close()  # as head does once it has its lines; nobody answers
        assert (process.wait(timeout=30), process.stderr.read()) == (EXIT_OUTPUT_CLOSED, b"")
    finally:
        process.kill()
        process.wait()
        os.close(terminal)


@pytest.mark.timeout(60)
def test_output_that_cannot_be_written_is_one_error_line_not_a_traceback():
    # It was a traceback ending "OSError: [Errno 28] No space left on device".
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "canasta_sim", "watch", "--seed", "3", "--rules",
                               "target_score=500"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "Error: the output cannot be written: No space left on device\n")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("arguments", [["--help"], ["--version"]], ids=["help", "version"])
def test_the_program_s_help_and_version_that_cannot_be_written_are_one_error_line_not_a_traceback(arguments):
    # They printed before any command ran, where a full device was a traceback and a closed pipe one too.
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "canasta_sim", *arguments], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "Error: the output cannot be written: No space left on device\n")
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = subprocess.run([sys.executable, "-m", "canasta_sim", *arguments], stdout=writing,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (EXIT_OUTPUT_CLOSED, "")


FAILING_BOT = """
from canasta_sim import Parameter
from canasta_sim.strategies.greedy import Greedy


class Fails(Greedy):
    name = "fails"
    parameters = {"knob": Parameter(0.5, low=0.0, high=1.0)}

    def choose_discard(self, view):
        raise RuntimeError("boom")
"""


TUNING_KEPT = "the tuning is written to out (its tune.json's final_spec is the tuned strategy)"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("arguments", "kept", "told"),
    [
        (["run", "--games", "2", "--seed", "1", "-s", "random", "-s", "bot.py:Fails", "--rules", "target_score=50"],
         "run.json", "the run is written to out (canasta-sim report out prints it)"),
        (["tune", "bot.py:Fails", "--games", "4", "--games-per-iteration", "4", "--seed", "1"], "tune.json",
         TUNING_KEPT),
    ],
    ids=["run", "tune"],
)
def test_a_stopped_run_whose_summary_cannot_be_written_still_says_how_to_resume_it(arguments, kept, told, tmp_path):
    # The summary's failure ended the command first: the line saying how to resume was never printed.
    (tmp_path / "bot.py").write_text(FAILING_BOT)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "canasta_sim", *arguments, "--workers", "1", "--out", "out", "-q"],
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and len(lines) == 2, done.stderr
    assert lines[0].startswith("Error: ") and "raised RuntimeError: boom" in lines[0], lines
    assert "are kept; " in lines[0], lines
    assert f"; fix the strategy and run canasta-sim {arguments[0]} --resume out, or " in lines[0], lines
    assert lines[1] == f"Error: the output cannot be written: No space left on device; {told}"
    assert (tmp_path / "out" / kept).is_file()


@pytest.mark.timeout(60)
def test_a_tuning_whose_tuned_spec_is_lost_says_where_it_is_kept(tmp_path):
    # Its last line, the tuned strategy, was lost with nothing saying that tune.json holds it.
    done = subprocess.run([sys.executable, "-m", "canasta_sim", "tune", "expert", "--params", "aggression", "--games",
                           "4", "--games-per-iteration", "4", "--seed", "1", "--workers", "1", "--rules",
                           "target_score=500", "--out", "out", "-q"], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                          timeout=60, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (1, "Error: standard output is closed: what the command printed is lost; "
                                                 f"{TUNING_KEPT}\n")
    assert json.loads((tmp_path / "out" / "tune.json").read_text())["final_spec"].startswith("expert:aggression=")


@pytest.mark.timeout(90)
def test_a_saved_comparison_whose_reader_has_gone_is_kept_as_interrupted_and_resumes(tmp_path):
    # compare ... --out DIR | head -1 saved its games as a "complete" comparison with no decision, and --resume
    # refused it as one that reached its --max-games, which it had not.
    out = tmp_path / "saved"
    first, status, errors = _read_then_close(["compare", "greedy", "--baseline", "random", "--max-games", "400",
                                              "--print-every", "2", "--workers", "1", "--seed", "1", "--rules",
                                              "target_score=1000", "--out", str(out)])
    assert first.startswith(b"compare greedy") and (status, errors) == (EXIT_OUTPUT_CLOSED, "")
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["compare"]["decision"] is None, manifest["status"]
    resumed = CliRunner().invoke(main, ["compare", "--resume", str(out), "-q"])
    assert resumed.exit_code == 0 and "accepted after" in resumed.output, resumed.output


@pytest.mark.timeout(90)
def test_a_run_logging_to_standard_output_whose_reader_has_gone_ends_quietly_with_its_games_whole(tmp_path):
    # canasta-sim run --log-file - -v | head -1 printed logging's "--- Logging error ---" and a traceback on standard
    # error for every record after the reader had gone.
    out = tmp_path / "run"
    first, status, errors = _read_then_close(["run", "--games", "60", "--chunk-size", "2", "-s", "greedy", "-s",
                                              "random", "--workers", "1", "--seed", "2", "--rules", "target_score=1000",
                                              "--out", str(out), "--log-file", "-", "-v"])
    assert b"chunk 0" in first or b"chunk 1" in first, first
    assert status == EXIT_OUTPUT_CLOSED and "Logging error" not in errors and "Traceback" not in errors, errors
    assert json.loads((out / "run.json").read_text())["status"] == "complete"


@pytest.mark.timeout(60)
def test_a_run_started_with_standard_error_closed_finishes_and_keeps_its_games(tmp_path):
    # With 2>&- the run ended at its first message with exit code 1, a traceback nobody saw and run.json "running".
    done = subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--games", "2", "--seed", "1", "-s", "random",
                           "--workers", "1", "--rules", "target_score=50", "--out", "run"], cwd=tmp_path,
                          stdout=subprocess.PIPE, text=True, timeout=60, preexec_fn=lambda: os.close(2))
    assert done.returncode == 0 and done.stdout.startswith("strategy "), done.stdout
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "complete"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


@pytest.mark.timeout(60)
def test_a_run_started_with_standard_output_closed_writes_its_games_and_says_its_summary_is_lost(tmp_path):
    # With >&- the run printed its summary to the null device and exited 0: nothing told that it was lost.
    done = subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--games", "2", "--seed", "1", "-s", "random",
                           "--workers", "1", "--rules", "target_score=50", "--out", "run", "--quiet"], cwd=tmp_path,
                          stderr=subprocess.PIPE, text=True, timeout=60, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (1, "Error: standard output is closed: what the command printed is lost; "
                                                 "the run is written to run (canasta-sim report run prints it)\n")
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "complete"
    assert sorted(path.name for path in (tmp_path / "run").iterdir()) == ["games", "hands", "run.json"]


def _started_without_standard_output(arguments):
    return subprocess.run([sys.executable, "-m", "canasta_sim", *arguments], stderr=subprocess.PIPE, text=True,
                          timeout=60, preexec_fn=lambda: os.close(1))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("arguments", [["watch", "--seed", "3", "--rules", "target_score=500"], ["docs"],
                                       ["watch", "--help"], ["--help"], ["--version"]],
                         ids=["watch", "docs", "help", "program-help", "version"])
def test_a_command_started_with_standard_output_closed_says_what_it_printed_is_lost(arguments):
    done = _started_without_standard_output(arguments)
    assert (done.returncode, done.stderr) == (1, "Error: standard output is closed: what the command printed is lost\n")


@pytest.mark.timeout(60)
def test_a_command_s_own_error_is_told_as_it_is_with_standard_output_closed():
    done = _started_without_standard_output(["report", "nowhere"])
    assert (done.returncode, done.stderr) == (2, "Error: run directory 'nowhere' does not exist\n")


def test_a_pipe_whose_reader_has_gone_is_told_from_one_still_read():
    reading, writing = os.pipe()
    try:
        assert not _reader_gone(writing)
        os.close(reading)
        reading = None
        assert _reader_gone(writing)
    finally:
        os.close(writing)
        if reading is not None:
            os.close(reading)
