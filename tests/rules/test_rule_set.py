"""The rule set as a whole (docs/rules.md §17): games finish under every alternative, docs/rules.md lists every
option and decision and its worked example scores as it says, and the rule-set object is frozen, keyword-only,
round-trips through its text forms and refuses unknown keys and bad values naming the key and what is accepted.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from canasta_sim.core.engine import MAX_HANDS_PER_GAME, play_game
from canasta_sim.core.rules import DEFAULT_RULES, RULE_CHOICES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    END_RED_THREE_LAST_CARD,
    END_STOCK_EXHAUSTED,
    END_WENT_OUT,
)
from canasta_sim.errors import RulesError
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.helpers import score_from_parts
from tests.rules.option_positions import bare_position, play_moves

# --------------------------------------------------------------------------- whole games

_ALTERNATIVES = [
    {"tie_rule": "draw"},
    {"initial_meld_table": "-inf:15,0:70,500:100,1000:150"},
    {"wild_ratio_rule": "min_two_naturals"},
    {"max_wilds_per_meld": "1"},
    {"max_wilds_per_meld": "4", "wild_ratio_rule": "min_two_naturals"},
    {"allow_wild_only_melds": "true"},
    {"canastas_to_go_out": "2"},
    {"natural_canasta_bonus": "400", "mixed_canasta_bonus": "250"},
    {"going_out_bonus": "150", "concealed_going_out_bonus": "300"},
    {"red_three_value": "100", "all_four_red_threes_total": "400"},
    {"red_three_negative_if_no_meld": "false"},
    {"ask_partner": "mandatory"},
    {"ask_partner": "off"},
    {"ask_partner_yes_forces_out": "false"},
    {"ask_partner": "mandatory", "ask_partner_yes_forces_out": "false"},
    {"black_three_melds": "never"},
    {"black_three_freezes_pile": "true"},
    {"blocking_wild_cards": "joker_only"},
    {"dealt_red_three_timing": "first_turn"},
    {"one_card_single_pile_block": "false"},
    {"concealed_exempt_from_minimum": "false"},
    {"concealed_allows_pile_take": "false"},
    {"stock_exhausted_rule": "official"},
    {"stock_exhausted_rule": "strict"},
    {"last_card_red_three": "meld_no_discard"},
    {"going_out_without_discard": "only_if_hand_holds_canasta"},
]


def test_alternatives_cover_every_non_default_choice():
    """Every word-valued key's every alternative, and every other key, appears among the game runs."""
    seen: dict[str, set[str]] = {}
    for options in _ALTERNATIVES:
        for key, value in options.items():
            seen.setdefault(key, set()).add(value)
    for key, choices in RULE_CHOICES.items():
        assert set(choices[1:]) <= seen.get(key, set()), key
    assert {field.name for field in dataclasses.fields(Rules)} - {"target_score"} <= set(seen)


@pytest.mark.parametrize("options", _ALTERNATIVES, ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()))
def test_whole_games_finish_under_each_alternative(options):
    """R15.1 under every alternative: games by expert, greedy and random players end at the target, every move
    legal, and each hand keeps the score identity (R14.1) and R12.1's canastas for the side that went out."""
    rules = Rules.from_mapping({"target_score": "1500", **options})
    for seed, players in ((1, [Greedy, RandomPlay, Greedy, RandomPlay]), (2, [RandomPlay, Greedy, RandomPlay, Greedy]),
                          (3, [Expert, Greedy, Expert, Greedy]), (4, [RandomPlay, Expert, RandomPlay, Expert])):
        result = play_game(players, seed=seed, rules=rules)
        assert result.termination == "target"
        assert max(result.scores) >= 1500
        for hand in result.hands:
            assert hand.end_reason in (END_WENT_OUT, END_STOCK_EXHAUSTED, END_RED_THREE_LAST_CARD)
            for side in hand.sides:
                assert side.score == score_from_parts(side)
                if side.went_out:
                    assert side.canasta_natural + side.canasta_mixed >= rules.canastas_to_go_out


# --------------------------------------------------------------------------- docs/rules.md


def test_docs_worked_example_r14_1():
    """R14.1: the worked example of docs/rules.md §14 scores 1340 and 115 (and -325 unmelded)."""
    hands = {0: "6 6 6", 1: "JK 7 7", 2: "K 4", 3: "A 2 5"}
    side_a = "8 8 8 8 8 8 8; A A A A A 2 JK"
    side_b = "9 9 9 JK; Q Q Q Q"
    state = bare_position(hands=hands, melds={0: side_a, 1: side_b}, red_threes={0: 1, 2: 1, 1: 1}, stock="4")
    play_moves(state, "draw", "meld 6 6 6", "discard 4")
    result = score_hand(state)
    a, b = result.sides
    assert (a.meld_points, a.canasta_bonus, a.going_out_bonus, a.red_three_bonus, a.hand_penalty) == (
        255,
        800,
        100,
        200,
        15,
    )
    assert (b.meld_points, b.canasta_bonus, b.going_out_bonus, b.red_three_bonus, b.hand_penalty) == (
        120,
        0,
        0,
        100,
        105,
    )
    assert result.totals_after == (1340, 115)
    assert [DEFAULT_RULES.initial_requirement(total) for total in result.totals_after] == [50, 50]
    unmelded = {**hands, 1: "JK 7 7 9 9 9 JK", 3: "A 2 5 Q Q Q Q"}
    state = bare_position(hands=unmelded, melds={0: side_a}, red_threes={0: 1, 2: 1, 1: 1}, stock="4")
    play_moves(state, "draw", "meld 6 6 6", "discard 4")
    assert score_hand(state).sides[1].score == -325


def test_docs_list_every_option_and_decision():
    """docs/rules.md lists every rule-set key (§17) and every decision D1-D23 (§18): D21 was named in §17 and
    nowhere explained, D20 not at all."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    for field in dataclasses.fields(Rules):
        assert f"| `{field.name}` |" in text, field.name
    for number in range(1, 24):
        assert f"| D{number} |" in text, number


def test_help_of_rules_lists_every_field_with_its_default_and_meaning():
    """``help(Rules)`` showed no field's meaning (a slots dataclass keeps no field docstrings): its docstring's Fields
    list every field, in order, with its default and the rule it sets, and nothing else."""
    import re

    listed = re.findall(r"^    ``(\w+) = (.+)``\n        (R\d.*)$", Rules.__doc__, re.MULTILINE)
    fields = dataclasses.fields(Rules)
    assert [(name, default) for name, default, _ in listed] == [(field.name, repr(field.default)) for field in fields]


# --------------------------------------------------------------------------- the rule-set object


def test_rules_is_frozen_and_keyword_only():
    """The rule set is immutable and built by keyword only."""
    with pytest.raises(TypeError):
        Rules(5000)  # type: ignore[misc]
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.target_score = 100  # type: ignore[misc]
    assert hash(rules) == hash(Rules())


def _everything_changed() -> Rules:
    return Rules(
        target_score=3000,
        tie_rule="draw",
        initial_meld_table=((-math.inf, 10), (0, 40), (2000, 80)),
        wild_ratio_rule="min_two_naturals",
        max_wilds_per_meld=2,
        allow_wild_only_melds=True,
        canastas_to_go_out=2,
        natural_canasta_bonus=400,
        mixed_canasta_bonus=250,
        going_out_bonus=150,
        concealed_going_out_bonus=300,
        red_three_value=50,
        all_four_red_threes_total=400,
        red_three_negative_if_no_meld=False,
        ask_partner="mandatory",
        ask_partner_yes_forces_out=False,
        black_three_melds="never",
        black_three_freezes_pile=True,
        blocking_wild_cards="joker_only",
        dealt_red_three_timing="first_turn",
        one_card_single_pile_block=False,
        concealed_exempt_from_minimum=False,
        concealed_allows_pile_take=False,
        stock_exhausted_rule="official",
        last_card_red_three="meld_no_discard",
        going_out_without_discard="only_if_hand_holds_canasta",
    )


def test_options_round_trip_through_from_mapping_and_from_options():
    """``options()`` gives every key; ``from_mapping`` and ``from_options`` rebuild the same rule set."""
    for rules in (DEFAULT_RULES, _everything_changed()):
        options = rules.options()
        assert set(options) == {field.name for field in dataclasses.fields(Rules)}
        assert Rules.from_mapping(options) == rules
        assert Rules.from_options([f"{key}={value}" for key, value in options.items()]) == rules
    changed = _everything_changed()
    assert set(changed.changed_options()) == {field.name for field in dataclasses.fields(Rules)}
    assert DEFAULT_RULES.changed_options() == {}


def test_unknown_key_names_the_key_and_the_known_keys():
    """An unknown key is refused, naming it and listing every known key."""
    for build in (lambda: Rules.from_options(["target=3000"]), lambda: Rules.from_mapping({"target": 3000})):
        with pytest.raises(RulesError) as caught:
            build()
        message = str(caught.value)
        assert "'target'" in message
        assert all(field.name in message for field in dataclasses.fields(Rules))
    with pytest.raises(TypeError):
        Rules(target=3000)  # type: ignore[call-arg]
    with pytest.raises(RulesError, match="KEY=VALUE"):
        Rules.from_options(["target_score"])


def test_an_unknown_keyword_of_the_constructor_is_a_rules_error_naming_the_nearest_key():
    # It was Python's bare TypeError ("unexpected keyword argument 'target_scor'"), where the page promises RulesError.
    with pytest.raises(RulesError, match=r"'target_scor'.*did you mean target_score\?") as caught:
        Rules(target_scor=3000)  # type: ignore[call-arg]
    assert isinstance(caught.value, TypeError)  # what an unexpected keyword has always raised
    assert all(field.name in str(caught.value) for field in dataclasses.fields(Rules))
    with pytest.raises(RulesError, match="did you mean ask_partner"):
        dataclasses.replace(DEFAULT_RULES, ask_parter="off")


@pytest.mark.parametrize("build, words", [
    (lambda: Rules.from_mapping([("target_score", "3000")]), "mapping"),
    (lambda: Rules.from_options("target_score=3000"), "KEY=VALUE texts"),
    (lambda: Rules(initial_meld_table=((-math.inf, 15), (math.nan, 50))), "initial_meld_table"),
    (lambda: Rules(initial_meld_table=((-math.inf, 15), (math.inf, 50))), "initial_meld_table"),
    (lambda: Rules(initial_meld_table=((-math.inf, 15), (1e30, 50))), "initial_meld_table"),
])
def test_a_builder_given_the_wrong_shape_says_what_it_takes(build, words):
    # A list of pairs raised AttributeError ('list' object has no attribute 'items'); one text was read letter by
    # letter ("rule option 't' is not KEY=VALUE"); a nan or an infinite score in the table raised ValueError or
    # OverflowError from writing the message.
    with pytest.raises(RulesError, match=words):
        build()


_BAD_VALUES = {
    "target_score": (["abc", "0", "-5", "50.5"], "whole number"),
    "max_wilds_per_meld": (["0", "x"], ""),
    "canastas_to_go_out": (["0", "two"], ""),
    "natural_canasta_bonus": (["lots"], "whole number"),
    "mixed_canasta_bonus": (["1.5"], "whole number"),
    "going_out_bonus": ([""], "whole number"),
    "concealed_going_out_bonus": (["x"], "whole number"),
    "red_three_value": (["x"], "whole number"),
    "all_four_red_threes_total": (["x"], "whole number"),
    "initial_meld_table": (["", "0:50", "-inf:15,0", "-inf:15,a:3", "-inf:15,1500:90,0:50", "-inf:-5"], "-inf"),
}


@pytest.mark.parametrize("key", [field.name for field in dataclasses.fields(Rules)])
def test_bad_values_name_the_key_and_the_accepted_values(key):
    """Every key refuses a bad value with a message naming the key and what it accepts."""
    field_type = {field.name: field.type for field in dataclasses.fields(Rules)}[key]
    if key in RULE_CHOICES:
        texts, accepted = ["nonsense", "", key.upper()], list(RULE_CHOICES[key])
    elif field_type == "bool":
        texts, accepted = ["maybe", "2"], ["true or false (also yes/no, on/off, 1/0)"]
    else:
        texts, hint = _BAD_VALUES[key]
        accepted = [hint] if hint else []
    for text in texts:
        with pytest.raises(RulesError) as caught:
            Rules.from_options([f"{key}={text}"])
        message = str(caught.value)
        assert key in message
        assert all(word in message for word in accepted), message


def test_bad_python_values_are_refused_with_rules_error():
    """The constructor checks types too: no bare TypeError or ValueError escapes for a bad value."""
    bad = [
        {"target_score": 5000.0},
        {"target_score": True},
        {"allow_wild_only_melds": 1},
        {"tie_rule": ["draw"]},
        {"initial_meld_table": "-inf:15,0:50"},
        {"initial_meld_table": ((-math.inf, 15), ("a", 50))},
        {"initial_meld_table": ((-math.inf,),)},
        {"initial_meld_table": ((-math.inf, 15, 3),)},
        {"initial_meld_table": ((0, 15),)},
        {"initial_meld_table": ()},
    ]
    for kwargs in bad:
        (key,) = kwargs
        with pytest.raises(RulesError, match=key):
            Rules(**kwargs)
    for mapping in ({"initial_meld_table": [[-math.inf], [0, 50]]}, {"initial_meld_table": [5, 6]}):
        with pytest.raises(RulesError, match="initial_meld_table"):
            Rules.from_mapping(mapping)
    assert Rules.from_mapping({"initial_meld_table": [[-math.inf, 15], [0, 60]]}).initial_requirement(0) == 60


def test_a_numpy_whole_number_is_taken_as_the_int_it_equals():
    # A value read from a numpy array or a pandas table (a sweep's grid) was refused as "not a whole number",
    # where play_game's seed takes the same numbers.
    import numpy as np

    rules = Rules(target_score=np.int64(3000), max_wilds_per_meld=np.uint8(2))
    assert rules == Rules(target_score=3000, max_wilds_per_meld=2)
    assert type(rules.target_score) is int and type(rules.max_wilds_per_meld) is int
    assert hash(rules) == hash(Rules(target_score=3000, max_wilds_per_meld=2))
    with pytest.raises(RulesError, match="target_score"):
        Rules(target_score=np.float64(3000))
    with pytest.raises(RulesError, match="target_score"):
        Rules(target_score=np.bool_(True))


def test_a_truth_value_that_numpy_before_2_reads_as_an_index_is_no_target_score_r15_1():
    # numpy 1.26, which pyproject.toml admits, lets operator.index take its bool (with a DeprecationWarning): Rules
    # took target_score=np.bool_(True) as 1.  Its bool stands in here, as CI's numpy refuses it either way.
    class OldNumpyBool:
        def __index__(self) -> int:
            return 1

    with pytest.raises(RulesError, match="target_score"):
        Rules(target_score=OldNumpyBool())


@pytest.mark.parametrize("words, value", [
    (["true", "TRUE", "yes", "Yes", "on", "ON", "1"], True),
    (["false", "False", "no", "NO", "off", "Off", "0"], False),
])
def test_a_yes_no_rule_takes_every_word_its_message_names(words, value):
    # "off" was refused with "use true or false", which refused "yes" as well but took it.
    for word in words:
        assert Rules.from_options([f"allow_wild_only_melds={word}"]).allow_wild_only_melds is value


def test_a_rule_given_twice_is_refused():
    # The first was dropped silently: target_score=3000 then target_score=4000 played to 4000.
    with pytest.raises(RulesError, match=r"^rule target_score is given twice \(3000, then 4000\); give it once$"):
        Rules.from_options(["target_score=3000", "allow_wild_only_melds=true", " target_score = 4000"])


def test_a_target_score_no_game_reaches_before_its_hand_cap_is_refused():
    # 99999999999999999999999 was taken: every game then ended at the hand cap, with no word of why.
    assert Rules(target_score=100_000).target_score == 100_000
    for text in ("100001", "99999999999999999999999"):
        with pytest.raises(RulesError) as caught:
            Rules.from_options([f"target_score={text}"])
        assert str(caught.value) == (f"rule target_score={text} is not accepted; use a whole number from 1 to "
                                     f"100,000 (a game stops after {MAX_HANDS_PER_GAME} hands)")


@pytest.mark.parametrize("key", ["natural_canasta_bonus", "mixed_canasta_bonus", "going_out_bonus",
                                 "concealed_going_out_bonus", "red_three_value", "all_four_red_threes_total"])
def test_a_bonus_the_result_tables_cannot_hold_is_refused_r14_1(key):
    # A canasta worth 3,000,000,000 was taken: the worker writing the first hand's 32-bit scores failed, and the run
    # charged it to greedy as a crash.
    assert getattr(Rules.from_options([f"{key}=-100000"]), key) == -100_000
    for text in ("100001", "-100001", "3000000000"):
        with pytest.raises(RulesError) as caught:
            Rules.from_options([f"{key}={text}"])
        assert str(caught.value) == (f"rule {key}={text} is not accepted; use a whole number from -100,000 to "
                                     "100,000 (the result tables keep scores as 32-bit integers)")


def test_an_initial_minimum_the_result_tables_cannot_hold_is_refused_r10_2():
    # A minimum of 3,000,000,000 was taken, and the worker failed writing it as the hand's 32-bit initial_requirement.
    assert Rules.from_options(["initial_meld_table=-inf:15,0:100000"]).initial_requirement(0) == 100_000
    with pytest.raises(RulesError, match=r"each minimum a whole number from 0 to 100,000"):
        Rules.from_options(["initial_meld_table=-inf:15,0:3000000000"])


def test_the_meld_table_as_text_in_the_constructor_points_to_from_mapping():
    # run.json holds the rules as text; Rules(**manifest["rules"]) was refused with a message that offered the very
    # text it was given as the accepted form.
    text = DEFAULT_RULES.options()["initial_meld_table"]
    with pytest.raises(RulesError, match=r"is text: Rules\(\) takes \(lowest score, minimum\) pairs.*"
                                         r"Rules.from_mapping reads the text form"):
        Rules(initial_meld_table=text)
    assert Rules.from_mapping({"initial_meld_table": text}) == DEFAULT_RULES


@pytest.mark.parametrize("key, text, wanted", [
    ("target_score", "3000", "a whole number as an int"),
    ("canastas_to_go_out", "2", "a whole number as an int"),
    ("allow_wild_only_melds", "true", "True or False"),
])
def test_a_number_or_yes_no_as_text_in_the_constructor_points_to_from_mapping(key, text, wanted):
    # Rules(target_score="3000") was refused with "use a whole number", which "3000" reads as already being.
    with pytest.raises(RulesError) as caught:
        Rules(**{key: text})
    assert str(caught.value) == (f"rule {key}={text!r} is text: Rules() takes {wanted}; Rules.from_mapping reads the "
                                 "text form, as --rules gives it")
    assert Rules.from_mapping({key: text}).changed_options()
