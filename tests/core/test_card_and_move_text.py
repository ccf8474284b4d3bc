"""The card and move text helpers ``canasta_sim`` exports refuse what is not their input in one typed line: no
``AttributeError`` or ``IndexError`` from inside, and no card named for a number that is no kind."""

from __future__ import annotations

import pytest

from canasta_sim import KIND_COUNT, MeldGroup, counts_text, kind_text, parse_kind, parse_kinds, parse_move
from canasta_sim.core.moves import Meld, TakePile


@pytest.mark.parametrize("read", [parse_move, parse_kind, parse_kinds, MeldGroup.from_text])
@pytest.mark.parametrize("value", [None, 5, b"draw"])
def test_the_readers_take_text_only(read, value):
    # parse_move(None) raised AttributeError: 'NoneType' object has no attribute 'strip'.
    with pytest.raises(TypeError, match="text"):
        read(value)


@pytest.mark.parametrize("kind, error", [(-1, ValueError), (KIND_COUNT, ValueError), ("K", TypeError),
                                         (True, TypeError)])
def test_kind_text_names_only_the_kinds(kind, error):
    # kind_text(-1) returned 'A', Python's index from the end; kind_text(15) raised IndexError.
    with pytest.raises(error, match="kind"):
        kind_text(kind)
    assert [kind_text(each) for each in (0, 1, 2, 3, 14)] == ["JK", "2", "3b", "3r", "A"]


def test_counts_text_takes_a_count_per_kind():
    # Two counts raised IndexError: tuple index out of range.
    with pytest.raises(ValueError, match="15"):
        counts_text((1, 2))
    assert counts_text((0,) * 13 + (2, 1)) == "A K K"


def test_a_meld_or_take_built_on_a_list_is_the_record_built_on_a_tuple():
    # Records are immutable and hashable (docs/strategies.md): one built on a list kept the list, so it could not be
    # hashed, was unequal to the same move built on a tuple, and changed when the list did.
    kings, aces = MeldGroup.from_text("K K K"), MeldGroup.from_text("A A A")
    groups = [kings, aces]
    meld = Meld(groups)
    groups.append(MeldGroup.from_text("7 7 7"))
    assert meld == Meld((kings, aces)) and hash(meld) == hash(Meld((kings, aces)))
    assert str(meld) == "meld K K K; A A A"
    king = parse_kind("K")
    take = TakePile((king, king), [aces])
    assert take == TakePile((king, king), (aces,)) and hash(take) == hash(TakePile((king, king), (aces,)))
