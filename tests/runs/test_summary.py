"""The run summary against a small hand-computed fixture, and its four output formats."""

import csv
import io
import json
import math

import pandas as pd
import pytest

from canasta_sim.runs.summary import SummaryAccumulator, format_summary, side_labels, summarize, wilson_interval
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS

GAME_COLUMNS = ["game_id", "team_a_strategy", "team_b_strategy", "score_a", "score_b", "winner", "margin", "hands",
                "termination", "forfeit_team"]


def fixture_games() -> pd.DataFrame:
    """Four games of x against y: x wins one (g0) and one by y's forfeit (g2), y wins g1, g3 is a draw."""
    return pd.DataFrame([{column: game[column] for column in GAME_COLUMNS} for game in SUMMARY_FIXTURE_GAMES])


HAND_COLUMNS = ["game_id", "hand_no", "team", "strategy", "opponent_strategy", "score", "pile_takes",
                "canasta_natural", "canasta_mixed", "red_threes", "went_out", "concealed"]


def fixture_hands() -> pd.DataFrame:
    return pd.DataFrame([{column: hand[column] for column in HAND_COLUMNS} for hand in SUMMARY_FIXTURE_HANDS])


def test_wilson_interval_known_values():
    # Textbook Wilson 95% intervals.
    assert wilson_interval(2, 4) == (0.15, 0.85)
    assert wilson_interval(1, 4) == (0.0456, 0.6994)
    assert wilson_interval(0, 10) == (0.0, 0.2775)
    assert wilson_interval(10, 10) == (0.7225, 1.0)
    assert all(math.isnan(value) for value in wilson_interval(0, 0))


def test_summary_figures_match_hand_computation():
    x, y = summarize(fixture_games(), fixture_hands(), order=["x", "y"])
    assert (x.strategy, x.games, x.wins, x.draws, x.losses, x.forfeits) == ("x", 4, 2, 1, 1, 0)
    assert (y.strategy, y.games, y.wins, y.draws, y.losses, y.forfeits) == ("y", 4, 1, 1, 2, 1)
    assert x.win_rate == 0.5 and (x.win_rate_low, x.win_rate_high) == (0.15, 0.85)
    assert y.win_rate == 0.25 and (y.win_rate_low, y.win_rate_high) == (0.0456, 0.6994)
    # Margins and hands per game over the three games not forfeited: x +400, -1200, 0; hands 2, 1, 1.
    assert x.mean_margin == pytest.approx(-800 / 3)
    assert y.mean_margin == pytest.approx(800 / 3)
    assert x.hands_per_game == pytest.approx(4 / 3) and y.hands_per_game == pytest.approx(4 / 3)
    assert x.hands == 4 and y.hands == 4
    assert x.mean_hand_score == 625 and y.mean_hand_score == 825
    assert x.pile_takes_per_hand == 1.5 and y.pile_takes_per_hand == 1.5
    assert x.natural_canastas_per_hand == 0.5 and y.natural_canastas_per_hand == 0.5
    assert x.mixed_canastas_per_hand == 0.5 and y.mixed_canastas_per_hand == 0.25
    assert x.red_threes_per_hand == 0.75 and y.red_threes_per_hand == 0.5
    assert x.went_out_rate == 0.5 and y.went_out_rate == 0.5
    assert x.concealed_rate == 0.25 and y.concealed_rate == 0.25


def test_accumulating_in_chunks_equals_one_pass():
    games, hands = fixture_games(), fixture_hands()
    accumulator = SummaryAccumulator()
    for game_ids in ([0, 1], [2], [3]):
        accumulator.add(games[games.game_id.isin(game_ids)], hands[hands.game_id.isin(game_ids)])
    assert accumulator.rows(["x", "y"]) == summarize(games, hands, order=["x", "y"])


def test_mirror_match_is_summarized_by_side():
    assert side_labels("x", "x") == ("x (A)", "x (B)")
    games = pd.DataFrame([(0, "x", "x", 900, 400, "A", 500, 1, "target", None)], columns=GAME_COLUMNS)
    hands = pd.DataFrame(
        [(0, 1, "A", "x", "x", 900, 1, 1, 0, 0, True, False), (0, 1, "B", "x", "x", 400, 0, 0, 1, 0, False, False)],
        columns=HAND_COLUMNS,
    )
    side_a, side_b = summarize(games, hands)
    assert (side_a.strategy, side_a.wins, side_a.mean_margin, side_a.went_out_rate) == ("x (A)", 1, 500, 1.0)
    assert (side_b.strategy, side_b.wins, side_b.mean_margin, side_b.went_out_rate) == ("x (B)", 0, -500, 0.0)


def test_formats_carry_the_same_figures():
    rows = summarize(fixture_games(), fixture_hands(), order=["x", "y"])
    text = format_summary(rows, "text")
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["strategy", "games", "wins"]
    assert "50.0% [15.0%, 85.0%]" in lines[1] and "-266.7" in lines[1]
    assert "draws" in lines[0] and "forfeits" in lines[0]  # shown because the fixture has both
    markdown = format_summary(rows, "markdown").splitlines()
    assert markdown[0].startswith("| strategy |") and markdown[1].startswith("|---|")
    assert "| 25.0% [4.6%, 69.9%] |" in markdown[3]
    parsed = list(csv.DictReader(io.StringIO(format_summary(rows, "csv"))))
    assert [row["strategy"] for row in parsed] == ["x", "y"]
    assert float(parsed[1]["win_rate_high"]) == 0.6994
    data = json.loads(format_summary(rows, "json", extra={"run": {"seed": 7}}))
    assert data["run"]["seed"] == 7
    assert data["strategies"][0]["mean_margin"] == pytest.approx(-800 / 3)
    with pytest.raises(ValueError, match="text, markdown, csv or json"):
        format_summary(rows, "html")


def test_no_draw_or_forfeit_columns_when_there_are_none():
    games = fixture_games().iloc[[0, 1]]
    hands = fixture_hands()
    header = format_summary(summarize(games, hands[hands.game_id < 2]), "text").splitlines()[0]
    assert "draws" not in header and "forfeits" not in header


def test_a_run_summed_in_batches_of_chunks_equals_chunk_by_chunk(tmp_path, monkeypatch):
    # summarize_run sums several chunks at once; batch boundaries must change nothing, forfeits included.
    from click.testing import CliRunner

    from canasta_sim.cli import main
    from canasta_sim.runs import summary
    from canasta_sim.runs.storage import RunDirectory
    from tests.helpers import FLAKY_BOT_SOURCE

    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "run", "--games", "24", "--seed", "11", "-s", f"{tmp_path}/flaky.py:Flaky", "-s", "random", "--workers", "1",
        "--chunk-size", "3", "--on-error", "forfeit", "--rules", "target_score=1000", "--out", str(out), "-q",
    ])
    assert result.exit_code == 0, result.output
    directory = RunDirectory(out)
    one_by_one = SummaryAccumulator()
    for _, games, hands in directory.iter_chunks(summary.GAME_COLUMNS_NEEDED, summary.HAND_COLUMNS_NEEDED):
        one_by_one.add(games, hands)
    assert any(row.forfeits for row in one_by_one.rows())
    for batch_rows in (1, 100, summary.SUMMARY_BATCH_ROWS):
        monkeypatch.setattr(summary, "SUMMARY_BATCH_ROWS", batch_rows)
        assert summary.summarize_run(directory) == (one_by_one.rows(), 24, one_by_one.hand_capped)
