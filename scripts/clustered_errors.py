"""How far the standard errors of ``canasta-sim plot``'s per-hand charts move when the hands of a game, or of a
duplicate deal, are not counted as independent.

The per-hand panels (``per_hand_stats.png``) and the score parts (``score_components.png``) treat every team-hand
as an independent draw.  For each panel or part and each strategy this prints the standard error clustered by game
and by deal (the cluster-robust error of a mean, with the usual G/(G-1) correction) as a ratio to the one the chart
uses, then the smallest and largest ratio of all, the figure docs/running.md quotes:

    canasta-sim run --games 1000 --duplicate --seed 1 --out results/clustered
    python scripts/clustered_errors.py results/clustered

Nothing is timed: the figures depend only on the run.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from canasta_sim.cli.plot import _PER_HAND, _SCORE_PARTS, _per_hand_frame
from canasta_sim.runs.storage import RunDirectory


def clustered_error(values: np.ndarray, clusters: np.ndarray) -> float:
    """The cluster-robust standard error of ``values``' mean, the clusters given per value; with one value per
    cluster it equals the plain ``std(ddof=1) / sqrt(n)``."""
    residuals = pd.Series(values - values.mean())
    sums = residuals.groupby(clusters).sum().to_numpy()
    count = len(sums)
    if count < 2:
        return math.nan
    return math.sqrt(count / (count - 1) * float((sums ** 2).sum())) / len(values)


_CLUSTERINGS = (("by game", "game_id"), ("by deal", "deal_id"))


class _Tally:
    """One strategy's and column's sums, exact (whole numbers): of the values and their squares, and for each
    clustering the sums over its clusters of S², S·n and n² (S a cluster's sum, n its count) and their number, from
    which the clustered error follows without the rows (Σ_c (S_c − n_c·m)² = ΣS² − 2m·ΣSn + m²·Σn²)."""

    def __init__(self) -> None:
        self.count = self.total = self.squares = 0
        self.clustered = {name: [0, 0, 0, 0] for name, _ in _CLUSTERINGS}

    def add(self, frame: pd.DataFrame, column: str) -> None:
        values = frame[column].astype(np.int64)
        self.count += len(values)
        self.total += int(values.sum())
        self.squares += int((values * values).sum())
        for name, key in _CLUSTERINGS:
            groups = values.groupby(frame[key].to_numpy())
            sums, counts = groups.sum().to_numpy(), groups.size().to_numpy()
            tally = self.clustered[name]
            tally[0] += int((sums * sums).sum())
            tally[1] += int((sums * counts).sum())
            tally[2] += int((counts * counts).sum())
            tally[3] += len(sums)

    def ratios(self) -> tuple[float, dict[str, float]] | None:
        """The plain standard error of the mean and each clustered one's ratio to it (``None`` with no spread)."""
        count, mean = self.count, self.total / self.count
        if count < 2:
            return None
        plain = math.sqrt(max(self.squares - self.total * mean, 0.0) / (count - 1)) / math.sqrt(count)
        if not plain > 0:
            return None  # a column with no spread has no interval to compare
        ratios = {}
        for name, (squares, cross, sizes, clusters) in self.clustered.items():
            spread = max(squares - 2 * mean * cross + mean * mean * sizes, 0.0)
            error = math.sqrt(clusters / (clusters - 1) * spread) / count if clusters > 1 else math.nan
            ratios[name] = error / plain
        return plain, ratios


def _parts(run_dir: str):
    """Each part's team-hands with their deal, read only in the columns the panels and parts need; a deal's rows
    whole in one frame even where the run's parts split it (an odd ``--chunk-size`` with ``--duplicate``)."""
    columns = ["game_id", "team", "strategy", "opponent_strategy", "melded",
               *(column for column, *_ in _PER_HAND if column != "no_initial_meld"),
               *(column for column, *_ in _SCORE_PARTS)]
    directory = RunDirectory(run_dir)
    directory.read_manifest()  # a folder that is no run is named as every reader names it
    carried = None
    for _, games, hands in directory.iter_chunks(["game_id", "deal_id"], list(dict.fromkeys(columns))):
        frame = _per_hand_frame(hands.to_pandas())
        frame["deal_id"] = frame["game_id"].map(games.to_pandas().set_index("game_id")["deal_id"])
        frame = frame if carried is None else pd.concat([carried, frame], ignore_index=True)
        if frame.empty:
            continue
        last = frame["deal_id"] == frame["deal_id"].max()  # the next part may hold its other game
        carried = frame[last]
        yield frame[~last]
    if carried is not None:
        yield carried


def ratios(run_dir: str) -> pd.DataFrame:
    """One row per strategy and chart column: the plain standard error and the ratios of the clustered ones to it.
    The run is read part by part, only the columns it needs, as ``canasta-sim plot`` reads it."""
    columns = [(column, title) for column, title, _, _ in _PER_HAND]
    columns += [(column, f"score part: {name}") for column, name, _ in _SCORE_PARTS]
    tallies: dict[tuple[str, str], _Tally] = {}
    for frame in _parts(run_dir):
        for label, mine in frame.groupby("label", sort=False):
            for column, _ in columns:
                tallies.setdefault((label, column), _Tally()).add(mine, column)
    rows = []
    for label in sorted({label for label, _ in tallies}):
        for column, title in columns:
            found = tallies[(label, column)].ratios()
            if found is not None:
                plain, clustered = found
                rows.append({"strategy": label, "column": title, "plain": plain, **clustered})
    return pd.DataFrame(rows)


def main() -> None:
    """Print the ratios of a run's clustered to plain standard errors, and their range."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="a run directory (canasta-sim run --out DIR)")
    options = parser.parse_args()
    table = ratios(options.run_dir)
    with pd.option_context("display.width", 200, "display.max_rows", None):
        print(table.to_string(index=False, formatters={"plain": "{:.4g}".format, "by game": "{:.3f}".format,
                                                       "by deal": "{:.3f}".format}))
    long = table.melt(id_vars=["strategy", "column"], value_vars=["by game", "by deal"], var_name="cluster")
    low, high = long.loc[long["value"].idxmin()], long.loc[long["value"].idxmax()]
    print(f"clustered / plain: from {low['value']:.3f} ({low['column']}, {low['strategy']}, {low['cluster']}) "
          f"to {high['value']:.3f} ({high['column']}, {high['strategy']}, {high['cluster']}): "
          f"{1 - low['value']:.0%} smaller to {high['value'] - 1:.0%} larger")


if __name__ == "__main__":
    main()
