"""``scripts/clustered_errors.py`` compares the plot's standard errors with those clustered by game and by deal."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import script_module

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "clustered_errors.py"


def _script():
    return script_module("clustered_errors")


def test_one_value_a_cluster_gives_the_plain_standard_error():
    values = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
    plain = values.std(ddof=1) / math.sqrt(len(values))
    assert _script().clustered_error(values, np.arange(len(values))) == pytest.approx(plain)


def test_values_moving_together_in_a_cluster_widen_the_error():
    values = np.array([1.0, 1.0, 5.0, 5.0, 2.0, 2.0, 7.0, 7.0])
    plain = values.std(ddof=1) / math.sqrt(len(values))
    assert _script().clustered_error(values, np.array([0, 0, 1, 1, 2, 2, 3, 3])) > 1.3 * plain


@pytest.mark.timeout(60)
def test_the_script_prints_the_range_of_a_duplicate_runs_ratios(tmp_path):
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "8", "--duplicate", "--seed", "1", "--workers", "1", "-q",
                                     "--out", str(run), "--rules", "target_score=1000"])
    assert made.exit_code == 0, made.output
    printed = subprocess.run([sys.executable, str(SCRIPT), str(run)], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    last = printed.stdout.strip().splitlines()[-1]
    assert last.startswith("clustered / plain: from ") and "smaller to" in last and "larger" in last, last
    assert "red 3s per hand" in printed.stdout and "score part: hand score" in printed.stdout


@pytest.fixture(scope="module")
def split_deals(tmp_path_factory):
    """A duplicate run in parts of 7 games: a deal's two games in two parts, every other part."""
    run = tmp_path_factory.mktemp("clustered") / "run"
    made = CliRunner().invoke(main, ["run", "--games", "28", "--duplicate", "--seed", "1", "--workers", "1", "-q",
                                     "--chunk-size", "7", "--out", str(run), "--rules", "target_score=1000",
                                     "-s", "greedy", "-s", "expert"])
    assert made.exit_code == 0, made.output
    return run


def test_the_ratios_read_part_by_part_are_those_of_the_whole_tables(split_deals):
    from canasta_sim.analysis import load_run
    from canasta_sim.cli.plot_data import PER_HAND, SCORE_PARTS

    script = _script()
    run = load_run(split_deals)
    deals = run.games.set_index("game_id")["deal_id"]
    hands = script._per_hand_frame(run.hands).assign(deal_id=lambda frame: frame["game_id"].map(deals))
    columns = [(column, title) for column, title, _, _ in PER_HAND]
    columns += [(column, f"score part: {name}") for column, name, _ in SCORE_PARTS]
    expected = {}
    for label, mine in hands.groupby("label"):
        for column, title in columns:
            values = mine[column].astype(float).to_numpy()
            plain = values.std(ddof=1) / math.sqrt(len(values))
            if plain > 0:
                expected[(label, title)] = (plain, *(script.clustered_error(values, mine[key].to_numpy()) / plain
                                                     for key in ("game_id", "deal_id")))
    table = script.ratios(str(split_deals))
    found = {(row["strategy"], row["column"]): (row["plain"], row["by game"], row["by deal"])
             for row in table.to_dict("records")}
    assert found.keys() == expected.keys() and len(found) > 20
    for key, figures in expected.items():
        assert found[key] == pytest.approx(figures, rel=1e-9), key


def test_the_script_reads_each_part_in_the_columns_it_needs_alone(split_deals, monkeypatch):
    # It loaded the whole run, every column of both tables at once: a million-game run needed gigabytes.
    import pyarrow.parquet as pq

    reads = []
    original = pq.read_table

    def recorded(source, *arguments, columns=None, **options):
        reads.append((Path(source), columns))
        return original(source, *arguments, columns=columns, **options)

    monkeypatch.setattr(pq, "read_table", recorded)
    _script().ratios(str(split_deals))
    assert reads and all(path.suffix == ".parquet" and columns for path, columns in reads), reads
    assert all("error" not in columns and "cumulative_score" not in columns for _, columns in reads)
