"""``canasta-sim strategies``: list the strategies a spec can name, with versions, descriptions and parameters."""

from __future__ import annotations

import click

from canasta_sim.core.parameters import declared_parameters, format_value
from canasta_sim.errors import CanastaError
from canasta_sim.plugins.loader import ENTRY_POINT_GROUP, available_strategies, load_strategy


@click.command("strategies")
@click.argument("specs", nargs=-1, metavar="[SPEC]...")
@click.pass_context
def strategies_command(context: click.Context, specs: tuple[str, ...]) -> None:
    """List the built-in strategies and the plugins installed under the entry-point group
    canasta_sim.strategies, each with its version, a one-line description and its parameters
    (type, default, and the range canasta-sim tune explores where one is declared).  Given
    SPECs (my_bot.py:MyBot, ...), list those instead."""
    rows = []
    try:
        # A file's strategy is listed nowhere else: its name, version and declared parameters, read from its class.
        found = [(loaded.cls.name, loaded.cls, loaded.spec) for loaded in map(load_strategy, specs)] if specs \
            else available_strategies()
    except CanastaError as error:
        click.echo(f"Error: {error}", err=True)  # as click and every other command say it
        context.exit(2)
    for name, cls, source in found:
        if cls is None:
            rows.append((name, "-", source, "fails to load; run `canasta-sim check-strategy " + name + "`"))
        else:
            first_line = (cls.description or (cls.__doc__ or "").strip()).splitlines()
            rows.append((name, str(cls.version), source, first_line[0] if first_line else ""))
    header = ("NAME", "VERSION", "SOURCE", "DESCRIPTION")
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(3)]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3])
    for name, cls, _ in found:
        if cls is not None and cls.parameters:
            click.echo(f"\nParameters of {name}:")
            for line in parameter_lines(cls.parameters):
                click.echo("  " + line)
    click.echo(
        f"\nA spec is one of these names, FILE.py:Class, module:Class, or a plugin under {ENTRY_POINT_GROUP!r};"
        "\nadd parameters after a colon, e.g. expert:aggression=0.7.  Ranged parameters can be tuned:"
        "\ncanasta-sim tune expert (canasta-sim docs tuning)."
    )


def parameter_lines(parameters) -> list[str]:
    """One aligned line per parameter: name, type, default, range (or 'not tuned') and what it does."""
    rows = []
    for key, parameter in declared_parameters(parameters).items():
        default = parameter.default
        # repr keeps a float looking like one (1.0, not 1): the type decides how a spec's text is read.
        shown = repr(default) if isinstance(default, float) else format_value(default)
        rows.append((key, parameter.type_name, f"default {shown}", parameter.range_text() or "no range (not tuned)",
                     parameter.help))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, [*widths, 0], strict=True)).rstrip()
            for row in rows]
