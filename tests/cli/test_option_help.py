"""Every command's ``--help``: each option's range said as a reader takes it."""

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

COMMANDS = ["run", "compare", "tune", "check-strategy", "play", "watch", "replay", "report", "plot", "strategies"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_whole_number_without_bounds_shows_no_range_in_help(command):
    # click describes an IntRange with neither bound as "x<=None": --seed's help ended with "[x<=None]".
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "None]" not in result.output


@pytest.mark.parametrize("width", [60, 80])
def test_help_wraps_lines_at_spaces_never_inside_a_hyphenated_name(width):
    # click wrapped at hyphens: "(as isolated:SPEC; canasta-" then "sim docs protocol)", a command no one can copy.
    for command in [[], ["run"], ["compare"], ["report"], ["watch"]]:
        result = CliRunner().invoke(main, [*command, "--help"], terminal_width=width)
        assert result.exit_code == 0, result.output
        broken = [line for line in result.output.splitlines() if line.rstrip().endswith("-")
                  and not line.rstrip().endswith(" -")]
        assert not broken, broken
        assert "\u2011" not in result.output
