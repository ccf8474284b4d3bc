"""Where a designer reads the results of games under a variant whose games never end (going out at -100,000 keeps both
totals far below the target, so the engine's guard ends each game after 400 hands, R15.1): ``compare``'s closing
lines (an error's and an interruption's too), ``tune``'s end and the notebook's ``summarize`` say once how many
games it ended, as ``run`` and ``report`` do.  Each plays two games of a quarter second."""

import json
import warnings

import pyarrow.parquet as pq
import pytest

from canasta_sim.analysis import load_run, summarize
from canasta_sim.cli import compare
from canasta_sim.core.rules import Rules
from canasta_sim.runs.sprt import Sprt
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


FAILS_IN_ITS_SECOND_DEAL = """
from canasta_sim.strategies.greedy import Greedy

_players = 0


class FailsLater(Greedy):
    name = "fails-later"

    def choose_acquire(self, view):
        global _players
        if not getattr(self, "counted", False):  # the players of one deal's two games are the first four
            self.counted, _players = True, _players + 1
        if _players > 4:
            raise RuntimeError("no move today")
        return super().choose_acquire(view)
"""


@pytest.mark.timeout(60)
def test_a_compare_stopped_by_a_failing_strategy_says_how_many_games_counted_the_hand_cap_ended_r15_1(tmp_path):
    # Its error line came alone: the games counted before the failure, which never ended, read as a finished test's.
    (tmp_path / "fails_later.py").write_text(FAILS_IN_ITS_SECOND_DEAL)
    result = invoke("compare", f"{tmp_path / 'fails_later.py'}:FailsLater", "--baseline", "random", "--max-games", "4",
                    "--seed", "1", "--workers", "1", "-q", *NEVER_ENDING)
    assert result.exit_code == 1 and "Error: game 2: " in result.output, result.output
    assert _said(result.output) == [SAID]
    # and where the test stood, as an interruption says it
    assert "; stopped after 2 games: LLR " in result.output and ", no decision" in result.output, result.output


def test_an_interrupted_compare_says_how_many_games_counted_the_hand_cap_ended_r15_1(capsys):
    plan = compare.MatchPlan("greedy", "random", 1, Rules(), True, 10)
    test = Sprt(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05)
    comparison = compare.Comparison(plan, test, on_error="stop", print_every=None)
    comparison.counts.add_pair(1.0, 0.0)
    comparison.hand_capped = 2
    with pytest.raises(SystemExit) as stopped:
        compare._conclude(plan, test, comparison, "interrupted", None, None, None)
    assert stopped.value.code == compare.EXIT_INTERRUPTED
    printed = capsys.readouterr()
    assert _said(printed.out) == [SAID] and printed.err.startswith("Interrupted after 2 games")


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
