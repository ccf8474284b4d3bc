"""The commands shown to the user to type (a stopped run's resume, a failure's replay) are quoted for the platform's
shell: POSIX single quotes, which cmd.exe does not read, or on Windows double quotes, which cmd.exe and PowerShell
both read.  The platform is faked here (``shown_commands.WINDOWS``); the command ``run.json`` records keeps POSIX
quoting, as canasta-sim reads it back."""

from __future__ import annotations

import json

import pytest

from canasta_sim.runs import shown_commands
from canasta_sim.runs.shown_commands import join_shown, quote_shown
from tests.helpers import invoke
from tests.run_helpers import BROKEN_AT_DISCARD_BOT_SOURCE


@pytest.mark.parametrize(("word", "posix", "windows"), [
    ("results", "results", "results"),
    (r"C:\Users\Ann Lee\run", r"'C:\Users\Ann Lee\run'", r'"C:\Users\Ann Lee\run"'),
    ("C:\\runs\\a b\\", "'C:\\runs\\a b\\'", '"C:\\runs\\a b\\\\"'),  # a last backslash doubled: it would escape "
    ('cmd:node "bot.js"', "'cmd:node \"bot.js\"'", '"cmd:node \\"bot.js\\""'),
    ("R&D", "'R&D'", '"R&D"'),  # cmd.exe's & ends a command outside quotes
    ("", "''", '""'),
])
def test_a_word_is_quoted_for_posix_shells_or_for_cmd_and_powershell_on_windows(monkeypatch, word, posix, windows):
    monkeypatch.setattr(shown_commands, "WINDOWS", False)
    assert quote_shown(word) == posix
    monkeypatch.setattr(shown_commands, "WINDOWS", True)
    assert quote_shown(word) == windows
    assert join_shown(["canasta-sim", "replay", word]) == f"canasta-sim replay {windows}"


@pytest.mark.timeout(60)
def test_a_stopped_runs_resume_and_replay_commands_are_quoted_for_windows_and_its_recorded_command_for_posix(
        tmp_path, monkeypatch):
    # Both were quoted with shlex.quote: on Windows, 'C:\...\my run' is two words to cmd.exe, quotes kept.
    monkeypatch.setattr(shown_commands, "WINDOWS", True)
    bot = tmp_path / "fails.py"
    bot.write_text(BROKEN_AT_DISCARD_BOT_SOURCE)
    out = tmp_path / "my run"
    result = invoke("run", "--games", "2", "--seed", "3", "--workers", "1", "-q", "-s", f"{bot}:Broken", "-s", "greedy",
                    "--rules", "target_score=1000", "--out", out)
    assert result.exit_code == 1, result.output
    assert f'canasta-sim replay "{out}" 0 --debug' in result.output
    assert f'canasta-sim run --resume "{out}"' in result.output
    assert f"'{out}'" not in result.output
    assert f"--out '{out}'" in json.loads((out / "run.json").read_text())["command"]


@pytest.mark.parametrize(("windows", "shown"), [(False, "'{}'"), (True, '"{}"')], ids=["posix", "windows"])
def test_the_commands_a_refused_folder_is_told_to_go_to_quote_a_path_with_a_space(tmp_path, monkeypatch, windows,
                                                                                  shown):
    # "canasta-sim plot /x/my tuning draws its trajectory" was shown as the path came, a space in it unquoted.
    monkeypatch.setattr(shown_commands, "WINDOWS", windows)
    tuning = tmp_path / "my tuning"
    tuning.mkdir()
    (tuning / "tune.json").write_text("{}")
    result = invoke("report", tuning)
    assert result.exit_code == 2, result.output
    assert (f"canasta-sim plot {shown.format(tuning)} draws its trajectory, and canasta-sim tune --resume "
            f"{shown.format(tuning)} continues it") in result.output
