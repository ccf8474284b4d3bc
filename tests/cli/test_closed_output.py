"""Every command piped into a reader that stops reading (``canasta-sim watch | head``) ends quietly, as the standard
tools do: no traceback, no error line, exit status 141 (128 + SIGPIPE, what the shell reports for ``cat``).  Output
that cannot be written at all (``> /dev/full``) is one error line, not a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from canasta_sim.cli import EXIT_OUTPUT_CLOSED

# '1', 'yes' and every card in turn: each prompt of play takes the first line it accepts.
ANY_ANSWER = "1\nyes\n" + "".join(f"{card}\n" for card in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "3b",
                                                             "2", "JK"))


def _read_one_line_then_close(arguments, given=""):
    process = subprocess.Popen([sys.executable, "-m", "canasta_sim", *arguments], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdin.write(given.encode())
    process.stdin.close()
    first = process.stdout.readline()
    process.stdout.close()  # as head does once it has its lines
    errors = process.stderr.read()
    return first, process.wait(timeout=60), errors.decode()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("arguments", "given"),
    [
        (["watch", "--seed", "3", "--rules", "target_score=1500"], ""),  # the narration
        # The person's seat writes the prompts: its failure reached the command as the seat's, "raised BrokenPipeError".
        (["play", "--seed", "7", "--rules", "target_score=1500"], ANY_ANSWER * 400),
    ],
    ids=["watch", "play"],
)
def test_a_closed_pipe_ends_the_command_quietly_with_exit_status_141(arguments, given):
    first, status, errors = _read_one_line_then_close(arguments, given)
    assert first.startswith(b"Canasta, game seed")
    assert (status, errors) == (EXIT_OUTPUT_CLOSED, "")


@pytest.mark.timeout(60)
def test_output_that_cannot_be_written_is_one_error_line_not_a_traceback():
    # It was a traceback ending "OSError: [Errno 28] No space left on device".
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "canasta_sim", "watch", "--seed", "3", "--rules",
                               "target_score=500"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "Error: the output cannot be written: No space left on device\n")
