"""What the charts of ``canasta-sim plot`` read of a run, tallied part by part so that memory stays bounded.

A chart draws counts, sums and distributions, never the rows themselves: a run's games and hands are read one
Parquet part at a time (:meth:`ChartData.of_directory`), only the columns the charts read, and folded into a few
small tallies per strategy (counts of each margin, sums and sums of squares of each per-hand figure, ...), whose
size depends on the strategies and the values seen, not on the number of games.  The same tallies are made from
a run already in memory (:meth:`ChartData.of_loaded`), so a chart drawn from either shows the same figures.

Sums are kept as Python integers (every column summed is a whole number), so means are exact whatever the order
the parts are read in; order is kept only where a chart lists things in the order the run met them.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from canasta_sim.analysis import LoadedRun, entrants_of, label_teams, strategy_names, with_strategy_names
from canasta_sim.runs.matchmaking import MatchmakingResults, matchmaking_results
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError
from canasta_sim.runs.summary import Z_95, side_labels

__all__ = ["ChartData", "GameTally", "Moments", "chart_data", "quantiles"]

PER_HAND = (
    ("pile_takes", "pile takes per hand", "takes per team-hand", 1),
    ("frozen_pile_takes", "takes of a frozen pile per hand", "takes per team-hand", 1),
    ("pile_freezes", "discards freezing the pile per hand", "discards per team-hand", 1),
    ("canasta_natural", "natural canastas per hand", "canastas per team-hand", 1),
    ("canasta_mixed", "mixed canastas per hand", "canastas per team-hand", 1),
    ("red_threes", "red 3s per hand", "red 3s per team-hand", 1),
    ("went_out", "went out", "% of team-hands", 100),
    ("concealed", "went out concealed", "% of team-hands", 100),
    ("no_initial_meld", "no initial meld made", "% of team-hands", 100),
)
"""The per-hand panels: column, title, unit, scale (100 for a rate shown in %)."""

SCORE_PARTS = (
    ("meld_points", "melds", 1),
    ("canasta_bonus", "canasta bonus", 1),
    ("going_out_bonus", "going out", 1),
    ("red_three_bonus", "red 3s", 1),
    ("hand_penalty", "cards left in hand", -1),
    ("score", "hand score", 1),
)
"""The parts of a hand's score (R14.1) with the sign they add with, and the score they add up to."""

GAME_COLUMNS = ["team_a_strategy", "team_b_strategy", "winner", "margin", "hands", "termination"]
"""Columns of ``games`` the charts read (``game_id`` besides)."""
HAND_COLUMNS = ["hand_no", "team", "strategy", "opponent_strategy", "score", "cumulative_score", "pile_takes",
                "frozen_pile_takes", "pile_freezes", "canasta_natural", "canasta_mixed", "red_threes", "went_out",
                "concealed", "melded", "meld_points", "canasta_bonus", "going_out_bonus", "red_three_bonus",
                "hand_penalty"]
"""Columns of ``hands`` the charts read (``game_id`` besides)."""


class Moments:
    """Count, sum and sum of squares of whole numbers, kept exact: their mean and the 95% half-width of that mean."""

    __slots__ = ("count", "total", "squares")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0
        self.squares = 0

    def add(self, values: np.ndarray) -> None:
        """Add whole numbers (or yes/no values, counted as 1 and 0)."""
        numbers = values.astype(np.int64)
        self.count += len(numbers)
        self.total += int(numbers.sum())
        self.squares += int(np.square(numbers).sum())

    @property
    def mean(self) -> float:
        """The mean (NaN for no value)."""
        return self.total / self.count if self.count else math.nan

    @property
    def std(self) -> float:
        """The sample standard deviation (divisor count − 1; NaN under two values)."""
        if self.count < 2:
            return math.nan
        # Whole numbers: the numerator is exact, and the one division rounds once.
        return math.sqrt(max((self.squares * self.count - self.total * self.total) / (self.count * (self.count - 1)),
                             0.0))

    def half_width(self) -> float:
        """Half the width of the normal 95% interval of the mean (0 under two values: no bar to draw)."""
        return Z_95 * self.std / math.sqrt(self.count) if self.count > 1 else 0.0


def quantiles(counts: Mapping[int, int], levels: Iterable[float]) -> np.ndarray:
    """The quantiles of the values counted in ``counts`` (value to how many times it occurs), by linear
    interpolation between order statistics: what ``pandas.Series.quantile`` gives for the values themselves."""
    values = np.array(sorted(counts), dtype=np.float64)
    ends = np.cumsum([counts[value] for value in sorted(counts)])
    # As pandas asks numpy (a percentage, divided back by 100), so that the interpolation weights are its own.
    levels = np.true_divide(np.asarray(list(levels), dtype=np.float64) * 100.0, 100)
    position = (int(ends[-1]) - 1) * levels
    below = np.floor(position)
    weight = position - below
    order = below.astype(np.int64)
    low = values[np.searchsorted(ends, order, side="right")]
    high = values[np.searchsorted(ends, np.minimum(order + 1, int(ends[-1]) - 1), side="right")]
    difference = high - low
    return np.where(weight >= 0.5, high - difference * (1 - weight), low + difference * weight)


class GameTally:
    """The ``games`` table as the charts read it: per side of each game, its label, opponent, side and result."""

    def __init__(self) -> None:
        self.games = 0
        self.played = 0
        self.records: dict[tuple[str, str, str], list[int]] = {}
        """``(label, opponent, side) -> [games, wins]``."""
        self._seen: dict[tuple[str, str], tuple[int, int]] = {}
        """``(label, opponent) -> (side, position)`` where the pair was first met, side A's rows before side B's."""
        self.margins: dict[str, Counter] = {}
        """Each label's own final margins in the games played out, counted by value."""
        self.margin_opponents: dict[str, dict[str, None]] = {}
        self.first_played: str | None = None
        """The label of side A in the first game played out."""
        self.hands = Counter()
        """How many games played out lasted each number of hands."""

    def add(self, games: pd.DataFrame) -> None:
        """Add rows of ``games`` (in game order)."""
        pairs = [side_labels(a, b) for a, b in
                 zip(games["team_a_strategy"].astype(str), games["team_b_strategy"].astype(str), strict=True)]
        winners = games["winner"].to_numpy()
        margins = games["margin"].to_numpy()
        played = (games["termination"] != "forfeit").to_numpy()
        for position, ((label_a, label_b), winner, margin, out) in enumerate(
                zip(pairs, winners, margins, played, strict=True)):
            for side, (own, other), sign in ((0, (label_a, label_b), 1), (1, (label_b, label_a), -1)):
                name = "AB"[side]
                record = self.records.setdefault((own, other, name), [0, 0])
                record[0] += 1
                record[1] += winner == name
                met = (side, self.games + position)
                self._seen[(own, other)] = min(self._seen.get((own, other), met), met)
                if out:
                    self.margins.setdefault(own, Counter())[sign * int(margin)] += 1
                    self.margin_opponents.setdefault(own, {})[other] = None
            if out and self.first_played is None:
                self.first_played = label_a
        self.hands.update(int(value) for value in games["hands"].to_numpy()[played])
        self.games += len(games)
        self.played += int(played.sum())

    def labels(self) -> list[str]:
        """Every label, in the order the run met them (side A's rows first)."""
        return list(dict.fromkeys(label for label, _ in sorted(self._seen, key=self._seen.__getitem__)))

    def opponents(self, label: str) -> list[str]:
        """The label's opponents in the order met (side A's rows first)."""
        return [other for own, other in sorted(self._seen, key=self._seen.__getitem__) if own == label]

    def count(self, label: str, opponent: str | None = None, side: str | None = None) -> tuple[int, int]:
        """``(games, wins)`` of a label, against one opponent or on one side if given."""
        games = wins = 0
        for (own, other, name), (played, won) in self.records.items():
            if own == label and opponent in (None, other) and side in (None, name):
                games += played
                wins += won
        return games, wins


class _HandTally:
    """The ``hands`` table as the charts read it, label by label (a label is ``label_teams``')."""

    def __init__(self) -> None:
        self.labels: dict[str, int] = {}
        """Each label's team-hands, in the order met."""
        self.moments: dict[tuple[str, str], Moments] = {}
        """``(label, column) -> Moments`` of the per-hand panels' and the score parts' columns."""
        self.scores: dict[str, Counter] = {}
        self.cumulative: dict[tuple[str, int], Moments] = {}
        """``(label, hand_no) -> Moments`` of ``cumulative_score``."""
        self.started: Counter = Counter()
        """Each label's first hands: the games in which it finished a hand."""

    def add(self, hands: pd.DataFrame) -> None:
        labels = label_teams(hands).to_numpy()
        if not len(labels):
            return
        columns = {column: hands[column].to_numpy() for column in hands.columns}
        if "melded" in columns:
            columns["no_initial_meld"] = ~columns["melded"].astype(bool)
        summed = [column for column, *_ in (*PER_HAND, *SCORE_PARTS) if column in columns]
        for label in dict.fromkeys(labels):
            mine = labels == label
            self.labels[label] = self.labels.get(label, 0) + int(mine.sum())
            for column in dict.fromkeys(summed):
                self.moments.setdefault((label, column), Moments()).add(columns[column][mine])
            if "score" in columns:
                self.scores.setdefault(label, Counter()).update(Counter(columns["score"][mine].tolist()))
            if "hand_no" in columns and "cumulative_score" in columns:
                numbers, totals = columns["hand_no"][mine], columns["cumulative_score"][mine]
                self.started[label] += int((numbers == 1).sum())
                for number in np.unique(numbers):
                    self.cumulative.setdefault((label, int(number)), Moments()).add(totals[numbers == number])


class ChartData:
    """A run as its charts read it: the manifest, the strategies' names, and tallies of its tables.

    Build it with :meth:`of_directory` (part by part, memory bounded) or :meth:`of_loaded` (from a
    :class:`~canasta_sim.analysis.LoadedRun`, each tally made when a chart first asks for it, from the columns the
    run was loaded with).  Every chart of :mod:`canasta_sim.cli.plot` takes either.
    """

    def __init__(self, path: Path, manifest: dict[str, Any], games: GameTally | None = None,
                 hands: _HandTally | None = None, loaded: LoadedRun | None = None) -> None:
        self.path = Path(path)
        self.manifest = manifest
        """``run.json`` as the run wrote it (strategies by spec)."""
        self.names = strategy_names(manifest)
        self.shown_manifest = {**manifest, "strategies": [
            {**entry, "spec": self.names.get(entry.get("spec"), entry.get("spec"))} if isinstance(entry, dict)
            else entry for entry in manifest.get("strategies", [])]}
        """``run.json`` with each strategy's spec replaced by its name, as the charts show it."""
        self._entrants: list[str] | None = None
        self._games = games
        self._hands = hands
        self._loaded = loaded

    @classmethod
    def of_loaded(cls, run: LoadedRun) -> ChartData:
        """The charts' view of a run already in memory."""
        return cls(run.path, run.manifest, loaded=with_strategy_names(run))

    @classmethod
    def of_directory(cls, path: str | os.PathLike, *, games_columns: Iterable[str] = (),
                     on_games: Callable[[pd.DataFrame], None] | None = None) -> ChartData:
        """Read a run directory part by part, only the columns the charts read.

        :param games_columns: more columns of ``games`` to read, for ``on_games``.
        :param on_games: called with each part's ``games`` (strategies by spec, in game order), so that a reader
            needing more of them than the charts goes through the run once.
        :raises RunDirectoryError: for a directory that is no run, or a run with no finished game yet.
        :raises DamagedPartError: for a part that cannot be read.
        """
        directory = RunDirectory(path)
        manifest = directory.read_manifest()
        data = cls(directory.path, manifest, GameTally(), _HandTally())
        columns = list(dict.fromkeys(["game_id", *GAME_COLUMNS, *games_columns]))
        for _, games, hands in directory.iter_chunks(columns, ["game_id", *HAND_COLUMNS]):
            frame = games.to_pandas().sort_values("game_id", kind="stable")
            data.add(frame, hands.to_pandas())
            if on_games is not None:
                on_games(frame)
        if not data.games.games:
            raise RunDirectoryError(f"run {str(directory.path)!r} has no finished games yet")
        return data

    def add(self, games: pd.DataFrame, hands: pd.DataFrame) -> None:
        """Add one chunk's ``games`` and ``hands`` (strategies by spec), sorted as :func:`load_run` sorts them."""
        renamed = with_strategy_names(LoadedRun(self.path, self.manifest, games, hands))
        self.games.add(renamed.games.sort_values("game_id", kind="stable"))
        self.hands.add(renamed.hands.sort_values(["game_id", "hand_no", "team"], kind="stable"))

    @property
    def entrants(self) -> list[str]:
        """The strategies by name, as the summary lists them: in the run's order, a round robin's strongest first as
        its ratings rank them (ties in the run's order), as its cross table and the reports list them."""
        if self._entrants is None:
            given = entrants_of(self.shown_manifest)
            try:
                ranking = self.matchmaking().ranking() if len(given) >= 3 else []
            except RunDirectoryError:  # a run loaded in a notebook, its folder gone since: drawn in the run's order
                ranking = []
            ranked = [self.names.get(spec, spec) for spec in ranking]
            self._entrants = [*ranked, *(name for name in given if name not in ranked)]
        return self._entrants

    @property
    def games(self) -> GameTally:
        """The tally of ``games``."""
        if self._games is None:
            self._games = GameTally()
            self._games.add(self._loaded.games)
        return self._games

    @property
    def hands(self) -> _HandTally:
        """The tally of ``hands``."""
        if self._hands is None:
            self._hands = _HandTally()
            self._hands.add(self._loaded.hands)
        return self._hands

    def matchmaking(self) -> MatchmakingResults:
        """The run's paired results and round robin's ratings, read from its directory part by part."""
        specs = [entry.get("spec") for entry in self.manifest.get("strategies", []) if isinstance(entry, dict)]
        return matchmaking_results(RunDirectory(self.path), specs, bool(self.manifest.get("duplicate")))


def chart_data(run: LoadedRun | ChartData) -> ChartData:
    """``run`` as the charts read it."""
    return run if isinstance(run, ChartData) else ChartData.of_loaded(run)
