"""Each chart's words (``chart_words``, the HTML report's text alternative of its picture): its title and the figures
it draws, from the same numbers; the title alone told a reader who cannot see the picture nothing of them."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.plot import chart_words, charts_for
from canasta_sim.cli.plot_data import ChartData

NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A duplicate match (paired win rates) and a round robin (ratings), short games."""
    folder = tmp_path_factory.mktemp("chart-words")
    made = {}
    for name, games, options in (("duplicate", "8", ["-s", "greedy", "-s", "random", "--duplicate"]),
                                 ("round_robin", "12", ["-s", "greedy", "-s", "random", "-s", "expert"])):
        result = CliRunner().invoke(main, ["run", "--games", games, "--seed", "4", *options, "--workers", "1", "-q",
                                           "--rules", "target_score=1000", "--out", str(folder / name)])
        assert result.exit_code == 0, result.output
        made[name] = folder / name
    return made


def _numbers(text: str) -> list[tuple[float, float]]:
    """Each number written in ``text``, with half a unit of its last digit (how far its rounding may be off)."""
    return [(float(n), 0.5 * 10 ** -len(n.partition(".")[2]) + 1e-9) for n in NUMBER.findall(text.replace("−", "-"))]


def _said(value: float, words: list[tuple[float, float]]) -> bool:
    return any(abs(value - said) <= off for said, off in words)


def _written_on(figure) -> list[str]:
    """The figures a chart writes: its texts beside the bars and its legends' entries."""
    found = []
    for axes in figure.axes:
        legend = axes.get_legend()
        found += [text.get_text() for text in axes.texts if not text.get_text().startswith("nothing to draw")]
        # Less the reference lines' own entries ("50%", "the entrants' mean"): a mark, not a figure of the run.
        found += [text.get_text() for text in legend.get_texts() if text.get_text() != "50%"] if legend else []
    return found


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["duplicate", "round_robin"])
def test_each_charts_words_give_its_title_and_every_figure_it_draws(runs, kind):
    run = ChartData.of_directory(runs[kind])
    for name, draw in charts_for(run).items():
        figure = draw(run)
        words = chart_words(figure)
        said = _numbers(words)
        title = " ".join((figure.get_suptitle() or figure.axes[0].get_title()).split())
        assert words.split(":")[0] == title.split(":")[0] and len(words) > len(title), (name, title, words)
        for text in _written_on(figure):  # every figure written on the chart is said
            assert all(_said(value, said) for value, _ in _numbers(text)), (name, text, words)
        if name in ("win_rates", "per_hand_stats", "score_components"):  # and every bar's length
            for axes in figure.axes:
                for bar in axes.patches:
                    length = bar.get_width() if name == "win_rates" else bar.get_height()
                    assert _said(length, said), (name, length, words)


def test_the_win_rates_words_give_each_rate_with_its_interval(runs):
    run = ChartData.of_directory(runs["duplicate"])
    words = chart_words(charts_for(run)["win_rates"](run))
    assert re.search(r"greedy@\d+, all games \(paired, 4 deals\): \d+\.\d% \(95% interval \d+\.\d to \d+\.\d%, "
                     r"8 games\)", words), words
