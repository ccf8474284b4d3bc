"""docs/output.md documents every figure of the summary and of the report's other sections, as it documents every
column of the tables: the names a notebook, the CSV and the JSON report use."""

import dataclasses
import re
from pathlib import Path

import pytest

from canasta_sim.analysis.sections import PAIRED_FIELDS
from canasta_sim.runs.summary import SummaryRow

OUTPUT_MD = Path(__file__).resolve().parents[2] / "docs" / "output.md"
SECTION = "## The summary and the report"


def section() -> str:
    text = OUTPUT_MD.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/output.md has no section {SECTION!r}"
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def documented_names(body: str) -> list[str]:
    """The names in the first cell of every table row (one or several, each in backquotes)."""
    names = []
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3:
            names += re.findall(r"`([^`]+)`", cells[0])
    return names


@pytest.mark.parametrize("name, fields", [
    ("summary", [field.name for field in dataclasses.fields(SummaryRow)]),
    ("paired result", list(PAIRED_FIELDS)),
    ("cross table", ["strategy", "opponent", "games", "score", "score_low", "score_high"]),
    ("ratings", ["rank", "strategy", "elo", "elo_low", "elo_high", "games", "score"]),
])
def test_every_figure_of_the_summary_and_the_sections_is_documented(name, fields):
    documented = documented_names(section())
    missing = [field for field in fields if field not in documented]
    assert not missing, f"{name}: {missing} are not documented in docs/output.md"


def test_the_printed_margin_quoted_as_an_example_is_the_one_the_documented_run_printed():
    # docs/output.md quotes a "margin ±95%" cell; docs/running.md shows the table of the run it comes from
    # (canasta-sim run --games 10000 --seed 2024), which anyone can print again.
    quoted = re.findall(r'"margin ±95%", `([+-]\d+\.\d ±\d+\.\d)`', section())
    assert quoted, "docs/output.md no longer quotes a margin cell"
    printed = (OUTPUT_MD.parent / "running.md").read_text(encoding="utf-8").split("--seed 2024`:", 1)[1]
    printed = printed.split("```", 2)[1]
    assert all(cell in printed for cell in quoted), (quoted, printed)
