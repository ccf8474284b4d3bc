"""``compare --out``: the directory holds exactly the games the test counted, as the run they make, or none."""

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

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
