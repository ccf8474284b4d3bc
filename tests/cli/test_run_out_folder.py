"""``run --out DIR`` where DIR already holds a run: the same settings continue it, others are named in one line."""

import pytest

from tests.helpers import invoke

RUN = ["--games", "10", "--seed", "5", "-s", "greedy", "-s", "random", "--rules", "target_score=1000", "--workers",
       "1", "-q"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "run"
    assert invoke("run", *RUN, "--chunk-size", "5", "--out", str(out)).exit_code == 0
    return out


@pytest.mark.timeout(60)
def test_the_same_settings_continue_the_run_in_out(recorded):
    result = invoke("run", *RUN, "--chunk-size", "5", "--out", str(recorded))
    assert result.exit_code == 0, result.output
    assert "10 of 10 games" in result.output and "0 played now" in result.output


# The message named the run's seed, games and strategies only: a run differing in its chunk size (as a Dask run's
# default does), its duplicate deals or its rules was said to be "another run (seed 5, 10 games, greedy vs random)",
# the very values typed, and the advice was to --resume it to finish it, also for a finished run.
DIFFERENT = {
    "chunk size": (["--chunk-size", "2"], "--chunk-size 5, not 2"),
    "duplicate deals": (["--chunk-size", "5", "--duplicate"], "without --duplicate, not with it"),
    "rules": (["--chunk-size", "5", "--rules", "going_out_bonus=50"], "rules target_score=1000, not "),
    "time limit": (["--chunk-size", "5", "--time-limit", "2"], "no --time-limit, not 2"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("options, difference", DIFFERENT.values(), ids=DIFFERENT.keys())
def test_other_settings_are_named_in_one_line(recorded, options, difference):
    result = invoke("run", *RUN, *options, "--out", str(recorded))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --out {recorded} holds a run made with other settings ")
    assert difference in lines[0], lines[0]
    assert f"continue it with canasta-sim run --resume {recorded}" in lines[0]


@pytest.mark.timeout(60)
def test_more_games_are_told_how_to_grow_the_run(recorded):
    result = invoke("run", *["20" if word == "10" else word for word in RUN], "--chunk-size", "5", "--out",
                    str(recorded))
    assert result.exit_code == 2
    assert result.output.strip().endswith(f"grow it with canasta-sim run --resume {recorded} --games 20, or choose "
                                          "another directory"), result.output
