"""The docs' strategy and environment examples and the example bots, type-checked with ``mypy --strict``; the examples
that use nothing of canasta_sim with plain mypy's checks.

A bot author who writes in an editor with a type checker meets what mypy says here: an error on canasta_sim's side
(a public name unannotated, or annotated too loosely to use) or one the docs taught them to write.  mypy cannot
follow the editable install's import hook, nor find ``canasta_sim`` in ``sim/`` under its own name, so the test lays
the package out as a wheel installs it (links to the checkout's folders) and has mypy read it from there, silent
about the package's own code as it is about an installed package's.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/strategies.md", "docs/tuning.md", "docs/env.md"]
"""The pages whose Python examples write strategies, play games or drive the environments: those a user copies."""
CONFIG = """\
[mypy]
mypy_path = {site}
cache_dir = {cache}
strict = True

[mypy-canasta_sim.*]
ignore_errors = True

# OpenSpiel and pyarrow ship no annotations: the examples that use them are checked for the rest alone.
[mypy-pyspiel.*,open_spiel.*,pyarrow.*]
ignore_missing_imports = True

# The examples that use nothing of canasta_sim without strict's demand for annotations, as a contributor's plain
# `mypy examples/` reads them: they are not written against the package's annotations.
[mypy-{plain}]
disallow_untyped_defs = False
disallow_untyped_calls = False
disallow_incomplete_defs = False
disallow_any_generics = False
check_untyped_defs = False
warn_return_any = False
"""


def installed_layout(site: Path) -> None:
    """``canasta_sim`` under ``site`` as a wheel lays it out: ``sim/``'s files, and ``strategies/`` inside it."""
    package = site / "canasta_sim"
    package.mkdir(parents=True)
    for entry in (ROOT / "sim").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "strategies").symlink_to(ROOT / "strategies")


def examples(folder: Path) -> list[Path]:
    """Each page's Python examples that use canasta_sim, a module each, and the example bots that import it."""
    written = []
    for page in PAGES:
        blocks = re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), re.S)
        for number, block in enumerate(blocks):
            if "canasta_sim" in block:
                path = folder / f"{Path(page).stem.lower()}_{number}.py"
                path.write_text(textwrap.dedent(block))  # a block in a list item is indented with the item
                written.append(path)
    return written + example_files(uses_canasta_sim=True)


def example_files(*, uses_canasta_sim: bool) -> list[Path]:
    """The example files that use canasta_sim (the example bots), or those that import nothing of it (the protocol
    bot, the imitation script)."""
    return [path for path in sorted((ROOT / "examples").rglob("*.py"))
            if ("canasta_sim" in path.read_text()) == uses_canasta_sim and path.name != "__init__.py"]


@pytest.mark.timeout(120)
def test_the_docs_strategy_examples_and_example_bots_pass_mypy_strict(tmp_path):
    installed_layout(tmp_path / "site")
    (tmp_path / "examples").mkdir()
    files = examples(tmp_path / "examples")
    assert len(files) >= 8 and any(path.name == "my_bot.py" for path in files)
    plain = example_files(uses_canasta_sim=False)
    assert {path.name for path in plain} >= {"bot.py", "imitation.py"}
    files += plain
    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG.format(site=tmp_path / "site", cache=tmp_path / "cache",
                                    plain=",".join(path.stem for path in plain)))
    checked = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), *map(str, files)],
                             capture_output=True, text=True, cwd=tmp_path, timeout=100)
    assert checked.returncode == 0, checked.stdout + checked.stderr
