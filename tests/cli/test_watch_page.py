"""``canasta-sim watch --html``: its closing line counts the game's hands in words, and a strategy that ends the
process recording the page is named in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_a_one_hand_game_is_written_as_one_hand(tmp_path):
    # It read "1 hands" (R15.1: a low target ends the game with its first hand).
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "3", "-s", "greedy", "--rules", "target_score=50",
                                       "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {page}: game seed 3, 1 hand, final scores A 1475, B 630.\n"


ENDS_QUIETLY = "tests/bots/ends_its_process.py:EndsQuietly"


@pytest.mark.timeout(60)
def test_a_strategy_that_ends_its_process_while_a_page_is_recorded_is_named_in_one_line(tmp_path):
    # The page was recorded in the command's own process: os._exit(0) ended watch --html with exit code 0, no page
    # and no word, and what the strategy printed ran over the terminal.
    page = tmp_path / "game.html"
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "watch", "--seed", "1", "-s", ENDS_QUIETLY,
                             "-s", "greedy", "--rules", "target_score=1000", "--html", str(page)],
                            capture_output=True, text=True, timeout=50, cwd=ROOT)
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stdout == "" and "chatter" not in result.stderr
    assert result.stderr.splitlines()[-1] == (f"Error: strategy '{ENDS_QUIETLY}' at seat 0 (game seed 1), decision "
                                              "discard: its worker process died (exit code 0) during this call")
    assert "Traceback" not in result.stderr
    assert not page.exists()


@pytest.mark.timeout(60)
def test_a_page_from_before_is_not_left_where_a_game_whose_process_died_wrote_none(tmp_path):
    # The one-line error said no page was written, and yesterday's page stayed at the path, read as this game's.
    page = tmp_path / "game.html"
    page.write_text("<p>an older game</p>")
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "watch", "--seed", "1", "-s", ENDS_QUIETLY,
                             "-s", "greedy", "--rules", "target_score=1000", "--html", str(page)],
                            capture_output=True, text=True, timeout=50, cwd=ROOT)
    assert result.returncode == 1, result.stderr[-2000:]
    said = result.stderr.splitlines()[-1]
    assert said.startswith(f"Error: strategy '{ENDS_QUIETLY}' at seat 0 (game seed 1), decision discard: its worker "
                           "process died (exit code 0) during this call"), said
    assert said.endswith(f"; no page was written, and the older {page} was removed"), said
    assert not page.exists()


@pytest.mark.timeout(60)
def test_a_page_whose_write_is_cut_short_leaves_no_half_page(tmp_path):
    # The page was written in place: a write cut short (here by a file size limit, as by a full disk) left the page's
    # first part at the path, a page that opens and stops in the middle.
    page = tmp_path / "game.html"
    page.write_text("<p>an older game</p>")
    limited = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
               "resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000)); sys.argv[0] = 'canasta-sim'; "
               "from canasta_sim.cli import main; main()")
    result = subprocess.run([sys.executable, "-c", limited, "watch", "--seed", "3", "-s", "greedy", "--rules",
                             "target_score=50", "--html", str(page)],
                            capture_output=True, text=True, timeout=50, cwd=ROOT)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.splitlines()[-1] == f"Error: --html {page}: File too large", result.stderr[-2000:]
    assert page.read_text() == "<p>an older game</p>"  # as it was: neither cut short nor gone
    assert [path.name for path in tmp_path.iterdir()] == ["game.html"]  # and nothing written beside it is left
