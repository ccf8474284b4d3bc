"""``canasta-sim replay RUN_DIR GAME_ID``: play a game of a run again and narrate it.

A game is a pure function of (rules, seed, strategies), so the replay plays the
game again from what the run recorded: the rule set in ``run.json``, and the
seed and the two sides' strategy specs in the game's row of ``games/``.  The
narration ends at the final scores, checked against the row's ``score_a`` and
``score_b``.  With ``--html FILE`` the game is written as one self-contained page instead
(:mod:`canasta_sim.terminal.html_replay`): the table after every move, the narration beside it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pyarrow.parquet as pq

from canasta_sim import ENGINE_VERSION
from canasta_sim.cli.continuing import changed_files, resume_playing
from canasta_sim.cli.narrated import DEBUG_DEFAULT, DEBUG_HELP, narrate_apart, narrate_here, record_apart
from canasta_sim.cli.options import (
    OneLineErrorCommand,
    WholeNumber,
    counted,
    interrupted_as_the_users,
    narration_options,
    refuse_tuning_directory,
)
from canasta_sim.cli.outputs import check_output_folder, no_stale_page, write_output
from canasta_sim.cli.replaying import note_outside_code, start_directory
from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy
from canasta_sim.runs.records import TEAM_NAMES
from canasta_sim.runs.runner import settings_from_manifest
from canasta_sim.runs.storage import DamagedPartError, RunDirectory, read_part, recorded_label
from canasta_sim.terminal.html_replay import RecordedGame
from canasta_sim.terminal.played import seat_label, spec_shown

_COLUMNS = ["game_id", "seed", "team_a_strategy", "team_b_strategy", "score_a", "score_b", "termination", "error"]
_FORFEIT_COLUMNS = ["forfeit_team", "forfeit_reason"]
"""Read too where the part has them (a run written before them has not): whose forfeit, and why."""
_ENDINGS = {"target": "target reached", "hand_cap": f"stopped by the engine's guard at {MAX_HANDS_PER_GAME} hands",
            "forfeit": "a forfeit"}


def ending_words(termination: str) -> str:
    """How a game ended, in words, from the ``termination`` code of the ``games`` table (``'target'`` is
    "target reached"); a code not known is returned as it is."""
    return _ENDINGS.get(termination, termination)


def find_game(directory: RunDirectory, chunk_size: int, game_id: int, manifest: dict[str, Any], *,
              unrecorded: bool = False) -> dict[str, Any] | None:
    """Return the recorded row of ``game_id`` from the ``games`` dataset of the run ``manifest`` describes; with
    ``unrecorded``, ``None`` for a game not recorded (the game a failure stopped the run at is not).

    :raises click.ClickException: when the game's part cannot be read, or is missing or does not hold the game
        (unless ``unrecorded``).
    """
    # Exit code 1, not 2, whichever way the run is damaged: the id is in the run's range, and what is wrong is the
    # run (not finished, a part lost or cut short), which run --resume mends.
    chunk = game_id // chunk_size
    part = directory.parts(directory.games_path).get(chunk)
    rows = []
    if part is not None:
        try:
            names = read_part(pq.read_schema, part).names
            columns = [*_COLUMNS, *(name for name in _FORFEIT_COLUMNS if name in names)]
            table = read_part(pq.read_table, part, columns=columns, filters=[("game_id", "==", game_id)])
        except DamagedPartError as error:
            raise click.ClickException(str(error)) from None
        rows = table.to_pylist()
    if not rows:
        if unrecorded:
            return None
        raise click.ClickException(
            f"game {game_id} of the run in {directory.path} is not recorded: its chunk {chunk} has not been written; "
            f"{resume_playing(manifest, directory.path, 'plays it')}"
        )
    return rows[0]


def _load(spec: str, files: dict[str, str]) -> LoadedStrategy:
    try:
        return load_strategy(spec, file=files.get(spec))
    except CanastaError as error:
        raise click.ClickException(f"the run's strategy {spec!r} cannot be loaded now: {error}") from None


def changes_since_run(manifest: dict[str, Any], players: list[LoadedStrategy]) -> list[str]:
    """What plays a run's game again now that did not play it: another engine (or one the run did not record),
    another ``name@version`` of a side's strategy, a strategy file whose code changed under the same version; each
    as a clause, in that order, none when the replay is played by what played the run."""
    recorded_engine = manifest.get("engine_version")
    changes = []
    if recorded_engine is None:
        changes.append("the run recorded no engine version")
    elif str(recorded_engine) != ENGINE_VERSION:
        changes.append(f"the run used engine version {recorded_engine}, this is {ENGINE_VERSION}")
    labels_by_spec = {entry.get("spec"): recorded_label(entry) for entry in manifest.get("strategies", [])}
    sides = list(dict.fromkeys(players))  # each side once, in seat order
    for player in sides:
        recorded = labels_by_spec.get(player.spec)
        if recorded is None:
            changes.append(f"the run recorded no version of {player.spec!r}, now {player.label}")
        elif recorded != player.label:
            changes.append(f"the run used {recorded} but {player.spec!r} is now {player.label}")
    return changes + changed_files(manifest, sides)


class GameIdCommand(OneLineErrorCommand):
    """``replay``'s command: a negative GAME_ID (``-1``) is the argument it looks like, refused with the run's range of
    games like any other id not in it, where click read it as an unknown option (``No such option '-1'``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse as click does, reading a negative number as GAME_ID rather than as an unknown option."""
        # Unknown options are read as arguments only then, so that a mistyped option is still named as one.
        ctx.ignore_unknown_options = any(_NEGATIVE.fullmatch(arg) for arg in args)
        return super().parse_args(ctx, args)


_NEGATIVE = re.compile(r"-[0-9]+")


@click.command("replay", cls=GameIdCommand)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.argument("game_id", type=WholeNumber())
@narration_options
@click.option("--debug", is_flag=True,
              help=f"{DEBUG_HELP}; the game a failure stopped the run at, which the run did not record, is played too "
                   f"{DEBUG_DEFAULT}.")
def replay_command(run_dir: Path, game_id: int, show_hands: bool, html_file: Path | None, debug: bool) -> None:
    """Play game GAME_ID of the run in RUN_DIR again from its recorded seed, strategies and rules, narrated.
    GAME_ID counts from 0, as game_id in the run's games table does: the first game, e.g. canasta-sim replay
    results/mine 0."""
    if html_file is not None:
        if debug:
            raise click.UsageError("--debug plays the game narrated in this process; it writes no --html page")
        check_output_folder("--html", html_file)
    refuse_tuning_directory(run_dir)
    directory = RunDirectory(run_dir)
    try:
        manifest = directory.read_manifest()
        settings = settings_from_manifest(manifest, str(directory.manifest_path))
    except CanastaError as error:
        raise click.UsageError(str(error)) from None
    if not 0 <= game_id < settings.games:
        raise click.UsageError(f"the run has games 0 to {settings.games - 1}; there is no game {game_id}")
    row = find_game(directory, settings.chunk_size, game_id, manifest, unrecorded=debug)
    sides = settings.sides(game_id) if row is None else (row["team_a_strategy"], row["team_b_strategy"])
    note_outside_code(manifest, sides, settings.files, f"replaying game {game_id}")
    # A bot's script or an isolated: file named relative to where the run started is started from there, as a
    # resume does; the page is written back here, where the path the user typed (and the line naming it) means
    # what they meant.
    started_from, _ = start_directory(manifest, settings, directory)
    # Outermost, so that a relative FILE is the one the user named here.
    if debug:
        with started_from:
            _debug(manifest, settings, row, run_dir=run_dir, game_id=game_id, show_hands=show_hands)
        return
    with no_stale_page("--html", html_file), started_from:
        page = _replay(manifest, settings, row, run_dir=run_dir, game_id=game_id, show_hands=show_hands,
                       html=html_file is not None)
    if page is not None:
        text, played = page
        write_output("--html", html_file, text, f"Wrote {html_file}: {played}")


def _replay(manifest: dict[str, Any], settings, row: dict[str, Any], *, run_dir: Path, game_id: int,
            show_hands: bool, html: bool) -> tuple[str, str] | None:
    """Play the recorded game ``row`` again: narrated, or with ``html`` recorded as a page, returned with the line
    that says it was written."""
    players, game = game_setup(manifest, settings, row, show_hands=show_hands)
    changes = changes_since_run(manifest, players)
    for change in changes:
        click.echo(f"Warning: {change}; the replay may differ.", err=True)
    side_a, side_b = players[0], players[1]
    if html:
        with interrupted_as_the_users():
            return _html_page(players, game, row, run_dir=run_dir, run_seed=manifest.get("seed"),
                              game_id=game_id, duplicate_pair=settings.duplicate_pair(game_id), changes=changes)
    recorded = (row["score_a"], row["score_b"])
    click.echo(f"Replay of game {game_id} of the run in {str(run_dir)!r}: side A {spec_shown(side_a.spec)}, side B "
               f"{spec_shown(side_b.spec)}; "
               f"the run recorded A {recorded[0]}, B {recorded[1]} ({ending_words(row['termination'])}).")
    if settings.time_limit is not None:
        click.echo(f"Each decision has the run's time limit of {settings.time_limit:g} s.")
    pair = settings.duplicate_pair(game_id)
    if pair is not None:  # as the HTML page says it
        click.echo(f"Duplicate deal: paired with game {pair} (the same cards, sides swapped).")
    click.echo("")
    try:
        with interrupted_as_the_users():
            result = narrate_apart(players, write=click.echo, **game)
    except StrategyError as error:
        if row["termination"] == "forfeit":
            check_forfeit(error, row)
            click.echo(f"The game stops here, as it did in the run (a forfeit): {error}")
            return
        raise click.ClickException(f"the replay failed where the run did not: {error}") from None
    _check_scores(tuple(result.scores), row)
    click.echo(f"The replay ends at the scores the run recorded: A {recorded[0]}, B {recorded[1]}.")


def _debug(manifest: dict[str, Any], settings, row: dict[str, Any] | None, *, run_dir: Path, game_id: int,
           show_hands: bool) -> None:
    """Play the run's game again in this process, for a debugger: the seed and the sides the run gave it (from
    ``run.json`` where the run recorded no ``row``), under its rules, with no time limit."""
    if row is None:
        side_a, side_b = settings.sides(game_id)
        row = {"seed": settings.game_seed(game_id), "team_a_strategy": side_a, "team_b_strategy": side_b}
        recorded = "the run did not record it (a failure stopped the run there, or it was not played)"
    else:
        recorded = f"the run recorded A {row['score_a']}, B {row['score_b']} ({ending_words(row['termination'])})"
    players, game = game_setup(manifest, settings, row, show_hands=show_hands)
    del game["time_limit"]  # a pause in the debugger is no decision's time
    for change in changes_since_run(manifest, players):
        click.echo(f"Warning: {change}; the replay may differ.", err=True)
    click.echo(f"Game {game_id} of the run in {str(run_dir)!r}, in this process with no time limit: side A "
               f"{spec_shown(players[0].spec)}, side B {spec_shown(players[1].spec)}, game seed {row['seed']}; "
               f"{recorded}.")
    click.echo("")
    try:
        with interrupted_as_the_users():
            result = narrate_here(players, write=click.echo, **game)
    except StrategyError as error:
        if error.traceback:
            click.echo(error.traceback.rstrip(), err=True)
        if "score_a" not in row:
            raise click.ClickException(f"{error} (reason: {error.reason})") from None
        if row["termination"] == "forfeit":
            check_forfeit(error, row)
            click.echo(f"The game stops here, as it did in the run (a forfeit): {error}")
            return
        raise click.ClickException(f"the replay failed where the run did not: {error}") from None
    if "score_a" in row:
        _check_scores(tuple(result.scores), row)
        click.echo(f"The replay ends at the scores the run recorded: A {row['score_a']}, B {row['score_b']}.")


def game_setup(manifest: dict[str, Any], settings, row: dict[str, Any], *,
               show_hands: bool = True) -> tuple[list[LoadedStrategy], dict[str, Any]]:
    """The four seats' strategies of a recorded game, loaded as the run loaded them, and the keyword arguments
    of :func:`~canasta_sim.terminal.narrate.narrate_game` (and :func:`record_game`) that play it again, under the
    run's rules and decision time limit.

    :raises click.ClickException: when a strategy cannot be loaded now.
    """
    files = dict(settings.files or ())
    side_a = _load(row["team_a_strategy"], files)
    side_b = _load(row["team_b_strategy"], files)
    players = [side_a, side_b, side_a, side_b]
    # The run's decision time limit too: a decision it stopped on time is stopped again, not waited for forever.
    game = {"seed": int(row["seed"]), "rules": settings.rules, "time_limit": settings.time_limit,
            "labels": [seat_label(player, seat) for seat, player in enumerate(players)],
            "names": [player.spec for player in players], "shown_seats": range(4) if show_hands else ()}
    return players, game


def recorded_run_game(players: list[LoadedStrategy], game: dict[str, Any], row: dict[str, Any]) -> RecordedGame:
    """Play a run's game again for its HTML page, checking that it ends where the run's record does.

    :raises click.ClickException: when the replay fails where the run did not, or ends at other scores.
    """
    try:
        recorded = record_apart(players, **game)
    except StrategyError as error:  # its process died: nothing of the game is left to show
        if row["termination"] == "forfeit":
            check_forfeit(error, row)
        said = ("the replay stopped as the run's game did, a forfeit, with nothing to show"
                if row["termination"] == "forfeit" else "the replay failed where the run did not")
        raise click.ClickException(f"{said}: {error}") from None
    if recorded.error is not None:
        if row["termination"] != "forfeit":
            raise click.ClickException(f"the replay failed where the run did not: {recorded.error}")
        check_forfeit(recorded.error, row)
    else:
        _check_scores(tuple(recorded.result.scores), row)
    return recorded


def _check_scores(scores: tuple[int, int], row: dict[str, Any]) -> None:
    """Refuse a replay that ends where the run's record does not (the strategies or the engine changed)."""
    recorded = (row["score_a"], row["score_b"])
    if row["termination"] == "forfeit" or scores != recorded:
        raise click.ClickException(
            f"the replay ends at A {scores[0]}, B {scores[1]} but the run recorded "
            f"A {recorded[0]}, B {recorded[1]} ({ending_words(row['termination'])}); the strategies or the engine "
            "have changed"
        )


def check_forfeit(error: StrategyError, row: dict[str, Any]) -> None:
    """Refuse a replay that stops at a forfeit other than the run's: another seat's, or for another reason (what the
    row does not hold, a run written before its forfeit columns, is not compared).

    :raises click.ClickException: naming both forfeits and the replay's failure.
    """
    seat, side, reason = _recorded_forfeit(row)
    replayed_side = TEAM_NAMES[error.seat % 2]
    if (seat is None or seat == error.seat) and side in (None, replayed_side) and reason in (None, error.reason):
        return
    by = f"seat {seat}" if seat is not None else f"side {side}"
    raise click.ClickException(
        f"the replay stops at a forfeit by seat {error.seat} ({error.reason}) but the run recorded one by {by} "
        f"({reason or 'no reason recorded'}); the strategies or the engine have changed; the replay's failure: {error}")


def _recorded_forfeit(row: dict[str, Any]) -> tuple[int | None, str | None, str | None]:
    """The seat, side and reason of the run's forfeit in ``row``, each ``None`` where the row does not say."""
    side = row.get("forfeit_team")
    seat = None
    # The error column is a StrategyError's line, which begins with the failing strategy's spec and its seat.
    specs = [row[column] for column in ("team_a_strategy", "team_b_strategy")]
    for spec in specs if side is None else [specs[TEAM_NAMES.index(side)]]:
        opening = f"strategy {spec!r} at seat "
        text = row.get("error") or ""
        if text.startswith(opening) and text[len(opening):len(opening) + 1].isdigit():
            seat = int(text[len(opening)])
            break
    return seat, side, row.get("forfeit_reason")


def _html_page(players: list[LoadedStrategy], game: dict[str, Any], row: dict[str, Any], *,
               run_dir: Path, run_seed: int | None, game_id: int, duplicate_pair: int | None,
               changes: list[str]) -> tuple[str, str]:
    """Record the game and check its end against the run's record: the page, and the end of the line saying it was
    written (after the file's name)."""
    recorded = recorded_run_game(players, game, row)
    title = f"Game {game_id} of the run in {run_dir}"
    # Hands counted as the run's hands column counts them (docs/output.md): those finished; the hand a forfeit cut
    # short is named apart (it read "2 hands" where the column said 1).
    hands = counted(recorded.hands_finished, "hand")
    if recorded.error is not None:
        started = len(recorded.recorder.hands)
        where = f"in hand {started}" if started else "before the first deal"
        played = f"{hands} finished before the failure {where}, ending at a forfeit"
    else:
        played = f"{hands}, ending at A {row['score_a']}, B {row['score_b']}"
    page = recorded.html(title=title, run_seed=run_seed, game_id=game_id, source=str(run_dir),
                         duplicate_pair=duplicate_pair, changes=changes)
    return page, f"game {game_id}, {played} as the run recorded."
