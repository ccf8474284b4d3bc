"""``canasta-sim check-strategy``: play a few games with a strategy and report anything wrong with it."""

from __future__ import annotations

import time

import click

from canasta_sim.engine import derive_seed, play_game
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.isolation import isolate_spec
from canasta_sim.loader import load_strategy
from canasta_sim.rules import Rules
from canasta_sim.strategies import BUILTIN

OPPONENTS = ("greedy", "random")
"""The built-in strategies a checked strategy plays against, in turn."""


@click.command("check-strategy")
@click.argument("spec")
@click.option("--games", type=click.IntRange(min=1), default=8, show_default=True, help="Games to play.")
@click.option(
    "--seed", type=int, default=0, show_default=True,
    help="Seed of the check; game k uses derive_seed(seed, 'check<k>').",
)
@click.option(
    "--time-limit", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
    help="Seconds one decision may take.",
)
@click.option("--rules", "rule_options", multiple=True, metavar="KEY=VALUE", help="Rule-set option (repeatable).")
@click.option("--isolate", is_flag=True, help="Run SPEC in a process of its own unless built-in (as isolated:SPEC).")
@click.pass_context
def check_command(
    context: click.Context, spec: str, games: int, seed: int, time_limit: float, rule_options: tuple[str, ...],
    isolate: bool,
) -> None:
    """Load SPEC, play GAMES games against greedy and random with sides alternated, and report any
    failure (an exception, a malformed or illegal decision, an overrun of the time limit) or a
    game that does not replay identically from its seed.  Exits 1 when something is wrong, 2 when
    SPEC or a rule option cannot be used."""
    try:
        rules = Rules.from_options(rule_options)
        if isolate:
            spec = isolate_spec(spec, BUILTIN)
        checked = load_strategy(spec)
        opponents = [load_strategy(name) for name in OPPONENTS]
    except CanastaError as error:
        click.echo(f"error: {error}", err=True)
        context.exit(2)
    click.echo(f"checking {checked.spec} ({checked.label}): {games} games against {', '.join(OPPONENTS)}")
    problems = 0
    wins = 0.0
    finished = 0
    slowest = 0.0
    for index in range(games):
        opponent = opponents[(index // 2) % len(opponents)]
        swapped = index % 2  # sides alternate: the checked strategy plays side A, then side B
        side_a, side_b = (opponent, checked) if swapped else (checked, opponent)
        game_seed = derive_seed(seed, f"check{index}")
        players = [side_a, side_b, side_a, side_b]
        names = [player.spec for player in players]
        start = time.perf_counter()
        try:
            result = play_game(players, seed=game_seed, rules=rules, names=names, time_limit=time_limit)
        except StrategyError as error:
            problems += 1
            click.echo(f"problem in game {index} against {opponent.spec}: {error}", err=True)
            continue
        slowest = max(slowest, time.perf_counter() - start)
        finished += 1
        if result.winner is None:
            wins += 0.5
        elif result.winner == swapped:
            wins += 1
        if index == 0:
            # The same seed must give the same game: a strategy that used global random state,
            # the clock or memory kept between games would play differently the second time.
            again = play_game(players, seed=game_seed, rules=rules, names=names, time_limit=time_limit)
            if again != result:
                problems += 1
                click.echo(
                    f"problem in game {index}: replaying seed {game_seed} gave a different game; a strategy "
                    "must draw randomness only from self.rng and keep no state between games",
                    err=True,
                )
    click.echo(f"{finished} of {games} games finished; won {wins:g}; slowest game {slowest * 1000:.0f} ms")
    if problems:
        click.echo(f"{problems} problem{'s' * (problems != 1)} found", err=True)
        context.exit(1)
    click.echo("no problems found")
