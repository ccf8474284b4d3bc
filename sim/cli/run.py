"""``canasta-sim run``: play a tournament in parallel workers, writing per-game and per-hand tables.

Bad input gets a one-line ``Error: ...`` and exit code 2 before anything is written; a run stopped
by a strategy failure exits with 1, an interrupted one with 130, and both keep every finished game. A resume that
finds a part damaged from outside exits with 1 too, naming it (:class:`~canasta_sim.runs.storage.DamagedPartError`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pyarrow.compute as pc
import pyarrow.parquet as pq
from tqdm import tqdm

from canasta_sim import ENGINE_VERSION, __version__
from canasta_sim.analysis import strategy_names
from canasta_sim.analysis.sections import as_printed
from canasta_sim.cli import WRITTEN_TO
from canasta_sim.cli.backends import (
    check_local_options,
    chunk_runner,
    cluster_reached,
    default_chunk_size_for,
    given,
    memory_limited,
    strategies_loaded,
)
from canasta_sim.cli.command_logging import install_logging
from canasta_sim.cli.continuing import (
    check_columns,
    check_kept_options,
    check_versions,
    kept_session_options,
    other_run_in_out,
)
from canasta_sim.cli.options import (
    MEGABYTES_OR_NONE,
    SECONDS,
    STRATEGY_SPECS,
    OneLineErrorCommand,
    WholeNumber,
    cap_games_at_once,
    check_game_pairs,
    default_folder_made,
    fail,
    games_at_once_option,
    isolation_options,
    open_log_file,
    pin_cores,
    refuse_tuning_directory,
    rules_given,
    rules_option,
    rules_text,
    worker_count,
    workers_option,
)
from canasta_sim.cli.outputs import is_standard_output, print_then_stop
from canasta_sim.cli.replaying import (
    note_outside_code,
    recorded_start,
    reproducing_command,
    same_strategies_as_run,
    session_options,
    specs_named_from_start,
    start_directory,
)
from canasta_sim.core._compiled import accelerator
from canasta_sim.errors import CanastaError, MachineRefusal
from canasta_sim.plugins.pools import close_all
from canasta_sim.runs import dask_backend
from canasta_sim.runs.containment import containment_text
from canasta_sim.runs.failure_log import replay_here
from canasta_sim.runs.interleave import games_at_once_cap
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.matchmaking import matchmaking_results
from canasta_sim.runs.runner import (
    MANIFEST_FORMAT,
    ON_ERROR_CHOICES,
    ChunkReport,
    ChunkRunner,
    RunSettings,
    describe_strategy,
    settings_from_manifest,
)
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.stopping import hold_stop_signals, stop_signals_released
from canasta_sim.runs.storage import RunDirectory, read_part
from canasta_sim.runs.summary import RunSummarizer, format_summary
from canasta_sim.runs.supervisor import WorkerStartError

__all__ = ["DEFAULT_MATCHUP", "OneLineErrorCommand", "new_manifest", "now_text", "run_command",
           "session_opening"]

DEFAULT_MATCHUP = ("expert", "greedy")
"""The strategies played when no ``-s`` is given."""

EXIT_STOPPED = 1
EXIT_INTERRUPTED = 130

BACKEND_CHOICES = ("local", "dask")
"""Where a run's chunks are played: local worker processes, or a Dask cluster."""


def now_text() -> str:
    """The time now as ``run.json`` records times: ISO 8601, to the second, with the UTC offset."""
    return datetime.datetime.now(datetime.UTC).astimezone().isoformat(timespec="seconds")


def session_opening() -> dict[str, Any]:
    """What each session of a run records as it starts: when, the canasta-sim that plays it (``tool``: a resume after
    an upgrade that changed no game is allowed, and ``run.json``'s own ``tool`` names the first) and its build."""
    return {"started_at": now_text(), "tool": f"canasta-sim {__version__}", "build": accelerator.describe()}


def _default_out() -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path("results") / stamp
    suffix = 2
    while path.exists():
        path = Path("results") / f"{stamp}-{suffix}"
        suffix += 1
    return path


@contextlib.contextmanager
def _reached_and_claimed(play_chunks: ChunkRunner, settings: RunSettings, directory: RunDirectory,
                         default: bool) -> Iterator[RunDirectory]:
    """Reach the cluster (:func:`cluster_reached`), before anything of the run is written, then hold ``directory`` for
    this run while the block runs (:meth:`RunDirectory.claimed`), so that a second run or a resume into it while this
    one goes on is refused in one line.  The ``default`` ``--out``, ``results/<date-time>``, or the next free ``-2``,
    ``-3``..., is made here as it is claimed, not only looked for when the options are read: two runs started in the
    same second would otherwise both choose the same folder and mix their games in one run."""
    with cluster_reached(play_chunks, settings, directory):
        if default:
            directory = RunDirectory(default_folder_made(directory.path))
        with directory.claimed(), stop_signals_released():  # (what _play holds, should no worker start)
            yield directory


def _settings_for_resume(ctx, path, games, seed, specs, rules, chunk_size) -> tuple[RunDirectory, dict, RunSettings]:
    refuse_tuning_directory(path, "--resume")
    directory = RunDirectory(path)
    try:
        manifest = directory.read_manifest()
        recorded = settings_from_manifest(manifest, str(directory.manifest_path))
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None
    entry = manifest.get("compare")
    if isinstance(entry, dict) and manifest.get("status") != "complete":
        # Played on as a run, its games would pass the test's stopping point unseen and leave the entry's LLR stale.
        raise fail(f"--resume: {path} holds a comparison whose test has not ended; canasta-sim compare --resume "
                   f"{quote_shown(str(path))} goes on with it")
    differences = []
    if given(ctx, "games") and games < recorded.games:
        differences.append(f"--games {recorded.games}, not {games} (a run can grow, not shrink)")
    if given(ctx, "seed") and seed != recorded.seed:
        differences.append(f"--seed {recorded.seed}, not {seed}")
    if given(ctx, "specs") and not same_strategies_as_run(specs, manifest, recorded.specs):
        differences.append(f"strategies {' vs '.join(recorded.specs)}, not {' vs '.join(specs)}")
    if given(ctx, "rule_options") and rules != recorded.rules:
        differences.append(f"rules {rules_text(recorded.rules)}, not {rules_text(rules)}")
    if given(ctx, "chunk_size") and chunk_size != recorded.chunk_size:
        differences.append(f"--chunk-size {recorded.chunk_size}, not {chunk_size}")
    if differences:
        raise fail(f"--resume {path}: the run was made with other settings ({'; '.join(differences)}); "
                   "resume it without those options or start a new run")
    if given(ctx, "games") and games > recorded.games:
        check_game_pairs("--games", games, recorded, growing=True)
        # Growing: game i's seed and sides depend only on i, so games recorded.games.. are those a run of
        # `games` from the start would play; the chunk size stays, so finished parts stay valid.
        grown = dataclasses.replace(recorded, games=games)
        manifest.update(games=grown.games, chunks=grown.chunk_count, command=reproducing_command(grown, directory.path))
        manifest.setdefault("grown", []).append({"from_games": recorded.games, "to_games": games, "at": now_text()})
        recorded = grown
    return directory, manifest, recorded


@click.command("run", cls=OneLineErrorCommand)
@click.option("--games", type=WholeNumber(min=1), default=1000, show_default=True, help="Games to play.")
@click.option("--seed", type=WholeNumber(), default=None,
              help="Run seed (default: drawn at random, printed and recorded).")
@workers_option
@click.option("-s", "--strategy", "specs", multiple=True, metavar="SPEC",
              help="Strategy spec; once for a mirror match, twice for head to head, three or more for a round robin "
                   f"(default: expert vs greedy; {STRATEGY_SPECS}).")
@rules_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Run directory (default: results/<date-time>).")
@click.option("--resume", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Finish the run in DIR with the settings of its run.json, or grow it with a larger --games.")
@click.option("--on-error", type=click.Choice(ON_ERROR_CHOICES), default="stop", show_default=True,
              help="When a strategy fails: stop the run, or forfeit the game and go on (with --resume: as the run "
                   "did, unless given).")
@click.option("--chunk-size", type=WholeNumber(min=1), default=None,
              help="Games per chunk, each written as one Parquet part (default: 500, fewer for small runs).")
@click.option("--duplicate", is_flag=True,
              help="Play each deal twice, the strategies swapped between the sides (canasta-sim docs matchmaking).")
@click.option("--time-limit", type=SECONDS, default=None, metavar="SECONDS",
              help="Seconds one decision of a strategy may take; a slower one is a failure (see --on-error). Off by "
                   "default: a game's course then never depends on the machine's speed.")
@click.option("--record-decisions", "record_decisions", multiple=True, metavar="WHO",
              help="Also write a decisions/ dataset, one row per decision of WHO: all, a seat 0-3, or a strategy "
                   "spec of the run (repeatable; canasta-sim docs output).")
@click.option("--isolate", is_flag=True,
              help="Run every strategy that is not a built-in in a process of its own (as isolated:SPEC; "
                   "canasta-sim docs protocol).")
@click.option("--memory-limit", type=MEGABYTES_OR_NONE, default=None, metavar="MB",
              help="Megabytes (MiB: 1024 x 1024 bytes) of address space each worker process and each strategy "
                   "process (isolated:, cmd:) may use, at least 1024 (default: no limit; a worker starts with about "
                   "530); a strategy allocating past it fails (MemoryError, or its process dies), charged to its seat "
                   "(see --on-error). With --resume: the run's own unless given; none lifts it.")
@games_at_once_option("the run")
@click.option("--pin-cores", "pin", is_flag=True,
              help="Give each worker whose games have bot processes (isolated:, cmd:) a core of its own and its "
                   "bots the cores no worker holds, when there are two cores a worker (canasta-sim docs fairness).")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress bar and no messages but errors; the summary still prints.")
@click.option("-v", "--verbose", is_flag=True, help="Show every message (--log-file keeps them all): what strategies "
              "print, a bot's stderr, a failing strategy's traceback, a line per chunk written.")
@click.option("--log-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write every message, at debug level, to this file, or with - to standard output.")
@click.option("--backend", type=click.Choice(BACKEND_CHOICES), default="local", show_default=True,
              help="Play in local worker processes, or on a Dask cluster (in a checkout: pip install '.[dask]').")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="The scheduler of a running Dask cluster (implies --backend dask; default: a local cluster of "
                   "--workers processes).")
@click.option("--task-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="With --backend dask: seconds a chunk may play before the run ends with an error "
                   "(default: 60 plus 10 per game of a chunk).")
@click.pass_context
def run_command(ctx: click.Context, games, seed, workers, specs, rule_options, out, resume, on_error, chunk_size,
                duplicate, time_limit, isolate, memory_limit, games_at_once, pin, quiet, verbose, log_file, backend,
                scheduler, task_timeout, record_decisions) -> None:
    """Play a tournament and write its games and hands to Parquet in a run directory.

    One -s plays a strategy against itself; two play head to head, swapping sides every other game; three
    or more play a round robin, every pair in turn.
    """
    try:
        rules = rules_given(rule_options)
        specs = isolation_options(specs, isolate)
    except CanastaError as error:
        raise fail(str(error)) from None
    check_local_options(backend != "local" or scheduler is not None, pin, games_at_once)
    pin_cores(pin)
    play_chunks = chunk_runner(ctx, backend, scheduler, task_timeout, workers)
    manifest: dict[str, Any] | None = None
    if resume is not None:
        if out is not None and Path(out).resolve() != Path(resume).resolve():
            raise fail(f"--out {out} and --resume {resume} name different directories; give only --resume")
        directory, manifest, settings = _settings_for_resume(ctx, resume, games, seed, specs, rules, chunk_size)
        check_kept_options(functools.partial(given, ctx), resume, settings, duplicate=duplicate,
                           time_limit=time_limit, record_decisions=tuple(record_decisions), isolate=isolate)
        seed_drawn = bool(manifest.get("seed_drawn"))
        on_error, memory_limit, games_at_once = kept_session_options(functools.partial(given, ctx), directory,
                                                                     manifest, on_error, memory_limit, games_at_once)
        note_outside_code(manifest, settings.specs, settings.files, "resuming the run")
    else:
        seed_drawn = seed is None
        if seed_drawn:
            seed = int.from_bytes(os.urandom(4), "big")
        try:
            settings = RunSettings(games=games, seed=seed, specs=specs_named_from_start(specs or DEFAULT_MATCHUP),
                                   rules=rules, chunk_size=chunk_size or default_chunk_size_for(games, play_chunks),
                                   duplicate=duplicate, time_limit=time_limit, record_decisions=tuple(record_decisions))
        except ValueError as error:
            if record_decisions and str(error).startswith("--record-decisions"):
                raise fail(str(error)) from None
            raise fail(f"-s/--strategy {' '.join(specs or DEFAULT_MATCHUP)}: {error}") from None
        check_game_pairs("--games", games, settings)
        directory = RunDirectory(out if out is not None else _default_out())
        if directory.path.exists() and not directory.path.is_dir():
            raise fail(f"--out {directory.path} is a file, not a directory")
        if not directory.is_empty():
            if not directory.is_run():
                raise fail(f"--out {directory.path} is not empty and holds no canasta-sim run; "
                           "choose a new or empty directory")
            try:
                manifest = directory.read_manifest()
                recorded = settings_from_manifest(manifest, str(directory.manifest_path))
            except CanastaError as error:
                raise fail(f"--out {directory.path}: {error}") from None
            if recorded != settings:
                raise fail(other_run_in_out(directory.path, recorded, settings))
    play_chunks = memory_limited(ctx, play_chunks, memory_limit, resume)
    if play_chunks is run_chunks or isinstance(play_chunks, functools.partial):  # the local backend's workers
        cap_games_at_once(games_at_once)
    if settings.record_decisions and isinstance(play_chunks, dask_backend.DaskChunkRunner):
        raise fail("--record-decisions works with --backend local only: the Dask backend does not carry the "
                   "decisions dataset back from its workers yet")
    started_from, directory = start_directory(manifest, settings, directory)
    with started_from:
        loaded = list(strategies_loaded(settings, play_chunks).values())
        if manifest is not None:
            check_versions(manifest, loaded, directory.path)
            check_columns(directory)
        close_all()  # this process plays no game (its workers start the bots they play with): no bot idles here
        as_given = log_file is None or is_standard_output(log_file)
        file_handler = open_log_file(log_file if as_given else log_file.absolute())
        workers = worker_count(workers, settings.specs)
        with _reached_and_claimed(play_chunks, settings, directory, out is None and resume is None) as directory:
            _play(settings, directory, manifest, loaded, seed_drawn=seed_drawn, workers=workers, on_error=on_error,
                  quiet=quiet, verbose=verbose, file_handler=file_handler, play_chunks=play_chunks)


def new_manifest(settings: RunSettings, loaded, seed_drawn: bool, path: Path) -> dict[str, Any]:
    """The ``run.json`` of a run starting now with ``settings`` and the ``loaded`` strategies, in ``path``."""
    return {
        "format": MANIFEST_FORMAT,
        "tool": f"canasta-sim {__version__}",
        "engine_version": ENGINE_VERSION,
        "command": reproducing_command(settings, path),
        "directory": recorded_start(settings.specs),
        "seed_drawn": seed_drawn,
        **settings.manifest_fields(),
        "strategies": [describe_strategy(strategy) for strategy in loaded],
        "on_error": None,
        "status": "running",
        "started_at": now_text(),
        "ended_at": None,
        "games_done": 0,
        "sessions": [],
    }


def _read_done(directory: RunDirectory, settings: RunSettings, chunks, summarizer: RunSummarizer) -> list[int]:
    """Read the chunks already on disk once, whole, before a game is played, so that a part that cannot be read stops
    the run before it plays, with run.json as it was (read only at the end, and only the summary's columns, a damaged
    part would be found after the session's games, or never).  Their games go into the summary (not read again at
    the end); return each entrant's wins in them, for the progress bar's running win rate."""
    wins = [0] * len(settings.entrants)
    mirror = len(settings.specs) == 1
    decisions = directory.parts(directory.decisions_path)
    for chunk, games, hands in directory.iter_chunks(skip=directory.chunks() - set(chunks)):
        summarizer.chunk_written(chunk, games, hands)
        if chunk in decisions:
            read_part(pq.read_table, decisions[chunk])
        if mirror:
            wins[0] += pc.sum(pc.equal(games["winner"], "A")).as_py() or 0
            wins[1] += pc.sum(pc.equal(games["winner"], "B")).as_py() or 0
        else:
            for index, spec in enumerate(settings.specs):
                wins[index] += pc.sum(pc.equal(games["winner_strategy"], spec)).as_py() or 0
    return wins


def _play(settings: RunSettings, directory: RunDirectory, manifest, loaded, *, seed_drawn, workers, on_error, quiet,
          verbose, file_handler, play_chunks: ChunkRunner = run_chunks) -> None:
    """Play the chunks of the run not yet written, keeping ``run.json`` current, then print the summary; exit with
    :data:`EXIT_STOPPED` or :data:`EXIT_INTERRUPTED` when the run did not end complete."""
    directory.create()
    directory.remove_temporaries()
    counts = directory.chunk_game_counts(with_decisions=bool(settings.record_decisions))
    done = {chunk for chunk, count in counts.items() if count == len(settings.chunk_games(chunk))}
    missing = [chunk for chunk in range(settings.chunk_count) if chunk not in done]
    games_before = sum(len(settings.chunk_games(chunk)) for chunk in done)
    if manifest is None:
        manifest = new_manifest(settings, loaded, seed_drawn, directory.path)
    # The summary is summed from the chunks as they are read now or written by this process: only parts another
    # process wrote meanwhile are read at the end.
    summarizer = RunSummarizer()
    wins = _read_done(directory, settings, done, summarizer)
    # Held until run_chunks watches for them: run.json says "running" from the next line.  (The Dask backend reaches
    # its cluster first, which Ctrl-C must be able to end.)
    if not isinstance(play_chunks, dask_backend.DaskChunkRunner):
        hold_stop_signals()
    session = _open_session(settings, directory, manifest, play_chunks, workers, on_error, games_before)
    if not quiet:
        _announce(settings, directory, seed_drawn, games_before, len(missing) if done else None, session["build"])
    handlers, restore_logging = install_logging(quiet, verbose, file_handler)
    progress = _Progress(settings, directory, manifest, session, wins, games_before,
                         show_bar=not quiet and sys.stderr.isatty())
    directory.chunk_listeners.append(summarizer.chunk_written)
    started = time.monotonic()
    status = "failed"
    interrupted, error, write_error = False, None, None
    try:
        interrupted, error = play_chunks(settings, directory, missing, workers=workers, on_error=on_error,
                                         on_chunk=progress.on_chunk, on_games=progress.on_games,
                                         log_handlers=handlers)
        status = "interrupted" if interrupted else "stopped" if error else "complete"
    except KeyboardInterrupt:  # a second Ctrl-C: the workers were stopped at once
        interrupted, status = True, "interrupted"
    except OSError as failure:  # the disk refused a part or run.json (full, read-only, removed)
        write_error = f"writing the run failed: {failure}"
    except (dask_backend.ClusterError, MachineRefusal) as failure:  # no scheduler, a hung chunk, a refused bot, ...
        write_error = str(failure)
    except WorkerStartError as failure:  # local workers that cannot load the strategies or die before playing
        write_error = str(failure)
    finally:
        progress.bar.close()
        restore_logging()
        if isinstance(play_chunks, dask_backend.DaskChunkRunner):
            session.update(play_chunks.session_record(ended=True))
        try:
            _close_session(settings, directory, manifest, session, status, progress.played)
        except OSError as failure:  # the disk that refused a part refuses run.json too: told in one line, not raised
            write_error = write_error or f"writing the run failed: {failure}"
        directory.chunk_listeners.remove(summarizer.chunk_written)
    elapsed = time.monotonic() - started
    where = quote_shown(str(directory.path))
    told = f"the run is written to {where} (canasta-sim report {where} prints it)"
    click.get_current_context().meta[WRITTEN_TO] = told  # if the summary cannot be printed
    summary = summarizer.summarize(directory, settings.entrants)

    def print_summary() -> None:
        if summary.games_read:
            results = matchmaking_results(directory, settings.specs, settings.duplicate)
            shown, results = as_printed(summary.rows, results, strategy_names(manifest))
            click.echo("\n\n".join(filter(None, [format_summary(shown), results.text(), summary.hand_cap_line()])))
        rate = progress.played / elapsed if elapsed > 0 else 0.0
        click.echo(f"{summary.games_read} of {settings.games} games in {directory.path} "
                   f"({progress.played} played now in {elapsed:.1f} s, {rate:.1f} games/s, "
                   f"{getattr(play_chunks, 'description', f'{workers} worker' + 's' * (workers != 1))})")

    if write_error is None and manifest["status"] == "incomplete":
        # Every chunk was played, yet some parts are gone: removed from outside while the run went on.
        missing_games = settings.games - manifest["games_done"]
        write_error = (f"{missing_games} of the run's games are missing from {directory.path}: their parts were "
                       "removed while it ran")
    print_then_stop(print_summary, _unless_complete(directory, write_error, error, interrupted))


def _open_session(settings: RunSettings, directory: RunDirectory, manifest, play_chunks: ChunkRunner, workers,
                  on_error, games_before: int) -> dict[str, Any]:
    """Add this session to ``run.json`` (marked running) and return its entry, which the run keeps current."""
    # The command of the session that plays the run now: a resume may change --workers or --on-error.
    manifest["command"] = reproducing_command(settings, directory.path, session_options(play_chunks, workers, on_error))
    session = {**session_opening(), "ended_at": None, "workers": workers, "on_error": on_error, "games_played": 0,
               "status": "running"}
    if isinstance(play_chunks, dask_backend.DaskChunkRunner):
        session.update(play_chunks.session_record(ended=False))
    if isinstance(play_chunks, functools.partial):
        session.update(memory_limit=play_chunks.keywords.get("memory_limit"))
    if not isinstance(play_chunks, dask_backend.DaskChunkRunner):  # this machine's workers, contained as it can
        session.update(containment=containment_text())
        if (cap := games_at_once_cap()) is not None:
            session.update(games_at_once=cap)
    manifest.setdefault("sessions", []).append(session)  # a run.json trimmed of its sessions is continued too
    manifest.update(on_error=on_error, status="running", ended_at=None, games_done=games_before)
    directory.write_manifest(manifest)
    return session


def _announce(settings: RunSettings, directory: RunDirectory, seed_drawn, games_before: int,
              chunks_left: int | None, build: str) -> None:
    """Say on stderr what the run plays, where to, whether it resumes (``chunks_left`` not ``None``), and
    whether the engine runs slower than compiled."""
    matchup = " vs ".join(settings.specs) if len(settings.specs) >= 2 else f"{settings.specs[0]} (mirror)"
    matchup += " (round robin)" if len(settings.specs) >= 3 else ""
    matchup += ", duplicate deals" if settings.duplicate else ""
    say = functools.partial(click.echo, err=True)
    say(f"canasta-sim run: {settings.games} games of {matchup}, seed {settings.seed}"
        f"{' (drawn)' if seed_drawn else ''}, rules {rules_text(settings.rules)} -> {directory.path}")
    if chunks_left == 0:
        say(f"the run is complete ({games_before} games): nothing left to play")
    elif chunks_left is not None:
        say(f"resuming: {games_before} games already played, {chunks_left} chunks to play")
    if not build.startswith("compiled"):
        say(f"note: the engine runs as {build}: the same games, only slower (canasta-sim docs performance)")


class _Progress:
    """The run's progress: the bar moves with each game that comes back (on the local backend) and each chunk
    written, shows the first entrant's win rate in the chunks written, and ``run.json`` is rewritten at most
    every two seconds."""

    def __init__(self, settings: RunSettings, directory: RunDirectory, manifest, session, wins: list[int],
                 games_before: int, *, show_bar: bool) -> None:
        self.entrants = settings.entrants
        self.directory = directory
        self.manifest = manifest
        self.session = session
        self.wins = wins
        self.games = games_before
        self.played = 0
        """Games played by this session."""
        self.seen = games_before
        """Games on disk before this session, plus those come back since, their chunk written or not."""
        self.shown = games_before
        """Games the bar shows."""
        self.last_write = time.monotonic()
        self.bar = tqdm(total=settings.games, initial=games_before, unit="game", disable=not show_bar,
                        file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
        self._show_rate()  # a resumed run's rate so far, from its first line

    def on_chunk(self, report: ChunkReport) -> None:
        """Count a finished chunk's games and wins."""
        for index, count in enumerate(report.wins):
            self.wins[index] += count
        self.games += report.games
        self.played += report.games
        self._advance()
        self._show_rate()
        if time.monotonic() - self.last_write > 2.0:
            self.manifest["games_done"] = self.games
            self.session["games_played"] = self.played
            self.directory.write_manifest(self.manifest)
            self.last_write = time.monotonic()

    def on_games(self, count: int) -> None:
        """Count games come back whose chunk is not written yet."""
        self.seen += count
        self._advance()

    def _show_rate(self) -> None:
        if self.games:
            rate = 100 * self.wins[0] / self.games
            self.bar.set_postfix_str(f"{self.entrants[0]} wins {rate:.1f}%", refresh=False)

    def _advance(self) -> None:
        # A chunk's games may come back before it is written (local workers) or only with it (Dask).
        shown = max(self.games, self.seen)
        if shown > self.shown:
            self.bar.update(shown - self.shown)
            self.shown = shown


def _close_session(settings: RunSettings, directory: RunDirectory, manifest, session, status: str,
                   played: int) -> None:
    """Write the session's end to ``run.json``; a run said complete whose chunks are not all written is
    ``incomplete``."""
    counts = directory.chunk_game_counts(with_decisions=bool(settings.record_decisions))
    complete = all(counts.get(chunk) == len(settings.chunk_games(chunk)) for chunk in range(settings.chunk_count))
    if status == "complete" and not complete:
        status = "incomplete"
    manifest.update(status=status, ended_at=now_text(), games_done=sum(counts.values()))
    session.update(status=status, ended_at=manifest["ended_at"], games_played=played)
    directory.write_manifest(manifest)


def _unless_complete(directory: RunDirectory, write_error: str | None, error: str | None,
                     interrupted: bool) -> tuple[str, int] | None:
    """The line saying why the run stopped and how to resume it, with the exit code to match; ``None`` for a run that
    did not stop."""
    resume_hint = f"canasta-sim run --resume {quote_shown(str(directory.path))}"
    if write_error:
        return f"Error: {write_error}; finished games are kept; fix it and run {resume_hint}", EXIT_STOPPED
    if error:
        failed = re.match(r"game ([0-9]+): ", error)  # every stopping failure's line begins so (ChunkBook.add)
        debug = f"{replay_here(str(directory.path), int(failed[1]))}; " if failed else ""
        return (f"Error: {' '.join(error.split())}; finished games are kept; {debug}fix the strategy and run "
                f"{resume_hint}, or add --on-error forfeit"), EXIT_STOPPED
    if interrupted:
        return f"Interrupted: finished games are kept; continue with {resume_hint}", EXIT_INTERRUPTED
    return None
