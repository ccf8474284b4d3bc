"""``canasta-sim report`` and the notebook API against a small hand-computed run directory."""

import csv
import dataclasses
import io
import json
import shutil

import pyarrow as pa
import pytest
from click.testing import CliRunner

from canasta_sim.analysis import load_run, summarize
from canasta_sim.cli import main
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.summary import SummaryRow, hand_cap_line
from tests.helpers import SUMMARY_FIXTURE_GAMES, SUMMARY_FIXTURE_HANDS

GAMES = SUMMARY_FIXTURE_GAMES  # in two chunks: games 0-1 and 2-3
HANDS = SUMMARY_FIXTURE_HANDS


def full_table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """Rows with every schema column: integers 0, flags false, strings empty (null where the column may be null)
    unless given."""
    defaults = {pa.types.is_boolean: False, pa.types.is_string: ""}
    columns = {}
    for field in schema:
        default = None if field.nullable else next(
            (value for test, value in defaults.items() if test(field.type)), 0)
        columns[field.name] = [row.get(field.name, default) for row in rows]
    return pa.Table.from_pydict(columns, schema=schema)


@pytest.fixture
def fixture_run(tmp_path):
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    directory.write_manifest({
        "format": 1, "games": 4, "seed": 17, "chunk_size": 2, "matchup": "head_to_head", "status": "complete",
        "strategies": [{"spec": "x", "label": "x@1"}, {"spec": "y", "label": "y@3"}],
        "rules": {"target_score": 1000}, "rules_changed": {"target_score": 1000}, "engine_version": "1",
    })
    for chunk, game_ids in ((0, (0, 1)), (1, (2, 3))):
        games = full_table([row for row in GAMES if row["game_id"] in game_ids], GAME_SCHEMA)
        hands = full_table([row for row in HANDS if row["game_id"] in game_ids], HAND_SCHEMA)
        directory.write_chunk(chunk, games, hands)
    return directory.path


def report(*arguments):
    return CliRunner().invoke(main, ["report", *map(str, arguments)])


def test_text_report_shows_the_run_and_the_hand_computed_figures(fixture_run):
    result = report(fixture_run)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "x@1 vs y@3" in lines[0] and "games 4 of 4 (complete)" in lines[1] and "seed 17" in lines[1]
    # Named as the header names them, not by spec.
    x_line = next(line for line in lines if line.startswith("x@1 "))
    y_line = next(line for line in lines if line.startswith("y@3 "))
    # x: 2 wins in 4 (Wilson 15.0-85.0%), margin (400 - 1200 + 0) / 3 with its 95% interval's half width
    # 1.96 * sqrt(((400 + 266.7)^2 + (-1200 + 266.7)^2 + 266.7^2) / 2 / 3) = 942.2, 4/3 hands per game,
    # pile takes 6/4, natural 2/4, mixed 2/4, went out 2/4.
    assert x_line.split()[1:3] == ["4", "2"] and "50.0% [15.0%, 85.0%]" in x_line
    assert x_line.split()[-9:] == ["-266.7", "±942.2", "1.33", "1.50", "0.50", "0.50", "50.0%", "1", "0"]
    assert "25.0% [4.6%, 69.9%]" in y_line and y_line.split()[-9:] == [
        "+266.7", "±942.2", "1.33", "1.50", "0.50", "0.25", "50.0%", "1", "1"]


def test_json_and_csv_reports_carry_exact_figures(fixture_run):
    data = json.loads(report(fixture_run, "--format", "json").output)
    assert data["run"]["seed"] == 17 and data["run"]["games_done"] == 4 and data["run"]["specs"] == ["x", "y"]
    x, y = data["strategies"]
    assert (x["wins"], x["draws"], x["losses"], x["forfeits"]) == (2, 1, 1, 0)
    assert (y["wins"], y["draws"], y["losses"], y["forfeits"]) == (1, 1, 2, 1)
    assert x["mean_hand_score"] == 625 and y["mean_hand_score"] == 825
    assert y["red_threes_per_hand"] == 0.5 and x["concealed_rate"] == 0.25
    rows = list(csv.DictReader(io.StringIO(report(fixture_run, "--format", "csv").output)))
    assert [(row["strategy"], row["win_rate"], row["win_rate_low"]) for row in rows] == [
        ("x", "0.5", "0.15"), ("y", "0.25", "0.0456")]


def test_every_report_but_csv_says_how_many_games_the_hand_cap_ended_r15_1(fixture_run):
    # Game 3 ended at the engine's guard, its draw counted as any other: the report said nothing of it.
    said = ("1 of 4 games (25.0%) never reached the target score: the engine's guard ended it after 400 hands, won "
            "by the side ahead then (termination hand_cap)")
    text = report(fixture_run).output.splitlines()
    assert text[2] == said and text.count(said) == 1 and "x@1" in text[0] and "seed 17" in text[1]
    assert report(fixture_run, "--format", "markdown").output.count(said) == 1
    assert json.loads(report(fixture_run, "--format", "json").output)["run"]["hand_capped"] == 1


def test_the_hand_cap_line_names_a_share_rounding_away_as_what_it_is():
    assert hand_cap_line(0, 40) == ""
    assert hand_cap_line(1, 5000).startswith("1 of 5000 games (under 0.1%) never reached the target score")
    assert hand_cap_line(4999, 5000).startswith("4999 of 5000 games (over 99.9%) never reached")
    assert hand_cap_line(3, 40).startswith("3 of 40 games (7.5%) never reached the target score: the engine's guard "
                                           "ended them after 400 hands")


def test_csv_rows_name_their_rules_last_so_that_two_variants_put_together_stay_apart(fixture_run, tmp_path):
    # The CSV of a variant had no word of its rules: two variants' rows, concatenated, read alike.
    default = tmp_path / "default"
    shutil.copytree(fixture_run, default)
    manifest = json.loads((default / "run.json").read_text())
    (default / "run.json").write_text(json.dumps({**manifest, "rules": {}, "rules_changed": {}}))
    both = [report(fixture_run, "--format", "csv").output, report(default, "--format", "csv").output]
    readers = [csv.DictReader(io.StringIO(output)) for output in both]
    rows = [row for reader in readers for row in reader]
    columns = [field.name for field in dataclasses.fields(SummaryRow)]
    assert [reader.fieldnames for reader in readers] == [[*columns, "rules"]] * 2  # added last, none moved
    assert [(row["strategy"], row["rules"]) for row in rows] == [
        ("x", "target_score=1000"), ("y", "target_score=1000"), ("x", "default"), ("y", "default")]
    (default / "run.json").write_text(json.dumps({**manifest, "rules_changed": {"allow_wild_only_melds": True,
                                                                                "target_score": 3000}}))
    # Named as --rules takes them, as the header and the charts name them.
    said = "allow_wild_only_melds=true, target_score=3000"
    assert {row["rules"] for row in csv.DictReader(io.StringIO(report(default, "--format", "csv").output))} == {said}
    assert f"rules {said}, engine" in report(default).output


def test_markdown_report_is_a_table(fixture_run):
    output = report(fixture_run, "--format", "markdown").output
    assert "| strategy | games | wins |" in output and "| x@1 | 4 | 2 | 50.0% [15.0%, 85.0%] |" in output


def test_a_markdown_report_on_standard_output_says_apart_from_it_how_its_charts_are_written(fixture_run):
    # report --format markdown > FILE gave a report without its charts and not a word of --output, which draws them.
    result = report(fixture_run, "--format", "markdown")
    assert result.exit_code == 0 and "charts" not in result.stdout, result.output
    assert result.stderr == ("note: a Markdown report on standard output has no charts, which would have nowhere to "
                             "go: --output FILE writes them as PNG files beside it, linked from it\n")


def test_notebook_api_loads_and_summarizes(fixture_run):
    run = load_run(fixture_run)
    assert list(run.games.game_id) == [0, 1, 2, 3] and len(run.hands) == 8 and run.entrants == ("x", "y")
    assert list(run.games.columns) == GAME_SCHEMA.names
    with pytest.warns(UserWarning, match="^1 of 4 games .* hand_cap"):  # the fixture's game the guard ended
        table = summarize(run)
    assert list(table.index) == ["x", "y"]
    assert table.loc["x", "mean_margin"] == pytest.approx(-800 / 3)
    assert table.loc["y", "mixed_canastas_per_hand"] == 0.25
    narrow = load_run(fixture_run, games_columns=["winner"], hands_columns=["score"])
    assert list(narrow.games.columns) == ["game_id", "winner"] and list(narrow.hands.columns) == ["game_id", "score"]
    with pytest.raises(ValueError, match="unknown column"):
        load_run(fixture_run, games_columns=["nope"])


def test_report_skips_a_chunk_missing_its_games_part(fixture_run):
    (fixture_run / "games" / "part-000001.parquet").unlink()  # as after a kill between the two renames
    data = json.loads(report(fixture_run, "--format", "json").output)
    assert data["run"]["games_done"] == 2 and [row["games"] for row in data["strategies"]] == [2, 2]
    assert data["run"]["hand_capped"] == 0  # the game the guard ended was in the chunk skipped
    assert "hand_cap" not in report(fixture_run).output
    assert len(load_run(fixture_run).hands) == 6


@pytest.mark.parametrize("case, message, plot_message", [
    ("missing", "does not exist", "does not exist"),
    ("a file", "'{path}' is a file, not a run directory", "{path} is a file"),  # it said "does not exist"
    ("not a run", "no run.json", "holds neither run.json nor tune.json"),
    ("no games", "no finished games", "no finished games"),
])
def test_bad_run_directories_get_one_line_errors(case, message, plot_message, tmp_path):
    path = tmp_path / "dir"
    messages = {"report": message.format(path=path), "plot": plot_message.format(path=path)}
    if case == "a file":
        path.write_text("not a run")
    elif case != "missing":
        path.mkdir()
    if case == "no games":
        RunDirectory(path).write_manifest({"games": 10, "strategies": [{"spec": "x"}]})
    for command in ("report", "plot"):
        result = CliRunner().invoke(main, [command, str(path)])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and messages[command] in lines[0]
    assert report(tmp_path / "dir", "--format", "xml").exit_code == 2


def test_report_of_a_tuning_directory_names_what_reads_it(tmp_path):
    path = tmp_path / "tuning"
    path.mkdir()
    (path / "tune.json").write_text("{}")
    result = report(path)
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: '{path}' is a tuning directory, not a run: canasta-sim plot {path} draws its "
                             f"trajectory, and canasta-sim tune --resume {path} continues it\n"), result.output


@pytest.mark.timeout(120)
def test_the_header_tells_two_settings_of_one_strategy_apart_as_the_charts_do(tmp_path):
    out = tmp_path / "run"
    arguments = ["run", "--games", "2", "--seed", "4", "-s", "expert:aggression=0.3", "-s", "expert",
                 "--workers", "1", "--rules", "target_score=500", "--out", str(out), "-q"]
    made = CliRunner().invoke(main, arguments)
    assert made.exit_code == 0, made.output
    first = report(str(out)).output.splitlines()[0]
    assert first.endswith(": expert@1 [expert:aggression=0.3] vs expert@1 [expert]"), first


def test_a_run_json_saying_running_is_told_apart_from_a_run_killed(fixture_run):
    # run.json says "running" of a run going on and of one killed alike: the report said "(running)" of a run whose
    # process was long gone, and an operator waited for it.
    directory = RunDirectory(fixture_run)
    directory.write_manifest({**directory.read_manifest(), "status": "running"})
    result = report(fixture_run)
    assert result.exit_code == 0, result.output
    # The fixture was made by an older engine, which only a canasta-sim of that engine plays on with.
    assert result.output.splitlines()[1].startswith(
        "games 4 of 4 (running in run.json, yet no process is writing it: it was killed or its machine stopped; "
        "only a canasta-sim of engine 1 goes on with it (the run was made with engine version 1")
    assert json.loads(report(fixture_run, "--format", "json").output)["run"]["being_written"] is False
    with directory.claimed():  # as the run going on holds it
        result = report(fixture_run)
        assert result.output.splitlines()[1].startswith("games 4 of 4 (running), seed 17")
        assert json.loads(report(fixture_run, "--format", "json").output)["run"]["being_written"] is True
