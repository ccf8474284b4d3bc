"""``compare`` and ``tune`` play a protocol-2 bot's games side by side, as ``run`` does, and find what the
same games played one at a time find."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.compare import CompareSchedule, MatchPlan
from canasta_sim.core.rules import Rules
from canasta_sim.plugins.pools import close_all
from canasta_sim.runs.interleave import GAMES_AT_ONCE_VARIABLE, games_at_once
from canasta_sim.tuning.iteration import TuningSchedule, iteration_tasks, task_games

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short


@pytest.mark.timeout(60)
def test_compare_and_tune_players_play_an_isolated_bots_games_side_by_side():
    plan = MatchPlan("isolated:expert", "greedy", 3, Rules(target_score=1000), True, 12)
    schedule = CompareSchedule(plan, None, False)
    player = schedule.new_player("stop", None)
    block = schedule.chunk_games(0)
    assert games_at_once(player, len(block), 0) == len(block)  # the server announces 64 games at once
    assert games_at_once(CompareSchedule(MatchPlan("expert", "greedy", 3, Rules(), True, 12), None, False)
                         .new_player("stop", None), 10, 0) == 1  # no bot: one game at a time
    tasks = iteration_tasks("isolated:expert", "greedy", None, Rules(target_score=1000), 5, 0, 2, 1)
    width = games_at_once(TuningSchedule(None).new_player("stop", None), len(task_games(tasks[0])), tasks[0])
    assert width == len(task_games(tasks[0])) > 1
    close_all()


@pytest.mark.timeout(120)
def test_a_compare_of_an_isolated_bot_ends_as_the_one_played_one_game_at_a_time(monkeypatch):
    arguments = ["compare", "isolated:expert", "--baseline", "greedy", "--max-games", "20", "--seed", "4",
                 "--print-every", "1000", *QUICK]
    side_by_side = CliRunner().invoke(main, arguments)
    assert side_by_side.exit_code == 0, side_by_side.output
    monkeypatch.setenv(GAMES_AT_ONCE_VARIABLE, "1")
    one_at_a_time = CliRunner().invoke(main, arguments)
    assert one_at_a_time.exit_code == 0, one_at_a_time.output
    lines = [line for line in side_by_side.output.splitlines() if line.startswith("games ")]
    assert lines and lines == [line for line in one_at_a_time.output.splitlines() if line.startswith("games ")]
