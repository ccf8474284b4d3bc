"""The shortcuts in greedy, the core's first_legal and the take listing decide exactly as the long ways.

Greedy stops listing takes once no later take can spend fewer cards, melds with
:func:`canasta_sim.core.kernels.first_legal` (which passes over meld candidates the rules refuse for certain,
R6.4, R5.3, without asking ``view.can``), and discards without ``view.can`` while another card stays in hand;
``legal_takes`` skips the check of a take R8.2e refuses for certain.  Each test plays
games and compares, at every decision, the shortcut's answer with the long way's (written out here as it
was before the shortcut).
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.core.engine import play_game
from canasta_sim.core.legal import _group_sets, pile_take
from canasta_sim.core.moves import Discard, TakePile
from canasta_sim.core.state import ACQUIRE
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies.greedy import _KINDS, Greedy, _usefulness
from canasta_sim.strategies.random_play import RandomPlay


def _takes_checking_each(state) -> list[TakePile]:
    """legal_takes without its R8.2e shortcut: every shape is checked with ``can_take_pile``."""
    if state.phase != ACQUIRE or not state.pile or state.is_pile_blocked() or state.pile[-1] <= TWO:
        return []
    top = state.pile[-1]
    hand = state.hands[state.seat]
    side = state.side
    rules = state.rules
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    frozen = state.is_pile_frozen_for(side)
    existing = state.melds[side][top]
    has_meld = sum(existing) > 0
    found = []
    for naturals in range(hand[top] + 1):
        if frozen and naturals < 2:
            continue
        for jokers in range(min(hand[JOKER], most_wilds) + 1):
            for deuces in range(min(hand[TWO], most_wilds) + 1):
                if not frozen and not has_meld and naturals < 2 and not (naturals and jokers + deuces):
                    continue
                total_naturals = existing[0] + naturals + 1
                wilds = existing[1] + jokers + existing[2] + deuces
                if total_naturals + wilds < 3 or wilds > most_wilds:
                    continue
                if (wilds > total_naturals) if wild_ratio else (total_naturals < 2):
                    continue
                move = pile_take(top, naturals, jokers, deuces)
                if state.can_take_pile(move):
                    found.append(move)
                elif not state.side_has_melded[side] and naturals >= 2:
                    value = KIND_VALUE[top] * (naturals + 1) + 50 * jokers + 20 * deuces
                    if value < state.requirements[side]:
                        rest = list(hand)
                        rest[top] -= naturals
                        rest[JOKER] -= jokers
                        rest[TWO] -= deuces
                        for extra in _group_sets(state, rest, exclude=top):
                            move = TakePile(move.cards, extra)
                            if state.can_take_pile(move):
                                found.append(move)
    return found


def _cards_spent(move: TakePile) -> int:
    return len(move.cards) + sum(len(group.cards) for group in move.extra)


class _ComparingGreedy(Greedy):
    """Greedy that, at every decision, also decides the long way and counts any difference."""

    decisions = 0
    differences: list[str] = []

    def choose_acquire(self, view):
        move = super().choose_acquire(view)
        listed = list(view.legal_takes())
        if listed != _takes_checking_each(view._state):
            _ComparingGreedy.differences.append(f"takes listed {listed}")
        if listed:
            expected = min(listed, key=_cards_spent)
            if move != expected:
                _ComparingGreedy.differences.append(f"took {move}, not {expected}")
            _ComparingGreedy.decisions += 1
        return move

    def choose_meld(self, view):
        move = super().choose_meld(view)
        answer = view.partner_answer
        plan = view.going_out_plan() if answer is not False else None
        if plan is not None and plan[0] and (answer is True or view.rules.ask_partner != "mandatory"):
            return move
        expected = next((other for other in view.meld_candidates(largest_first=True) if view.can(other)), None)
        if move != expected:
            _ComparingGreedy.differences.append(f"melded {move}, not {expected}")
        _ComparingGreedy.decisions += 1
        return move

    def choose_discard(self, view):
        move = super().choose_discard(view)
        hand = view.hand
        side = view.side
        own = view.melds(side)
        theirs = () if view.is_pile_frozen else view.melds(1 - side)
        keys = sorted(
            _usefulness(kind, hand, own, theirs) * _KINDS + (KIND_COUNT - 1 - kind)
            for kind in range(KIND_COUNT)
            if hand[kind]
        )
        discards = [Discard(KIND_COUNT - 1 - key % _KINDS) for key in keys]
        expected = next((discard for discard in discards if view.can(discard)), None)
        if move != expected:
            _ComparingGreedy.differences.append(f"discarded {move}, not {expected}")
        _ComparingGreedy.decisions += 1
        return move


@pytest.mark.timeout(180)
def test_greedy_shortcuts_decide_as_the_long_ways_against_the_expert_and_random():
    _ComparingGreedy.decisions = 0
    _ComparingGreedy.differences = []
    expert = load_strategy("expert")
    for seed in range(8):
        play_game([_ComparingGreedy, expert, _ComparingGreedy, expert], seed=18_000 + seed)
        play_game([RandomPlay, _ComparingGreedy, RandomPlay, _ComparingGreedy], seed=19_000 + seed)
    assert _ComparingGreedy.differences == []
    assert _ComparingGreedy.decisions > 1000


class _ComparingRandom(RandomPlay):
    """A random player that compares the take listing with checking every take at each acquire decision."""

    compared = 0
    differences: list[str] = []

    def choose_acquire(self, view):
        listed = list(view.legal_takes())
        if listed != _takes_checking_each(view._state):
            _ComparingRandom.differences.append(f"takes listed {listed}")
        _ComparingRandom.compared += bool(listed)
        return super().choose_acquire(view)


@pytest.mark.timeout(120)
def test_take_listing_skips_only_checks_r8_2e_refuses():
    _ComparingRandom.compared = 0
    _ComparingRandom.differences = []
    for seed in range(10):
        play_game([_ComparingRandom] * 4, seed=20_000 + seed)
    assert _ComparingRandom.differences == []
    assert _ComparingRandom.compared > 20
