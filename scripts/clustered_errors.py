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

from canasta_sim.analysis import load_run
from canasta_sim.cli.plot import _PER_HAND, _SCORE_PARTS, _per_hand_frame


def clustered_error(values: np.ndarray, clusters: np.ndarray) -> float:
    """The cluster-robust standard error of ``values``' mean, the clusters given per value; with one value per
    cluster it equals the plain ``std(ddof=1) / sqrt(n)``."""
    residuals = pd.Series(values - values.mean())
    sums = residuals.groupby(clusters).sum().to_numpy()
    count = len(sums)
    if count < 2:
        return math.nan
    return math.sqrt(count / (count - 1) * float((sums ** 2).sum())) / len(values)


def ratios(run_dir: str) -> pd.DataFrame:
    """One row per strategy and chart column: the plain standard error and the ratios of the clustered ones to it."""
    run = load_run(run_dir)
    deals = run.games.set_index("game_id")["deal_id"]
    hands = _per_hand_frame(run.hands).assign(deal_id=lambda frame: frame["game_id"].map(deals))
    columns = [(column, title) for column, title, _, _ in _PER_HAND]
    columns += [(column, f"score part: {name}") for column, name, _ in _SCORE_PARTS]
    rows = []
    for label, mine in hands.groupby("label", sort=True):
        for column, title in columns:
            values = mine[column].astype(float).to_numpy()
            plain = values.std(ddof=1) / math.sqrt(len(values))
            if not plain > 0:
                continue  # a column with no spread has no interval to compare
            rows.append({"strategy": label, "column": title, "plain": plain,
                         "by game": clustered_error(values, mine["game_id"].to_numpy()) / plain,
                         "by deal": clustered_error(values, mine["deal_id"].to_numpy()) / plain})
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
