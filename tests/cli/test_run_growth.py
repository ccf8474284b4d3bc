"""Runs can grow: ``run --resume DIR --games N`` adds games, and ``compare --out`` saves a run."""

import json

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import assert_same_run_tables, invoke

QUICK = ["--rules", "target_score=1000", "--workers", "1", "-q"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("matchup", [
    ["-s", "greedy", "-s", "random", "--duplicate"],
    ["-s", "greedy", "-s", "random", "-s", "expert"],
], ids=["duplicate head to head", "round robin"])
def test_a_finished_run_grows_to_the_tables_of_a_run_that_long_from_the_start(tmp_path, matchup):
    grown, reference = tmp_path / "grown", tmp_path / "reference"
    # 10 games in chunks of 4: the last chunk (games 8-9) is partial under the grown run's chunks.
    assert invoke("run", "--games", "10", "--chunk-size", "4", "--seed", "5", *matchup, *QUICK,
                  "--out", str(grown)).exit_code == 0
    result = invoke("run", "--resume", str(grown), "--games", "22", *QUICK)
    assert result.exit_code == 0, result.output
    assert "22 of 22 games" in result.output
    manifest = json.loads((grown / "run.json").read_text())
    assert (manifest["games"], manifest["chunks"], manifest["status"]) == (22, 6, "complete")
    assert manifest["grown"][0]["from_games"] == 10 and "--games 22" in manifest["command"]
    assert invoke("run", "--games", "22", "--chunk-size", "4", "--seed", "5", *matchup, *QUICK,
                  "--out", str(reference)).exit_code == 0
    assert_same_run_tables(grown, reference)


@pytest.mark.timeout(120)
def test_a_run_cannot_shrink(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "--games", "4", "--seed", "5", "-s", "random", *QUICK, "--out", str(out)).exit_code == 0
    result = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "3"])
    assert result.exit_code == 2 and "--games 4, not 3 (a run can grow, not shrink)" in result.output


@pytest.mark.timeout(120)
def test_a_run_of_duplicate_deals_cannot_grow_to_an_odd_number_of_games(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "--games", "2", "--seed", "5", "-s", "greedy", "-s", "random", "--duplicate", *QUICK,
                  "--out", str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "5"])
    assert result.exit_code == 2, result.output
    assert result.output == ("Error: --games 5: the run, made with --duplicate, plays each deal twice, the strategies "
                             "swapped, so give an even number of games (4 or 6)\n")
    assert (out / "run.json").read_text() == before


@pytest.mark.timeout(120)
def test_a_round_robin_cannot_grow_to_an_odd_number_of_games(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "--games", "6", "--seed", "5", "-s", "greedy", "-s", "random", "-s", "expert", *QUICK,
                  "--out", str(out)).exit_code == 0
    before = (out / "run.json").read_text()
    result = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "9"])
    assert result.exit_code == 2, result.output
    assert result.output == ("Error: --games 9: the run, a round robin, plays each pair two games in turn, sides "
                             "swapped, so give an even number of games (8 or 10; a multiple of 6 gives each of its 3 "
                             "pairs as many)\n")
    assert (out / "run.json").read_text() == before


@pytest.mark.timeout(300)
def test_compare_saves_the_games_it_counted_as_the_run_of_the_same_seed_in_parts_of_500_games(tmp_path):
    saved, reference = tmp_path / "compare", tmp_path / "reference"
    # elo1 150 decides after 18 games, inside a block of 10: the saved run is cut to the games counted.
    result = invoke("compare", "greedy", "--baseline", "random", "--elo1", "150", "--max-games", "400", "--seed", "5",
                    "--rules", "target_score=1000", "--workers", "2", "--out", str(saved))
    assert result.exit_code == 0, result.output
    assert "H1 accepted after 18 games" in result.output and f"saved in {saved}" in result.output
    manifest = json.loads((saved / "run.json").read_text())
    assert manifest["games"] == manifest["games_done"] == 18 and manifest["compare"]["decision"] == "H1"
    # In parts of 500 games, as run writes them: block by block (10 games), a long test left thousands of tiny files.
    assert manifest["chunk_size"] == 500 and len(list((saved / "games").glob("part-*.parquet"))) == 1
    assert invoke("run", "--games", "18", "--seed", "5", "-s", "greedy", "-s", "random", "--duplicate",
                  "--chunk-size", "500", *QUICK, "--out", str(reference)).exit_code == 0
    assert_same_run_tables(saved, reference)
    report = invoke("report", str(saved))
    assert report.exit_code == 0 and "duplicate deals, greedy@2 vs random@2: 9 deals (18 games)" in report.output


@pytest.mark.timeout(120)
def test_a_run_whose_tables_have_other_columns_is_not_continued(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    assert invoke("run", "--games", "4", "--seed", "5", "-s", "random", *QUICK, "--out", str(out)).exit_code == 0
    part = sorted((out / "hands").glob("part-*.parquet"))[0]
    pq.write_table(pq.read_table(part).drop_columns(["won_hand"]), part)  # as an older canasta-sim wrote it
    result = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "8"])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "hands table was written by another version of canasta-sim (columns won_hand missing" in result.output


@pytest.mark.timeout(120)
def test_a_run_whose_decisions_have_other_columns_is_not_continued(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    assert invoke("run", "--games", "4", "--seed", "5", "-s", "random", "--record-decisions", "all", *QUICK,
                  "--out", str(out)).exit_code == 0
    part = sorted((out / "decisions").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    pq.write_table(table.drop_columns([table.schema.names[-1]]), part)  # as another canasta-sim wrote it
    result = CliRunner().invoke(main, ["run", "--resume", str(out), "--games", "8"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert (f"decisions table was written by another version of canasta-sim (columns {table.schema.names[-1]} "
            "missing") in result.output
