"""``canasta-sim watch`` and the narrator: golden narrations, public information only, card tracking.

Regenerate the golden files after an intended change with
``UPDATE_GOLDEN=1 python -m pytest tests/terminal/test_watch.py``
and read the difference before keeping it.
"""

from __future__ import annotations

import os
import re

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.docs import find_page
from canasta_sim.core.cards import card_text
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Stop
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.state import HandState
from canasta_sim.strategies import Greedy, RandomPlay
from canasta_sim.terminal.narrate import Narrator, cards_text, sorted_cards
from tests.helpers import GOLDEN, INTERRUPTED_WHILE_THINKING, apply_all, stacked_deck

BOT = f"{GOLDEN / 'golden_bot.py'}:GoldenBot"
# Draw texts that name a card: anything but the stock, a public red 3 (R4.1), a count or a nameless replacement.
_PRIVATE_DRAW = re.compile(r"draws (?!from the stock|3[♥♦]|\d+ replacement|again \(R4\.2\)\.$)", re.MULTILINE)


def _watch(*arguments: str) -> str:
    result = CliRunner().invoke(main, ["watch", *arguments])
    assert result.exit_code == 0, result.output
    return result.output


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; create it with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_narration_of_a_fixed_seed_matches_the_golden_file():
    text = _watch("--seed", "6", "-s", BOT, "--rules", "target_score=1000")
    _check_golden("watch_seed6.txt", text)
    # The golden game covers the events the narration must explain.
    for expected in ("(R3.3)", "(R3.5)", "(R4.2)", "(R8.1b)", "(R8.2c)", "(R5.2)", "canasta (R11.1, R11.2)",
                     "(R12.5)", "answers no", "answers yes", "(R14.1a)", "Game over after 2 hands"):
        assert expected in text


def test_public_narration_of_a_fixed_seed_matches_the_golden_file():
    text = _watch("--seed", "6", "-s", BOT, "--rules", "target_score=1000", "--public-only")
    _check_golden("watch_seed6_public.txt", text)


def test_public_only_never_names_a_hidden_card():
    shown = _watch("--seed", "6", "-s", BOT, "--rules", "target_score=1000")
    public = _watch("--seed", "6", "-s", BOT, "--rules", "target_score=1000", "--public-only")
    assert "Hands:" in shown and "Hands:" not in public
    assert "left holding" in shown and "left holding" not in public
    assert _PRIVATE_DRAW.search(shown) and not _PRIVATE_DRAW.search(public)
    for line in public.splitlines():
        if line.startswith("Turn "):
            assert re.fullmatch(r"Turn \d+: \w+ \([AB]\), \d+ cards?", line), line
        assert "(R3.5):" not in line and "(R4.2):" not in line, line
    # Both tell the same game: the public text is the shown one with the hidden parts left out.
    assert shown.splitlines()[-2:] == public.splitlines()[-2:]


def test_watch_seats_and_errors():
    # Two specs are sides A and B (R2.1); four are seats 0-3.
    text = _watch("--seed", "1", "-s", "greedy", "-s", "random", "--rules", "target_score=300")
    assert "Side A: South (seat 0) greedy@" in text and "North (seat 2) greedy@" in text
    assert "Side B: West (seat 1) random@2, East (seat 3) random@2." in text
    runner = CliRunner()
    result = runner.invoke(main, ["watch", "-s", "greedy", "-s", "greedy", "-s", "greedy"])
    assert result.exit_code == 2 and "give 1 strategy (all seats), 2 (side A, side B) or 4" in result.output
    result = runner.invoke(main, ["watch", "-s", "nosuchbot"])
    assert result.exit_code == 2 and "unknown strategy 'nosuchbot'" in result.output
    result = runner.invoke(main, ["watch", "--rules", "target_score=abc"])
    assert result.exit_code == 2 and "target_score" in result.output


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["dealt_red_three_timing=first_turn"],
        ["last_card_red_three=meld_no_discard", "stock_exhausted_rule=official"],
        ["black_three_freezes_pile=true", "blocking_wild_cards=joker_only", "ask_partner=mandatory"],
        ["allow_wild_only_melds=true", "wild_ratio_rule=min_two_naturals", "stock_exhausted_rule=strict"],
    ],
)
def test_narrator_keeps_track_of_every_card_over_many_games(options):
    # TableCards.verify raises if the card ids ever disagree with the engine's counts (R1.1).
    rules = Rules.from_options([*options, "target_score=1500"])
    for seed in range(6):
        lines: list[str] = []
        players = [Greedy, RandomPlay, Greedy, RandomPlay] if seed % 2 else [RandomPlay, Greedy] * 2
        narrator = Narrator(lines.append, shown_seats=() if seed % 3 else range(4))
        result = play_game(players, seed=seed, rules=rules, observer=narrator)
        assert sum(line.startswith("Hand ") and " ends: " in line for line in lines) == len(result.hands)
        totals = [line for line in lines if line.lstrip().startswith("total ")]
        assert totals[-1].split()[1:] == [str(result.scores[0]), str(result.scores[1])]


def _narrate_hand(deck, moves, *, dealer=3, rules=DEFAULT_RULES, shown=range(4)):
    lines: list[str] = []
    narrator = Narrator(lines.append, shown_seats=shown)
    state = HandState.from_deck(rules, deck, dealer=dealer)
    narrator.on_hand_start(state)
    for move in moves:
        apply_all(state, move)
        narrator.on_move(state)
    return lines, state


def test_upcards_dealt_red_threes_and_replacements_r3_3_r3_5():
    deck = stacked_deck({0: "3r K K"}, dealer=3, upcards="2 JK 7", stock_top="Q")
    lines, _ = _narrate_hand(deck, [])
    upcards = [card_text(card) for card in deck[44:47]]
    # Two turned cards are named as two ("Upcard: 2♠, JK, wild or red 3, stays" read as one card).
    assert lines[2] == (f"Upcards: {upcards[0]} and {upcards[1]}, each wild or a red 3, stay in the pile and freeze it "
                        f"(R3.3); then {upcards[2]} covers them.")
    dealt = f"South lays down the dealt {card_text(deck[0])} and draws 1 replacement (R3.5)"
    assert lines[3] == f"{dealt}: {card_text(deck[47])}."
    public, _ = _narrate_hand(deck, [], shown=())
    assert public[3] == f"{dealt}."


def test_first_turn_red_threes_still_held_when_the_hand_ends_are_laid_unreplaced_r3_5_d22():
    # South goes out on the first turn; West and North, who never had a turn, lay their dealt red 3s as it ends.
    deck = stacked_deck({0: "Q Q Q Q Q Q Q 5 5 5 5", 1: "3r", 2: "3r 3r"}, dealer=3, upcards="8", stock_top="9")
    rules = Rules(dealt_red_three_timing="first_turn")
    for shown in (range(4), ()):
        lines, state = _narrate_hand(deck, ["draw", "meld Q Q Q Q Q Q Q; 5 5 5 5", "discard 9"], rules=rules,
                                     shown=shown)  # TableCards.verify checks the red 3s against the engine's
        west, north = (re.sub("[♥♦]", "♥", line) for line in lines[-2:])
        assert west == "West lays down the dealt 3♥ as the hand ends: nothing replaces it (R3.5, D22)."
        assert north == "North lays down the dealt 3♥ 3♥ as the hand ends: nothing replaces them (R3.5, D22)."
        assert state.red_threes == [0, 1, 2, 0]


def test_frozen_pile_take_with_extra_melds_then_a_freezing_discard_r8_2b_r8_3():
    # South (first to play) takes a pile frozen by a deuce with a natural pair, and melds aces to reach 50.
    deck = stacked_deck({0: "7 7 A A A 9 5", 1: "6 8"}, dealer=3, upcards="2 7", stock_top="3r 9")
    lines, state = _narrate_hand(deck, ["take 7 7; A A A", "discard 2", "draw"])
    text = "\n".join(lines)
    assert "South takes the pile (2 cards), melding 7" in text
    assert "The pile was frozen by 2" in text and "(R8.1b), so a natural pair was needed (R8.2b)." in text
    assert "With the take, for the minimum (R8.3), it also melds the aces:" in text
    assert "Initial meld of side A: 75 points from the top card and the hand, minimum 50" in text
    assert "which freezes the pile (R8.1b) and blocks it while on top (R8.1a). Pile: 1 card, frozen." in text
    red, nine = deck[46], deck[47]
    assert f"West draws {card_text(red)}, lays it down and draws again (R4.2): {card_text(nine)}." in text
    assert state.red_threes[1] == 1


def test_sorted_cards_puts_ranks_high_to_low_then_threes_deuces_jokers():
    ace_spades, four_hearts, joker, deuce_clubs = 12, 13 + 2, 104, 39
    assert sorted_cards([joker, four_hearts, deuce_clubs, ace_spades]) == [ace_spades, four_hearts, deuce_clubs, joker]
    assert cards_text([]) == "-"
    assert cards_text([joker, ace_spades]) == "A♠ JK"


def test_the_header_names_the_rules_page_a_reader_has():
    # The command that prints the page, which a wheel's user has too, rather than a path in a checkout.
    lines: list[str] = []
    Narrator(lines.append).game_header(seed=1, labels=["greedy@2"] * 4, rules=DEFAULT_RULES)
    named = re.search(r"Rules: the defaults \(canasta-sim docs (\w+)\)\.", "\n".join(lines))
    assert named and find_page(named.group(1)).name == "rules.md"



@pytest.mark.parametrize(("upcard", "said"), [
    ("3b", "South cannot take the pile, blocked by the 3♠ on top (R8.1a)"),
    ("7", "South does not take the pile"),
])
def test_an_empty_stock_ends_the_hand_said_with_whether_the_pile_could_be_taken_r13_3(upcard, said):
    # "does not take the pile" was said of a pile a black 3 blocked, as if the player had chosen to leave it.
    lines: list[str] = []
    narrator = Narrator(lines.append)
    state = HandState.from_deck(DEFAULT_RULES, stacked_deck({}, dealer=3, upcards=upcard), dealer=3)
    narrator.on_hand_start(state)
    del state.stock[:], narrator.cards.stock[:]  # the stock run out before South's turn
    apply_all(state, Stop())
    narrator.on_move(state)
    assert re.sub("[♠♣]", "♠", lines[-1]) == f"  The stock is empty and {said}: the hand ends (R13.3)."


@pytest.mark.parametrize("page", [False, True], ids=["text", "html"])
def test_ctrl_c_while_a_bot_thinks_interrupts_watch_without_blaming_the_bot(tmp_path, page):
    # It ended "Error: strategy ... raised KeyboardInterrupt", and with --html "wrote FILE up to the failure".
    (tmp_path / "thinker.py").write_text(INTERRUPTED_WHILE_THINKING)
    arguments = ["watch", "--seed", "4", "-s", f"{tmp_path / 'thinker.py'}:Thinker"]
    if page:
        arguments += ["--html", str(tmp_path / "game.html")]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 130, result.output
    assert result.output.endswith("Interrupted\n") and "KeyboardInterrupt" not in result.output
    assert not (tmp_path / "game.html").exists()


_ENDS_ITS_PROCESS = """
import os

from canasta_sim.strategies import Greedy


class Ends(Greedy):
    name = "ends"

    def choose_discard(self, view):
        print("chatter " * 1000)
        if view.turn_count >= 4:
            os._exit(1)
        return super().choose_discard(view)
"""


@pytest.mark.timeout(60)
def test_a_strategy_that_ends_its_process_is_named_in_one_line_and_its_prints_stay_out_of_the_narration(tmp_path):
    # watch played in its own process: os._exit ended the command with no word of the seat, and what a strategy printed
    # ran through the narration (78 MB of it for a bot printing 3 MB a discard).
    (tmp_path / "ends.py").write_text(_ENDS_ITS_PROCESS)
    spec = f"{tmp_path / 'ends.py'}:Ends"
    result = CliRunner().invoke(main, ["watch", "--seed", "1", "-s", spec, "-s", "greedy", "--rules",
                                       "target_score=1000"])
    assert result.exit_code == 1
    last = result.output.splitlines()[-1]
    assert last.startswith(f"Error: strategy '{spec}' at seat 0 (game seed 1), decision discard: ")
    assert last.endswith("its worker process died (exit code 1) during this call")
    assert "draws" in result.output and "chatter" not in result.output
