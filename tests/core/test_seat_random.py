"""SeatRandom applies an int seed when first used: every draw must be the one a generator seeded at
once would give, whichever method draws first."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from canasta_sim.core.strategy import SeatRandom

SEED = 0x1234_5678_9ABC_DEF0


def _draws(rng: random.Random) -> list:
    """A mix of random.Random's methods, each ending in random() or getrandbits()."""
    numbers = list(range(20))
    rng.shuffle(numbers)
    return [
        rng.random(), rng.randrange(1000), rng.getrandbits(70), rng.gauss(0.0, 1.0), rng.choice("abcdef"),
        rng.randbytes(5), rng.uniform(2.0, 3.0), rng.sample(range(50), 4), numbers,
    ]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("first", ["random", "getrandbits", "randrange", "gauss", "getstate", "randbytes"])
def test_deferred_seed_draws_what_a_seeded_generator_draws(first):
    deferred, seeded = SeatRandom(SEED, seat=2), random.Random(SEED)
    if first == "random":
        assert deferred.random() == seeded.random()
    elif first == "getrandbits":
        assert deferred.getrandbits(33) == seeded.getrandbits(33)
    elif first == "randrange":
        assert deferred.randrange(7) == seeded.randrange(7)
    elif first == "gauss":
        assert deferred.gauss(1.0, 2.0) == seeded.gauss(1.0, 2.0)
    elif first == "getstate":
        assert deferred.getstate() == seeded.getstate()
    else:
        assert deferred.randbytes(3) == seeded.randbytes(3)
    assert _draws(deferred) == _draws(seeded)
    assert deferred.getstate() == seeded.getstate()


@pytest.mark.timeout(30)
def test_seed_and_setstate_replace_the_deferred_seed():
    reseeded = SeatRandom(SEED)
    reseeded.seed(99)
    assert _draws(reseeded) == _draws(random.Random(99))
    restored = SeatRandom(SEED)
    restored.setstate(random.Random(5).getstate())
    assert _draws(restored) == _draws(random.Random(5))


@pytest.mark.timeout(30)
def test_copies_and_pickles_continue_the_same_stream():
    original, reference = SeatRandom(SEED, seat=1, time_limit=2.0), random.Random(SEED)
    assert original.random() == reference.random()
    for twin in (copy.deepcopy(original), pickle.loads(pickle.dumps(original))):
        assert _draws(twin) == _draws(copy.deepcopy(reference))
    unused = copy.deepcopy(SeatRandom(SEED))
    assert _draws(unused) == _draws(random.Random(SEED))


@pytest.mark.timeout(30)
def test_seat_random_keeps_its_seed_seat_and_time_limit():
    rng = SeatRandom(SEED, seat=3, time_limit=1.5)
    assert (rng.initial_seed, rng.seat, rng.time_limit) == (SEED, 3, 1.5)
    unseeded = SeatRandom(None)
    assert unseeded.initial_seed is None
    assert 0.0 <= unseeded.random() < 1.0
