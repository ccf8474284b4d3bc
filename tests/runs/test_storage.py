"""The run directory: atomic parts, chunk completeness, run.json, and what readers see."""

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from canasta_sim.core.rules import Rules
from canasta_sim.env.decisions import DECISION_SCHEMA
from canasta_sim.errors import StrategyError
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA, ChunkRecorder
from canasta_sim.runs.storage import RunDirectory, RunDirectoryError, part_name
from tests.helpers import recorded_chunk

QUICK = Rules(target_score=1000)


def test_part_names_sort_by_chunk_index():
    assert part_name(7) == "part-000007.parquet"
    assert sorted([part_name(10), part_name(9)]) == [part_name(9), part_name(10)]


def test_write_chunk_leaves_no_temporary_and_readers_see_both_tables(tmp_path):
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    games, hands = recorded_chunk([0, 1, 2])
    directory.write_chunk(0, games, hands)
    assert sorted(path.name for path in directory.games_path.iterdir()) == [part_name(0)]
    assert sorted(path.name for path in directory.hands_path.iterdir()) == [part_name(0)]
    read = pd.read_parquet(directory.games_path)
    assert list(read.columns) == GAME_SCHEMA.names and len(read) == 3
    assert list(pd.read_parquet(directory.hands_path).columns) == HAND_SCHEMA.names


def test_readers_skip_temporary_files_and_resume_removes_them(tmp_path):
    directory = RunDirectory(tmp_path)
    directory.create()
    directory.write_chunk(0, *recorded_chunk([0, 1]))
    # What a write killed half-way leaves: a partial file under the temporary name.
    (directory.games_path / ".tmp-123-part-000001.parquet").write_bytes(b"PAR1 half written")
    assert len(pd.read_parquet(directory.games_path)) == 2
    assert directory.remove_temporaries() == 1
    assert directory.remove_temporaries() == 0


def test_chunk_counts_need_both_parts_and_count_games(tmp_path):
    directory = RunDirectory(tmp_path)
    directory.create()
    directory.write_chunk(0, *recorded_chunk([0, 1, 2]))
    directory.write_chunk(1, *recorded_chunk([3]))  # a partial chunk: fewer games than planned
    games, hands = recorded_chunk([4, 5])
    directory.write_chunk(2, games, hands)
    (directory.games_path / part_name(2)).unlink()  # killed between the two renames
    assert directory.chunk_game_counts() == {0: 3, 1: 1}
    assert [chunk for chunk, _, _ in directory.iter_chunks()] == [0, 1]


def test_forfeit_rows_follow_the_schema(tmp_path):
    recorder = ChunkRecorder()
    error = StrategyError("raised RuntimeError: boom", spec="bad", seat=3, game_seed=99, decision="discard")
    recorder.add_forfeit(5, 99, ("good", "bad"), error)
    games, hands = recorder.tables()
    row = games.to_pylist()[0]
    outcome = (row["termination"], row["winner"], row["winner_strategy"], row["forfeit_team"])
    assert outcome == ("forfeit", "A", "good", "B")
    assert row["hands"] == 0 and "boom" in row["error"] and hands.num_rows == 0


def test_parts_of_played_forfeited_and_unrecorded_games_share_one_schema_for_any_reader(tmp_path):
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    from canasta_sim.env.decisions import DecisionRecorder

    # A part of games played out (no nulls in the forfeit columns), one of forfeits alone (no hands rows, every
    # forfeit column set) and an empty decisions part: a column typed null, or a nullability or a type set by the
    # values, in one part only would make DuckDB and Polars refuse the folder or pyarrow drop what differs.
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    directory.write_chunk(0, *recorded_chunk(range(2)))
    recorder = ChunkRecorder()
    error = StrategyError("raised RuntimeError: boom", spec="bad", seat=1, game_seed=7, decision="discard")
    recorder.add_forfeit(2, 7, ("good", "bad"), error)
    directory.write_chunk(1, *recorder.tables())
    directory.write_decisions(0, DecisionRecorder().table())
    for folder, schema in ((directory.games_path, GAME_SCHEMA), (directory.hands_path, HAND_SCHEMA),
                           (directory.decisions_path, DECISION_SCHEMA)):
        for part in directory.parts(folder).values():
            assert pq.read_schema(part).remove_metadata() == schema, part
        assert ds.dataset(folder).to_table().schema.remove_metadata() == schema
    games = ds.dataset(directory.games_path).to_table().sort_by("game_id")
    assert games["forfeit_reason"].to_pylist() == [None, None, "exception"]


def test_manifest_round_trip_and_errors(tmp_path):
    directory = RunDirectory(tmp_path / "run")
    with pytest.raises(RunDirectoryError, match="does not exist"):
        directory.read_manifest()
    directory.create()
    with pytest.raises(RunDirectoryError, match="no run.json"):
        directory.read_manifest()
    directory.write_manifest({"seed": 3, "games": 10})
    assert directory.read_manifest() == {"seed": 3, "games": 10}
    assert json.loads(directory.manifest_path.read_text())["seed"] == 3
    assert [path.name for path in directory.path.iterdir() if path.name.startswith(".")] == []
    directory.manifest_path.write_text("{not json")
    with pytest.raises(RunDirectoryError, match="cannot be read"):
        directory.read_manifest()


def test_score_identity_and_cumulative_scores_in_recorded_rows():
    games, hands = recorded_chunk(range(4))
    hands = hands.to_pandas()
    identity = (hands.meld_points + hands.canasta_bonus + hands.going_out_bonus + hands.red_three_bonus
                - hands.hand_penalty)
    assert (hands.score == identity).all()
    running = hands.sort_values(["game_id", "team", "hand_no"]).groupby(["game_id", "team"]).score.cumsum()
    assert (running == hands.sort_values(["game_id", "team", "hand_no"]).cumulative_score).all()


def documented_columns(section: str) -> dict[str, str]:
    """``{column: type}`` from the table under ``section`` in docs/output.md."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "output.md").read_text(encoding="utf-8")
    body = text.split(f"## `{section}`", 1)[1].split("\n## ", 1)[0]
    found = {}
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`"):
            found[cells[0].strip("`")] = cells[1].split(",")[0]
    return found


@pytest.mark.parametrize("section, schema", [("games", GAME_SCHEMA), ("hands", HAND_SCHEMA),
                                             ("decisions", DECISION_SCHEMA)])
def test_every_column_is_documented_with_its_type(section, schema):
    names = {pa.int64(): "int64", pa.uint64(): "uint64", pa.int32(): "int32", pa.int8(): "int8",
             pa.string(): "string", pa.bool_(): "bool", pa.list_(pa.int32()): "list of int32"}
    documented = documented_columns(section)
    assert list(documented) == schema.names
    assert documented == {field.name: names[field.type] for field in schema}
