"""Options and errors shared by the commands, most of them by those that play games in workers (``run``, ``compare``,
``tune``).

Bad input gets one ``Error: ...`` line and exit code 2 (:class:`OneLineErrorCommand`, :func:`fail`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from canasta_sim.cli import OneLineErrors, StandardOutputLog
from canasta_sim.cli.outputs import is_standard_output, output_error
from canasta_sim.core.cards import DECK_COUNTS, counts_value
from canasta_sim.core.parameters import format_value
from canasta_sim.errors import CanastaError, UserInterrupt
from canasta_sim.plugins.affinity import AFFINITY_VARIABLE, affinity_enabled
from canasta_sim.plugins.pools import MEMORY_LIMIT_VARIABLE
from canasta_sim.plugins.specs import is_bot_spec, isolate_spec
from canasta_sim.runs.containment import has_memory_limit, no_memory_limit_reason
from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE, games_at_once_cap
from canasta_sim.runs.runner import MAX_TIME_LIMIT, RunSettings, default_workers
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.storage import DamagedPartError, made_new_folder
from canasta_sim.strategies import BUILTIN
from canasta_sim.tuning.run import is_tuning_run

if TYPE_CHECKING:
    from canasta_sim.core.rules import Rules

__all__ = [
    "MEGABYTES",
    "MEGABYTES_OR_NONE",
    "MIN_MEMORY_LIMIT",
    "SECONDS",
    "STRATEGY_SPECS",
    "OneLineErrorCommand",
    "Seconds",
    "WholeNumber",
    "cap_games_at_once",
    "changed_rules_text",
    "check_even_games",
    "check_game_pairs",
    "counted",
    "ctrl_c_raises",
    "default_folder_made",
    "fail",
    "games_at_once_option",
    "interrupted_as_the_users",
    "isolation_options",
    "limit_memory",
    "open_log_file",
    "rules_given",
    "rules_option",
    "rules_options",
    "rules_text",
    "pin_cores",
    "refuse_isolating_resume",
    "supervision_options",
    "worker_count",
    "workers_option",
]


EXIT_INTERRUPTED = 130
"""The exit code of a command the user interrupted (128 + SIGINT), as shells give it."""


@contextlib.contextmanager
def ctrl_c_raises(interrupt: type[UserInterrupt]):
    """Within the block, Ctrl-C raises ``interrupt`` (a :class:`~canasta_sim.errors.UserInterrupt`) where Python
    raises ``KeyboardInterrupt``; the handler before it is put back after.

    A ``KeyboardInterrupt`` raised inside a strategy's decision is that seat's failure to the engine: a person's
    Ctrl-C while a bot was thinking would read "strategy ... raised KeyboardInterrupt".  A ``UserInterrupt`` the engine
    lets through.
    """

    def handler(number, frame) -> None:
        raise interrupt()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def interrupted_as_the_users():
    """Within the block, Ctrl-C ends the command with "Interrupted" and exit code 130 (:func:`ctrl_c_raises`), where it
    ended ``watch`` or ``replay`` with the failure of the strategy whose decision it interrupted."""
    try:
        with ctrl_c_raises(UserInterrupt):
            yield
    except UserInterrupt:
        click.echo("Interrupted", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None


class OneLineErrorCommand(OneLineErrors, click.Command):
    """A command whose errors print as one ``Error: ...`` line (exit code 2) however it is invoked: through
    ``canasta-sim``, whose group does the same for every command, or on its own (:class:`OneLineErrors`).

    A damaged part of a run (:class:`~canasta_sim.runs.storage.DamagedPartError`), wherever the command reads one,
    exits with 1 instead: the arguments were right, and the run needs mending.
    """

    def one_line_error(self, error: CanastaError) -> click.ClickException:
        """The error as one line: exit code 1 for a damaged part of a run, 2 for anything else."""
        if isinstance(error, DamagedPartError):
            return click.ClickException(" ".join(str(error).split()))
        return super().one_line_error(error)


def open_log_file(path: Path | None) -> logging.Handler | None:
    """The handler of ``--log-file PATH`` (``None`` without one; standard output for ``-``), or the option's
    one-line error."""
    if path is None:
        return None
    if is_standard_output(path):
        return StandardOutputLog()
    try:
        return logging.FileHandler(path, encoding="utf-8")
    except OSError as error:
        raise output_error("--log-file", path, error) from None


DECK_POINTS = counts_value(DECK_COUNTS)
"""What all 108 cards count (R1.4), 1,180: no initial meld reaches a minimum above it (R10.2)."""


def rules_given(rule_options: tuple[str, ...]) -> Rules:
    """The rules of ``--rules KEY=VALUE`` options (:meth:`Rules.from_options`), with a warning on standard error when
    a side below the target needs more to open than all the cards count: a designer's variant whose games end at the
    engine's 400-hand guard, pimc taking most of an hour each, was told nothing of why.

    :raises RulesError: as :meth:`Rules.from_options` does.
    """
    from canasta_sim.core.rules import Rules

    rules = Rules.from_options(rule_options)
    beyond = [minimum for score, minimum in rules.initial_meld_table
              if minimum > DECK_POINTS and score < rules.target_score]
    if beyond:
        only = "can open only by going out concealed" if rules.concealed_exempt_from_minimum else "can never meld"
        click.echo(f"Warning: initial_meld_table asks {max(beyond)} points to open, more than all 108 cards count "
                   f"({DECK_POINTS}): a side needing it {only}, so games may end at the engine's guard of 400 hands, "
                   "not at the target", err=True)
    return rules


rules_option = click.option(
    "--rules", "rule_options", multiple=True, metavar="KEY=VALUE",
    help="A rule-set option, e.g. target_score=3000; repeatable, one per key (every key and its values: canasta-sim "
         "docs rules, section 17). Default: the classic rules.")
"""``--rules KEY=VALUE`` as every command playing games takes it (:func:`rules_given` reads it): said once, so that a
reader of any command's help learns what it takes and where the keys are."""

STRATEGY_SPECS = "canasta-sim strategies lists the names and the forms of a spec"
"""Where a strategy option's help sends a reader to learn what a ``SPEC`` may be."""


def rules_options(rules: Rules) -> list[str]:
    """``--rules KEY=VALUE`` for each rule that differs from the defaults, as a command line the tool prints takes
    them."""
    return [word for changed in rules.changed_words() for word in ("--rules", changed)]


def rules_text(rules: Rules) -> str:
    """The rules that differ from the defaults as a message shows them (``target_score=3000, ...``), or
    ``default``."""
    return changed_rules_text(rules.changed_options())


def changed_rules_text(changed: Mapping[str, Any]) -> str:
    """Rules that differ from the defaults, as :meth:`Rules.changed_options` or ``run.json``'s ``rules_changed`` hold
    them, as ``--rules`` takes them (``allow_wild_only_melds=true, target_score=3000``), or ``default``."""
    return ", ".join(f"{key}={format_value(value)}" for key, value in changed.items()) or "default"


def default_folder_made(path: Path) -> Path:
    """The default output folder ``path`` (``results/<date-time>``), made now
    (:func:`~canasta_sim.runs.storage.made_new_folder`), or the one-line error saying to give ``--out``: a read-only
    current folder (a container's, a CI checkout's) or a file named ``results`` there ended in a traceback."""
    try:
        return made_new_folder(path)
    except OSError as error:
        raise fail(f"the default output folder {str(path)!r} cannot be made in the current folder: "
                   f"{error.strerror or error}; give --out a folder this user can write") from None


def counted(count: int, noun: str) -> str:
    """``count`` of ``noun`` as a sentence says it: ``'1 hand'``, ``'3 hands'``."""
    return f"{count} {noun}{'s' * (count != 1)}"


class Seconds(click.ParamType):
    """A decision time limit: a number of seconds above 0 and at most :data:`MAX_TIME_LIMIT` (``inf`` and ``nan``
    refused: no clock is armed with them)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        """The number of seconds ``value`` gives, or the option's one-line error."""
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= MAX_TIME_LIMIT:
            self.fail(f"{value!r} is not a number of seconds above 0 and at most {MAX_TIME_LIMIT:,}", param, ctx)
        return seconds


SECONDS = Seconds()


class WholeNumber(click.IntRange):
    """A count or a size, a whole number within bounds; anything else is refused naming what is accepted (``'abc' is
    not a whole number from 30 to 600``, ``10 is out of range: use a whole number from 30 to 600``), where click said
    ``'abc' is not a valid integer range`` of a value in which no range was typed, and said no more."""

    name = "integer"

    def convert(self, value, param, ctx):
        """The whole number ``value`` gives, or the option's one-line error naming the range accepted."""
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            try:
                int(value)
            except (TypeError, ValueError):
                self.fail(f"'{value}' is not a whole number{self.accepted()}", param, ctx)
            self.fail(f"{value} is out of range: use a whole number{self.accepted()}", param, ctx)

    def _describe_range(self) -> str:
        # click's own reads "x<=None" for a range with neither bound (a seed), which help showed as "[x<=None]".
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()

    def accepted(self) -> str:
        """The accepted range as the message words it, after "a whole number" (empty when any is)."""
        if self.min is not None and self.max is not None:
            return f" from {self.min:,} to {self.max:,}"
        if self.min is not None:
            return f" of {self.min:,} or more"
        if self.max is not None:
            return f" of {self.max:,} or less"
        return ""


MIN_MEMORY_LIMIT = 1024
"""The lowest ``--memory-limit`` in MiB, about twice what a worker starts with.  A worker is forked with the address
space of the command that starts it (measured, VmPeak: 530 MiB under run and tune, 458 under compare, however many
workers), so a lower limit left it no room for anything a strategy allocates, and looked as if it had no effect
(1 MiB was taken, and built-in strategies still played); a bot process (isolated:, cmd:) needs about 48 MiB (at 24
it could not start, "failed to map segment"; at 32 pimc's died of SIGSEGV)."""

MEGABYTES = WholeNumber(min=MIN_MEMORY_LIMIT, max=16 * 1024 * 1024)
"""A memory limit in MiB: at least :data:`MIN_MEMORY_LIMIT`, and at most 16 TiB, which the system's limit holds as
bytes (a larger one overflowed it, and every worker died before its first game with no word of why)."""


class MegabytesOrNone(WholeNumber):
    """A memory limit as :data:`MEGABYTES` takes it, or ``none``: no limit, where ``run --resume`` or ``tune --resume``
    would otherwise go on with the run's own."""

    def convert(self, value, param, ctx):
        """``None`` for ``none``, else the limit in MiB as :data:`MEGABYTES` reads it."""
        if isinstance(value, str) and value.strip().lower() == "none":
            return None
        return super().convert(value, param, ctx)

    def accepted(self) -> str:
        """The range as :class:`WholeNumber` words it, and ``none``."""
        return f"{super().accepted()}, or none"


MEGABYTES_OR_NONE = MegabytesOrNone(min=MEGABYTES.min, max=MEGABYTES.max)
"""``run``'s and ``tune``'s ``--memory-limit``: :data:`MEGABYTES`, or ``none`` to lift the limit a resumed run had."""


def games_at_once_option(resumed: str | None = None):
    """``--games-at-once N`` (``run``, ``compare``, ``tune``): the most games a worker plays side by side with
    bot processes, set for the workers by :func:`cap_games_at_once`; ``resumed`` names what the command's
    ``--resume`` continues, whose own it keeps unless given (as ``--memory-limit``)."""
    on_resume = "" if resumed is None else f" With --resume: {resumed}'s own unless given."
    return click.option(
        "--games-at-once", type=WholeNumber(min=1), default=None, metavar="N",
        help="Games each worker plays at once with bot processes (isolated:, cmd:), each bot process playing its "
             "seat in all of them (default: as many as the bots take, 128 for isolated:). No game changes; under "
             f"--memory-limit a bot process's limit holds all its games, and 1 gives each game the whole limit, as "
             f"in-process (canasta-sim docs fairness).{on_resume}")


def cap_games_at_once(games: int | None) -> int | None:
    """Apply ``--games-at-once`` to the workers this process starts (through the environment they inherit, as
    ``CANASTA_SIM_GAMES_AT_ONCE``); return the cap they will play under (``None``: none), the variable's own when
    the option is not given.

    :raises click.UsageError: for a variable set to anything but a whole number, in one line.
    """
    if games is not None:
        os.environ[GAMES_AT_ONCE_VARIABLE] = str(games)
    try:
        return games_at_once_cap()
    except ValueError as error:
        raise fail(str(error)) from None


def supervision_options(function=None, *, resumed: str | None = None):
    """``--time-limit``, ``--memory-limit``, ``--games-at-once``, ``--pin-cores`` and ``--log-file`` as ``compare``
    and ``tune`` take them; ``resumed`` names what a command's ``--resume`` continues (``tune``: ``the tuning``),
    whose own ``--memory-limit`` and ``--games-at-once`` it keeps unless the option is given, ``none`` lifting the
    limit (as ``run --resume`` does)."""
    if function is None:
        return functools.partial(supervision_options, resumed=resumed)
    on_resume = "" if resumed is None else f" With --resume: {resumed}'s own unless given; none lifts it."
    options = [
        click.option("--time-limit", type=SECONDS, default=None, metavar="SECONDS",
                     help="Seconds one decision of a strategy may take; a slower one is a failure (see --on-error). "
                          "Off by default, as in run."),
        click.option("--memory-limit", type=MEGABYTES if resumed is None else MEGABYTES_OR_NONE, default=None,
                     metavar="MB",
                     help="Megabytes (MiB: 1024 x 1024 bytes) of address space each worker process and each "
                          "strategy process (isolated:, cmd:) may use, at least 1024 (default: no limit; a worker "
                          "starts with about 530); a strategy allocating past it fails, charged to its seat (see "
                          f"--on-error). Linux only.{on_resume}"),
        games_at_once_option(resumed),
        click.option("--pin-cores", "pin", is_flag=True,
                     help="Give each worker whose games have bot processes (isolated:, cmd:) a core of its own and "
                          "its bots the cores no worker holds, when there are two cores a worker (as in run)."),
        click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Write every message, at debug level, to this file, or with - to standard output: "
                          "failures with the strategy's traceback, what strategies print."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


GAME_TIME_LIMIT_HELP = ("Seconds one decision may take; a slower one is its side's loss on time. Off by default, as "
                        "in run: a game's course then never depends on the machine's speed.")
"""``--time-limit`` of a single game (``watch``, ``play``): its words, kept in one place."""


def game_time_limit_option(extra: str = ""):
    """``--time-limit SECONDS`` of a single game, as ``watch`` and ``play`` take it (``extra``: what a command adds
    to its help)."""
    return click.option("--time-limit", type=SECONDS, default=None, metavar="SECONDS",
                        help=GAME_TIME_LIMIT_HELP + extra)


def narration_options(function):
    """``--show-hands/--public-only`` and ``--html FILE`` as ``watch`` and ``replay`` take them: how much of the game
    the narration names, and the page written instead of it."""
    function = click.option(
        "--html", "html_file", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
        help="Write the game as one self-contained HTML page (the table after every move) instead of text "
             "(or with - to standard output).")(function)
    return click.option(
        "--show-hands/--public-only", default=True, show_default=True,
        help="Name every card in every hand and every card drawn, or only what the table sees.",
    )(function)


def fail(message: str) -> click.UsageError:
    """Return the one-line usage error (exit code 2) for ``message``."""
    return click.UsageError(" ".join(message.split("\n")))


def fail_each(message: str) -> click.UsageError:
    """Return :func:`fail`'s error for the last line of ``message``, a problem a line (every strategy of a run that
    cannot be loaded), having written each line before it as an ``Error:`` line of its own."""
    *before, last = message.split("\n")
    for line in before:
        click.echo(f"Error: {line}", err=True)
    return fail(last)


def refuse_tuning_directory(path: Path, option: str = "") -> None:
    """Stop with the one-line error naming what reads a tuning directory, when ``path`` is one: a command that reads a
    run would otherwise say only that it holds no ``run.json``.  ``option`` (``--resume``) starts the message."""
    if is_tuning_run(path):
        start = f"{option} " if option else ""
        shown = quote_shown(str(path))
        raise fail(f"{start}{str(path)!r} is a tuning directory, not a run: canasta-sim plot {shown} draws its "
                   f"trajectory, and canasta-sim tune --resume {shown} continues it")


def check_even_games(option: str, games: int, duplicating: str) -> None:
    """Refuse an odd number of games where each deal is played twice, the strategies swapped (``duplicating`` names
    what makes it so): the last deal would be played once, and a deal played once counts in no paired result."""
    _check_even(option, games, f"{duplicating} plays each deal twice, the strategies swapped")


def check_game_pairs(option: str, games: int, settings: RunSettings, *, growing: bool = False) -> None:
    """Refuse an odd number of games for a run that plays its games two by two: each deal twice (``--duplicate``,
    :func:`check_even_games`), or, in a round robin, each pair's two games in turn, sides swapped
    (:func:`~canasta_sim.runs.matchmaking.scheduled_sides`), whose last game would go to a pair alone, the sides
    not swapped.

    A schedule spreading the games otherwise would depend on the number of games, and a grown run's first games
    would then not be those it had played; an even number keeps every game as it was.  ``growing``: the run is grown
    to ``games`` by ``--resume``.
    """
    if settings.duplicate:
        check_even_games(option, games, "the run, made with --duplicate," if growing else "--duplicate")
    elif len(settings.specs) >= 3:
        pairs = len(settings.specs) * (len(settings.specs) - 1) // 2
        robin = "the run, a round robin," if growing else "a round robin"
        _check_even(option, games, f"{robin} plays each pair two games in turn, sides swapped",
                    f"; a multiple of {2 * pairs} gives each of its {pairs} pairs as many")


def _check_even(option: str, games: int, why: str, more: str = "") -> None:
    if games % 2:
        even = f"{games - 1} or {games + 1}" if games > 1 else "2"
        raise fail(f"{option} {games}: {why}, so give an even number of games ({even}{more})")


def isolation_options(specs, isolate: bool, memory_limit: int | None = None) -> tuple[str, ...]:
    """Apply ``--isolate`` to the specs (each non-built-in becomes ``isolated:SPEC``) and ``--memory-limit``
    (:func:`limit_memory`)."""
    limit_memory(memory_limit)
    if not isolate:
        return tuple(specs)
    return tuple(isolate_spec(spec, BUILTIN) for spec in specs)


def refuse_isolating_resume(resume: Path, specs: tuple[str, ...], made: str) -> None:
    """Refuse ``--isolate`` on the ``--resume`` of a run or tuning (``made``) whose strategies ``specs`` it would
    change: its games were played by those strategies as they were loaded."""
    if isolation_options(specs, True) != specs:
        raise fail(f"--resume {resume}: the {made} was made with strategies {' vs '.join(specs)}, which --isolate "
                   f"would change; resume it without that option or start a new {made}")


def limit_memory(memory_limit: int | None) -> None:
    """Apply ``--memory-limit`` to the strategy processes this process and its workers start (through the environment
    they inherit); ``None`` leaves them unlimited.

    :raises click.ClickException: where no memory can be capped (Windows, macOS: :func:`has_memory_limit`), rather
        than a run that looks limited and is not.
    """
    if memory_limit is not None:
        if not has_memory_limit():
            raise fail(f"--memory-limit {memory_limit}: {no_memory_limit_reason()}; leave the option out (a resumed "
                       "run that had one: --memory-limit none)")
        os.environ[MEMORY_LIMIT_VARIABLE] = str(memory_limit)


def pin_cores(pin: bool) -> None:
    """Apply ``--pin-cores`` to the workers this process starts (through the environment they inherit), and
    check ``CANASTA_SIM_AFFINITY``, which the option sets (:mod:`canasta_sim.plugins.affinity`).

    The worker pool, which knows how many workers a run really starts, warns when it cannot place them.
    """
    if pin:
        os.environ[AFFINITY_VARIABLE] = "1"
    try:
        affinity_enabled()
    except ValueError as error:
        raise fail(str(error)) from None


workers_option = click.option(
    "--workers", type=WholeNumber(min=1), default=None,
    help="Worker processes (default: one per core this process may use, fewer under a container's CPU quota; with "
         "--pin-cores and bot processes, one for every two).")
"""``--workers`` as ``run``, ``compare`` and ``tune`` take it; :func:`worker_count` gives its default."""


def worker_count(workers: int | None, specs) -> int:
    """``--workers`` as given, or its default: a worker per core, or, when placement is on (``--pin-cores``) and
    ``specs`` run bot processes, a worker per two cores: each then has a core of its own and its bots another,
    where a worker per core would leave none to place."""
    if workers is not None:
        return workers
    cores = default_workers()
    if affinity_enabled() and any(is_bot_spec(spec) for spec in specs):
        return max(1, cores // 2)
    return cores
