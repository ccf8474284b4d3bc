"""The ``hands`` columns that answer common questions without self-joins, checked against
the joins they replace and against the engine's own hand state."""

import pandas as pd

from canasta_sim.core.engine import play_game
from canasta_sim.core.phases import OVER
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import score_hand
from canasta_sim.runs.records import TEAM_NAMES, ChunkRecorder
from canasta_sim.strategies import Greedy, RandomPlay
from tests.helpers import position, recorded_chunk

QUICK = Rules(target_score=1000)


def recorded(game_ids) -> tuple[pd.DataFrame, pd.DataFrame]:
    games, hands = recorded_chunk(game_ids)
    return games.to_pandas(), hands.to_pandas()


def test_opponent_and_game_columns_equal_the_self_join_and_the_merge_they_replace():
    games, hands = recorded(range(8))
    other = hands[["game_id", "hand_no", "team", "score", "cumulative_score"]].copy()
    other["team"] = other["team"].map({"A": "B", "B": "A"})
    joined = hands.merge(other, on=["game_id", "hand_no", "team"], suffixes=("", "_other"), validate="one_to_one")
    assert (joined.opponent_score == joined.score_other).all()
    assert (joined.opponent_cumulative_score == joined.cumulative_score_other).all()
    assert (joined.won_hand == (joined.score > joined.score_other)).all()
    merged = hands.merge(games[["game_id", "winner"]], on="game_id", validate="many_to_one")
    assert (merged.game_winner == merged.winner).all()
    assert (merged.won_game == (merged.winner == merged.team)).all()
    # Both outcomes occur in these games, so the checks above compare something.
    assert hands.won_hand.any() and (~hands.won_hand).any() and hands.won_game.any() and (~hands.won_game).any()


def test_cards_left_by_seat_are_the_partners_hands_at_the_end_and_zero_for_who_went_out():
    _, hands = recorded(range(8))
    went_out = hands[hands.went_out_seat >= 0]
    own_first = went_out.went_out_seat == went_out.team.map({"A": 0, "B": 1})
    own_second = went_out.went_out_seat == went_out.team.map({"A": 2, "B": 3})
    assert (went_out[own_first].first_seat_cards_left == 0).all()
    assert (went_out[own_second].second_seat_cards_left == 0).all()
    # No cards left means no penalty (R14.1e); a penalty means some card was left.
    empty = (hands.first_seat_cards_left + hands.second_seat_cards_left) == 0
    assert (hands[empty].hand_penalty == 0).all() and (hands[~empty].hand_penalty > 0).all()


def test_cards_left_count_each_seats_hand_in_the_scored_state():
    state = position(hands={0: "4 5 6", 1: "7", 2: "8 8", 3: "9 9 9 9"})
    state.phase, state.end_reason = OVER, "stock_exhausted"  # ended by the stock running out (R13.3)
    result = score_hand(state)
    assert result.sides[0].cards_left == (3, 2) and result.sides[1].cards_left == (1, 4)


def test_the_api_winner_index_and_the_tables_winner_letter_name_the_same_side():
    # GameResult.winner is 0, 1 or None; the tables spell it 'A', 'B', 'draw' (docs/output.md, Conventions).
    recorder = ChunkRecorder()
    results = [play_game([Greedy, RandomPlay, Greedy, RandomPlay], seed=seed, rules=QUICK) for seed in range(12)]
    for game_id, result in enumerate(results):
        recorder.add_game(game_id, result, ("greedy", "random"))
    games = recorder.tables()[0].to_pandas()
    expected = ["draw" if result.winner is None else TEAM_NAMES[result.winner] for result in results]
    assert games.winner.tolist() == expected
    assert {result.winner for result in results} == {0, 1}
    for result, letter in zip(results, expected, strict=True):
        assert result.scores[result.winner] == max(result.scores) and letter == "AB"[result.winner]


def test_hand_results_cross_a_pickle_whole_field_by_field():
    # Results travel from worker to parent pickled; HandResult and SideHandResult pickle as their
    # constructor's arguments, which must name every field, those added later included.
    import pickle

    result = play_game([Greedy, RandomPlay, Greedy, RandomPlay], seed=3, rules=QUICK)
    copied = pickle.loads(pickle.dumps(result))
    assert copied == result and copied is not result
    for hand, hand_copy in zip(result.hands, copied.hands, strict=True):
        for value in (hand, *hand.sides):
            fields = [getattr(value, name) for name in value.FIELDS]
            assert list(value.__reduce__()[1]) == fields
        assert [side.values() for side in hand_copy.sides] == [side.values() for side in hand.sides]
