"""``canasta-sim examples [FOLDER]``: the example bots, copied where the docs' commands expect them.

The docs run the examples by their paths in a checkout (``-s examples/my_bot.py:MyBot``,
``cmd:node examples/protocol/bot.js``).  They ship inside the package (the wheel holds them under
``canasta_sim/examples/``), and this command copies them into ``./examples`` (or FOLDER), so that those commands run
as written where canasta-sim was installed from a wheel, with no checkout.  In a source checkout (an editable
install) the examples are the checkout's ``examples/`` folder.
"""

from __future__ import annotations

from pathlib import Path

import click

from canasta_sim.cli.docs import shipped_folder

__all__ = ["EXAMPLE_SUFFIXES", "example_files", "examples_command", "examples_folder"]

EXAMPLE_SUFFIXES = (".py", ".js")
"""The kinds of file an example is: Python bots and scripts, and the JavaScript protocol bot."""


def examples_folder() -> Path:
    """The folder holding the examples: the package's own (an installed wheel), or the source checkout's.

    :raises click.ClickException: when neither holds them (exit code 1: the installation lacks its examples).
    """
    return shipped_folder("examples", "my_bot.py", "examples")


def example_files(folder: Path | None = None) -> list[Path]:
    """The examples' files, relative to their folder (``protocol/bot.js``), sorted."""
    folder = folder or examples_folder()
    return sorted(path.relative_to(folder) for path in folder.rglob("*")
                  if path.is_file() and path.suffix in EXAMPLE_SUFFIXES and "__pycache__" not in path.parts)


@click.command("examples")
@click.argument("folder", required=False, default="examples", type=click.Path(file_okay=False, path_type=Path))
@click.option("--path", "show_path", is_flag=True, help="Print where the installed examples are instead of copying.")
def examples_command(folder: Path, show_path: bool) -> None:
    """Copy the example bots into FOLDER (default ./examples), so that the docs' commands run as written, e.g.
    canasta-sim run -s "cmd:node examples/protocol/bot.js" -s greedy.  A file already there unchanged is left as
    it is; one that differs stops the copy before anything is written.  With --path, print where they are."""
    source = examples_folder()
    if show_path:
        click.echo(str(source))
        return
    files = example_files(source)
    differing = [name for name in files if (folder / name).exists()
                 and (not (folder / name).is_file() or (folder / name).read_bytes() != (source / name).read_bytes())]
    if differing:
        raise click.ClickException(
            f"{folder / differing[0]} exists and is not the example; copy into another folder "
            f"(canasta-sim examples FOLDER) or move it away")
    copied = 0
    for name in files:
        target = folder / name
        if not target.exists():
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes((source / name).read_bytes())
            except OSError as error:  # a read-only working folder (a container's, a CI checkout's)
                before = f" ({copied} copied before)" if copied else ""
                raise click.ClickException(
                    f"the examples cannot be copied into {folder}: {error.strerror or error}{before}; give a folder "
                    f"this user can write (canasta-sim examples FOLDER)") from None
            copied += 1
    click.echo(f"{copied} of {len(files)} examples copied into {folder} ({len(files) - copied} were there already): "
               f"{', '.join(str(name) for name in files)}")
