"""Invariant playouts: random and erratic play never breaks the rules' bookkeeping.

After every action: all 108 cards are present exactly once, kind by kind (R1.1); every meld on
the table is legal (R9, R5.3: black 3s only in a going-out turn); nobody has gone out without a
canasta (R12.1).  After every hand: scores are multiples of 5 and obey the score identity
(R14.1), and the hand ended for a reason other than the turn cap.  Every game ends (R15).

Three drivers: whole games of the ``random`` bot (checked through a wrapped ``HandState.apply``),
hands of a uniformly random player drawing straight from :func:`canasta_sim.core.legal.legal_moves` under
several rule sets, and hands of an erratic player that first tries random illegal or malformed
moves, each of which must raise :class:`IllegalMoveError` and change nothing.
"""

from __future__ import annotations

import random
import re

import pytest

from canasta_sim.core.cards import BLACK_THREE, JOKER, KIND_COUNT, RED_THREE, TWO
from canasta_sim.core.engine import GameObserver, play_game
from canasta_sim.core.legal import legal_melds, legal_moves, meld_candidates
from canasta_sim.core.melds import meld_problem
from canasta_sim.core.moves import WILD_RANK, Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import ACQUIRE, ANSWER, END_TURN_CAP, OVER, PLAY, HandState
from canasta_sim.errors import IllegalMoveError
from canasta_sim.strategies import RandomPlay
from tests.helpers import score_from_parts, snapshot, verify_card_accounting

RULE_ID = re.compile(r"^(R\d+\.\d+[a-f]?|E\d)$")
MAX_ACTIONS_PER_HAND = 5000

RULE_SETS = [
    Rules(),
    Rules(stock_exhausted_rule="official", last_card_red_three="meld_no_discard"),
    Rules(stock_exhausted_rule="strict", dealt_red_three_timing="first_turn", ask_partner="mandatory"),
    Rules(wild_ratio_rule="min_two_naturals", black_three_freezes_pile=True, canastas_to_go_out=2),
    Rules(ask_partner_yes_forces_out=False, going_out_without_discard="only_if_hand_holds_canasta"),
    Rules(allow_wild_only_melds=True, blocking_wild_cards="joker_only", one_card_single_pile_block=False),
]


# ----------------------------------------------------------------------------- the checks


def check_state(state: HandState) -> None:
    """Raise ``AssertionError`` if the position breaks an invariant."""
    verify_card_accounting(state)
    rules = state.rules
    for side in (0, 1):
        for rank, (naturals, jokers, deuces) in enumerate(state.melds[side]):
            if naturals + jokers + deuces == 0:
                continue
            assert rank >= 4 or rank == BLACK_THREE or (rank == WILD_RANK and rules.allow_wild_only_melds), rank
            assert meld_problem(rules, rank, naturals, jokers, deuces) is None, (side, rank, naturals, jokers, deuces)
            assert state.side_has_melded[side]
            if rank == BLACK_THREE:  # R5.3: only in the turn its side goes out (the discard may follow)
                going_out_now = state.phase == PLAY and state.side == side and state.hand_sizes[state.seat] <= 1
                went_out = state.went_out_seat is not None and state.went_out_seat & 1 == side
                assert going_out_now or went_out, "black 3s melded outside a going-out turn"
    if state.went_out_seat is not None:
        assert state.phase == OVER
        assert state.canasta_count(state.went_out_seat & 1) >= rules.canastas_to_go_out  # R12.1
    for seat in range(4):
        if state.hand_sizes[seat] == 0:
            assert state.went_out_seat == seat, f"seat {seat} holds no card but did not go out"
    freezers = sum(
        1 for kind in state.pile
        if kind in (JOKER, TWO, RED_THREE) or (kind == BLACK_THREE and rules.black_three_freezes_pile)
    )
    assert freezers == state.pile_freezers
    if state.pile:
        assert state.pile[-1] != RED_THREE  # R8.1a: a red 3 is never on top
    assert state.phase in (ACQUIRE, PLAY, ANSWER, OVER)
    for side in (0, 1):
        # The shared meld table (HandState.meld_table), updated in place of a rebuild as cards are laid
        # (MeldingRules._lay), holds what a rebuild would: the melded ranks in rank order with their counts.
        expected = [(rank, tuple(meld)) for rank, meld in enumerate(state.melds[side]) if any(meld)]
        assert list(state.meld_table(side).items()) == expected


def check_hand_result(state: HandState) -> None:
    """Raise ``AssertionError`` if a finished hand's score breaks R14 or its end is suspect."""
    assert state.is_over and state.end_reason != END_TURN_CAP
    result = score_hand(state)
    for side in result.sides:
        assert side.score % 5 == 0
        assert side.score == score_from_parts(side)
        if side.went_out:
            assert side.canasta_natural + side.canasta_mixed >= state.rules.canastas_to_go_out
            assert side.going_out_bonus in (state.rules.going_out_bonus, state.rules.concealed_going_out_bonus)
        else:
            assert side.going_out_bonus == 0
    expected_totals = tuple(before + side.score for before, side in zip(state.scores_before, result.sides, strict=True))
    assert result.totals_after == expected_totals


# ----------------------------------------------------------------------------- driver 1: random bots


class _Checker(GameObserver):
    """Checks the state after every move the engine applies (HandState is compiled: it cannot be patched)."""

    def __init__(self) -> None:
        self.actions = []

    def on_move(self, state: HandState) -> None:
        self.actions.append(1)
        check_state(state)
        if state.is_over:
            check_hand_result(state)


def test_random_bot_games_keep_every_invariant_after_every_action():
    checker = _Checker()
    actions = checker.actions
    rules = Rules(target_score=1000)
    for seed in range(150):
        result = play_game([RandomPlay] * 4, seed=seed, rules=rules, observer=checker)
        assert result.termination == "target" and max(result.scores) >= 1000
        assert result.scores == tuple(sum(hand.sides[side].score for hand in result.hands) for side in (0, 1))
    assert len(actions) > 10_000


# ----------------------------------------------------------------------------- driver 2: uniform legal moves


def play_uniform_hand(rules: Rules, rng: random.Random, seen: set) -> HandState:
    """Play one hand choosing uniformly among ``legal_moves``, checking after each action."""
    state = HandState.deal(rules, rng, dealer=rng.randrange(4), scores=(rng.choice((-100, 0, 1500, 3000)), 0))
    check_state(state)
    for _ in range(MAX_ACTIONS_PER_HAND):
        if state.is_over:
            break
        seen.add(state.phase)
        moves = list(legal_moves(state))
        assert moves, f"no legal move in the {state.phase} phase for seat {state.actor}"
        move = rng.choice(moves)
        state.apply(move)
        check_state(state)
    assert state.is_over, "the hand did not end"
    seen.add(OVER)
    seen.add(state.end_reason)
    check_hand_result(state)
    return state


@pytest.mark.parametrize("rules_index", range(len(RULE_SETS)))
def test_uniform_legal_moves_reach_every_phase_and_keep_invariants(rules_index):
    rules = RULE_SETS[rules_index]
    rng = random.Random(1000 + rules_index)
    seen: set = set()
    for _ in range(30):
        play_uniform_hand(rules, rng, seen)
    assert {ACQUIRE, PLAY, OVER} <= seen
    if rules.ask_partner != "off":
        assert ANSWER in seen


def test_meld_candidates_largest_first_is_the_listing_stably_sorted_by_cards_laid():
    # Greedy relies on it: the same candidates as the plain listing, most cards first, ties in order;
    # and every legal meld is among the candidates.
    rng = random.Random(4242)
    checked = 0
    for rules in RULE_SETS:
        for _ in range(6):
            state = HandState.deal(rules, rng, dealer=rng.randrange(4))
            for _ in range(MAX_ACTIONS_PER_HAND):
                if state.is_over:
                    break
                if state.phase == PLAY:
                    listed = list(meld_candidates(state))
                    ordered = list(meld_candidates(state, largest_first=True))
                    laid = [-sum(len(group.cards) for group in move.groups) for move in listed]
                    assert ordered == [listed[index] for index in sorted(range(len(listed)), key=laid.__getitem__)]
                    assert set(legal_melds(state)) <= set(listed)
                    checked += len(listed) > 1
                state.apply(rng.choice(list(legal_moves(state))))
    assert checked > 100


def test_uniform_play_ends_hands_both_ways():
    rng = random.Random(77)
    seen: set = set()
    for _ in range(30):
        play_uniform_hand(Rules(), rng, seen)
    assert {"went_out", "stock_exhausted"} <= seen


# ----------------------------------------------------------------------------- driver 3: the erratic player


def random_move(state: HandState, rng: random.Random):
    """A move that is often illegal and sometimes malformed; built from the hand to reach deep checks."""
    hand = state.hands[state.seat]
    held = [kind for kind in range(KIND_COUNT) for _ in range(hand[kind])]

    def some_cards(count):
        cards = [rng.choice(held) for _ in range(count)] if held else []
        if rng.random() < 0.1:
            cards.append(rng.choice((-1, 15, 99, RED_THREE, BLACK_THREE)))
        return tuple(cards)

    def some_group():
        rank = rng.choice((*range(4, KIND_COUNT), BLACK_THREE, RED_THREE, WILD_RANK, TWO, -3, 42))
        cards = some_cards(rng.randrange(1, 5))
        if rng.random() < 0.5 and rank >= 4:
            cards = (rank,) * rng.randrange(1, 4) + cards
        return MeldGroup(rank, cards)

    choice = rng.randrange(9)
    if choice == 0:
        return Draw()
    if choice == 1:
        top = state.pile[-1] if state.pile else 9
        extra = tuple(some_group() for _ in range(rng.randrange(0, 2)))
        return TakePile((top,) * rng.randrange(0, 3) + some_cards(rng.randrange(0, 2)), extra)
    if choice == 2:
        return Meld(tuple(some_group() for _ in range(rng.randrange(0, 3))))
    if choice == 3:
        return Ask()
    if choice == 4:
        return Answer(rng.random() < 0.5)
    if choice == 5:
        return Discard(rng.choice((-2, 3, 16, *range(KIND_COUNT))))
    if choice == 6:
        return Stop()
    if choice == 7:
        return rng.choice((None, "discard 5", 7, (Draw(),)))
    return Discard(rng.choice(held)) if held else Draw()


def test_erratic_player_illegal_moves_raise_and_change_nothing():
    rng = random.Random(4242)
    refused = applied = 0
    rules_seen = set()
    for hand_index in range(48):
        rules = RULE_SETS[hand_index % len(RULE_SETS)]
        rules_seen.add(rules)
        state = HandState.deal(rules, rng, dealer=hand_index % 4)
        for _ in range(MAX_ACTIONS_PER_HAND):
            if state.is_over:
                break
            acted = False
            for _ in range(3):
                move = random_move(state, rng)
                before = snapshot(state)
                legal = state.is_legal(move)
                assert snapshot(state) == before, "is_legal changed the state"
                if legal:
                    state.apply(move)
                    applied += 1
                    acted = True
                    break
                with pytest.raises(IllegalMoveError) as caught:
                    state.apply(move)
                assert RULE_ID.match(caught.value.rule), caught.value.rule
                assert snapshot(state) == before, f"refused move {caught.value} changed the state"
                refused += 1
            if not acted:
                moves = list(legal_moves(state))
                assert moves, f"no legal move in the {state.phase} phase"
                state.apply(rng.choice(moves))
            check_state(state)
        assert state.is_over
        check_hand_result(state)
    assert refused > 1000 and applied > 50 and len(rules_seen) == len(RULE_SETS)
