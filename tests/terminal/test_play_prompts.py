"""``canasta-sim play``'s prompts as a player reads them: a card typed at the discard prompt, 'stop' only where it
is a choice (R13.3), and the choices listed again after 'show'."""

from __future__ import annotations

import random
import re

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Stop
from canasta_sim.core.view import SeatView
from canasta_sim.strategies import Greedy
from canasta_sim.terminal.human import PausingNarrator, PlayerQuit, TerminalPlayer, screen_lines
from tests.helpers import GOLDEN, position

BOT = f"{GOLDEN / 'golden_bot.py'}:GoldenBot"
# Seed 4: South moves first, draws 10♥ and, with no meld possible, holds A K K Q Q 10 10 8 7 5 5 4 at the discard.
FIRST_TURN = ["play", "--seed", "4", "--partner", BOT, "--opponents", BOT, "--rules", "target_score=500"]


def _play(text):
    return CliRunner().invoke(main, FIRST_TURN, input=text)


def test_a_number_typed_at_the_discard_prompt_is_the_cards_rank():
    # The prompt numbered its choices, so '4' discarded choice 4 (a ten here) and '10' was "no choice 10", though
    # the docs say `discard 4` or just `4`.
    result = _play("draw\n1\n4\n")
    out = result.output
    assert result.exit_code == 0, out
    assert "Discard a card. Type the card (e.g. '4', 'K', '10', 'JK', '3b'; suits do not matter):\n" \
           "  A, K, Q, 10, 8, 7, 5, 4\n" in out
    assert "Not understood: move 'discard 1': '1' is not a card" in out  # no choice numbers here
    assert re.search(r"South discards 4♠\. Pile: 2 cards\.", out)
    ten = _play("draw\n10\n").output
    assert re.search(r"South discards 10[♥♦]\. Pile: 2 cards\.", ten)


def test_stop_is_offered_only_when_the_stock_is_empty_and_says_it_ends_the_hand_r13_3(monkeypatch, capsys):
    # The first prompt of every turn offered 'stop', which a player typed to find the stock was not empty.
    first = _play("").output
    assert "Begin your turn." in first and "stop" not in first.split("Begin your turn.", 1)[1]

    state = position(hands={0: "Q Q 4"}, melds={0: "K K K"}, pile="7 Q", stock_size=0, seat=0)
    typed = iter(["stop"])
    monkeypatch.setattr(TerminalPlayer, "_read", staticmethod(lambda: next(typed)))
    move = TerminalPlayer(random.Random(0)).choose_acquire(SeatView(state, 0, (0, 0)))
    assert move == Stop()
    shown = capsys.readouterr().out
    assert "or 'stop' to leave the pile, which ends the hand (the stock is empty, R13.3):" in shown
    assert "'draw'" not in shown.split("Begin your turn.", 1)[1]


def test_show_lists_the_choices_again_after_the_table():
    # 'show' printed the table and a bare prompt: the choices were left above it, out of sight on a small screen.
    out = _play("show\n").output
    assert out.count("  1. draw\n") == 2
    assert out.count("Your hand (11): ") == 2


def test_show_at_a_yes_no_question_asks_it_again(monkeypatch, capsys):
    state = position(hands={0: "Q Q 4"}, melds={0: "K K K"}, pile="7 Q", stock_size=0, seat=0)
    typed = iter(["show", "yes"])
    monkeypatch.setattr(TerminalPlayer, "_read", staticmethod(lambda: next(typed)))
    player = TerminalPlayer(random.Random(0))
    assert player._yes_no(SeatView(state, 0, (0, 0)), "Your answer (yes/no)") is True
    shown = capsys.readouterr().out
    assert shown.count("Your answer (yes/no):") == 2 and "Your hand (3): " in shown


def test_the_screen_says_which_canastas_are_natural_and_which_mixed_r11_2():
    # Both were "(canasta)", though a natural one scores 500 and a mixed one 300.
    state = position(hands={0: "Q Q 4"}, melds={0: "K K K K K K K; 9 9 9 9 9 2 JK; 5 5 5"}, seat=0)
    side_a = next(line for line in screen_lines(SeatView(state, 0, (0, 0))) if line.startswith("Side A"))
    assert "K K K K K K K (natural canasta) | " in side_a
    assert "9 9 9 9 9 2 JK (mixed canasta) | 5 5 5. " in side_a


def test_play_waits_for_enter_after_each_hands_score_table(monkeypatch, capsys):
    # The next deal and the bots' turns followed the score table at once and scrolled it off the screen.
    typed = iter(["", "quit"])
    monkeypatch.setattr(TerminalPlayer, "_read", staticmethod(lambda: next(typed)))
    lines: list[str] = []
    with pytest.raises(PlayerQuit):  # 'quit' at the second hand's end stops the game there
        play_game([Greedy] * 4, seed=7, observer=PausingNarrator(lines.append))
    assert [line.split(":")[0] for line in lines if line.startswith("=== Hand")] == ["=== Hand 1", "=== Hand 2"]
    assert lines[-1].strip().startswith("total")  # the score table is the last thing written before the wait
    assert capsys.readouterr().out.count("The hand is over: press Enter to go on, or type 'quit'.") == 2


def test_ask_typed_as_rules_md_writes_it_says_when_the_question_comes_r12_5():
    # rules.md's example turn types 'ask'; here it was read as a card: "'ask' is not a card; use a rank 4-10, ...".
    out = _play("draw\nask\n").output
    assert "'ask' is not a choice now: right after you draw or take the pile, when you can go out, you are asked " \
           "whether to ask your partner (R12.5). Type the card" in out


def test_done_typed_where_melding_is_over_says_what_is_asked_instead_of_a_move_nobody_typed():
    # With no meld possible the meld prompt is skipped, and 'done' at the discard prompt read "Not understood: move
    # 'discard done': 'done' is not a card".
    out = _play("draw\ndone\n4\n").output
    assert "'done' ends melding, and melding is not what is asked now. Type the card (e.g. '4'" in out
    assert "discard done" not in out
    assert re.search(r"South discards 4♠\. Pile: 2 cards\.", out)


def test_help_at_the_end_of_a_hand_explains_and_waits_again(monkeypatch, capsys):
    # 'help' works at every prompt, the docs say; here it dealt the next hand.
    typed = iter(["help", "quit"])
    monkeypatch.setattr(TerminalPlayer, "_read", staticmethod(lambda: next(typed)))
    lines: list[str] = []
    with pytest.raises(PlayerQuit):  # 'quit' after the help, still at the first hand's end
        play_game([Greedy] * 4, seed=7, observer=PausingNarrator(lines.append))
    assert [line.split(":")[0] for line in lines if line.startswith("=== Hand")] == ["=== Hand 1"]  # no second deal
    assert "Press Enter to go on to the next hand (or the game's end), or type 'quit'" in capsys.readouterr().out
