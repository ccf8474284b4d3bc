"""``canasta-sim compare --resume DIR``: go on with a comparison whose games ``--out DIR`` saved, after Ctrl-C, a kill
or a crash of the machine.

``--out`` records the test's settings in ``run.json`` (its ``compare`` entry) from the first game counted, and writes
the games in parts of 500 as they are counted.  Resuming counts the saved games again, in game order, through the
same test, so the LLR goes on from where they leave it; it keeps every whole part and plays on from the first game
after them.  A part cut short (what a Ctrl-C saved past the last whole part) is played again: the same seeds give the
same games.  So the tables and the verdict are those of the comparison played without a stop.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import click
import pyarrow.compute as pc

from canasta_sim.cli.continuing import check_columns, check_versions
from canasta_sim.cli.options import fail
from canasta_sim.cli.outputs import is_standard_output
from canasta_sim.cli.replaying import (
    note_outside_code,
    recorded_games_at_once,
    recorded_memory_limit,
    started_elsewhere,
)
from canasta_sim.errors import CanastaError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.matchmaking import first_spec_side
from canasta_sim.runs.runner import ON_ERROR_CHOICES, RunSettings, settings_from_manifest
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.sprt import ResultCounts, Sprt
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError, malformed_entry, whole_entry

__all__ = ["FIXED_OPTIONS", "ResumePoint", "loaded_labels", "resume_point"]

FIXED_OPTIONS = ("new", "old", "elo0", "elo1", "alpha", "beta", "max_games", "seed", "rule_options", "no_duplicate",
                 "isolate", "time_limit", "out")
"""The options a resumed comparison takes from its ``run.json``: given with ``--resume``, they are refused."""


@dataclasses.dataclass
class ResumePoint:
    """Where a saved comparison goes on from: its settings, and the test over the games it keeps."""

    directory: RunDirectory
    manifest: dict[str, Any]
    entry: dict[str, Any]
    """``run.json``'s ``compare`` entry: the test's settings."""
    settings: RunSettings
    """The saved run's settings, its games the comparison's ``--max-games``."""
    games: int
    """Games kept and counted: every whole part's, or up to the decision they reach."""
    counts: ResultCounts
    llr: float
    decision: str | None
    forfeits: int
    log_file: Path | None = None
    """``--log-file`` as given, made absolute when the comparison goes on in the directory it started in."""
    hand_capped: int = 0
    """Games counted that the engine's guard ended (``termination`` ``hand_cap``)."""

    def kept(self, ctx: click.Context, name: str, given):
        """An option of the last session (``--on-error``, ``--memory-limit``, ``--games-at-once``) unless ``given``
        on the command line, as ``run --resume`` keeps them: they decide which strategies fail."""
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
            return given
        where = str(self.directory.manifest_path)
        try:
            if name == "on_error":
                recorded = self.manifest.get("on_error")
                return recorded if recorded in ON_ERROR_CHOICES else given
            return (recorded_memory_limit if name == "memory_limit" else recorded_games_at_once)(self.manifest, where)
        except CanastaError as error:
            raise fail(f"--resume: {error}") from None


def loaded_labels(specs: tuple[str, str], point: ResumePoint | None) -> list[str]:
    """Load NEW and OLD once, as the comparison will play them, and return their ``name@version`` labels; on a resume
    (``point``), refuse a comparison made by another engine version or with a strategy whose version has changed
    since, as ``run --resume`` refuses such a run: games of two versions would be counted in one test.

    :raises StrategyLoadError: for a spec that does not load.
    :raises click.UsageError: in one line, for a resumed comparison of other versions.
    """
    loaded = [load_strategy(spec) for spec in specs]
    if point is not None:
        check_versions(point.manifest, loaded, point.directory.path)
    return [strategy.label for strategy in loaded]


def resume_point(path: Path, chunk_size: int, log_file: Path | None = None) -> ResumePoint:
    """Read the comparison saved in ``path`` and count its games again.  When NEW or OLD names a path relative to
    the directory the comparison started in (``mine.py:Mine``, ``cmd:python bot.py``), the command goes on in that
    directory until it ends, as a resumed run does (:func:`~canasta_sim.cli.replaying.start_directory`): ``path``
    and ``log_file`` are made absolute first, so that they still name what the user typed.

    :param chunk_size: the games of a part ``compare --out`` writes.
    :raises click.UsageError: in one line, for an option the comparison fixes given on the command line, a directory
        holding no comparison, one whose test ended, or a malformed ``run.json``.
    """
    ctx = click.get_current_context()
    given = [name for name in FIXED_OPTIONS if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
    if given:
        names = ", ".join("NEW" if name == "new" else "--baseline" if name == "old" else
                          "--rules" if name == "rule_options" else f"--{name.replace('_', '-')}" for name in given)
        raise fail(f"--resume goes on with the comparison's own settings; leave out {names}")
    directory = RunDirectory(path)
    where = str(directory.manifest_path)
    try:
        manifest = directory.read_manifest()
        entry = manifest.get("compare")
        if not isinstance(entry, dict):
            raise RunDirectoryError(f"{path} holds no comparison saved by compare --out (its run.json has no "
                                    f"'compare' entry); canasta-sim run --resume {quote_shown(str(path))} goes on "
                                    "with a run")
        if entry.get("decision") is not None or manifest.get("status") == "complete":
            ending = (f"{entry['decision']} accepted" if entry.get("decision") is not None else
                      "no decision at its --max-games")
            raise RunDirectoryError(f"the comparison saved in {path} has ended ({ending} after {entry.get('games')} "
                                    f"games); canasta-sim report {quote_shown(str(path))} shows it")
        for key in ("new", "baseline"):
            if not isinstance(entry.get(key), str):
                raise malformed_entry(where, f"compare.{key}", "a strategy spec", entry.get(key))
        settings = settings_from_manifest(manifest, where)
        settings = dataclasses.replace(settings, games=whole_entry(entry, "max_games", f"{where}'s compare entry"))
        if settings.chunk_size != chunk_size:
            raise malformed_entry(where, "chunk_size", f"{chunk_size}, as compare --out writes it", settings.chunk_size)
        test = Sprt(*(float(entry[key]) for key in ("elo0", "elo1", "alpha", "beta")))
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise fail(f"--resume: {where}'s compare entry is malformed ({type(error).__name__}: {error})") from None
    # Its games would be counted and kept beside the new ones, whose parts must have the same columns.
    check_columns(directory, "start a new comparison")
    note_outside_code(manifest, (entry["new"], entry["baseline"]), settings.files, "resuming the comparison")
    started = started_elsewhere(manifest, (entry["new"], entry["baseline"]))
    if started is not None:
        directory = directory.absolute()
        if log_file is not None and not is_standard_output(log_file):
            log_file = log_file.absolute()
        ctx.with_resource(contextlib.chdir(started))
    point = ResumePoint(directory, manifest, entry, settings, 0, ResultCounts(), 0.0, None, 0, log_file)
    _count_again(point, test)
    return point


def _count_again(point: ResumePoint, test: Sprt) -> None:
    """Count the games of the whole parts through the test, in game order, as the comparison counted them."""
    directory, settings = point.directory, point.settings
    per = 2 if settings.duplicate else 1
    held = directory.chunk_game_counts()
    whole = 0
    while held.get(whole) == settings.chunk_size:
        whole += 1
    for chunk, games, _ in directory.iter_chunks(["game_id", "winner", "termination"], ["game_id"],
                                                 skip=set(held) - set(range(whole))):
        rows = games.sort_by("game_id").to_pylist()
        for start in range(0, len(rows), per):
            first = chunk * settings.chunk_size + start
            scores = [_score(row["winner"], first_spec_side(first + index))  # NEW is the run's first spec
                      for index, row in enumerate(rows[start:start + per])]
            point.forfeits += sum(row["termination"] == "forfeit" for row in rows[start:start + per])
            point.hand_capped += sum(row["termination"] == "hand_cap" for row in rows[start:start + per])
            if per == 2:
                point.counts.add_pair(*scores)
            else:
                point.counts.add_game(scores[0])
            point.games = first + per
            point.llr = test.llr(point.counts)
            point.decision = test.decide(point.llr)
            if point.decision:
                _cut_after(directory, point.games, settings.chunk_size)
                return
    point.games = whole * settings.chunk_size


def _score(winner: str, new_side: int) -> float:
    """NEW's points of a game (a forfeit is won by the side that did not fail, as the comparison counted it)."""
    return 0.5 if winner == "draw" else float(winner == "AB"[new_side])


def _cut_after(directory: RunDirectory, games: int, chunk_size: int) -> None:
    """Keep only the first ``games`` games: the saved games reached the decision before their last (a kill after a
    part was written and before the test's end was)."""
    last = (games - 1) // chunk_size
    for chunk, part_games, part_hands in directory.iter_chunks():
        if chunk == last:
            directory.write_chunk(chunk, part_games.filter(pc.less(part_games["game_id"], games)),
                                  part_hands.filter(pc.less(part_hands["game_id"], games)))
    for folder in (directory.games_path, directory.hands_path):
        for chunk, path in directory.parts(folder).items():
            if chunk > last:
                path.unlink()
