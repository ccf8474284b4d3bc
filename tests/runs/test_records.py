"""Rows of the output tables as a worker sends them: a game's ``hands`` rows packed as numbers, turned into the
``hands`` table by the process writing the parts (docs/output.md)."""

import random

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import HandResult
from canasta_sim.runs.records import END_REASONS, HAND_SCHEMA, TEAM_NAMES, ChunkRecorder, game_rows, unpack_hands
from canasta_sim.strategies import Greedy, RandomPlay

QUICK = Rules(target_score=1000)
PAIRS = [("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]  # a mirror match among them


def played(game_ids):
    return {game_id: play_game([Greedy, RandomPlay, Greedy, RandomPlay], seed=game_id, rules=QUICK)
            for game_id in game_ids}


def expected_hand_rows(game_id, result, strategies):
    """The hands rows of one game, derived here from its result field by field (docs/output.md)."""
    winner = "draw" if result.winner is None else TEAM_NAMES[result.winner]
    rows = []
    for hand in result.hands:
        for side in hand.sides:
            index = side.side
            rows.append({
                "game_id": game_id, "hand_no": hand.hand_number, "team": TEAM_NAMES[index],
                "strategy": strategies[index], "opponent_strategy": strategies[1 - index], "score": side.score,
                "cumulative_score": hand.totals_after[index], "hand_penalty": side.hand_penalty,
                "went_out": side.went_out, "end_reason": hand.end_reason, "dealer": hand.dealer,
                "went_out_seat": -1 if hand.went_out_seat is None else hand.went_out_seat,
                "opponent_score": hand.sides[1 - index].score, "game_winner": winner,
                "won_game": winner == TEAM_NAMES[index], "first_seat_cards_left": side.cards_left[0],
            })
    return rows


def test_each_hands_row_names_the_strategies_and_winner_of_its_own_game_in_a_mixed_chunk():
    # A tournament's chunk holds games of several pairings, a mirror among them: every row's strategies and
    # game winner come from its own game.
    results = played(range(9))
    recorder = ChunkRecorder()
    for game_id, result in results.items():
        recorder.add_game(game_id, result, PAIRS[game_id % 3])
    _, hands = recorder.tables()
    expected = [row for game_id, result in results.items()
                for row in expected_hand_rows(game_id, result, PAIRS[game_id % 3])]
    table = hands.select(list(expected[0])).to_pylist()
    assert table == expected
    assert {row["game_winner"] for row in table} >= {"A", "B"}  # both winners occur: the check compares something


def test_hands_are_in_game_order_whatever_order_the_games_came_in():
    results = played(range(12))
    in_order, shuffled = ChunkRecorder(), ChunkRecorder()
    for game_id, result in results.items():
        in_order.add_game(game_id, result, PAIRS[game_id % 3])
    arrival = list(results)
    random.Random(4).shuffle(arrival)
    assert arrival != sorted(arrival)
    for game_id in arrival:
        shuffled.add_game(game_id, results[game_id], PAIRS[game_id % 3])
    expected_games, expected_hands = in_order.tables()
    games, hands = shuffled.tables()
    assert games.equals(expected_games) and hands.equals(expected_hands)
    keys = list(zip(*(hands[name].to_pylist() for name in ("game_id", "hand_no", "team")), strict=True))
    assert keys == sorted(keys)


def test_packed_rows_hold_the_numbers_of_the_hands_table():
    result = played([3])[3]
    rows = game_rows(3, result, ("greedy", "random"))
    recorder = ChunkRecorder()
    recorder.add_rows(rows)
    table = recorder.tables()[1].to_pylist()
    unpacked = unpack_hands(rows.hands)
    assert len(unpacked) == len(table) == 2 * len(result.hands)
    text = {"team", "strategy", "opponent_strategy", "game_winner", "won_game", "end_reason"}
    numbers = [field.name for field in HAND_SCHEMA if field.name not in text]
    # A packed row: the table's numbers in schema order, with the side's index after hand_no (for team) and the
    # end reason's code after the side's figures (for end_reason).
    side_at, reason_at = 2, 5 + 17
    for packed, row in zip(unpacked, table, strict=True):
        assert TEAM_NAMES[packed[side_at]] == row["team"] and END_REASONS[packed[reason_at]] == row["end_reason"]
        assert [value for index, value in enumerate(packed) if index not in (side_at, reason_at)] == [
            row[name] for name in numbers]


def test_an_end_reason_outside_the_rules_is_refused_naming_the_accepted_ones():
    result = played([1])[1]
    hand = result.hands[0]
    odd = HandResult(hand.hand_number, hand.dealer, "teatime", hand.turns, hand.went_out_seat, hand.sides,
                     hand.totals_after)
    result = type(result)(result.seed, result.scores, result.winner, result.termination, result.first_dealer,
                          (odd, *result.hands[1:]))
    with pytest.raises(ValueError, match="ended with 'teatime', not one of went_out, stock_exhausted"):
        game_rows(1, result, ("greedy", "random"))


def test_hands_rows_of_a_game_without_its_games_row_are_refused():
    results = played([1, 2])
    first, second = (game_rows(game_id, result, ("greedy", "random")) for game_id, result in results.items())
    recorder = ChunkRecorder()
    recorder.add_rows(first._replace(hands=second.hands))  # game 1's row with game 2's hands
    with pytest.raises(ValueError, match="hands rows of a game that has no games row"):
        recorder.tables()
