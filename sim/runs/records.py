"""Turning finished games into rows of the two output tables, ``games`` and ``hands``.

The schemas below are the contract analysts build on; ``docs/output.md``
documents every column (meaning, type, unit).  A :class:`ChunkRecorder`
collects the rows of one chunk of games column by column and hands them over
as two :class:`pyarrow.Table` objects with exactly these schemas.

Side A is seats 0 and 2, side B seats 1 and 3 (R1.1); ``team`` columns hold
``'A'`` or ``'B'``.
"""

from __future__ import annotations

import pyarrow as pa

from canasta_sim.core.engine import GameResult
from canasta_sim.errors import StrategyError

__all__ = [
    "GAME_SCHEMA",
    "HAND_SCHEMA",
    "TEAM_NAMES",
    "ChunkRecorder",
]

TEAM_NAMES = ("A", "B")
"""Team letters by side index (0 = seats 0 and 2, 1 = seats 1 and 3)."""

GAME_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("seed", pa.uint64()),
        ("deal_id", pa.int64()),
        ("team_a_strategy", pa.string()),
        ("team_b_strategy", pa.string()),
        ("score_a", pa.int32()),
        ("score_b", pa.int32()),
        ("winner", pa.string()),
        ("winner_strategy", pa.string()),
        ("margin", pa.int32()),
        ("hands", pa.int32()),
        ("termination", pa.string()),
        ("first_dealer", pa.int8()),
        ("forfeit_team", pa.string()),
        ("error", pa.string()),
        ("forfeit_reason", pa.string()),
    ]
)
"""One row per game."""

# Per-side figures copied from SideHandResult under the same name, in output order.
_SIDE_FIELDS = (
    "initial_requirement",
    "meld_points",
    "hand_penalty",
    "canasta_natural",
    "canasta_mixed",
    "canasta_bonus",
    "red_threes",
    "red_three_bonus",
    "went_out",
    "concealed",
    "going_out_bonus",
    "melded",
    "pile_takes",
    "pile_cards_taken",
    "frozen_pile_takes",
    "pile_freezes",
    "turns",
)
_BOOL_FIELDS = frozenset({"went_out", "concealed", "melded"})

HAND_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("hand_no", pa.int32()),
        ("team", pa.string()),
        ("strategy", pa.string()),
        ("opponent_strategy", pa.string()),
        ("score", pa.int32()),
        ("cumulative_score", pa.int32()),
        *[(name, pa.bool_() if name in _BOOL_FIELDS else pa.int32()) for name in _SIDE_FIELDS],
        ("end_reason", pa.string()),
        ("dealer", pa.int8()),
        ("went_out_seat", pa.int8()),
        ("hand_turns", pa.int32()),
        # Answers common questions without self-joins: the other side's hand, the game's result, each partner.
        ("opponent_score", pa.int32()),
        ("opponent_cumulative_score", pa.int32()),
        ("won_hand", pa.bool_()),
        ("game_winner", pa.string()),
        ("won_game", pa.bool_()),
        ("first_seat_cards_left", pa.int32()),
        ("second_seat_cards_left", pa.int32()),
    ]
)
"""One row per team per hand."""


class ChunkRecorder:
    """Collects the rows of consecutive games, column by column, for one Parquet part of each table."""

    __slots__ = ("_games", "_hands")

    def __init__(self) -> None:
        self._games: dict[str, list] = {name: [] for name in GAME_SCHEMA.names}
        self._hands: dict[str, list] = {name: [] for name in HAND_SCHEMA.names}

    @property
    def game_count(self) -> int:
        """Games recorded so far."""
        return len(self._games["game_id"])

    def add_game(
        self, game_id: int, result: GameResult, strategies: tuple[str, str], deal_id: int | None = None
    ) -> None:
        """Record a finished game; ``strategies`` are the specs playing side A and side B.

        :param deal_id: the game's deal (:func:`canasta_sim.runs.matchmaking.deal_of`); ``game_id`` when not given.
        """
        score_a, score_b = result.scores
        winner = "draw" if result.winner is None else TEAM_NAMES[result.winner]
        winner_strategy = None if result.winner is None else strategies[result.winner]
        self._add_game_row(
            game_id, result.seed, game_id if deal_id is None else deal_id, strategies, score_a, score_b, winner,
            winner_strategy, len(result.hands), result.termination, result.first_dealer, None, None, None,
        )
        self._add_hand_rows(game_id, result.hands, strategies, winner)

    def add_forfeit(
        self, game_id: int, seed: int, strategies: tuple[str, str], error: StrategyError, deal_id: int | None = None
    ) -> None:
        """Record a game stopped by a failing strategy: the failing side forfeits, the other side wins.

        The hands finished before the failure are recorded as usual; the game's scores are the totals
        they reached (0 before the first hand ends).
        """
        failing = error.seat % 2
        winning = 1 - failing
        finished = error.finished_hands
        score_a, score_b = finished[-1].totals_after if finished else (0, 0)
        first_dealer = -1 if error.first_dealer is None else error.first_dealer
        self._add_game_row(
            game_id, seed, game_id if deal_id is None else deal_id, strategies, score_a, score_b,
            TEAM_NAMES[winning], strategies[winning], len(finished), "forfeit", first_dealer,
            TEAM_NAMES[failing], str(error), error.reason,
        )
        self._add_hand_rows(game_id, finished, strategies, TEAM_NAMES[winning])

    def _add_hand_rows(self, game_id: int, finished, strategies: tuple[str, str], game_winner: str) -> None:
        hands = self._hands
        for hand in finished:
            went_out_seat = -1 if hand.went_out_seat is None else hand.went_out_seat
            for side in hand.sides:
                index = side.side
                hands["game_id"].append(game_id)
                hands["hand_no"].append(hand.hand_number)
                hands["team"].append(TEAM_NAMES[index])
                hands["strategy"].append(strategies[index])
                hands["opponent_strategy"].append(strategies[1 - index])
                hands["score"].append(side.score)
                hands["cumulative_score"].append(hand.totals_after[index])
                for name in _SIDE_FIELDS:
                    hands[name].append(getattr(side, name))
                hands["end_reason"].append(hand.end_reason)
                hands["dealer"].append(hand.dealer)
                hands["went_out_seat"].append(went_out_seat)
                hands["hand_turns"].append(hand.turns)
                opponent = hand.sides[1 - index]
                hands["opponent_score"].append(opponent.score)
                hands["opponent_cumulative_score"].append(hand.totals_after[1 - index])
                hands["won_hand"].append(side.score > opponent.score)
                hands["game_winner"].append(game_winner)
                hands["won_game"].append(game_winner == TEAM_NAMES[index])
                hands["first_seat_cards_left"].append(side.cards_left[0])
                hands["second_seat_cards_left"].append(side.cards_left[1])

    def _add_game_row(
        self, game_id, seed, deal_id, strategies, score_a, score_b, winner, winner_strategy,
        hand_count, termination, first_dealer, forfeit_team, error, forfeit_reason,
    ) -> None:
        values = (
            game_id, seed, deal_id, strategies[0], strategies[1], score_a, score_b, winner, winner_strategy,
            score_a - score_b, hand_count, termination, first_dealer, forfeit_team, error, forfeit_reason,
        )
        for name, value in zip(GAME_SCHEMA.names, values, strict=True):
            self._games[name].append(value)

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """Return the ``games`` and ``hands`` tables of everything recorded."""
        return (
            pa.Table.from_pydict(self._games, schema=GAME_SCHEMA),
            pa.Table.from_pydict(self._hands, schema=HAND_SCHEMA),
        )
