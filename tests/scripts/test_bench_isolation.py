"""``scripts/bench_isolation.py``'s whole-run readings: the placement a fairness doc weighs, read from real runs."""

from __future__ import annotations

import pytest

from tests.helpers import SCRIPTS, script_module


def _script():
    return script_module("bench_isolation")


def test_placement_pairs_are_read_placed_first_and_their_ratios_summed_up_by_the_median(monkeypatch, capsys):
    module = _script()
    calls = []
    rates = iter([30.0, 20.0, 10.0, 20.0, 60.0, 40.0])

    def run_rate(spec, games, options):
        calls.append((spec, games, tuple(options)))
        return next(rates)

    monkeypatch.setattr(module, "_run_rate", run_rate)
    monkeypatch.delenv(module.FLOOR_VARIABLE, raising=False)
    assert module.main(["--placement", "3", "--games", "40", "--bot", "cmd:node bot.js"]) == 0
    assert calls[:2] == [("cmd:node bot.js", 40, ("--workers", "1", "--pin-cores")), ("cmd:node bot.js", 40, ())]
    out = capsys.readouterr().out
    assert "cmd:node bot.js placed on one worker    30.0 games/s, default workers, unplaced    20.0: 1.500" in out
    assert "one placed worker at 1.500 of the default workers unplaced (the median of 3 pairs; 0.500 to 1.500)" in out


@pytest.mark.timeout(120)
def test_a_whole_run_is_read_from_the_closing_line_of_a_real_run(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))  # the script reads the line with scripts/bench_run.py
    assert _script()._run_rate("expert", 3, ["--workers", "1"]) > 0


def test_a_forfeited_game_stops_the_benchmark_rather_than_be_timed():
    # A bot killed by mistake (the room to write a full pipe once taken for its exit) forfeited its games, and the
    # benchmark printed their speed as the matchup's.
    from canasta_sim.errors import StrategyError

    module = _script()
    with pytest.raises(SystemExit, match="game 7 was forfeited, so no figure is printed"):
        module._finished(7, StrategyError("its bot process ended", spec="isolated:expert", seat=0, game_seed=1,
                                          decision="acquire", reason="crash"))
    module._finished(8, object())  # a finished game passes
