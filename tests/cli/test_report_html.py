"""The pieces of ``report --format html`` that need no browser: which games it replays, and its Markdown tables
turned into HTML (the page itself is checked in a browser in tests/html)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main, report_html
from canasta_sim.cli.replay import find_game, game_setup
from canasta_sim.cli.report_html import games_worth_seeing, markdown_html
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.runs.runner import settings_from_manifest
from canasta_sim.runs.storage import RunDirectory
from tests.page_checks import markup_problems
from tests.run_helpers import BROKEN_AT_DISCARD_BOT_SOURCE


def test_games_worth_seeing_are_the_widest_the_longest_and_a_forfeit():
    games = pd.DataFrame({"game_id": [0, 1, 2, 3], "margin": [100, -900, 300, 0], "hands": [3, 2, 7, 0],
                          "termination": ["target", "target", "target", "forfeit"]})
    assert games_worth_seeing(games) == [(1, "the largest margin (900 points)"), (2, "the longest game (7 hands)"),
                                         (3, "a forfeit")]
    both = games.assign(hands=[3, 9, 7, 0])
    assert games_worth_seeing(both)[0] == (1, "the largest margin (900 points) and the longest game (9 hands)")


def test_a_replays_heading_says_how_the_game_ended_in_words_r15_1():
    # It ended in the games table's code: "side B random@1 1655 (target)".
    row = {"termination": "target", "team_a_strategy": "greedy", "team_b_strategy": "random", "score_a": 5100,
           "score_b": 300}
    names = {"greedy": "greedy@2", "random": "random@1"}
    heading = report_html._heading(3, "the longest game (8 hands)", row, names, None)
    assert heading == "Game 3, the longest game (8 hands): side A greedy@2 5100, side B random@1 300 (target reached)"
    capped = report_html._heading(3, "the longest game (400 hands)", {**row, "termination": "hand_cap"}, names, None)
    assert capped.endswith("(stopped by the engine's guard at 400 hands)")


def test_markdown_becomes_escaped_html_tables_each_in_a_box_that_scrolls():
    text = "### A <b> heading\n\n| name | score |\n|---|---:|\n| x\\|y | <1% |\nplain & line"
    assert markdown_html(text) == (
        "<h3>A &lt;b&gt; heading</h3>\n<div class=\"table-box\"><table><tr>"
        "<th scope=\"col\" class=\"text\">name</th><th scope=\"col\" class=\"number\">score</th></tr>"
        "<tr><td class=\"text\">x|y</td><td class=\"number\">&lt;1%</td></tr>"
        "</table></div>\n<p>plain &amp; line</p>")


@pytest.fixture(scope="module")
def forfeit_report(tmp_path_factory) -> str:
    """The HTML report of a run of two games, a file strategy against greedy, the first a forfeit."""
    folder = tmp_path_factory.mktemp("forfeit-report")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        (folder / "bot.py").write_text(BROKEN_AT_DISCARD_BOT_SOURCE)
        made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "-s", "bot.py:Broken", "-s", "greedy",
                                         "--on-error", "forfeit", "--workers", "1", "--out", "run", "-q"])
        assert made.exit_code == 0, made.output
        # Its own file, which the user trusts: a report replays its games only so.
        page = CliRunner().invoke(main, ["report", "run", "--format", "html", "--run-strategy-code"])
    assert page.exit_code == 0, page.output
    return page.output


@pytest.mark.timeout(120)
def test_a_replay_is_headed_by_the_strategies_names_and_the_side_that_forfeited(forfeit_report):
    # It named a file strategy by its spec (the path) where the charts say name@version, and a forfeit only "forfeit".
    greedy = load_strategy("greedy").label
    heading = f"<summary>Game 0, a forfeit: side A broken@1 0, side B {greedy} 0 (forfeit by side A: exception)"
    assert heading in forfeit_report, [line for line in forfeit_report.splitlines() if "<summary>" in line]


@pytest.mark.timeout(120)
def test_the_report_gives_a_screen_reader_its_language_header_scopes_chart_words_and_named_frames(forfeit_report):
    # Its tables' header cells had no scope: a screen reader could not tell a column's header from a row's.
    assert markup_problems(forfeit_report) == []
    assert forfeit_report.count('alt="') >= 3 and forfeit_report.count('<iframe title="replay of game') >= 1
    # A chart's alt text was its title alone; it says the figures drawn too (tests/cli/test_chart_words.py).
    assert re.search(r'<img id="chart-win_rates" [^>]*alt="Win rate: [^"]*: \d+\.\d% \(95% interval ', forfeit_report)


@pytest.mark.timeout(120)
def test_the_report_reads_each_games_part_once_and_replays_the_row_find_game_reads(tmp_path, monkeypatch):
    # The row of each replayed game was read twice: with the whole run (for its heading) and again from its part by
    # find_game (for the seed and strategies the replay plays).  Now the first read serves both, with the same values.
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "2", "-s", "greedy", "-s", "random", "--rules",
                                     "target_score=1000", "--chunk-size", "2", "--workers", "1", "--out", str(run),
                                     "-q"])
    assert made.exit_code == 0, made.output
    directory = RunDirectory(run)
    manifest = directory.read_manifest()
    reads: Counter[str] = Counter()
    read_table = pq.read_table

    def counting_read(source, **options):
        reads[Path(source).name if Path(source).parent.name == "games" else "other"] += 1
        return read_table(source, **options)

    replayed = []

    def keeping_setup(manifest, settings, row, **options):
        replayed.append(row)
        return game_setup(manifest, settings, row, **options)

    monkeypatch.setattr(pq, "read_table", counting_read)
    monkeypatch.setattr(report_html, "game_setup", keeping_setup)
    page = report_html.report_page(run, manifest, ["a run"], "", "")
    monkeypatch.undo()
    games_parts = sorted(path.name for path in directory.parts(directory.games_path).values())
    assert len(games_parts) == 2 and {name: reads[name] for name in games_parts} == dict.fromkeys(games_parts, 1)
    assert len(replayed) == page.count("<details data-replay=") >= 1
    settings = settings_from_manifest(manifest, str(directory.manifest_path))
    for row in replayed:
        recorded = find_game(directory, settings.chunk_size, row["game_id"], manifest)
        fields = ("game_id", "seed", "team_a_strategy", "team_b_strategy", "score_a", "score_b", "termination")
        assert [(type(row[name]), row[name]) for name in fields] == [(type(recorded[name]), recorded[name])
                                                                    for name in fields]


def test_the_strategies_table_shows_a_played_games_spec_without_its_decisions():
    # It showed the whole played: spec, every decision of the person's game in one cell ("d/-/x.8/t.10.10/...").
    spec = "played:expert:moves=d/-/x.8/t.10.10/m.7.7.7;J/-/x.3b"
    table = report_html._strategies_table({"strategies": [
        {"spec": spec, "label": "you+expert@1", "class": "canasta_sim.terminal.played.PlayedBack", "parameters": {}},
        {"spec": "expert", "label": "expert@1", "class": "canasta_sim.strategies.expert.Expert", "parameters": {}}]})
    assert "x.3b" not in table and "played:expert:moves=... (7 decisions)" in table, table
    assert "you+expert@1" in table and "<td>expert</td><td>expert@1</td>" in table
