"""Read a run's tables as docs/output.md tells a reader with DuckDB or Polars to, and check what they read.

A colleague who gets only the Parquet tables reads them with the DuckDB query and the Polars code of the page's
section *Reading the tables with DuckDB, Polars or another tool*, taken from the page itself.  This plays a small
round robin, leaves a half-written part beside its parts as a write cut short does and rewrites one part as
canasta-sim wrote them before the columns that never hold nulls were declared so (a run resumed since holds both),
then checks that both readings give the summary's games, wins, win rate and mean margin
(``canasta_sim.analysis.summarize``), that each tool reads every column of ``games``, ``hands`` and ``decisions``
with the type the page's tables give, that DuckDB's ``parquet_schema`` finds ``REQUIRED`` every column the page does
not call nullable, and that the page's ways of reading a part's ``canasta_sim`` metadata give the run's seed:

    pip install duckdb polars
    python scripts/other_readers.py

Neither is a dependency of canasta-sim; DuckDB is in the ``dev`` extra.  ``tests/scripts/test_other_readers.py`` runs
the check of each tool on a smaller run where the tool is installed.  It exits 1 naming what differs.
"""

from __future__ import annotations

import json
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
                "bool": "BOOLEAN", "list of int32": "INTEGER[]"}
POLARS_TYPES = {"int64": "Int64", "uint64": "UInt64", "int32": "Int32", "int8": "Int8", "string": "String",
                "bool": "Boolean", "list of int32": "List(Int32)"}


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


def prose_code(start: str) -> str:
    """The code quoted in the page's section :data:`SECTION` that begins with ``start``, its line breaks as spaces."""
    section = " ".join(PAGE.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0].split())
    found = re.search(rf"`({re.escape(start)}[^`]*)`", section)
    if found is None:
        raise SystemExit(f"{PAGE.name}: no code beginning {start!r} under {SECTION!r}")
    return found.group(1)


def _metadata_problem(tool: str, run: Path, text) -> list[str]:
    """A problem when ``text``, the ``canasta_sim`` metadata a tool read, does not name ``run``'s seed."""
    seed = json.loads((run / "run.json").read_text(encoding="utf-8"))["seed"]
    read = json.loads(text).get("seed") if text else None
    return [] if read == seed else [f"{tool} read the metadata {text!r}, not the run's seed {seed}"]


def documented_kinds(table: str) -> dict[str, str]:
    """Column to its type cell (``int32``, ``string, nullable``) from the page's table of ``table``."""
    text = PAGE.read_text(encoding="utf-8").split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    kinds = {name: kind.strip() for name, kind in re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.M)}
    if not kinds:
        raise SystemExit(f"{PAGE.name}: no column table under ## `{table}`")
    return kinds


def documented_types(table: str) -> dict[str, str]:
    """Column to type (its first word: ``string, nullable`` is ``string``) from the page's table of ``table``."""
    return {name: kind.split(",")[0].strip() for name, kind in documented_kinds(table).items()}


def play(folder: Path) -> Path:
    """Play the small round robin into ``folder`` and return the run's folder as a colleague receives it."""
    run = folder / "run"
    subprocess.run([sys.executable, "-m", "canasta_sim", "run", "--games", "36", "--seed", "3", "-q", "--workers", "1",
                    "-s", "expert", "-s", "greedy", "-s", "random", "--rules", "target_score=1500",
                    "--record-decisions", "random", "--out", str(run)],
                   check=True, stdout=subprocess.DEVNULL)
    return as_readers_meet_it(run)


def as_readers_meet_it(run: Path) -> Path:
    """``run`` with a half-written part beside its parts and its first parts as canasta-sim wrote them before the
    columns that never hold nulls were declared so; return it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for table in ("games", "hands"):
        part = run / table / "part-000000.parquet"
        whole = part.read_bytes()  # as a kill -9 during a write leaves it: the first bytes of a part, not renamed
        (run / table / ".tmp-1-part-000009.parquet").write_bytes(whole[: len(whole) // 2])
        read = pq.read_table(part)
        every_nullable = pa.schema([field.with_nullable(True) for field in read.schema], read.schema.metadata)
        pq.write_table(read.cast(every_nullable), part, compression="zstd")
    return run


TOOLS = ("DuckDB", "Polars")


def problems_of(run: Path, tools: tuple[str, ...] = TOOLS) -> list[str]:
    """What the page's readings with ``tools`` (of :data:`TOOLS`) get wrong of ``run``: the summary's figures, the
    documented types and, for DuckDB, the columns declared nullable; none when all is right."""
    from canasta_sim.analysis import load_run, summarize

    expected = summarize(load_run(run))
    readers = {"DuckDB": (_duckdb_summary, _duckdb_problems), "Polars": (_polars_summary, _polars_problems)}
    problems = []
    for tool in tools:
        summary, table_problems = readers[tool]
        read = summary(run)
        for strategy, row in expected.iterrows():
            figures = (row["games"], row["wins"], row["win_rate"], row["mean_margin"])
            got = read.get(strategy)
            if got is None or any(not math.isclose(float(a), float(b), abs_tol=1e-9)
                                  for a, b in zip(got, figures, strict=True)):
                problems.append(f"{tool}: {strategy} read {got}, the summary has {figures}")
        for table in ("games", "hands", "decisions"):
            problems += table_problems(run, table)
    return problems


def _duckdb_summary(run: Path) -> dict[str, tuple]:
    import duckdb

    return {row[0]: row[1:] for row in duckdb.sql(section_code("sql").replace("results/example", str(run))).fetchall()}


def _polars_summary(run: Path) -> dict[str, tuple]:
    scope: dict = {}
    exec(section_code("python").replace("results/example", str(run)), scope)  # noqa: S102 - the page's own code
    return {row["strategy"]: (row["games"], row["wins"], row["win_rate"], row["mean_margin"])
            for row in scope["summary"].iter_rows(named=True)}


def _duckdb_problems(run: Path, table: str) -> list[str]:
    import duckdb

    problems = []
    latest = max((run / table).glob("part-*.parquet"))  # written as canasta-sim writes them now
    required = {row[0]: row[1] == "REQUIRED" for row in duckdb.sql(
        f"SELECT name, repetition_type FROM parquet_schema('{latest}')").fetchall()}
    for name, kind in documented_kinds(table).items():
        if required.get(name) != ("nullable" not in kind):
            problems.append(f"DuckDB's parquet_schema finds {table}.{name} "
                            f"{'REQUIRED' if required.get(name) else 'OPTIONAL'}, the page says {kind}")
    if table == "games":
        query = prose_code("SELECT decode(value) FROM parquet_kv_metadata").replace("PART", f"'{latest}'")
        rows = duckdb.sql(query).fetchall()
        problems += _metadata_problem("DuckDB", run, rows[0][0] if rows else None)
    parts = str(run / table / "part-*.parquet")
    read = {row[0]: row[1] for row in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{parts}')").fetchall()}
    return problems + [f"DuckDB reads {table}.{name} as {read.get(name)}, the page says {kind}"
                       for name, kind in documented_types(table).items() if read.get(name) != DUCKDB_TYPES[kind]]


def _polars_problems(run: Path, table: str) -> list[str]:
    import polars as pl

    problems = []
    if table == "games":
        code = prose_code("pl.read_parquet_metadata").replace("PART", repr(str(run / table / "part-000000.parquet")))
        problems += _metadata_problem("Polars", run, eval(code, {"pl": pl}))  # noqa: S307 - the page's own code
    parts = str(run / table / "part-*.parquet")
    read = {name: str(kind) for name, kind in pl.scan_parquet(parts).collect_schema().items()}
    return problems + [f"Polars reads {table}.{name} as {read.get(name)}, the page says {kind}"
            for name, kind in documented_types(table).items() if read.get(name) != POLARS_TYPES[kind]]


def main() -> int:
    """Play, read and check; print each problem found, and return 1 when there is one."""
    with tempfile.TemporaryDirectory() as folder:
        problems = problems_of(play(Path(folder)))
    for problem in problems:
        print(problem)
    print("the page's DuckDB and Polars readings agree with the summary and the documented types" if not problems
          else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
