"""Every report format and the notebook API carry the cross table, the ratings and the duplicate-deal results
that the text report shows."""

import csv
import io
import json

import pytest

from canasta_sim.analysis import cross_table, load_run, paired_results, ratings
from tests.helpers import invoked

QUICK = ["--rules", "target_score=1000", "--workers", "1", "-q", "--seed", "2"]


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory):
    out = tmp_path_factory.mktemp("rr") / "run"
    invoked("run", "--games", "24", "-s", "greedy", "-s", "random", "-s", "expert", *QUICK, "--out", out)
    return out


@pytest.fixture(scope="module")
def duplicate(tmp_path_factory):
    out = tmp_path_factory.mktemp("dup") / "run"
    invoked("run", "--games", "20", "-s", "greedy", "-s", "random", "--duplicate", *QUICK, "--out", out)
    return out


def _reports(run):
    """The report of ``run`` as text, as parsed JSON, as CSV rows by strategy and as Markdown."""
    text = invoked("report", run)
    data = json.loads(invoked("report", run, "--format", "json"))
    rows = {row["strategy"]: row for row in csv.DictReader(io.StringIO(invoked("report", run, "--format", "csv")))}
    return text, data, rows, invoked("report", run, "--format", "markdown")


@pytest.mark.timeout(300)
def test_a_round_robins_cross_table_and_ratings_are_in_every_format_and_the_api(round_robin):
    text, data, rows, markdown = _reports(round_robin)
    assert "cross table" in text and "ratings" in text
    assert {row["rules"] for row in rows.values()} == {QUICK[1]}  # its variant, on every row
    assert "### Cross table" in markdown and "### Ratings" in markdown and data["duplicate"] == []
    run = load_run(round_robin)
    frame = ratings(run)
    for rating in data["ratings"]:
        name = rating["strategy"]
        # The same Elo in the text, the Markdown, the CSV column and the DataFrame.
        assert f"{rating['elo']:+.1f}" in text and f"{rating['elo']:+.1f}" in markdown
        assert float(rows[name]["elo"]) == pytest.approx(rating["elo"])
        assert frame.loc[rating["rank"], "elo"] == pytest.approx(rating["elo"])
    cells = cross_table(run)
    assert len(data["cross_table"]) == len(cells) == 6  # every ordered pair of three strategies played
    for cell in data["cross_table"]:
        assert float(rows[cell["strategy"]][f"score_vs_{cell['opponent']}"]) == pytest.approx(cell["score"])
        assert f"{100 * cell['score']:.1f}% [{100 * cell['score_low']:.1f}, {100 * cell['score_high']:.1f}] " \
               f"n={cell['games']}" in text
        mirror = next(other for other in data["cross_table"]
                      if (other["strategy"], other["opponent"]) == (cell["opponent"], cell["strategy"]))
        assert cell["score"] + mirror["score"] == pytest.approx(1.0) and cell["games"] == mirror["games"]


@pytest.mark.timeout(300)
def test_duplicate_deal_results_are_in_every_format_and_the_api_from_both_sides_in_csv(duplicate):
    text, data, rows, markdown = _reports(duplicate)
    (paired,) = data["duplicate"]
    assert (paired["strategy"], paired["opponent"], paired["deals"]) == ("greedy", "random", 10)
    assert f"paired result: greedy@2 scores {100 * paired['score']:.1f}%" in text  # named as the header names it
    assert "### Duplicate deals" in markdown and f"{100 * paired['score']:.1f}%" in markdown
    assert float(rows["greedy"]["paired_score_vs_random"]) == pytest.approx(paired["score"])
    assert float(rows["random"]["paired_score_vs_greedy"]) == pytest.approx(1 - paired["score"])
    assert float(rows["random"]["paired_mean_margin_vs_greedy"]) == pytest.approx(-paired["mean_margin"])
    frame = paired_results(load_run(duplicate))
    assert len(frame) == 1 and frame.loc[0, "score"] == pytest.approx(paired["score"])
    assert sum(paired[f"pairs_{key}"] for key in ("0", "0.5", "1", "1.5", "2")) == 10
