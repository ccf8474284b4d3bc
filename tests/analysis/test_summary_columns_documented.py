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
