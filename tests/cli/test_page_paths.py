"""``watch --html FILE`` and ``replay RUN GAME --html FILE`` name the page in their closing line as it was typed."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

BOT_SOURCE = '''
from canasta_sim.strategies.greedy import Greedy


class Mine(Greedy):
    """Greedy under another name, loaded from a file named relative to where the run started."""

    name = "mine"
'''


def test_watch_names_a_relative_page_as_typed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["watch", "--seed", "3", "-s", "greedy", "--rules", "target_score=50",
                                       "--html", "game.html"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Wrote game.html: game seed 3, "), result.output
    assert (tmp_path / "game.html").is_file()


@pytest.mark.timeout(60)
def test_replay_names_a_relative_page_as_typed_when_the_run_started_elsewhere(tmp_path, monkeypatch):
    # The bot's file is relative to where the run started, so replay plays from there; its line named the page by
    # its absolute path ("Wrote /tmp/.../game.html"), where watch's says what the user typed.
    start, here = tmp_path / "start", tmp_path / "here"
    start.mkdir()
    here.mkdir()
    (start / "mine.py").write_text(BOT_SOURCE)
    monkeypatch.chdir(start)
    played = CliRunner().invoke(main, ["run", "--games", "1", "--seed", "3", "--workers", "1", "-q", "--out", "run",
                                       "-s", "mine.py:Mine", "-s", "greedy", "--rules", "target_score=50"])
    assert played.exit_code == 0, played.output
    monkeypatch.chdir(here)
    result = CliRunner().invoke(main, ["replay", "../start/run", "0", "--html", "game.html"])
    assert result.exit_code == 0, result.output
    # (On stdout: stderr's note first names the file the replay imports.)
    assert result.stdout.startswith("Wrote game.html: game 0, "), result.output
    assert (here / "game.html").is_file() and not (start / "game.html").exists()
