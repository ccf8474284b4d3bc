"""The chart of a tuning run (``canasta-sim plot TUNE_DIR``): each parameter's trajectory and the match results.

One panel per tuned parameter shows the point after every iteration (``theta``, unrounded) with the
two values played around it (the band from ``minus`` to ``plus``) inside the parameter's range; the
last panel shows the result of each iteration's match (``plus`` against ``minus``) and its moving
mean, which hovers around 0 once the values settle.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from canasta_sim.cli.plot_figures import new_figure, save_chart
from canasta_sim.core.parameters import format_value
from canasta_sim.tuning.iteration import TuningError
from canasta_sim.tuning.run import TuningDirectory
from canasta_sim.tuning.spsa import Dimension

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["tuning_chart", "write_tuning_charts"]

MOVING_WINDOW = 50
"""Iterations in the moving mean of the results (fewer when the run is shorter)."""


def tuning_chart(manifest: dict, trajectory: pd.DataFrame) -> Figure:
    """The trajectory chart of a tuning run from its ``tune.json`` and ``trajectory.parquet`` rows."""
    parameters = manifest["parameters"]
    figure = new_figure(9, 2.0 * (len(parameters) + 1) + 0.6)
    axes_list = figure.subplots(len(parameters) + 1, 1, sharex=True, squeeze=False)[:, 0]
    iterations = trajectory["iteration"].to_numpy() + 1
    games = int(trajectory["games"].sum())
    for axes, entry in zip(axes_list, parameters, strict=False):
        name = entry["name"]
        low, high = entry["low"], entry["high"]
        played = trajectory[[f"plus.{name}", f"minus.{name}"]].to_numpy()
        axes.fill_between(iterations, played.min(axis=1), played.max(axis=1), step="mid", color="tab:blue",
                          alpha=0.15, linewidth=0, label="values played (minus to plus)")
        axes.plot(np.concatenate([[0], iterations]), np.concatenate([[entry["start"]], trajectory[f"theta.{name}"]]),
                  color="tab:blue", linewidth=1.5, label="value (theta)")
        axes.axhline(entry["start"], color="grey", linestyle="--", linewidth=1,
                     label=f"start {format_value(entry['start'])}")
        axes.set_ylim(low - 0.03 * (high - low), high + 0.03 * (high - low))
        axes.set_ylabel(name)
        dimension = Dimension(name, low=low, high=high, step=entry["step"], integer=isinstance(entry["default"], int))
        reached = dimension.snap(float(trajectory[f"theta.{name}"].iloc[-1]))
        axes.set_title(f"{name}: {format_value(entry['start'])} -> {format_value(reached)} "
                       f"(range {format_value(low)} to {format_value(high)})", fontsize=9)
        axes.legend(fontsize=7, loc="upper left")
    results = axes_list[-1]
    window = max(1, min(MOVING_WINDOW, len(trajectory) // 5 or 1))
    results.scatter(iterations, trajectory["result"], s=4, color="tab:gray", alpha=0.5,
                    label=f"one iteration ({int(trajectory['games'].iloc[0]) if len(trajectory) else 0} games)")
    results.plot(iterations, trajectory["result"].rolling(window, min_periods=1).mean(), color="tab:red",
                 label=f"moving mean of {window} iterations")
    results.axhline(0, color="grey", linewidth=1)
    results.set_ylabel("result (plus - minus)")
    results.set_xlabel("iteration")
    results.legend(fontsize=7, loc="upper left")
    opponent = f"against {manifest['against']}" if manifest.get("against") else "plus against minus, head to head"
    figure.suptitle(f"SPSA tuning of {manifest['spec']} ({opponent}): {len(trajectory)} of "
                    f"{manifest['iterations']} iterations, {games} games")
    return figure


def write_tuning_charts(path: Path, out: Path, dpi: int = 110) -> list[Path]:
    """Draw the chart of the tuning run in ``path`` into ``out/trajectory.png``; return the files written.

    :raises TuningError: when the run has no finished iteration or its files cannot be read.
    """
    directory = TuningDirectory(path)
    manifest = directory.read_manifest()
    table = directory.read_trajectory()
    if table is None or table.num_rows == 0:
        raise TuningError(f"{path} holds no finished iteration yet; there is nothing to draw")
    out.mkdir(parents=True, exist_ok=True)
    target = out / "trajectory.png"
    save_chart(tuning_chart(manifest, table.to_pandas()), target, dpi)
    return [target]
