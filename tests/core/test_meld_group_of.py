"""MeldGroup.of builds a group's cards from counts: the naturals, then the jokers, then the 2s, for every count a
caller may pass (negative counts repeat nothing)."""

from __future__ import annotations

import pytest

from canasta_sim.core.cards import ACE, JOKER, TWO
from canasta_sim.core.moves import WILD_RANK, MeldGroup


@pytest.mark.timeout(30)
@pytest.mark.parametrize("rank", [ACE, 4, WILD_RANK])
def test_group_of_counts_holds_the_naturals_then_jokers_then_deuces(rank):
    for naturals in range(-1, 9):
        for jokers in range(-1, 4):
            for deuces in range(-1, 5):
                group = MeldGroup.of(rank, naturals=naturals, jokers=jokers, deuces=deuces)
                natural_cards = () if rank == WILD_RANK else (rank,) * naturals
                assert type(group) is MeldGroup
                assert group.rank == rank
                assert group.cards == natural_cards + (JOKER,) * jokers + (TWO,) * deuces
                assert type(group.cards) is tuple


@pytest.mark.timeout(30)
def test_group_of_keeps_the_rank_object_and_refuses_a_fractional_count():
    group = MeldGroup.of(ACE, 2, 1)
    assert all(card is ACE for card in group.cards[:2])
    assert group == MeldGroup(ACE, (JOKER, ACE, ACE))
    with pytest.raises(TypeError):
        MeldGroup.of(ACE, 2.0)
