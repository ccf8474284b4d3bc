"""The tables' schema as an analyst's tools show it: the parts a run writes hold the columns docs/output.md's tables
list, with their types, and declare nullable only the columns that can hold nulls; runs written when every column
was declared nullable still resume and read as one."""

import dataclasses
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim import Rules, play_game
from canasta_sim.analysis import load_run
from canasta_sim.cli import main
from canasta_sim.errors import StrategyError
from canasta_sim.runs.records import ChunkRecorder
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.strategies import Greedy, RandomPlay
from tests.helpers import ROOT, assert_same_run_tables

QUICK = ["--rules", "target_score=1000", "--workers", "1", "-q"]
TYPE_NAMES = {"list<item: int32>": "list of int32", "list<element: int32>": "list of int32"}
"""What docs/output.md calls an Arrow type whose name differs from the type's own (``int32``, ``string``...); a list's
entries are named ``element`` as Parquet stores them."""


def documented(table: str) -> list[tuple[str, str, bool]]:
    """``(column, type, nullable)`` of each row of docs/output.md's table of ``table``, in order."""
    text = (ROOT / "docs" / "output.md").read_text(encoding="utf-8").split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.M)
    return [(name, kind.split(",")[0].strip(), "nullable" in kind) for name, kind in rows]


def written(schema: pa.Schema) -> list[tuple[str, str, bool]]:
    return [(field.name, TYPE_NAMES.get(str(field.type), str(field.type)), field.nullable) for field in schema]


def play(out: Path, *options: str) -> None:
    result = CliRunner().invoke(main, ["run", "--games", "6", "--seed", "5", "-s", "greedy", "-s", "random",
                                       "--chunk-size", "2", *QUICK, "--out", str(out), *options])
    assert result.exit_code == 0, result.output


@pytest.mark.timeout(120)
def test_a_runs_parts_hold_the_documented_columns_with_their_types_and_only_the_documented_nullable_ones(tmp_path):
    play(tmp_path / "run", "--record-decisions", "all")
    for table in ("games", "hands", "decisions"):
        parts = sorted((tmp_path / "run" / table).glob("part-*.parquet"))
        assert len(parts) == 3, table
        for part in parts:
            assert written(pq.read_schema(part)) == documented(table), part


def test_the_nullable_columns_are_those_the_writer_leaves_empty_in_a_draw_and_a_forfeit(tmp_path):
    recorder = ChunkRecorder()
    played = play_game([Greedy, RandomPlay, Greedy, RandomPlay], seed=1, rules=Rules(target_score=1000))
    recorder.add_game(0, played, ("greedy", "random"))
    recorder.add_game(1, dataclasses.replace(played, winner=None, termination="hand_cap"), ("greedy", "random"))
    error = StrategyError("raised RuntimeError: boom", spec="random", seat=1, game_seed=7, decision="discard")
    recorder.add_forfeit(2, 7, ("greedy", "random"), error)
    directory = RunDirectory(tmp_path / "run")
    directory.create()
    directory.write_chunk(0, *recorder.tables())
    for folder in (directory.games_path, directory.hands_path):
        part = pq.read_table(folder / "part-000000.parquet")
        holding_nulls = {name for name in part.column_names if part[name].null_count}
        assert {field.name for field in part.schema if field.nullable} == holding_nulls, folder
    assert holding_nulls == set()  # the hands part, the last read: no column holds a null
    assert {name for name, _, nullable in documented("games") if nullable} == {
        "winner_strategy", "forfeit_team", "error", "forfeit_reason"}


def as_written_before(run: Path) -> None:
    """Rewrite every part of ``run`` as canasta-sim wrote them before columns were declared not null: every field
    nullable, the same values and metadata."""
    for part in sorted(run.glob("*/part-*.parquet")):
        table = pq.read_table(part)
        nullable = pa.schema([field.with_nullable(True) for field in table.schema], metadata=table.schema.metadata)
        pq.write_table(table.cast(nullable), part, compression="zstd")


@pytest.mark.timeout(120)
def test_a_run_written_with_every_column_nullable_resumes_to_the_tables_of_a_run_written_now(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    play(old, "--record-decisions", "all")
    as_written_before(old)
    for table in ("games", "hands", "decisions"):  # a run cut short: its last chunk is played again by --resume
        (old / table / "part-000002.parquet").unlink()
    result = CliRunner().invoke(main, ["run", "--resume", str(old), "-q"])
    assert result.exit_code == 0, result.output
    kinds = {pq.read_schema(part).field("game_id").nullable for part in (old / "hands").glob("part-*.parquet")}
    assert kinds == {True, False}  # the old parts and the one played now: one dataset, two declarations
    play(new, "--record-decisions", "all")
    assert_same_run_tables(old, new)  # pandas, through pyarrow's reading of the folders
    for table in ("games", "hands", "decisions"):
        sort = [("game_id", "ascending"), *([("hand_no", "ascending"), ("team", "ascending")] * (table == "hands"))]
        mixed, fresh = (ds.dataset(run / table).to_table().sort_by(sort) for run in (old, new))
        assert mixed.to_pylist() == fresh.to_pylist(), table
    loaded_old, loaded_new = load_run(old), load_run(new)
    assert loaded_old.games.reset_index(drop=True).equals(loaded_new.games.reset_index(drop=True))
    assert loaded_old.hands.reset_index(drop=True).equals(loaded_new.hands.reset_index(drop=True))
