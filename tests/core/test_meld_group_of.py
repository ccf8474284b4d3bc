"""MeldGroup.of builds a group's cards from counts: the naturals, then the jokers, then the 2s, for every count a
caller may pass (negative counts repeat nothing); a group of no card is no legal meld (R9.1)."""

from __future__ import annotations

import pytest

from canasta_sim import Rules, play_game
from canasta_sim.core.cards import ACE, JOKER, TWO
from canasta_sim.core.moves import WILD_RANK, Meld, MeldGroup
from canasta_sim.errors import StrategyError
from canasta_sim.strategies import Greedy


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


class _EmptyGroupMelder(Greedy):
    """Lays, once its side has melded, a group of no card on one of the side's melds, at every meld decision."""

    name = "empty-group-melder"

    def choose_meld(self, view):
        melds = view.melds(view.side)
        if melds:
            return Meld((MeldGroup.of(next(iter(melds))),))
        return super().choose_meld(view)


@pytest.mark.timeout(30)
def test_a_group_of_no_card_is_the_seats_illegal_move_not_a_turn_without_end():
    # MeldGroup.of with no counts builds a group of no card; laid on a meld the side holds it changed nothing and
    # was legal (R9.1), so this strategy's turn never ended.
    with pytest.raises(StrategyError) as caught:
        play_game([_EmptyGroupMelder, Greedy, Greedy, Greedy], seed=1, rules=Rules(target_score=50))
    assert caught.value.reason == "illegal"
    assert caught.value.seat == 0 and "R9.1" in str(caught.value)
