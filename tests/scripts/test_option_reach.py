"""``scripts/option_reach.py`` tells a rule set whose sweep games differ from the base rules' from one whose do not."""

from __future__ import annotations

import random

import pytest

from tests.helpers import choose_leaning_to_lay, script_module

SHORT = {"target_score": 50}


@pytest.mark.timeout(60)
def test_an_option_the_games_never_meet_is_blind_and_one_they_meet_is_not():
    reach = script_module("option_reach")

    def measured(options: dict) -> object:
        found = reach.Reach()
        rng = random.Random(7)
        reach._pettingzoo({**SHORT, **options}, SHORT, 2, lambda allowed: choose_leaning_to_lay(rng, allowed), found)
        return found

    # R13.1's position (the last stock card a red 3) is not met in two short games; with no ask (R12.5) it is.
    assert measured({"last_card_red_three": "meld_no_discard"}).blind
    off = measured({"ask_partner": "off"})
    assert not off.blind and off.differing >= 1 and off.games == 2


def test_an_alternative_with_two_canastas_to_go_out_is_measured_against_two_canastas_alone():
    """Each alternative under canastas_to_go_out=2 is measured within it, not against the alternative alone (which
    would measure the two canastas, reached in most games, and hide a blind alternative)."""
    reach = script_module("option_reach")
    rule_sets = [{}, {"ask_partner": "off"}, {"canastas_to_go_out": 2}, {"canastas_to_go_out": 2, "ask_partner": "off"},
                 {"canastas_to_go_out": 3}]
    assert [reach._base(options, rule_sets) for options in rule_sets[1:]] == [
        {}, {}, {"canastas_to_go_out": 2}, {}]
