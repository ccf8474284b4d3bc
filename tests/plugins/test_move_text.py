"""The protocol's move texts read by :func:`~canasta_sim.core.wire.move_from_text` are the records
:func:`~canasta_sim.core.moves.parse_move` makes, or the same error.

``move_from_text`` reads the canonical form straight into records and gives any other text to ``parse_move``:
the tests compare both on the canonical texts of many records (every group shape, wild-only groups, takes with
and without cards) and on texts near the canonical form (other case, aliases, suits, spacing, bad cards).
"""

import random
import tracemalloc

import pytest

from canasta_sim.core.cards import KIND_NAMES
from canasta_sim.core.moves import Discard, Meld, MeldGroup, TakePile, parse_move
from canasta_sim.core.wire import move_from_text
from canasta_sim.errors import MoveParseError

_TOKENS = (*KIND_NAMES, "wild", "T", "k", "Ks", "3♥", "3s", "", "x", "11")


def _outcome(parse, text):
    try:
        move = parse(text)
    except MoveParseError as error:
        return None, str(error)
    return move, None


def _same(text):
    expected, expected_error = _outcome(parse_move, text)
    move, error = _outcome(move_from_text, text)
    assert error == expected_error, text
    assert move == expected and type(move) is type(expected), text
    if expected is not None:
        assert repr(move) == repr(expected) and hash(move) == hash(expected), text
        assert _cards(move) == _cards(expected), text  # the cards' order too, which equality reads as well
    return move


def _cards(move):
    if type(move) is Meld:
        return [group.cards for group in move.groups]
    if type(move) is TakePile:
        return [move.cards, *(group.cards for group in move.extra)]
    return []


def _group(rng):
    cards = [rng.choice(_TOKENS) for _ in range(rng.randint(1, 4))]
    text = " ".join(cards)
    return f"{rng.choice(_TOKENS)}:{text}" if rng.random() < 0.3 else text


def test_canonical_texts_of_records_read_as_the_records():
    rng = random.Random(7)
    for _ in range(3000):
        rank = rng.randrange(2, 15)
        group = MeldGroup.of(rank, rng.randint(0, 3), rng.randint(0, 2), rng.randint(0, 2))
        wild = MeldGroup.of(0, 0, rng.randint(0, 2), rng.randint(0, 3))
        cards = tuple(rng.randrange(15) for _ in range(rng.randint(0, 3)))
        records = [Discard(rng.randrange(15)), TakePile(cards)]
        if group.cards:
            records += [Meld((group,)), TakePile(cards, (group,))]
        if wild.cards:
            records.append(Meld((wild, group) if group.cards else (wild,)))
        for record in records:
            assert _same(str(record)) == record


@pytest.mark.parametrize("text", ["draw", "ask", "stop", "answer yes", "answer no", "Draw", "take", "take ;",
                                  "take ; K K 2", "meld", "meld ;", "meld K K K;", "meld  K K K", "discard",
                                  "discard 7 7", "meld 7:JK", "meld wild:JK 2 2", "meld 2:JK", "meld K:8",
                                  "take 7 7;K K 2", "meld 8 8 2 ; 9 9 9", " discard 7", "meld K K 7"])
def test_texts_near_the_canonical_form_read_as_parse_move_reads_them(text):
    _same(text)


def test_random_texts_read_as_parse_move_reads_them():
    rng = random.Random(11)
    for _ in range(4000):
        choice = rng.random()
        if choice < 0.45:
            text = "meld " + "; ".join(_group(rng) for _ in range(rng.randint(1, 3)))
        elif choice < 0.8:
            cards = " ".join(rng.choice(_TOKENS) for _ in range(rng.randint(0, 3)))
            text = "take" + (" " + cards if cards else "")
            if rng.random() < 0.5:
                text += ("; " if cards else " ; ") + "; ".join(_group(rng) for _ in range(rng.randint(1, 2)))
        else:
            text = "discard " + rng.choice(_TOKENS)
        _same(text)


@pytest.mark.timeout(60)
def test_a_bot_s_stream_of_ever_new_group_texts_leaves_no_memory_held_by_the_worker():
    # Every canonical group text read was kept, up to 4,096 of them whatever their length: a bot answering melds
    # of ever more cards (each a new text, each refused as illegal) filled the worker's memory with its texts and
    # their groups (16 MB here, gigabytes for a bot that went on).
    legal = "10 10 10 10 10 10 10 10 JK JK JK JK 2 2 2 2 2 2 2 2"
    move_from_text(f"meld {legal}")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for count in range(1, 2001):
            move = move_from_text("meld " + " ".join(["8"] * count))
            assert len(move.groups[0].cards) == count
        del move
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 1_000_000, held
    assert move_from_text(f"meld {legal}") == parse_move(f"meld {legal}")
