"""``plot`` and ``report --format html`` read a run part by part and draw from tallies of its tables: the charts are
those the whole tables give (the bars, intervals and points computed from the rows), and what they hold does not
grow with the games."""

import math
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.analysis import label_teams, load_run, notebook, ratings, with_strategy_names
from canasta_sim.cli import main
from canasta_sim.cli.plot import CHARTS, charts_for
from canasta_sim.cli.plot_data import ChartData, quantiles
from canasta_sim.runs.summary import Z_95


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Runs of several parts each (chunks of 16 games): duplicate deals head to head, and a round robin."""
    folder = tmp_path_factory.mktemp("parts")
    made = {}
    for name, options in (("duplicate", ["-s", "greedy", "-s", "random", "--duplicate"]),
                          ("round_robin", ["-s", "greedy", "-s", "random", "-s", "expert"])):
        out = folder / name
        result = CliRunner().invoke(main, ["run", "--games", "60", "--seed", "5", *options, "--workers", "1",
                                           "--chunk-size", "16", "--rules", "target_score=1000", "--out", str(out),
                                           "-q"])
        assert result.exit_code == 0, result.output
        made[name] = out
    return made


def drawn(figure) -> list:
    """What a figure shows, without rendering it: every text, and every bar's, line's and collection's coordinates."""
    shown = [figure.get_suptitle()]
    for axes in figure.axes:
        legend = axes.get_legend()
        shown += [axes.get_title(), axes.get_xlabel(), axes.get_ylabel(), axes.get_xlim(), axes.get_ylim(),
                  [text.get_text() for text in (*axes.texts, *axes.get_xticklabels(), *axes.get_yticklabels())],
                  [text.get_text() for text in legend.get_texts()] if legend else None,
                  [patch.get_path().transformed(patch.get_patch_transform()).vertices.tolist()
                   if hasattr(patch, "get_patch_transform") else patch.get_path().vertices.tolist()
                   for patch in axes.patches],
                  [(list(line.get_xdata()), list(line.get_ydata())) for line in axes.get_lines()],
                  [[path.vertices.tolist() for path in collection.get_paths()] for collection in axes.collections]]
    return shown


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["duplicate", "round_robin"])
def test_charts_read_part_by_part_show_what_the_whole_tables_show(kind, runs):
    whole, parts = load_run(runs[kind]), ChartData.of_directory(runs[kind])
    assert list(charts_for(whole)) == list(charts_for(parts))
    for name, draw in charts_for(whole).items():
        assert drawn(draw(whole)) == drawn(draw(parts)), name


def bars_and_intervals(axes) -> list[tuple[float, float, float]]:
    """Each bar's height with its error bar's two ends, in drawing order."""
    found = []
    for container in axes.containers:
        if hasattr(container, "lines"):  # an errorbar container: the bars come with it, in the BarContainer before
            (segments,) = [collection.get_segments() for collection in container.lines[2]]
            found += [(float(segment[:, 1].mean()), float(segment[0, 1]), float(segment[1, 1])) for segment in segments]
    return found


@pytest.mark.timeout(60)
def test_score_part_bars_are_the_means_of_the_rows_with_their_normal_intervals(runs):
    run = load_run(runs["duplicate"])
    named = with_strategy_names(run)
    hands = named.hands.assign(label=label_teams(named.hands))
    axes = CHARTS["score_components"](ChartData.of_directory(runs["duplicate"])).axes[0]
    heights = [patch.get_height() for patch in axes.patches]
    expected_heights, expected_halves = [], []
    for label in named.entrants:
        mine = hands[hands["label"] == label]
        for column, sign in (("meld_points", 1), ("canasta_bonus", 1), ("going_out_bonus", 1),
                             ("red_three_bonus", 1), ("hand_penalty", -1), ("score", 1)):
            values = sign * mine[column].astype(float).to_numpy()
            expected_heights.append(values.mean())
            expected_halves.append(Z_95 * values.std(ddof=1) / math.sqrt(len(values)))
    assert heights == pytest.approx(expected_heights, rel=1e-12)
    drawn = bars_and_intervals(axes)
    assert [high - middle for middle, _, high in drawn] == pytest.approx(expected_halves, rel=1e-9, abs=1e-9)


@pytest.mark.timeout(60)
def test_margin_and_hand_score_bars_count_the_rows_themselves(runs):
    run = with_strategy_names(load_run(runs["duplicate"]))
    parts = ChartData.of_directory(runs["duplicate"])
    (axes,) = [axes for axes in CHARTS["margins"](parts).axes if axes.patches]
    first = run.entrants[0]
    played = run.games[run.games["termination"] != "forfeit"]
    margins = np.where(played["team_a_strategy"] == first, played["margin"], -played["margin"])
    edges = [patch.get_x() for patch in axes.patches] + [axes.patches[-1].get_x() + axes.patches[-1].get_width()]
    counts, _ = np.histogram(margins, bins=np.array(edges))
    assert [patch.get_height() for patch in axes.patches] == list(counts)
    low, high = run.hands["score"].quantile([0.002, 0.998]).to_numpy()
    outlines = CHARTS["hand_scores"](parts).axes[0].patches  # one step outline per strategy
    assert len(outlines) == 2  # each over the bins the rows' own quantiles give
    for outline in outlines:
        edges = outline.get_path().vertices[:, 0]
        assert edges.min() == 100 * math.floor(low / 100) and edges.max() == 100 * math.ceil(high / 100)


@pytest.mark.timeout(60)
def test_cumulative_score_points_are_the_means_by_hand_of_the_rows(runs):
    run = with_strategy_names(load_run(runs["round_robin"]))
    hands = run.hands.assign(label=label_teams(run.hands))
    axes = CHARTS["cumulative_score"](ChartData.of_directory(runs["round_robin"])).axes[0]
    for line in axes.get_lines():
        label = line.get_label().rsplit(" (", 1)[0]
        if label not in set(hands["label"]):
            continue  # the target's line
        means = hands[hands["label"] == label].groupby("hand_no")["cumulative_score"].mean()
        assert list(line.get_ydata()) == [means[number] for number in line.get_xdata()]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 100, 1001])
def test_quantiles_of_counted_values_are_those_pandas_gives_for_the_values(size):
    values = np.random.default_rng(size).integers(-40, 400, size) * 5
    counts = pd.Series(values).value_counts().to_dict()
    levels = [0.002, 0.25, 0.5, 0.998]
    assert list(quantiles(counts, levels)) == list(pd.Series(values).quantile(levels).to_numpy())


@pytest.mark.timeout(120)
def test_plot_reads_one_part_at_a_time_and_never_a_whole_table(runs, tmp_path, monkeypatch):
    reads = []
    read_table = pq.read_table

    def one_part(source, **options):
        reads.append(Path(source))
        return read_table(source, **options)

    def whole(*_, **__):
        raise AssertionError("a whole table was loaded")

    monkeypatch.setattr(pq, "read_table", one_part)
    monkeypatch.setattr(pd, "read_parquet", whole)
    monkeypatch.setattr(notebook, "load_run", whole)
    run = runs["duplicate"]
    plotted = CliRunner().invoke(main, ["plot", str(run), "--out", str(tmp_path / "charts"), "--dpi", "30"])
    assert plotted.exit_code == 0, plotted.output
    assert reads and all(path.is_file() and path.name.startswith("part-") for path in reads)


@pytest.mark.timeout(60)
def test_what_the_charts_hold_does_not_grow_with_the_games(runs, tmp_path):
    # The same parts three times over (as chunks 0-3, 4-7, 8-11): three times the games, the same tallies but counts.
    bigger = tmp_path / "bigger"
    (bigger / "games").mkdir(parents=True)
    (bigger / "hands").mkdir()
    (bigger / "run.json").write_bytes((runs["duplicate"] / "run.json").read_bytes())
    for table in ("games", "hands"):
        parts = sorted((runs["duplicate"] / table).glob("part-*.parquet"))
        for copy in range(3):
            for index, part in enumerate(parts):
                (bigger / table / f"part-{copy * len(parts) + index:06d}.parquet").write_bytes(part.read_bytes())
    small, large = ChartData.of_directory(runs["duplicate"]), ChartData.of_directory(bigger)
    assert large.games.games == 3 * small.games.games
    assert len(pickle.dumps((large.games, large.hands))) < 1.1 * len(pickle.dumps((small.games, small.hands)))


@pytest.mark.timeout(60)
def test_win_rate_rows_list_each_strategy_of_a_round_robin_with_its_games_and_wins(runs):
    run = with_strategy_names(load_run(runs["round_robin"]))
    games = run.games
    # Side A's rows of every game, then side B's; each pair's rows are the pairwise_scores matrix.
    teams = pd.concat([pd.DataFrame({"label": games["team_a_strategy"], "opponent": games["team_b_strategy"],
                                     "won": games["winner"] == "A"}),
                       pd.DataFrame({"label": games["team_b_strategy"], "opponent": games["team_a_strategy"],
                                     "won": games["winner"] == "B"})], ignore_index=True)
    expected = []
    for label in ratings(run)["strategy"]:  # strongest first, as the reports list them
        mine = teams[teams["label"] == label]
        expected.append((f"{label}\nall games", f"n={len(mine)}", int(mine["won"].sum())))
    axes = CHARTS["win_rates"](ChartData.of_directory(runs["round_robin"])).axes[0]
    ticks = [tick.get_text() for tick in reversed(axes.get_yticklabels())]
    texts = [text.get_text() for text in reversed(axes.texts)]
    assert ticks == [row[0] for row in expected]
    assert [text.split()[-1] for text in texts] == [row[1] for row in expected]
    assert [text.split("%")[0] for text in texts] == [f"{100 * wins / int(n[2:]):.1f}" for _, n, wins in expected]


@pytest.mark.timeout(60)
def test_a_run_still_being_written_plots_its_finished_chunks(runs, tmp_path):
    # As a worker leaves it mid-write: a chunk whose hands part is in place and games part not yet, and a part being
    # written under its temporary name.
    run = tmp_path / "running"
    shutil.copytree(runs["duplicate"], run)
    (run / "games" / "part-000003.parquet").unlink()
    (run / "games" / ".tmp-1234-part-000003.parquet").write_bytes(b"PAR1 half written")
    result = CliRunner().invoke(main, ["plot", str(run), "--out", str(tmp_path / "charts"), "--dpi", "30"])
    assert result.exit_code == 0, result.output
    assert ChartData.of_directory(run).games.games == 48  # chunks 0 to 2, of 16 games each
