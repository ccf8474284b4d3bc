"""Rule-set options that change the score and the game's end (docs/rules.md §17): each against its default.

The target and the tie rule (R15), the canasta and going-out bonuses (R11.2, R14.1c) and the red 3s' values
(R14.1d), each shown on a constructed position or a whole game, citing the rule it changes.
"""

from __future__ import annotations

from canasta_sim.core import engine
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.state import (
    END_WENT_OUT,
    HandState,
)
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.random_play import RandomPlay
from tests.rules.option_positions import bare_position, play_moves

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


# --------------------------------------------------------------------------- R11.2, R14.1c: bonuses


def _going_out_hand(rules: Rules, *, side_one: str = "", red_threes: dict[int, int] | None = None, hands=None):
    """Seat 0 melds 9 9 9 and discards 4 to go out; side A holds a mixed queen canasta."""
    all_hands = {0: "9 9 9", 1: "5", 2: "6", 3: "8"}
    all_hands.update(hands or {})
    melds = {0: "Q Q Q Q Q Q JK"}
    if side_one:
        melds[1] = side_one
    state = bare_position(rules, hands=all_hands, melds=melds, stock="4", red_threes=red_threes)
    play_moves(state, "draw", "meld 9 9 9", "discard 4")
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
    state = bare_position(rules, hands={0: "Q Q Q Q Q Q 2 5 5 5 5", 2: "K K 7"}, stock="9", melded_seats=())
    play_moves(state, "draw", "meld Q Q Q Q Q Q 2; 5 5 5 5", "discard 9")
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


