"""Turning finished games into rows of the two output tables, ``games`` and ``hands``.

The schemas below are the contract analysts build on; ``docs/output.md``
documents every column (meaning, type, unit).  A :class:`ChunkRecorder`
collects the rows of one chunk of games column by column and hands them over
as two :class:`pyarrow.Table` objects with exactly these schemas.

Side A is seats 0 and 2, side B seats 1 and 3 (R1.1); ``team`` columns hold
``'A'`` or ``'B'``.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from typing import NamedTuple

import pyarrow as pa

from canasta_sim.core.engine import GameResult
from canasta_sim.errors import StrategyError

__all__ = [
    "GAME_SCHEMA",
    "HAND_SCHEMA",
    "TEAM_NAMES",
    "ChunkRecorder",
    "GameRows",
    "game_rows",
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

_game_id = itemgetter(0)  # the first field of a game row and of a hand row

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


_side_values = attrgetter(*_SIDE_FIELDS)


class GameRows(NamedTuple):
    """A finished game as the rows it adds, in schema order: what a worker sends for each game it plays.

    Plain tuples of numbers and strings cost a fraction of the game's result objects to pickle and unpickle, and
    the process writing the tables only appends them (:meth:`ChunkRecorder.add_rows`)."""

    game: tuple
    """The game's ``games`` row."""
    hands: tuple[tuple, ...]
    """Its ``hands`` rows, two per hand."""
    winner: int | None
    """As :attr:`GameResult.winner <canasta_sim.core.engine.GameResult.winner>`: 0 (A), 1 (B) or ``None``."""


def game_rows(game_id: int, result: GameResult, strategies: tuple[str, str], deal_id: int | None = None) -> GameRows:
    """The rows of a finished game; ``strategies`` are the specs playing side A and side B.

    :param deal_id: the game's deal (:func:`canasta_sim.runs.matchmaking.deal_of`); ``game_id`` when not given.
    """
    score_a, score_b = result.scores
    winner = "draw" if result.winner is None else TEAM_NAMES[result.winner]
    winner_strategy = None if result.winner is None else strategies[result.winner]
    row = (game_id, result.seed, game_id if deal_id is None else deal_id, strategies[0], strategies[1], score_a,
           score_b, winner, winner_strategy, score_a - score_b, len(result.hands), result.termination,
           result.first_dealer, None, None, None)
    return GameRows(row, _hand_rows(game_id, result.hands, strategies, winner), result.winner)


def _hand_rows(game_id: int, finished, strategies: tuple[str, str], game_winner: str) -> tuple[tuple, ...]:
    rows = []
    for hand in finished:
        went_out_seat = -1 if hand.went_out_seat is None else hand.went_out_seat
        sides = hand.sides
        totals = hand.totals_after
        for side in sides:
            index = side.side
            opponent = sides[1 - index]
            cards_left = side.cards_left
            rows.append((
                game_id, hand.hand_number, TEAM_NAMES[index], strategies[index], strategies[1 - index], side.score,
                totals[index], *_side_values(side), hand.end_reason, hand.dealer, went_out_seat, hand.turns,
                opponent.score, totals[1 - index], side.score > opponent.score, game_winner,
                game_winner == TEAM_NAMES[index], cards_left[0], cards_left[1],
            ))
    return tuple(rows)


class ChunkRecorder:
    """Collects the rows of consecutive games for one Parquet part of each table."""

    __slots__ = ("_games", "_hands")

    def __init__(self) -> None:
        self._games: list[tuple] = []
        self._hands: list[tuple] = []

    @property
    def game_count(self) -> int:
        """Games recorded so far."""
        return len(self._games)

    def add_game(
        self, game_id: int, result: GameResult, strategies: tuple[str, str], deal_id: int | None = None
    ) -> None:
        """Record a finished game; ``strategies`` are the specs playing side A and side B.

        :param deal_id: the game's deal (:func:`canasta_sim.runs.matchmaking.deal_of`); ``game_id`` when not given.
        """
        self.add_rows(game_rows(game_id, result, strategies, deal_id))

    def add_rows(self, rows: GameRows) -> None:
        """Record a finished game from its rows (:func:`game_rows`)."""
        self._games.append(rows.game)
        self._hands.extend(rows.hands)

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
        self._games.append((
            game_id, seed, game_id if deal_id is None else deal_id, strategies[0], strategies[1], score_a, score_b,
            TEAM_NAMES[winning], strategies[winning], score_a - score_b, len(finished), "forfeit", first_dealer,
            TEAM_NAMES[failing], str(error), error.reason,
        ))
        self._hands.extend(_hand_rows(game_id, finished, strategies, TEAM_NAMES[winning]))

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """Return the ``games`` and ``hands`` tables of everything recorded, in game order whatever order the games
        came in (each game's hands in their order)."""
        # Stable sorts on the game id, the first field of both rows: linear on rows already in order.
        self._games.sort(key=_game_id)
        self._hands.sort(key=_game_id)
        return _table(self._games, GAME_SCHEMA), _table(self._hands, HAND_SCHEMA)


def _table(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    # Rows to columns in one transposition (C-level), then one typed array per column.
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    arrays = [pa.array(column, type=field.type) for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)
