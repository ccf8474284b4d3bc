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
from canasta_sim.cli import COMMANDS, main


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
