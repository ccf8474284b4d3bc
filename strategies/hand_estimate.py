"""A static estimate of a hand's final score from a position in its middle, for play-outs cut short.

A play-out to the end of the hand costs most of a search's time; one cut after a few turns costs a
fraction of it, but then needs the hand's end estimated.  :func:`estimate_scores` does that with a
linear model of each side's final hand score (R14) in facts both sides' cards give at the cut: the
points already melded, canasta bonuses, red 3s, the cards and points still in hand (worth more
early, while the stock is large, and a penalty late), how near each side is to going out, and the
pile with whose turn it is.  The R14 parts are the core's own
(:func:`~canasta_sim.core.scoring.meld_totals`, :func:`~canasta_sim.core.scoring.side_red_three_bonus`,
:func:`~canasta_sim.core.scoring.side_hand_penalty`).  Its weights (:data:`WEIGHTS`) were fitted by
least squares on expert self-play hands by ``python scripts/pimc_horizon.py --fit`` (each turn's
position against the hand's final score), which prints them and how well they predict held-out hands.

>>> import random
>>> from canasta_sim.core.rules import Rules
>>> from canasta_sim.core.state import HandState
>>> state = HandState.deal(Rules(), random.Random(1), dealer=0)
>>> len(features(state, 0)) == len(WEIGHTS)
True
"""

from __future__ import annotations

from canasta_sim.core.scoring import meld_totals, side_hand_penalty, side_red_three_bonus
from canasta_sim.core.state import HandState

__all__ = ["FEATURES", "WEIGHTS", "estimate_scores", "features"]

STOCK_FULL = 108 - 4 * 11 - 1
"""The stock just after the deal (R3.1): a scale for how much of the hand is left."""

FEATURES = (
    "one",
    "melded points", "canasta bonuses", "red 3s", "hand points", "hand cards", "hand points x stock left",
    "hand cards x stock left", "has melded", "has a canasta", "a canasta and few cards",
    "their melded points", "their canasta bonuses", "their red 3s", "their hand points", "their hand cards",
    "their hand points x stock left", "their hand cards x stock left", "their has melded", "their has a canasta",
    "their canasta and few cards",
    "pile cards, our turn next", "pile cards, their turn next",
)
"""The names of :func:`features`, in order."""

WEIGHTS = (
    169.0036, 1.9154, 0.8475, 0.7529, -1.1995, 46.8021, 3.4323, -47.7136, -20.5945, -110.8537, 31.8567, -0.4225,
    0.2065, -0.1172, -1.2243, -8.5349, -0.0297, 23.4821, -3.7671, -122.4100, -369.4234, 5.5328, 3.8553
)
"""The fitted weight of each feature (see the module)."""


def _side(state: HandState, side: int, stock_left: float) -> list[float]:
    rules = state.rules
    meld_points, natural, mixed = meld_totals(state, side)
    bonuses = natural * rules.natural_canasta_bonus + mixed * rules.mixed_canasta_bonus
    points = side_hand_penalty(state, side)
    sizes = (sum(state.hands[side]), sum(state.hands[side + 2]))
    cards = sizes[0] + sizes[1]
    canasta = 1.0 if natural + mixed else 0.0
    return [meld_points, bonuses, side_red_three_bonus(state, side), points, cards, points * stock_left,
            cards * stock_left, 1.0 if state.side_has_melded[side] else 0.0, canasta, canasta / (1.0 + min(sizes))]


def features(state: HandState, side: int) -> list[float]:
    """The facts :func:`estimate_scores` weighs for ``side``'s final score, named by :data:`FEATURES`."""
    stock_left = len(state.stock) / STOCK_FULL
    return _join(_side(state, side, stock_left), _side(state, 1 - side, stock_left), state, side)


def _join(ours: list[float], theirs: list[float], state: HandState, side: int) -> list[float]:
    pile = len(state.pile)
    ours_next = (state.seat & 1) == side
    return [1.0, *ours, *theirs, pile if ours_next else 0.0, 0.0 if ours_next else pile]


def estimate_scores(state: HandState) -> tuple[float, float]:
    """Both sides' estimated running totals after the hand (as ``score_hand(...).totals_after``)."""
    before = state.scores_before
    stock_left = len(state.stock) / STOCK_FULL
    first, second = _side(state, 0, stock_left), _side(state, 1, stock_left)
    totals = []
    for side, ours, theirs in ((0, first, second), (1, second, first)):
        values = _join(ours, theirs, state, side)
        # Added one by one, not by sum(): Python 3.12's sum adds floats with a compensation that changes the last
        # bits, and pimc's choices compare these estimates, so the same seed played another game on another Python.
        estimate = 0.0
        for weight, value in zip(WEIGHTS, values, strict=True):
            estimate += weight * value
        totals.append(before[side] + estimate)
    return totals[0], totals[1]
