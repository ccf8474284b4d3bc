"""What a club organizer publishes of a round robin: every printed form of the report (the text summary, Markdown,
HTML, and the summary ``run`` prints) names the strategies as the header and the charts do (``greedy@2``, never the
spec in one table and the name in the next), and lists them strongest first, as the ratings rank them."""

import base64
import errno
import json
import os
import re
import shlex
import shutil
import urllib.parse
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main, report_html, report_markdown
from canasta_sim.cli.plot import CHARTS
from canasta_sim.cli.plot_data import ChartData
from canasta_sim.cli.replaying import specs_named_from_start
from tests.helpers import invoked

GIVEN = ["random", "greedy", "expert"]
"""Weakest first, so that the run's order is not the ranking's."""
NAMES = {"random": "random@2", "greedy": "greedy@2", "expert": "expert@1"}


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory):
    """The run's folder and what ``run`` printed."""
    out = tmp_path_factory.mktemp("club") / "club results"
    specs = [word for spec in GIVEN for word in ("-s", spec)]
    printed = invoked("run", "--games", "6", *specs, "--rules", "target_score=1000", "--workers", "1", "-q", "--seed",
                      "2", "--out", out)
    return out, printed


def _ranking(run) -> list[str]:
    return [NAMES[rating["strategy"]] for rating in json.loads(invoked("report", run, "--format", "json"))["ratings"]]


def _text_rows(printed: str) -> list[str]:
    """The first cell of each row of the text summary (the lines after its header, up to the blank line)."""
    lines = printed.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("strategy "))
    return [line.split()[0] for line in lines[start + 1:lines.index("", start)]]


def _markdown_tables(markdown: str) -> list[list[list[str]]]:
    """Each pipe table's body rows, as lists of cells."""
    tables, rows = [], []
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


@pytest.mark.timeout(120)
def test_every_printed_form_names_the_strategies_as_the_header_and_charts_do(round_robin, monkeypatch):
    run, printed = round_robin
    names = set(NAMES.values())
    for text in (printed, invoked("report", run)):
        assert set(_text_rows(text)) == names  # the summary
        matrix = text.split("cross table")[1].split("\n\n")[0].splitlines()
        assert set(matrix[1].split()[-3:]) == names and {line.split()[0] for line in matrix[2:]} == names
        ratings = text.split("ratings (")[1].splitlines()[2:5]
        assert {line.split()[1] for line in ratings} == names
    summary, cross, ratings = _markdown_tables(invoked("report", run, "--format", "markdown"))
    assert {row[0] for row in summary} == {row[0] for row in cross} == {row[1] for row in ratings} == names
    # The page's tables alone: its charts and replays (seconds of drawing and playing) are not what is checked.
    monkeypatch.setattr(report_html, "_chart_images", lambda data: [])
    monkeypatch.setattr(report_html, "_replays", lambda *arguments: [])
    page = invoked("report", run, "--format", "html")
    tables = page.split('<div id="summary">')[1].split("<h2>Charts</h2>")[0]
    assert set(re.findall(r'<td class="text">([^<]*)</td>', tables)) == names


@pytest.mark.timeout(120)
def test_a_round_robins_summary_lists_the_strategies_strongest_first_as_its_ratings_and_charts_do(round_robin):
    run, printed = round_robin
    ranking = _ranking(run)
    assert ranking != [NAMES[spec] for spec in GIVEN]  # else the test could not tell the orders apart
    assert _text_rows(printed) == _text_rows(invoked("report", run)) == ranking
    summary, cross, _ = _markdown_tables(invoked("report", run, "--format", "markdown"))
    assert [row[0] for row in summary] == [row[0] for row in cross] == ranking
    assert ChartData.of_directory(run).entrants == ranking  # the win rates and every other chart's order


@pytest.mark.timeout(120)
def test_a_markdown_report_shows_the_charts_as_files_beside_it_from_a_moved_folder(round_robin, tmp_path,
                                                                                    monkeypatch):
    run, _ = round_robin
    drawn = {name: CHARTS[name] for name in ("win_rates", "hands_per_game")}  # two of them: seconds less of drawing
    monkeypatch.setattr(report_markdown, "charts_for", lambda data: drawn)
    monkeypatch.setattr(report_markdown, "CHART_DPI", 40)
    moved = tmp_path / "Ergebnisse Köln"  # unzipped by a colleague elsewhere, under another name
    shutil.copytree(run, moved)
    site = tmp_path / "site"  # the published folder may be read-only: the report goes to a website's folder
    site.mkdir()
    report = site / "club report.md"
    said = invoked("report", moved, "--format", "markdown", "--output", report)
    assert said.strip() == f"Wrote {report} and its charts in {site / 'club report-charts'}."
    images = re.findall(r"!\[([^\n]*?)\]\(([^)\s]+)\)", report.read_text(encoding="utf-8"))
    assert [Path(urllib.parse.unquote(link)).stem for _, link in images] == list(drawn)
    for alt, link in images:
        assert not Path(link).is_absolute() and (site / urllib.parse.unquote(link)).read_bytes()[:4] == b"\x89PNG"
        assert len(alt) > 60 and alt.endswith(".")  # the chart's title and figures in words, not its file name
    # In the run's own folder, as its README, the charts are plot's own files in plots/, not a second copy.
    assert report_markdown.charts_folder(moved, moved / "README.md") == moved / "plots"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """The organizer's folder, ``.../home/alice/club``, made the current directory: no published file may name it."""
    folder = tmp_path / "home" / "alice" / "club"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.timeout(120)
def test_a_published_folder_names_no_folder_of_the_machine_that_made_it_and_plays_again_elsewhere(tmp_path, home,
                                                                                                  monkeypatch):
    run = home / "club results"  # typed as an absolute path
    specs = [word for spec in GIVEN for word in ("-s", spec)]
    invoked("run", "--games", "6", *specs, "--rules", "target_score=1000", "--workers", "1", "-q", "--seed", "2",
            "--out", run)
    monkeypatch.setattr(report_html, "_chart_images", lambda data: [])  # the replays' titles are what is checked
    published = [(run / "run.json").read_text(encoding="utf-8"), invoked("report", run, "--format", "markdown"),
                 invoked("report", run, "--format", "html")]
    replays = re.findall(r'<script type="text/plain" id="replay-\d+">([^<]*)</script>', published[-1])
    published += [base64.b64decode(replay).decode("utf-8") for replay in replays]
    assert len(published) > 3 and not [text for text in published if "alice" in text]
    # A colleague unzips it elsewhere, under another name, and plays the recorded command again from there.
    colleague = tmp_path / "bob"
    shutil.copytree(run, colleague / "Ergebnisse Köln")
    monkeypatch.chdir(colleague)
    command = json.loads((colleague / "Ergebnisse Köln" / "run.json").read_text(encoding="utf-8"))["command"]
    invoked(*shlex.split(command)[1:])
    for table in ("games", "hands"):
        again, first = (pd.read_parquet(folder / table).sort_values(["game_id"], kind="stable").reset_index(drop=True)
                        for folder in (colleague / "club results", colleague / "Ergebnisse Köln"))
        pd.testing.assert_frame_equal(again, first)


@pytest.mark.timeout(120)
def test_a_run_made_read_only_after_publishing_is_told_to_plot_elsewhere(round_robin, monkeypatch):
    run, _ = round_robin
    folder = run / "plots"
    made = Path.mkdir

    def read_only(path, *arguments, **keywords):
        if path == folder:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return made(path, *arguments, **keywords)

    monkeypatch.setattr(Path, "mkdir", read_only)
    result = CliRunner().invoke(main, ["plot", str(run)])
    # It named an option never given: "--out .../plots: Read-only file system".
    assert result.exit_code == 2 and result.output.splitlines() == [
        f"Error: {folder}: Read-only file system; give --out FOLDER to write the charts elsewhere"]


@pytest.mark.timeout(120)
def test_a_published_tuning_names_no_folder_of_the_machine_that_made_it_and_plays_again_elsewhere(tmp_path, home,
                                                                                                  monkeypatch):
    tuning = home / "tuned expert"  # typed as an absolute path
    invoked("tune", "expert", "--params", "aggression", "--games", "4", "--games-per-iteration", "2", "--seed", "1",
            "--rules", "target_score=500", "--workers", "1", "-q", "--out", tuning)
    recorded = json.loads((tuning / "tune.json").read_text(encoding="utf-8"))
    assert "alice" not in json.dumps(recorded) and recorded["directory"] is None
    # A colleague unzips it elsewhere, under another name, and plays the recorded command again from there.
    colleague = tmp_path / "bob"
    shutil.copytree(tuning, colleague / "Ergebnisse Köln")
    monkeypatch.chdir(colleague)
    invoked(*shlex.split(recorded["command"])[1:])
    again, first = (pd.read_parquet(folder / "trajectory.parquet") for folder in (colleague / "tuned expert", tuning))
    pd.testing.assert_frame_equal(again, first)


@pytest.mark.timeout(120)
def test_a_bot_typed_by_its_absolute_path_is_named_from_the_home_and_plays_again_from_another_folder(tmp_path, home,
                                                                                                    monkeypatch):
    monkeypatch.setenv("HOME", str(home.parent))  # .../home/alice
    bots = home.parent / "bots"  # beside the club's folder, outside it
    bots.mkdir()
    (bots / "mine.py").write_text("from canasta_sim.strategies.greedy import Greedy\n\n\nclass Mine(Greedy):\n"
                                  "    name = 'mine'\n", encoding="utf-8")
    run = home / "club results"
    printed = invoked("run", "--games", "4", "-s", f"{bots / 'mine.py'}:Mine", "-s", "random", "--rules",
                      "target_score=500", "--workers", "1", "--seed", "2", "--chunk-size", "2", "--out", run)
    named = "~/bots/mine.py:Mine"  # the key a colleague's run of the bot in their own ~/bots has too
    games = pd.read_parquet(run / "games")
    assert set(games["team_a_strategy"]) == {named, "random"}
    recorded = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert [entry["spec"] for entry in recorded["strategies"]] == [named, "random"] and recorded["directory"] is None
    report = json.loads(invoked("report", run, "--format", "json"))
    assert {row["strategy"] for row in report["strategies"]} == {named, "random"}
    assert not [text for text in (printed.split(" -> ")[0], invoked("report", run, "--format", "markdown"),
                                  recorded["command"]) if "alice" in text]
    # From another folder, the run is resumed and its games replayed.
    for table in ("games", "hands"):
        (run / table / "part-000001.parquet").unlink()
    monkeypatch.chdir(tmp_path)
    invoked("run", "--resume", run, "--workers", "1", "-q")
    pd.testing.assert_frame_equal(pd.read_parquet(run / "games").sort_values("game_id", ignore_index=True),
                                  games.sort_values("game_id", ignore_index=True))
    assert "The replay ends at the scores the run recorded" in invoked("replay", run, 3)


def test_a_bot_typed_by_its_absolute_path_in_the_start_folder_is_named_from_there_and_elsewhere_as_typed(home,
                                                                                                       monkeypatch):
    monkeypatch.setenv("HOME", str(home.parent))
    typed = [f"{home}/bots/mine.py:Mine", f"isolated:{home}/mine.py:Mine:depth=2", "/opt/bots/theirs.py:Theirs",
             "bots/mine.py:Mine", "greedy"]
    assert specs_named_from_start(typed) == ("bots/mine.py:Mine", "isolated:mine.py:Mine:depth=2",
                                             "/opt/bots/theirs.py:Theirs", "bots/mine.py:Mine", "greedy")


@pytest.mark.timeout(120)
def test_a_run_resumed_from_another_folder_knows_its_bot_given_again_by_any_path_and_no_other_file(home, tmp_path,
                                                                                                 monkeypatch):
    # Its bot named from the start folder (bots/mine.py:Mine), the run refused the same file typed again from
    # elsewhere, by its absolute path or any other ("the run was made with other settings").
    (home / "bots").mkdir()
    for name in ("mine.py", "copy.py"):
        (home / "bots" / name).write_text("from canasta_sim.strategies.greedy import Greedy\n\n\nclass Mine(Greedy):\n"
                                          "    name = 'mine'\n", encoding="utf-8")
    run = home / "run"
    invoked("run", "--games", "4", "-s", f"{home / 'bots' / 'mine.py'}:Mine", "-s", "random", "--rules",
            "target_score=500", "--workers", "1", "--seed", "2", "--chunk-size", "2", "--out", run, "-q")
    games = pd.read_parquet(run / "games")
    assert set(games["team_a_strategy"]) == {"bots/mine.py:Mine", "random"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for typed in (f"{home / 'bots' / 'mine.py'}:Mine", "../home/alice/club/bots/mine.py:Mine"):
        for table in ("games", "hands"):
            (run / table / "part-000001.parquet").unlink()
        invoked("run", "--resume", run, "-s", typed, "-s", "random", "--workers", "1", "-q")
        pd.testing.assert_frame_equal(pd.read_parquet(run / "games").sort_values("game_id", ignore_index=True),
                                      games.sort_values("game_id", ignore_index=True))
    refused = CliRunner().invoke(main, ["run", "--resume", str(run), "-s", f"{home / 'bots' / 'copy.py'}:Mine", "-s",
                                        "random"])
    assert refused.exit_code == 2 and "the run was made with other settings" in refused.output
