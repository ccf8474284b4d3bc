"""Read a run's tables as docs/output.md tells a reader with DuckDB or Polars to, and check what they read.

A colleague who gets only the Parquet tables reads them with the DuckDB query and the Polars code of the page's
section *Reading the tables with DuckDB, Polars or another tool*, taken from the page itself.  This plays a small
round robin, leaves a half-written part beside its parts as a write cut short does, then checks that both readings
give the summary's games, wins, win rate and mean margin (``canasta_sim.analysis.summarize``), and that each tool
reads every column of ``games`` and ``hands`` with the type the page's tables give:

    pip install duckdb polars
    python scripts/other_readers.py

DuckDB and Polars are not canasta-sim's dependencies, so this is a script, not a test.  It exits 1 naming what
differs.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "output.md"
SECTION = "## Reading the tables with DuckDB, Polars or another tool"

DUCKDB_TYPES = {"int64": "BIGINT", "uint64": "UBIGINT", "int32": "INTEGER", "int8": "TINYINT", "string": "VARCHAR",
                "bool": "BOOLEAN"}
POLARS_TYPES = {"int64": "Int64", "uint64": "UInt64", "int32": "Int32", "int8": "Int8", "string": "String",
                "bool": "Boolean"}


def section_code(language: str) -> str:
    """The page's code block in ``language`` under :data:`SECTION`."""
    text = PAGE.read_text(encoding="utf-8")
    if SECTION not in text:
        raise SystemExit(f"{PAGE.name} has no section {SECTION!r}")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    found = re.search(rf"^```{language}\n(.*?)^```", section, re.M | re.S)
    if found is None:
        raise SystemExit(f"{PAGE.name}: no {language} block under {SECTION!r}")
    return found.group(1)


def documented_types(table: str) -> dict[str, str]:
    """Column to type (its first word: ``string, nullable`` is ``string``) from the page's table of ``table``."""
    text = PAGE.read_text(encoding="utf-8").split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    types = {name: kind.split(",")[0].strip() for name, kind in re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.M)}
    if not types:
        raise SystemExit(f"{PAGE.name}: no column table under ## `{table}`")
    return types


def play(folder: Path) -> Path:
    run = folder / "run"
    subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--games", "36", "--seed", "3", "-q", "--workers", "1",
                    "-s", "expert", "-s", "greedy", "-s", "random", "--rules", "target_score=1500", "--out", str(run)],
                   check=True, stdout=subprocess.DEVNULL)
    for table in ("games", "hands"):  # as a kill -9 during a write leaves it: the first bytes of a part, not renamed
        whole = (run / table / "part-000000.parquet").read_bytes()
        (run / table / ".tmp-1-part-000009.parquet").write_bytes(whole[: len(whole) // 2])
    return run


def problems_of(run: Path) -> list[str]:
    import duckdb
    import polars as pl

    from canasta_sim.analysis import load_run, summarize

    expected = summarize(load_run(run))
    problems = []
    query = section_code("sql").replace("results/example", str(run))
    by_duckdb = {row[0]: row[1:] for row in duckdb.sql(query).fetchall()}
    scope: dict = {}
    exec(section_code("python").replace("results/example", str(run)), scope)  # noqa: S102 - the page's own code
    by_polars = {row["strategy"]: (row["games"], row["wins"], row["win_rate"], row["mean_margin"])
                 for row in scope["summary"].iter_rows(named=True)}
    for tool, read in (("DuckDB", by_duckdb), ("Polars", by_polars)):
        for strategy, row in expected.iterrows():
            figures = (row["games"], row["wins"], row["win_rate"], row["mean_margin"])
            got = read.get(strategy)
            if got is None or any(not math.isclose(float(a), float(b), abs_tol=1e-9)
                                  for a, b in zip(got, figures, strict=True)):
                problems.append(f"{tool}: {strategy} read {got}, the summary has {figures}")
    for table in ("games", "hands"):
        parts = str(run / table / "part-*.parquet")
        duck = {row[0]: row[1] for row in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{parts}')").fetchall()}
        polar = {name: str(kind) for name, kind in pl.scan_parquet(parts).collect_schema().items()}
        for name, kind in documented_types(table).items():
            if duck.get(name) != DUCKDB_TYPES[kind]:
                problems.append(f"DuckDB reads {table}.{name} as {duck.get(name)}, the page says {kind}")
            if polar.get(name) != POLARS_TYPES[kind]:
                problems.append(f"Polars reads {table}.{name} as {polar.get(name)}, the page says {kind}")
    return problems


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        problems = problems_of(play(Path(folder)))
    for problem in problems:
        print(problem)
    print("the page's DuckDB and Polars readings agree with the summary and the documented types" if not problems
          else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
