"""``scripts/interval_coverage.py`` measures how often the paired result's 95% interval holds the true score."""

from __future__ import annotations

import math

import numpy as np

from tests.helpers import script_module


def test_deals_that_never_vary_give_no_interval_to_count():
    covered, existing = script_module("interval_coverage").coverage((0, 0, 1, 0, 0), 5, 10, np.random.default_rng(1))
    assert math.isnan(covered) and existing == 0.0


def test_a_varying_score_is_covered_by_most_intervals():
    covered, existing = script_module("interval_coverage").coverage((1, 0, 2, 0, 1), 40, 60, np.random.default_rng(2))
    assert existing == 1.0 and 0.8 <= covered <= 1.0


def test_margins_all_alike_are_held_by_every_interval():
    # Every draw of a constant margin has the constant as its mean and no width: the truth, held every time.
    covered = script_module("interval_coverage").margin_coverage(np.full(10, 250.0), 5, 20, np.random.default_rng(3))
    assert covered == 1.0
