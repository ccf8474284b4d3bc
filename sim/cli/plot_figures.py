"""The figure, titles and colours every chart of ``canasta-sim plot`` shares (:mod:`canasta_sim.cli.plot`,
:mod:`canasta_sim.cli.plot_round_robin`)."""

from __future__ import annotations

import io
import os
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import click

from canasta_sim.cli.options import changed_rules_text
from canasta_sim.cli.outputs import replace_whole
from canasta_sim.cli.plot_data import ChartData
from canasta_sim.runs.machine import made_users_folder, users_folder

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TITLE_SIZE", "choose_matplotlib_folder", "colours", "legend", "matchup", "new_figure", "save_chart",
           "suptitle", "title", "wrapped"]


def new_figure(width: float = 8.0, height: float = 5.0) -> Figure:
    """An empty figure of ``width`` by ``height`` inches, laid out when drawn, on the Agg canvas (no display)."""
    # Imported here so that every other command starts without loading matplotlib.
    choose_matplotlib_folder()
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except OSError as error:  # no folder it can write its cache to (a locked-down container): its message says so
        raise click.ClickException(f"no chart can be drawn: matplotlib cannot start: {error}") from None

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def save_chart(figure: Figure, path: Path, dpi: float) -> None:
    """Write ``figure`` to ``path`` as PNG, put in its place by a rename: a link at ``path`` is replaced, never written
    through.  A run's folder from someone else may hold ``plots/win_rates.png`` as a link to one of the user's files,
    which ``plot`` would have overwritten with a chart."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    replace_whole(path, buffer.getvalue())


def choose_matplotlib_folder() -> None:
    """Give matplotlib a folder of this user's in the temporary folder (``MPLCONFIGDIR``) when it cannot write its
    own under the home folder, before it is imported; nothing when ``MPLCONFIGDIR`` is set or its own are writable.

    Without one (a container's home read-only or absent, ``HOME=/nonexistent``), matplotlib made a new temporary
    folder for each command, rebuilt its font cache there (0.7 s) and printed two warnings telling the user to set
    ``MPLCONFIGDIR``: on every chart.  This folder is kept, so the cache is built once; it is used only when it is
    this user's own and no one else's to write in.  When it cannot be made, matplotlib is left to find a folder
    and to say why it cannot.
    """
    if os.environ.get("MPLCONFIGDIR") or not sys.platform.startswith(("linux", "freebsd")):  # matplotlib's XDG rule
        return
    home = os.path.expanduser("~")
    home = None if home.startswith("~") else home  # no HOME and no password entry (docker run --user 1234)
    defaults = [os.environ.get("XDG_CONFIG_HOME") or (home and os.path.join(home, ".config")),
                os.environ.get("XDG_CACHE_HOME") or (home and os.path.join(home, ".cache"))]
    if all(base and _writable_folder(Path(base, "matplotlib")) for base in defaults):
        return
    try:
        own = made_users_folder(users_folder("canasta-sim-matplotlib"))
    except OSError:  # one another user made first, or no temporary folder at all
        return
    os.environ["MPLCONFIGDIR"] = str(own)


def _writable_folder(folder: Path) -> bool:
    """Whether ``folder`` is, or can be made, a folder this process can write to (as matplotlib asks)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return folder.is_dir() and os.access(folder, os.W_OK)


TITLE_SIZE = 12.0
"""Matplotlib's default title size in points (``large``)."""


def wrapped(text: str, width: float, size: float = TITLE_SIZE) -> str:
    """``text`` broken at spaces into lines that fit ``width`` inches at ``size`` points.

    An average glyph of the default font (DejaVu Sans) is about 0.6 of the size wide; 0.62 leaves a margin.
    """
    columns = max(12, int(width * 72 / (size * 0.62)))
    return "\n".join(textwrap.wrap(text, columns, break_on_hyphens=False)) or text


def title(axes, text: str, size: float = TITLE_SIZE) -> None:
    """An axes' title wrapped to the axes' share of its figure's width."""
    width = axes.figure.get_figwidth() * axes.get_position().width
    axes.set_title(wrapped(text, width, size), fontsize=size)


def suptitle(figure: Figure, text: str) -> None:
    """A figure's title wrapped to the figure's width."""
    figure.suptitle(wrapped(text, figure.get_figwidth() * 0.96), fontsize=TITLE_SIZE)


def colours(data: ChartData) -> dict[str, object]:
    """A colour for each strategy (and each side of a mirror match), none shared by two."""
    labels = list(dict.fromkeys([*data.entrants, *sorted(data.hands.labels)]))
    # Ten colours, so that no two of a ten-strategy round robin's share one (six did: the first and the seventh);
    # beyond ten, twenty, paler and darker.
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
               "tab:olive", "tab:cyan"]
    if len(labels) > len(palette):
        from matplotlib import colormaps

        palette = [colormaps["tab20"](index) for index in range(20)]
    return {label: palette[index % len(palette)] for index, label in enumerate(labels)}


def matchup(data: ChartData) -> str:
    """What the run pitted against what, for a chart's title: ``a vs b``, ``a mirror match``, ``round robin of N``,
    followed by the rules that differ from the defaults (``a vs b, rules canastas_to_go_out=2``)."""
    specs = [entry.get("spec") for entry in data.shown_manifest.get("strategies", [])]
    if len(specs) >= 3:
        pitted = f"round robin of {len(specs)}"
    else:
        pitted = " vs ".join(specs) if len(specs) == 2 else f"{specs[0]} mirror match" if specs else "run"
    # The charts of two rule variants were otherwise alike, title for title, once apart from their run's report.
    changed = data.manifest.get("rules_changed") or {}
    return f"{pitted}, rules {changed_rules_text(changed)}" if changed else pitted


LEGEND_INSIDE = 4
"""Series a chart's legend may list inside its axes: ten strategies' covered the bars and lines it names."""


def legend(axes, series: int) -> None:
    """The axes' legend: inside for a few ``series``, else beside the axes, the figure widened to hold it."""
    if series <= LEGEND_INSIDE:
        axes.legend(fontsize=8)
        return
    figure = axes.figure
    entries = axes.get_legend_handles_labels()[1]
    extra = max((len(entry) for entry in entries), default=0) * 8 * 0.62 / 72 + 0.6
    figure.set_figwidth(figure.get_figwidth() + extra)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
