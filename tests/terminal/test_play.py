"""``canasta-sim play`` driven through scripted standard input: the screen, prompts, bad input, quitting."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.cards import parse_kind
from canasta_sim.terminal.human import TerminalPlayer
from tests.bots.interrupts_the_command import COMMAND_PID_VARIABLE
from tests.helpers import GOLDEN, ROOT

BOT = f"{GOLDEN / 'golden_bot.py'}:GoldenBot"
SHORT = ["--rules", "target_score=500"]
# Seed 4: South (the person) moves first in hand 1 and holds A K K Q Q 10 8 7 5 5 4; the upcard is a 7.
FIRST_TURN = ["play", "--seed", "4", "--partner", BOT, "--opponents", BOT, *SHORT]


def _play(arguments, text):
    return CliRunner().invoke(main, arguments, input=text)


def test_screen_shows_the_hand_sorted_by_rank_the_table_pile_and_scores():
    result = _play(FIRST_TURN, "")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Game score before this hand: A (South & North) 0, B (West & East) 0; target 500." in out
    assert "Side B (West & East): no meld yet (initial meld needs 50)." in out
    assert "frozen for your side until it melds: taking it needs a natural pair (R8.1c)" in out
    hand_line = next(line for line in out.splitlines() if line.startswith("Your hand (11): "))
    cards = hand_line.split(": ", 1)[1].split()
    assert all(card[-1] in "♠♥♦♣" for card in cards), cards  # suits shown
    kinds = [parse_kind(card) for card in cards]
    assert kinds == sorted(kinds, reverse=True)  # A first, down to 4 (R1.3 ranks)
    assert "Begin your turn. Type a number or 'draw'" in out and "  1. draw" in out
    assert "Game abandoned. (seed 4)" in out  # end of input quits cleanly


def test_bad_input_gets_a_message_naming_what_is_accepted_and_the_prompt_again():
    script = "\n".join([
        "",               # nothing typed
        "x",              # not a move
        "9",              # no such choice
        "take 9 9",       # R8.2: the cards taken with a seven must be sevens or wild cards
        "meld K K K",     # a move of another phase
        "help",
        "draw",           # accepted; no meld is possible with this hand
        "Z",              # not a card
        "3b",             # R6.1: no black 3 in hand
        "discard 4",      # accepted
    ]) + "\n"
    result = _play(FIRST_TURN, script)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Please type a number or 'draw'" in out
    # Only the forms the prompt takes: the notation's full list (ask, answer yes|no, ...) named moves that were not
    # choices there.
    assert "Not understood: 'x'. Type a number or 'draw' or 'take' with the cards" in out
    assert "answer yes|no" not in out
    assert "There is no choice 9; type 1 or 'draw'" in out  # it read "a number from 1 to 1"
    assert "Not allowed: R8.2: the cards taken with a seven must be sevens or wild cards." in out
    assert "'meld K K K' is not a choice now. Type a number or 'draw'" in out
    assert "'show' shows the table again" in out
    assert "No meld is possible now." in out
    assert "Not understood: move 'discard Z': 'Z' is not a card" in out
    assert "Not allowed: R6.1: the hand holds no black 3s" in out
    assert re.search(r"South discards 4♠\. Pile: 2 cards\.", out)
    assert "Game abandoned. (seed 4)" in out


def test_melds_typed_or_chosen_and_their_errors_r9_r10():
    # Seed 1: South moves first and, after drawing 10♠, holds K Q 10 10 9 9 5 5 4 2 2 2.
    script = "\n".join([
        "draw",
        "K K K",            # R6.1: one king in hand
        "5 5 2",            # R10.2: 30 points, the initial meld needs 50
        "5 5 JK",           # R6.1: no joker in hand
        "10 10 2; 9 9 2",   # accepted: 80 points (R10.3)
        "5 5 2",            # accepted: no minimum once the side has melded (R10.6)
        "done",
        "discard K",
    ]) + "\n"
    result = _play(["play", "--seed", "1", "--partner", BOT, "--opponents", BOT, *SHORT], script)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Meld, or type 'done'. Type a number or groups of cards separated by ';'" in out
    assert "  1. meld 5 5 2; 9 9 2; 10 10 2" in out
    assert "Not allowed: R6.1: the move uses three kings but the hand holds only one king" in out
    assert "Not allowed: R10.2: the side's initial meld needs 50 points; these melds count 30." in out
    assert "Not allowed: R6.1: the move uses one joker but the hand holds no jokers" in out
    assert "South melds the tens: 10♠ 10♣ 2" in out and "South melds the nines: 9♠ 9♦ 2" in out
    assert "Initial meld of side A: 80 points, minimum 50 (R10.2, R10.3)." in out
    assert "South melds the fives: 5♠ 5♥ 2" in out
    assert "South discards K♦." in out


# '1', 'yes' and every card in turn answer every prompt: each takes the first line it accepts (the discard prompt a
# card, the others a number or yes).
ANY_ANSWER = "1\nyes\n" + "".join(f"{card}\n" for card in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "3b",
                                                             "2", "JK"))


def test_a_whole_game_played_through_standard_input_ends_with_the_score():
    result = _play(["play", "--seed", "7", "--partner", BOT, "--opponents", BOT, *SHORT], ANY_ANSWER * 400)
    assert result.exit_code == 0, result.output
    assert "Game over after" in result.output
    assert result.output.rstrip().endswith(("win!", "West and East win.", "A draw."))


def test_partner_questions_both_ways_r12_5():
    asked_partner = answered_partner = False
    for seed in range(30):
        arguments = ["play", "--seed", str(seed), "--partner", BOT, "--opponents", BOT, *SHORT]
        out = _play(arguments, ANY_ANSWER * 400).output
        asked_partner |= "Ask your partner? (yes/no)" in out and 'South asks North: "May I go out?"' in out
        answered_partner |= 'North asks you: "May I go out?"' in out and "South answers yes" in out
        if asked_partner and answered_partner:
            break
    assert asked_partner and answered_partner


def test_quit_and_ctrl_c_end_the_game_cleanly(monkeypatch):
    result = _play(FIRST_TURN, "quit\n")
    assert result.exit_code == 0 and "Game abandoned. (seed 4)" in result.output
    assert result.exception is None

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(TerminalPlayer, "_read", staticmethod(interrupted))
    result = _play(FIRST_TURN, "")
    assert result.exit_code == 0 and "Game abandoned. (seed 4)" in result.output
    assert result.exception is None


def test_bad_options_are_usage_errors():
    result = _play(["play", "--partner", "nosuchbot"], "")
    assert result.exit_code == 2 and "unknown strategy 'nosuchbot'" in result.output
    result = _play(["play", "--rules", "ask_partner=sometimes"], "")
    assert result.exit_code == 2 and "ask_partner" in result.output


@pytest.mark.timeout(30)
def test_ctrl_c_while_a_bot_thinks_abandons_the_game_without_blaming_the_bot(monkeypatch):
    # It ended "Error: strategy ... at seat 1 ..., decision acquire: raised KeyboardInterrupt" with exit code 1.  The
    # bot plays in a process of its own, outside the terminal's process group: the Ctrl-C reaches the command alone.
    monkeypatch.setenv(COMMAND_PID_VARIABLE, str(os.getpid()))
    arguments = ["play", "--seed", "4", "--opponents", "tests/bots/interrupts_the_command.py:Thinker", *SHORT]
    result = _play(arguments, "draw\n1\n4\n")
    assert result.exit_code == 0, result.output
    assert "Game abandoned. (seed 4)" in result.output and "KeyboardInterrupt" not in result.output


@pytest.mark.timeout(60)
def test_a_bot_that_ends_its_process_is_named_in_one_line_and_its_prints_stay_off_the_screen():
    # The bots played in the command's own process: os._exit(0) ended play with exit code 0 and no word, and what a
    # bot printed ran over the person's screen.
    spec = "tests/bots/ends_its_process.py:EndsQuietly"
    result = subprocess.run([sys.executable, "-m", "canasta_sim", "play", "--seed", "4", "--opponents", spec, *SHORT],
                            input="draw\n1\n4\n" * 40, capture_output=True, text=True, timeout=50,
                            cwd=ROOT)
    assert result.returncode == 1, result.stderr[-2000:]
    *screen, last = (result.stdout + result.stderr).splitlines()
    assert not any("chatter" in line for line in screen)  # its last stderr lines are the error line's, cut short
    assert last.startswith(f"Error: strategy '{spec}' at seat ") and "its bot process ended (exit status 0)" in last


def test_a_draw_shows_only_the_lines_it_changed_not_the_whole_screen():
    # Seed 4: South draws first with nothing to meld; after the draw the screen gives the new hand and stock lines,
    # not the scores, the sides and the pile again.
    out = _play(FIRST_TURN, "draw\n").output
    after_draw = out.split("Begin your turn.", 1)[1].split("No meld is possible now.", 1)[0]
    assert "Game score before this hand" not in after_draw, after_draw
    assert "Side A (South & North" not in after_draw and "Pile: " not in after_draw, after_draw
    assert "Your hand (12): " in after_draw and "Stock: " in after_draw, after_draw


_LOOPS_AT_ONCE = '''
from canasta_sim.strategies.greedy import Greedy


class LoopsAtOnce(Greedy):
    """Greedy that never answers its first decision."""

    name = "loops-at-once"

    def choose_acquire(self, view):
        while True:
            pass
'''


@pytest.mark.timeout(60)
def test_play_time_limit_ends_a_looping_bots_decision_as_its_loss_on_time(tmp_path):
    # play had no --time-limit where run and watch have one: a person facing a looping bot waited for its process's
    # own deadline of a minute.  Seed 4: South moves first, then West, which loops.
    (tmp_path / "loops.py").write_text(_LOOPS_AT_ONCE)
    spec = f"{tmp_path / 'loops.py'}:LoopsAtOnce"
    started = time.monotonic()
    result = _play(["play", "--seed", "4", "--opponents", spec, *SHORT, "--time-limit", "0.3"], "draw\ndiscard 4\n")
    assert time.monotonic() - started < 30  # nowhere near the bot process's own deadline of a minute
    assert result.exit_code == 1, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith(f"Error: strategy '{spec}' at seat 1 "), last
    assert "decision acquire" in last and "did not answer in time" in last, last


@pytest.mark.timeout(60)
def test_play_time_limit_never_times_the_person():
    # The person's prompt is not a decision under the clock: an answer typed after the limit is still the person's.
    with subprocess.Popen([sys.executable, "-m", "canasta_sim", "play", "--seed", "4", *SHORT, "--time-limit", "0.2"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=ROOT) as person:
        shown = []
        while not shown or shown[-1] != "  1. draw\n":  # the first prompt is on the screen
            shown.append(person.stdout.readline())
            assert shown[-1], "".join(shown)
        time.sleep(1.0)  # thinking, past the limit, before the first answer
        out, err = person.communicate("draw\ndiscard 4\n", timeout=50)
    assert person.returncode == 0, err[-2000:]
    assert "Game abandoned. (seed 4)" in out and "time limit" not in out + err
    assert "Your hand (12): " in out, out[-2000:]  # the draw typed late was played


def test_play_time_limit_has_watchs_default_and_help():
    from canasta_sim.cli.play import play_command
    from canasta_sim.cli.watch import watch_command

    played, watched = (next(param for param in command.params if param.name == "time_limit")
                       for command in (play_command, watch_command))
    assert played.default is None and watched.default is None
    assert played.type is watched.type
    assert played.help.startswith(watched.help)


def test_a_strategy_file_plays_in_this_process_with_a_note_where_bot_processes_cannot_run(monkeypatch, tmp_path):
    # play runs a strategy file as isolated:, which Windows refuses: the file was refused where it can play in-process.
    import canasta_sim.plugins.specs

    monkeypatch.setattr(canasta_sim.plugins.specs, "BOT_PIPES_WAITABLE", False)
    spec = f"{ROOT / 'examples' / 'my_bot.py'}:MyBot"
    result = _play(["play", "--seed", "4", "--opponents", spec, *SHORT], "quit\n")
    assert result.exit_code == 0, result.output
    assert f"note: {spec} plays in this process, as Windows cannot run it in a process of its own" in result.output
    assert "Game abandoned. (seed 4)" in result.output
