"""A game is a pure function of (rules, seed, players) (E5): same inputs, same game, in any process."""

from __future__ import annotations

import multiprocessing
import os
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.strategies import Greedy, RandomPlay

PLAYERS = [RandomPlay, Greedy, RandomPlay, Greedy]
RULES = Rules(target_score=3000)
SEEDS = (0, 11, 12345)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The project's root, from which ``tests.core.test_determinism`` can be imported."""


def _game_text(seed: int) -> str:
    """The full record of one game as text (every hand's scores, parts and facts)."""
    return repr(play_game(PLAYERS, seed=seed, rules=RULES))


def test_same_seed_gives_identical_game():
    for seed in SEEDS:
        first = play_game(PLAYERS, seed=seed, rules=RULES)
        second = play_game(PLAYERS, seed=seed, rules=RULES)
        assert first == second and repr(first) == repr(second)


def test_different_seeds_give_different_games():
    results = {_game_text(seed) for seed in range(8)}
    assert len(results) == 8


def test_global_random_state_does_not_matter():
    random.seed(1)
    first = play_game(PLAYERS, seed=5, rules=RULES)
    random.seed(2)
    for _ in range(17):
        random.random()
    second = play_game(PLAYERS, seed=5, rules=RULES)
    assert first == second


def test_global_random_is_never_called(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the global random generator was used; inject a random.Random instead")

    for name in ("random", "randrange", "randint", "choice", "choices", "shuffle", "sample", "uniform", "seed"):
        monkeypatch.setattr(random, name, forbidden)
    result = play_game(PLAYERS, seed=9, rules=RULES)
    assert result.termination == "target"


def test_same_game_in_a_fresh_interpreter_with_another_hash_seed():
    code = (
        "from tests.core.test_determinism import _game_text\n"
        f"print(_game_text({SEEDS[1]}))\n"
    )
    environment = dict(os.environ, PYTHONHASHSEED="4242", PYTHONPATH=ROOT)
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=environment, timeout=120, check=True
    )
    assert completed.stdout.strip() == _game_text(SEEDS[1])


def test_same_game_in_a_spawned_process(monkeypatch):
    # A spawned child starts a fresh interpreter with the parent's sys.path; put the project root
    # on it so the child can import this module whichever way pytest was started.
    monkeypatch.syspath_prepend(ROOT)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as executor:
        texts = list(executor.map(_game_text, SEEDS[:2], timeout=120))
    assert texts == [_game_text(seed) for seed in SEEDS[:2]]
