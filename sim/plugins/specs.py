"""The grammar of strategy specs: a target, then optional ``:KEY=VALUE[,KEY=VALUE...]`` parameters; and the
command line a bot spec (``isolated:``, ``cmd:``) runs.

Both the loader (:mod:`canasta_sim.plugins.loader`) and the strategy processes
(:mod:`canasta_sim.plugins.proxy`) read specs; this module, which imports neither, is the grammar they share.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from canasta_sim.errors import MachineRefusal, StrategyError, StrategyLoadError

__all__ = [
    "BOT_PIPES_WAITABLE", "BOT_PREFIXES", "SERVER_COMMAND", "bot_processes_refusal",
    "bot_command", "command_files", "file_spec_parts", "is_bot_spec", "is_file_part",
    "is_own_server", "isolate_spec", "is_one_line", "is_strategy_name", "machine_refusal", "parse_spec", "spec_file",
    "split_target",
    "NAME_ACCEPTED",
]

BOT_PREFIXES = ("isolated:", "cmd:")
"""Spec prefixes that run a strategy in a process of its own (:mod:`canasta_sim.plugins.proxy`)."""
BOT_PIPES_WAITABLE = os.name == "posix"
"""Whether this system can wait on a bot process's pipes, which every bot spec needs: canasta-sim waits on them with
:mod:`selectors`, and Windows's ``select`` takes sockets only."""
# -P: the bot server imports nothing from the folder it starts in (python -m would put it first on its path), so a
# module lying there (an orjson.py, a canasta_sim/) is never run in place of its own, and a spec's module is found on
# the Python path alone, as in-process.
SERVER_COMMAND = [sys.executable, "-P", "-m", "canasta_sim.plugins.server"]
"""The command line of canasta-sim's own bot server, followed by the spec it serves (``isolated:``)."""


NAME_ACCEPTED = "without ':', '@' or spaces, such as 'my-bot'"
"""What :func:`is_strategy_name` accepts, as errors name it."""


def is_strategy_name(name: object) -> bool:
    """Whether ``name`` may name a strategy in results (``name@version``): text with no ``:``, ``@`` or whitespace.

    One rule for a strategy class in this process and for a bot's ``ready`` (``docs/protocol.md``), so that a class
    is accepted or refused alike whether it plays in-process, ``isolated:`` or as a ``cmd:`` bot.  (The spec forms
    canasta-sim registers name their classes after their specs, ``openspiel:mcts``: the loader does not ask this
    of them.)

    >>> is_strategy_name("my-bot"), is_strategy_name("my@bot"), is_strategy_name("my bot")
    (True, False, False)
    """
    return isinstance(name, str) and bool(name) and not any(
        character in ":@" or character.isspace() for character in name
    )


def is_one_line(text: object) -> bool:
    r"""Whether ``text`` is text of at most one line, as a strategy's ``description`` must be (a table shows it).

    >>> is_one_line("Takes piles."), is_one_line("Takes piles.\nLays big melds.")
    (True, False)
    """
    return isinstance(text, str) and text.splitlines() == ([text] if text else [])


def is_bot_spec(spec: str) -> bool:
    """Whether ``spec`` runs its strategy in a process of its own."""
    return spec.strip().startswith(BOT_PREFIXES)


def bot_processes_refusal(spec: str) -> str | None:
    """Why bot spec ``spec`` cannot play on this system (Windows: :data:`BOT_PIPES_WAITABLE`), in one line; ``None``
    where it can."""
    if BOT_PIPES_WAITABLE:
        return None
    return (f"strategy {spec.strip()!r}: bot processes (isolated:, cmd:, --isolate) cannot run on Windows, where "
            "canasta-sim cannot wait on their pipes; play a Python strategy in-process (FILE.py:Class), or run "
            "canasta-sim under WSL")


def machine_refusal(outcome: object) -> MachineRefusal | None:
    """The machine's refusal of a bot process behind ``outcome``, a game's result or the failure that ended it; ``None``
    when there is none (a result, or a failure that is the strategy's own).

    The engine charges whatever a seat's build or call raises to that seat, so the machine refusing a process to the
    proxy of a bot seat arrives as that seat's :class:`~canasta_sim.errors.StrategyError`, the refusal its cause.  It is
    believed only of a bot spec's seat: there only canasta-sim's proxy runs in this process (the bot's code runs in
    its own), where an in-process strategy could raise a refusal of its own making to escape its failure.
    """
    if not isinstance(outcome, StrategyError) or not is_bot_spec(outcome.spec):
        return None
    cause = outcome.__cause__
    return cause if isinstance(cause, MachineRefusal) else None


def parse_spec(spec: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Split a spec into its target and its ``key=value`` parameters.

    >>> parse_spec("expert:aggression=0.7")
    ('expert', (('aggression', '0.7'),))
    >>> parse_spec("bots/my_bot.py:MyBot:depth=2")
    ('bots/my_bot.py:MyBot', (('depth', '2'),))
    """
    if not spec or not spec.strip():
        raise StrategyLoadError(
            "empty strategy spec; use a built-in name, FILE.py:Class, module:Class or a plugin name"
        )
    parts = spec.strip().split(":")
    if any(not part.strip() for part in parts[1:]):
        raise StrategyLoadError(
            f"strategy spec {spec!r} has an empty part after a colon; use NAME, FILE.py:Class, "
            "module:Class, each optionally followed by :KEY=VALUE[,KEY=VALUE...]"
        )
    target_parts: list[str] = []
    parameters: list[tuple[str, str]] = []
    for index, part in enumerate(parts):
        if "=" in part and index > 0:
            for item in part.split(","):
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise StrategyLoadError(f"strategy spec {spec!r}: parameter {item!r} is not KEY=VALUE")
                key = key.strip()
                given = [earlier for name, earlier in parameters if name == key]
                if given:  # silently keeping the last would play a value the writer may not have meant
                    raise StrategyLoadError(f"strategy spec {spec!r} gives {key} twice ({key}={given[0]} and "
                                            f"{key}={value.strip()}); give each parameter once")
                parameters.append((key, value.strip()))
        elif parameters:
            raise StrategyLoadError(f"strategy spec {spec!r}: parameters must come last")
        else:
            target_parts.append(part)
    return ":".join(target_parts), tuple(parameters)


def spec_file(spec: str) -> Path | None:
    """The absolute path of a file spec's file, resolved from the working directory; ``None`` for other specs.

    An ``isolated:`` spec's file is its inner spec's: the file is loaded in the bot's process, from this path.

    >>> spec_file("expert") is None
    True
    """
    parts = file_spec_parts(spec)
    return None if parts is None else Path(parts[0]).expanduser().resolve()


def file_spec_parts(spec: str) -> tuple[str, str, tuple[tuple[str, str], ...]] | None:
    """A file spec's file part as written, its class name and its parameters, an ``isolated:`` spec's those of its
    inner spec; ``None`` for other specs, and for a spec that does not parse (loading it reports what is wrong).

    >>> file_spec_parts("isolated:bots/my_bot.py:MyBot:depth=2")
    ('bots/my_bot.py', 'MyBot', (('depth', '2'),))
    """
    spec = spec.strip()
    if spec.startswith("isolated:"):  # the loader's prefix, spelled here because this module imports no loader
        spec = spec[len("isolated:"):]
    try:
        target, parameters = parse_spec(spec)
    except StrategyLoadError:
        return None
    module_part, sep, class_name = split_target(target)
    if sep and is_file_part(module_part):
        return module_part, class_name, parameters
    return None


def split_target(target: str) -> tuple[str, str, str]:
    r"""A target's module or file part, the colon and its class name, as :meth:`str.rpartition` splits them, except
    that a Windows drive's colon splits nothing: ``C:\bots\mine.py`` is a file with no class, not class
    ``\bots\mine.py`` of module ``C``.

    >>> split_target(r"C:\bots\mine.py:Mine")
    ('C:\\bots\\mine.py', ':', 'Mine')
    >>> split_target(r"C:\bots\mine.py")
    ('', '', 'C:\\bots\\mine.py')
    """
    module_part, sep, class_name = target.rpartition(":")
    if len(module_part) == 1 and module_part.isalpha() and class_name[:1] in ("\\", "/"):
        return "", "", target
    return module_part, sep, class_name


def is_file_part(module_part: str) -> bool:
    """Whether the part before ``:Class`` of a target names a file (``bot.py``, ``bots/bot``), not a module."""
    return module_part.endswith(".py") or "/" in module_part or "\\" in module_part


def isolate_spec(spec: str, builtin_names) -> str:
    """The spec ``--isolate`` plays instead of ``spec``: ``isolated:SPEC`` for any spec that is not a
    built-in (``builtin_names``) and not already a bot spec; built-ins are the project's own code and
    stay in-process unless named ``isolated:NAME``."""
    stripped = spec.strip()
    if is_bot_spec(stripped) or parse_spec(stripped)[0] in builtin_names:
        return stripped
    return f"isolated:{stripped}"


def bot_command(spec: str, *, file: str | None = None) -> tuple[list[str], tuple[tuple[str, str], ...]]:
    """The command line that runs a bot spec, and the parameters the spec gives.

    :param file: for ``isolated:FILE.py:Class``, the file as a run recorded it (an absolute path): the bot's
        process loads it instead of the spec's path, which is relative to where the run started, when it exists.

    >>> argv, parameters = bot_command("cmd:sh bot.sh --fast:depth=2")
    >>> argv, parameters
    (['sh', 'bot.sh', '--fast'], (('depth', '2'),))

    :raises StrategyLoadError: for a spec that is no bot spec, an empty command or bad parameters.
    """
    stripped = spec.strip()
    if stripped.startswith("isolated:"):
        inner = stripped[len("isolated:"):]
        if is_bot_spec(inner):
            raise StrategyLoadError(f"strategy spec {spec!r}: {inner.split(':')[0]}: specs run in a process already")
        target, parameters = parse_spec(inner)
        if _is_spec_form(target):  # its parameters are the form's to read (a policy's factory), in the bot process
            return [*SERVER_COMMAND, inner], ()
        module_part, sep, class_name = split_target(target)
        if file is not None and sep and is_file_part(module_part) and os.path.isfile(file):
            target = f"{file}:{class_name}"
        return [*SERVER_COMMAND, target], parameters
    if not stripped.startswith("cmd:"):
        raise StrategyLoadError(f"strategy spec {spec!r} is not a bot spec; bot specs start with isolated: or cmd:")
    command, parameters = _split_parameters(stripped[len("cmd:"):], spec)
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise StrategyLoadError(f"strategy spec {spec!r}: the command cannot be split into words: {error}") from None
    if not argv:
        raise StrategyLoadError(f"strategy spec {spec!r} names no command; write cmd:COMMAND [ARGS...]")
    found = shutil.which(argv[0])
    if found is None:
        raise StrategyLoadError(f"strategy spec {spec!r}: command {argv[0]!r} is not found (not on PATH, not a file)")
    return argv, parameters


def command_files(spec: str) -> tuple[str, ...]:
    """The files a ``cmd:`` spec's command names, as absolute paths: its words naming a file from here, the program
    itself only where it is given as a path (``./bot``), not one found on ``PATH`` (an interpreter's upgrade changes
    no bot); ``()`` for other specs, or a command that cannot be read."""
    stripped = spec.strip()
    if not stripped.startswith("cmd:"):
        return ()
    try:
        argv = shlex.split(_split_parameters(stripped[len("cmd:"):], spec)[0])
    except ValueError:
        return ()
    words = [*([argv[0]] if argv and os.sep in argv[0] else []), *argv[1:]]
    return tuple(dict.fromkeys(str(Path(word).expanduser().resolve()) for word in words
                               if Path(word).expanduser().is_file()))


def is_own_server(argv: list[str]) -> bool:
    """Whether ``argv`` runs canasta-sim's own bot server, the process of an ``isolated:`` spec."""
    return argv[:len(SERVER_COMMAND)] == SERVER_COMMAND


def _is_spec_form(target: str) -> bool:
    # Imported here: the loader imports this module.
    from canasta_sim.plugins.loader import _spec_form

    return _spec_form(target) is not None


def _split_parameters(command: str, spec: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    # A trailing ":KEY=VALUE,..." holds parameters; a command's own colons or = signs stay in the command.
    head, sep, tail = command.rpartition(":")
    if not sep or not tail or " " in tail.strip() or "=" not in tail:
        return command, ()
    parameters = []
    for item in tail.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key.strip().isidentifier():
            return command, ()
        parameters.append((key.strip(), value.strip()))
    return head, tuple(parameters)
