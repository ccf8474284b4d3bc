"""Cross tables and Bradley–Terry ratings (:mod:`canasta_sim.runs.ratings`), checked on tables with a known answer."""

import math

import numpy as np
import pytest

from canasta_sim.runs.ratings import CrossTable, fit_ratings, format_cross_table, format_ratings

NAMES = ("north", "east", "south", "west")
TRUE_ELO = np.array([0.0, 100.0, 250.0, -80.0])


def _synthetic_table(rng: np.random.Generator, games_per_pair: int, draw_rate: float = 0.0) -> CrossTable:
    """Every pair plays ``games_per_pair`` games with win chances from TRUE_ELO (logistic Elo)."""
    table = CrossTable(NAMES)
    for i in range(len(NAMES)):
        for j in range(i + 1, len(NAMES)):
            expected = 1.0 / (1.0 + 10.0 ** (-(TRUE_ELO[i] - TRUE_ELO[j]) / 400.0))
            # Draws take half their share from each side's wins, so the expected score stays put.
            draws = int(rng.binomial(games_per_pair, draw_rate))
            wins = int(rng.binomial(games_per_pair - draws, (expected - draw_rate / 2) / (1 - draw_rate)))
            table.add(NAMES[i], NAMES[j], NAMES[i], count=wins)
            table.add(NAMES[i], NAMES[j], NAMES[j], count=games_per_pair - draws - wins)
            table.add(NAMES[i], NAMES[j], None, count=draws)
    return table


def test_two_entrants_recover_the_elo_of_their_score():
    table = CrossTable(("x", "y"))
    table.add("x", "y", "x", count=75)
    table.add("y", "x", "y", count=25)
    x, y = fit_ratings(table)
    # A 75% score is 190.8 Elo; centred on the mean, each entrant is half of it away.  The fit's weak
    # prior (sd 1000 Elo) pulls the estimate in by a fraction of a point.
    assert x.elo - y.elo == pytest.approx(400 * math.log10(3), abs=0.5)
    assert x.elo == pytest.approx(-y.elo) and x.score == 0.75 and x.games == 100
    # The interval of the difference is 1.96 / sqrt(n p q) in log-strength: +-78.6 Elo, halved per entrant.
    assert x.high - x.elo == pytest.approx(1.959964 / math.sqrt(100 * 0.75 * 0.25) * 400 / math.log(10) / 2, rel=5e-3)


def test_known_elo_differences_are_recovered_within_their_intervals():
    table = _synthetic_table(np.random.default_rng(11), games_per_pair=2000, draw_rate=0.1)
    # 99.9% intervals: four ratings at 95% would miss somewhere one time in five (calibration is checked below).
    ratings = fit_ratings(table, confidence=0.999)
    centred = TRUE_ELO - TRUE_ELO.mean()
    for rating, truth in zip(ratings, centred, strict=True):
        assert rating.low <= truth <= rating.high, (rating, truth)
        assert rating.high - rating.low < 30  # 6000 games pin a rating to within about +-13 Elo at 99.9%


def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    rng = np.random.default_rng(5)
    centred = TRUE_ELO - TRUE_ELO.mean()
    covered = total = 0
    for _ in range(150):
        for rating, truth in zip(fit_ratings(_synthetic_table(rng, games_per_pair=200)), centred, strict=True):
            covered += rating.low <= truth <= rating.high
            total += 1
    assert 0.92 <= covered / total <= 0.98


def test_an_unbeaten_entrant_gets_a_large_finite_rating_with_a_wide_interval():
    table = CrossTable(("a", "b", "c"))
    table.add("a", "b", "a", count=10)
    table.add("b", "c", "b", count=6)
    table.add("b", "c", "c", count=4)
    a, b, c = fit_ratings(table)
    assert math.isfinite(a.elo) and a.elo > b.elo > c.elo and a.high - a.low > 500


def test_cross_table_counts_and_rejects_bad_games():
    table = CrossTable(("a", "b"))
    table.add("a", "b", "a", count=3)
    table.add("b", "a", None)
    assert table.games[0, 1] == table.games[1, 0] == 4 and table.points[0, 1] == 3.5
    assert table.score("b", "a")[0] == pytest.approx(0.5 / 4)
    with pytest.raises(ValueError, match="cannot be 'c'"):
        table.add("a", "b", "c")
    with pytest.raises(KeyError, match="entrants: a, b"):
        table.add("a", "z", "a")
    with pytest.raises(ValueError, match="distinct"):
        CrossTable(("a", "a"))


def test_formatted_tables_show_every_entrant_strongest_first():
    ratings = fit_ratings(_synthetic_table(np.random.default_rng(3), games_per_pair=100))
    lines = format_ratings(ratings).splitlines()
    assert lines[0].split()[:3] == ["rank", "strategy", "Elo"]
    assert [line.split()[1] for line in lines[1:]] == ["south", "east", "north", "west"]
    cross = format_cross_table(_synthetic_table(np.random.default_rng(3), games_per_pair=100)).splitlines()
    assert len(cross) == 5 and "n=100" in cross[1]


def test_an_elo_that_rounds_to_zero_is_written_plus_zero_never_minus_zero():
    from canasta_sim.runs.ratings import Rating
    from canasta_sim.runs.sprt import elo_interval_text

    near_zero = Rating(name="x", elo=-0.03, low=-0.04, high=0.02, games=10, score=0.5)
    line = format_ratings([near_zero]).splitlines()[1]
    assert "+0.0" in line and "-0.0" not in line, line
    assert elo_interval_text(-0.04, 0.02) == "+0.0, +0.0"
