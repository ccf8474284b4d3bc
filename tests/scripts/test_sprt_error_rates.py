"""``scripts/sprt_error_rates.py`` simulates compare's SPRT with the test's own log-likelihood ratio."""

from __future__ import annotations

import numpy as np
import pytest

from canasta_sim.runs.sprt import PENTANOMIAL_SCORES, TRINOMIAL_SCORES, Sprt, generalized_llr, score_from_elo
from tests.helpers import script_module


@pytest.mark.parametrize("scores", [TRINOMIAL_SCORES, PENTANOMIAL_SCORES])
def test_the_vectorized_llr_is_the_tests_own(scores):
    counts = np.random.default_rng(5).integers(0, 30, size=(20, len(scores))).astype(float)
    counts[0] = 0
    counts[0, 1] = 4  # every result in one category: the other maxima on the simplex's edge
    llrs, _ = script_module("sprt_error_rates").many_llrs(counts, scores, 0.0, 10.0, [np.zeros(20), np.zeros(20)])
    assert llrs == pytest.approx([generalized_llr(list(row), scores, 0.0, 10.0) for row in counts], rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("pentanomial", [False, True])
def test_the_simulated_results_have_the_hypothesis_score(pentanomial):
    scores = PENTANOMIAL_SCORES if pentanomial else TRINOMIAL_SCORES
    probabilities = script_module("sprt_error_rates").distribution(score_from_elo(40.0), pentanomial)
    assert probabilities.min() >= 0 and probabilities.sum() == pytest.approx(1.0)
    assert probabilities @ np.asarray(scores) == pytest.approx(score_from_elo(40.0))


def test_every_short_test_ends_with_a_decision():
    decided, length, _ = script_module("sprt_error_rates").simulate(Sprt(elo1=200.0), 0.0, False, 20, 2000, 3)
    assert (decided > 0).all() and (length > 0).all()
