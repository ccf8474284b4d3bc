"""How a run is played again: the command ``run.json`` records, and the directory its strategies start from.

The command names every setting that shapes the tables (seed, strategies, rules, chunk size, ...) and how the last
session played (``--workers``, ``--on-error``, ``--memory-limit``, ``--games-at-once``); a spec naming a path
relative to the directory the run started in (a file, a bot's script) makes it begin with ``cd`` there, and a resume
from elsewhere starts such strategies there too.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from canasta_sim.cli.options import MEGABYTES, rules_options
from canasta_sim.plugins.affinity import affinity_enabled
from canasta_sim.plugins.outside_code import outside_code_note
from canasta_sim.plugins.specs import file_spec_parts
from canasta_sim.runs.dask_backend import DaskChunkRunner
from canasta_sim.runs.interleave import games_at_once_cap
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.runner import ChunkRunner, RunSettings
from canasta_sim.runs.storage import RunDirectory, malformed_entry

__all__ = ["limit_options", "note_outside_code", "options_played_with", "out_named", "recorded_games_at_once",
           "recorded_memory_limit", "recorded_start", "reproducing_command", "same_strategies_as_run",
           "session_options", "specs_named_from_start", "start_command", "start_directory", "started_elsewhere"]


def reproducing_command(settings: RunSettings, path: Path, session: Sequence[str] = ()) -> str:
    """The command line that plays exactly this run (with its seed, even a drawn one) into ``path``.

    :param session: the options of how it is played (:func:`session_options`: workers, ``--on-error``, memory
        limit), which the settings do not hold.  A spec naming a relative path (a file, or a command's
        script) is found from the directory the run started in, so the command then begins with ``cd`` to it.
    """
    words = ["canasta-sim", "run", "--games", str(settings.games), "--seed", str(settings.seed)]
    for spec in settings.specs:
        words += ["-s", spec]
    words += rules_options(settings.rules)
    words += ["--chunk-size", str(settings.chunk_size)]  # always: a later version's default may differ
    if settings.duplicate:
        words.append("--duplicate")
    if settings.time_limit is not None:
        words += ["--time-limit", str(settings.time_limit)]
    for choice in settings.record_decisions:
        words += ["--record-decisions", choice]
    return start_command(shlex.join([*words, *session, "--out", out_named(path)]), settings.specs)


def out_named(path: Path) -> str:
    """The run's folder as the command names it: a folder typed as an absolute path inside the directory the command
    starts from is named from there (``results/rr``, not ``/home/alice/club/results/rr``), so that the command in a
    published ``run.json`` carries no one's home and plays the run again wherever it is given; one outside it stays
    absolute, where it is the only name that finds it."""
    if not path.is_absolute():
        return str(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def specs_named_from_start(specs: Sequence[str]) -> tuple[str, ...]:
    """The specs as a new run names them in its tables, summary, reports and ``run.json``, where they are keys: a file
    typed as an absolute path inside the directory the command starts from by its path from there
    (``bots/mine.py:Mine``, as it would be typed there), and one in the user's home, outside it, from the home
    (``~/bots/mine.py:Mine``, which the loader expands); so that a published folder names no one's home, and the same
    bot given from the same place is the same key on every machine.  The run records that directory when a spec is
    named from it, from which ``--resume`` and ``replay`` find the file as they do any relative spec's.  Any other
    absolute path is kept: it is the only name that finds the file."""
    return tuple(_named_from_start(spec) for spec in specs)


def same_strategies_as_run(specs: Sequence[str], manifest: dict[str, Any], run_specs: Sequence[str]) -> bool:
    """Whether ``specs``, given again to resume the run of ``manifest``, are the strategies it plays (``run_specs``):
    as typed, or each file found from the directory the command runs in now being the file the run named, by
    whatever path it is typed here (the run named it from its start folder, or from the home:
    :func:`specs_named_from_start`)."""
    if tuple(specs) == tuple(run_specs):
        return True
    start = started_elsewhere(manifest, run_specs)
    return tuple(_named_from_start(spec, None if start is None else Path(start)) for spec in specs) == tuple(run_specs)


def _named_from_start(spec: str, start: Path | None = None) -> str:
    parts = file_spec_parts(spec)
    if parts is None:
        return spec
    typed = Path(parts[0]).expanduser()
    found_here = not typed.is_absolute()
    if found_here:
        if start is None:
            return spec
        typed = Path(os.path.abspath(typed))  # a path with '..' is no path from the start folder until normalised
    for base, named in ((lambda: Path.cwd() if start is None else start, "{}"), (Path.home, "~/{}")):
        try:
            folder = base()
        except RuntimeError:  # no home known
            continue
        # The root folder names no one's: a path is no shorter from there.
        if folder != Path(folder.anchor) and typed.is_relative_to(folder):
            return spec.strip().replace(parts[0], named.format(typed.relative_to(folder).as_posix()), 1)
    return spec.strip().replace(parts[0], typed.as_posix(), 1) if found_here else spec


def recorded_start(specs: Sequence[str | None]) -> str | None:
    """The directory the run starts from, as ``run.json`` records it (``directory``), when one of ``specs`` names a
    path relative to it (a file, a bot's command), from which a resume, a replay or the recorded command elsewhere
    starts them; ``None`` for other runs, whose folder, published, then names no directory of this machine."""
    return os.getcwd() if any(spec is not None and _names_relative_path(spec) for spec in specs) else None


def _names_relative_path(spec: str) -> bool:
    """Whether a spec may name a path relative to the working directory: a relative file spec, or any command."""
    if spec.strip().removeprefix("isolated:").startswith("cmd:"):
        return True
    parts = file_spec_parts(spec)
    return parts is not None and not Path(parts[0]).expanduser().is_absolute()


def session_options(play_chunks: ChunkRunner, workers: int, on_error: str) -> list[str]:
    """How a session plays its chunks, as options of ``run``: ``--workers``, ``--on-error``, ``--memory-limit``,
    ``--games-at-once`` and ``--pin-cores`` (:func:`options_played_with`).

    A Dask backend is left out, as it changes no table and its scheduler is another day's; on a scheduler's
    cluster, whose workers ``--workers`` does not count, so is ``--workers`` (the command then plays on the default
    local workers: the same tables).  So is a games-at-once cap on it: only local workers are handed one
    (docs/cluster.md)."""
    local = play_chunks is run_chunks or isinstance(play_chunks, functools.partial)
    limited = isinstance(play_chunks, functools.partial) and play_chunks.keywords.get("memory_limit") is not None
    on_a_scheduler = isinstance(play_chunks, DaskChunkRunner) and play_chunks.scheduler is not None
    return options_played_with(None if on_a_scheduler else workers, on_error,
                               play_chunks.keywords["memory_limit"] if limited else None, capped=local)


def options_played_with(workers: int | None, on_error: str, memory_limit: int | None, *,
                        capped: bool = True) -> list[str]:
    """The options of ``run`` that play games as they were played (by ``run`` or ``compare``): ``--workers`` (unless
    ``None``: workers of a cluster's own), ``--on-error``, ``--memory-limit`` when there was one, ``--games-at-once``
    when the games side by side were capped (``capped``: the workers were handed the cap), and ``--pin-cores`` when it
    is on (the last two as this process hands them to its workers)."""
    words = [] if workers is None else ["--workers", str(workers)]
    words += ["--on-error", on_error, *limit_options(memory_limit, capped=capped)]
    if affinity_enabled():
        words.append("--pin-cores")
    return words


def limit_options(memory_limit: int | None, *, capped: bool = True) -> list[str]:
    """``--memory-limit`` when there was one and ``--games-at-once`` when the games side by side were capped (as this
    process hands the cap to its workers, ``capped``): the options that, under a limit, decide which strategies fail;
    every command that records how it played names them (``run``, ``compare``, ``tune``)."""
    words = [] if memory_limit is None else ["--memory-limit", str(memory_limit)]
    cap = games_at_once_cap() if capped else None
    return words if cap is None else [*words, "--games-at-once", str(cap)]


def recorded_memory_limit(manifest: dict[str, Any], where: str) -> int | None:
    """The ``--memory-limit`` the run's last session played with (``None``: none), which ``--resume`` keeps unless
    the option is given, as it keeps ``--on-error``: the limit decides which strategies fail.

    :raises RunDirectoryError: naming the entry when it holds anything a session does not write.
    """
    limit = _last_session_entry(manifest, "memory_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or not MEGABYTES.min <= limit <= MEGABYTES.max):
        raise malformed_entry(where, "sessions[-1].memory_limit",
                              f"a whole number of megabytes from {MEGABYTES.min:,} to {MEGABYTES.max:,}", limit)
    return limit


def recorded_games_at_once(manifest: dict[str, Any], where: str) -> int | None:
    """The ``--games-at-once`` the run's last session played with (``None``: as many as its bots take), which
    ``--resume`` keeps unless the option is given, as it keeps ``--memory-limit``: under a memory limit, how many
    games share a bot process decides which strategies fail.

    :raises RunDirectoryError: naming the entry when it holds anything a session does not write.
    """
    games = _last_session_entry(manifest, "games_at_once")
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise malformed_entry(where, "sessions[-1].games_at_once", "a whole number of games, 1 or more", games)
    return games


def _last_session_entry(manifest: dict[str, Any], key: str) -> Any:
    """The value ``run.json``'s (or ``tune.json``'s) last session recorded under ``key``, ``None`` when it has none."""
    sessions = manifest.get("sessions")
    last = sessions[-1] if isinstance(sessions, list) and sessions else {}
    return last.get(key) if isinstance(last, dict) else None


def start_directory(manifest: dict[str, Any] | None, settings: RunSettings,
                     directory: RunDirectory) -> tuple[contextlib.AbstractContextManager, RunDirectory]:
    """Where a resumed run's strategies start: the directory the run was started from (``run.json``'s
    ``directory``), when a spec names a path relative to it (``cmd:python bot.py``, ``isolated:bots/mine.py:Mine``);
    the run's own directory, given relative to here, is then made absolute."""
    recorded = started_elsewhere(manifest, settings.specs)
    if recorded is None:
        return contextlib.nullcontext(), directory
    # log_file is made absolute by the caller first: the messages go where the user said.
    return contextlib.chdir(recorded), directory.absolute()


def started_elsewhere(manifest: dict[str, Any] | None, specs: Sequence[str | None]) -> str | None:
    """The directory a run or tuning was started from (its manifest's ``directory``) when it is not this one and one
    of ``specs`` names a path relative to it, so that its strategies must start there; ``None`` otherwise."""
    recorded = None if manifest is None else manifest.get("directory")
    if (not isinstance(recorded, str) or not Path(recorded).is_dir() or Path(recorded) == Path.cwd()
            or not any(spec is not None and _names_relative_path(spec) for spec in specs)):
        return None
    return recorded


def note_outside_code(manifest: dict[str, Any] | None, specs: Sequence[str | None], files, doing: str) -> None:
    """Say on stderr, before any strategy loads, what ``doing`` (``"resuming the run"``) runs of the code the run's
    folder names that is not canasta-sim's own (:func:`~canasta_sim.plugins.outside_code.outside_code_note`): a folder
    from someone else names what they chose.  ``specs`` may hold ``None`` (a tuning against itself); ``files``: the
    files the run recorded, as ``(spec, file)`` pairs."""
    named = [spec for spec in specs if spec is not None]
    note = outside_code_note(named, dict(files or ()), doing, started_elsewhere(manifest, named))
    if note is not None:
        click.echo(note, err=True)


def start_command(command: str, specs: Sequence[str | None], quote: Callable[[str], str] = shlex.quote) -> str:
    """``command`` beginning with ``cd`` to this directory when one of ``specs`` names a path relative to it.

    :param quote: how the directory is quoted: POSIX quoting for the command a run records, which canasta-sim reads
        back; :func:`~canasta_sim.runs.shown_commands.quote_shown` for one shown to the user.
    """
    if any(spec is not None and _names_relative_path(spec) for spec in specs):
        return f"cd {quote(os.getcwd())} && {command}"
    return command
