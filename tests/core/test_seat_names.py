"""A failing seat is named as its user knows the strategy when ``play_game`` (or the environment's driver) is given no
``names``: a loaded strategy by its spec, a class by its name, a function by its own name."""

from __future__ import annotations

import pytest

from canasta_sim import play_game
from canasta_sim.core.engine import strategy_name
from canasta_sim.env.driver import GameDriver
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy

FAILS_AT_ONCE = '''
from canasta_sim.strategies import Greedy


class FailsAtOnce(Greedy):
    name = "fails-at-once"

    def choose_acquire(self, view):
        raise RuntimeError("no move")
'''


@pytest.fixture
def fails_at_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fails.py").write_text(FAILS_AT_ONCE)
    return load_strategy("fails.py:FailsAtOnce")


def test_a_loaded_strategy_that_fails_is_named_by_its_spec_not_its_record(fails_at_once):
    # It read: strategy "LoadedStrategy(spec='fails.py:FailsAtOnce', cls=<class ...>, parameters=(), file=...)".
    with pytest.raises(StrategyError) as failure:
        play_game([fails_at_once, Greedy, fails_at_once, Greedy], seed=1)
    assert failure.value.spec == "fails.py:FailsAtOnce"
    assert str(failure.value).startswith("strategy 'fails.py:FailsAtOnce' at seat ")


def test_a_seat_is_named_by_spec_class_name_or_function_name(fails_at_once):
    def built(rng):
        return Greedy(rng)

    assert [strategy_name(factory) for factory in (fails_at_once, Greedy, built)] == [
        "fails.py:FailsAtOnce", "greedy", "built"]
    assert GameDriver(players=[None, fails_at_once, Greedy, built]).names == (
        "agent", "fails.py:FailsAtOnce", "greedy", "built")
