"""Versions change only when behaviour changes, and behaviour never changes without them (pgx style).

Each built-in strategy plays a few seeded games against itself; what happened (every hand's end,
who went out, the running totals) is reduced to a fingerprint recorded here under the strategy's
``name@version`` and the engine's version.  A change that alters any game fails this test: bump the
strategy's ``version`` (or ``canasta_sim.ENGINE_VERSION`` when the engine's play changed) and record the new
fingerprint.  A refactor or a speed-up must leave every fingerprint as it is.
"""

import functools
import hashlib

import pytest

from canasta_sim import ENGINE_VERSION
from canasta_sim.core.engine import play_game
from canasta_sim.strategies import BUILTIN

# Engine 2 refused a meld group of no card (R9.1), a move no built-in plays; engine 3 allows black 3s among the
# opening melds of a take that goes out (R5.3, R8.2e), a position none of these games reaches; engine 4 closes the
# question to the partner after a take's extra melds the take did not need (R12.5, D23) and, under
# dealt_red_three_timing=first_turn, scores the red 3s of a seat whose first turn never came (D22), which none of
# these games meets; engine 5 refuses an answer to the partner that holds neither True nor False (E1), which no
# built-in gives: their fingerprints are engine 1's.  pimc@6 plays on where pimc@5 raised OverflowError (a lead of
# hundreds of thousands of points, which only rules far from the defaults give): its fingerprint is pimc@5's.
RECORDED = {
    ("5", "random@2"): "fe128f18dd2d7f26",
    ("5", "greedy@2"): "e427710f3a60a720",
    ("5", "expert@1"): "69070ea7b3f599cc",
    ("5", "pimc@6"): "4ff822b24e99b113",
}
EARLIER = {
    ("5", "pimc@4"): ({"melds": 0}, "1f038faf1f9c03dd"),
    ("5", "pimc@3"): ({"melds": 0, "horizon": 0}, "936f40f1579bd90b"),
}
"""Earlier versions that parameters still play: ``(engine, label): (parameters, fingerprint)``, the
parameters added to the cheap setting below (pimc@5 searches its meld decisions; ``melds=0`` lays
expert's melds as pimc@4 did; pimc@4's play-outs are cut after 12 turns, ``horizon=0`` plays them to the
hand's end as pimc@3 did)."""
CHEAP = {"pimc": ({"samples": 3, "screen": 2, "width": 2}, 2)}
"""Searching strategies are fingerprinted at a small setting over fewer games, to keep the suite fast:
``name: (parameters, games)``.  Their search code runs all the same, so a change to it shows."""


def fingerprint(strategy, games: int = 6) -> str:
    digest = hashlib.sha256()
    for seed in range(games):
        result = play_game([strategy] * 4, seed=seed)
        digest.update(
            repr([(hand.end_reason, hand.went_out_seat, hand.totals_after) for hand in result.hands]).encode()
        )
        digest.update(repr((result.scores, result.winner, result.termination)).encode())
    return digest.hexdigest()[:16]


def test_every_built_in_strategy_has_a_recorded_fingerprint():
    assert {label for _, label in RECORDED} == {cls.label() for cls in BUILTIN.values()}


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_play_matches_the_fingerprint_recorded_for_this_version(name):
    strategy = BUILTIN[name]
    key = (ENGINE_VERSION, strategy.label())
    parameters, games = CHEAP.get(name, ({}, 6))
    player = functools.partial(strategy, **parameters) if parameters else strategy
    found = fingerprint(player, games)
    assert key in RECORDED, f"no fingerprint for {key}: record {found!r}"
    assert found == RECORDED[key], (
        f"{strategy.label()} plays differently under engine {ENGINE_VERSION}: bump its version (or "
        f"canasta_sim.ENGINE_VERSION) and record {found!r}"
    )


@pytest.mark.parametrize("key", sorted(EARLIER))
def test_an_earlier_version_still_plays_as_recorded_under_its_parameters(key):
    engine, label = key
    name = label.partition("@")[0]
    extra, recorded = EARLIER[key]
    cheap, games = CHEAP.get(name, ({}, 6))
    assert engine == ENGINE_VERSION
    assert fingerprint(functools.partial(BUILTIN[name], **cheap, **extra), games) == recorded
