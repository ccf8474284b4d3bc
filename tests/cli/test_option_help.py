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
