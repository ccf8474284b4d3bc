"""Turning finished games into rows of the two output tables, ``games`` and ``hands``.

The schemas below are the contract analysts build on; ``docs/output.md``
documents every column (meaning, type, unit).  A :class:`ChunkRecorder`
collects the rows of one chunk of games column by column and hands them over
as two :class:`pyarrow.Table` objects with exactly these schemas.

Side A is seats 0 and 2, side B seats 1 and 3 (R1.1); ``team`` columns hold
``'A'`` or ``'B'``.
"""

from __future__ import annotations

import struct
from operator import attrgetter, itemgetter
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from canasta_sim.core.engine import GameResult
from canasta_sim.core.phases import END_RED_THREE_LAST_CARD, END_STOCK_EXHAUSTED, END_TURN_CAP, END_WENT_OUT
from canasta_sim.errors import StrategyError

__all__ = [
    "END_REASONS",
    "GAME_SCHEMA",
    "HAND_SCHEMA",
    "TEAM_NAMES",
    "ChunkRecorder",
    "GameRows",
    "game_rows",
    "unpack_hands",
]

TEAM_NAMES = ("A", "B")
"""Team letters by side index (0 = seats 0 and 2, 1 = seats 1 and 3)."""


def _schema(columns: list[tuple[str, pa.DataType]], nullable: frozenset[str] = frozenset()) -> pa.Schema:
    # Only the columns that can hold nulls are declared nullable, so that a reader's schema (DuckDB's DESCRIBE, R's
    # arrow, pyarrow.parquet.read_schema) tells an analyst which columns a query must guard against missing values.
    return pa.schema([pa.field(name, kind, nullable=name in nullable) for name, kind in columns])


GAME_SCHEMA = _schema(
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
    ],
    # A draw has no winning strategy; a game not forfeited, no forfeit.
    nullable=frozenset({"winner_strategy", "forfeit_team", "error", "forfeit_reason"}),
)
"""One row per game; only ``winner_strategy``, ``forfeit_team``, ``error`` and ``forfeit_reason`` are nullable."""

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

HAND_SCHEMA = _schema(
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
"""One row per team per hand; no column is nullable."""


_side_values = attrgetter(*_SIDE_FIELDS)

END_REASONS = (END_WENT_OUT, END_STOCK_EXHAUSTED, END_RED_THREE_LAST_CARD, END_TURN_CAP)
"""Every ``end_reason`` of a hand, in the order of their codes in packed ``hands`` rows."""
_END_CODES = {reason: code for code, reason in enumerate(END_REASONS)}

# A ``hands`` row travels from the worker that played its game as C numbers (struct, standard sizes, no padding),
# the numbers of its schema columns in order, its text columns as codes or left out: ``team`` is the side's
# index, ``end_reason`` a code of END_REASONS, and the strategies and the game's winner are the game row's.  The
# process writing the tables then takes a chunk's hands as one numpy record array, each column a view of it,
# instead of unpickling a tuple a row and converting each value to Arrow (most of its CPU per game).
_PACKED_HANDS = [
    ("game_id", "q"), ("hand_no", "i"), ("side", "B"), ("score", "i"), ("cumulative_score", "i"),
    *[(name, "?" if name in _BOOL_FIELDS else "i") for name in _SIDE_FIELDS],
    ("end_reason", "B"), ("dealer", "b"), ("went_out_seat", "b"), ("hand_turns", "i"), ("opponent_score", "i"),
    ("opponent_cumulative_score", "i"), ("won_hand", "?"), ("first_seat_cards_left", "i"),
    ("second_seat_cards_left", "i"),
]
_HAND_ROW = struct.Struct("=" + "".join(code for _, code in _PACKED_HANDS))
_HAND_DTYPE = np.dtype([(name, "=" + code) for name, code in _PACKED_HANDS])
if _HAND_DTYPE.itemsize != _HAND_ROW.size:  # numpy and struct must lay a row out alike, byte for byte
    raise ImportError(f"a packed hands row is {_HAND_ROW.size} bytes for struct and {_HAND_DTYPE.itemsize} for numpy")


class GameRows(NamedTuple):
    """A finished game as the rows it adds: what a worker sends for each game it plays.

    The game's row is a plain tuple, its hands' rows packed (see :func:`game_rows`): both cost a fraction of the
    game's result objects to pickle and unpickle, and the process writing the tables only appends them
    (:meth:`ChunkRecorder.add_rows`)."""

    game: tuple
    """The game's ``games`` row, in schema order."""
    hands: bytes
    """Its ``hands`` rows, two per hand, packed as C numbers (read them with :func:`unpack_hands`)."""
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
    return GameRows(row, _hand_rows(game_id, result.hands), result.winner)


def _hand_rows(game_id: int, finished) -> bytes:
    pack = _HAND_ROW.pack
    rows = []
    for hand in finished:
        went_out_seat = -1 if hand.went_out_seat is None else hand.went_out_seat
        reason = _END_CODES.get(hand.end_reason)
        if reason is None:
            raise ValueError(f"hand {hand.hand_number} of game {game_id} ended with {hand.end_reason!r}, not one of "
                             f"{', '.join(END_REASONS)}")
        sides = hand.sides
        totals = hand.totals_after
        for side in sides:
            index = side.side
            opponent = sides[1 - index]
            cards_left = side.cards_left
            rows.append(pack(
                game_id, hand.hand_number, index, side.score, totals[index], *_side_values(side), reason, hand.dealer,
                went_out_seat, hand.turns, opponent.score, totals[1 - index], side.score > opponent.score,
                cards_left[0], cards_left[1],
            ))
    return b"".join(rows)


def unpack_hands(packed: bytes) -> list[tuple]:
    """The packed ``hands`` rows of :attr:`GameRows.hands` as tuples of their numbers (``side`` where the table has
    ``team``, ``end_reason`` as a code of :data:`END_REASONS`; no strategies or game winner)."""
    return list(_HAND_ROW.iter_unpack(packed))


class ChunkRecorder:
    """Collects the rows of consecutive games for one Parquet part of each table."""

    __slots__ = ("_games", "_hands")

    def __init__(self) -> None:
        self._games: list[tuple] = []
        self._hands: list[bytes] = []
        """Each game's packed hands rows (:attr:`GameRows.hands`)."""

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
        self._hands.append(rows.hands)

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
        self._hands.append(_hand_rows(game_id, finished))

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """Return the ``games`` and ``hands`` tables of everything recorded, in game order whatever order the games
        came in (each game's hands in their order)."""
        # A stable sort on the game id, the first field of a row: linear on rows already in order.
        self._games.sort(key=_game_id)
        return _table(self._games, GAME_SCHEMA), _hands_table(b"".join(self._hands), self._games)


def _hands_table(packed: bytes, games: list[tuple]) -> pa.Table:
    """The ``hands`` table of packed rows, in game order (each game's hands in their order); ``games`` are the
    rows of their games, sorted by game id."""
    rows = np.frombuffer(packed, dtype=_HAND_DTYPE)
    ids = rows["game_id"]
    if ids.size > 1 and (ids[1:] < ids[:-1]).any():  # games came in out of order: a stable sort keeps each game's
        rows = rows[np.argsort(ids, kind="stable")]
        ids = rows["game_id"]
    # Each row's game among the game rows: the strategies of its sides and its winner.
    game_ids = np.fromiter(map(_game_id, games), dtype=np.int64, count=len(games))
    at = np.searchsorted(game_ids, ids)
    if ids.size and (at.max() >= game_ids.size or (game_ids[at] != ids).any()):
        raise ValueError("hands rows of a game that has no games row")
    strategies, side_a, side_b = _game_codes(games, (3, 4), at)
    winners, winner = _game_codes(games, (7,), at)
    winner_side = np.array([TEAM_NAMES.index(name) if name in TEAM_NAMES else -1 for name in winners],
                           dtype=np.int32)[winner]
    side = rows["side"]
    first = side == 0
    names = pa.array(strategies, pa.string())
    text = {
        "team": pa.array(TEAM_NAMES).take(pa.array(side)),
        "strategy": names.take(pa.array(np.where(first, side_a, side_b))),
        "opponent_strategy": names.take(pa.array(np.where(first, side_b, side_a))),
        "end_reason": pa.array(END_REASONS).take(pa.array(rows["end_reason"])),
        "game_winner": pa.array(winners, pa.string()).take(pa.array(winner)),
        "won_game": pa.array(winner_side == side),
    }
    arrays = [text[field.name] if field.name in text else pa.array(np.ascontiguousarray(rows[field.name]), field.type)
              for field in HAND_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=HAND_SCHEMA)


def _game_codes(games: list[tuple], fields: tuple[int, ...], at: np.ndarray) -> tuple[list, ...]:
    """The distinct values of the game rows' text ``fields``, then each field's value for every hands row (whose
    game is ``games[at]``) as its index among them."""
    values = list(dict.fromkeys(row[field] for row in games for field in fields))
    codes = {value: code for code, value in enumerate(values)}
    return (values, *(np.fromiter((codes[row[field]] for row in games), dtype=np.int32, count=len(games))[at]
                      for field in fields))


def _table(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    # Rows to columns in one transposition (C-level), then one typed array per column.
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    arrays = [pa.array(column, type=field.type) for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)
