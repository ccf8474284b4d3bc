"""Every rule-set option (RULES.md §17) changes the game exactly as RULES.md says.

Each option has a test built on a constructed position or a stacked deck that shows the
default doing one thing and the alternative value doing the other, citing the rule ID it
changes.  Whole games must also finish under every alternative, and the rule set itself must
reject unknown keys and bad values with a message that names the key and what is accepted.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from canasta_sim.core import engine
from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    JOKER,
    KIND_COUNT,
    KIND_NAMES,
    RED_THREE,
    TWO,
    parse_kind,
    parse_kinds,
)
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import WILD_RANK, MeldGroup, parse_move
from canasta_sim.core.rules import DEFAULT_RULES, RULE_CHOICES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    ACQUIRE,
    END_RED_THREE_LAST_CARD,
    END_STOCK_EXHAUSTED,
    END_WENT_OUT,
    OVER,
    PLAY,
    HandState,
)
from canasta_sim.errors import IllegalMoveError, RulesError
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.helpers import score_from_parts

KING = parse_kind("K")
QUEEN = parse_kind("Q")
NINE = parse_kind("9")
SEVEN = parse_kind("7")


# --------------------------------------------------------------------------- position helper


def _position(
    rules: Rules = DEFAULT_RULES,
    *,
    hands: dict[int, str] | None = None,
    melds: dict[int, str] | None = None,
    pile: str = "",
    stock: str = "",
    red_threes: dict[int, int] | None = None,
    melded_seats: tuple[int, ...] | None = None,
    seat: int = 0,
    scores: tuple[int, int] = (0, 0),
    rest_to: int | None = None,
) -> HandState:
    """Build a position at the start of ``seat``'s turn that still holds all 108 cards (R1.1).

    ``hands`` maps seats to their exact hands (others hold nothing), ``melds`` maps sides to groups
    such as ``'K K K; 8 8 2'``, ``pile`` lists the discard pile bottom first, ``stock`` the next
    stock cards in the order they will be drawn.  Unplaced cards go below them in the stock, red 3s
    at the very bottom; with ``rest_to`` they go to that seat's hand instead (red 3s to its row),
    so that the stock holds exactly the ``stock`` cards.  ``melded_seats`` defaults to every seat
    of a side with melds on the table.
    """
    state = HandState.from_deck(rules, list(range(108)), dealer=(seat - 1) % 4, scores=scores)
    pool: list[list[int]] = [[] for _ in range(KIND_COUNT)]
    for card in range(107, -1, -1):
        pool[CARD_KIND[card]].append(card)

    def take(kind: int) -> int:
        if not pool[kind]:
            raise ValueError(f"the position uses more {KIND_NAMES[kind]} than the deck holds")
        return pool[kind].pop()

    state.hands = [[0] * KIND_COUNT for _ in range(4)]
    for owner, text in (hands or {}).items():
        for kind in parse_kinds(text):
            take(kind)
            state.hands[owner][kind] += 1
    state.melds = [[[0, 0, 0] for _ in range(KIND_COUNT)] for _ in range(2)]
    for side, text in (melds or {}).items():
        for part in text.split(";"):
            group = MeldGroup.from_text(part)
            for kind in group.cards:
                take(kind)
            meld = state.melds[side][group.rank]
            meld[0] += group.naturals
            meld[1] += group.jokers
            meld[2] += group.deuces
    state.pile = list(parse_kinds(pile))
    for kind in state.pile:
        take(kind)
    state.pile_freezers = sum(
        1
        for kind in state.pile
        if kind <= TWO or kind == RED_THREE or (kind == BLACK_THREE and rules.black_three_freezes_pile)
    )
    state.red_threes = [0, 0, 0, 0]
    for owner, count in (red_threes or {}).items():
        for _ in range(count):
            take(RED_THREE)
        state.red_threes[owner] = count
    top = [take(kind) for kind in parse_kinds(stock)]
    rest = sorted((card for ids in pool for card in ids), key=lambda card: (CARD_KIND[card] == RED_THREE, card))
    if rest_to is None:
        state.stock = list(reversed(top + rest))
    else:
        state.stock = list(reversed(top))
        for card in rest:
            if CARD_KIND[card] == RED_THREE:
                state.red_threes[rest_to] += 1
            else:
                state.hands[rest_to][CARD_KIND[card]] += 1
    state.hand_sizes = [sum(hand) for hand in state.hands]
    state.side_has_melded = [any(sum(meld) for meld in state.melds[side]) for side in (0, 1)]
    if melded_seats is None:
        melded_seats = tuple(owner for owner in range(4) if state.side_has_melded[owner & 1])
    state.seat_has_melded = [owner in melded_seats for owner in range(4)]
    state.first_turn_done = [True] * 4
    state.history = []
    state.seat = seat
    state._reset_turn()
    state.phase = ACQUIRE
    assert state.card_total() == 108
    return state


def _play(state: HandState, *moves: str) -> HandState:
    """Apply moves given in their text form (canasta_sim.core.moves) and check that no card was lost (R1.1)."""
    for text in moves:
        state.apply(parse_move(text))
    assert state.card_total() == 108
    return state


def _refused(state: HandState, move: str) -> str:
    """Return the rule ID an illegal move breaks; the move must also be reported illegal by ``is_legal``."""
    parsed = parse_move(move)
    assert not state.is_legal(parsed)
    with pytest.raises(IllegalMoveError) as caught:
        state.apply(parsed)
    return caught.value.rule


def _stacked_deck(dealt: dict[int, str], *, dealer: int, after: str) -> list[int]:
    """A deck (index 0 on top) dealing ``dealt`` (R3.1) then ``after`` (upcard, then stock, top first).

    Seats' hands are topped up to 11 with natural cards; red 3s are kept to the bottom of the deck.
    """
    pool: list[list[int]] = [[] for _ in range(KIND_COUNT)]
    for card in range(107, -1, -1):
        pool[CARD_KIND[card]].append(card)
    hands = {seat: [pool[kind].pop() for kind in parse_kinds(dealt.get(seat, ""))] for seat in range(4)}
    top = [pool[kind].pop() for kind in parse_kinds(after)]
    naturals = sorted(card for kind in range(4, KIND_COUNT) for card in pool[kind])
    others = sorted(
        (card for kind in (JOKER, TWO, BLACK_THREE, RED_THREE) for card in pool[kind]),
        key=lambda card: (CARD_KIND[card] == RED_THREE, card),
    )
    filler = naturals + others
    for seat in range(4):
        while len(hands[seat]) < 11:
            hands[seat].append(filler.pop(0))
    deck = [hands[(dealer + 1 + index) % 4][index // 4] for index in range(44)]
    return deck + top + filler


# --------------------------------------------------------------------------- R15: target and ties


def test_target_score_ends_the_game_once_a_side_reaches_it_r15_1():
    """R15.1: the game ends after the first hand that takes a side to ``target_score``."""
    players = [Greedy, RandomPlay, Greedy, RandomPlay]
    short = play_game(players, seed=11, rules=Rules(target_score=1000))
    longer = play_game(players, seed=11, rules=Rules(target_score=3000))
    assert short.termination == "target" and max(short.scores) >= 1000
    assert all(max(hand.totals_after) < 1000 for hand in short.hands[:-1])
    assert longer.termination == "target" and max(longer.scores) >= 3000
    # The target changes nothing but where the game stops: the short game is a prefix of the longer.
    assert len(longer.hands) > len(short.hands)
    assert longer.hands[: len(short.hands)] == short.hands


def _tie_after_first_hand(monkeypatch, total: int) -> None:
    real_score_hand = engine.score_hand

    def tied(state: HandState):
        result = real_score_hand(state)
        if state.hand_number == 1:
            return result.replace(totals_after=(total, total))
        return result

    monkeypatch.setattr(engine, "score_hand", tied)


def test_tie_rule_draw_ends_a_tied_game_r15_3(monkeypatch):
    """R15.3, ``tie_rule=draw``: equal totals at or above the target end the game with no winner."""
    _tie_after_first_hand(monkeypatch, 600)
    result = play_game([Greedy] * 4, seed=5, rules=Rules(target_score=500, tie_rule="draw"))
    assert result.scores == (600, 600)
    assert result.winner is None and result.termination == "target"
    assert len(result.hands) == 1


def test_tie_rule_default_plays_another_hand_r15_3(monkeypatch):
    """R15.3 default ``play_another_hand``: a tie at or above the target deals more hands until broken."""
    _tie_after_first_hand(monkeypatch, 600)
    result = play_game([Greedy] * 4, seed=5, rules=Rules(target_score=500))
    assert len(result.hands) >= 2
    assert result.hands[1].sides[0].initial_requirement == 50  # the second hand started from 600 (R10.2)
    assert result.scores[0] != result.scores[1]
    assert result.winner == (0 if result.scores[0] > result.scores[1] else 1)


# --------------------------------------------------------------------------- R10.2: the minimum table


def test_initial_meld_table_custom_changes_the_minimum_r10_2():
    """R10.2: a custom table replaces the 15/50/90/120 steps, from text or from pairs."""
    custom = Rules.from_options(["initial_meld_table=-inf:15,0:70,1000:100"])
    assert custom.initial_meld_table == ((-math.inf, 15), (0, 70), (1000, 100))
    assert custom == Rules(initial_meld_table=((-math.inf, 15), (0, 70), (1000, 100)))
    assert [custom.initial_requirement(score) for score in (-5, 0, 995, 1000, 5000)] == [15, 70, 70, 100, 100]
    assert [DEFAULT_RULES.initial_requirement(score) for score in (-5, 0, 995, 1000, 5000)] == [15, 50, 50, 50, 120]
    hands = {0: "A A A 6 7 9"}
    default = _play(_position(hands=hands, stock="4"), "draw")
    _play(default, "meld A A A")  # 60 points meet the default 50
    assert default.side_has_melded[0]
    changed = _play(_position(custom, hands=hands, stock="4"), "draw")
    assert changed.requirement(0) == 70
    assert _refused(changed, "meld A A A") == "R10.2"


# --------------------------------------------------------------------------- R9.2: wild-card limits


def test_wild_ratio_rule_min_two_naturals_allows_two_naturals_and_three_wilds_r9_2():
    """R9.2/D3, T14: K K 2 2 JK is illegal under the seed rule, legal under ``min_two_naturals``."""
    hands = {0: "K K 2 2 JK 9 5"}
    melds = {0: "Q Q Q"}
    default = _play(_position(hands=hands, melds=melds, stock="4"), "draw")
    assert _refused(default, "meld K K 2 2 JK") == "R9.2"
    official = _play(_position(Rules(wild_ratio_rule="min_two_naturals"), hands=hands, melds=melds, stock="4"), "draw")
    _play(official, "meld K K 2 2 JK")
    assert official.melds[0][KING] == [2, 1, 2]
    # Still at least 2 naturals under the official rule.
    short = _play(_position(Rules(wild_ratio_rule="min_two_naturals"), hands=hands, melds=melds, stock="4"), "draw")
    assert _refused(short, "meld K 2 2") == "R9.2"


def test_wild_ratio_rule_reaches_the_going_out_search_r9_2():
    """R9.2 with R12.5's search: a hand that only melds out as 2 naturals + 3 wilds."""
    hands = {0: "K K 2 2 JK"}
    melds = {0: "Q Q Q Q 2 2 2"}  # a canasta with no room left for wild cards
    default = _play(_position(hands=hands, melds=melds, stock="4"), "draw")
    assert not default.can_go_out_this_turn()
    official = _play(_position(Rules(wild_ratio_rule="min_two_naturals"), hands=hands, melds=melds, stock="4"), "draw")
    assert official.can_go_out_this_turn()
    _play(official, "meld K K 2 2 JK", "discard 4")
    assert official.end_reason == END_WENT_OUT


def test_max_wilds_per_meld_caps_the_wild_cards_r9_2():
    """R9.2: ``max_wilds_per_meld`` replaces the 3 wild cards a meld may hold, for its whole life (R9.3)."""
    hands = {0: "K K K K 2 2 2 JK 9"}
    melds = {0: "Q Q Q"}
    one = _play(_position(Rules(max_wilds_per_meld=1), hands=hands, melds=melds, stock="4"), "draw")
    assert _refused(one, "meld K K K 2 2") == "R9.2"
    _play(one, "meld K K K 2")
    assert _refused(one, "meld K:JK") == "R9.2"  # an addition may not exceed it either (R9.3)
    default = _play(_position(hands=hands, melds=melds, stock="4"), "draw")
    _play(default, "meld K K K 2 2")
    assert _refused(default, "meld K 2 JK") == "R9.2"  # a 4th wild card
    four = _play(_position(Rules(max_wilds_per_meld=4), hands=hands, melds=melds, stock="4"), "draw")
    _play(four, "meld K K K K 2 2 2 JK")
    assert four.melds[0][KING] == [4, 1, 3]


# --------------------------------------------------------------------------- R9.4: wild-only melds


def test_allow_wild_only_melds_true_permits_a_meld_of_wild_cards_r9_4():
    """R9.4: a meld of wild cards only is refused by default and allowed (and scored) with ``true``."""
    hands = {0: "JK JK 2 9 5"}
    melds = {0: "Q Q Q"}
    default = _play(_position(hands=hands, melds=melds, stock="4"), "draw")
    assert _refused(default, "meld wild:JK JK 2") == "R9.4"
    loose = _play(_position(Rules(allow_wild_only_melds=True), hands=hands, melds=melds, stock="4"), "draw")
    assert _refused(loose, "meld wild:JK 2") == "R9.1"  # still at least 3 cards
    _play(loose, "meld wild:JK JK 2")
    assert loose.melds[0][WILD_RANK] == [0, 2, 1]
    assert loose.side_meld_points(0) == 30 + 120


# --------------------------------------------------------------------------- R12.1: canastas to go out


def test_canastas_to_go_out_two_needs_a_second_canasta_r12_1():
    """R12.1/R6.4, T11: with ``canastas_to_go_out=2`` one canasta no longer lets the side go out."""
    hands = {0: "9 9 9"}
    one_canasta = {0: "K K K K K K K; 8 8 8"}
    default = _play(_position(hands=hands, melds=one_canasta, stock="4"), "draw")
    _play(default, "meld 9 9 9", "discard 4")
    assert default.end_reason == END_WENT_OUT
    two = Rules(canastas_to_go_out=2)
    strict = _play(_position(two, hands=hands, melds=one_canasta, stock="4"), "draw")
    assert not strict.can_go_out_this_turn()
    assert _refused(strict, "meld 9 9 9") == "R6.4"
    both = _play(_position(two, hands=hands, melds={0: "K K K K K K K; 8 8 8 8 8 8 8"}, stock="4"), "draw")
    assert both.can_go_out_this_turn()
    _play(both, "meld 9 9 9", "discard 4")
    assert both.end_reason == END_WENT_OUT


# --------------------------------------------------------------------------- R11.2, R14.1c: bonuses


def _going_out_hand(rules: Rules, *, side_one: str = "", red_threes: dict[int, int] | None = None, hands=None):
    """Seat 0 melds 9 9 9 and discards 4 to go out; side A holds a mixed queen canasta."""
    all_hands = {0: "9 9 9", 1: "5", 2: "6", 3: "8"}
    all_hands.update(hands or {})
    melds = {0: "Q Q Q Q Q Q JK"}
    if side_one:
        melds[1] = side_one
    state = _position(rules, hands=all_hands, melds=melds, stock="4", red_threes=red_threes)
    _play(state, "draw", "meld 9 9 9", "discard 4")
    assert state.end_reason == END_WENT_OUT
    return score_hand(state)


def test_canasta_bonuses_are_configurable_r11_2():
    """R11.2/R14.1b: ``natural_canasta_bonus`` and ``mixed_canasta_bonus`` replace 500 and 300 (T07)."""
    default = _going_out_hand(DEFAULT_RULES, side_one="K K K K K K K")
    assert default.sides[1].score == 570 - 5 - 10  # T07's 570, less the cards in hand
    assert default.sides[0].canasta_bonus == 300
    changed = _going_out_hand(Rules(natural_canasta_bonus=400, mixed_canasta_bonus=250), side_one="K K K K K K K")
    assert changed.sides[1].canasta_bonus == 400 and changed.sides[1].score == 470 - 15
    assert changed.sides[0].canasta_bonus == 250
    assert changed.sides[0].score == default.sides[0].score - 50


def test_going_out_bonus_is_configurable_r14_1c():
    """R14.1c: ``going_out_bonus`` replaces the 100 for going out."""
    default = _going_out_hand(DEFAULT_RULES)
    changed = _going_out_hand(Rules(going_out_bonus=150))
    assert default.sides[0].going_out_bonus == 100 and not default.sides[0].concealed
    assert changed.sides[0].going_out_bonus == 150
    assert changed.sides[0].score - default.sides[0].score == 50


def _concealed_t12(rules: Rules):
    """T12: seat 0 melds the queen canasta and the fives in one turn and discards 9♠, concealed."""
    state = _position(rules, hands={0: "Q Q Q Q Q Q 2 5 5 5 5", 2: "K K 7"}, stock="9", melded_seats=())
    _play(state, "draw", "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9")
    return state, score_hand(state)


def test_concealed_going_out_bonus_is_configurable_r14_1c():
    """R14.1c, T12: 575 with the default 200 in total; ``concealed_going_out_bonus=300`` gives 675."""
    state, default = _concealed_t12(DEFAULT_RULES)
    assert state.went_out_concealed and default.sides[0].score == 575
    _, changed = _concealed_t12(Rules(concealed_going_out_bonus=300))
    assert changed.sides[0].going_out_bonus == 300 and changed.sides[0].score == 675


# --------------------------------------------------------------------------- R14.1d: red 3s


def test_red_three_values_seed_000_literal_r14_1d():
    """R14.1d/D11-D12, T08: 100 each and 400 (not 800) for all four, negative without a meld."""
    four = {1: 2, 3: 2}
    # T08 with tens for its queens (side A's canasta holds six queens): 30 melded, 15 or 45 in hand.
    default = _going_out_hand(DEFAULT_RULES, side_one="10 10 10", red_threes=four, hands={1: "6", 3: "J"})
    assert default.sides[1].score == 815  # T08a
    literal = Rules(red_three_value=100, all_four_red_threes_total=400)
    changed = _going_out_hand(literal, side_one="10 10 10", red_threes=four, hands={1: "6", 3: "J"})
    assert changed.sides[1].red_three_bonus == 400 and changed.sides[1].score == 415
    unmelded = _going_out_hand(DEFAULT_RULES, red_threes=four, hands={1: "10 10 10 6", 3: "J"})
    assert unmelded.sides[1].score == -845  # T08b
    unmelded = _going_out_hand(literal, red_threes=four, hands={1: "10 10 10 6", 3: "J"})
    assert unmelded.sides[1].score == -445
    # Fewer than four: red_three_value each.
    fifty = _going_out_hand(Rules(red_three_value=50), side_one="10 10 10", red_threes={1: 2}, hands={1: "6", 3: "J"})
    assert fifty.sides[1].red_three_bonus == 100


def test_red_three_negative_if_no_meld_false_keeps_them_positive_r14_1d():
    """R14.1d, T08c: two red 3s and no meld score -200 by default, +200 with ``false``."""
    hands = {1: "K K A A 5 6 7", 3: "8"}  # 85 points in hand
    default = _going_out_hand(DEFAULT_RULES, red_threes={1: 2}, hands=hands)
    assert default.sides[1].score == -285
    changed = _going_out_hand(Rules(red_three_negative_if_no_meld=False), red_threes={1: 2}, hands=hands)
    assert changed.sides[1].red_three_bonus == 200 and changed.sides[1].score == 115


# --------------------------------------------------------------------------- R12.5: asking the partner


def _ready_to_go_out(rules: Rules, hand: str = "9 9 9") -> HandState:
    """Seat 0 has drawn a 4; side A has a canasta and seat 0 can meld out."""
    return _play(_position(rules, hands={0: hand}, melds={0: "K K K K K K K"}, stock="4"), "draw")


def test_ask_partner_mandatory_requires_a_yes_before_going_out_r12_5():
    """R12.5/D1: by default going out without asking is legal; ``mandatory`` refuses it until a yes."""
    default = _ready_to_go_out(DEFAULT_RULES)
    _play(default, "meld 9 9 9", "discard 4")
    assert default.end_reason == END_WENT_OUT
    mandatory = Rules(ask_partner="mandatory")
    state = _ready_to_go_out(mandatory)
    assert _refused(state, "meld 9 9 9") == "R12.5"
    _play(state, "ask", "answer yes", "meld 9 9 9", "discard 4")
    assert state.end_reason == END_WENT_OUT
    # Melding without going out needs no question.
    partial = _ready_to_go_out(mandatory, hand="9 9 9 5 6")
    _play(partial, "meld 9 9 9", "discard 4")
    assert partial.phase == ACQUIRE and partial.seat == 1
    # The last card going by a discard is going out too.
    last = _ready_to_go_out(mandatory, hand="")
    assert _refused(last, "discard 4") == "R12.5"


def test_ask_partner_mandatory_refuses_a_take_that_would_go_out_r12_5():
    """R12.5 ``mandatory``: asking comes after the take, so a take leaving one card cannot stand.
    (R8.2d is switched off so that a one-card hand may take a one-card pile at all.)"""
    melds = {0: "K K K K K K K; 9 9 9"}
    optional = _position(Rules(one_card_single_pile_block=False), hands={0: "Q"}, melds=melds, pile="9")
    _play(optional, "take", "discard Q")
    assert optional.end_reason == END_WENT_OUT
    mandatory = Rules(ask_partner="mandatory", one_card_single_pile_block=False)
    state = _position(mandatory, hands={0: "Q"}, melds=melds, pile="9")
    assert _refused(state, "take") == "R12.5"
    bigger = _position(mandatory, hands={0: "Q"}, melds=melds, pile="5 9")
    _play(bigger, "take")  # two cards in hand afterwards: no going out, no question needed
    assert bigger.hand_sizes[0] == 2


def test_ask_partner_off_forbids_asking_r12_5():
    """R12.5: ``ask_partner=off`` refuses the question; going out needs none."""
    default = _ready_to_go_out(DEFAULT_RULES)
    assert default.can_ask()
    off = _ready_to_go_out(Rules(ask_partner="off"))
    assert _refused(off, "ask") == "R12.5"
    _play(off, "meld 9 9 9", "discard 4")
    assert off.end_reason == END_WENT_OUT


def test_partner_answer_no_binds_under_every_asking_rule_r12_5():
    """R12.5: "no" forbids going out this turn (also when a yes would not force it)."""
    for rules in (DEFAULT_RULES, Rules(ask_partner="mandatory"), Rules(ask_partner_yes_forces_out=False)):
        state = _ready_to_go_out(rules)
        _play(state, "ask", "answer no")
        assert _refused(state, "meld 9 9 9") == "R12.5"


def test_ask_partner_yes_forces_out_false_lets_a_yes_go_unused_r12_5():
    """R12.5: by default a yes obliges the asker to go out and asking needs going out to be possible;
    with ``ask_partner_yes_forces_out=false`` neither holds."""
    default = _ready_to_go_out(DEFAULT_RULES, hand="9 9 9 5 5 5")
    _play(default, "ask", "answer yes")
    assert _refused(default, "discard 4") == "R12.5"
    loose = _ready_to_go_out(Rules(ask_partner_yes_forces_out=False), hand="9 9 9 5 5 5")
    _play(loose, "ask", "answer yes", "discard 4")
    assert loose.phase == ACQUIRE and loose.seat == 1
    # Asking when going out is impossible (the side has no canasta).
    stuck = {0: "9 9 5 6"}
    default = _play(_position(hands=stuck, melds={0: "K K K"}, stock="4"), "draw")
    assert _refused(default, "ask") == "R12.5"
    loose = _play(
        _position(Rules(ask_partner_yes_forces_out=False), hands=stuck, melds={0: "K K K"}, stock="4"), "draw"
    )
    _play(loose, "ask", "answer yes", "discard 4")
    assert loose.seat == 1


# --------------------------------------------------------------------------- R5.3: melding black 3s


def test_black_three_melds_never_refuses_the_going_out_meld_r5_3():
    """R5.3/D2, T14: 3♠ 3♣ 3♠ as the last meld of a going-out turn: legal by default, illegal under ``never``."""
    default = _ready_to_go_out(DEFAULT_RULES, hand="3b 3b 3b")
    assert default.can_go_out_this_turn()
    _play(default, "meld 3b 3b 3b", "discard 4")
    assert default.end_reason == END_WENT_OUT
    assert default.side_meld_points(0) == 70 + 15  # black 3s melded count 5 each (R5.5)
    never = _ready_to_go_out(Rules(black_three_melds="never"), hand="3b 3b 3b")
    assert not never.can_go_out_this_turn()
    assert _refused(never, "meld 3b 3b 3b") == "R5.3"
    # Not going out: illegal under both.
    early = _ready_to_go_out(DEFAULT_RULES, hand="3b 3b 3b 5 6")
    assert _refused(early, "meld 3b 3b 3b") == "R5.3"


# --------------------------------------------------------------------------- R3.4, R5.2: black 3 freezing


def test_black_three_freezes_pile_true_after_a_discard_r5_2():
    """R5.2/D5: a discarded black 3 blocks while on top; with ``true`` it also freezes the pile (R8.2b)."""
    hands = {0: "3b 5", 1: "6 7", 2: "9 JK 8 8"}
    melds = {0: "K K K", 1: "Q Q Q"}
    for rules, frozen in ((DEFAULT_RULES, False), (Rules(black_three_freezes_pile=True), True)):
        state = _position(rules, hands=hands, melds=melds, pile="5 8", stock="4 9 10")
        _play(state, "draw", "discard 3b")
        assert state.is_pile_blocked()
        assert _refused(state, "take") == "R5.2"
        _play(state, "draw", "discard 9")  # seat 1 covers the black 3
        assert not state.is_pile_blocked()
        assert state.is_pile_frozen() is frozen
        if frozen:
            assert _refused(state, "take 9 JK") == "R8.2b"
        else:
            _play(state, "take 9 JK")
            assert state.melds[0][NINE] == [2, 1, 0]


def test_black_three_freezes_pile_true_as_upcard_r3_4():
    """R3.4: a black 3 upcard stays on top and blocks; it freezes the pile only with ``true``."""
    deck = _stacked_deck({}, dealer=0, after="3b 4 5 6")
    default = HandState.from_deck(DEFAULT_RULES, deck, dealer=0)
    assert default.pile == [BLACK_THREE] and default.is_pile_blocked() and not default.is_pile_frozen()
    frozen = HandState.from_deck(Rules(black_three_freezes_pile=True), deck, dealer=0)
    assert frozen.pile == [BLACK_THREE] and frozen.is_pile_blocked() and frozen.is_pile_frozen()


# --------------------------------------------------------------------------- R8.1a: which wild cards block


def test_blocking_wild_cards_joker_only_r8_1a():
    """R8.1a/D6: a deuce on top blocks by default; under ``joker_only`` it does not block, but still
    cannot be taken because no natural pair matches a wild card (R8.2a).  A joker blocks under both."""
    hands = {0: "2 2 9 9"}
    melds = {0: "K K K"}
    default = _position(hands=hands, melds=melds, pile="5 2")
    assert default.is_pile_blocked()
    assert _refused(default, "take 2 2") == "R8.1a"
    joker_only = _position(Rules(blocking_wild_cards="joker_only"), hands=hands, melds=melds, pile="5 2")
    assert not joker_only.is_pile_blocked()
    assert joker_only.is_pile_frozen()
    assert _refused(joker_only, "take 2 2") == "R8.2a"
    for rules in (DEFAULT_RULES, Rules(blocking_wild_cards="joker_only")):
        state = _position(rules, hands=hands, melds=melds, pile="5 JK")
        assert state.is_pile_blocked()
        assert _refused(state, "take") == "R8.1a"


# --------------------------------------------------------------------------- R3.5: dealt red 3s


def test_dealt_red_three_timing_first_turn_r3_5():
    """R3.5/D4: dealt red 3s are replaced right after the deal by default, at the owner's first turn
    with ``first_turn``; the stock cards therefore go to different players."""
    deck = _stacked_deck({2: "3r"}, dealer=0, after="8 K Q J 10")
    dealt_to_two = [CARD_KIND[deck[index]] for index in range(44) if (1 + index) % 4 == 2]
    after_deal = HandState.from_deck(DEFAULT_RULES, deck, dealer=0)
    assert after_deal.red_threes[2] == 1 and after_deal.hands[2][RED_THREE] == 0
    assert after_deal.hands[2][KING] == dealt_to_two.count(KING) + 1  # replaced by the first stock card
    _play(after_deal, "draw")
    assert after_deal.history[-1][2] and CARD_KIND[after_deal.history[-1][2][0]] == QUEEN  # seat 1 then draws Q

    first_turn = HandState.from_deck(Rules(dealt_red_three_timing="first_turn"), deck, dealer=0)
    assert first_turn.red_threes[2] == 0 and first_turn.hands[2][RED_THREE] == 1
    _play(first_turn, "draw")
    assert CARD_KIND[first_turn.history[-1][2][0]] == KING  # seat 1 draws K
    _play(first_turn, "discard K")
    # Seat 2's first turn begins: the red 3 is laid and replaced (by Q) before seat 2 draws.
    assert first_turn.seat == 2 and first_turn.red_threes[2] == 1 and first_turn.hands[2][RED_THREE] == 0
    assert first_turn.hands[2][QUEEN] == dealt_to_two.count(QUEEN) + 1
    assert len(first_turn.stock) == 64 - 1 - 1 - 1
    _play(first_turn, "draw")
    assert CARD_KIND[first_turn.history[-1][2][0]] == parse_kind("J")


# --------------------------------------------------------------------------- R8.2d: the one-card rule


def test_one_card_single_pile_block_false_r8_2d():
    """R8.2d/D15, X1: one card in hand and a one-card pile: refused by default, allowed with ``false``."""
    melds = {0: "9 9 9 9 9 9 9"}
    default = _position(hands={0: "Q"}, melds=melds, pile="9")
    assert _refused(default, "take") == "R8.2d"
    bigger = _position(hands={0: "Q"}, melds=melds, pile="5 9")
    _play(bigger, "take")  # a pile of two cards is fine
    loose = _position(Rules(one_card_single_pile_block=False), hands={0: "Q"}, melds=melds, pile="9")
    _play(loose, "take", "discard Q")
    assert loose.end_reason == END_WENT_OUT


# --------------------------------------------------------------------------- R10.7, R12.6: concealment


def test_concealed_exempt_from_minimum_false_r10_7():
    """R10.7/D19: going out concealed after drawing needs no minimum by default; with ``false`` it does."""
    hands = {0: "7 7 7 7 7 7 7 4 4 4 4"}  # 55 points, far below the 120 needed at 3000
    default = _play(_position(hands=hands, stock="9", scores=(3000, 0), melded_seats=()), "draw")
    assert default.requirement(0) == 120 and default.can_go_out_this_turn()
    _play(default, "meld 7 7 7 7 7 7 7; 4 4 4 4", "discard 9")
    assert default.end_reason == END_WENT_OUT and default.went_out_concealed
    strict = Rules(concealed_exempt_from_minimum=False)
    state = _play(_position(strict, hands=hands, stock="9", scores=(3000, 0), melded_seats=()), "draw")
    assert not state.can_go_out_this_turn()
    assert _refused(state, "meld 7 7 7 7 7 7 7; 4 4 4 4") == "R10.2"
    # The exemption never covers a pile take: R8.2e still applies (D19).
    take = _position(hands={0: "7 7 7 7 7 7 4 4 4 4"}, pile="5 7", scores=(3000, 0), melded_seats=())
    assert _refused(take, "take 7 7 7 7 7 7") == "R8.2e"


def test_concealed_allows_pile_take_false_r12_6():
    """R12.6: going out in the turn the player took the pile, melding nothing earlier, is concealed by
    default (200) and not concealed (100) with ``concealed_allows_pile_take=false``."""
    for rules, concealed, bonus in ((DEFAULT_RULES, True, 200), (Rules(concealed_allows_pile_take=False), False, 100)):
        state = _position(rules, hands={0: "K K K K K K Q Q Q 4"}, melds={0: "8 8 8"}, pile="Q K", melded_seats=(2,))
        _play(state, "take K K K K K K", "meld Q Q Q Q", "discard 4")
        assert state.end_reason == END_WENT_OUT
        assert state.went_out_concealed is concealed
        assert score_hand(state).sides[0].going_out_bonus == bonus


# --------------------------------------------------------------------------- R13.3: empty stock


def test_stock_exhausted_rule_strict_ends_the_hand_at_once_r13_3():
    """R13.3: after the last stock card, ``seed`` lets the next player try the pile; ``strict`` ends the hand."""
    hands = {0: "5 6", 1: "9 9 J 5 6"}
    melds = {1: "Q Q Q"}
    seed = _play(_position(hands=hands, melds=melds, stock="9", rest_to=3), "draw", "discard 9")
    assert seed.phase == ACQUIRE and seed.seat == 1 and not seed.stock
    assert _refused(seed, "draw") == "R13.3"
    _play(seed, "take 9 9")  # seed mode: the pile may still be taken
    assert seed.phase == PLAY
    strict = _play(
        _position(Rules(stock_exhausted_rule="strict"), hands=hands, melds=melds, stock="9", rest_to=3),
        "draw",
        "discard 9",
    )
    assert strict.phase == OVER and strict.end_reason == END_STOCK_EXHAUSTED
    assert score_hand(strict).sides[0].going_out_bonus == 0  # R13.4


def test_stock_exhausted_rule_official_forces_a_lay_off_take_r13_3():
    """R13.3/D7, X3: on an empty stock ``seed`` lets the player stop; ``official`` forces the take when
    the top card of an unfrozen pile fits a meld of the side.  A take with a pair stays optional,
    a frozen pile is never forced, and R8.2d still overrides."""
    melds = {1: "9 9 9"}
    seed = _position(hands={1: "Q J"}, melds=melds, pile="5 9", seat=1, rest_to=3)
    assert not seed.stock and seed.can_stop()
    _play(seed, "stop")
    assert seed.end_reason == END_STOCK_EXHAUSTED
    official = Rules(stock_exhausted_rule="official")
    forced = _position(official, hands={1: "Q J"}, melds=melds, pile="5 9", seat=1, rest_to=3)
    assert forced.must_take_pile()
    assert _refused(forced, "stop") == "R13.3"
    _play(forced, "take", "discard Q")
    assert forced.seat == 2 and forced.phase == ACQUIRE  # play continues on the empty stock
    pair_only = _position(official, hands={1: "K K J"}, melds=melds, pile="5 K", seat=1, rest_to=3)
    assert pair_only.can_take_pile(parse_move("take K K")) and pair_only.can_stop()
    frozen = _position(official, hands={1: "Q J"}, melds=melds, pile="2 5 9", seat=1, rest_to=3)
    assert frozen.can_stop()
    one_card = _position(official, hands={1: "Q"}, melds={1: "9 9 9 9 9 9 9"}, pile="9", seat=1, rest_to=3)
    assert one_card.can_stop()


# --------------------------------------------------------------------------- R13.1: red 3 as last card


def test_last_card_red_three_meld_no_discard_r13_1():
    """R13.1/D14, X2: a red 3 drawn as the last stock card ends the hand at once by default; with
    ``meld_no_discard`` the player may still meld but not discard, then the hand ends."""
    hands = {0: "9 5 6 Q"}
    melds = {0: "9 9 9"}
    default = _play(_position(hands=hands, melds=melds, stock="3r", rest_to=3), "draw")
    assert default.phase == OVER and default.end_reason == END_RED_THREE_LAST_CARD
    assert default.red_threes[0] == 1
    result = score_hand(default)
    assert result.sides[0].red_three_bonus == 100 and result.sides[0].going_out_bonus == 0
    britannica = Rules(last_card_red_three="meld_no_discard")
    state = _play(_position(britannica, hands=hands, melds=melds, stock="3r", rest_to=3), "draw")
    assert state.phase == PLAY and state.red_threes[0] == 1
    assert _refused(state, "discard 5") == "R13.1"
    assert _refused(state, "ask") == "R12.5"
    _play(state, "meld 9")
    assert state.melds[0][NINE] == [4, 0, 0]
    _play(state, "stop")
    assert state.phase == OVER and state.end_reason == END_RED_THREE_LAST_CARD
    assert score_hand(state).sides[0].meld_points == 40


def test_last_card_red_three_meld_no_discard_going_out_plan_r13_1():
    """R13.1 ``meld_no_discard`` with E4: no discard is allowed, so only melding every card goes out,
    and the going-out search (R12.5) must say so rather than plan a discard."""
    britannica = Rules(last_card_red_three="meld_no_discard")
    melds = {0: "K K K K K K K"}
    whole = _play(_position(britannica, hands={0: "Q Q Q"}, melds=melds, stock="3r", rest_to=3), "draw")
    assert whole.going_out_plan() == ((MeldGroup.of(QUEEN, 3),), None)
    _play(whole, "meld Q Q Q")
    assert whole.end_reason == END_WENT_OUT
    spare = _play(_position(britannica, hands={0: "Q Q Q 5"}, melds=melds, stock="3r", rest_to=3), "draw")
    assert not spare.can_go_out_this_turn()  # the 5 could not be discarded
    _play(spare, "meld Q Q Q", "stop")
    assert spare.end_reason == END_RED_THREE_LAST_CARD


# --------------------------------------------------------------------------- R12.2: going out without discard


def test_going_out_without_discard_only_if_hand_holds_canasta_r12_2():
    """R12.2/D9: melding every card with no discard needs only the side's canasta by default; the
    seed-002 reading also needs a whole canasta laid from the hand this turn."""
    melds = {0: "K K K K K K K"}
    default = _play(_position(hands={0: "Q Q"}, melds=melds, stock="Q"), "draw")
    assert default.can_go_out_this_turn()
    _play(default, "meld Q Q Q")
    assert default.end_reason == END_WENT_OUT
    literal = Rules(going_out_without_discard="only_if_hand_holds_canasta")
    state = _play(_position(literal, hands={0: "Q Q"}, melds=melds, stock="Q"), "draw")
    assert not state.can_go_out_this_turn()
    assert _refused(state, "meld Q Q Q") == "R12.2"
    # Going out with a final discard is unaffected.
    with_discard = _play(_position(literal, hands={0: "Q Q Q"}, melds=melds, stock="4"), "draw")
    _play(with_discard, "meld Q Q Q", "discard 4")
    assert with_discard.end_reason == END_WENT_OUT
    whole = _play(_position(literal, hands={0: "Q Q Q Q Q Q"}, melds=melds, stock="Q"), "draw")
    _play(whole, "meld Q Q Q Q Q Q Q")
    assert whole.end_reason == END_WENT_OUT


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
    """R15.1 under every alternative: games by greedy and random players end at the target, and each
    hand keeps the score identity (R14.1) and R12.1's canastas for the side that went out."""
    rules = Rules.from_mapping({"target_score": "1500", **options})
    for seed, players in ((1, [Greedy, RandomPlay, Greedy, RandomPlay]), (2, [RandomPlay, Greedy, RandomPlay, Greedy])):
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
    state = _position(hands=hands, melds={0: side_a, 1: "9 9 9 JK; Q Q Q Q"}, red_threes={0: 1, 2: 1, 1: 1}, stock="4")
    _play(state, "draw", "meld 6 6 6", "discard 4")
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
    state = _position(hands=unmelded, melds={0: side_a}, red_threes={0: 1, 2: 1, 1: 1}, stock="4")
    _play(state, "draw", "meld 6 6 6", "discard 4")
    assert score_hand(state).sides[1].score == -325


def test_docs_list_every_option_and_decision():
    """docs/rules.md lists every rule-set key (§17) and every decision D1-D19 (§18)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    for field in dataclasses.fields(Rules):
        assert f"| `{field.name}` |" in text, field.name
    for number in range(1, 20):
        assert f"| D{number} |" in text, number


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
        texts, accepted = ["maybe", "2"], ["true or false"]
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
