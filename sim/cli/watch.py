"""``canasta-sim watch``: play one game and narrate it turn by turn in plain text, or write it as an HTML page."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from canasta_sim.cli.narrated import DEBUG_DEFAULT, DEBUG_HELP, narrate_apart, narrate_here, record_apart
from canasta_sim.cli.options import (
    STRATEGY_SPECS,
    WholeNumber,
    counted,
    game_time_limit_option,
    interrupted_as_the_users,
    narration_options,
    rules_given,
    rules_option,
)
from canasta_sim.cli.outputs import check_output_folder, is_standard_output, no_stale_page, write_output
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy

DEFAULT_WATCH_SPECS = ("greedy",)


def seat_strategies(specs: Sequence[str]) -> list[LoadedStrategy]:
    """Load one strategy per seat: one spec plays every seat, two are sides A and B, four are seats 0-3.

    :raises click.UsageError: for another number of specs or a spec that does not load.
    """
    if len(specs) not in (1, 2, 4):
        raise click.UsageError(
            f"give 1 strategy (all seats), 2 (side A, side B) or 4 (seats 0-3); got {len(specs)}"
        )
    try:
        loaded = [load_strategy(spec) for spec in specs]
    except CanastaError as error:
        raise click.UsageError(str(error)) from None
    if len(loaded) == 1:
        return loaded * 4
    if len(loaded) == 2:
        return [loaded[0], loaded[1], loaded[0], loaded[1]]
    return loaded


@click.command("watch")
@click.option("--seed", type=WholeNumber(), default=0, show_default=True, help="The game's seed.")
@click.option(
    "-s", "--strategy", "specs", multiple=True, metavar="SPEC",
    help="Strategy spec: once for all seats, twice for sides A and B, four times for seats 0-3 (default: greedy; "
         f"{STRATEGY_SPECS}).",
)
@rules_option
@game_time_limit_option()
@narration_options
@click.option("--debug", is_flag=True, help=f"{DEBUG_HELP} {DEBUG_DEFAULT}.")
def watch_command(seed: int, specs: tuple[str, ...], rule_options: tuple[str, ...], time_limit: float | None,
                  show_hands: bool, html_file: Path | None, debug: bool) -> None:
    """Play one game and narrate it like a commented game in a rule book."""
    try:
        rules = rules_given(rule_options)
    except CanastaError as error:
        raise click.UsageError(str(error)) from None
    if debug and (html_file is not None or time_limit is not None):
        raise click.UsageError(f"--debug plays the game narrated in this process with no time limit; give it without "
                               f"{'--html' if html_file is not None else '--time-limit'}")
    if html_file is not None:
        check_output_folder("--html", html_file)
    players = seat_strategies(specs or DEFAULT_WATCH_SPECS)
    labels = [player.label for player in players]
    if html_file is not None:
        try:
            with interrupted_as_the_users():
                recorded = record_apart(players, seed=seed, rules=rules, labels=labels, time_limit=time_limit,
                                        names=[player.spec for player in players],
                                        shown_seats=range(4) if show_hands else ())
        except StrategyError as error:  # its process died: nothing of the game is left to show
            with no_stale_page("--html", html_file):
                raise click.ClickException(str(error)) from None
        if recorded.error is not None:
            write_output("--html", html_file, recorded.html(title=f"Canasta, game seed {seed}"), None)
            page = "the page" if is_standard_output(html_file) else html_file
            raise click.ClickException(f"wrote {page} up to the failure: {recorded.error}")
        write_output("--html", html_file, recorded.html(title=f"Canasta, game seed {seed}"),
                     f"Wrote {html_file}: game seed {seed}, {counted(len(recorded.recorder.hands), 'hand')}, "
                     f"final scores A {recorded.result.scores[0]}, B {recorded.result.scores[1]}.")
        return
    game = {"seed": seed, "rules": rules, "labels": labels, "names": [player.spec for player in players],
            "write": click.echo, "shown_seats": range(4) if show_hands else ()}
    try:
        with interrupted_as_the_users():
            if debug:
                narrate_here(players, **game)
            else:
                narrate_apart(players, time_limit=time_limit, **game)
    except StrategyError as error:
        if debug and error.traceback:
            click.echo(error.traceback.rstrip(), err=True)
        raise click.ClickException(str(error)) from None
