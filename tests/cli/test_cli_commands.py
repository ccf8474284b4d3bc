"""The command line's lazy command table (:mod:`canasta_sim.cli`): every command is listed, loads under its own
name, and ``canasta-sim --help`` answers without importing any command's module."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

import canasta_sim.cli
from canasta_sim.cli import COMMAND_SECTIONS, COMMANDS, main


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_listed_command_loads_under_its_own_name(name):
    command = main.get_command(click.Context(main), name)
    assert isinstance(command, click.Command)
    assert command.name == name


def test_every_command_of_the_commands_package_is_listed():
    listed = {(module, attribute) for module, attribute, _summary in COMMANDS.values()}
    defined = set()
    for found in pkgutil.iter_modules(canasta_sim.cli.__path__):
        module = importlib.import_module(f"canasta_sim.cli.{found.name}")
        for attribute, value in vars(module).items():
            if isinstance(value, click.Command) and value.callback.__module__ == module.__name__:
                defined.add((found.name, attribute))
    assert defined == listed


@pytest.mark.timeout(60)
def test_the_command_list_imports_no_command_module_nor_pandas():
    code = (
        "import sys\n"
        "from canasta_sim.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(n for n in sys.modules if n.split('.')[0] in ('pandas', 'pyarrow', 'numpy')\n"
        "               or n.startswith('canasta_sim.cli.'))\n"
        "print('IMPORTED', heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "IMPORTED []" in result.stdout
    for name in COMMANDS:
        assert f"  {name} " in result.stdout


def test_an_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(main, ["rnu"])
    assert result.exit_code == 2
    assert "No such command 'rnu'" in result.output


@pytest.mark.parametrize("typed, meant", [
    ("rn", "Did you mean 'run'?"), ("raport", "Did you mean one of 'report', 'plot'?"),
    ("check", "Did you mean 'check-strategy'?"), ("check_strategy", "Did you mean 'check-strategy'?"),
    ("strategy", "Did you mean one of 'strategies', 'check-strategy'?"),
])
def test_a_mistyped_command_names_the_commands_it_may_be_a_slip_for(typed, meant):
    # "Error: No such command 'rn'." and nothing more, where a mistyped option gets "Did you mean '--games'?".
    result = CliRunner().invoke(main, [typed, "--games", "10"])
    assert result.exit_code == 2
    assert result.output == f"Error: No such command {typed!r}. {meant}\n"


def test_a_command_like_no_other_is_refused_listing_every_command():
    result = CliRunner().invoke(main, ["help"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert all(name in result.output for name in COMMANDS) and "canasta-sim --help" in result.output


def test_the_program_help_lists_every_command_once_under_a_heading_in_a_newcomers_order():
    # The commands came in alphabetical order, check-strategy first and watch last, under one heading.
    listed = [name for _heading, names in COMMAND_SECTIONS for name in names]
    assert sorted(listed) == sorted(COMMANDS)
    output = CliRunner().invoke(main, ["--help"]).output
    for heading, _names in COMMAND_SECTIONS:
        assert f"\n{heading}:\n" in output
    assert output.index("  watch ") < output.index("  run ") < output.index("  report ") < output.index("  docs ")


def test_the_program_help_says_where_a_newcomer_starts_and_where_the_docs_are():
    # It said what canasta-sim is and nothing of which command to try first, nor that the docs are installed.
    output = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    assert "New here? canasta-sim watch" in output and "canasta-sim run --games 1000" in output
    assert "canasta-sim docs lists the documentation pages" in output and "canasta-sim COMMAND --help" in output


def test_the_program_without_a_command_shows_its_help_not_an_error():
    # It printed "Error: Usage: canasta-sim [OPTIONS] ...", the whole help as an error message.
    result = CliRunner().invoke(main, [], prog_name="canasta-sim")
    assert result.exit_code == 2 and result.output.startswith("Usage: canasta-sim [OPTIONS] COMMAND"), result.output
    assert "Error" not in result.output and "  tune " in result.output


@pytest.mark.parametrize("arguments", [
    ["rnu"], ["--bogus"], ["check-strategy"], ["watch", "--seed", "x"], ["replay"], ["play", "--bogus"],
    ["strategies", "extra"], ["run", "--games", "0"], ["report"],
])
def test_every_usage_error_is_one_line_and_exits_2(arguments):
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output


@pytest.mark.parametrize("arguments", [["rn"], ["run", "--bogus"], ["report"], ["report", "nowhere"]])
def test_a_usage_error_is_one_line_under_the_oldest_click_admitted(arguments, monkeypatch):
    # click 8.1, which pyproject.toml admits, has no NoArgsIsHelpError: every usage error (canasta-sim rn, a mistyped
    # option, a missing argument) ended in an AttributeError's traceback and exit code 1 there.
    monkeypatch.delattr(click.exceptions, "NoArgsIsHelpError", raising=False)
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output


@pytest.mark.parametrize("command", [["run", "-s", "greedy"], ["check-strategy", "greedy"],
                                     ["compare", "greedy", "--baseline", "random"], ["tune", "expert"]])
@pytest.mark.parametrize("value", ["inf", "nan", "1e10", "0", "-1", "abc"])
def test_a_time_limit_that_no_clock_can_keep_is_refused_before_any_game(command, value):
    # inf passed the check and failed every game, charged to the strategy (a clock armed past the system's time).
    result = CliRunner().invoke(main, [*command, "--time-limit", value])
    assert result.exit_code == 2, result.output
    assert f"'{value}' is not a number of seconds above 0 and at most 86,400" in result.output


@pytest.mark.parametrize("bounds", [["--elo1", "inf"], ["--elo0", "-inf"], ["--elo1", "nan"]])
def test_compare_refuses_elo_bounds_that_are_not_finite(bounds):
    result = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "random", *bounds])
    assert result.exit_code == 2 and "both finite numbers" in result.output, result.output


@pytest.mark.parametrize("command", [["run", "-s", "greedy"], ["compare", "greedy", "--baseline", "random"]])
def test_a_memory_limit_past_what_the_system_holds_is_refused_before_any_worker(command, tmp_path):
    # Its bytes overflowed the system's limit: every worker died before its first game, with no word of why.
    result = CliRunner().invoke(main, [*command, "--memory-limit", "99999999999999", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert "99999999999999 is out of range: use a whole number from 1,024 to 16,777,216" in result.output, result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("arguments, said", [
    (["run", "--games", "abc"], "'abc' is not a whole number of 1 or more"),
    (["run", "--games", "0"], "0 is out of range: use a whole number of 1 or more"),
    (["run", "--chunk-size", "2.5"], "'2.5' is not a whole number of 1 or more"),
    (["run", "--workers", "two"], "'two' is not a whole number of 1 or more"),
    (["plot", "RUN", "--dpi", "50.5"], "'50.5' is not a whole number from 30 to 600"),
    (["plot", "RUN", "--dpi", "10"], "10 is out of range: use a whole number from 30 to 600"),
    (["replay", "RUN", "abc"], "'abc' is not a whole number\n"),  # which game ids there are is the run's to say
    (["check-strategy", "greedy", "--games", "x"], "'x' is not a whole number of 1 or more"),
    (["compare", "greedy", "--baseline", "random", "--max-games", "1e3"], "'1e3' is not a whole number of 1 or more"),
    (["compare", "greedy", "--baseline", "random", "--print-every", "-5"],
     "-5 is out of range: use a whole number of 1 or more"),
    (["tune", "expert", "--games", "many"], "'many' is not a whole number of 1 or more"),
    (["tune", "expert", "--games-per-iteration", "four"], "'four' is not a whole number of 1 or more"),
    (["run", "--seed", "x"], "'x' is not a whole number\n"),  # click said "is not a valid integer"
    (["watch", "--seed", "1.5"], "'1.5' is not a whole number\n"),
])
def test_a_count_that_is_not_a_whole_number_in_range_names_the_range(arguments, said, tmp_path):
    # Click said "'abc' is not a valid integer range": no range was typed, and the accepted one went unsaid.
    arguments = [str(tmp_path) if word == "RUN" else word for word in arguments]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1, result.output
    assert said in result.output, result.output


@pytest.mark.parametrize("command", [["run", "-s", "greedy"], ["compare", "greedy", "--baseline", "random"],
                                     ["tune", "expert"]])
@pytest.mark.parametrize("value", ["1", "1023"])
def test_a_memory_limit_below_what_a_worker_starts_with_is_refused_before_any_worker(command, value, tmp_path):
    # 1 was taken: a worker starts with about 530 MiB of address space, so it had no room left, and a bot process
    # could not even start ("failed to map segment").
    result = CliRunner().invoke(main, [*command, "--memory-limit", value, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert f"{value} is out of range: use a whole number from 1,024 to 16,777,216" in result.output, result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("arguments, said", [
    (["run", "--games", "5", "-s", "greedy", "-s", "random", "--duplicate"],
     "--games 5: --duplicate plays each deal twice, the strategies swapped, so give an even number of games (4 or 6)"),
    (["run", "--games", "1", "-s", "greedy", "-s", "random", "--duplicate"],
     "--games 1: --duplicate plays each deal twice, the strategies swapped, so give an even number of games (2)"),
    (["run", "--games", "7", "-s", "greedy", "-s", "random", "-s", "expert", "--duplicate"],
     "--games 7: --duplicate plays each deal twice, the strategies swapped, so give an even number of games (6 or 8)"),
    (["compare", "greedy", "--baseline", "random", "--max-games", "3"],
     "--max-games 3: compare, without --no-duplicate, plays each deal twice, the strategies swapped, so give an even "
     "number of games (2 or 4)"),
])
def test_an_odd_number_of_games_of_duplicate_deals_is_refused_before_anything_is_written(arguments, said, tmp_path):
    # The last deal was played once and left out of the paired result without a word (run --games 5 reported "2
    # deals (4 games)"), and compare --max-games 3 stopped after 2 games, saying it would play at most 3.
    result = CliRunner().invoke(main, [*arguments, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert result.output == f"Error: {said}\n"
    assert not (tmp_path / "o").exists()


@pytest.mark.timeout(60)
def test_compare_without_duplicate_deals_plays_an_odd_max_games_to_the_last_game():
    result = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "random", "--max-games", "3", "--seed", "1",
                                       "--no-duplicate", "--workers", "1", "--rules", "target_score=1000"])
    assert result.exit_code == 0, result.output
    assert "after 3 games" in result.output.splitlines()[-1]
