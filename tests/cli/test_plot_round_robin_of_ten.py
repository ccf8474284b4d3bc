"""``canasta-sim plot`` of a ten-strategy round robin: bounded charts a reader can read, true to the report's tables."""

import pytest
from click.testing import CliRunner

from canasta_sim.analysis import cross_table, load_run, ratings
from canasta_sim.cli import main
from canasta_sim.cli.plot import CHARTS, ROUND_ROBIN_CHARTS
from canasta_sim.cli.plot_data import ChartData

TEN = ["greedy", "random", "expert", "expert:aggression=0.1", "expert:aggression=0.9", "expert:freeze=0",
       "expert:freeze=2.5", "expert:wild_take_pile=10", "expert:ask_cards=0", "expert:answer_cost=250"]


@pytest.fixture(scope="module")
def ten(tmp_path_factory):
    """A round robin of ten strategies, two games a pair (90 games), short games (R15.1 target 1000)."""
    out = tmp_path_factory.mktemp("ten") / "run"
    specs = [option for spec in TEN for option in ("-s", spec)]
    result = CliRunner().invoke(main, ["run", "--games", "90", "--seed", "5", *specs, "--workers", "1",
                                       "--rules", "target_score=1000", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    return load_run(out)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name, inches", [("win_rates", 10), ("margins", 13), ("pairwise_scores", 11),
                                          ("ratings", 10)])
def test_a_ten_strategy_round_robin_chart_stays_bounded(name, inches, ten):
    # win_rates drew a bar for each ordered pair: 100 rows, 6,182 pixels tall; margins a panel each, 36 inches.
    figure = {**CHARTS, **ROUND_ROBIN_CHARTS}[name](ten)
    assert figure.get_figheight() <= inches and figure.get_figwidth() <= 14, figure.get_size_inches()


@pytest.mark.timeout(180)
def test_no_two_of_ten_strategies_share_a_colour(ten):
    # Six colours went round: the first strategy and the seventh were drawn alike.
    figure = CHARTS["cumulative_score"](ten)
    colours = [line.get_color() for line in figure.axes[0].lines if not line.get_label().startswith("target")]
    assert len(colours) == 10 and len(set(colours)) == 10, colours


@pytest.mark.timeout(180)
def test_the_pairwise_matrix_shows_each_pairs_score_from_the_cross_table_in_rating_order(ten):
    figure = ROUND_ROBIN_CHARTS["pairwise_scores"](ten)
    axes = figure.axes[0]
    names = ChartData.of_loaded(ten).names  # the charts name each strategy as the run recorded it
    strongest_first = [names.get(spec, spec) for spec in ratings(ten)["strategy"]]
    assert [label.get_text() for label in axes.get_yticklabels()] == strongest_first
    assert [label.get_text() for label in axes.get_xticklabels()] == strongest_first
    cells = {(round(text.get_position()[1]), round(text.get_position()[0])): text.get_text() for text in axes.texts}
    table = cross_table(ten)
    assert len(table) == 90 and len(cells) == 90
    for row in table.itertuples():
        cell = cells[(strongest_first.index(names.get(row.strategy, row.strategy)),
                      strongest_first.index(names.get(row.opponent, row.opponent)))]
        assert cell.startswith(f"{100 * row.score:.1f}%\n[{100 * row.score_low:.1f}, {100 * row.score_high:.1f}]"), (
            row, cell)


@pytest.mark.timeout(180)
def test_the_pairwise_matrix_of_ten_fits_every_label_inside_the_figure_without_overlap(ten):
    figure = ROUND_ROBIN_CHARTS["pairwise_scores"](ten)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    boxes = [label.get_window_extent(renderer) for label in axes.get_yticklabels()]
    for text in [axes.title, *axes.get_xticklabels(), *axes.get_yticklabels()]:
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= figure.bbox.width and box.y1 <= figure.bbox.height, text
    for above, below in zip(boxes, boxes[1:], strict=False):
        assert not above.overlaps(below)


@pytest.mark.timeout(180)
def test_the_per_hand_statistics_of_ten_strategies_name_every_bar_without_overlap(ten):
    # Wrapped to a tenth of a panel's width, neighbouring names ran into each other.
    figure = CHARTS["per_hand_stats"](ten)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for axes in figure.axes:
        boxes = [label.get_window_extent(renderer) for label in axes.get_xticklabels()]
        assert len(boxes) == 10
        for left, right in zip(boxes, boxes[1:], strict=False):
            assert left.x1 <= right.x0, (left, right)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", ["hand_scores", "score_components", "cumulative_score"])
def test_the_legend_of_ten_strategies_stands_beside_the_data_inside_the_figure(name, ten):
    # Ten entries inside the axes covered the bars and lines they named.
    figure = CHARTS[name](ten)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    box = axes.get_legend().get_window_extent(renderer)
    assert box.x0 >= axes.get_window_extent(renderer).x1 and box.x1 <= figure.bbox.width, (box, figure.bbox)
