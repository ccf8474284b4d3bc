"""What a strategy spec runs that is not canasta-sim's own code: the file it imports, the module, the command.

A run's folder names its strategies (``run.json``, each game's row), and a folder from someone else names whatever
they wrote there.  ``report`` and ``plot`` never run what it names; ``replay`` and ``--resume`` play the recorded
strategies by design, and say first what they will run (:func:`outside_code_note`), so that the user reads it
before anything starts (docs/security.md).

What counts as canasta-sim's own: a built-in strategy with its parameters (``greedy:freeze=0.5``), ``isolated:`` of
one (the bot server is canasta-sim's), a played game whose partner is one, a module of the ``canasta_sim``
package, and what the user installed (a plugin's name, an ``openspiel:`` bot by its name): code the user chose to
have, which a folder can only name.  A module found in the directory the strategies start from is named with its
file: a resume moves into the run's recorded directory, where a ``mod.py`` the folder's sender chose may lie.
"""

from __future__ import annotations

import importlib.machinery
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import unquote

from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.specs import bot_command, file_spec_parts, is_file_part, parse_spec, split_target
from canasta_sim.strategies import BUILTIN

__all__ = ["code_run_by", "outside_code_note"]

_OWN_NAMES = frozenset(BUILTIN)
"""The built-ins' names as this module is imported, before any strategy's file could add its own class."""

_TARGET_FORMS = frozenset({"policy", "openspiel"})
"""Spec forms whose target may name a file or a module to import (``policy:agent.py:act``,
``openspiel:bots.py:make``), where a bare name (``openspiel:mcts``) is installed code."""


def code_run_by(spec: str, file: str | None = None, start: str | None = None, *, served: bool = False) -> str | None:
    """What loading and playing ``spec`` runs that is not canasta-sim's own or installed, in words (``the file
    /home/a/bot.py``, ``the command 'node bot.js'``, ``the module bots.mine``); ``None`` when it runs none.

    :param file: the file the run recorded for a file spec (``run.json``'s ``file``), which the loader imports
        instead of the spec's path while it exists.
    :param start: the directory a relative path is found from (where the run started), if not this one.
    :param served: whether the spec is played by canasta-sim's bot server (``isolated:``), a Python process that
        imports nothing from the directory it starts in (``python -P``).

    >>> code_run_by("greedy:freeze=0.5"), code_run_by("isolated:expert")
    (None, None)
    >>> code_run_by("cmd:node bot.js:depth=2")
    "the command 'node bot.js'"
    """
    spec = spec.strip()
    if spec.startswith("cmd:"):
        try:
            argv = bot_command(spec)[0]
        except StrategyLoadError:
            argv = [spec[len("cmd:"):]]
        where = f" in {start}" if start is not None else ""
        return f"the command {shlex.join(argv)!r}{where}"
    if spec.startswith("isolated:"):  # its process is canasta-sim's bot server: what runs is the inner spec's code
        return code_run_by(spec[len("isolated:"):], file, start, served=True)
    try:
        target, parameters = parse_spec(spec)
    except StrategyLoadError:
        return None  # no strategy loads from it: nothing runs
    if target in _OWN_NAMES:
        return None
    form, _, rest = target.partition(":")
    if form == "played":  # the recorded moves are data; the partner is a spec of its own
        return code_run_by(unquote(rest), None, start)
    if form in _TARGET_FORMS:  # FILE.py:NAME or module:NAME after the form; a bare name is the form's own bot
        target = rest
    elif (parts := file_spec_parts(spec)) is not None:
        found = Path(_absolute(Path(file) if file is not None and Path(file).is_file() else Path(parts[0]).expanduser(),
                               start))
        return f"the file {str(found)!r}" if found.is_file() else None  # a missing file runs nothing: its load fails
    module_part, separator, _ = split_target(target)
    if not separator:
        return None  # an installed plugin's name, or no strategy at all
    if is_file_part(module_part):
        found = Path(_absolute(Path(module_part).expanduser(), start))
        return f"the file {str(found)!r}" if found.is_file() else None
    if module_part == "canasta_sim" or module_part.startswith("canasta_sim."):
        return None
    found = _module_in_start(module_part, start, served)
    return f"the module {module_part}" if found is None else f"the module {module_part} from {found!r}"


def _module_in_start(module: str, start: str | None, served: bool) -> str | None:
    """Where ``module`` is found in the directory strategies start from, when the process importing it looks there:
    this process with the working directory on its path (a notebook's kernel), never a bot server (``python -P``).  A
    resume started elsewhere moves into the run's recorded directory first, so a ``mod.py`` lying there is what runs,
    which the module's bare name would pass off as installed code."""
    if served or not any(entry in ("", ".") for entry in sys.path):
        return None
    folder = _absolute(Path("."), start)
    found = importlib.machinery.PathFinder.find_spec(module.partition(".")[0], [folder])
    if found is None:
        return None
    return found.origin if found.has_location else str(Path(folder, module.partition(".")[0]))


def _absolute(path: Path, start: str | None) -> str:
    return str(path if path.is_absolute() else Path(start or Path.cwd()) / path)


def outside_code_note(specs: Iterable[str], files: Mapping[str, str], doing: str,
                      start: str | None = None) -> str | None:
    """The one line saying what ``doing`` (``"replaying game 3"``, ``"resuming the run"``) will run that is not
    canasta-sim's own, each spec's code named once, or ``None`` when every spec is canasta-sim's or installed.

    :param files: the files the run recorded, by spec (:func:`code_run_by`'s ``file``).
    :param start: the directory the strategies start from, if not this one (:func:`code_run_by`).
    """
    named: dict[str, str] = {}
    for spec in dict.fromkeys(specs):
        code = code_run_by(spec, files.get(spec), start)
        if code is not None:
            named.setdefault(code, spec)
    if not named:
        return None
    listed = "; ".join(f"{code} ({spec})" for code, spec in named.items())
    return (f"note: {doing} runs code the run's folder names, as your user, not canasta-sim's own: {listed} "
            "(canasta-sim report shows a folder's strategies without running them; canasta-sim docs security)")
