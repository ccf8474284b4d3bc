"""``compare --out``: the directory holds exactly the games the test counted, as the run they make, or none."""

import json
import shutil

import pytest
from click.testing import CliRunner

from canasta_sim import ENGINE_VERSION
from canasta_sim.cli import main
from tests.helpers import assert_same_run_tables, parts_stamps, run_stamp

FAILS_AT_ONCE = '''
from canasta_sim.strategies.greedy import Greedy


class FailsAtOnce(Greedy):
    """Greedy that fails at its first decision: no deal of a comparison is ever whole."""

    name = "fails-at-once"

    def choose_acquire(self, view):
        raise RuntimeError("not today")
'''


@pytest.mark.timeout(120)
def test_a_compare_stopped_before_it_counted_a_game_saves_no_run(tmp_path):
    # The saved run was recorded as one of 1 game (a run has at least one), holding none: report said it had no
    # finished games, and run --resume played a game the comparison never counted, to call the run complete.
    (tmp_path / "bot.py").write_text(FAILS_AT_ONCE)
    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", f"{tmp_path}/bot.py:FailsAtOnce", "--baseline", "greedy", "--seed",
                                       "4", "--workers", "1", "--rules", "target_score=1000", "--out", str(out)])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and errors[0].endswith(f"no game was counted, so {out} holds none"), errors
    assert not (out / "run.json").exists()
    assert not list(out.rglob("*.parquet"))


# --- compare --resume --------------------------------------------------------------------------------------------

COMPARE = ["compare", "greedy", "--baseline", "random", "--elo0", "550", "--elo1", "650", "--max-games", "100",
           "--seed", "3", "--rules", "target_score=1000", "--workers", "1"]
"""A comparison that decides (H0) after 52 games: three parts of 20 games in the tests below."""


@pytest.fixture(scope="module")
def saved_comparison(tmp_path_factory):
    """The comparison played without a stop, in parts of 20 games, and the first run.json it wrote (what a kill
    right after the first part leaves)."""
    from canasta_sim.cli import compare
    from canasta_sim.runs.storage import RunDirectory

    out = tmp_path_factory.mktemp("compare") / "whole"
    written = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
        original = RunDirectory.write_manifest

        def keeping(self, manifest):
            written.append(json.loads(json.dumps(manifest)))
            original(self, manifest)

        patch.setattr(RunDirectory, "write_manifest", keeping)
        result = CliRunner().invoke(main, [*COMPARE, "--out", str(out)])
    assert result.exit_code == 0 and "H0 accepted after 52 games" in result.output, result.output
    return out, written[0]


def killed_copy(saved_comparison, tmp_path, games_kept_of_chunk_2: int):
    """The saved comparison as a kill leaves it: its first run.json, parts 0 and 1 whole, part 2 cut short."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    whole, first_manifest = saved_comparison
    killed = tmp_path / "killed"
    shutil.copytree(whole, killed)
    (killed / "run.json").write_text(json.dumps(first_manifest))
    for table in ("games", "hands"):
        part = killed / table / "part-000002.parquet"
        rows = pq.read_table(part)
        pq.write_table(rows.filter(pc.less(rows["game_id"], 40 + games_kept_of_chunk_2)), part)
    return killed


@pytest.mark.timeout(120)
@pytest.mark.parametrize("changed", ["label", "engine"])
def test_a_compare_resume_after_a_strategy_or_the_engine_changed_is_refused_as_run_resume_refuses_it(
        saved_comparison, tmp_path, monkeypatch, changed):
    from canasta_sim.cli import compare

    # compare --resume played on with the strategies and the engine of today, whatever the saved games were played
    # with: one test counted games of two versions, where run --resume refuses such a run.
    killed = killed_copy(saved_comparison, tmp_path, 6)
    manifest = json.loads((killed / "run.json").read_text())
    if changed == "label":
        manifest["strategies"][0]["label"] = "greedy@1"
        expected = f"{killed}: the run was made with greedy@1 but 'greedy' is now greedy@2; start a new run"
    else:
        manifest["engine_version"] = "2"
        expected = f"{killed}: the run was made with engine version 2, this is version {ENGINE_VERSION}"
    (killed / "run.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
    result = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert result.exit_code == 2, result.output
    assert expected in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert sorted(path.name for path in (killed / "games").iterdir()) == [
        f"part-{number:06d}.parquet" for number in range(3)]


@pytest.mark.timeout(120)
def test_a_compare_resume_of_tables_with_other_columns_is_refused_before_it_mixes_two_schemas(
        saved_comparison, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from canasta_sim.cli import compare

    # Saved by a canasta-sim of the same engine whose hands had other columns: compare --resume added parts of
    # today's columns beside them, and Polars refused the folder while DuckDB and pyarrow dropped the new columns.
    killed = killed_copy(saved_comparison, tmp_path, 6)
    part = killed / "hands" / "part-000001.parquet"
    pq.write_table(pq.read_table(part).drop_columns(["second_seat_cards_left"]), part)
    monkeypatch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
    result = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert (f"{killed}: its hands table was written by another version of canasta-sim (columns second_seat_cards_left "
            "missing, none extra, or other types, in part-000001.parquet); its games cannot be continued, start a new "
            "comparison") in result.output
    assert {len(pq.read_schema(path).names) for path in (killed / "hands").glob("part-*.parquet")} == {34, 35}


@pytest.mark.timeout(180)
def test_a_killed_compare_resumed_ends_with_the_verdict_and_tables_of_one_never_stopped(saved_comparison, tmp_path,
                                                                                     monkeypatch):
    from canasta_sim.cli import compare

    whole, first_manifest = saved_comparison
    assert first_manifest["status"] == "running" and first_manifest["compare"]["new"] == "greedy"  # found on resume
    killed = killed_copy(saved_comparison, tmp_path, 6)
    monkeypatch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
    result = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "resumed from the 40 games saved in" in result.output and "H0 accepted after 52 games" in result.output
    resumed, reference = (json.loads((path / "run.json").read_text()) for path in (killed, whole))
    assert resumed["compare"] == reference["compare"]
    assert resumed["command"] == reference["command"].replace(str(whole), str(killed))
    assert resumed["status"] == "complete" and resumed["games"] == resumed["games_done"] == 52
    assert_same_run_tables(killed, whole)
    assert all(stamp == run_stamp(killed) for stamp in parts_stamps(killed))  # the parts the resume wrote too


@pytest.mark.timeout(60)
@pytest.mark.timeout(180)
def test_a_compare_resume_while_the_comparison_still_plays_is_refused_in_one_line(saved_comparison, tmp_path,
                                                                                   monkeypatch):
    # Both went on into one folder, each writing run.json from its own copy: one session was lost.
    from canasta_sim.cli import compare
    from canasta_sim.runs.storage import RunDirectory

    killed = killed_copy(saved_comparison, tmp_path, 6)
    before = (killed / "run.json").read_text()
    monkeypatch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
    with RunDirectory(killed).claimed():  # as the comparison still playing holds it
        result = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.splitlines() == [f"Error: --out: '{killed}' is being written by another canasta-sim process; "
                                          "wait for it to end (or stop it), then resume the run"]
    assert (killed / "run.json").read_text() == before
    resumed = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert resumed.exit_code == 0 and "H0 accepted after 52 games" in resumed.output, resumed.output


def test_compare_resume_refuses_what_it_cannot_go_on_with_in_one_line(saved_comparison, tmp_path):
    whole, _ = saved_comparison
    cases = [
        (["--resume", str(whole)], f"--resume: the comparison saved in {whole} has ended (H0 accepted after 52 games); "
                                   f"canasta-sim report {whole} shows it"),
        (["greedy", "--resume", str(whole), "--seed", "4"],
         "--resume goes on with the comparison's own settings; leave out NEW, --seed"),
        ([], "compare needs NEW and --baseline OLD (canasta-sim compare expert --baseline greedy), or --resume DIR"),
    ]
    run = tmp_path / "run"
    assert CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "-s", "random", "--workers", "1", "-q",
                                     "--out", str(run)]).exit_code == 0
    cases.append((["--resume", str(run)], f"--resume: {run} holds no comparison saved by compare --out (its "
                                          f"run.json has no 'compare' entry); canasta-sim run --resume {run} goes on "
                                          "with a run"))
    for options, said in cases:
        result = CliRunner().invoke(main, ["compare", *options])
        assert result.exit_code == 2 and result.output == f"Error: {said}\n", (options, result.output)


@pytest.mark.timeout(60)
def test_run_resume_on_a_comparison_still_under_test_points_to_compare_resume(saved_comparison, tmp_path):
    killed = killed_copy(saved_comparison, tmp_path, 6)
    result = CliRunner().invoke(main, ["run", "--resume", str(killed), "-q"])
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: --resume: {killed} holds a comparison whose test has not ended; canasta-sim "
                             f"compare --resume {killed} goes on with it\n")


@pytest.mark.timeout(60)
def test_compare_resume_refuses_a_comparison_that_ended_at_its_max_games_without_a_decision(tmp_path):
    out = tmp_path / "cmp"
    played = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "random", "--max-games", "4", "--seed", "3",
                                       "--rules", "target_score=1000", "--workers", "1", "-q", "--out", str(out)])
    assert played.exit_code == 0 and json.loads((out / "run.json").read_text())["compare"]["decision"] is None
    result = CliRunner().invoke(main, ["compare", "--resume", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: --resume: the comparison saved in {out} has ended (no decision at its "
                             f"--max-games after 4 games); canasta-sim report {out} shows it\n")


_GREEDY_COPY = '''
from canasta_sim.strategies.greedy import Greedy


class Mine(Greedy):
    name = "mine"
'''


@pytest.mark.timeout(240)
def test_compare_resume_from_another_directory_loads_the_file_the_comparison_started_with(tmp_path, monkeypatch):
    # A spec naming a file relative to where the comparison started was looked for from where --resume was typed:
    # "strategy file 'mine.py' does not exist", or another directory's mine.py played the rest of the test.
    from canasta_sim.cli import compare
    from canasta_sim.runs.storage import RunDirectory

    started, elsewhere = tmp_path / "started", tmp_path / "elsewhere"
    started.mkdir()
    elsewhere.mkdir()
    (started / "mine.py").write_text(_GREEDY_COPY)
    (elsewhere / "mine.py").write_text(FAILS_AT_ONCE.replace("FailsAtOnce", "Mine"))  # not the comparison's
    written = []
    original = RunDirectory.write_manifest

    def keeping(self, manifest):
        written.append(json.loads(json.dumps(manifest)))
        original(self, manifest)

    monkeypatch.setattr(compare, "SAVED_CHUNK_GAMES", 20)
    monkeypatch.setattr(RunDirectory, "write_manifest", keeping)
    monkeypatch.chdir(started)
    whole = tmp_path / "whole"
    arguments = [*COMPARE, "--out", str(whole)]
    arguments[1] = "mine.py:Mine"
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0 and "H0 accepted after 52 games" in result.output, result.output
    killed = killed_copy((whole, written[0]), tmp_path, 6)
    monkeypatch.chdir(elsewhere)
    resumed = CliRunner().invoke(main, ["compare", "--resume", "../killed", "--workers", "1"])
    assert resumed.exit_code == 0, resumed.output
    assert "H0 accepted after 52 games" in resumed.output, resumed.output
    # Before it loads anything, it says which file it will import: the folder named it (docs/security.md).
    assert resumed.output.startswith("note: resuming the comparison runs code the run's folder names, as your user, "
                                     f"not canasta-sim's own: the file {str(started / 'mine.py')!r} (mine.py:Mine)")
    assert_same_run_tables(killed, whole)
    # Its file gone from where it started: one line naming the file and where it was looked for.
    (started / "mine.py").unlink()
    killed = killed_copy((whole, written[0]), tmp_path / "again", 6)
    gone = CliRunner().invoke(main, ["compare", "--resume", str(killed), "--workers", "1"])
    assert gone.exit_code == 2, gone.output
    assert gone.output == f"Error: strategy file 'mine.py' does not exist (looked for in {started})\n"


def test_the_saved_comparisons_session_names_the_canasta_sim_and_build_that_played_it(saved_comparison):
    # Its session held neither: after an upgrade that changed no game, nothing said which canasta-sim played it.
    from canasta_sim import __version__
    from canasta_sim.core._compiled.accelerator import describe

    session = json.loads((saved_comparison[0] / "run.json").read_text())["sessions"][0]
    assert session["command"] == "compare"
    assert (session["tool"], session["build"]) == (f"canasta-sim {__version__}", describe())


def test_a_saved_comparisons_parts_name_its_seed_and_rules_as_a_runs_do(saved_comparison):
    # A part of compare --out read alone named its writer, not which comparison (its seed) or rules it was of.
    stamps = parts_stamps(saved_comparison[0])
    assert all(stamp == run_stamp(saved_comparison[0]) for stamp in stamps), stamps
