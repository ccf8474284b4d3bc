"""The report's Markdown sections align names to the left and figures to the right, as the summary table does, so
that an opponent's name or a rank does not stand on the wrong side of its column (built by hand: no games)."""

import math

from canasta_sim.analysis.sections import format_markdown
from canasta_sim.runs.matchmaking import MatchmakingResults, PairedResult
from canasta_sim.runs.ratings import CrossTable, Rating
from canasta_sim.runs.sprt import ResultCounts


def _alignments(markdown: str, heading: str) -> dict[str, str]:
    """Each column of the table under ``heading`` to ``left`` or ``right``."""
    lines = [line for line in markdown.split(heading, 1)[1].splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rule = [cell.strip() for cell in lines[1].strip("|").split("|")]
    return {name: "right" if cell.endswith(":") else "left" for name, cell in zip(header, rule, strict=True)}


def test_the_duplicate_table_puts_both_names_left_and_the_figures_right():
    counts = ResultCounts()
    counts.add_pair(1.0, 0.0)
    result = PairedResult("x", "y", counts, 0.5, 0.4, 0.6, 1.0, math.inf, 0.1, 0.2)
    alignments = _alignments(format_markdown(MatchmakingResults(paired=(result,))), "### Duplicate deals")
    assert alignments["strategy"] == alignments["opponent"] == "left"
    assert {alignments[name] for name in alignments if name not in ("strategy", "opponent")} == {"right"}


def test_the_ratings_table_puts_the_rank_right_and_the_strategy_left():
    ratings = (Rating("x", 10.0, 0.0, 20.0, 4, 0.6), Rating("y", -10.0, -20.0, 0.0, 4, 0.4))
    markdown = format_markdown(MatchmakingResults(ratings=ratings, cross_table=_table()))
    alignments = _alignments(markdown, "### Ratings")
    assert alignments == {"rank": "right", "strategy": "left", "Elo": "right", "95% interval": "right",
                          "games": "right", "score": "right"}
    assert _alignments(markdown, "### Cross table")["score of row vs column"] == "left"


def _table() -> CrossTable:
    table = CrossTable(["x", "y"])
    table.add("x", "y", "x", count=3)
    table.add("x", "y", "y")
    return table
