"""The meld listing (``legal_melds``: the view's, and the bot protocol's ``meld`` list) is complete: every legal meld
is listed, or reached by listed single groups laid one after another, including the two kinds single groups cannot
reach: the joint going-out meld of two last cards that each complete a canasta still needed (R12.1, R12.5), and a
black 3 added to the black 3s laid this turn to go out (R5.3).  The research environments' masks reach every legal
meld (tests/env/test_mask_completeness.py); here every meld they reach is in the listing."""

from __future__ import annotations

import random

import pytest

from canasta_sim.core.legal import legal_melds, meld_candidates
from canasta_sim.core.moves import Answer, Ask, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.view import SeatView
from canasta_sim.env.driver import MELD_DECISION, GameDriver
from canasta_sim.env.encoding import DecisionOptions
from canasta_sim.plugins.answers import LISTINGS
from tests.helpers import choose_leaning_to_lay, position


def _two_canastas_to_complete():
    """R12.1 under ``canastas_to_go_out=2``: the hand ``2 2``, each deuce completing one of two six-card melds."""
    return position(Rules(canastas_to_go_out=2), hands={0: "2 2"}, melds={0: "9 9 9 9 9 9; A A A A A A"},
                    phase=PLAY)


def test_two_last_cards_each_completing_a_canasta_are_listed_as_one_joint_meld_r12_1():
    """Either deuce alone would keep one card to discard with one canasta short (R6.4, R12.1): only both at once go
    out, and the listing offers that meld as one move, after the single groups (there are none)."""
    state = _two_canastas_to_complete()
    joint = parse_move("meld 9:2; A:2")
    assert list(legal_melds(state)) == [joint]
    assert joint in list(meld_candidates(state)) and joint in list(meld_candidates(state, largest_first=True))
    view = SeatView(state, 0, (0, 0))
    assert LISTINGS["meld"](view) == [joint, None]  # the protocol's list: the meld, or null to discard a deuce


def test_after_a_binding_yes_the_hand_of_two_last_canasta_cards_is_offered_its_joint_meld_r12_5():
    """R12.5: after the partner's yes the player must go out, and null is no answer; the list was empty, so a bot
    that picks from it had nothing legal to pick."""
    state = _two_canastas_to_complete()
    state.apply(Ask())
    state.apply(Answer(True))
    view = SeatView(state, 0, (0, 0))
    joint = parse_move("meld 9:2; A:2")
    assert list(view.legal_melds()) == [joint]
    assert LISTINGS["meld"](view) == [joint]
    state.apply(joint)
    assert state.went_out_seat == 0


def test_a_joint_meld_is_not_listed_where_one_of_its_cards_may_go_alone_r12_1():
    """With one canasta already made, the deuce completing the second may go alone (the other is discarded), and
    both laid one after the other reach the joint meld: the listing keeps to single groups."""
    state = position(Rules(canastas_to_go_out=2), hands={0: "2 2"},
                     melds={0: "9 9 9 9 9 9; A A A A A A; K K K K K K K"}, phase=PLAY)
    assert all(len(move.groups) == 1 for move in legal_melds(state))
    assert parse_move("meld 9:2") in list(legal_melds(state))


def test_a_black_three_added_to_the_black_threes_laid_this_turn_to_go_out_is_listed_r5_3():
    """R5.3: having laid ``3b 3b 3b`` to go out, the player may add the fourth black 3 (going out with no discard)
    rather than discard it; the listing offered only new melds of three or four, which that meld cannot take."""
    state = position(Rules(), hands={0: "3b 3b 3b 3b"}, melds={0: "K K K K K K K; Q Q Q"}, phase=PLAY)
    state.apply(parse_move("meld 3b 3b 3b"))
    fourth = parse_move("meld 3b:3b")
    assert fourth in list(legal_melds(state))
    assert fourth in LISTINGS["meld"](SeatView(state, 0, (0, 0)))
    state.apply(fourth)
    assert state.went_out_seat == 0


def _play_checking(rules: Rules, games: int, rng: random.Random) -> int:
    """Play ``games`` seeded games with random masked moves; at every meld decision of the seat to move, check that
    every meld the masks reach (a single action, or several then ``done``) is in the listing.  The meld decisions
    checked."""
    driver = GameDriver(rules)
    checked = 0
    for game in range(games):
        driver.reset(game)
        while not driver.is_over:
            seat = driver.actor
            options = DecisionOptions.of(driver.view(seat), driver.decision)
            if driver.decision == MELD_DECISION:
                listed = set(driver.view(seat).legal_melds())
                reached = {move for move in options.immediate.values() if move is not None}
                reached |= {move for _, move in options.compound}
                assert reached <= listed, f"game {game}: the masks reach {reached - listed}, which is not listed"
                checked += 1
            prefix, value, complete = options.play((), choose_leaning_to_lay(rng, options.allowed()))
            while not complete:
                prefix, value, complete = options.play(prefix, choose_leaning_to_lay(rng, options.allowed(prefix)))
            driver.decide(value)
    return checked


@pytest.mark.timeout(60)
@pytest.mark.parametrize("options", [{}, {"canastas_to_go_out": 2}], ids=["defaults", "canastas_to_go_out=2"])
def test_every_meld_the_masks_reach_is_listed_r5_3_r12_1_r12_5(options):
    assert _play_checking(Rules(target_score=50, **options), 200, random.Random(5)) > 5000
