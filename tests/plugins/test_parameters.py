"""Parameter declarations: defaults with ranges, conversion of spec text, range checks, and their listing."""

import random

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.parameters import Parameter, convert_parameter, declared_parameters, format_value
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import BUILTIN, Expert
from canasta_sim.strategies.greedy import Greedy


class PlainBot(Greedy):
    """A user's strategy declaring its parameters the old way, as plain defaults."""

    name = "plain"
    parameters = {"depth": 2, "bold": False, "style": "calm", "weight": 0.5}


class RangedBot(Greedy):
    """A user's strategy mixing both forms."""

    name = "ranged"
    parameters = {"depth": Parameter(2, low=1, high=6), "weight": 0.5}


def test_plain_defaults_still_work_and_are_converted_to_their_types():
    player = PlainBot(random.Random(0), depth="3", bold="yes", style="wild", weight="0.25")
    assert (player.depth, player.bold, player.style, player.weight) == (3, True, "wild", 0.25)
    default = PlainBot(random.Random(0))
    assert (default.depth, default.bold, default.style, default.weight) == (2, False, "calm", 0.5)
    assert all(not parameter.is_tunable for parameter in declared_parameters(PlainBot.parameters).values())


def test_a_parameter_record_sets_its_default_and_checks_its_range():
    assert RangedBot(random.Random(0)).depth == 2
    assert RangedBot(random.Random(0), depth="6").depth == 6
    with pytest.raises(StrategyLoadError, match=r"^ranged: depth=7 is out of range; expected an int from 1 to 6, "
                                                r"such as 2$"):
        RangedBot(random.Random(0), depth="7")
    with pytest.raises(StrategyLoadError, match="depth=0 is out of range"):
        RangedBot(random.Random(0), depth=0)  # typed values are checked too
    declared = declared_parameters(RangedBot.parameters)
    assert declared["depth"].is_tunable and declared["depth"].grid_step == 1
    assert not declared["weight"].is_tunable


@pytest.mark.parametrize("key, value", [
    ("depth", 2.5), ("depth", True), ("depth", None), ("bold", 1), ("bold", "maybe"), ("style", 3),
    ("weight", None), ("weight", True), ("weight", float("inf")), ("weight", float("nan")),
])
def test_a_typed_value_of_another_type_than_the_default_is_refused_as_its_text_would_be(key, value):
    # Given from Python (PlainBot(rng, depth=2.5)), the value was set as it was: an int parameter held 2.5, a float one
    # None or inf, which the spec's text ("depth=2.5", "weight=inf") is refused for.
    with pytest.raises(StrategyLoadError, match=f"^plain: {key}="):
        PlainBot(random.Random(0), **{key: value})


def test_typed_values_of_the_defaults_type_are_taken_a_numpy_integer_as_its_int():
    np = pytest.importorskip("numpy")
    player = PlainBot(random.Random(0), depth=np.int64(4), bold=False, style="wild", weight=1)
    assert (player.depth, player.bold, player.style, player.weight) == (4, False, "wild", 1)
    assert type(player.depth) is int


def test_every_built_in_range_holds_its_default_and_a_default_expert_plays_as_before():
    for cls in BUILTIN.values():
        for parameter in declared_parameters(cls.parameters).values():
            assert parameter.low is None or parameter.low <= parameter.default <= parameter.high
    player = Expert(random.Random(0))
    assert (player.aggression, player.freeze, player.ask_cards, player.answer_cost, player.wild_take_pile) == (
        0.5, 1.0, 5, 100, 4)
    assert {name for name, parameter in declared_parameters(Expert.parameters).items() if parameter.is_tunable} == {
        "aggression", "freeze", "ask_cards", "answer_cost", "wild_take_pile"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expert:aggression=abc", "expert: aggression=abc is not a number; expected a float from 0 to 1, such as 0.5"),
        ("expert:aggression=2", "expert: aggression=2 is out of range; expected a float from 0 to 1, such as 0.5"),
        ("expert:ask_cards=4.5", "expert: ask_cards=4.5 is not a whole number; expected an int from 0 to 15, "
                                 "such as 5"),
        ("expert:answer_cost=-5", "expert: answer_cost=-5 is out of range; expected an int from 0 to 300"),
        ("expert:freeze=inf", "expert: freeze=inf is not a finite number"),
    ],
)
def test_the_loader_refuses_bad_values_in_one_line(spec, message):
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(spec)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_conversion_messages_for_plain_defaults_name_the_type_and_an_example():
    whole = r"^plain: depth=deep is not a whole number; expected an int such as 2$"
    with pytest.raises(StrategyLoadError, match=whole):
        convert_parameter("plain", "depth", 2, "deep")
    with pytest.raises(StrategyLoadError, match=r"^plain: bold=maybe is not true or false; expected true or false"):
        convert_parameter("plain", "bold", False, "maybe")
    with pytest.raises(StrategyLoadError, match=r"expected a float such as 1\.0$"):
        convert_parameter("plain", "weight", 1.0, "heavy")
    with pytest.raises(StrategyLoadError, match=r"^plain: depth='' is not a whole number"):
        convert_parameter("plain", "depth", 2, "")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"default": 0.5, "low": 0.0}, "needs both low and high"),
        ({"default": 0.5, "low": 1.0, "high": 0.0}, "finite low <= high"),
        ({"default": 2.0, "low": 0.0, "high": 1.0}, "outside the range"),
        ({"default": 0.5, "low": 0.0, "high": 1.0, "step": 0}, "step must be positive"),
        ({"default": 0.5, "step": 0.1}, "needs a range"),
        ({"default": True, "low": 0, "high": 1}, "only int and float parameters take a range"),
        ({"default": "calm", "low": 0, "high": 1}, "only int and float parameters take a range"),
        ({"default": 2, "low": 0, "high": 5, "step": 0.5}, "an int parameter needs whole numbers"),
        ({"default": 1.0, "low": 0.0, "high": 2.0, "step": 5.0}, "step must be at most its range's width"),
    ],
)
def test_bad_declarations_are_refused(arguments, message):
    default = arguments.pop("default")
    with pytest.raises(ValueError, match=message):
        Parameter(default, **arguments)


def test_format_value_writes_values_as_a_spec_reads_them():
    assert [format_value(value) for value in (0.62, 1.0, 5, False, 0.1 + 0.2, "x")] == [
        "0.62", "1", "5", "false", "0.3", "x"]


def test_strategies_command_lists_each_parameter_with_default_and_range():
    result = CliRunner().invoke(main, ["strategies"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    expert_line = next(line for line in lines if line.strip().startswith("aggression"))
    assert "float" in expert_line and "default 0.5" in expert_line and "0 to 1, step 0.01" in expert_line
    for name, default, range_text in (("freeze", "1.0", "0 to 3, step 0.05"), ("ask_cards", "5", "0 to 15, step 1"),
                                      ("answer_cost", "100", "0 to 300, step 5"),
                                      ("wild_take_pile", "4", "1 to 20, step 1")):
        line = next(line for line in lines if line.strip().startswith(name))
        assert f"default {default}" in line and range_text in line
    assert "Parameters of expert:" in result.output and "Parameters of greedy:" not in result.output


def test_a_yes_no_parameter_takes_the_words_a_yes_no_rule_takes():
    for word, value in (("on", True), ("OFF", False), ("yes", True), ("0", False)):
        assert convert_parameter("plain", "bold", False, word) is value
    with pytest.raises(StrategyLoadError, match=r"expected true or false \(also yes/no, on/off, 1/0\), such as false$"):
        convert_parameter("plain", "bold", False, "maybe")
