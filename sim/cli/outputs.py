"""Where a command's results go: standard output (``-``) or a file the user named, written whole or not at all, with
one line (exit code 2) for a file that cannot be written; and the line a stopped command says after its results.

A pipe's reader gone (``| head``) part way ends the command as every command's closed output does
(:mod:`canasta_sim.cli`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import click

__all__ = ["STANDARD_OUTPUT", "check_output_folder", "echo_whole", "is_standard_output", "no_stale_page",
           "output_error", "print_then_stop", "replace_whole", "write_output"]


def _fail(message: str) -> click.UsageError:
    """The one-line usage error (exit code 2) for ``message``, as :func:`canasta_sim.cli.options.fail` makes it."""
    return click.UsageError(" ".join(message.split("\n")))


def output_error(option: str, path: Path, error: OSError) -> click.UsageError:
    """The one-line usage error (exit code 2) of an output file the user named that cannot be written."""
    return _fail(f"{option} {path}: {error.strerror or error}")


STANDARD_OUTPUT = "-"
"""What an output option takes for standard output instead of a file, as most command-line tools read it."""


_PIECE = 1024
"""Characters printed at a time: at most 4 kB of UTF-8, under the 8 kB of a text stream's buffer."""


def is_standard_output(path: Path | None) -> bool:
    """Whether an output option's value names standard output (``-o -``) rather than a file."""
    return path is not None and str(path) == STANDARD_OUTPUT


def echo_whole(text: str) -> None:
    """Print ``text`` on standard output, in pieces smaller than the stream's buffer: a single larger
    write is cut short without an error by Python's buffered writer when the reader closes the pipe part way
    (``| head``), and the command would end as if it had printed everything; piece by piece, the closed pipe is seen
    and ends it as every command's is."""
    for start in range(0, len(text), _PIECE):
        click.echo(text[start:start + _PIECE], nl=False)


def write_output(option: str, path: Path, text: str, written: str | None) -> None:
    """Write ``text`` to the file ``option`` names and say so with the line ``written`` (``None``: say
    nothing); for ``-``, print the text alone, as ``-o -`` gives it in other tools: a line after it would end up in
    the file the output is redirected to.

    :raises click.UsageError: the option's one-line error when the file cannot be written.
    """
    if is_standard_output(path):
        echo_whole(text)
        return
    try:
        _write_whole(path, text)
    except OSError as error:
        raise output_error(option, path, error) from None
    if written is not None:
        click.echo(written)


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a regular file (or a new one) is written beside it and renamed
    over it, so that a write cut short (a full disk, a Ctrl-C) leaves the file as it was, never a page cut in the
    middle; anything else (``/dev/stdout``, a pipe, a link the user made) is written in place, as it is the user's."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        path.write_text(text, encoding="utf-8")
        return
    replace_whole(path, text.encode("utf-8"))


def replace_whole(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` by a rename of a new file beside it: whatever was at ``path``, a link included, is
    replaced, never written through, and a write cut short leaves it as it was.

    The new file is made by :func:`tempfile.mkstemp`, under a name no one can have made first: beside a report in
    ``/tmp``, or in a run's folder from someone else, a guessable name could be a link to one of this user's files,
    written through, or another user's file, renamed into place.
    """
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    partial = Path(name)
    try:
        if hasattr(os, "fchmod"):  # readable as any new file of this user's (a published page), not by its owner alone
            os.fchmod(descriptor, 0o666 & ~_umask())
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _umask() -> int:
    """This process's umask (read by setting it, then put back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def no_stale_page(option: str, path: Path | None):
    """A failure (a :class:`click.ClickException`) before the page at ``path`` is written removes the page an earlier
    command left there, which would be read as this game's, and its line says so.  Only a regular file is removed:
    ``-``, a device or a link the user made are left alone."""
    try:
        yield
    except click.ClickException as error:
        if path is None or is_standard_output(path) or path.is_symlink() or not path.is_file():
            raise
        try:
            path.unlink()
        except OSError as reason:
            error.message += f"; no page was written, and the older {path} could not be removed ({reason.strerror})"
        else:
            error.message += f"; no page was written, and the older {path} was removed"
        raise


def print_then_stop(print_results: Callable[[], None], stopped: tuple[str, int] | None) -> None:
    """Print a command's results with ``print_results``, then, for a command that stopped (``stopped``: the line saying
    why and how to resume it, and the exit code), say that line on stderr and exit with the code.

    The line is said even when the results cannot be printed (a full device, a pipe nobody reads), before the output's
    own failure ends the command: it is how the user resumes what was kept.
    """
    try:
        print_results()
    except OSError:
        if stopped is not None:
            click.echo(stopped[0], err=True)
        raise
    if stopped is not None:
        click.echo(stopped[0], err=True)
        sys.exit(stopped[1])


def check_output_folder(option: str, path: Path) -> None:
    """Refuse an output file whose folder is missing or is a file before a game is played for it: the write would
    fail only after the game (a write failing anyway is refused by :func:`output_error` alike).  Standard output
    (``-``) needs no folder."""
    if is_standard_output(path):
        return
    try:
        folder = os.stat(path.parent)
    except OSError as error:
        raise output_error(option, path, error) from None
    if not stat.S_ISDIR(folder.st_mode):
        raise _fail(f"{option} {path}: {os.strerror(errno.ENOTDIR)}")
