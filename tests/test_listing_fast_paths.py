"""The meld listings' fast paths of issue #18 (eighth session) list exactly what the long ways listed.

``legal._addition_melds`` reorders only a listing that is out of order, reads the rules it needs once per
rule set (``legal._read_rules``) and lists the black 3 and wild-card melds without an intermediate list;
the openings' search keeps :func:`legal._group_options`' shapes as its choices and builds each group from
:func:`legal.single_group_meld`'s records.  Each test plays seeded games under several rule sets and compares,
at every meld decision, the candidates with the long way's (written out here as it was before), in order.
"""

from __future__ import annotations

import pytest

from canasta_sim.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.engine import play_game
from canasta_sim.legal import meld_candidates, single_group_meld
from canasta_sim.moves import WILD_RANK, Meld, MeldGroup
from canasta_sim.rules import Rules
from canasta_sim.state import PLAY
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.helpers import position

_RULE_SETS = (
    Rules(),
    Rules(wild_ratio_rule="min_two_naturals", max_wilds_per_meld=2, allow_wild_only_melds=True),
    Rules(max_wilds_per_meld=4, allow_wild_only_melds=True),
)


def _additions_the_long_way(state) -> list[Meld]:
    """legal._addition_melds as it was before the eighth session, in listing order (R9.1, R9.2, R9.4)."""
    hand = state.hands[state.seat]
    rules = state.rules
    melds = state.melds[state.seat & 1]
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    joker_limit = min(hand[JOKER], most_wilds) + 1
    deuce_limit = min(hand[TWO], most_wilds) + 1
    found = []
    for rank in range(FOUR, KIND_COUNT):
        held = hand[rank]
        old_naturals, old_jokers, old_deuces = melds[rank]
        existing = old_naturals + old_jokers + old_deuces
        if not existing and held < 2:
            continue
        for naturals in range(0 if existing else 2, held + 1):
            for jokers in range(joker_limit):
                for deuces in range(deuce_limit):
                    if naturals + jokers + deuces == 0:
                        continue
                    total_naturals = old_naturals + naturals
                    wilds = old_jokers + jokers + old_deuces + deuces
                    if total_naturals + wilds < 3 or wilds > most_wilds:
                        continue
                    if (wilds > total_naturals) if wild_ratio else (total_naturals < 2):
                        continue
                    found.append(single_group_meld(rank, naturals, jokers, deuces))
    for count in (3, 4):
        if hand[BLACK_THREE] >= count:
            found.append(single_group_meld(BLACK_THREE, count, 0, 0))
    if rules.allow_wild_only_melds:
        for jokers in range(hand[JOKER] + 1):
            for deuces in range(hand[TWO] + 1):
                if jokers + deuces:
                    found.append(single_group_meld(WILD_RANK, 0, jokers, deuces))
    return found


def _openings_the_long_way(state) -> list[Meld]:
    """legal._opening_candidates as it was before the eighth session: every set of new groups the hand can
    make (each valid on its own, R9), in the search's order, that reaches the minimum or leaves at most one
    card (R10.2, R10.7)."""
    hand = state.hands[state.seat]
    rules = state.rules
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    options = []
    for rank in range(FOUR, KIND_COUNT):
        if hand[rank] < 2:
            continue
        shapes = []
        for naturals in range(2, hand[rank] + 1):
            for jokers in range(min(hand[JOKER], most_wilds) + 1):
                for deuces in range(min(hand[TWO], most_wilds) + 1):
                    wilds = jokers + deuces
                    if naturals + wilds < 3 or wilds > most_wilds or (wild_ratio and wilds > naturals):
                        continue
                    shapes.append((naturals, jokers, deuces))
        options.append((rank, shapes))
    if hand[BLACK_THREE] >= 3:
        options.append((BLACK_THREE, [(count, 0, 0) for count in range(3, hand[BLACK_THREE] + 1)]))
    if rules.allow_wild_only_melds:
        wild_shapes = [
            (0, jokers, deuces) for jokers in range(hand[JOKER] + 1) for deuces in range(hand[TWO] + 1)
            if jokers + deuces >= 3
        ]
        options.append((WILD_RANK, wild_shapes))
    found: list[Meld] = []
    chosen: list[MeldGroup] = []

    def walk(index: int, jokers_left: int, deuces_left: int) -> None:
        if index == len(options):
            cards = sum(len(group.cards) for group in chosen)
            points = sum(KIND_VALUE[kind] for group in chosen for kind in group.cards)
            if chosen and not (state.hand_sizes[state.seat] - cards > 1 and points < state.requirements[state.side]):
                found.append(Meld(tuple(chosen)))
            return
        walk(index + 1, jokers_left, deuces_left)
        rank, shapes = options[index]
        for naturals, jokers, deuces in shapes:
            if jokers <= jokers_left and deuces <= deuces_left:
                chosen.append(MeldGroup.of(rank, naturals, jokers, deuces))
                walk(index + 1, jokers_left - jokers, deuces_left - deuces)
                chosen.pop()

    walk(0, hand[JOKER], hand[TWO])
    return found


def _cards_laid(move: Meld) -> int:
    return sum(len(group.cards) for group in move.groups)


class _ListingChecker(RandomPlay):
    """A random player that, at each meld decision, compares both listings' orders with the long ways."""

    additions = 0
    openings = 0

    def choose_meld(self, view):
        state = view._state
        if state.phase == PLAY:
            listed = list(meld_candidates(state))
            ordered = list(meld_candidates(state, largest_first=True))
            if state.side_has_melded[state.seat & 1]:
                expected = _additions_the_long_way(state)
                _ListingChecker.additions += 1
            else:
                expected = _openings_the_long_way(state)
                _ListingChecker.openings += 1
            assert listed == expected
            assert ordered == sorted(expected, key=lambda move: -_cards_laid(move))
        return super().choose_meld(view)


@pytest.mark.timeout(180)
def test_meld_listings_and_their_largest_first_orders_match_the_long_ways_under_three_rule_sets_r9():
    _ListingChecker.additions = _ListingChecker.openings = 0
    # The rule sets alternate game by game: the listings' kept rules must follow each change.
    for seed in range(3):
        for rules in _RULE_SETS:
            play_game([_ListingChecker] * 4, seed=seed, rules=rules)
    assert _ListingChecker.additions > 300
    assert _ListingChecker.openings > 100


class _GreedyChecker(Greedy):
    """Greedy that, at each meld decision, also finds its meld the long way: the first legal candidate of
    the long listing sorted by cards laid, passing over what greedy passes over for certain (R5.3, R6.4)."""

    decisions = 0

    def choose_meld(self, view):
        move = super().choose_meld(view)
        state = view._state
        answer = view.partner_answer
        plan = view.going_out_plan() if answer is not False else None
        if not (plan is not None and plan[0] and (answer is True or view.rules.ask_partner != "mandatory")):
            if state.side_has_melded[state.seat & 1]:
                listed = _additions_the_long_way(state)
            else:
                listed = _openings_the_long_way(state)
            listed.sort(key=lambda candidate: -_cards_laid(candidate))
            # Greedy's passes skip only candidates the rules refuse: the first legal one is its choice.
            expected = next((candidate for candidate in listed if view.can(candidate)), None)
            assert move == expected
            _GreedyChecker.decisions += 1
        return move


@pytest.mark.timeout(180)
def test_greedy_melds_the_first_legal_of_the_long_listing_by_cards_laid_under_three_rule_sets():
    _GreedyChecker.decisions = 0
    for seed in range(3):
        for rules in _RULE_SETS:
            play_game([_GreedyChecker, RandomPlay, _GreedyChecker, RandomPlay], seed=seed, rules=rules)
    assert _GreedyChecker.decisions > 300


def test_a_listing_that_falls_then_rises_below_its_first_count_is_reordered_r9():
    # Five-five-five (3 cards, no meld of fives yet) comes first, then the sixes added to the side's
    # meld: one six (1 card), two sixes (2 cards).  Reordered by cards laid: 3, 2, 1.
    state = position(hands={0: "5 5 5 6 6 K Q 9 8 7 4"}, melds={0: "6 6 6"}, seat=0, phase=PLAY)
    listed = [str(move) for move in meld_candidates(state)]
    ordered = [str(move) for move in meld_candidates(state, largest_first=True)]
    assert listed == [str(single_group_meld(5, 3)), str(single_group_meld(6, 1)), str(single_group_meld(6, 2))]
    assert ordered == [listed[0], listed[2], listed[1]]
    assert [str(move) for move in _additions_the_long_way(state)] == listed
