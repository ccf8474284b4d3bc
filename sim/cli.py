"""The ``canasta-sim`` command line; each command lives in its own module under :mod:`canasta_sim.commands`."""

from __future__ import annotations

import click

from canasta_sim import ENGINE_VERSION, __version__, accelerator
from canasta_sim.commands.check import check_command
from canasta_sim.commands.compare import compare_command
from canasta_sim.commands.play import play_command
from canasta_sim.commands.plot import plot_command
from canasta_sim.commands.replay import replay_command
from canasta_sim.commands.report import report_command
from canasta_sim.commands.run import run_command
from canasta_sim.commands.strategies import strategies_command
from canasta_sim.commands.tune import tune_command
from canasta_sim.commands.watch import watch_command


def _print_version(context: click.Context, _parameter: click.Parameter, value: bool) -> None:
    if not value or context.resilient_parsing:
        return
    import canasta_sim.strategies  # noqa: F401  (registers the built-in bots' compiled modules too)

    click.echo(f"canasta-sim {__version__}, engine version {ENGINE_VERSION}, {accelerator.describe()}")
    context.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, the engine version and whether the engine is compiled, and exit.")
def main() -> None:
    """canasta-sim: classic partnership canasta bot tournaments, fast, with per-hand statistics."""


main.add_command(run_command)
main.add_command(watch_command)
main.add_command(replay_command)
main.add_command(play_command)
main.add_command(strategies_command)
main.add_command(check_command)
main.add_command(report_command)
main.add_command(plot_command)
main.add_command(compare_command)
main.add_command(tune_command)
