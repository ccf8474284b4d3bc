"""``canasta-sim strategies``: list the strategies a spec can name, with versions and descriptions."""

from __future__ import annotations

import click

from canasta_sim.loader import ENTRY_POINT_GROUP, available_strategies


@click.command("strategies")
def strategies_command() -> None:
    """List the built-in strategies and the plugins installed under the entry-point group
    canasta_sim.strategies, each with its version and a one-line description."""
    rows = []
    for name, cls, source in available_strategies():
        if cls is None:
            rows.append((name, "-", source, "fails to load; run `canasta-sim check-strategy " + name + "`"))
        else:
            first_line = (cls.description or (cls.__doc__ or "").strip()).splitlines()
            rows.append((name, str(cls.version), source, first_line[0] if first_line else ""))
    header = ("NAME", "VERSION", "SOURCE", "DESCRIPTION")
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(3)]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3])
    click.echo(
        f"\nA spec is one of these names, FILE.py:Class, module:Class, or a plugin under {ENTRY_POINT_GROUP!r};"
        "\nadd parameters after a colon, e.g. expert:aggression=0.7."
    )
