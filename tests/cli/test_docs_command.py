"""``canasta-sim docs``: the documentation pages the command line points to, readable from any install.

The messages pointed to pages as "(docs/protocol.md)", a file a user who installed the wheel does not have; they
name ``canasta-sim docs PAGE`` now, and the pages ship inside the package (tests/test_packaging.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import canasta_sim
from canasta_sim.cli import main
from canasta_sim.cli.docs import docs_folder, find_page, page_names

ROOT = Path(__file__).resolve().parents[2]
POINTER = re.compile(r"canasta-sim docs (\w+)")


def _user_facing_texts(path: Path) -> list[str]:
    """The string constants of a module that a user may read: every one but the docstrings of modules, classes and
    functions, except a click command's docstring, which is its ``--help``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            is_command = any("command" in ast.unparse(decorator) for decorator in getattr(node, "decorator_list", []))
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and not is_command:
                docstrings.add(id(first.value))
        body = getattr(node, "body", None)
        for before, after in zip(body[:-1], body[1:], strict=True) if isinstance(body, list) else ():
            if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr):
                docstrings.add(id(after.value))  # an attribute's docstring
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _package_texts() -> list[tuple[str, str]]:
    return [(str(path.relative_to(ROOT)), text)
            for folder in ("sim", "strategies") for path in sorted((ROOT / folder).rglob("*.py"))
            for text in _user_facing_texts(path)]


def test_the_command_lines_pointers_name_pages_the_docs_command_finds():
    texts = _package_texts()
    to_files = [(where, text) for where, text in texts if re.search(r"docs/\w+\.md", text)]
    assert not to_files, f"pointers to files a wheel's user lacks: {to_files}"
    pointed = {(where, page) for where, text in texts for page in POINTER.findall(text)}
    assert {page for _, page in pointed} >= {"protocol", "rules", "output", "fairness"}
    for where, page in pointed:
        assert find_page(page).name == f"{page}.md", where


def test_a_page_prints_as_written_and_its_path_on_request():
    runner = CliRunner()
    printed = runner.invoke(main, ["docs", "protocol"])
    assert printed.exit_code == 0 and printed.output == (docs_folder() / "protocol.md").read_text(encoding="utf-8")
    for spelling in ("protocol.md", "docs/protocol.md", "Protocol"):
        located = runner.invoke(main, ["docs", spelling, "--path"])
        assert located.exit_code == 0 and Path(located.output.strip()) == docs_folder() / "protocol.md"


def test_without_a_page_it_lists_every_page_with_its_line_from_the_index():
    listed = CliRunner().invoke(main, ["docs"])
    assert listed.exit_code == 0
    lines = dict(line.split(None, 1) for line in listed.output.splitlines() if line and " " in line.strip()
                 and not line.startswith("Read one"))
    assert set(page_names()) - {"index"} <= set(lines)
    assert lines["protocol"].startswith("the bot protocol")
    # Every entry whole, where the index wraps it: running's ended at "watching and playing," before.
    assert lines["running"].endswith("the environment variables.")
    assert all(line.endswith(".") for line in lines.values()), lines


def test_an_unknown_page_is_one_line_naming_the_pages():
    result = CliRunner().invoke(main, ["docs", "billing"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: no documentation page 'billing'; the pages: {', '.join(page_names())}"]


@pytest.mark.parametrize("typed, meant", [("protocl", "protocol"), ("rule", "rules"), ("run", "running")])
def test_a_page_name_slipped_names_the_page_meant(typed, meant):
    # "docs rule" listed fifteen pages and left the reader to find "rules" among them, where a mistyped command or
    # rule key says which it may be a slip for.
    result = CliRunner().invoke(main, ["docs", typed])
    assert result.exit_code == 2
    assert result.output == (f"Error: no documentation page {typed!r} (did you mean {meant}?); the pages: "
                             f"{', '.join(page_names())}\n")


def test_an_installed_package_reads_its_own_pages_not_a_checkouts(tmp_path, monkeypatch):
    # As a wheel installs it: site-packages/canasta_sim/docs/, nothing beside the package.
    package = tmp_path / "site-packages" / "canasta_sim"
    (package / "docs").mkdir(parents=True)
    (package / "docs" / "index.md").write_text("# pages\n")
    (package / "docs" / "protocol.md").write_text("# the protocol\n")
    monkeypatch.setattr(canasta_sim, "__file__", str(package / "__init__.py"))
    assert docs_folder() == package / "docs"
    assert find_page("protocol").read_text() == "# the protocol\n"
    (package / "docs" / "index.md").unlink()
    with pytest.raises(click.ClickException, match="holds no documentation pages"):
        docs_folder()
