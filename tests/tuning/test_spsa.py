"""The SPSA update rule on its own, on synthetic objectives: no canasta is played here."""

import math
import random

import pytest

from canasta_sim.tuning.spsa import ALPHA, GAMMA, Dimension, Spsa, SpsaSettings, maximize

OPTIMUM = {"x": 0.8, "y": 0.25, "n": 13}
DIMENSIONS = [
    Dimension("x", low=0.0, high=1.0, step=0.01),
    Dimension("y", low=-2.0, high=2.0),
    Dimension("n", low=0, high=20, step=1, integer=True),
]


def strength(values) -> float:
    """Elo of a point: a peak of 0 at OPTIMUM, falling off quadratically (100 Elo at a whole range away)."""
    return -100 * sum(((value - OPTIMUM[d.name]) / d.width) ** 2 for d, value in zip(DIMENSIONS, values, strict=True))


def fake_match(games: int, seed: int):
    """A match whose per-game win probability is the logistic Elo curve of the two strengths."""

    def match(plus, minus, iteration):
        generator = random.Random(f"{seed}/{iteration}")
        win_probability = 1 / (1 + 10 ** (-(strength(plus) - strength(minus)) / 400))
        wins = sum(generator.random() < win_probability for _ in range(games))
        return wins / games - 0.5  # the head-to-head result: plus's mean score minus a half

    return match


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spsa_converges_to_the_optimum_of_a_noisy_match(seed):
    iterations = 1500
    spsa = Spsa(DIMENSIONS, SpsaSettings(iterations=iterations, seed=seed))
    start = spsa.start({"x": 0.2, "y": 1.5, "n": 3})
    theta = maximize(spsa, start, fake_match(games=16, seed=seed), range(iterations))
    for dimension, value in zip(DIMENSIONS, theta, strict=True):
        distance = abs(value - OPTIMUM[dimension.name]) / dimension.width
        assert distance < 0.12, f"{dimension.name} ended at {value}, optimum {OPTIMUM[dimension.name]}"
    assert strength(theta) > -3 and strength(start) < -50


def test_an_iteration_is_a_pure_function_of_the_point_the_number_and_the_result():
    settings = SpsaSettings(iterations=50, seed=7)
    one, other = Spsa(DIMENSIONS, settings), Spsa(DIMENSIONS, settings)
    theta = one.start({"x": 0.5, "y": 0.0, "n": 10})
    assert one.propose(theta, 17) == other.propose(theta, 17)
    assert one.update(theta, one.propose(theta, 17), 0.25) == other.update(theta, other.propose(theta, 17), 0.25)
    signs = [one.perturbation(k) for k in range(200)]
    assert all(sign in (-1, 1) for row in signs for sign in row)
    # Each sign is a fair coin, drawn independently per iteration and dimension.
    assert 0.4 < sum(row[0] == 1 for row in signs) / 200 < 0.6
    reseeded = Spsa(DIMENSIONS, SpsaSettings(iterations=50, seed=8))
    assert [reseeded.perturbation(k) for k in range(20)] != signs[:20]


def test_gains_follow_the_documented_schedules():
    settings = SpsaSettings(iterations=200, seed=0, learning_rate=0.5, perturbation=0.1)
    assert settings.stability_constant == 20
    for k in (0, 1, 10, 199):
        a_k, c_k = settings.gains(k)
        assert a_k == pytest.approx(0.5 / (20 + k + 1) ** ALPHA)
        assert c_k == pytest.approx(0.1 / (k + 1) ** GAMMA)
    assert (ALPHA, GAMMA) == (0.602, 0.101)


def test_candidates_are_perturbed_by_c_k_of_each_range_then_clipped_and_rounded():
    spsa = Spsa(DIMENSIONS, SpsaSettings(iterations=10, seed=3, perturbation=0.2))
    theta = spsa.start({"x": 0.95, "y": 0.0, "n": 10})
    proposal = spsa.propose(theta, 0)
    x_plus, y_plus, n_plus = proposal.plus
    x_sign, y_sign, n_sign = proposal.delta
    assert x_plus == (1.0 if x_sign > 0 else 0.75)  # 0.95 + 0.2 clipped to the range; 0.95 - 0.2 on the grid
    assert y_plus == pytest.approx(0.8 * y_sign)  # a continuous dimension is not rounded
    assert n_plus == 10 + 4 * n_sign and isinstance(n_plus, int)  # 0.2 of a 20-wide range, whole numbers
    assert proposal.minus[2] == 10 - 4 * n_sign


def test_the_update_moves_towards_the_winner_and_stays_in_the_ranges():
    spsa = Spsa(DIMENSIONS, SpsaSettings(iterations=10, seed=3))
    theta = spsa.start({"x": 0.5, "y": 0.0, "n": 10})
    proposal = spsa.propose(theta, 0)
    moved = spsa.update(theta, proposal, 0.5)  # plus won every game
    for before, after, sign in zip(theta, moved, proposal.delta, strict=True):
        assert (after - before) * sign > 0
    assert spsa.update(theta, proposal, 0.0) == theta
    pushed = spsa.start({"x": 1.0, "y": 2.0, "n": 20})
    for _ in range(5):
        pushed = spsa.update(pushed, proposal, 1.0 if proposal.delta[0] > 0 else -1.0)
    assert all(d.low <= value <= d.high for d, value in zip(DIMENSIONS, pushed, strict=True))


def test_a_parameter_whose_candidates_round_to_the_same_value_is_not_moved():
    coarse = [Dimension("n", low=0, high=100, step=50, integer=True)]
    spsa = Spsa(coarse, SpsaSettings(iterations=10, seed=0, perturbation=0.1))
    proposal = spsa.propose((50.0,), 0)
    assert proposal.plus == proposal.minus == (50,)
    assert spsa.gradient(proposal, 0.5) == (0.0,)
    assert spsa.update((50.0,), proposal, 0.5) == (50.0,)


def test_snap_rounds_to_the_grid_without_binary_noise():
    assert Dimension("x", low=0.0, high=1.0, step=0.01).snap(0.30000000000000004) == 0.3
    assert Dimension("x", low=0.0, high=3.0, step=0.05).snap(1.0749) == 1.05
    assert Dimension("x", low=0.1, high=0.9, step=0.2).snap(0.55) == 0.5
    assert Dimension("n", low=1, high=20, step=1, integer=True).snap(-3) == 1


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Dimension("x", low=1.0, high=1.0), "needs finite low < high"),
        (lambda: Dimension("x", low=0.0, high=math.inf), "needs finite low < high"),
        (lambda: Dimension("x", low=0.0, high=1.0, step=0.0), "0 < step <= high - low"),
        (lambda: SpsaSettings(iterations=0, seed=0), "the number of iterations must be at least 1; got 0"),
        (lambda: SpsaSettings(iterations=5, seed=0, learning_rate=-1), "a must be a finite number above 0"),
        (lambda: SpsaSettings(iterations=5, seed=0, perturbation=0.7), "at most 0.5"),
        (lambda: SpsaSettings(iterations=5, seed=0, stability=-1), "stability constant A"),
        (lambda: SpsaSettings(iterations=5, seed=0, alpha=0), "alpha must be above 0"),
        (lambda: Spsa([], SpsaSettings(iterations=5, seed=0)), "at least one dimension"),
        (lambda: Spsa([DIMENSIONS[0], DIMENSIONS[0]], SpsaSettings(iterations=5, seed=0)), "names must differ"),
    ],
)
def test_bad_settings_are_refused(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_a_result_outside_minus_one_to_one_is_refused():
    spsa = Spsa(DIMENSIONS, SpsaSettings(iterations=5, seed=0))
    theta = spsa.start({"x": 0.5, "y": 0.0, "n": 10})
    with pytest.raises(ValueError, match="between -1 and 1"):
        spsa.update(theta, spsa.propose(theta, 0), 1.5)
