"""A run whose finished part was damaged from outside: every command that reads it stops as ``replay`` does.

Parts are written whole or not at all (a temporary name, then a rename), so a part that cannot be read was cut short
or overwritten after it was written. ``report``, ``plot`` and ``run --resume`` exited 2, as for bad input, where
``replay`` exits 1: the arguments are right and the run needs mending. Each now exits 1 with one line naming the part
and the way on: move it out of the run, and ``run --resume`` plays its chunk again.
"""

from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import assert_same_run_tables


def play_run(path, *options: str):
    result = CliRunner().invoke(main, ["run", "--games", "8", "--chunk-size", "2", "--seed", "6", "--workers", "1",
                                       "-s", "greedy", "-s", "random", "--rules", "target_score=1000", "-q",
                                       *options, "--out", str(path)])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    return play_run(tmp_path_factory.mktemp("damaged") / "run")


@pytest.fixture(scope="module")
def recording_run(tmp_path_factory):
    """A finished run that wrote a decisions/ dataset too."""
    return play_run(tmp_path_factory.mktemp("damaged") / "run", "--record-decisions", "all")


def damaged_copy(run, tmp_path, table: str):
    """A copy of the run whose chunk 1 part of ``table`` is cut to half its bytes; the copy and the part."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    part = copy / table / "part-000001.parquet"
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    return copy, part


def assert_damage_said(result, part, copy) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    assert f"{part} is no Parquet part canasta-sim can read" in result.output
    assert f"move it out of the run and its games are played again by canasta-sim run --resume {copy}" in result.output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("command", [["report", "RUN"], ["report", "RUN", "--format", "html"],
                                     ["report", "RUN", "--format", "json"], ["plot", "RUN"], ["run", "--resume", "RUN"],
                                     ["replay", "RUN", "2"]], ids=" ".join)
def test_a_damaged_part_stops_the_command_with_exit_1_naming_it(finished_run, tmp_path, command):
    copy, part = damaged_copy(finished_run, tmp_path, "games")
    manifest = (copy / "run.json").read_text()
    result = CliRunner().invoke(main, [str(copy) if word == "RUN" else word for word in command])
    assert_damage_said(result, part, copy)
    assert (copy / "run.json").read_text() == manifest and not (copy / "plots").exists()


@pytest.mark.timeout(120)
def test_a_resume_finding_a_damaged_hands_part_leaves_run_json_as_it_was(finished_run, tmp_path):
    # The hands parts were first read after the resume had opened its session in run.json: it stayed "running".
    copy, part = damaged_copy(finished_run, tmp_path, "hands")
    manifest = (copy / "run.json").read_text()
    result = CliRunner().invoke(main, ["run", "--resume", str(copy), "--games", "10", "-q"])
    assert_damage_said(result, part, copy)
    assert (copy / "run.json").read_text() == manifest


@pytest.mark.timeout(120)
@pytest.mark.parametrize("table", ["games", "hands"])
def test_moving_the_damaged_part_away_lets_resume_play_its_chunk_again(finished_run, tmp_path, table):
    # What the error tells the user to do: the chunk is played again from its seeds, and the tables are the run's own.
    copy, part = damaged_copy(finished_run, tmp_path, table)
    part.rename(tmp_path / part.name)
    result = CliRunner().invoke(main, ["run", "--resume", str(copy), "-q"])
    assert result.exit_code == 0, result.output
    assert f"8 of 8 games in {copy} (2 played now" in result.output
    assert_same_run_tables(copy, finished_run)


@pytest.mark.timeout(120)
def test_a_resume_finding_a_damaged_decisions_part_stops_with_exit_1_naming_it(recording_run, tmp_path):
    # The decisions parts were never read: the resume said the run was whole, the part stayed cut short.
    copy, part = damaged_copy(recording_run, tmp_path, "decisions")
    manifest = (copy / "run.json").read_text()
    result = CliRunner().invoke(main, ["run", "--resume", str(copy), "-q"])
    assert_damage_said(result, part, copy)
    assert (copy / "run.json").read_text() == manifest


@pytest.mark.timeout(120)
def test_moving_a_decisions_part_away_lets_resume_play_its_chunk_again(recording_run, tmp_path):
    # A chunk counted as done with its games and hands parts alone: its decisions were never written again.
    copy, part = damaged_copy(recording_run, tmp_path, "decisions")
    part.rename(tmp_path / part.name)
    result = CliRunner().invoke(main, ["run", "--resume", str(copy), "-q"])
    assert result.exit_code == 0, result.output
    assert f"8 of 8 games in {copy} (2 played now" in result.output
    assert_same_run_tables(copy, recording_run)
    assert pq.read_table(copy / "decisions").equals(pq.read_table(recording_run / "decisions"))


def damaged_inside(run, tmp_path, table: str):
    """A copy of the run whose chunk 1 part of ``table`` has a column's first page overwritten, its footer intact:
    the part's row counts read well, its data does not."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    part = copy / table / "part-000001.parquet"
    row_group = pq.read_metadata(part).row_group(0)
    column = row_group.column(row_group.num_columns // 2)  # a column neither the summary nor the win count reads
    data = bytearray(part.read_bytes())
    start = column.data_page_offset
    data[start:start + 64] = b"\x55" * 64
    part.write_bytes(bytes(data))
    return copy, part


@pytest.mark.timeout(120)
@pytest.mark.parametrize("table", ["games", "hands", "decisions"])
def test_a_resume_reads_the_parts_it_goes_on_from_whole_before_it_plays(recording_run, tmp_path, table):
    # Damage inside a part whose footer was intact went unseen: the resume read only the footers, then the columns
    # its summary needs, after playing. Grown by 8 games, the run said "16 of 16 games", exit 0.
    copy, part = damaged_inside(recording_run, tmp_path, table)
    manifest = (copy / "run.json").read_text()
    result = CliRunner().invoke(main, ["run", "--resume", str(copy), "--games", "16", "-q"])
    assert_damage_said(result, part, copy)
    assert (copy / "run.json").read_text() == manifest
    assert sorted(path.name for path in (copy / "games").iterdir()) == [f"part-00000{chunk}.parquet"
                                                                        for chunk in range(4)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("table", ["decisions", "games", "hands"])
def test_report_names_the_parts_a_complete_run_lacks(recording_run, tmp_path, table):
    # The report looked at no decisions part: a recording run without one read "games 8 of 8 (complete)".
    copy = tmp_path / "run"
    shutil.copytree(recording_run, copy)
    (copy / table / "part-000001.parquet").unlink()
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[:3]
    assert "(complete, but parts are missing)" in header[1], header
    assert header[2] == (f"parts missing: {table} of chunk 1; canasta-sim run --resume {copy} plays their chunks "
                         "again"), header
    described = json.loads(CliRunner().invoke(main, ["report", str(copy), "--format", "json"]).output)["run"]
    assert described["missing_parts"] == [{"chunk": 1, "parts": [table]}]


@pytest.mark.timeout(120)
def test_report_of_a_whole_recording_run_names_no_missing_part(recording_run):
    result = CliRunner().invoke(main, ["report", str(recording_run)])
    assert result.exit_code == 0 and "(complete), " in result.output and "missing" not in result.output, result.output


@pytest.mark.timeout(120)
def test_report_finding_a_damaged_decisions_part_stops_with_exit_1_naming_it(recording_run, tmp_path):
    copy, part = damaged_copy(recording_run, tmp_path, "decisions")
    assert_damage_said(CliRunner().invoke(main, ["report", str(copy)]), part, copy)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["report", "RUN"], ["plot", "RUN"]], ids=" ".join)
def test_a_part_of_another_table_is_named_with_the_columns_it_lacks(finished_run, tmp_path, command):
    # pyarrow's own words listed its internal fields: "No match for FieldRef.Name(team_a_strategy) in ... __filename".
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    part = copy / "games" / "part-000001.parquet"
    shutil.copyfile(copy / "hands" / "part-000001.parquet", part)
    result = CliRunner().invoke(main, [str(copy) if word == "RUN" else word for word in command])
    assert_damage_said(result, part, copy)
    assert "it lacks the columns 'team_a_strategy', 'team_b_strategy'" in result.output, result.output
    assert "__filename" not in result.output


@pytest.mark.timeout(60)
@pytest.mark.parametrize("entry, value, expected", [
    ("strategies", "greedy", 'a list of objects with a "spec"'),
    ("strategies", [{"name": "greedy"}], 'a list of objects with a "spec"'),
    ("rules", ["target_score"], "an object of rules")])
@pytest.mark.parametrize("command", [["report", "RUN"], ["report", "RUN", "--format", "html"], ["plot", "RUN"]],
                         ids=" ".join)
def test_a_run_json_entry_of_another_shape_is_named_in_one_line(finished_run, tmp_path, command, entry, value,
                                                                expected):
    # Both ended in a traceback (AttributeError: 'str' object has no attribute 'get').
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    manifest = json.loads((copy / "run.json").read_text())
    (copy / "run.json").write_text(json.dumps({**manifest, entry: value}))
    result = CliRunner().invoke(main, [str(copy) if word == "RUN" else word for word in command])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert result.output == (f"Error: {copy / 'run.json'} is malformed: its entry {entry!r} should be {expected}, "
                             f"not {json.dumps(value)}\n")
