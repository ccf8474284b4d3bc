"""The cards a forced draw brings: the arbiter's side of the bot protocol's ``drawn`` field (docs/protocol.md).

A draw is forced when it is the only legal way to begin the turn: a stock to draw from (R7.1, R13.3) and no
legal take of the pile (R8).  :func:`forced_draw` then lists the kinds the draw brings, in the order drawn: red 3s
laid and replaced (R4.2), the card kept last, or a red 3 last where it was the stock's last card (R13.1).
"""

from __future__ import annotations

import random

import pytest

from canasta_sim.core.cards import CARD_KIND, RED_THREE
from canasta_sim.core.legal import forced_draw, legal_acquires, legal_moves
from canasta_sim.core.moves import Draw
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, HandState

RULE_SETS = [
    Rules(),
    Rules(stock_exhausted_rule="official", last_card_red_three="meld_no_discard"),
    Rules(stock_exhausted_rule="strict", dealt_red_three_timing="first_turn", ask_partner="mandatory"),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=["default", "official_meld_no_discard", "strict_first_turn"])
def test_a_draw_is_shown_exactly_when_it_is_the_only_legal_acquire_and_brings_the_cards_shown_r7_1_r4_2_r8(rules):
    rng = random.Random(31)
    forced = free = red_threes = last_cards = 0  # last_cards: draws that empty the stock
    for _ in range(40):
        state = HandState.deal(rules, rng, dealer=rng.randrange(4))
        while not state.is_over:
            shown = forced_draw(state)
            if state.phase != ACQUIRE:
                assert shown is None
                state.apply(rng.choice(list(legal_moves(state))))
                continue
            legal = list(legal_acquires(state))
            assert (shown is not None) == ([type(move) for move in legal] == [Draw])
            if shown is None:
                free += 1
                state.apply(rng.choice(legal))
                continue
            forced += 1
            stock_before = len(state.stock)
            state.apply(Draw())
            seat, move, drawn = state.history[-1]
            assert type(move) is Draw and [CARD_KIND[card] for card in drawn] == shown
            assert all(kind == RED_THREE for kind in shown[:-1])
            red_threes += shown[0] == RED_THREE
            last_cards += len(shown) == stock_before
    # Uniform play takes the pile often and runs the stock out: every branch above is reached.
    assert forced > 500 and free > 100 and red_threes > 5 and last_cards > 0


def test_no_draw_is_shown_on_an_empty_stock_r13_3():
    rng = random.Random(5)
    state = HandState.deal(Rules(), rng, dealer=0)
    state.stock.clear()
    assert state.phase == ACQUIRE and forced_draw(state) is None
