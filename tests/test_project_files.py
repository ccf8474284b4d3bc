"""The project's own files that a new user meets first: the license, the README and the docs pages."""

import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
QUICK_START = ("pip install -e '.[dev]' && canasta-sim run --games 10000", "python -m pytest")


def test_the_license_file_is_the_mit_license_that_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert declared == "MIT" and text.startswith("MIT License")
    assert "Copyright (c) 2026 the canasta-sim authors" in text


def test_the_readme_is_an_entrance_with_the_quick_start_ci_runs():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for command in QUICK_START:
        assert f"\n{command}\n" in text, command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -q -e '.[dev]'" in ci and "python -m pytest" in ci


def test_the_readme_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    assert PAGES
    for page in PAGES:
        assert f"(docs/{page.name})" in text, page.name


def test_the_readme_shows_every_command_a_player_uses():
    # It showed watch, replay and report, but not play: a player found the game at the terminal only in the docs.
    text = README.read_text(encoding="utf-8")
    for command in ("play", "watch", "replay", "report"):
        line = next((line for line in text.splitlines() if line.startswith(f"canasta-sim {command} ")), None)
        assert line is not None, command
        assert CliRunner().invoke(main, [command, "--help"]).exit_code == 0, command


def test_the_extras_are_installed_the_way_a_checkout_can():
    # canasta-sim is on no package index: pip install 'canasta-sim[rl]' finds nothing, and the environments' and
    # ismcts's messages said just that, where the dask backend's gave the checkout's form.
    cluster = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
    assert "pip install '.[dask]'" in cluster
    sources = [README, *PAGES, *sorted((ROOT / "sim").rglob("*.py"))]
    for path in sources:
        assert "pip install 'canasta-sim[" not in path.read_text(encoding="utf-8"), path.name


def test_no_stale_install_time():
    for path in [README, ROOT / "docs" / "install.md"]:
        text = path.read_text(encoding="utf-8")
        assert "half a minute" not in text and "about half\na minute" not in text, path.name


WORK_ITEM = re.compile(r"\bissues? #\d+|(?<![(\w])#\d+(?![\w-])")


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda path: path.name)
def test_readme_and_docs_carry_no_work_item_numbers(path):
    assert WORK_ITEM.findall(path.read_text(encoding="utf-8")) == []


def anchors(path: Path) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings."""
    found = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            heading = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")
            found.add(slug)
    return found


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("path", [README, ROOT / "CHANGELOG.md", *PAGES], ids=lambda path: path.name)
def test_relative_links_resolve(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        assert linked.exists(), f"{path.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{path.name}: {target}"


def test_running_md_names_every_environment_variable_the_code_reads():
    # CANASTA_SIM_GAMES_AT_ONCE and CANASTA_SIM_BOT_MEMORY_LIMIT_MB were read by the code and named by no page.
    sources = [ROOT / "setup.py", *(path for folder in ("sim", "strategies", "scripts", "examples", "tests")
                                    for path in (ROOT / folder).rglob("*.py"))]
    read = {name for path in sources for name in re.findall(r"\bCANASTA_SIM_[A-Z_]*[A-Z]\b",
                                                            path.read_text(encoding="utf-8"))}
    assert {"CANASTA_SIM_GAMES_AT_ONCE", "CANASTA_SIM_BOT_MEMORY_LIMIT_MB", "CANASTA_SIM_PGO"} <= read
    running = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    section = running.partition("\n## Environment variables\n")[2].partition("\n## ")[0]
    assert sorted(name for name in read if f"`{name}" not in section) == []


def test_fairness_md_quotes_the_isolation_instruction_counts_that_performance_md_measured():
    # fairness.md kept 15.3 and 8.15 million after performance.md's row was measured again (16.5 and 8.0).
    performance = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    row = next(line for line in performance.splitlines()
               if line.startswith("| `isolated:expert` vs greedy, instructions a game"))
    worker, bot = re.search(r"\*\*([\d.]+) M and ([\d.]+) M\*\*", row).groups()
    fairness = " ".join((ROOT / "docs" / "fairness.md").read_text(encoding="utf-8").split())
    assert f"about {worker} million instructions a game" in fairness
    assert f"about {bot} million a seat's game" in fairness
