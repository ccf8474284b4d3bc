"""The charts of ``canasta-sim report RUN_DIR --format markdown --output FILE``: a Markdown report published as a
run's ``README.md`` (on a website, in a repository, in a zip) shows the charts the HTML page shows, as PNG files
beside it linked by relative paths, each with its words (:func:`~canasta_sim.cli.chart_words.chart_words`) as its alt
text, so that the folder moved anywhere still shows them and a reader who cannot see them is told what they show.
"""

from __future__ import annotations

import errno
import os
import re
import urllib.parse
from pathlib import Path

from canasta_sim.cli.options import fail
from canasta_sim.cli.plot import chart_words, charts_for
from canasta_sim.cli.plot_data import ChartData
from canasta_sim.cli.plot_figures import save_chart

__all__ = ["CHART_DPI", "charts_folder", "markdown_charts"]

CHART_DPI = 110
"""The charts' resolution: ``canasta-sim plot``'s default, so that in the run's folder they are the files it writes."""


def charts_folder(run_dir: Path, output: Path) -> Path:
    """Where the charts of a Markdown report written to ``output`` go: the run's ``plots/`` when the report is in
    the run's folder (the charts ``canasta-sim plot`` puts there, not a second copy of them), else a folder named
    after the report beside it (``site/club-charts/`` for ``--output site/club.md``), so that two runs' reports in
    one folder of a website keep their own charts."""
    folder = output.parent
    if folder.is_dir() and run_dir.is_dir() and os.path.samefile(folder, run_dir):
        return folder / "plots"
    return folder / f"{output.stem}-charts"


def _refuse_anothers(folder: Path) -> None:
    """Refuse a charts folder another user owns (or a link they made there): ``-o /tmp/club.md`` puts the charts in
    ``/tmp/club-charts/``, which anyone may make first, then change the pictures of the published report in."""
    if hasattr(os, "getuid") and folder.lstat().st_uid != os.getuid():
        raise OSError(errno.EACCES, "another user's folder, who could change the charts after; remove it or write the "
                      "report elsewhere")


def _alt_text(words: str) -> str:
    """``words`` as Markdown alt text: on one line, the brackets and backslashes that would end it escaped."""
    return re.sub(r"([\\\[\]])", r"\\\1", " ".join(words.split()))


def markdown_charts(run_dir: Path, output: Path) -> tuple[str, Path]:
    """Draw every chart of the run into :func:`charts_folder` as ``<name>.png``; return the Markdown section showing
    them (a relative link each, from ``output``'s folder) and the folder.

    :raises click.UsageError: in one line, naming the folder, when a chart cannot be written there.
    """
    folder = charts_folder(run_dir, output)
    data = ChartData.of_directory(run_dir)
    lines = ["### Charts"]
    try:
        if folder.name == "plots" and folder.is_symlink():  # the run's own plots/, from a folder someone else made
            raise OSError(errno.ELOOP, "it is a link, not a folder of the run's own; remove it or write the report "
                          "elsewhere")
        folder.mkdir(exist_ok=True)
        _refuse_anothers(folder)
        for name, draw in charts_for(data).items():
            figure = draw(data)
            save_chart(figure, folder / f"{name}.png", CHART_DPI)
            link = urllib.parse.quote(f"{folder.name}/{name}.png")  # a space or a non-ASCII letter, as a URL needs
            lines.append(f"![{_alt_text(chart_words(figure))}]({link})")
    except OSError as error:
        raise fail(f"--output {output}: its charts cannot be written to {folder}: {error.strerror or error}") from None
    return "\n\n".join(lines), folder
