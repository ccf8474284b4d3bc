"""The protocol's example bots (examples/protocol/) play complete legal games against the built-ins through
``canasta-sim run`` and ``compare`` in parallel workers, reproducibly: one in JavaScript (Node), one in
plain Python importing nothing from canasta-sim."""

from __future__ import annotations

import ast
import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "protocol"
NODE = shutil.which("node")
BOTS = [
    pytest.param(f"cmd:{sys.executable} {EXAMPLES / 'bot.py'}", id="python"),
    pytest.param(f"cmd:node {EXAMPLES / 'bot.js'}", id="javascript",
                 marks=pytest.mark.skipif(NODE is None, reason="node is not installed: the JavaScript bot needs it")),
]


def _run(out: Path, spec: str, env: dict | None = None) -> pd.DataFrame:
    result = CliRunner().invoke(main, ["run", "--games", "4", "--seed", "21", "--workers", "2", "--chunk-size", "2",
                                       "-q", "--rules", "target_score=1500", "--out", str(out), "-s", spec,
                                       "-s", "greedy"], catch_exceptions=False, env=env)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["games_done"] == 4 and manifest["strategies"][0]["spec"] == spec
    games = pd.read_parquet(out / "games").sort_values("game_id").reset_index(drop=True)
    assert games["forfeit_team"].isna().all() and (games["termination"] == "target").all()
    return games


@pytest.mark.timeout(120)
@pytest.mark.parametrize("spec", BOTS)
def test_example_bot_plays_complete_games_in_parallel_workers_reproducibly(tmp_path, spec):
    first = _run(tmp_path / "first", spec)  # a chunk's two games side by side (protocol 2)
    again = _run(tmp_path / "again", spec, env={GAMES_AT_ONCE_VARIABLE: "1"})  # one at a time
    columns = ["game_id", "seed", "score_a", "score_b", "winner", "hands"]
    assert first[columns].equals(again[columns])


@pytest.mark.timeout(120)
def test_a_run_with_a_bot_replays_from_what_it_recorded(tmp_path):
    spec = f"cmd:{sys.executable} {EXAMPLES / 'bot.py'}:patience=3"
    games = _run(tmp_path / "run", spec)
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "run"), "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    row = games[games["game_id"] == 1].iloc[0]
    assert f"{row['score_a']}" in result.output and f"{row['score_b']}" in result.output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("spec", BOTS)
def test_example_bot_is_compared_in_parallel_workers(spec):
    arguments = ["compare", spec, "--baseline", "greedy", "--max-games", "20", "--workers", "2", "--seed", "4",
                 "--rules", "target_score=1000", "--print-every", "10"]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "games     20" in result.output or "accepted" in result.output, result.output


def test_python_example_imports_nothing_from_canasta_sim():
    tree = ast.parse((EXAMPLES / "bot.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"collections", "json", "random", "sys"}
