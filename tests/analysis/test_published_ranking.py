"""What an organizer publishes of a round robin: the ratings ranked, ties sharing a rank, and the cross table in the
same order in the text, Markdown and HTML reports as in ``pairwise_scores.png``, strongest first."""

import re
from types import SimpleNamespace

from canasta_sim.analysis.sections import format_markdown, rating_records
from canasta_sim.cli.plot_round_robin import _rating_order
from canasta_sim.cli.report_html import markdown_html
from canasta_sim.runs.matchmaking import MatchmakingResults
from canasta_sim.runs.ratings import CrossTable, fit_ratings


def _results() -> MatchmakingResults:
    """Four entrants given weakest first, 20 games a pair; ``tied`` and ``even`` end on 30 points of 60 each, by other
    results pair by pair, so that the fit gives them the same Elo but for rounding noise."""
    table = CrossTable(("weak", "tied", "even", "strong"))
    played = {("strong", "tied"): 12, ("strong", "even"): 14, ("strong", "weak"): 16, ("tied", "even"): 10,
              ("tied", "weak"): 12, ("even", "weak"): 14}
    for (first, second), wins in played.items():
        table.add(first, second, first, count=wins)
        table.add(first, second, second, count=20 - wins)
    return MatchmakingResults(cross_table=table, ratings=tuple(fit_ratings(table)))


RANKED = ["strong", "tied", "even", "weak"]
"""Strongest first, the two tied entrants in the order the run gave them."""


def _text_rows(block: str) -> list[list[str]]:
    return [line.split() for line in block.splitlines()[2:]]


def test_entrants_level_on_points_share_a_rank_in_the_order_given():
    results = _results()
    assert [(record["rank"], record["strategy"]) for record in rating_records(results.ratings)] == [
        (1, "strong"), (2, "tied"), (2, "even"), (4, "weak")]
    ratings_text = results.text().split("\n\nratings")[1]
    assert [row[:2] for row in _text_rows(ratings_text)] == [["1", "strong"], ["2", "tied"], ["2", "even"],
                                                              ["4", "weak"]]
    markdown = format_markdown(results).split("### Ratings")[1]
    assert [[row[0][2:], row[1]] for row in (line.split(" | ") for line in markdown.splitlines()[4:])] == [
        ["1", "strong"], ["2", "tied"], ["2", "even"], ["4", "weak"]]


def test_the_cross_table_lists_the_strategies_strongest_first_in_every_format_as_the_matrix_does():
    results = _results()
    text = results.text().split("\n\nratings")[0]
    assert text.splitlines()[1].split()[-4:] == RANKED  # the columns
    assert [row[0] for row in _text_rows(text)] == RANKED  # the rows
    markdown = format_markdown(results).split("### Ratings")[0]
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert lines[0].split(" | ")[1:] == [*RANKED[:-1], RANKED[-1] + " |"]
    assert [line.split(" | ")[0][2:] for line in lines[1:]] == RANKED
    page = markdown_html(markdown)
    assert re.findall(r'<td class="text">([^<]*)</td>', page) == RANKED
    chart = SimpleNamespace(matchmaking=lambda: results, manifest={})
    assert _rating_order(chart) == RANKED
