"""The report's sections beyond the per-strategy summary, in every format: the paired results of duplicate
deals, and the cross table and ratings of a round robin (:class:`canasta_sim.runs.matchmaking.MatchmakingResults`).

``canasta-sim report`` prints them as text (as ``run`` does), as Markdown tables, under the JSON keys
``duplicate``, ``cross_table`` and ``ratings``, and as more columns of the one-row-per-strategy CSV;
:mod:`canasta_sim.analysis` returns them as DataFrames.  Every figure is a plain number: rates are
fractions (0.25 = 25%), Elo differences are Elo points, margins are game points; an undefined figure is
``None`` (JSON, records) or empty (CSV).  An infinite paired Elo (a side that won every pair, or an interval end
past 0% or 100%) is ``inf`` or ``-inf`` in the records and the CSV, and ``None`` in JSON, which has no number for it
(its ``score`` of 1 or 0 tells it); text and Markdown print the estimate as ``+inf`` or ``-inf`` and an interval with
an infinite end as the one-sided bound it is, ``[at least +367.4]`` (:func:`canasta_sim.runs.sprt.elo_interval_text`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Iterable, Mapping, Sequence

from canasta_sim.runs.matchmaking import MatchmakingResults, PairedResult
from canasta_sim.runs.ratings import CROSS_TABLE_CORNER, CrossTable, Rating, cross_table_rows, ranked
from canasta_sim.runs.sprt import elo_interval_text
from canasta_sim.runs.summary import SummaryRow

__all__ = [
    "CROSS_TABLE_CORNER",
    "as_printed",
    "PAIRED_FIELDS",
    "cross_records",
    "format_csv",
    "format_markdown",
    "paired_records",
    "rating_records",
    "sections_json",
]

PAIRED_FIELDS = (
    "strategy", "opponent", "deals", "games", "score", "score_low", "score_high", "elo", "elo_low", "elo_high",
    "pairs_0", "pairs_0.5", "pairs_1", "pairs_1.5", "pairs_2", "mean_margin", "margin_deals",
    "score_variance_reduction", "equivalent_unpaired_games", "margin_variance_reduction",
)
"""The keys of a paired record, from ``strategy``'s point of view."""


_ELO_FIELDS = ("elo", "elo_low", "elo_high")
"""The paired record's Elo figures: infinite for a score of 0 or 1, which the records keep (the other figures'
infinities are undefined figures)."""


def _clean(value, infinite: bool = False):
    if isinstance(value, float):
        if math.isnan(value) or (math.isinf(value) and not infinite):
            return None
        # An even score's Elo is -0.0 (-400 * log10(1)), and its flip side negates it: adding 0.0 makes it 0.0,
        # which prints "+0.0" in every format, as the text report does, not "-0.0".
        return value + 0.0
    return value


def _paired_record(result: PairedResult, flipped: bool) -> dict:
    estimate = result.counts.estimate()
    pairs = list(result.counts.pairs)
    score, low, high = result.score, result.score_low, result.score_high
    elo, elo_low, elo_high = estimate.elo, estimate.low, estimate.high
    first, second, margin = result.first, result.second, result.margin
    if flipped:  # the same deals told from the second strategy's side
        first, second, margin = second, first, -margin
        score, low, high = result.second_score, 1 - high, 1 - low
        elo, elo_low, elo_high = -elo, -elo_high, -elo_low
        pairs.reverse()
    margin_deals = result.deals if result.margin_deals is None else result.margin_deals
    values = (first, second, result.deals, 2 * result.deals, score, low, high, elo, elo_low, elo_high, *pairs,
              margin, margin_deals, result.score_reduction, result.equivalent_games, result.margin_reduction)
    return {key: _clean(value, key in _ELO_FIELDS) for key, value in zip(PAIRED_FIELDS, values, strict=True)}


def paired_records(results: MatchmakingResults, both_sides: bool = False) -> list[dict]:
    """One record per pair of strategies with duplicate deals, from the first-given one's point of view
    (``both_sides``: and one from the other's)."""
    records = []
    for result in results.paired:
        records.append(_paired_record(result, False))
        if both_sides:
            records.append(_paired_record(result, True))
    return records


def cross_records(table: CrossTable | None) -> list[dict]:
    """One record per ordered pair that played: the row strategy's score against the opponent, Wilson 95%."""
    if table is None:
        return []
    records = []
    for first in table.names:
        for second in table.names:
            if first == second:
                continue
            score, low, high, games = table.score(first, second)
            if games:
                records.append({"strategy": first, "opponent": second, "games": games, "score": score,
                                "score_low": low, "score_high": high})
    return records


def rating_records(ratings: Sequence[Rating]) -> list[dict]:
    """One record per entrant, strongest first: rank (shared by a tie, :func:`~canasta_sim.runs.ratings.ranked`), Elo
    relative to the mean with its 95% interval."""
    return [{"rank": rank, "strategy": rating.name, "elo": rating.elo, "elo_low": rating.low,
             "elo_high": rating.high, "games": rating.games, "score": _clean(rating.score)}
            for rank, rating in ranked(ratings)]


def _row_name(label: str, names: Mapping[str, str]) -> str:
    """A summary row's label by ``names``: a spec, or in a mirror match ``spec (A)`` and ``spec (B)``."""
    if label in names:
        return names[label]
    spec, side = label[:-4], label[-4:]
    return names[spec] + side if side in (" (A)", " (B)") and spec in names else label


def as_printed(rows: Sequence[SummaryRow], results: MatchmakingResults,
               names: Mapping[str, str]) -> tuple[list[SummaryRow], MatchmakingResults]:
    """The summary's rows and the sections as the text, Markdown and HTML reports print them: every strategy by its
    name (``names``, :func:`canasta_sim.analysis.strategy_names`: ``greedy@2``, as the header and the charts name it,
    not the spec in one table and the name in the next), and a round robin's rows strongest first, as its cross table
    and ratings rank them (ties in the run's order).  CSV and JSON keep the specs and the run's order: they are read
    by programs, which key on the spec."""
    order = {name: position for position, name in enumerate(results.ranking())}
    ranked_rows = sorted(rows, key=lambda row: order.get(row.strategy, len(order)))  # stable: the run's order else
    renamed = [dataclasses.replace(row, strategy=_row_name(row.strategy, names)) for row in ranked_rows]
    return renamed, results.renamed(names)


def sections_json(results: MatchmakingResults) -> dict:
    """The JSON report's keys: ``duplicate``, ``cross_table`` and ``ratings`` (empty lists when not played); an
    infinite Elo is ``None`` there, JSON having no number for it."""
    return {
        "duplicate": [{key: _clean(value) for key, value in record.items()} for record in paired_records(results)],
        "cross_table": cross_records(results.cross_table),
        "ratings": rating_records(results.ratings),
    }


def _percent(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _signed(value) -> str:
    return "n/a" if value is None else f"{value:+z.1f}"


def _elo_interval(row: dict) -> str:
    """A paired record's Elo interval as the text report prints it (an infinite end as a one-sided bound)."""
    low, high = row["elo_low"], row["elo_high"]
    if low is None or high is None:  # every deal gave the same points: no interval, as the score's
        return f"{_signed(low)}, {_signed(high)}"
    return elo_interval_text(low, high)


def _margin_cell(row: dict) -> str:
    """The paired mean margin, with the deals it counts when forfeits left some out."""
    if row["margin_deals"] == row["deals"]:
        return _signed(row["mean_margin"])
    return f"{_signed(row['mean_margin'])} ({row['margin_deals']} deals with no forfeit)"


def _games(value) -> str:
    return "n/a" if value is None else f"{value:.0f} unpaired games"


_NAME_COLUMNS = frozenset({"strategy", "opponent", CROSS_TABLE_CORNER})
"""Columns of names, aligned left like the summary's first column; every other column holds figures, aligned right."""


def _markdown_table(header: list[str], rows: Iterable[list[str]]) -> str:
    rule = ["---" if name in _NAME_COLUMNS else "---:" for name in header]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def format_markdown(results: MatchmakingResults) -> str:
    """The sections as Markdown headings and tables ('' when there are none)."""
    sections = []
    paired = paired_records(results)
    if paired:
        sections.append("### Duplicate deals (paired, 95% interval from deal-to-deal variation)\n\n" + _markdown_table(
            ["strategy", "opponent", "deals", "score [95%]", "Elo [95%]", "pairs 0/0.5/1/1.5/2", "margin",
             "variance reduction: score", "as precise as", "variance reduction: margin"],
            ([row["strategy"], row["opponent"], str(row["deals"]),
              f"{_percent(row['score'])} [{_percent(row['score_low'])}, {_percent(row['score_high'])}]",
              f"{_signed(row['elo'])} [{_elo_interval(row)}]",
              "/".join(str(row[f"pairs_{key}"]) for key in ("0", "0.5", "1", "1.5", "2")),
              _margin_cell(row), _percent(row["score_variance_reduction"]),
              _games(row["equivalent_unpaired_games"]), _percent(row["margin_variance_reduction"])]
             for row in paired)))
    table = results.cross_table
    if table is not None:
        # Strongest first, as the ratings below and the chart of the matrix.
        header, *rows = cross_table_rows(table, results.ranking())
        sections.append("### Cross table (Wilson 95% interval)\n\n" + _markdown_table(header, rows))
        sections.append("### Ratings (Bradley-Terry, Elo relative to the mean, 95% interval)\n\n" + _markdown_table(
            ["rank", "strategy", "Elo", "95% interval", "games", "score"],
            ([str(row["rank"]), row["strategy"], _signed(row["elo"]),
              f"[{_signed(row['elo_low'])}, {_signed(row['elo_high'])}]", str(row["games"]),
              _percent(row["score"])] for row in rating_records(results.ratings))))
    return "\n\n".join(sections)


def _extra_columns(results: MatchmakingResults) -> tuple[list[str], dict[str, dict]]:
    """Columns added to the CSV summary, and their values by strategy."""
    columns: list[str] = []
    values: dict[str, dict] = {}

    def put(strategy: str, column: str, value) -> None:
        if column not in columns:
            columns.append(column)
        values.setdefault(strategy, {})[column] = value

    for rating in rating_records(results.ratings):
        for key in ("elo", "elo_low", "elo_high"):
            put(rating["strategy"], key, rating[key])
    for record in cross_records(results.cross_table):
        for key in ("score", "score_low", "score_high", "games"):
            put(record["strategy"], f"{key}_vs_{record['opponent']}", record[key])
    for record in paired_records(results, both_sides=True):
        for key in PAIRED_FIELDS[2:]:  # every figure of the pair, as the JSON key ``duplicate`` holds them
            put(record["strategy"], f"paired_{key}_vs_{record['opponent']}", record[key])
    return columns, values


def format_csv(rows: Iterable[SummaryRow], results: MatchmakingResults, rules: str = "default") -> str:
    """The summary as CSV, one row per strategy, with the sections' figures as more columns: ``elo``,
    ``elo_low``, ``elo_high`` (ratings), ``score_vs_X``, ``score_low_vs_X``, ``score_high_vs_X``,
    ``games_vs_X`` (cross table) and ``paired_KEY_vs_X`` for every key of :data:`PAIRED_FIELDS` but the two names
    (duplicate deals), X naming the opponent; and last ``rules``, the run's ``rules`` text on every row (the rules
    that differ from the defaults, ``default`` for none), by which the rows of several variants' CSVs put together
    stay apart."""
    extra_columns, extra = _extra_columns(results)
    fields = [field.name for field in dataclasses.fields(SummaryRow)] + extra_columns + ["rules"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        values = {**row.as_dict(), **extra.get(row.strategy, {}), "rules": rules}
        writer.writerow({key: "" if values.get(key) is None else values[key] for key in fields})
    return buffer.getvalue().rstrip("\n")
