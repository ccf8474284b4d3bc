"""``canasta-sim watch --html``'s closing line counts the game's hands in words."""

from __future__ import annotations

from click.testing import CliRunner

from canasta_sim.cli import main


def test_a_one_hand_game_is_written_as_one_hand(tmp_path):
    # It read "1 hands" (R15.1: a low target ends the game with its first hand).
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "3", "-s", "greedy", "--rules", "target_score=50",
                                       "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {page}: game seed 3, 1 hand, final scores A 1475, B 630.\n"
