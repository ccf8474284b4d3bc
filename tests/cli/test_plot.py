"""``canasta-sim plot``: every chart is written, labelled, and shows its sample sizes."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.analysis import load_run, ratings, strategy_names
from canasta_sim.cli import main
from canasta_sim.cli.plot import CHARTS, ROUND_ROBIN_CHARTS
from canasta_sim.cli.plot_data import ChartData
from canasta_sim.cli.plot_figures import matchup
from canasta_sim.plugins.loader import load_strategy

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# The charts name strategies as the run recorded them: name@version.
GREEDY, RANDOM, EXPERT = (load_strategy(spec).label for spec in ("greedy", "random", "expert"))


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    """A head-to-head run, a mirror match and a round robin, short games (R15.1 target 1000)."""
    folder = tmp_path_factory.mktemp("runs")
    runs = {}
    for name, strategies in (("head_to_head", ["-s", "greedy", "-s", "random"]), ("mirror", ["-s", "greedy"]),
                             ("round_robin", ["-s", "greedy", "-s", "random", "-s", "expert"])):
        out = folder / name
        result = CliRunner().invoke(main, ["run", "--games", "40", "--seed", "3", *strategies, "--workers", "1",
                                           "--rules", "target_score=1000", "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
        runs[name] = out
    return runs


@pytest.mark.parametrize("kind", ["head_to_head", "mirror", "round_robin"])
def test_plot_writes_every_chart_as_png(kind, small_runs, tmp_path):
    # The mirror's charts go where plot puts them without --out: the run's own plots folder (each plot draws every
    # chart, seconds of the suite, so the default folder is checked on this one).
    out = small_runs[kind] / "plots" if kind == "mirror" else tmp_path / "charts"
    where = [] if kind == "mirror" else ["--out", str(out)]
    result = CliRunner().invoke(main, ["plot", str(small_runs[kind]), *where, "--dpi", "40"])
    assert result.exit_code == 0, result.output
    written = sorted(path.name for path in out.iterdir())
    charts = {**CHARTS, **(ROUND_ROBIN_CHARTS if kind == "round_robin" else {})}
    assert written == sorted(f"{name}.png" for name in charts)
    assert result.output.split() == [str(out / f"{name}.png") for name in charts]
    for path in out.iterdir():
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 2000


@pytest.mark.parametrize("name", list(CHARTS))
def test_each_chart_has_title_axis_labels_with_units_and_sample_sizes(name, small_runs):
    run = load_run(small_runs["head_to_head"])
    figure = CHARTS[name](run)
    axes = [axes for axes in figure.axes if axes.has_data()]
    assert axes
    suptitle = figure._suptitle.get_text() if figure._suptitle else ""
    texts = [suptitle]
    for each in axes:
        assert each.get_title() or suptitle
        assert each.get_ylabel() or each.get_yticklabels()  # bar charts by strategy name their bars instead
        texts += [each.get_title(), each.get_xlabel(), each.get_ylabel()]
        legend = each.get_legend()
        if legend is not None:
            texts += [text.get_text() for text in legend.get_texts()]
        texts += [text.get_text() for text in each.texts]
    joined = " ".join(texts)
    assert any(axes.get_xlabel() for axes in axes) or name == "per_hand_stats"
    assert re.search(r"points|%|per team-hand|hands|hand number", joined), joined
    assert re.search(r"n=\d+|\d+ games|team-hands [^:]+: \d+", joined), joined


def test_win_rate_chart_shows_both_strategies_by_side(small_runs):
    figure = CHARTS["win_rates"](load_run(small_runs["head_to_head"]))
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert labels == [f"{RANDOM}\nas side B", f"{RANDOM}\nas side A", f"{RANDOM}\nall games",
                      f"{GREEDY}\nas side B", f"{GREEDY}\nas side A", f"{GREEDY}\nall games"]
    assert any("n=40" in text.get_text() for text in figure.axes[0].texts)


def test_a_round_robin_shows_each_strategy_in_the_win_rates_and_each_matchup_in_the_pairwise_matrix(small_runs):
    run = load_run(small_runs["round_robin"])
    labels = [label.get_text().replace("\n", " ") for label in CHARTS["win_rates"](run).axes[0].get_yticklabels()]
    assert sorted(labels) == sorted(f"{name} all games" for name in (GREEDY, RANDOM, EXPERT))
    matrix = ROUND_ROBIN_CHARTS["pairwise_scores"](run).axes[0]
    assert {label.get_text() for label in matrix.get_yticklabels()} == {GREEDY, RANDOM, EXPERT}
    assert len(matrix.texts) == 6  # each ordered pair once, none on the diagonal


def test_mirror_match_charts_compare_the_sides(small_runs):
    figure = CHARTS["win_rates"](load_run(small_runs["mirror"]))
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert labels == [f"{GREEDY} (B)\nall games", f"{GREEDY} (A)\nall games"]


@pytest.mark.parametrize("case, said", [
    ("missing", "does not exist"), ("a file", "is a file"), ("neither", "holds neither run.json nor tune.json")])
def test_plot_of_no_directory_it_reads_names_both_a_run_and_a_tuning(case, said, tmp_path):
    # "run directory ... does not exist" misled a user who had meant a tuning's directory.
    path = tmp_path / "tuned"
    if case == "a file":
        path.write_text("not a directory")
    elif case == "neither":
        path.mkdir()
    result = CliRunner().invoke(main, ["plot", str(path)])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        f"Error: {path} {said}: plot takes a run's or a tuning's directory"], result.output


def test_plot_refuses_an_out_that_is_a_file(small_runs, tmp_path):
    target = tmp_path / "file.png"
    target.write_text("not a folder")
    result = CliRunner().invoke(main, ["plot", str(small_runs["mirror"]), "--out", str(target)])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        f"Error: --out {target} is a file; give a folder for the charts"]


# --- round robins and duplicate deals in the charts -----------------------------------------------


def test_round_robin_margins_show_every_strategy(small_runs):
    run = load_run(small_runs["round_robin"])
    figure = CHARTS["margins"](run)
    panels = [axes for axes in figure.axes if axes.has_data()]
    legends = [axes.get_legend().get_texts()[0].get_text() for axes in panels]
    # Strongest first, as the ratings rank them and the reports list them.
    names = strategy_names(run)
    assert [legend.split(",")[0] for legend in legends] == [names[spec] for spec in ratings(run)["strategy"]]
    assert all("n=" in legend for legend in legends)


def test_per_hand_count_intervals_never_go_below_zero(small_runs):
    figure = CHARTS["per_hand_stats"](load_run(small_runs["round_robin"]))
    counts = [axes for axes in figure.axes if axes.get_ylabel().endswith("per team-hand")]
    assert len(counts) == 6
    for axes in counts:
        for container in axes.containers:
            if hasattr(container, "lines"):
                assert all(segment[:, 1].min() >= 0 for segment in container.lines[2][0].get_segments())


def test_per_hand_rate_intervals_stay_within_0_and_100_percent(small_runs):
    figure = CHARTS["per_hand_stats"](load_run(small_runs["round_robin"]))
    rates = [axes for axes in figure.axes if axes.get_ylabel() == "% of team-hands"]
    assert [axes.get_title() for axes in rates] == ["went out", "went out concealed", "no initial meld made"]
    for axes in rates:
        # The error bars: one vertical segment per strategy's bar.
        segments = [segment for container in axes.containers if hasattr(container, "lines")
                    for segment in container.lines[2][0].get_segments()]
        assert len(segments) == 3
        for segment in segments:
            assert 0 <= segment[:, 1].min() and segment[:, 1].max() <= 100


def test_hand_axes_have_whole_numbers_of_hands(small_runs):
    for name in ("cumulative_score", "hands_per_game"):
        figure = CHARTS[name](load_run(small_runs["mirror"]))
        for axes in figure.axes:
            ticks = axes.get_xticks()
            assert all(float(tick).is_integer() for tick in ticks), (name, ticks)


def test_a_round_robin_gets_a_ratings_chart_with_every_entrant(small_runs):
    figure = ROUND_ROBIN_CHARTS["ratings"](load_run(small_runs["round_robin"]))
    names = {label.get_text() for label in figure.axes[0].get_yticklabels()}
    assert names == {GREEDY, RANDOM, EXPERT} and "Elo" in figure.axes[0].get_xlabel()


def _duplicate_run(tmp_path, games: int):
    """Play ``games`` duplicate games of greedy against random into ``tmp_path / "dup"``: the folder and the result."""
    out = tmp_path / "dup"
    result = CliRunner().invoke(main, ["run", "--games", str(games), "--seed", "3", "-s", "greedy", "-s", "random",
                                       "--duplicate", "--workers", "1", "--rules", "target_score=1000", "--out",
                                       str(out), "-q"])
    return out, result


@pytest.mark.timeout(120)
def test_duplicate_runs_draw_the_paired_interval(tmp_path):
    out, result = _duplicate_run(tmp_path, 20)
    assert result.exit_code == 0, result.output
    report = json.loads(CliRunner().invoke(main, ["report", str(out), "--format", "json"]).output)
    paired = report["duplicate"][0]
    figure = CHARTS["win_rates"](load_run(out))
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert f"{GREEDY}\nall games (paired, 10 deals)" in labels and f"{RANDOM}\nall games (paired, 10 deals)" in labels
    texts = [text.get_text() for text in figure.axes[0].texts]
    expected = (f"{100 * paired['score']:.1f}%  [{100 * paired['score_low']:.1f}, "
                f"{100 * paired['score_high']:.1f}]")
    assert any(text.startswith(expected) for text in texts), (expected, texts)


@pytest.mark.timeout(120)
def test_a_paired_row_whose_deals_all_gave_the_same_points_draws_no_interval(tmp_path):
    # greedy won both games of each of the 3 deals: the row read "100.0%  [100.0, 100.0]", a bar of no width.
    out, result = _duplicate_run(tmp_path, 6)
    assert result.exit_code == 0 and "0/0/0/0/3" in result.output, result.output
    figure = CHARTS["win_rates"](load_run(out))
    texts = [text.get_text() for text in figure.axes[0].texts]
    assert "100.0%  [n/a]  n=6" in texts and "0.0%  [n/a]  n=6" in texts, texts
    assert len(figure.axes[0].containers) == 6 + 4  # a bar for each of the 6 rows, an error bar for the 4 side rows


# --- names and titles ------------------------------------------------------------------------------------

LONG_NAMED_BOT = '''
from canasta_sim.strategies.greedy import Greedy


class MyRatherCarefullyNamedBot(Greedy):
    name = "my-rather-carefully-named-bot"
    version = 3
'''


@pytest.fixture(scope="module")
def file_spec_run(tmp_path_factory):
    """A run of a strategy given by a file spec (a long path) against greedy."""
    folder = tmp_path_factory.mktemp("a_folder_with_a_fairly_long_name_for_the_strategy_files")
    (folder / "my_rather_carefully_named_bot.py").write_text(LONG_NAMED_BOT)
    out = folder / "run"
    spec = f"{folder / 'my_rather_carefully_named_bot.py'}:MyRatherCarefullyNamedBot"
    result = CliRunner().invoke(main, ["run", "--games", "12", "--seed", "3", "-s", spec, "-s", "greedy",
                                       "--workers", "1", "--rules", "target_score=1000", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    return out


def _texts(figure) -> list:
    """Every title, axis label, tick label, legend entry and note of a figure, as matplotlib Text objects."""
    texts = [figure._suptitle] if figure._suptitle else []
    for axes in figure.axes:
        texts += [axes.title, axes.xaxis.label, axes.yaxis.label, *axes.texts, *axes.get_xticklabels(),
                  *axes.get_yticklabels()]
        if axes.get_legend() is not None:
            texts += list(axes.get_legend().get_texts())
    return [text for text in texts if text.get_text()]


@pytest.mark.parametrize("name", list(CHARTS))
def test_charts_name_strategies_by_name_and_version_and_titles_fit(name, file_spec_run):
    run = load_run(file_spec_run)
    figure = CHARTS[name](run)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = _texts(figure)
    joined = " ".join(text.get_text() for text in texts)
    assert "my-rather-carefully-named-bot@3" in joined and "greedy@" in joined, joined
    assert ".py" not in joined and ":MyRather" not in joined, joined
    width, height = figure.bbox.width, figure.bbox.height
    titles = [figure._suptitle] if figure._suptitle else []
    titles += [axes.title for axes in figure.axes if axes.title.get_text()]
    assert titles
    for text in titles:  # every title lies wholly inside the figure
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height, (text.get_text(), box, width)


@pytest.mark.timeout(120)
def test_the_win_rate_chart_of_two_settings_of_one_file_fits_every_text(tmp_path):
    # Both are the same name@version, so each is named with its spec: long labels once squeezed the axes and pushed
    # the title and the paired rows' caption past the figure's right edge.
    folder = tmp_path / "a_folder_with_a_fairly_long_name_for_the_strategy_files"
    folder.mkdir()
    (folder / "my_rather_carefully_named_bot.py").write_text(
        LONG_NAMED_BOT + '    parameters = {"patience_for_the_pile": 3, "danger_cards": 2}\n')
    spec = f"{folder / 'my_rather_carefully_named_bot.py'}:MyRatherCarefullyNamedBot"
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--games", "8", "--seed", "3", "-s", f"{spec}:patience_for_the_pile=18,"
                                       "danger_cards=0", "-s", spec, "--duplicate", "--workers", "1",
                                       "--rules", "target_score=1000", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    figure = CHARTS["win_rates"](load_run(out))
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    texts = [axes.title, axes.xaxis.label, *axes.texts, *axes.get_yticklabels()]  # x ticks past the limits go undrawn
    assert "paired" in axes.xaxis.label.get_text()
    for text in texts:
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= figure.bbox.width, (text.get_text(), box, figure.bbox.width)


def test_the_per_hand_chart_title_of_a_file_spec_fits_and_names_the_strategy(file_spec_run):
    figure = CHARTS["per_hand_stats"](load_run(file_spec_run))
    figure.canvas.draw()
    box = figure._suptitle.get_window_extent(figure.canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= figure.bbox.width
    assert figure._suptitle.get_text().startswith("Per-hand statistics: my-rather-carefully-named-bot@3 vs greedy@")


def test_a_one_game_run_draws_its_margin_as_a_visible_bar_and_counts_one_game(tmp_path):
    # A game saved by play --save is a run of one game: its margin's bar was 0.1 points wide, invisible on an axis of
    # 1,750 points, and the titles read "(1 games)".
    made = CliRunner().invoke(main, ["run", "--games", "1", "--seed", "3", "-s", "greedy", "-s", "random",
                                     "--workers", "1", "--rules", "target_score=500", "--out", str(tmp_path), "-q"])
    assert made.exit_code == 0, made.output
    run = load_run(tmp_path)
    figure = CHARTS["margins"](run)
    axes = figure.axes[0]
    low, high = axes.get_xlim()
    bars = [patch.get_width() for patch in axes.patches if patch.get_height() > 0]
    assert bars and max(bars) >= (high - low) / 40, (bars, low, high)
    for name, draw in CHARTS.items():
        titles = " ".join(text.get_text() for text in _texts(draw(run)))
        assert not re.search(r"\b1 games\b|n=1 games", titles), (name, titles)


@pytest.mark.parametrize("name", list(CHARTS))
def test_each_chart_names_the_rules_that_differ_from_the_defaults(name, small_runs):
    # Charts of two rule variants (canastas_to_go_out=1 and 2, say) had the same titles: once copied out of their
    # run's folder, nothing told which rule set each showed.
    figure = CHARTS[name](load_run(small_runs["head_to_head"]))
    joined = " ".join(" ".join(text.get_text().split()) for text in _texts(figure))
    assert "rules target_score=1000" in joined, joined


def test_a_chart_of_default_rules_names_no_rules():
    data = ChartData(Path("run"), {"strategies": [{"spec": "greedy", "label": GREEDY}, {"spec": "random",
                                                                                         "label": RANDOM}],
                                   "rules_changed": {}})
    assert matchup(data) == f"{GREEDY} vs {RANDOM}"
    changed = ChartData(Path("run"), {**data.manifest, "rules_changed": {"allow_wild_only_melds": True,
                                                                        "canastas_to_go_out": 2}})
    assert matchup(changed) == f"{GREEDY} vs {RANDOM}, rules allow_wild_only_melds=true, canastas_to_go_out=2"
