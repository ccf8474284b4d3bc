"""An ``isolated:`` strategy declares the same parameters as in-process, ranges and help included: a value out of
range is refused when its spec is loaded, ``tune`` finds what to tune, and ``strategies`` lists the ranges."""

from __future__ import annotations

import pytest

from canasta_sim.core.parameters import Parameter, declared_parameters
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.protocol import ProtocolError, parse_ready
from canasta_sim.plugins.server import BotServer
from canasta_sim.strategies import Expert, Greedy


@pytest.mark.timeout(60)
def test_an_isolated_spec_s_value_out_of_range_is_refused_when_it_is_loaded():
    # It loaded, and each bot process then died building its player: "its bot process ended (exit status 1)",
    # charged as a crash at the first decision of every game.
    with pytest.raises(StrategyLoadError, match="aggression=2 is out of range; expected a float from 0 to 1"):
        load_strategy("isolated:expert:aggression=2")


@pytest.mark.timeout(60)
def test_an_isolated_strategy_declares_its_parameters_as_in_process():
    # Only the defaults crossed the handshake: "tune isolated:expert" found no parameter with a range.
    isolated = load_strategy("isolated:expert")
    assert declared_parameters(isolated.cls.parameters) == declared_parameters(Expert.parameters)
    assert load_strategy("isolated:expert:aggression=0.7").parameters == (("aggression", "0.7"),)


def test_a_ready_parameter_may_be_a_declaration_and_a_plain_default_stays_one():
    base = {"type": "ready", "protocol": 2, "name": "b"}
    declared = {"default": 0.5, "low": 0, "high": 1, "step": 0.1, "help": "how bold"}
    parameters = parse_ready({**base, "parameters": {"bold": declared, "depth": 2}})["parameters"]
    assert parameters == {"bold": Parameter(0.5, low=0, high=1, step=0.1, help="how bold"), "depth": 2}
    # A strategy with plain defaults only says them as before.
    assert BotServer("greedy").ready()["parameters"] == {key: value for key, value in Greedy.parameters.items()}


@pytest.mark.parametrize(("declared", "words"), [
    ({"low": 0, "high": 1}, "'bold' needs a 'default'"),
    ({"default": 0.5, "low": 0, "high": 1, "stp": 0.1}, "'bold' has no field \"stp\""),
    ({"default": 2.0, "low": 0, "high": 1}, "'bold': the default 2.0 is outside the range 0 to 1"),
    ({"default": [1], "low": 0, "high": 1}, "'bold'"),
])
def test_a_ready_declaration_that_is_no_parameter_is_refused_in_one_line(declared, words):
    with pytest.raises(ProtocolError) as caught:
        parse_ready({"type": "ready", "protocol": 2, "name": "b", "parameters": {"bold": declared}})
    assert words in str(caught.value) and "\n" not in str(caught.value), caught.value
