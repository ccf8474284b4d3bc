"""Rule options whose positions the mask sweeps' games never reach change the masks as their rules say (docs/env.md).

``scripts/option_reach.py`` replays the games of tests/env/test_mask_completeness.py under each rule set beside twins
under the base rules: under the options here (but ``black_three_melds=never``, in a handful of decisions) no
decision's mask and no hand result differed, so the sweep checked nothing under them that the base rules' games do
not.  Their positions are rare in play (the last stock card a red 3, a concealed going-out short of the initial
minimum, a turn that starts with an empty stock), so each test builds one with
:func:`canasta_sim.env.positions.build_position`, starts the PettingZoo, Gymnasium and OpenSpiel interfaces there
through their public API (``reset``'s ``position`` option, ``Position.game_tree``), under the option and under the base
rules, and asserts what each mask allows there.  The masks read R10.7, R5.3 and R13.3's ``official`` from the rules;
R13.1 and R13.3's ``strict`` are the engine's, which ends the hand (or not) before any mask is asked.
"""

import numpy as np
import pytest

from canasta_sim.core.cards import BLACK_THREE, FOUR, parse_kind
from canasta_sim.core.moves import MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.env import canasta_env
from canasta_sim.env.actions import DISCARD_BASE, DONE_ACTION, DRAW_ACTION, STOP_ACTION, group_action, take_action
from canasta_sim.env.driver import DISCARD_DECISION, MELD_DECISION
from canasta_sim.env.gym import CanastaGymEnv
from canasta_sim.env.openspiel import load
from canasta_sim.env.positions import build_position

INTERFACES = ("pettingzoo", "gymnasium", "openspiel")
FIVE, QUEEN, KING = parse_kind("5"), parse_kind("Q"), parse_kind("K")


def _rules(options: dict) -> Rules:
    return Rules.from_mapping({key: str(value) if isinstance(value, bool) else value for key, value in options.items()})


def _play(interface: str, options: dict, start, actions=()):
    """Start ``interface`` under ``options`` at the position ``start`` through its public API (``reset``'s
    ``position`` option, OpenSpiel's ``state_at``), play ``actions`` through its own step, and return the actions
    allowed next (none once the hand is over) and the hands ended."""
    if interface == "pettingzoo":
        env = canasta_env(rules=options)
        env.reset(seed=0, options={"position": start})
        hands = []
        for action in actions:
            agent = env.agent_selection
            env.step(action)
            hands += env.infos[agent]["hand_results"]
        allowed = [] if hands else np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
        return allowed, hands
    if interface == "gymnasium":
        env = CanastaGymEnv(partner="greedy", opponents="random", rules=options, seat=start.seat, on_illegal="raise")
        _, info = env.reset(seed=0, options={"position": start})
        hands = []
        for action in actions:
            *_, info = env.step(action)
            hands += info["hand_results"]
        return ([] if hands else np.flatnonzero(info["action_mask"]).tolist()), hands
    tree = start.game_tree()
    spiel_state = load(**options, scope="hand").state_at(tree)
    for action in actions:
        spiel_state.apply_action(action)
    return ([] if spiel_state.is_terminal() else spiel_state.legal_actions()), list(tree.hands)


def _group(rank: int, naturals: int) -> int:
    return group_action(MeldGroup.of(rank, naturals, 0, 0))


@pytest.mark.timeout(30)
@pytest.mark.parametrize("interface", INTERFACES)
def test_a_red_three_drawn_as_the_last_stock_card_leaves_melding_without_a_discard_under_meld_no_discard_r13_1(
        interface):
    """R13.1: the last stock card is a red 3.  By default the draw ends the hand at once, no meld and no discard
    (D14); under ``last_card_red_three=meld_no_discard`` the drawer may still meld and lay off (the new kings, the
    queen on the side's queens) but not discard: ``done`` ends the turn with the stop the environment plays."""
    options = {"last_card_red_three": "meld_no_discard"}
    start = build_position(_rules(options), hands={0: "K K K Q 5 6"}, melds={0: "Q Q Q"}, stock_top="3r", stock_size=1)
    allowed, hands = _play(interface, options, start, [DRAW_ACTION])
    assert (allowed, hands) == (sorted([_group(QUEEN, 1), _group(KING, 3), DONE_ACTION]), [])
    allowed, (hand,) = _play(interface, options, start, [DRAW_ACTION, _group(KING, 3), DONE_ACTION])
    assert (hand.end_reason, hand.sides[0].meld_points) == ("red_three_last_card", 60)  # the queens' 30 and the kings'

    default = build_position(Rules(), hands={0: "K K K Q 5 6"}, melds={0: "Q Q Q"}, stock_top="3r", stock_size=1)
    allowed, (hand,) = _play(interface, {}, default, [DRAW_ACTION])
    assert (allowed, hand.end_reason, hand.sides[0].meld_points) == ([], "red_three_last_card", 30)


def _concealed_out(rules: Rules, hand: str, scores=(0, 0)):
    """Seat 0 has drawn; its side has not melded, and its hand goes down concealed short of the initial minimum."""
    return build_position(rules, hands={0: hand}, decision=MELD_DECISION, side_has_melded=(False, False), scores=scores)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("interface", INTERFACES)
@pytest.mark.parametrize(("canastas", "hand", "scores"), [
    (1, "4 4 4 4 4 4 4 9", (0, 0)),  # seven 4s: 35 points of the 50 needed at 0 (R10.2)
    (2, "4 4 4 4 4 4 4 5 5 5 5 5 5 5 9", (1500, 0)),  # two canastas: 70 points of the 90 needed at 1500
], ids=["one canasta", "canastas_to_go_out=2"])
def test_going_out_concealed_short_of_the_minimum_is_masked_out_when_not_exempt_r10_7(interface, canastas, hand,
                                                                                      scores):
    """R10.7 (D19): after a draw, a player going out concealed need not reach the initial minimum, so the mask allows
    laying the canasta (the first group of the going-out meld) though it counts less than the minimum; under
    ``concealed_exempt_from_minimum=false`` it needs the minimum like any initial meld, and the mask allows only
    ``done`` (then a discard)."""
    base = {"canastas_to_go_out": canastas}
    exempt, _ = _play(interface, base, _concealed_out(_rules(base), hand, scores))
    assert exempt == [_group(FOUR, 7), DONE_ACTION]
    options = {**base, "concealed_exempt_from_minimum": False}
    strict, _ = _play(interface, options, _concealed_out(_rules(options), hand, scores))
    assert strict == [DONE_ACTION]


def _empty_stock(rules: Rules):
    """Seat 0's turn starts with an empty stock; the pile's king fits its side's meld of kings."""
    return build_position(rules, hands={0: "K 5 6 7"}, melds={0: "K K K"}, pile="9 8 K", stock_size=0)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("interface", INTERFACES)
def test_an_empty_stock_and_a_pile_top_that_fits_a_meld_leave_no_stop_under_the_official_rule_r13_3(interface):
    """R13.3: with an empty stock the player may take the pile (the king onto the side's kings, with or without the
    king in hand) or stop, which ends the hand; under ``stock_exhausted_rule=official`` the pile must be taken
    when it is not frozen and its top card fits one of the side's melds, so the mask allows no stop."""
    seed, _ = _play(interface, {}, _empty_stock(Rules()))
    takes = [take_action([]), take_action([KING])]  # the king alone onto the meld, and with the king from hand
    assert seed == [STOP_ACTION, *takes]
    options = {"stock_exhausted_rule": "official"}
    official, _ = _play(interface, options, _empty_stock(_rules(options)))
    assert official == takes


@pytest.mark.timeout(30)
@pytest.mark.parametrize("interface", INTERFACES)
def test_a_turn_that_would_start_with_an_empty_stock_ends_the_hand_under_the_strict_rule_r13_3(interface):
    """R13.3: seat 3 discards with the stock empty.  By default seat 0's turn begins, its mask allowing the stop that
    ends the hand (the pile's 5 it cannot take); under ``stock_exhausted_rule=strict`` the hand ends as seat 0's turn
    would start, so seat 3's turn is its last."""
    def discarding(rules: Rules):
        # Seats 1 and 2 hold the cards placed nowhere else: a long hand of seat 0 would have thousands of takes.
        return build_position(rules, seat=3, hands={0: "4 6", 3: "9 5"}, melds={1: "9 9 9"}, pile="8 7", stock_size=0,
                              decision=DISCARD_DECISION)

    discard = [DISCARD_BASE + FIVE]
    seed, hands = _play(interface, {}, discarding(Rules()), discard)
    if interface == "gymnasium":  # seat 0 is a strategy there, which stopped: the hand went on past seat 3's turn
        assert (hands[0].end_reason, hands[0].turns) == ("stock_exhausted", 2)
    else:
        assert (seed, hands) == ([STOP_ACTION], [])
    options = {"stock_exhausted_rule": "strict"}
    strict, (hand,) = _play(interface, options, discarding(_rules(options)), discard)
    assert (strict, hand.end_reason, hand.turns) == ([], "stock_exhausted", 1)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("interface", INTERFACES)
def test_black_threes_laid_to_go_out_are_masked_out_when_they_never_meld_r5_3(interface):
    """R5.3: three black 3s may be melded only to go out, so with a canasta on the table the mask allows laying them
    before discarding the 9; under ``black_three_melds=never`` (the seed-002 FAQ, D2) it allows only ``done``.  The
    sweep's games met such a position in a handful of decisions, and its brute force's positions in none."""
    def going_out(rules: Rules):
        return build_position(rules, hands={0: "3b 3b 3b 9"}, melds={0: "K K K K K K K; Q Q Q"}, decision=MELD_DECISION)

    official, _ = _play(interface, {}, going_out(Rules()))
    assert official == [_group(BLACK_THREE, 3), DONE_ACTION]
    options = {"black_three_melds": "never"}
    never, _ = _play(interface, options, going_out(_rules(options)))
    assert never == [DONE_ACTION]
