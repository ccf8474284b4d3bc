"""``scripts/check_wheel_plays.py``, the check every released wheel must pass on its platform: it plays, and it fails
in one line naming the command that did not end well."""

from __future__ import annotations

import pytest

from tests.helpers import script_module

CHECK = script_module("check_wheel_plays")


@pytest.mark.timeout(60)
def test_the_installed_package_plays_a_run_and_a_checked_game(capsys):
    assert CHECK.main([]) == 0
    said = capsys.readouterr().out
    assert said.startswith("canasta-sim plays here: 8 games on 2 workers (") and "workers" in said


def test_the_check_plays_through_the_installed_entry_point_as_a_user_types_it():
    # The console script (canasta-sim.exe on Windows) is what spawned workers start from, not python -m.
    assert CHECK.canasta_sim_command()[0].endswith(("canasta-sim", "canasta-sim.exe"))


@pytest.mark.timeout(60)
def test_a_command_that_fails_is_named_with_its_last_line(monkeypatch, capsys):
    monkeypatch.setattr(CHECK, "RUN", ["run", "--games", "0"])
    assert CHECK.main([]) == 1
    said = capsys.readouterr().err.strip()
    assert said.startswith("check_wheel_plays: canasta-sim run --games 0 --out ") and "failed (exit 2): " in said
    assert "\n" not in said
