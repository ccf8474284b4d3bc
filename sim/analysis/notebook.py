"""A small API for notebooks: load a run's tables as DataFrames and summarize them.

Typical use, with the directory of a finished run::

    from canasta_sim.analysis import load_run, summarize

    run = load_run("results/example")
    run.games.groupby("winner_strategy").size()
    summarize(run)
    cross_table(run), ratings(run), paired_results(run)   # round robins and duplicate deals
    strategy_names(run), entrants_of(run)                 # the strategies' names and summary labels

Every function takes the loaded run :func:`load_run` returns; :func:`strategy_names` and :func:`entrants_of`, which
read only ``run.json``, also take its content (``run.manifest``).  The columns are documented in ``docs/output.md``.
Only chunks whose ``games`` and ``hands`` parts both exist are read, so a run still going, or killed and not yet
resumed, loads consistently.  A notebook plays the run itself with :func:`canasta_sim.cli.call` (``call("run", ...)``;
``docs/running.md``, *In a notebook or a script*).
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from canasta_sim.analysis.sections import PAIRED_FIELDS, cross_records, paired_records, rating_records
from canasta_sim.plugins.loader import borrows_built_in_name
from canasta_sim.runs.matchmaking import MatchmakingResults, matchmaking_results
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError, recorded_label
from canasta_sim.runs.summary import (
    GAME_COLUMNS_NEEDED,
    HAND_COLUMNS_NEEDED,
    SummaryAccumulator,
    SummaryRow,
    hand_cap_line,
    side_labels,
)

__all__ = [
    "LoadedRun", "cross_table", "entrants_of", "label_teams", "load_run", "matchmaking", "paired_results", "ratings",
    "strategy_names", "summarize", "summary_rows", "with_strategy_names",
]


@dataclasses.dataclass(frozen=True, repr=False)
class LoadedRun:
    """A run read into memory.

    :ivar path: the run directory, absolute: the sections (:func:`cross_table` and the others) read its files again,
        whatever the working directory has become since.
    :ivar manifest: the content of ``run.json``.
    :ivar games: one row per game, sorted by ``game_id``.
    :ivar hands: one row per team per hand, sorted by ``game_id``, ``hand_no``, ``team``.
    """

    path: Path
    manifest: dict[str, Any]
    games: pd.DataFrame
    hands: pd.DataFrame

    @property
    def entrants(self) -> tuple[str, ...]:
        """The summary labels of the run's strategies, in the order they were given."""
        return entrants_of(self)

    def __repr__(self) -> str:
        # One line, as a notebook shows a cell's last value: the fields' own reprs ran to the whole run.json and
        # both tables'.
        manifest = self.manifest
        specs = ", ".join(str(spec) for spec in _specs(manifest)) or "no strategies"
        return (f"<LoadedRun {str(self.path)!r}: {specs}; {len(self.games)} of {manifest.get('games', '?')} games, "
                f"{manifest.get('status', 'no status')}; games {len(self.games)} rows, hands {len(self.hands)} rows>")


def _manifest_of(run: LoadedRun | Mapping[str, Any], function: str) -> Mapping[str, Any]:
    """The content of ``run.json`` of a loaded run, or that content itself."""
    if isinstance(run, LoadedRun):
        return run.manifest
    if isinstance(run, Mapping):
        return run
    raise TypeError(f"{function} takes a loaded run (load_run(path)) or its manifest (run.manifest), not a "
                    f"{type(run).__name__}")


def entrants_of(run: LoadedRun | Mapping[str, Any]) -> tuple[str, ...]:
    """The summary labels of a run's strategies: the specs, or ``spec (A)``/``spec (B)`` in a mirror match.

    :param run: a loaded run, or its manifest (the content of ``run.json``).
    :raises TypeError: for anything else (a path, say: load it with :func:`load_run`).
    """
    manifest = _manifest_of(run, "entrants_of")
    specs = _specs(manifest)
    if not specs:
        return ()
    if len(specs) >= 3:  # a round robin
        return tuple(specs)
    return side_labels(specs[0], specs[-1])


def strategy_names(run: LoadedRun | Mapping[str, Any]) -> dict[str, str]:
    """Each strategy's spec to the name charts and pages show it by: its ``name@version`` as the run recorded it
    (``label`` in ``run.json``), with the spec added in brackets where two strategies share one (the same class
    with other parameters) or where a strategy that is no built-in goes by a built-in's name, and the spec itself
    for a run that recorded no label.

    :param run: a loaded run, or its manifest (the content of ``run.json``).
    :raises TypeError: for anything else (a path, say: load it with :func:`load_run`).
    """
    manifest = _manifest_of(run, "strategy_names")
    entries = [entry for entry in manifest.get("strategies", []) if isinstance(entry, dict)]
    labels = [str(recorded_label(entry) or entry.get("spec")) for entry in entries]
    # A copy of a built-in that kept its name (greedy@2) is told from the built-in even where that is not in the run.
    return {str(entry.get("spec")): label if labels.count(label) == 1
            and not borrows_built_in_name(str(entry.get("spec")), label.rpartition("@")[0])
            else f"{label} [{entry.get('spec')}]"
            for entry, label in zip(entries, labels, strict=True)}


_STRATEGY_COLUMNS = ("team_a_strategy", "team_b_strategy", "winner_strategy", "strategy", "opponent_strategy")


def with_strategy_names(run: LoadedRun) -> LoadedRun:
    """The run with every spec, in its tables and in ``manifest["strategies"]``, replaced by the strategy's name
    (:func:`strategy_names`), for display; the figures are unchanged.  Its sections (:func:`cross_table`,
    :func:`ratings`, :func:`paired_results`) name the strategies so too."""
    names = strategy_names(run)
    if all(spec == name for spec, name in names.items()):
        return run

    def renamed(frame: pd.DataFrame) -> pd.DataFrame:
        columns = {column: frame[column].map(lambda value: names.get(value, value))
                   for column in _STRATEGY_COLUMNS if column in frame.columns}
        return frame.assign(**columns) if columns else frame

    strategies = [{**entry, "spec": names.get(entry.get("spec"), entry.get("spec"))} if isinstance(entry, dict)
                  else entry for entry in run.manifest.get("strategies", [])]
    return LoadedRun(run.path, {**run.manifest, "strategies": strategies}, renamed(run.games), renamed(run.hands))


def load_run(
    path: str | os.PathLike,
    *,
    games_columns: Sequence[str] | None = None,
    hands_columns: Sequence[str] | None = None,
    strategies: Sequence[str] | None = None,
    require_games: bool = False,
) -> LoadedRun:
    """Read a run directory's ``run.json`` and tables, whole: about 3.2 MB of memory per 1,000 games with every column
    (``docs/output.md``, *Size*), so name the columns, or the strategies, a large run's question needs.

    :param games_columns: columns of ``games`` to read (``None``: all; one name may be given as text);
        ``game_id`` is always read.
    :param hands_columns: columns of ``hands`` to read, as ``games_columns``.
    :param strategies: read only the games in which one of these strategies played, on either side, and their
        hands (``None``: every game; one spec may be given as text); specs as ``run.json`` records them.
    :param require_games: raise if the run has no finished games yet.
    :raises RunDirectoryError: for a missing directory, one without ``run.json``, or (``require_games``)
        a run with no finished games.
    :raises ValueError: for a column, or a strategy, the run does not have.
    """
    directory = RunDirectory(path)
    manifest = directory.read_manifest()
    games_columns = _with_game_id(games_columns, GAME_SCHEMA.names, "games_columns")
    hands_columns = _with_game_id(hands_columns, HAND_SCHEMA.names, "hands_columns")
    wanted = _wanted_strategies(strategies, manifest)
    read_columns = games_columns if wanted is None else list(dict.fromkeys([*games_columns, *_SIDES]))
    games_parts, hands_parts = [], []
    for _, games, hands in directory.iter_chunks(read_columns, hands_columns):
        if wanted is not None:  # filtered a part at a time: the other strategies' games are never held
            games = games.filter(pc.or_(pc.is_in(games["team_a_strategy"], value_set=wanted),
                                        pc.is_in(games["team_b_strategy"], value_set=wanted))).select(games_columns)
            hands = hands.filter(pc.is_in(hands["game_id"], value_set=games["game_id"].combine_chunks()))
        games_parts.append(games.to_pandas())
        hands_parts.append(hands.to_pandas())
    if not games_parts and require_games:
        raise RunDirectoryError(f"run {str(directory.path)!r} has no finished games yet")
    games = _concat(games_parts, GAME_SCHEMA, games_columns).sort_values("game_id", kind="stable")
    hands_order = [name for name in ("game_id", "hand_no", "team") if name in hands_columns]
    hands = _concat(hands_parts, HAND_SCHEMA, hands_columns).sort_values(hands_order, kind="stable")
    return LoadedRun(directory.path.absolute(), manifest, games.reset_index(drop=True), hands.reset_index(drop=True))


_SIDES = ("team_a_strategy", "team_b_strategy")


def _wanted_strategies(strategies: Sequence[str] | str | None, manifest: dict[str, Any]) -> pa.Array | None:
    """The specs ``load_run(strategies=...)`` keeps, checked against the run's own."""
    if strategies is None:
        return None
    if isinstance(strategies, str):  # one spec: iterated as it is, a string would be read letter by letter
        strategies = [strategies]
    known = _specs(manifest)
    unknown = [spec for spec in strategies if spec not in known]
    if unknown:
        raise ValueError(f"unknown strateg{'y' if len(unknown) == 1 else 'ies'} {', '.join(map(repr, unknown))} in "
                         f"strategies; this run played {', '.join(map(repr, known)) or 'none'}")
    return pa.array(list(strategies), type=pa.string())


def _with_game_id(columns: Sequence[str] | str | None, known: list[str], option: str) -> list[str]:
    if columns is None:
        return list(known)
    if isinstance(columns, str):  # one name: iterated as it is, a string would be read letter by letter
        columns = [columns]
    unknown = [name for name in columns if name not in known]
    if unknown:
        raise ValueError(f"unknown column(s) {', '.join(map(repr, unknown))} in {option}; every column is listed "
                         "in canasta-sim docs output")
    return list(dict.fromkeys(["game_id", *columns]))


def _concat(parts: list[pd.DataFrame], schema, columns: list[str]) -> pd.DataFrame:
    if parts:
        return pd.concat(parts, ignore_index=True)
    return schema.empty_table().select(columns).to_pandas()


def label_teams(frame: pd.DataFrame) -> pd.Series:
    """The summary label of each row of ``hands`` (``strategy``, or ``strategy (team)`` in a mirror match)."""
    strategy = frame["strategy"].astype(str)
    mirrored = strategy == frame["opponent_strategy"].astype(str)
    return strategy.where(~mirrored, strategy + " (" + frame["team"].astype(str) + ")")


def summary_rows(run: LoadedRun) -> list[SummaryRow]:
    """The run's summary as :class:`~canasta_sim.runs.summary.SummaryRow` objects, in the run's strategy order.

    :raises ValueError: when the run was loaded without a column the summary reads.
    """
    return _accumulated(run).rows(run.entrants)


def _accumulated(run: LoadedRun) -> SummaryAccumulator:
    """The run's games and hands summed for the summary (and its count of games the engine's guard ended)."""
    for table, frame, needed in (("games", run.games, GAME_COLUMNS_NEEDED), ("hands", run.hands, HAND_COLUMNS_NEEDED)):
        missing = [name for name in needed if name not in frame.columns]
        if missing:
            raise ValueError(f"summarize needs {table} column(s) {', '.join(map(repr, missing))} that this run was "
                             f"loaded without; load it with load_run(path), or name them in {table}_columns too")
    accumulator = SummaryAccumulator()
    accumulator.add(run.games, run.hands)
    return accumulator


def summarize(run: LoadedRun) -> pd.DataFrame:
    """The run's summary, the figures ``canasta-sim run`` and ``report`` print, one row per strategy in the run's
    order, indexed by **spec** (``my_bot.py:MyBot``), as its CSV and JSON are, for programs keyed on the spec.  The
    printed summary names each strategy as the charts do (``first-bot@1``, :func:`strategy_names`), a round robin's
    strongest first: ``summarize(with_strategy_names(run))`` gives those names, the figures the same.

    When the engine's guard ended games (``termination`` ``hand_cap``), a :class:`UserWarning` says how many in the
    line ``run`` prints, and the frame's ``attrs["hand_capped"]`` holds the count: their results count as played out,
    and a notebook shows a warning where a table alone would read as one of finished games."""
    accumulator = _accumulated(run)
    rows = [dataclasses.asdict(row) for row in accumulator.rows(run.entrants)]
    columns = [field.name for field in dataclasses.fields(SummaryRow)]
    frame = pd.DataFrame(rows, columns=columns).set_index("strategy")
    capped = accumulator.hand_capped
    frame.attrs["hand_capped"] = capped
    if capped:
        warnings.warn(hand_cap_line(capped, len(run.games)), UserWarning, stacklevel=2)
    return frame


def _specs(manifest: Mapping[str, Any]) -> list[str]:
    return [entry.get("spec") for entry in manifest.get("strategies", []) if isinstance(entry, dict)]


def matchmaking(run: LoadedRun) -> MatchmakingResults:
    """The run's paired results (``--duplicate``) and cross table and ratings (round robins), as reported: read from
    the run's files, whole, the strategies named by their specs.

    :raises RunDirectoryError: when the run's directory, or its ``run.json``, is gone.
    """
    directory = RunDirectory(run.path)
    # The files hold the specs of the run.json on disk, whatever names the loaded run shows (with_strategy_names).
    specs = _specs(directory.read_manifest())
    return matchmaking_results(directory, specs, bool(run.manifest.get("duplicate")))


def _as_shown(run: LoadedRun, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s strategies named as the loaded run names them: a run renamed by :func:`with_strategy_names` has its
    sections renamed alike."""
    names = dict(zip(_specs(RunDirectory(run.path).read_manifest()), _specs(run.manifest), strict=False))
    if all(spec == name for spec, name in names.items()):
        return frame
    columns = {column: frame[column].map(lambda value: names.get(value, value))
               for column in ("strategy", "opponent") if column in frame.columns}
    return frame.assign(**columns)


def paired_results(run: LoadedRun) -> pd.DataFrame:
    """The paired result of each pair of strategies of a run with duplicate deals, one row per pair, from the
    first-given strategy's point of view (no rows for other runs); the columns are described in
    :mod:`canasta_sim.analysis.sections`.  Like :func:`cross_table` and :func:`ratings`, it reads the run's files,
    every game of them whatever ``load_run`` kept."""
    return _as_shown(run, pd.DataFrame(paired_records(matchmaking(run)), columns=list(PAIRED_FIELDS)))


def cross_table(run: LoadedRun) -> pd.DataFrame:
    """A round robin's cross table: one row per strategy and opponent that played, with the strategy's score
    (a draw counting half), its Wilson 95% interval and the games (no rows for other runs)."""
    columns = ["strategy", "opponent", "games", "score", "score_low", "score_high"]
    return _as_shown(run, pd.DataFrame(cross_records(matchmaking(run).cross_table), columns=columns))


def ratings(run: LoadedRun) -> pd.DataFrame:
    """A round robin's Bradley-Terry ratings, strongest first: Elo relative to the entrants' mean with its 95%
    interval, games and score (no rows for other runs)."""
    columns = ["rank", "strategy", "elo", "elo_low", "elo_high", "games", "score"]
    return _as_shown(run, pd.DataFrame(rating_records(matchmaking(run).ratings), columns=columns).set_index("rank"))
