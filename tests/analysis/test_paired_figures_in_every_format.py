"""The paired result of duplicate deals carries the same figures in the Markdown and CSV reports as in the
text and JSON ones, and an even result reads +0.0 Elo everywhere (built by hand: no games are played)."""

import csv
import io
import json
import math

import pandas as pd

from canasta_sim.analysis.sections import PAIRED_FIELDS, format_csv, format_markdown, paired_records, sections_json
from canasta_sim.runs.matchmaking import MatchmakingResults, PairedResult
from canasta_sim.runs.sprt import ResultCounts
from canasta_sim.runs.summary import summarize
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS

SUMMARY = summarize(pd.DataFrame(SUMMARY_FIXTURE_GAMES), pd.DataFrame(SUMMARY_FIXTURE_HANDS))


def paired(first: float, second: float, deals: int) -> PairedResult:
    """``deals`` deals in which ``x`` scored ``first`` and ``second`` against ``y``."""
    counts = ResultCounts()
    for _ in range(deals):
        counts.add_pair(first, second)
    score = (first + second) / 2
    return PairedResult("x", "y", counts, score, score, score, 1.0, math.inf, -0.25, 0.999)


def test_an_even_paired_result_reads_plus_zero_elo_in_markdown_csv_and_the_records():
    results = MatchmakingResults(paired=(paired(1.0, 0.0, 12),))
    for record in paired_records(results, both_sides=True):
        assert record["elo"] == 0.0 and math.copysign(1.0, record["elo"]) == 1.0, record
    markdown = format_markdown(results)
    assert "+0.0 [n/a, n/a]" in markdown and "-0.0" not in markdown, markdown
    assert "-0.0" not in format_csv(SUMMARY, results)


def test_the_csv_carries_every_figure_of_the_paired_result_from_both_sides():
    results = MatchmakingResults(paired=(paired(1.0, 0.5, 7),))
    rows = {row["strategy"]: row for row in csv.DictReader(io.StringIO(format_csv(SUMMARY, results)))}
    for mine, theirs in (("x", "y"), ("y", "x")):
        for key in PAIRED_FIELDS[2:]:
            assert f"paired_{key}_vs_{theirs}" in rows[mine], key
    assert rows["x"]["paired_pairs_1.5_vs_y"] == "7" and rows["y"]["paired_pairs_0.5_vs_x"] == "7"
    assert rows["x"]["paired_games_vs_y"] == "14"
    assert float(rows["y"]["paired_margin_variance_reduction_vs_x"]) == 0.999
    assert rows["x"]["paired_equivalent_unpaired_games_vs_y"] == ""  # infinite: undefined, as in JSON


def test_the_markdown_table_carries_the_margins_variance_reduction_and_the_equivalent_games():
    result = paired(1.0, 0.5, 7)
    result = PairedResult("x", "y", result.counts, 0.75, 0.7, 0.8, 0.225, 1291.4, 1153.0, 0.3)
    markdown = format_markdown(MatchmakingResults(paired=(result,)))
    row = next(line for line in markdown.splitlines() if line.startswith("| x |"))
    assert row.endswith("| +1153.0 | 22.5% | 1291 unpaired games | 30.0% |"), row


def test_an_infinite_paired_elo_reads_inf_in_every_format_but_json_which_has_no_number_for_it():
    # A side that won every deal 2-0 has an infinite Elo: the text said "+inf Elo", the Markdown report "n/a".
    results = MatchmakingResults(paired=(paired(1.0, 1.0, 3),))
    assert "+inf Elo [n/a]" in results.text()
    row = next(line for line in format_markdown(results).splitlines() if line.startswith("| x |"))
    assert "| +inf [n/a, n/a] |" in row, row
    x, y = paired_records(results, both_sides=True)
    assert (x["elo"], y["elo"]) == (math.inf, -math.inf)
    rows = {row["strategy"]: row for row in csv.DictReader(io.StringIO(format_csv(SUMMARY, results)))}
    assert (rows["x"]["paired_elo_vs_y"], rows["y"]["paired_elo_vs_x"]) == ("inf", "-inf")
    (record,) = sections_json(results)["duplicate"]
    assert record["elo"] is None and record["score"] == 1.0
    json.dumps(sections_json(results), allow_nan=False)  # strict JSON


def test_an_interval_end_past_100_percent_reads_as_a_one_sided_bound_in_markdown_as_in_the_text():
    # The end past 100% read "+inf" (and compare's "weaker by" line a raw "inf"), where the verdict reads an open
    # bound as "at least".
    counts = ResultCounts()
    counts.add_pair(1.0, 1.0)
    counts.add_pair(1.0, 0.0)
    results = MatchmakingResults(paired=(PairedResult("x", "y", counts, 0.75, 0.4, 1.0, 0.3, 3.0, 100.0, 0.5),))
    assert results.text().count("+190.8 Elo [at least -67.9]") == 1 and "inf" not in results.text(), results.text()
    row = next(line for line in format_markdown(results).splitlines() if line.startswith("| x |"))
    assert "| +190.8 [at least -67.9] |" in row and "inf" not in row, row


def test_the_second_strategys_paired_score_reads_as_its_summary_win_rate():
    # 93 of 400 games, no draw: the summary prints 23.2%, and the second strategy's paired score was 1 - 0.7675 in
    # floats, 0.23250000000000004, which the chart and the CSV gave as 23.3% and the JSON as that float.
    counts = ResultCounts()
    for first, second, deals in ((0.0, 0.0, 4), (1.0, 0.0, 85), (1.0, 1.0, 111)):
        for _ in range(deals):
            counts.add_pair(first, second)
    result = PairedResult("x", "y", counts, 307 / 400, 0.73, 0.805, 0.19, 494.0, 1186.5, 0.31)
    (row,) = [row for row in summarize(pd.DataFrame({
        "team_a_strategy": ["y"] * 400, "team_b_strategy": ["x"] * 400, "winner": ["A"] * 93 + ["B"] * 307,
        "margin": [0] * 400, "hands": [5] * 400, "termination": ["target"] * 400, "forfeit_team": [None] * 400,
    }), pd.DataFrame(SUMMARY_FIXTURE_HANDS).iloc[:0], ["y"]) if row.strategy == "y"]
    x, y = paired_records(MatchmakingResults(paired=(result,)), both_sides=True)
    assert y["score"] == row.win_rate == 93 / 400 and f"{100 * y['score']:.1f}%" == "23.2%", (y["score"], row.win_rate)
