"""Where a designer reads the results of games under a variant whose games never end (going out at -100,000 keeps both
totals far below the target, so the engine's guard ends each game after 400 hands, R15.1): ``compare``'s closing
lines, ``tune``'s end and the notebook's ``summarize`` say once how many games it ended, as ``run`` and ``report`` do.
Each plays two games of a quarter second."""

import json
import warnings

import pyarrow.parquet as pq
import pytest

from canasta_sim.analysis import load_run, summarize
from tests.helpers import invoke, invoked

NEVER_ENDING = ["--rules", "going_out_bonus=-100000", "--rules", "concealed_going_out_bonus=-100000"]
SAID = ("2 of 2 games (100.0%) never reached the target score: the engine's guard ended them after 400 hands, won by "
        "the side ahead then (termination hand_cap)")


def _said(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if "hand_cap" in line]


@pytest.mark.timeout(60)
def test_compare_says_before_its_verdict_how_many_games_the_hand_cap_ended_r15_1():
    printed = invoked("compare", "greedy", "--baseline", "random", "--max-games", "2", "--seed", "1", "--workers", "1",
                      "-q", *NEVER_ENDING)
    assert _said(printed) == [SAID]
    lines = printed.splitlines()
    assert lines.index(SAID) == len(lines) - 2 and lines[-1].startswith("no decision after 2 games")  # the verdict last
    ended = invoked("compare", "greedy", "--baseline", "random", "--max-games", "2", "--seed", "1", "--workers", "1",
                    "-q", "--rules", "target_score=500")
    assert not _said(ended)


@pytest.mark.timeout(60)
def test_tune_says_before_its_check_how_many_games_the_hand_cap_ended_and_records_them_r15_1(tmp_path):
    out = tmp_path / "tuned"
    printed = invoked("tune", "expert", "--params", "aggression", "--games", "2", "--games-per-iteration", "2",
                      "--seed", "1", "--workers", "1", "-q", "--out", out, *NEVER_ENDING)
    assert _said(printed) == [SAID] and printed.splitlines()[-1] == "expert:aggression=0.5"  # the spec still last
    assert json.loads((out / "tune.json").read_text(encoding="utf-8"))["hand_capped"] == 2
    resumed = invoke("tune", "--resume", out, "--workers", "1", "-q")  # read back from the trajectory: said again
    assert resumed.exit_code == 0 and _said(resumed.output) == [SAID], resumed.output


@pytest.mark.timeout(60)
def test_the_notebooks_summary_warns_how_many_games_the_hand_cap_ended_r15_1(tmp_path):
    capped, ended = tmp_path / "capped", tmp_path / "ended"
    invoked("run", "--games", "2", "--seed", "1", "-s", "greedy", "-s", "random", "--workers", "1", "-q", "--out",
            capped, *NEVER_ENDING)
    with pytest.warns(UserWarning) as told:
        summary = summarize(load_run(capped))
    assert [str(warning.message) for warning in told] == [SAID] and summary.attrs["hand_capped"] == 2
    invoked("run", "--games", "2", "--seed", "1", "-s", "greedy", "-s", "random", "--workers", "1", "-q", "--out",
            ended, "--rules", "target_score=500")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert summarize(load_run(ended)).attrs["hand_capped"] == 0


@pytest.mark.timeout(60)
def test_a_tuning_whose_trajectory_predates_the_count_resumes_counting_only_the_games_it_knows(tmp_path):
    out = tmp_path / "tuned"
    invoked("tune", "expert", "--params", "aggression", "--games", "4", "--games-per-iteration", "2", "--seed", "1",
            "--workers", "1", "-q", "--out", out, *NEVER_ENDING)
    path = out / "trajectory.parquet"
    table = pq.read_table(path)
    pq.write_table(table.slice(0, 1).drop_columns(["hand_capped"]), path)  # as written before: one iteration
    resumed = invoked("tune", "--resume", out, "--workers", "1", "-q")
    assert _said(resumed) == [SAID]  # the second iteration's games; the first's are unknown, never counted as ended
    assert pq.read_table(path)["hand_capped"].to_pylist() == [None, 2]
