"""``canasta-sim docs [PAGE]``: the documentation pages, wherever canasta-sim is installed.

The command line's pointers name a page as ``canasta-sim docs PAGE``: the pages ship inside the package (the
wheel holds them under ``canasta_sim/docs/``), so a user who installed a wheel, with no checkout, can read the page
a message points to.  In a source checkout (an editable install) the pages are the checkout's ``docs/`` folder.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import click

import canasta_sim

__all__ = ["docs_command", "docs_folder", "find_page", "page_names", "shipped_folder"]

COMMAND = "canasta-sim docs"
"""How a message points to a page: ``canasta-sim docs protocol``."""


def docs_folder() -> Path:
    """The folder holding the documentation pages: the package's own (an installed wheel), or the source checkout's.

    :raises click.ClickException: when neither holds them (exit code 1: the installation lacks its pages).
    """
    return shipped_folder("docs", "index.md", "documentation pages")


def shipped_folder(name: str, marker: str, what: str) -> Path:
    """The folder ``name`` that the package ships (``canasta_sim/NAME`` in a wheel), or the source checkout's
    ``NAME/`` beside ``sim/`` in an editable install: the first that holds the file ``marker``.

    :raises click.ClickException: when neither holds it, naming ``what`` is missing (exit code 1).
    """
    package = Path(canasta_sim.__file__).resolve().parent
    candidates = [package / name]
    if (package.parent / "pyproject.toml").is_file():  # a source checkout: sim/ beside the folder
        candidates.append(package.parent / name)
    for folder in candidates:
        if (folder / marker).is_file():
            return folder
    raise click.ClickException(f"this installation of canasta-sim holds no {what} (looked in "
                               f"{', '.join(str(folder) for folder in candidates)})")


def page_names(folder: Path | None = None) -> list[str]:
    """The pages' names, as ``canasta-sim docs`` takes them (``protocol`` for ``protocol.md``), sorted."""
    return sorted(path.stem for path in (folder or docs_folder()).glob("*.md"))


def find_page(name: str, folder: Path | None = None) -> Path:
    """The file of the page ``name``: ``protocol``, ``protocol.md`` and ``docs/protocol.md`` all name one page.

    :raises click.UsageError: one line naming the pages there are, and the one ``name`` is likely a slip for
        (``rule``: ``rules``), when ``name`` is none of them.
    """
    folder = folder or docs_folder()
    stem = name.strip().removeprefix("docs/").removesuffix(".md").lower()
    names = page_names(folder)
    if stem in names:
        return folder / f"{stem}.md"
    meant = difflib.get_close_matches(stem, names, n=1, cutoff=0.6)
    guess = f" (did you mean {meant[0]}?)" if meant else ""
    raise click.UsageError(f"no documentation page {name!r}{guess}; the pages: {', '.join(names)}")


def _summaries(folder: Path) -> dict[str, str]:
    """Each page's entry in the index, ``running`` -> "`canasta-sim run` in full, ...", by name: the whole entry,
    on one line, where the index wraps it onto lines indented below."""
    index = (folder / "index.md").read_text(encoding="utf-8")
    entries = re.findall(r"^- \[(\w+)\.md\]\(\w+\.md\): (.*(?:\n  .*)*)", index, re.MULTILINE)
    found = {name: " ".join(entry.split()) for name, entry in entries}
    return {"index": "these pages, one line each, linked.", **found}


@click.command("docs")
@click.argument("page", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print where the page's file is instead of its text.")
def docs_command(page: str | None, show_path: bool) -> None:
    """Print the documentation page PAGE (Markdown), e.g. canasta-sim docs protocol; without PAGE, list the pages
    with one line each.  With --path, print the file's location instead (to open it in an editor or a viewer)."""
    folder = docs_folder()
    if page is None:
        if show_path:
            click.echo(str(folder))
            return
        summaries = _summaries(folder)
        names = page_names(folder)
        width = max(len(name) for name in names)
        for name in names:
            click.echo(f"{name.ljust(width)}  {summaries.get(name, '')}".rstrip())
        click.echo(f"\nRead one with: {COMMAND} PAGE (its file: {COMMAND} PAGE --path)")
        return
    found = find_page(page, folder)
    click.echo(str(found) if show_path else found.read_text(encoding="utf-8"), nl=show_path)
