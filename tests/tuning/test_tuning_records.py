"""What a tuning writes and prints of its parameters and settings: an int parameter's values stay ints (in
``tune.json``, the printed lines, the suggested check, on resume), and a refused setting is named as the user gave
it."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.helpers import invoke

QUICK = ["--rules", "target_score=1000"]


def _tuned(out, *options: str):
    result = invoke("tune", "expert", "--params", "aggression,ask_cards", "--games", "8", "--games-per-iteration", "4",
                    "--seed", "3", "--workers", "1", "--out", str(out), *QUICK, *options)
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.timeout(60)
def test_an_int_parameter_is_recorded_and_printed_as_an_int(tmp_path):
    out = tmp_path / "tuned"
    result = invoke("tune", "expert", "--params", "aggression,ask_cards", "--games", "8", "--games-per-iteration", "4",
                    "--seed", "1", "--workers", "1", "--out", str(out))  # ask_cards moves at this seed
    assert result.exit_code == 0, result.output
    text = (out / "tune.json").read_text()
    manifest = json.loads(text)
    entry = {entry["name"]: entry for entry in manifest["parameters"]}["ask_cards"]
    # The start was recorded as 5.0 for the int parameter ask_cards = 5.
    assert [type(entry[key]) for key in ("default", "start", "low", "high", "step")] == [int] * 5, entry
    assert '"start": 5,' in text and type(manifest["final_values"]["ask_cards"]) is int
    lines = result.output.splitlines()
    assert lines[-3].split()[:3] == ["ask_cards", "5", "->"], lines
    assert lines[-2] == "check it: canasta-sim compare expert:aggression=0.67,ask_cards=8 --baseline expert", lines
    assert lines[-1] == manifest["final_spec"] == "expert:aggression=0.67,ask_cards=8"


@pytest.mark.timeout(60)
def test_a_resume_reads_an_int_parameter_recorded_as_a_float_back_as_an_int(tmp_path):
    out = tmp_path / "tuned"
    _tuned(out)
    manifest = json.loads((out / "tune.json").read_text())
    for entry in manifest["parameters"]:
        if entry["name"] == "ask_cards":
            entry.update(start=5.0, low=0.0, high=15.0, step=1.0)  # as a tuning wrote it before
    (out / "tune.json").write_text(json.dumps(manifest))
    again = invoke("tune", "--resume", str(out))
    assert again.exit_code == 0, again.output
    entry = {entry["name"]: entry for entry in json.loads((out / "tune.json").read_text())["parameters"]}["ask_cards"]
    assert (entry["start"], entry["low"], entry["high"], entry["step"]) == (5, 0, 15, 1)
    assert all(type(entry[key]) is int for key in ("start", "low", "high", "step")), entry


@pytest.mark.timeout(60)
def test_the_values_an_int_parameter_played_are_integers_in_the_trajectory_and_stay_so_on_resume(tmp_path):
    out = tmp_path / "tuned"
    _tuned(out)
    path = out / "trajectory.parquet"
    table = pq.read_table(path)
    for column in ("plus.ask_cards", "minus.ask_cards"):
        assert table.schema.field(column).type == pa.int64()
    assert table.schema.field("plus.aggression").type == pa.float64()
    # A trajectory written before held the int parameter's values as floats: it resumes and is rewritten as ints.
    older = table.slice(0, 1)
    for column in ("plus.ask_cards", "minus.ask_cards"):
        older = older.set_column(older.schema.get_field_index(column), column, older.column(column).cast(pa.float64()))
    pq.write_table(older, path)
    again = invoke("tune", "--resume", str(out))
    assert again.exit_code == 0, again.output
    assert pq.read_table(path).equals(table)


@pytest.mark.timeout(60)
def test_a_gain_a_resumed_tune_json_refuses_is_named_as_tune_json_names_it(tmp_path):
    out = tmp_path / "tuned"
    _tuned(out)
    manifest = json.loads((out / "tune.json").read_text())
    manifest["spsa"]["learning_rate"] = -1
    (out / "tune.json").write_text(json.dumps(manifest))
    result = invoke("tune", "--resume", str(out))
    assert result.exit_code == 2 and result.output == (
        f"Error: --resume: {out / 'tune.json'} is malformed: its spsa.learning_rate must be a finite number above 0; "
        "got -1\n"), result.output


MINE = '''
from canasta_sim.strategies.expert import Expert


class Mine(Expert):
    name = "mine"
'''


@pytest.mark.timeout(60)
def test_a_tuning_of_a_file_named_relatively_resumes_from_another_directory(tmp_path, monkeypatch):
    # Its spec's file was looked for from the directory of the resume: "strategy file 'mine.py' does not exist".
    (tmp_path / "start").mkdir()
    (tmp_path / "start" / "mine.py").write_text(MINE)
    monkeypatch.chdir(tmp_path / "start")
    assert invoke("tune", "mine.py:Mine", "--params", "aggression,ask_cards", "--games", "8", "--games-per-iteration",
                  "4", "--seed", "1", "--workers", "1", "--out", "out", "-q").exit_code == 0
    manifest = json.loads((tmp_path / "start" / "out" / "tune.json").read_text())
    assert manifest["directory"] == str(tmp_path / "start")
    assert manifest["command"].startswith(f"cd {tmp_path / 'start'} && canasta-sim tune mine.py:Mine ")
    monkeypatch.chdir(tmp_path)
    # The resume's own --workers 1 was suggested for the check too: the worker count is a session's, deciding no game.
    result = invoke("tune", "--resume", "start/out", "--workers", "1", "-q")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1] == "mine.py:Mine:aggression=0.67,ask_cards=8", lines
    assert lines[-2] == (f"check it: cd {tmp_path / 'start'} && canasta-sim compare {lines[-1]} "
                         "--baseline mine.py:Mine"), lines


@pytest.mark.timeout(60)
def test_a_strategy_file_typed_again_on_tune_resume_is_found_from_where_it_is_typed(tmp_path, monkeypatch):
    # Typed from the strategy's own folder, its relative path was looked for from the folder the tuning started in,
    # and the resume refused the tuning's own file as other settings; run --resume reads it from where it is typed.
    (tmp_path / "start" / "bots").mkdir(parents=True)
    (tmp_path / "start" / "bots" / "mine.py").write_text(MINE)
    monkeypatch.chdir(tmp_path / "start")
    settings = ["--params", "aggression", "--games", "4", "--games-per-iteration", "4", "--seed", "1", "-q", *QUICK]
    tuned = invoke("tune", "bots/mine.py:Mine", *settings, "--workers", "1", "--out", "out")
    assert tuned.exit_code == 0, tuned.output
    monkeypatch.chdir(tmp_path / "start" / "bots")
    resumed = invoke("tune", "mine.py:Mine", *settings, "--resume", "../out", "--workers", "1")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.splitlines()[-1] == tuned.output.splitlines()[-1]
    (tmp_path / "start" / "mine.py").write_text(MINE)  # the same path from the start folder names another file
    other = invoke("tune", "../mine.py:Mine", *settings, "--resume", "../out", "--workers", "1")
    assert other.exit_code == 2 and "the tuning was made with other settings (SPEC bots/mine.py:Mine, not " \
        "../mine.py:Mine)" in other.output, other.output


@pytest.mark.timeout(60)
def test_a_tune_resume_names_a_strategy_file_whose_code_changed_under_the_same_version(tmp_path, monkeypatch):
    # A tuning of one's own file, its play changed and its version not raised, was resumed without a word: its
    # iterations then tuned two plays as one.
    monkeypatch.chdir(tmp_path)
    source = "from canasta_sim.strategies.expert import Expert\n\n\nclass Mine(Expert):\n    name = 'mine'\n"
    (tmp_path / "mine.py").write_text(source)
    out = tmp_path / "tuned"
    result = invoke("tune", "mine.py:Mine", "--params", "aggression", "--games", "4", "--games-per-iteration", "4",
                    "--seed", "3", "--workers", "1", "--out", str(out), *QUICK)
    assert result.exit_code == 0, result.output
    (tmp_path / "mine.py").write_text("# a comment changes no code\n" + source)
    assert "Warning" not in invoke("tune", "--resume", str(out)).output
    (tmp_path / "mine.py").write_text(source + "    def choose_discard(self, view):\n"
                                               "        return super().choose_discard(view)\n")
    again = invoke("tune", "--resume", str(out))
    assert again.exit_code == 0, again.output
    assert (f"Warning: {out}: the code of 'mine.py:Mine' ({tmp_path / 'mine.py'}) differs from the tuning's, yet it "
            "is still mine@") in again.output


@pytest.mark.timeout(60)
def test_a_file_typed_by_its_absolute_path_is_named_from_the_home_in_a_tuning_and_resumes_typed_so(tmp_path,
                                                                                                   monkeypatch):
    # tune.json kept /home/alice/bots/mine.py:Mine (its strategy, command and final spec), naming the home in a
    # published tuning, where run and compare name it ~/bots/mine.py:Mine.
    home = tmp_path / "home" / "alice"
    (home / "bots").mkdir(parents=True)
    (home / "bots" / "mine.py").write_text(MINE)
    (home / "club").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "club")
    typed = f"{home / 'bots' / 'mine.py'}:Mine"
    settings = ["--params", "aggression", "--games", "4", "--games-per-iteration", "4", "--seed", "1", "-q"]
    result = invoke("tune", typed, *settings, "--workers", "1", "--out", home / "club" / "tuned")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("~/bots/mine.py:Mine:aggression="), result.output
    recorded = (home / "club" / "tuned" / "tune.json").read_text(encoding="utf-8")
    assert "alice" not in recorded and json.loads(recorded)["strategy"]["spec"] == "~/bots/mine.py:Mine"
    resumed = invoke("tune", typed, *settings, "--resume", "tuned", "--workers", "1")  # the settings typed again
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.splitlines()[-1] == result.output.splitlines()[-1]


def test_the_trajectory_names_what_wrote_it_in_its_metadata_as_a_runs_parts_do(tmp_path):
    from canasta_sim import ENGINE_VERSION, __version__
    from canasta_sim.runs.storage import WRITER_KEY
    from canasta_sim.tuning.run import TuningDirectory, trajectory_schema

    # A run's parts said which canasta-sim and engine wrote them; a tuning's trajectory, read alone, said nothing.
    directory = TuningDirectory(tmp_path / "tuned")
    directory.path.mkdir()
    row = {name: 0 for name in trajectory_schema(("aggression",)).names}
    directory.write_trajectory([row], ("aggression",))
    metadata = pq.read_schema(directory.trajectory_path).metadata
    assert json.loads(metadata[WRITER_KEY]) == {"tool": f"canasta-sim {__version__}", "engine_version": ENGINE_VERSION}
    assert directory.read_trajectory().to_pylist() == [row]
