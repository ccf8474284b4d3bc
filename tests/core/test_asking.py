"""R12.5: whether the player may ask the partner follows the rule set of each hand, whatever rule set came before.

``AskingRules.can_ask`` keeps the two rules it reads every turn (``ask_partner`` and
``ask_partner_yes_forces_out``) as values per rule set; a hand under other rules must read them again.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import position

_CAN_GO_OUT = {"hands": {0: "9 9 9 5"}, "melds": {0: "K K K K K K K"}, "seat": 0, "phase": PLAY}
_CANNOT_GO_OUT = {"hands": {0: "9 9 5 7"}, "melds": {0: "K K K"}, "seat": 0, "phase": PLAY}


@pytest.mark.parametrize(("rules", "can", "cannot"), [
    (Rules(), True, False),
    (Rules(ask_partner="off"), False, False),
    (Rules(ask_partner_yes_forces_out=False), True, True),
    (Rules(ask_partner="mandatory"), True, False),
])
def test_r12_5_can_ask_follows_each_rule_set_in_turn(rules, can, cannot):
    for first in (Rules(), Rules(ask_partner="off"), Rules(ask_partner_yes_forces_out=False)):
        position(first, **_CAN_GO_OUT).can_ask()  # another rule set read just before
        assert position(rules, **_CAN_GO_OUT).can_ask() is can
        assert position(rules, **_CANNOT_GO_OUT).can_ask() is cannot
