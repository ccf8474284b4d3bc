"""The meld listings list exactly what the long ways (written out here) list, in the same order.

``legal._addition_melds`` reorders only a listing that is out of order, reads the rules it needs once per
rule set (``melds.wild_rules_of``) and lists the black 3 and wild-card melds without an intermediate list;
the openings' search keeps :func:`legal._group_options`' shapes as its choices and builds each group from
:func:`legal.single_group_meld`'s records.  Each test plays seeded games under several rule sets and compares,
at every meld decision, the candidates with the long way's (written out here as it was before), in order.
"""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.core.engine import play_game
from canasta_sim.core.legal import _group_sets, legal_takes, meld_candidates, pile_take, single_group_meld
from canasta_sim.core.moves import WILD_RANK, Meld, MeldGroup, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, PLAY
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.helpers import position

_RULE_SETS = (
    Rules(),
    Rules(wild_ratio_rule="min_two_naturals", max_wilds_per_meld=2, allow_wild_only_melds=True),
    Rules(max_wilds_per_meld=4, allow_wild_only_melds=True),
)


def _additions_the_long_way(state) -> list[Meld]:
    """legal._addition_melds, the long way, in listing order (R9.1, R9.2, R9.4, R5.3), under one canasta to go out
    (no joint going-out melds: tests/core/test_meld_listing_complete.py checks those)."""
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
    laid_threes = melds[BLACK_THREE][0]  # R5.3: black 3s laid this turn to go out take more, up to four
    for count in range(1, 5 - laid_threes) if laid_threes else (3, 4):
        if hand[BLACK_THREE] >= count:
            found.append(single_group_meld(BLACK_THREE, count, 0, 0))
    if rules.allow_wild_only_melds:
        for jokers in range(hand[JOKER] + 1):
            for deuces in range(hand[TWO] + 1):
                if jokers + deuces:
                    found.append(single_group_meld(WILD_RANK, 0, jokers, deuces))
    return found


def _group_sets_the_long_way(rules, counts, exclude: int) -> list[tuple[MeldGroup, ...]]:
    """legal._group_sets, the long way: every non-empty set of new groups ``counts``
    can make (each valid on its own, R9; none of rank ``exclude``), in the search's order."""
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    options = []
    for rank in range(FOUR, KIND_COUNT):
        if rank == exclude or counts[rank] < 2:
            continue
        shapes = []
        for naturals in range(2, counts[rank] + 1):
            for jokers in range(min(counts[JOKER], most_wilds) + 1):
                for deuces in range(min(counts[TWO], most_wilds) + 1):
                    wilds = jokers + deuces
                    if naturals + wilds < 3 or wilds > most_wilds or (wild_ratio and wilds > naturals):
                        continue
                    shapes.append((naturals, jokers, deuces))
        options.append((rank, shapes))
    if counts[BLACK_THREE] >= 3:
        options.append((BLACK_THREE, [(count, 0, 0) for count in range(3, counts[BLACK_THREE] + 1)]))
    if rules.allow_wild_only_melds:
        wild_shapes = [
            (0, jokers, deuces) for jokers in range(counts[JOKER] + 1) for deuces in range(counts[TWO] + 1)
            if jokers + deuces >= 3
        ]
        options.append((WILD_RANK, wild_shapes))
    found: list[tuple[MeldGroup, ...]] = []
    chosen: list[MeldGroup] = []

    def walk(index: int, jokers_left: int, deuces_left: int) -> None:
        if index == len(options):
            if chosen:
                found.append(tuple(chosen))
            return
        walk(index + 1, jokers_left, deuces_left)
        rank, shapes = options[index]
        for naturals, jokers, deuces in shapes:
            if jokers <= jokers_left and deuces <= deuces_left:
                chosen.append(MeldGroup.of(rank, naturals, jokers, deuces))
                walk(index + 1, jokers_left - jokers, deuces_left - deuces)
                chosen.pop()

    walk(0, counts[JOKER], counts[TWO])
    return found


def _points(groups) -> int:
    return sum(KIND_VALUE[kind] for group in groups for kind in group.cards)


def _openings_the_long_way(state) -> list[Meld]:
    """legal._opening_candidates, the long way: the group sets that reach the minimum
    or leave at most one card (R10.2, R10.7)."""
    hand_size = state.hand_sizes[state.seat]
    minimum = state.requirements[state.side]
    return [
        Meld(groups)
        for groups in _group_sets_the_long_way(state.rules, state.hands[state.seat], -1)
        if not (hand_size - sum(len(group.cards) for group in groups) > 1 and _points(groups) < minimum)
    ]


def _takes_the_long_way(state) -> list[TakePile]:
    """legal.legal_takes, the long way: each shape of hand cards with the top card that
    ``can_take_pile`` accepts, and short of the initial minimum, with each set of extra melds from hand that
    makes up the points (R8.2, R8.3, R10.2)."""
    if state.phase != ACQUIRE or not state.pile or state.is_pile_blocked() or state.pile[-1] <= TWO:
        return []
    top = state.pile[-1]
    hand = state.hands[state.seat]
    side = state.side
    found = []
    for naturals in range(hand[top] + 1):
        for jokers in range(hand[JOKER] + 1):
            for deuces in range(hand[TWO] + 1):
                move = pile_take(top, naturals, jokers, deuces)
                if state.can_take_pile(move):
                    found.append(move)
                    continue
                value = KIND_VALUE[top] * (naturals + 1) + 50 * jokers + 20 * deuces
                if state.side_has_melded[side] or naturals < 2 or value >= state.requirements[side]:
                    continue
                rest = list(hand)
                rest[top] -= naturals
                rest[JOKER] -= jokers
                rest[TWO] -= deuces
                for extra in _group_sets_the_long_way(state.rules, rest, top):
                    if value + _points(extra) >= state.requirements[side]:
                        extended = TakePile(move.cards, extra)
                        if state.can_take_pile(extended):
                            found.append(extended)
    return found


def _cards_laid(move: Meld) -> int:
    return sum(len(group.cards) for group in move.groups)


class _ListingChecker(RandomPlay):
    """A random player that, at each pile decision and each meld decision, compares the listings and their
    orders with the long ways."""

    additions = 0
    openings = 0
    takes = 0

    def choose_acquire(self, view):
        state = view._state
        listed = list(legal_takes(state))
        assert listed == _takes_the_long_way(state)
        _ListingChecker.takes += len(listed)
        return super().choose_acquire(view)

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
def test_take_and_meld_listings_and_their_orders_match_the_long_ways_under_three_rule_sets_r8_r9_r10():
    _ListingChecker.additions = _ListingChecker.openings = _ListingChecker.takes = 0
    # The rule sets alternate game by game: the listings' kept rules must follow each change.
    for seed in range(3):
        for rules in _RULE_SETS:
            play_game([_ListingChecker] * 4, seed=seed, rules=rules)
    assert _ListingChecker.additions > 300
    assert _ListingChecker.openings > 100
    assert _ListingChecker.takes > 50


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


def test_single_group_meld_hands_out_one_record_per_shape_inside_and_outside_its_table():
    # Inside the table (a two-deck hand's shapes), past it (nine naturals, five jokers), and past the dict's
    # keys (no hand holds 40 cards of a rank): equal to the record built afresh; the same one when asked again.
    shapes = ((5, 3, 0, 0), (14, 8, 4, 8), (BLACK_THREE, 4, 0, 0), (WILD_RANK, 0, 2, 1), (7, 9, 0, 0), (9, 2, 5, 0))
    for shape in shapes:
        first = single_group_meld(*shape)
        assert first == Meld((MeldGroup.of(*shape),))
        assert single_group_meld(*shape) is first
    assert single_group_meld(6, 40) == Meld((MeldGroup.of(6, 40),))


def test_the_kept_rank_shapes_follow_a_change_of_rule_set_r9_2():
    # The same counts under rule sets that allow different wild cards: each answer is the long way's for its
    # own rule set, also when a rule set comes back after another.
    counts = [0] * KIND_COUNT
    counts[JOKER], counts[TWO], counts[5], counts[9] = 2, 3, 4, 2
    for rules in (*_RULE_SETS, _RULE_SETS[0], _RULE_SETS[1]):
        state = position(rules, hands={0: "5 5"}, seat=0)
        assert list(_group_sets(state, counts, exclude=None)) == _group_sets_the_long_way(rules, counts, -1)
