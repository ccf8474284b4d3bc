"""What ``run`` checks of a run on disk before it goes on with it (``--resume DIR``, or ``--out DIR`` holding one):
that this canasta-sim can continue its games, and, for ``--out``, that the run is the one the options describe; and
the options of how it was played that a resume keeps.

Each refusal is one line naming the difference and what to do instead (exit code 2, before anything is written).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import pyarrow.parquet as pq

from canasta_sim import ENGINE_VERSION
from canasta_sim.cli.options import fail, refuse_isolating_resume, rules_text
from canasta_sim.cli.replaying import recorded_games_at_once, recorded_memory_limit
from canasta_sim.env.decisions import DECISION_SCHEMA
from canasta_sim.errors import CanastaError
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.runner import ON_ERROR_CHOICES, RunSettings
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.storage import RunDirectory, read_part, recorded_label

__all__ = ["changed_files", "check_columns", "check_kept_options", "check_versions", "engine_difference",
           "kept_session_options", "other_run_in_out", "resume_playing"]


def check_versions(manifest: dict, loaded, path) -> None:
    """Refuse a run made by another engine version, or with a strategy whose version changed since: its games
    would not be those its first games were.  A strategy file whose code changed under the same version is named in a
    warning (its version says its play is the same, which only its author knows) and noted in ``manifest``, which the
    session starting now writes (:func:`_note_code_changes`)."""
    other_engine = engine_difference(manifest)
    if other_engine is not None:
        raise fail(f"{path}: {other_engine}; its games cannot be continued, start a new run")
    recorded = {entry.get("spec"): recorded_label(entry) for entry in manifest.get("strategies", [])}
    for strategy in loaded:
        label = recorded.get(strategy.spec)
        if label is None:
            raise fail(f"{path}: its run.json records no version of {strategy.spec!r}, now {strategy.label}; its games "
                       "cannot be continued, start a new run")
        if label != strategy.label:
            raise fail(f"{path}: the run was made with {label} but {strategy.spec!r} is now {strategy.label}; start a "
                       "new run")
    for change in changed_files(manifest, loaded):
        click.echo(f"Warning: {path}: {change}; if its play changed, the games played now are not those of the run's "
                   "first games: raise its version and start a new run", err=True)
    _note_code_changes(manifest, loaded)


def _note_code_changes(manifest: dict, loaded) -> None:
    """Note in each strategy's entry of ``manifest`` (written when the session starting now opens) the session whose
    code differs from the code the run had until then, with that code (``file_code_changes``), so that the run's
    report says so whenever it is read, long after the warning scrolled away."""
    sessions = manifest.get("sessions")
    session = (len(sessions) if isinstance(sessions, list) else 0) + 1
    entries = {entry.get("spec"): entry for entry in manifest.get("strategies", []) if isinstance(entry, dict)}
    for strategy in loaded:
        entry = entries.get(strategy.spec)
        if entry is None or entry.get("file_code") is None:
            continue
        changes = entry.get("file_code_changes") if isinstance(entry.get("file_code_changes"), list) else []
        last = changes[-1].get("file_code") if changes and isinstance(changes[-1], dict) else entry["file_code"]
        code = strategy.file_code
        if code is not None and code != last:
            entry["file_code_changes"] = [*changes, {"session": session, "file_code": code}]


def engine_difference(manifest: dict) -> str | None:
    """How the run's engine version (``engine_version`` of ``manifest``, or of a report's description of the run)
    differs from this one's (a run whose ``run.json`` records none differs), as a clause; ``None`` when it is this
    one."""
    recorded = manifest.get("engine_version")
    if str(recorded) == ENGINE_VERSION:
        return None
    made = ("its run.json records no engine version" if recorded is None
            else f"the run was made with engine version {recorded}")
    return f"{made}, this is version {ENGINE_VERSION}"


def resume_playing(manifest: dict, path, plays: str) -> str:
    """Who ``plays`` (``"plays it"``) a run's unwritten chunks: ``run --resume``, or, for a run of another engine
    (which it refuses), only a canasta-sim of that engine, and why."""
    other_engine = engine_difference(manifest)
    if other_engine is None:
        return f"canasta-sim run --resume {quote_shown(str(path))} {plays}"
    recorded = manifest.get("engine_version")
    who = "no canasta-sim" if recorded is None else f"only a canasta-sim of engine {recorded}"
    return f"{who} {plays} ({other_engine})"


def changed_files(manifest: dict, loaded) -> list[str]:
    """Each of the ``loaded`` strategies whose files' code (a file spec's, a ``cmd:`` bot's script) differs from the
    code ``run.json`` recorded for it, as a clause naming the spec, the files and the version it still has; a run
    that recorded no code (written before it was recorded) names none."""
    recorded = {entry.get("spec"): entry.get("file_code") for entry in manifest.get("strategies", [])}
    changes = [strategy.code_change(recorded.get(strategy.spec), "the run's") for strategy in loaded]
    return [change for change in changes if change is not None]


def check_columns(directory: RunDirectory, instead: str = "start a new run") -> None:
    """Refuse a run whose tables another version of canasta-sim wrote, with other columns; ``instead`` says what to
    do then."""
    # Parts with other columns (written by another canasta-sim) would mix two schemas in one dataset: Parquet
    # readers take one part's columns and drop the others' (pyarrow, DuckDB) or refuse the folder (Polars).  Every
    # part is looked at (a footer each), not the first alone: one replayed after a damaged part was moved out, or
    # a folder mixed before this was checked everywhere, may hold the old columns in a later part only.
    for name, folder, schema in (("games", directory.games_path, GAME_SCHEMA),
                                 ("hands", directory.hands_path, HAND_SCHEMA),
                                 ("decisions", directory.decisions_path, DECISION_SCHEMA)):
        for _, part in sorted(directory.parts(folder).items()):
            found = read_part(pq.read_schema, part)
            # Names and types, not which fields are nullable: parts written before the columns that never hold nulls
            # were declared so read as one table with those written now (docs/output.md).
            if [(field.name, field.type) for field in found] != [(field.name, field.type) for field in schema]:
                missing = [field for field in schema.names if field not in found.names]
                extra = [field for field in found.names if field not in schema.names]
                raise fail(f"{directory.path}: its {name} table was written by another version of canasta-sim "
                           f"(columns {', '.join(missing) or 'none'} missing, {', '.join(extra) or 'none'} extra, "
                           f"or other types, in {part.name}); its games cannot be continued, {instead}")


def other_run_in_out(path: Path, recorded: RunSettings, settings: RunSettings) -> str:
    """The one-line error of an ``--out`` holding a run of other settings: each named, as the run has it and as
    typed (a default, such as the Dask backend's chunk size, differs unseen), and what to do instead."""
    differences = []
    if settings.seed != recorded.seed:
        differences.append(f"--seed {recorded.seed}, not {settings.seed}")
    if settings.specs != recorded.specs:
        differences.append(f"strategies {' vs '.join(recorded.specs)}, not {' vs '.join(settings.specs)}")
    if settings.rules != recorded.rules:
        differences.append(f"rules {rules_text(recorded.rules)}, not {rules_text(settings.rules)}")
    if settings.chunk_size != recorded.chunk_size:
        differences.append(f"--chunk-size {recorded.chunk_size}, not {settings.chunk_size}")
    if settings.duplicate != recorded.duplicate:
        differences.append("with --duplicate, not without it" if recorded.duplicate
                           else "without --duplicate, not with it")
    if settings.time_limit != recorded.time_limit:
        had = "no --time-limit" if recorded.time_limit is None else f"--time-limit {recorded.time_limit:g}"
        differences.append(f"{had}, not {'none' if settings.time_limit is None else f'{settings.time_limit:g}'}")
    if settings.record_decisions != recorded.record_decisions:
        differences.append(f"--record-decisions {' '.join(recorded.record_decisions) or '(none)'}, not "
                           f"{' '.join(settings.record_decisions) or '(none)'}")
    quoted = quote_shown(str(path))
    if differences or settings.games < recorded.games:
        if settings.games != recorded.games:
            differences.append(f"--games {recorded.games}, not {settings.games}")
        return (f"--out {path} holds a run made with other settings ({'; '.join(differences)}); continue it "
                f"with canasta-sim run --resume {quoted} (a larger --games grows it), or choose another directory")
    return (f"--out {path} holds this run with {recorded.games} games, not {settings.games}; grow it with "
            f"canasta-sim run --resume {quoted} --games {settings.games}, or choose another directory")


def kept_session_options(given: Callable[[str], bool], directory: RunDirectory, manifest: dict, on_error: str,
                         memory_limit: int | None, games_at_once: int | None) -> tuple[str, int | None, int | None]:
    """``--on-error``, ``--memory-limit`` and ``--games-at-once`` for a resume: as given (``given(name)``), or the
    run's own, as its last session played.

    They decide which strategies fail and what a failure does: a run begun with --on-error forfeit or a
    --memory-limit, interrupted, then resumed as the interruption's message says, judged its strategies two ways;
    under a memory limit, so does the number of games a bot process holds at once.
    """
    if not given("on_error") and manifest.get("on_error") in ON_ERROR_CHOICES:
        on_error = manifest["on_error"]
    try:
        if not given("memory_limit"):
            memory_limit = recorded_memory_limit(manifest, str(directory.manifest_path))
        if not given("games_at_once"):
            games_at_once = recorded_games_at_once(manifest, str(directory.manifest_path))
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None
    return on_error, memory_limit, games_at_once


def check_kept_options(given: Callable[[str], bool], resume, settings: RunSettings, *, duplicate: bool,
                       time_limit: float | None, record_decisions: tuple[str, ...], isolate: bool) -> None:
    """Refuse a ``--resume`` given an option of how its games are played (as ``given(name)`` says) other than the
    run's ``settings``: its games already played were dealt, judged and recorded the run's way."""
    if given("duplicate") and duplicate != settings.duplicate:
        raise fail(f"--resume {resume}: the run was made without --duplicate; resume it without that option")
    if given("time_limit") and time_limit != settings.time_limit:
        raise fail(_time_limit_kept(resume, settings.time_limit))
    if given("record_decisions") and record_decisions != settings.record_decisions:
        raise fail(f"--resume {resume}: the run was made with --record-decisions "
                   f"{' '.join(settings.record_decisions) or '(none)'}; resume it without that option")
    if isolate:
        refuse_isolating_resume(resume, settings.specs, "run")


def _time_limit_kept(resume, time_limit: float | None) -> str:
    """Why ``--resume`` refuses a ``--time-limit`` other than the run's: its played games were judged by the run's."""
    if time_limit is None:
        return (f"--resume {resume}: the run was made without --time-limit, its decisions unbounded, and the games "
                "it played were judged so; resume it without that option, or start a new run with --time-limit")
    return f"--resume {resume}: the run was made with --time-limit {time_limit:g}; resume it without that option"
