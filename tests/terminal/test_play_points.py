"""``canasta-sim play``'s screen: the game's score and each side's points on the table as the hand goes (R14.1)."""

from __future__ import annotations

from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.view import SeatView
from canasta_sim.terminal.human import screen_lines
from tests.helpers import position
from tests.terminal.test_play import BOT, SHORT

# Seed 1: South moves first and, after drawing 10♠, holds K Q 10 10 9 9 5 5 4 2 2 2.
FIRST_MELDS = "\n".join(["draw", "10 10 2; 9 9 2", "5 5 2", "discard K"]) + "\n"


def _play(arguments, text):
    return CliRunner().invoke(main, arguments, input=text)


def test_the_screen_shows_each_sides_points_on_the_table_as_melds_are_laid_r14_1():
    result = _play(["play", "--seed", "1", "--partner", BOT, "--opponents", BOT, *SHORT], FIRST_MELDS)
    assert result.exit_code == 0, result.output
    out = result.output
    # After each meld the side's line comes again with its melds and what they count (R14.1a).
    assert ("Side A (South & North, yours): 10♠ 10♣ 2♥ | 9♠ 9♦ 2♦. Red 3s: 3♦. On the table: 80 points (melds 80, "
            "canastas 0).\nYour hand (6): ") in out
    assert ("Side A (South & North, yours): 10♠ 10♣ 2♥ | 9♠ 9♦ 2♦ | 5♠ 5♥ 2♣. Red 3s: 3♦. On the table: 110 points "
            "(melds 110, canastas 0).\nYour hand (3): ") in out
    assert "Game score before this hand: A (South & North) 0, B (West & East) 0; target 500." in out


def test_the_table_points_count_each_canasta_bonus_r14_1b():
    state = position(hands={0: "4 5 6"}, melds={0: "K K K K K K K; 9 9 2", 1: "Q Q Q Q Q 2 JK"}, seat=0)
    lines = screen_lines(SeatView(state, 0, (1200, 850)), None)
    assert "On the table: 610 points (melds 110, canastas 500)." in lines[2]  # a natural canasta
    assert "On the table: 420 points (melds 120, canastas 300)." in lines[3]  # a mixed one
    assert "Game score before this hand: A (South & North) 1200, B (West & East) 850" in lines[1]
