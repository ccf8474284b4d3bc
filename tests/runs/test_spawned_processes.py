"""Where processes are spawned, not forked (macOS, Windows), every command contains a strategy as on Linux and plays
the same games.

On Linux the workers and the single game's process of ``check-strategy``, ``watch``, ``replay`` and ``report`` are
forked; elsewhere they are spawned (``canasta_sim.runs.containment.worker_start_method``).  Here the start methods
are narrowed to ``spawn`` alone, as on Windows.  A spawned process imports the package (about a second), so these
are few and small.
"""

from __future__ import annotations

import multiprocessing

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.runs.containment import worker_start_method
from tests.helpers import ROOT, assert_same_run_tables

MY_BOT = f"{ROOT / 'examples' / 'my_bot.py'}:MyBot"
QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short


@pytest.fixture
def spawn_only(monkeypatch):
    """The start methods of a system without ``fork`` (Windows)."""
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert worker_start_method() == "spawn"


def _invoke(arguments):
    result = CliRunner().invoke(main, arguments)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def test_a_spawned_run_of_a_users_strategy_file_in_its_own_process_plays_the_forked_runs_tables(tmp_path, monkeypatch):
    # A user's strategy loaded by path, isolated (a bot process of its own), in spawned workers.
    arguments = ["run", "-s", f"isolated:{MY_BOT}", "-s", "random", "--games", "2", "--workers", "1", "--seed", "5",
                 *QUICK, "--quiet"]
    forked = _invoke([*arguments, "--out", str(tmp_path / "forked")])
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    spawned = _invoke([*arguments, "--out", str(tmp_path / "spawned")])
    assert (forked.exit_code, spawned.exit_code) == (0, 0), spawned.output
    assert_same_run_tables(tmp_path / "forked", tmp_path / "spawned")


def test_a_spawned_compare_of_a_users_strategy_file_gives_the_forked_compares_games():
    arguments = ["compare", MY_BOT, "--baseline", "greedy", "--max-games", "4", "--workers", "2", "--seed", "3",
                 *QUICK]
    forked = _invoke(arguments)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
        spawned = _invoke(arguments)

    def games(output: str) -> list[str]:
        return [line for line in output.splitlines() if line.startswith("games")]

    assert games(forked.output) and games(spawned.output) == games(forked.output)


TRAPS = """\
import os

from canasta_sim.strategies.greedy import Greedy


class SwallowsTheClock(Greedy):
    name = "swallows-the-clock"

    def choose_acquire(self, view):
        while True:
            try:
                while True:
                    pass
            except BaseException:  # the point: nothing stops it from inside
                pass


class ExitsItsProcess(Greedy):
    name = "exits-its-process"

    def choose_acquire(self, view):
        os._exit(3)
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("trap", "options", "reason"), [
    ("SwallowsTheClock", ["--time-limit", "0.5"], "timeout"),
    ("ExitsItsProcess", [], "crash"),
])
def test_check_strategy_in_a_spawned_process_charges_a_hanging_or_dying_strategy(spawn_only, tmp_path, trap, options,
                                                                                 reason):
    # Without fork the game was played in the command's own process: a strategy swallowing its clock hung the
    # command, one calling os._exit ended it with no word.  (A file of this test's own: the command loads it here too.)
    (tmp_path / "traps.py").write_text(TRAPS)
    result = _invoke(["check-strategy", f"{tmp_path / 'traps.py'}:{trap}", "--games", "1", *options, *QUICK])
    assert result.exit_code == 1, result.output
    assert f"(reason: {reason})" in result.output
