"""Per-strategy summary statistics of a run, computed from its ``games`` and ``hands`` tables.

The same figures are printed at the end of ``canasta-sim run``, by
``canasta-sim report`` and by :func:`canasta_sim.analysis.summarize`:

* games, wins, draws and losses (a forfeited game is a loss for the failing side);
* the win rate ``wins / games`` with its Wilson score 95% interval;
* the mean final margin (own total minus the opponent's) with its 95% interval (normal, the games taken as
  independent: wider than it need be for duplicate deals, whose pairs cancel the deal's luck), and hands per
  game, over games not forfeited;
* per hand: pile takes, natural and mixed canastas, red 3s, how often the team went out and went out
  concealed, and the mean hand score.

Rows are keyed by strategy spec.  When both teams of a game play the same spec (a mirror match) the
two teams are told apart as ``'spec (A)'`` and ``'spec (B)'``, so a mirror match compares the sides.

Sums are accumulated chunk by chunk (:class:`SummaryAccumulator`), so a run of any size is
summarized in flat memory.  A row's figures and their intervals are defined in
:mod:`canasta_sim.runs.summary_figures`.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.summary_figures import Z_95, SummaryRow, mean_half_width, wilson_interval
from canasta_sim.terminal.played import spec_shown

__all__ = [
    "GAME_COLUMNS_NEEDED",
    "HAND_COLUMNS_NEEDED",
    "RunSummarizer",
    "RunSummary",
    "SummaryAccumulator",
    "SummaryRow",
    "Z_95",
    "format_summary",
    "hand_cap_line",
    "mean_half_width",
    "side_labels",
    "summarize",
    "summarize_run",
    "wilson_interval",
]

GAME_COLUMNS_NEEDED = ["team_a_strategy", "team_b_strategy", "winner", "margin", "hands", "termination", "forfeit_team"]
"""Columns of ``games`` the summary reads."""
HAND_COLUMNS_NEEDED = [
    "team", "strategy", "opponent_strategy", "score", "pile_takes",
    "canasta_natural", "canasta_mixed", "red_threes", "went_out", "concealed",
]
"""Columns of ``hands`` the summary reads."""

_GAME_SUMS = ["games", "wins", "draws", "forfeits", "played", "margin", "margin_squares", "hands"]
_HAND_SUMS = [
    "hand_rows", "score", "pile_takes", "canasta_natural", "canasta_mixed", "red_threes", "went_out", "concealed",
]


def side_labels(strategy_a: str, strategy_b: str) -> tuple[str, str]:
    """Return the summary labels of the two teams of a game: the specs, or ``'spec (A)'``/``'spec (B)'`` in a mirror."""
    if strategy_a == strategy_b:
        return (f"{strategy_a} (A)", f"{strategy_b} (B)")
    return (strategy_a, strategy_b)


def _labels(mine: pd.Series, theirs: pd.Series, team: pd.Series | str) -> np.ndarray:
    mine = mine.astype(str)
    theirs = theirs.astype(str)
    return mine.where(mine != theirs, mine + " (" + team + ")").to_numpy(dtype=object)


class SummaryAccumulator:
    """Running sums per label, fed with ``games`` and ``hands`` tables (pandas or pyarrow) chunk by chunk."""

    def __init__(self) -> None:
        # Each label's sums, in the order of _GAME_SUMS and _HAND_SUMS: a few labels, summed a batch at a time.
        self._games: dict[str | None, np.ndarray] = {}
        self._hands: dict[str | None, np.ndarray] = {}
        self.hand_capped = 0
        """Games the engine's guard ended (``termination`` ``hand_cap``), whatever their strategies."""

    def copy(self) -> SummaryAccumulator:
        """Return an accumulator holding the same sums, to add more to without changing this one."""
        copied = SummaryAccumulator()
        copied._games = {label: sums.copy() for label, sums in self._games.items()}
        copied._hands = {label: sums.copy() for label, sums in self._hands.items()}
        copied.hand_capped = self.hand_capped
        return copied

    def add(self, games, hands) -> None:
        """Add one chunk's tables (any objects with ``to_pandas()`` or DataFrames)."""
        self.add_games(games)
        self.add_hands(hands)

    def add_games(self, games) -> None:
        """Add rows of the ``games`` table."""
        if isinstance(games, pa.Table):
            if games.num_rows:
                _accumulate(self._games, *_arrow_game_sums(games))
                self.hand_capped += int(_counts_equal(games["termination"], "hand_cap").sum())
            return
        games = _frame(games, GAME_COLUMNS_NEEDED)
        if games.empty:
            return
        self.hand_capped += int((games["termination"] == "hand_cap").sum())
        played = (games["termination"] != "forfeit").to_numpy()
        margin = games["margin"].to_numpy(dtype="int64")
        hands = games["hands"].to_numpy(dtype="int64")
        frames = []
        for team, mine, theirs, sign in (
            ("A", "team_a_strategy", "team_b_strategy", 1),
            ("B", "team_b_strategy", "team_a_strategy", -1),
        ):
            frames.append(
                pd.DataFrame(
                    {
                        "label": _labels(games[mine], games[theirs], team),
                        "games": 1,
                        "wins": (games["winner"] == team).to_numpy(dtype="int64"),
                        "draws": (games["winner"] == "draw").to_numpy(dtype="int64"),
                        "forfeits": (games["forfeit_team"] == team).fillna(False).to_numpy(dtype="int64"),
                        "played": played.astype("int64"),
                        "margin": np.where(played, sign * margin, 0),
                        "margin_squares": np.where(played, margin * margin, 0),
                        "hands": np.where(played, hands, 0),
                    }
                )
            )
        sums = pd.concat(frames).groupby("label", sort=False).sum()
        _accumulate(self._games, list(sums.index), sums[_GAME_SUMS].to_numpy(dtype="int64"))

    def add_hands(self, hands) -> None:
        """Add rows of the ``hands`` table."""
        if isinstance(hands, pa.Table):
            if hands.num_rows:
                _accumulate(self._hands, *_arrow_hand_sums(hands))
            return
        hands = _frame(hands, HAND_COLUMNS_NEEDED)
        if hands.empty:
            return
        frame = pd.DataFrame({"label": _labels(hands["strategy"], hands["opponent_strategy"], hands["team"])})
        frame["hand_rows"] = 1
        for name in _HAND_SUMS[1:]:
            frame[name] = hands[name].to_numpy(dtype="int64")
        sums = frame.groupby("label", sort=False).sum()
        _accumulate(self._hands, list(sums.index), sums[_HAND_SUMS].to_numpy(dtype="int64"))

    def rows(self, order: Sequence[str] = ()) -> list[SummaryRow]:
        """Return one :class:`SummaryRow` per label, those in ``order`` first, the rest alphabetically."""
        labels = list(dict.fromkeys([*order, *sorted(set(self._games) | set(self._hands))]))
        rows = []
        for label in labels:
            if label not in self._games and label not in self._hands:
                continue
            game = self._games.get(label, np.zeros(len(_GAME_SUMS), dtype="int64")).tolist()
            hand = self._hands.get(label, np.zeros(len(_HAND_SUMS), dtype="int64")).tolist()
            rows.append(SummaryRow.from_sums(label, {**dict(zip(_GAME_SUMS, game, strict=True)),
                                                     **dict(zip(_HAND_SUMS, hand, strict=True))}))
        return rows


def _accumulate(into: dict[str | None, np.ndarray], labels: list, sums: np.ndarray) -> None:
    """Add ``sums`` (a row per label of ``labels``) to the running sums ``into``."""
    for label, row in zip(labels, sums, strict=True):
        kept = into.get(label)
        into[label] = row.copy() if kept is None else kept + row


# The same sums for Arrow tables (what runs and run directories hold), computed on numpy arrays: a run's parent
# sums every chunk it writes while the workers play, and pandas' frames and groupby, or Arrow's, cost several
# times the sums themselves.

def _text_codes(column) -> tuple[np.ndarray, list]:
    """A text column's values as indexes into the list of its distinct values (``None`` standing for null)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    encoded = pc.dictionary_encode(column, null_encoding="encode")
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary.to_pylist()


def _label_indexes(labels: dict, mine, theirs, team) -> np.ndarray:
    """Each row's label (:func:`side_labels`; null where ``mine`` is) as its index in ``labels``, which collects
    the labels met, in order; ``team`` is a column or one team letter for every row."""
    mine_codes, mine_names = _text_codes(mine)
    their_codes, their_names = _text_codes(theirs)
    if isinstance(team, str):
        team_codes, teams = np.zeros(len(mine_codes), dtype=np.int64), [team]
    else:
        team_codes, teams = _text_codes(team)
    keys = (mine_codes.astype(np.int64) * len(their_names) + their_codes) * len(teams) + team_codes
    distinct, rows = np.unique(keys, return_inverse=True)
    index = np.empty(len(distinct), dtype=np.int64)
    for position, key in enumerate(distinct.tolist()):
        rest, team_code = divmod(key, len(teams))
        mine_code, their_code = divmod(rest, len(their_names))
        name, other, letter = mine_names[mine_code], their_names[their_code], teams[team_code]
        # As side_labels, with Arrow's nulls: a null spec is a null label, and so is a mirror's null team.
        label = name if name is None or name != other else (None if letter is None else f"{name} ({letter})")
        index[position] = labels.setdefault(label, len(labels))
    return index[rows.reshape(-1)]


def _sums_by_label(labels: dict, index: np.ndarray, columns: dict[str, np.ndarray]) -> tuple[list, np.ndarray]:
    """The labels, and the sums of each int64 column of ``columns`` by label (a row per label)."""
    # One product of integer matrices (exact, unlike a float bincount): each row's label against the columns.
    belongs = (index == np.arange(len(labels))[:, None]).astype(np.int64)
    return list(labels), belongs @ np.stack(list(columns.values()), axis=1)


def _numbers(column) -> np.ndarray:
    return np.asarray(column.to_numpy(), dtype=np.int64)


def _flags(condition) -> np.ndarray:
    return np.asarray(condition.to_numpy(zero_copy_only=False), dtype=bool)


def _counts_equal(column, value: str) -> np.ndarray:
    """1 where a text column holds ``value``, 0 elsewhere (null included)."""
    return _flags(pc.fill_null(pc.equal(column, value), False)).astype(np.int64)


def _arrow_game_sums(games: pa.Table) -> tuple[list, np.ndarray]:
    games = games.select(GAME_COLUMNS_NEEDED)
    played = _flags(pc.fill_null(pc.not_equal(games["termination"], "forfeit"), True))
    margin = np.where(played, _numbers(games["margin"]), 0)
    hands = np.where(played, _numbers(games["hands"]), 0)
    draws = _counts_equal(games["winner"], "draw")
    labels: dict = {}
    indexes, columns = [], {name: [] for name in _GAME_SUMS}
    for team, mine, theirs, sign in (("A", "team_a_strategy", "team_b_strategy", 1),
                                     ("B", "team_b_strategy", "team_a_strategy", -1)):
        indexes.append(_label_indexes(labels, games[mine], games[theirs], team))
        columns["games"].append(np.ones(games.num_rows, dtype=np.int64))
        columns["wins"].append(_counts_equal(games["winner"], team))
        columns["draws"].append(draws)
        columns["forfeits"].append(_counts_equal(games["forfeit_team"], team))
        columns["played"].append(played.astype(np.int64))
        columns["margin"].append(sign * margin)
        columns["margin_squares"].append(margin * margin)
        columns["hands"].append(hands)
    return _sums_by_label(labels, np.concatenate(indexes),
                          {name: np.concatenate(parts) for name, parts in columns.items()})


def _arrow_hand_sums(hands: pa.Table) -> tuple[list, np.ndarray]:
    labels: dict = {}
    index = _label_indexes(labels, hands["strategy"], hands["opponent_strategy"], hands["team"])
    columns = {"hand_rows": np.ones(hands.num_rows, dtype=np.int64)}
    for name in _HAND_SUMS[1:]:
        columns[name] = _numbers(hands[name])
    return _sums_by_label(labels, index, columns)


def _frame(table, columns: list[str]) -> pd.DataFrame:
    if hasattr(table, "to_pandas"):
        table = table.select(columns).to_pandas() if hasattr(table, "select") else table.to_pandas()
    return table[columns]


def summarize(games: pd.DataFrame, hands: pd.DataFrame, order: Sequence[str] = ()) -> list[SummaryRow]:
    """Summarize whole ``games`` and ``hands`` tables; see the module's description of each figure."""
    accumulator = SummaryAccumulator()
    accumulator.add(games, hands)
    return accumulator.rows(order)


SUMMARY_BATCH_ROWS = 10_000
"""Hand rows summed at once (about 800 games): a few MB, so memory stays flat however many games a run has."""


def _read_run(accumulator: SummaryAccumulator, directory: RunDirectory, skip: Collection[int] = ()) -> int:
    """Add the chunks of a run directory (but those in ``skip``) to ``accumulator`` in batches; return the
    games read."""
    batch = _Batch(accumulator)
    games_read = 0
    for _, games, hands in directory.iter_chunks(GAME_COLUMNS_NEEDED, HAND_COLUMNS_NEEDED, skip=skip):
        batch.append(games, hands)
        games_read += games.num_rows
    batch.flush()
    return games_read


class _Batch:
    """Tables waiting to be summed at once: one pass per batch, since summing chunk by chunk spent most of its
    time on each pass's fixed costs; at most about :data:`SUMMARY_BATCH_ROWS` hand rows, so memory
    stays flat."""

    def __init__(self, accumulator: SummaryAccumulator) -> None:
        self.accumulator = accumulator
        self.tables: list[tuple[pa.Table, pa.Table]] = []
        self.rows = 0

    def append(self, games: pa.Table, hands: pa.Table) -> None:
        self.tables.append((games, hands))
        self.rows += hands.num_rows
        if self.rows >= SUMMARY_BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.tables:
            games = pa.concat_tables([games for games, _ in self.tables], promote_options="default")
            hands = pa.concat_tables([hands for _, hands in self.tables], promote_options="default")
            self.accumulator.add(games, hands)
        self.tables.clear()
        self.rows = 0


class RunSummary(NamedTuple):
    """A run directory's summary: its rows, the games read, and how many of them the engine's guard ended."""

    rows: list[SummaryRow]
    games_read: int
    hand_capped: int

    def hand_cap_line(self) -> str:
        """:func:`hand_cap_line` of these games."""
        return hand_cap_line(self.hand_capped, self.games_read)


def summarize_run(directory: RunDirectory, order: Sequence[str] = ()) -> RunSummary:
    """Summarize a run directory in batches of chunks, in flat memory."""
    accumulator = SummaryAccumulator()
    games_read = _read_run(accumulator, directory)
    return RunSummary(accumulator.rows(order), games_read, accumulator.hand_capped)


def hand_cap_line(hand_capped: int, games: int) -> str:
    """The one line saying how many of ``games`` never reached the target score, ended by the engine's guard after
    :data:`~canasta_sim.core.engine.MAX_HANDS_PER_GAME` hands; empty when none was.  Their results stay in every
    figure, so a variant whose games do not end would otherwise read as any other."""
    if not hand_capped:
        return ""
    share = hand_capped / games
    # One game in thousands still deserves its mention, which "0.0%" would belie; nor may most read as all.
    shown = ("under 0.1%" if share < 0.001 else "over 99.9%" if 0.999 < share < 1 else f"{100 * share:.1f}%")
    return (f"{hand_capped} of {games} games ({shown}) never reached the target score: the engine's guard ended "
            f"{'it' if hand_capped == 1 else 'them'} after {MAX_HANDS_PER_GAME} hands, won by the side ahead then "
            "(termination hand_cap)")


class RunSummarizer:
    """The summary of a run directory, kept from the chunks this process writes as it writes them.

    Give :meth:`chunk_written` to :attr:`RunDirectory.chunk_listeners
    <canasta_sim.runs.storage.RunDirectory.chunk_listeners>`; :meth:`summarize` then reads back only the chunks
    written elsewhere (a resumed run's earlier sessions, workers writing their own parts) and returns what
    :func:`summarize_run` returns, without reading every part again at the end of a run.
    """

    def __init__(self) -> None:
        self._accumulator = SummaryAccumulator()
        self._batch = _Batch(self._accumulator)
        self._games: dict[int, int] = {}
        """Games of each chunk written here."""
        self._rewritten = False
        """Whether a chunk was written twice here: its first tables were summed already, so read everything."""

    def chunk_written(self, chunk: int, games: pa.Table, hands: pa.Table) -> None:
        """Sum one chunk's tables, just written as its parts."""
        if chunk in self._games:
            self._rewritten = True
            return
        self._games[chunk] = games.num_rows
        self._batch.append(games.select(GAME_COLUMNS_NEEDED), hands.select(HAND_COLUMNS_NEEDED))

    def summarize(self, directory: RunDirectory, order: Sequence[str] = ()) -> RunSummary:
        """Return :func:`summarize_run`'s summary of ``directory``, reading only the chunks that were not written
        here."""
        on_disk = directory.chunks()
        if self._rewritten or not on_disk.issuperset(self._games):
            return summarize_run(directory, order)  # what was summed here is not what the directory holds
        self._batch.flush()
        accumulator = self._accumulator.copy()
        games_read = _read_run(accumulator, directory, skip=self._games.keys())
        return RunSummary(accumulator.rows(order), games_read + sum(self._games.values()), accumulator.hand_capped)


# --- formatting ---------------------------------------------------------------------------------------

_HEADERS = (
    "strategy", "games", "wins", "win rate [95% CI]", "margin ±95%", "hands/game", "pile takes/hand",
    "natural/hand", "mixed/hand", "went out",
)


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def _number(value: float, sign: bool = False) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:+z.1f}" if sign else f"{value:.2f}"


def _margin(row: SummaryRow) -> str:
    """The mean margin and half its interval's width, ``+1158.4 ±28.2``; the mean alone under two games."""
    half = (row.mean_margin_high - row.mean_margin_low) / 2
    if math.isnan(half):
        return _number(row.mean_margin, sign=True)
    return f"{_number(row.mean_margin, sign=True)} ±{half:.1f}"


def _table(rows: list[SummaryRow]) -> list[list[str]]:
    """The header and one line of cells per row; draws and forfeits get columns only when there are any."""
    draws = any(row.draws for row in rows)
    forfeits = any(row.forfeits for row in rows)
    table = [[*_HEADERS, *(["draws"] if draws else []), *(["forfeits"] if forfeits else [])]]
    for row in rows:
        table.append([
            spec_shown(row.strategy),  # a played game's spec without its decisions, which would fill the screen
            str(row.games),
            str(row.wins),
            f"{_percent(row.win_rate)} [{_percent(row.win_rate_low)}, {_percent(row.win_rate_high)}]",
            _margin(row),
            _number(row.hands_per_game),
            _number(row.pile_takes_per_hand),
            _number(row.natural_canastas_per_hand),
            _number(row.mixed_canastas_per_hand),
            _percent(row.went_out_rate),
            *([str(row.draws)] if draws else []),
            *([str(row.forfeits)] if forfeits else []),
        ])
    return table


def format_summary(rows: Iterable[SummaryRow], style: str = "text", extra: dict | None = None) -> str:
    """Return the summary as ``text`` (aligned table), ``markdown``, ``csv`` or ``json``.

    :param extra: for ``json`` only, more top-level keys (e.g. the run's settings).
    :raises ValueError: for another style.
    """
    rows = list(rows)
    if style == "text":
        table = _table(rows)
        widths = [max(len(line[index]) for line in table) for index in range(len(table[0]))]
        lines = []
        for line in table:
            cells = [cell.ljust(width) if index == 0 else cell.rjust(width)
                     for index, (cell, width) in enumerate(zip(line, widths, strict=True))]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)
    if style == "markdown":
        header, *body = _table(rows)
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |" for line in body]
        return "\n".join(lines)
    if style == "csv":
        buffer = io.StringIO()
        fields = [field.name for field in dataclasses.fields(SummaryRow)]
        writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: "" if value is None else value for key, value in row.as_dict().items()})
        return buffer.getvalue().rstrip("\n")
    if style == "json":
        return json.dumps({**(extra or {}), "strategies": [row.as_dict() for row in rows]}, indent=2)
    raise ValueError(f"unknown summary format {style!r}; use text, markdown, csv or json")
