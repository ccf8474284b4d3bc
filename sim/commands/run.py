"""``canasta-sim run``: play games and print a summary (the parallel runner replaces this body)."""

from __future__ import annotations

import click

from sim.engine import play_game
from sim.errors import CanastaError
from sim.loader import load_strategy
from sim.rules import Rules


@click.command("run")
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed.")
@click.option("-s", "--strategy", "specs", multiple=True, help="Strategy spec (repeat for head to head).")
@click.option("--rules", "rule_options", multiple=True, metavar="KEY=VALUE", help="Rule-set option.")
def run_command(games: int, seed: int, specs: tuple[str, ...], rule_options: tuple[str, ...]) -> None:
    """Play GAMES games and print who won."""
    try:
        rules = Rules.from_options(rule_options)
        loaded = [load_strategy(spec) for spec in (specs or ("greedy", "random"))]
    except CanastaError as error:
        raise click.UsageError(str(error)) from None
    if len(loaded) == 1:
        loaded = loaded * 2
    wins = [0, 0]
    for game in range(games):
        swap = game % 2
        sides = (loaded[swap], loaded[1 - swap])
        result = play_game([sides[0], sides[1], sides[0], sides[1]], seed=seed * 1_000_003 + game, rules=rules)
        if result.winner is not None:
            wins[(result.winner + swap) % 2] += 1
    for index, strategy in enumerate(loaded):
        click.echo(f"{strategy.spec}: {wins[index]} wins of {games}")
