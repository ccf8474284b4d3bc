"""The ``canasta-sim`` command line; each command lives in its own module under :mod:`canasta_sim.cli`.

A command's module is imported when that command runs (or shows its own help), not before: ``run`` needs
pandas and pyarrow, ``play`` needs neither, and ``canasta-sim --help`` lists every command from
:data:`COMMANDS` without importing any of them.  A notebook's cell or a script runs a command in its own process with
:func:`call`, which returns the exit code where :func:`main` ends the process.
"""

from __future__ import annotations

import difflib
import errno
import importlib
import io
import logging
import os
import select
import sys

import click

from canasta_sim import ENGINE_VERSION, __version__
from canasta_sim.core._compiled import accelerator
from canasta_sim.errors import CanastaError, found_in_chain

COMMANDS = {
    "check-strategy": ("check", "check_command", "Play SPEC against greedy and random and report any failure."),
    "compare": ("compare", "compare_command", "Play NEW against OLD (--baseline) until a sequential test decides."),
    "docs": ("docs", "docs_command", "Print a documentation page, or list them: they are installed with the package."),
    "examples": ("examples", "examples_command",
                 "Copy the example bots into ./examples, where the docs' commands expect them."),
    "play": ("play", "play_command", "Play a game in the terminal: you South, bots in the other seats."),
    "plot": ("plot", "plot_command", "Draw PNG charts of a run: win rates, margins, hands per game."),
    "replay": ("replay", "replay_command", "Play one game of a run again from its seed, narrated."),
    "report": ("report", "report_command", "Print the summary of a run (finished, interrupted or still going)."),
    "run": ("run", "run_command", "Play a tournament and write its games and hands to Parquet."),
    "strategies": ("strategies", "strategies_command",
                   "List the built-in strategies and plugins with their parameters."),
    "tune": ("tune", "tune_command", "Tune SPEC's parameters by SPSA and print the tuned strategy."),
    "watch": ("watch", "watch_command", "Play one game and narrate it like a commented game."),
}
"""Each command's name: its module under :mod:`canasta_sim.cli`, the command object's name there, and
the one line ``canasta-sim --help`` shows for it."""

COMMAND_SECTIONS = (
    ("Watch and play a game", ("watch", "play", "replay")),
    ("Play many games", ("run", "compare", "tune")),
    ("Read a run", ("report", "plot")),
    ("Write a strategy", ("strategies", "examples", "check-strategy")),
    ("Read the documentation", ("docs",)),
)
"""The headings ``canasta-sim --help`` lists the commands under, each command once, in the order a newcomer meets
them: a game watched first, then a tournament, its results, a strategy of one's own; alphabetical order put
``check-strategy`` first and ``watch`` last."""


def without_usage(error: click.UsageError) -> click.UsageError:
    """``error`` without its context, so that click prints it as one ``Error: ...`` line and no usage text."""
    # click raises the help of a bare ``canasta-sim`` as an error from 8.2 on (8.1 prints it and exits): it is shown as
    # click shows it, not as an "Error: Usage: ...".  Looked up, as 8.1 has no such class, which every usage error
    # would otherwise end in a traceback on.
    if error.ctx is None or isinstance(error, getattr(click.exceptions, "NoArgsIsHelpError", ())):
        return error
    return click.UsageError(error.format_message())


class OneLineErrors:
    """A click command or group whose errors print as one ``Error: ...`` line (exit code 2), without the usage text:
    its usage errors (click prints the usage lines when an error carries its context, dropped here), and
    canasta-sim's own errors a command lets out (a file of a run that cannot be read, ...)."""

    def make_context(self, info_name, args, parent=None, **extra):
        """Parse the arguments; a bad value becomes a one-line usage error."""
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as error:
            raise without_usage(error) from None

    def invoke(self, ctx: click.Context):
        """Run the command; a usage error or a canasta-sim error it lets out becomes a one-line usage error."""
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise without_usage(error) from None
        except CanastaError as error:
            raise self.one_line_error(error) from None
        except PermissionError as error:
            # A folder on the way to a path given that this user may not enter or read (--out under another user's
            # folder, a run whose games folder is locked) is found by whichever check reaches it first: told here
            # once, in one line, rather than as a traceback from each of them.
            raise click.UsageError(f"{error.filename!r}: {error.strerror or error}: this user may not read or write "
                                   "there") from None

    def one_line_error(self, error: CanastaError) -> click.ClickException:
        """The one-line error a canasta-sim error the command let out prints as: bad input (exit code 2) unless the
        command knows it for a failure found while working."""
        return click.UsageError(" ".join(str(error).split()))


EXIT_OUTPUT_CLOSED = 141
"""The exit status when the reader of standard output went away (``canasta-sim watch | head``): 128 + SIGPIPE, what a
shell reports for ``cat`` or ``yes`` ended by a closed pipe, so that a script (``set -o pipefail``) sees canasta-sim
as it sees the standard tools.  Exiting with it, not dying by the signal, keeps the ``finally`` blocks that stop a
run's workers and bots."""


def output_closed(error: BaseException) -> bool:
    """Whether ``error`` comes of writing to a standard output nobody reads any more: a ``BrokenPipeError`` it is, was
    raised from or while handling (a strategy's writing at the terminal reaches a command as the seat's failure), while
    standard output is a pipe whose reader has gone.  A bot's own pipe breaking is the bot's failure, not this."""
    return found_in_chain(error, BrokenPipeError) is not None and _stdout_reader_gone()


def _stdout_reader_gone() -> bool:
    try:
        descriptor = sys.__stdout__.fileno()
    except (AttributeError, OSError, ValueError):  # no standard output at all: nothing to tell
        return False
    return _reader_gone(descriptor)


def _reader_gone(descriptor: int) -> bool:
    if not hasattr(select, "poll"):  # Windows: a reader gone is told by the next write's BrokenPipeError alone
        return False
    poller = select.poll()
    poller.register(descriptor, 0)  # errors only: a pipe's write end reports POLLERR once its reader has closed it
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def end_quietly() -> click.exceptions.Exit:
    """The exit of a command whose output nobody reads any more: no message (nobody would read it) and
    :data:`EXIT_OUTPUT_CLOSED`."""
    _drop_stdout()
    return click.exceptions.Exit(EXIT_OUTPUT_CLOSED)


def _drop_stdout() -> None:
    # Standard output pointed at the null device, so that what is still buffered is dropped at the interpreter's exit
    # instead of failing again there with a traceback.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.__stdout__.fileno())
    os.close(null)


class StandardOutputLog(logging.StreamHandler):
    """The handler of ``--log-file -``: log records on standard output.  Once its reader has gone (``| head``) the
    records are dropped and the command goes on with its work (a run's games), then ends as a closed pipe ends every
    command (:func:`end_quietly`), where logging printed its own error and a traceback for each record after."""

    reader_gone = False
    """Whether a record met standard output closed, in the command this process runs."""

    def __init__(self) -> None:
        super().__init__(sys.stdout)

    def emit(self, record: logging.LogRecord) -> None:
        """Print ``record``, unless the reader has gone."""
        if not StandardOutputLog.reader_gone:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """Note a reader gone; any other failure is logging's to tell."""
        if output_closed(sys.exc_info()[1]):
            StandardOutputLog.reader_gone = True
        else:
            super().handleError(record)


def unwritable_output(error: BaseException, ctx: click.Context | None = None) -> click.ClickException | None:
    """The one-line error (exit code 1) of a command whose printing failed (``> /dev/full``: no space left on the
    device), rather than the ``OSError``'s traceback, saying where its results are kept if it told
    (:data:`WRITTEN_TO`); ``None`` for any other error."""
    if not isinstance(error, OSError) or isinstance(error, BrokenPipeError):
        return None
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    code = frame.tb_frame.f_code if frame is not None else None
    if code is None or code.co_name != "echo" or frame.tb_frame.f_globals.get("__name__") != "click.utils":
        return None  # not a line being printed: the command's own failure, shown as it is
    _drop_stdout()
    return click.ClickException(f"the output cannot be written: {error.strerror or error}{_kept_note(ctx)}")


def _output_failure(error: BaseException, ctx: click.Context | None = None
                    ) -> click.exceptions.Exit | click.ClickException | None:
    """How a command ends whose printing failed: quietly for a closed pipe (:func:`end_quietly`), with one line for
    output that cannot be written (:func:`unwritable_output`); ``None`` when ``error`` is no such failure."""
    if output_closed(error):
        return end_quietly()
    return unwritable_output(error, ctx)


RESUMED_WITH = "canasta_sim.resumed_with"
"""The key in click's context ``meta`` under which a command keeping its work in a folder says the command that goes
on with it (``canasta-sim tune --resume DIR``), for the error of a disk refusing a write (:func:`disk_refused`)."""

_DISK_REFUSALS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})
"""A disk full, a quota or a file size limit reached, a read-only disk."""


def disk_refused(error: BaseException, ctx: click.Context | None) -> click.ClickException | None:
    """The one-line error (exit code 1) of a command whose files the disk refused (full, over quota, read-only), rather
    than the ``OSError``'s traceback, saying how to go on if the command told (:data:`RESUMED_WITH`); ``None`` for any
    other error.  Every file is written whole or not at all, so what was written before is kept."""
    if not isinstance(error, OSError) or error.errno not in _DISK_REFUSALS:
        return None
    where = f" ({error.filename})" if error.filename else ""
    resume = None if ctx is None else ctx.meta.get(RESUMED_WITH)
    then = f"; fix it and run {resume}" if resume else ""
    return click.ClickException(f"writing failed: {os.strerror(error.errno)}{where}; what was written before is "
                                f"kept{then}")


WRITTEN_TO = "canasta_sim.written_to"
"""The key in click's context ``meta`` under which a command says where its results are kept, in words (``the run is
written to DIR (canasta-sim report DIR prints it)``), for the error of an output lost (:func:`raise_if_output_lost`)
or that cannot be written (:func:`unwritable_output`) to tell."""


def _kept_note(ctx: click.Context | None) -> str:
    """``'; '`` and where the command said its results are kept (:data:`WRITTEN_TO`), or ``''``."""
    written = None if ctx is None else ctx.meta.get(WRITTEN_TO)
    return "" if written is None else f"; {written}"


class _LostOutput(io.TextIOBase):
    """``sys.stdout`` of a command started with standard output closed (``canasta-sim run >&-``): what the command
    prints is dropped, and remembered, so that the command can end with an error saying it was lost (as the standard
    tools do) once its work, the files of a run, is done."""

    encoding = "utf-8"

    def __init__(self) -> None:
        super().__init__()
        self.lost = False

    def writable(self) -> bool:
        """Always: what is written is dropped."""
        return True

    def write(self, text: str) -> int:
        """Drop ``text``, remembering that something was printed."""
        self.lost = self.lost or bool(text)
        return len(text)


def raise_if_output_lost(ctx: click.Context | None) -> None:
    """Raise the one-line error (exit code 1) of a command that finished, printing to a standard output it was started
    without; where its results are kept, if it said (:data:`WRITTEN_TO`), is told.  ``ctx`` is ``None`` for what
    printed before any command ran (``--help``, ``--version``)."""
    if not (isinstance(sys.stdout, _LostOutput) and sys.stdout.lost):
        return
    raise click.ClickException(f"standard output is closed: what the command printed is lost{_kept_note(ctx)}")


_KEPT_HYPHEN = "\u2011"
"""A hyphen no line is broken at (the non-breaking hyphen), standing in for each hyphen of a help text while it is
wrapped, and put back after."""


class HelpFormatter(click.HelpFormatter):
    """click's help formatter, which breaks lines only at spaces: click's breaks a line after any hyphen, splitting a
    command or an option a reader copies from the help ("canasta-" on one line, "sim docs protocol" on the next)."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        """Write the usage line, wrapped at spaces only."""
        super().write_usage(prog.replace("-", _KEPT_HYPHEN), args.replace("-", _KEPT_HYPHEN), prefix)

    def write_text(self, text: str) -> None:
        """Write a paragraph, wrapped at spaces only."""
        super().write_text(text.replace("-", _KEPT_HYPHEN))

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        """Write a definition list (the options, the commands), each definition wrapped at spaces only."""
        super().write_dl([(term, text.replace("-", _KEPT_HYPHEN)) for term, text in rows], col_max, col_spacing)

    def getvalue(self) -> str:
        """The help written so far, with its hyphens."""
        return super().getvalue().replace(_KEPT_HYPHEN, "-")


class HelpContext(click.Context):
    """A command's context whose help is wrapped by :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


NUMERIC_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""What numpy's BLAS (OpenBLAS, MKL) and OpenMP read, once, when first loaded: how many threads a matrix product
starts."""


def numeric_threads_limited() -> None:
    """One thread for each numeric library's pool unless its variable is set, before any command imports numpy.

    The commands play on a worker process per core already (and ``isolated:`` bots in processes of their own), and
    each inherits its parent's numpy: a strategy's matrix products starting a thread per core in every worker
    oversubscribe the cores (two workers on two cores played a model's games in 18.7 s, against 10.0 s with one thread
    each), a decision's time then depending on the other workers'. Dask starts its workers with the same three."""
    for variable in NUMERIC_THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")


class LazyCommands(OneLineErrors, click.Group):
    """A group that imports a command's module only when that command is asked for; its errors and its commands' are
    one line each (:class:`OneLineErrors`), and every command ends quietly when its output is piped into a reader that
    stops reading (``| head``), as the standard tools do (:data:`EXIT_OUTPUT_CLOSED`)."""

    def make_context(self, info_name, args, parent=None, **extra):
        """Open the standard streams the program was started without (:func:`standard_streams_opened`), then parse the
        arguments: ``--help`` and ``--version`` print and exit while they are parsed, before any command runs, and
        their output lost to a closed standard output is told as every command's is (:func:`raise_if_output_lost`)."""
        if parent is None:
            standard_streams_opened()
            numeric_threads_limited()
            StandardOutputLog.reader_gone = False  # a command run before in this process (a test's) is not this one
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.Exit as end:
            if end.exit_code == 0:
                raise_if_output_lost(None)
            raise
        except OSError as error:  # the help or the version printed to a pipe nobody reads, or a full device
            failure = _output_failure(error)
            if failure is not None:
                raise failure from None
            raise

    def invoke(self, ctx: click.Context):
        """Run the command; a closed standard output ends it quietly, the one place every command's printing is
        handled (a narration, a report, a run's summary, a strategy writing at the terminal)."""
        try:
            result = super().invoke(ctx)
        except click.exceptions.Exit as end:
            if end.exit_code == 0:
                raise_if_output_lost(ctx)
            raise
        except BaseException as error:  # whatever the closed pipe became on its way up: told apart by output_closed
            failure = _output_failure(error, ctx) or disk_refused(error, ctx)
            if failure is not None:
                raise failure from None
            raise
        if StandardOutputLog.reader_gone:  # the log's reader gone, the command's own printing done or none
            raise end_quietly()
        raise_if_output_lost(ctx)
        return result

    def list_commands(self, context: click.Context) -> list[str]:
        """The commands' names, from the table: listing them imports none."""
        return sorted(COMMANDS)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """The command ``args`` starts with; a name the table lacks is refused naming the commands it may have meant
        (:func:`unknown_command`), where click's own error suggested nothing for a lazy group."""
        name = click.utils.make_str(args[0])
        if name not in COMMANDS and not name.startswith("-") and not ctx.resilient_parsing:
            ctx.fail(unknown_command(name))
        return super().resolve_command(ctx, args)

    context_class = HelpContext

    def get_command(self, context: click.Context, name: str) -> click.Command | None:
        """The command ``name``, its module imported only now; ``None`` for a name the table lacks."""
        place = COMMANDS.get(name)
        if place is None:
            return None
        module, attribute, _summary = place
        command = getattr(importlib.import_module(f"canasta_sim.cli.{module}"), attribute)
        command.context_class = HelpContext  # each command's help wrapped as the group's
        return command

    def format_commands(self, context: click.Context, formatter: click.HelpFormatter) -> None:
        """The help's list of commands with their summaries, from the table, so that it imports none of them, under
        the headings of :data:`COMMAND_SECTIONS`."""
        width = max(map(len, COMMANDS))  # one column of summaries under every heading
        for heading, names in COMMAND_SECTIONS:
            with formatter.section(heading):
                formatter.write_dl([(name.ljust(width), COMMANDS[name][2]) for name in names])


def unknown_command(name: str) -> str:
    """The one-line error of a command name the table lacks: the commands it may be a slip for (``rn``: ``run``,
    ``check``: ``check-strategy``, ``check_strategy``: ``check-strategy``), as click suggests an option for a mistyped
    one, or else every command's name."""
    typed = name.replace("_", "-").lower()
    starting = [command for command in sorted(COMMANDS) if len(typed) >= 2 and command.startswith(typed)]
    close = difflib.get_close_matches(typed, sorted(COMMANDS), n=3, cutoff=0.6)
    meant = list(dict.fromkeys([*starting, *close]))[:3]
    if len(meant) == 1:
        return f"No such command {name!r}. Did you mean {meant[0]!r}?"
    if meant:
        return f"No such command {name!r}. Did you mean one of {', '.join(map(repr, meant))}?"
    return (f"No such command {name!r}; the commands: {', '.join(sorted(COMMANDS))} (canasta-sim --help says what each "
            "does)")


def standard_streams_opened() -> None:
    """Open the null device on each standard stream the command was started without (``canasta-sim run 2>&-``), and on
    a standard error whose reader has gone, and give Python a standard error again.

    A closed descriptor 0, 1 or 2 is the next one a file opened takes: a run's Parquet part or its ``run.json`` would
    then receive every message and warning meant for the terminal, from this process and from the workers that inherit
    it.  And with no standard error, Python's ``sys.stderr`` is ``None``, which the progress bar and the messages of a
    run cannot write to: the run would end with a traceback nobody sees and exit code 1, half-written, at its first
    message, and so would one whose standard error is piped to a reader that has gone.  Standard output keeps its own
    handling (:func:`end_quietly`): what a command prints is its result, so printing it to a standard output that was
    closed from the start ends the command with an error once its work is done (:class:`_LostOutput`).
    """
    if sys.stdout is None:  # the descriptor was closed when Python started
        sys.stdout = _LostOutput()
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
            closed = descriptor == 2 and _reader_gone(descriptor)
        except OSError:  # closed: the lowest free descriptor is this one, which the null device then holds
            closed = True
        if closed:
            null = os.open(os.devnull, os.O_RDWR)
            if null != descriptor:
                os.dup2(null, descriptor)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def _print_version(context: click.Context, _parameter: click.Parameter, value: bool) -> None:
    if not value or context.resilient_parsing:
        return
    described = accelerator.describe()
    # The build's own message saying why is hidden by pip without -v: the record keeps it.
    why = accelerator.why_not_profile_guided() if described.endswith(", not profile-guided") else None
    click.echo(f"canasta-sim {__version__}, engine version {ENGINE_VERSION}, {described}{f' ({why})' if why else ''}")
    context.exit()


@click.group(cls=LazyCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, the engine version and whether the engine is compiled, and exit.")
def main() -> None:
    """canasta-sim: classic partnership canasta bot tournaments, fast, with per-hand statistics.

    New here? canasta-sim watch narrates one game of greedy bots; canasta-sim run --games 1000 plays a tournament of
    expert against greedy and prints its summary; canasta-sim docs lists the documentation pages, installed with the
    package (canasta-sim docs running: every command in full). Each command's options: canasta-sim COMMAND --help.
    """
    # The standard streams were opened before the arguments were parsed (LazyCommands.make_context).


def call(*arguments: str | os.PathLike | int | float) -> int:
    """``canasta-sim ARGUMENTS`` in this process, as a notebook's cell or a script runs a command: it prints what the
    command prints and returns its exit code (0 done, 1 stopped by a strategy's failure, 2 bad input, 130 interrupted),
    where :func:`main` would end the process (a kernel shows that ``SystemExit`` as an error)::

        call("run", "--games", 300, "--workers", 2, "-s", "my_bot.py:MyBot", "-s", "greedy",
             "--out", "results/notebook")

    A run's workers load each strategy from its spec, so a strategy is named as on the command line, a class of a
    cell by the file a ``%%writefile my_bot.py`` cell wrote it to.  The kernel's Interrupt stops a run as Ctrl-C does
    (its finished games kept, its workers ended, exit code 130), and the kernel goes on, where ``subprocess.run`` kills
    a command it runs a quarter of a second after the interrupt, before the run has written what it holds.

    :param arguments: the words typed after ``canasta-sim``; a path or a number is given as its text.
    :raises TypeError: for anything else (a strategy class: name it by its spec).
    """
    words = []
    for argument in arguments:
        if isinstance(argument, bool) or not isinstance(argument, str | os.PathLike | int | float):
            raise TypeError(f"call takes the words typed after canasta-sim, as text (a path or a number is turned into "
                            f"text), not a {type(argument).__name__}: {argument!r}; a strategy is named by its spec, "
                            "a class of a notebook's cell by the file it was written to (my_bot.py:MyBot)")
        words.append(os.fspath(argument) if isinstance(argument, os.PathLike) else str(argument))
    try:
        main.main(words, prog_name="canasta-sim", standalone_mode=True)
    except SystemExit as end:
        code = end.code
        return code if isinstance(code, int) else 0 if code is None else 1
    return 0
