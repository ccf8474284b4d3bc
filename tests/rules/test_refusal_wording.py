"""A refused move's reason reads as English: cards named in words and counted naturally ("uses three kings but the
hand holds only one king"), never as the notation's symbols beside a number ("uses 3 K but the hand holds 1")."""

import re

import pytest

from canasta_sim.core.cards import BLACK_THREE, RED_THREE, TWO, count_words, kind_words
from canasta_sim.core.melds import meld_problem
from canasta_sim.core.moves import WILD_RANK, Meld, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import expect_illegal, position

# A count beside a card's symbol, or a symbol made plural with a bare s: what the reasons used to read like.
_SYMBOLS = re.compile(r"\b\d+ (JK|[2-9]|10|[JQKA]|3[br])\b|(?<!black )(?<!red )\b(JK|[2-9]|10|[JQKA])s\b|\b3[br]\b")


MELD_K_K_8 = Meld((MeldGroup(13, (13, 13, 8)),))  # a record only: the notation refuses to read it


@pytest.mark.parametrize(
    ("hand", "pile", "phase", "move", "rule", "reason"),
    [
        ("K Q 10 10 9 9 5 5 4 2 2 2", "", PLAY, "meld K K K", "R6.1",
         "the move uses three kings but the hand holds only one king"),
        ("K Q 10 10 9 9 5 5 4 2 2 2", "", PLAY, "meld 5 5 JK", "R6.1",
         "the move uses one joker but the hand holds no jokers"),
        ("K Q 10 10 9 9 5 5 4 2 2 2", "", PLAY, "discard 3b", "R6.1", "the hand holds no black 3s"),
        ("K K K 8 5 6", "", PLAY, MELD_K_K_8, "R9.1", "an eight cannot go into a meld of kings"),
        ("K 9 9 6 6", "4 7", "acquire", "take 9 9", "R8.2", "the cards taken with a seven must be sevens or wild"),
        ("7 9 9 6 2", "4 7", "acquire", "take 7", "R8.2c",
         "a natural pair of sevens, one seven and a wild card, or a meld of sevens to add it to; the move offers "
         "one seven"),
        ("7 9 9 6 2", "4 7", "acquire", "take 7 JK", "R6.1", "the move uses one joker but the hand holds no jokers"),
    ],
)
def test_r6_1_r8_2_r9_1_refusals_name_cards_in_words_and_count_them(hand, pile, phase, move, rule, reason):
    state = position(hands={0: hand}, melds={0: "A A A"}, pile=pile or "4 7", seat=0, phase=phase)
    error = expect_illegal(state, move, rule)
    assert reason in error.reason, error.reason
    assert not _SYMBOLS.search(error.reason.partition(" (hand: ")[0]), error.reason


def test_kind_words_count_and_pluralise_every_kind():
    assert [kind_words(kind, 2) for kind in (0, 1, 2, 3, 6, 10, 14)] == [
        "two jokers", "two deuces", "two black 3s", "two red 3s", "two sixes", "two tens", "two aces"]
    assert (kind_words(14), kind_words(8), kind_words(2), kind_words(13, 0), kind_words(13, 15)) == (
        "an ace", "an eight", "a black 3", "no kings", "15 kings")


@pytest.mark.parametrize(("hand", "move", "left"), [("9 9 9 8", "meld 9 9 9; 8", "no cards"),
                                                      ("9 9 9 8", "meld 9 9 9", "one card"),
                                                      ("4", "discard 4", "no cards")])
def test_r6_4_refusal_counts_the_cards_left_in_words(hand, move, left):
    state = position(hands={0: hand}, melds={0: "8 8 8"}, seat=0, phase=PLAY)
    reason = expect_illegal(state, move, "R6.4").reason
    assert reason.endswith(f"the move would leave {left} in hand"), reason
    assert not re.search(r"\b\d+ cards?\b", reason), reason


@pytest.mark.parametrize(("needed", "lacking"), [(1, "a canasta"), (2, "two canastas"), (3, "three canastas")])
def test_r6_4_refusal_counts_the_canastas_needed_in_words(needed, lacking):
    # Under canastas_to_go_out of 2 or more it read "the side lacks 2 canastas".
    state = position(Rules(canastas_to_go_out=needed), hands={0: "9 9 9 8"}, melds={0: "8 8 8"}, seat=0, phase=PLAY)
    reason = expect_illegal(state, "meld 9 9 9", "R6.4").reason
    assert reason.startswith(f"the side lacks {lacking}, so the player may not go out"), reason


@pytest.mark.parametrize(
    ("rules", "rank", "counts", "rule", "reason"),
    [
        (Rules(), 12, (1, 0, 0), "R9.1", "a meld needs at least three cards; the queens would hold one"),
        (Rules(allow_wild_only_melds=True), WILD_RANK, (0, 1, 1), "R9.1",
         "a meld needs at least three cards; the wild meld would hold two"),
        (Rules(), BLACK_THREE, (1, 0, 0), "R5.3", "a meld of black 3s holds three or four of them, not one"),
        (Rules(max_wilds_per_meld=1, wild_ratio_rule="min_two_naturals"), 13, (3, 1, 1), "R9.2",
         "a meld holds at most one wild card; the kings would hold two"),
        (Rules(), 13, (2, 2, 1), "R9.2",
         "a meld may not hold more wild cards than natural ones; the kings would hold two natural cards and three "
         "wild cards"),
        (Rules(wild_ratio_rule="min_two_naturals"), 13, (1, 1, 1), "R9.2",
         "a meld needs at least two natural cards; the kings would hold one"),
    ],
)
def test_r5_3_r9_meld_refusals_count_in_words(rules, rank, counts, rule, reason):
    # They read "a meld needs at least 3 cards; the queens would hold 1" and "3 natural and 1 wild cards".
    assert meld_problem(rules, rank, *counts) == (rule, reason)


def test_count_words_count_a_noun_or_say_the_number():
    assert [count_words(count, "card") for count in (0, 1, 2, 11)] == ["no cards", "one card", "two cards", "11 cards"]
    assert [count_words(count) for count in (0, 1, 3, 12)] == ["none", "one", "three", "12"]
    assert count_words(2, "natural card") == "two natural cards"


@pytest.mark.parametrize(("rank", "words"), [(TWO, "deuces"), (RED_THREE, "red 3s")])
def test_r9_8_refusal_names_the_rank_no_meld_can_be_of_in_words(rank, words):
    state = position(hands={0: "2 2 2 K 9"}, melds={0: "A A A"}, seat=0, phase=PLAY)  # the rank is judged first
    move = Meld((MeldGroup(rank, (rank, rank, rank)),))  # a record only: the notation has no such meld
    assert expect_illegal(state, move, "R9.8").reason == f"no meld can be of {words}"
