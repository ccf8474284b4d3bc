"""``scripts/other_readers.py``: docs/output.md's DuckDB query and Polars code, run as the page gives them, read the
summary's figures and the documented columns from a run's parts, those written before the columns that never hold
nulls were declared so among them."""

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from tests.helpers import script_module


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small round robin in parts of 4 games, as readers meet one (``as_readers_meet_it``)."""
    out = tmp_path_factory.mktemp("readers") / "run"
    result = CliRunner().invoke(main, ["run", "--games", "12", "--seed", "3", "-q", "--workers", "1", "-s", "expert",
                                       "-s", "greedy", "-s", "random", "--rules", "target_score=1000",
                                       "--chunk-size", "4", "--record-decisions", "random", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return script_module("other_readers").as_readers_meet_it(out)


# DuckDB is in the dev extra; Polars (177 MB installed, against 66) is not: where it is missing, the script checks it.
@pytest.mark.parametrize("tool, module", [("DuckDB", "duckdb"), ("Polars", "polars")])
@pytest.mark.timeout(60)
def test_the_pages_code_for_another_tool_reads_the_summary_the_types_and_the_nullable_columns(run, tool, module):
    pytest.importorskip(module)
    assert script_module("other_readers").problems_of(run, (tool,)) == []
