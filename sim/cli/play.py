"""``canasta-sim play``: a person plays seat 0 (South) in the terminal with a bot partner against two bots."""

from __future__ import annotations

import secrets
from pathlib import Path

import click

from canasta_sim.cli.options import (
    STRATEGY_SPECS,
    WholeNumber,
    ctrl_c_raises,
    fail,
    game_time_limit_option,
    rules_given,
    rules_option,
)
from canasta_sim.cli.outputs import check_output_folder
from canasta_sim.core.engine import play_game
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.plugins.loader import load_strategy, machines_doing
from canasta_sim.plugins.specs import bot_processes_refusal, is_bot_spec, isolate_spec
from canasta_sim.strategies import BUILTIN
from canasta_sim.terminal.human import PausingNarrator, PlayerQuit, TerminalPlayer
from canasta_sim.terminal.narrate import SEAT_NAMES


@click.command("play")
@click.option("--seed", type=WholeNumber(), default=None,
              help="The game's seed (default: drawn at random and printed).")
@click.option("--partner", default="greedy", show_default=True, metavar="SPEC",
              help=f"Your partner's strategy ({STRATEGY_SPECS}).")
@click.option("--opponents", default="greedy", show_default=True, metavar="SPEC", help="The opponents' strategy.")
@rules_option
@click.option("--save", "save_dir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="When the game ends, save it in DIR (new or empty) as a run of one game: "
                   "canasta-sim replay DIR 0 plays it again.")
@game_time_limit_option(" Your own decisions are never timed.")
def play_command(seed: int | None, partner: str, opponents: str, rule_options: tuple[str, ...],
                 save_dir: Path | None, time_limit: float | None) -> None:
    """Play a game in the terminal: you are South, your partner North, against West and East.

    Each prompt lists the legal choices: type a number or a move (draw, take 7 7, K K K; 8 8 2,
    done, discard 4); the discard prompt lists cards, so there 4 is a four. 'help' explains, 'show'
    shows the table again, 'quit' or end of input stops. --save DIR keeps the game for replay.
    """
    if save_dir is not None:  # refused before the game, not after an hour of play
        check_save_folder(save_dir)
    try:
        rules = rules_given(rule_options)
        # A bot that is not built in plays in a process of its own (isolated:), so that nothing it does can end the
        # command unheard or write over the person's terminal: the terminal stays this process's, the person's.
        partner_strategy = load_strategy(_isolated_where_possible(partner))
        opponent_strategy = load_strategy(_isolated_where_possible(opponents))
    except CanastaError as error:
        raise click.UsageError(str(error)) from None
    seed_drawn = seed is None
    if seed is None:
        seed = secrets.randbelow(2**31)  # a fresh game; the seed is printed so it can be replayed
    narrator = PausingNarrator(click.echo, shown_seats=(0,))
    people: list[TerminalPlayer] = []

    def human(rng):
        people.append(TerminalPlayer(rng, narrator=narrator))
        return people[-1]

    players = [human, opponent_strategy, partner_strategy, opponent_strategy]
    labels = ["you", opponent_strategy.label, partner_strategy.label, opponent_strategy.label]
    narrator.game_header(seed=seed, labels=labels, rules=rules)
    click.echo(f"You are {SEAT_NAMES[0]}; your partner is {SEAT_NAMES[2]}. Replay this deal with --seed {seed}.")
    # The person's Ctrl-C while a bot is thinking is theirs, not the bot's (ctrl_c_raises): it abandons the game.
    try:
        with ctrl_c_raises(PlayerQuit):
            result = play_game(players, seed=seed, rules=rules, names=["you", opponents, partner, opponents],
                               observer=narrator, time_limit=time_limit)
    except (PlayerQuit, KeyboardInterrupt):
        click.echo("")
        click.echo(f"Game abandoned. (seed {seed})" + (" Only a finished game is saved." if save_dir else ""))
        return
    except StrategyError as error:  # a built-in out of memory is the machine's doing, not the built-in's
        raise click.ClickException(machines_doing(error) or str(error)) from None
    narrator.game_over(result)
    if result.winner is None:
        click.echo("A draw.")
    else:
        click.echo("You and your partner win!" if result.winner == 0 else "West and East win.")
    if save_dir is not None:
        from canasta_sim.cli.play_saving import save_played_game  # pyarrow and the run's tables: only to save

        replay = save_played_game(save_dir, result, partner=partner, opponents=opponents,
                                  decisions=people[-1].decisions, rules=rules, seed_drawn=seed_drawn,
                                  time_limit=time_limit)
        click.echo(f"Saved the game in {save_dir}: {replay} plays it again (--html FILE for a page).")


def check_save_folder(path: Path) -> None:
    """Refuse a ``--save`` folder that is a file or holds anything, or whose parent is missing."""
    if path.exists() and not path.is_dir():
        raise fail(f"--save {path} is a file; name a new or empty directory")
    if path.is_dir() and any(path.iterdir()):
        raise fail(f"--save {path} is not empty; name a new or empty directory")
    check_output_folder("--save", path)


def _isolated_where_possible(spec: str) -> str:
    """The spec ``play`` plays for ``spec``: ``isolated:SPEC`` for a strategy not built in, except on a system without
    bot processes (Windows), where it plays in this process, as the note it prints says."""
    isolated = isolate_spec(spec, BUILTIN)
    if isolated == spec.strip() or is_bot_spec(spec) or bot_processes_refusal(isolated) is None:
        return isolated
    click.echo(f"note: {spec.strip()} plays in this process, as Windows cannot run it in a process of its own: a crash "
               "of its code ends the game", err=True)
    return spec
