"""Meld searches on count vectors for strategies: the initial meld, a meld after it, the first legal move.

Part of the core's helpers for strategies (see :mod:`canasta_sim.core.kernels`, which exports these too),
compiled with the rules engine (``meld_planning.pxd``): :func:`opening` finds the cheapest initial meld reaching
a minimum (R10.1-R10.3, R10.5), :func:`first_legal_meld` a meld to lay after it, and :func:`first_legal` the
first legal move of a listing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from canasta_sim.core.cards import ACE, BLACK_THREE, FOUR, JOKER, KIND_VALUE, TWO
from canasta_sim.core.legal import single_group_meld
from canasta_sim.core.melds import CANASTA_SIZE, wild_limit
from canasta_sim.core.moves import Meld, MeldGroup, Move, _group_of

if TYPE_CHECKING:  # named for type checkers only: no import of these modules at run time
    from canasta_sim.core.rules import Rules
    from canasta_sim.core.view import SeatView

ListedMove = TypeVar("ListedMove", bound=Move)
"""The kind of move a listing holds: :func:`first_legal` returns one of them (a ``Meld`` of the meld candidates)."""

__all__ = ["first_legal", "first_legal_meld", "opening"]


def opening(rules: Rules, hand: Sequence[int], minimum: int, forced: int | None, keep: int,
            hand_size: int) -> tuple[MeldGroup | None, tuple[MeldGroup, ...]] | None:
    """The initial meld reaching ``minimum`` points (R10.1-R10.3) with the fewest wild cards, from the count
    vector ``hand``; ``None`` when there is none.

    ``forced`` is the rank of a pile's top card that must be melded with it (R10.5: it counts toward the
    minimum, the hand supplies the rest), or ``None``.  ``hand_size`` cards are held, and at least ``keep``
    must stay in hand.  Returns ``(forced group or None, other groups)``: equal wild cards, the most points;
    jokers go first, slot by slot (on the table they score more).  Wild cards obey R9.2 (``rules``).
    """
    ranks = [0] * 11  # the slots: the hand's natural pairs, most points first (the best seven are tried)
    counts = [0] * 11
    points = [0] * 11
    placed = [0] * 8  # each slot's wild cards, the forced slot's first
    size = _pair_slots(hand, -1 if forced is None else forced, ranks, counts, points)
    jokers = hand[JOKER]
    deuces = hand[TWO]
    forced_table = 0 if forced is None else hand[forced] + 1  # the pile's top card with the hand's naturals
    forced_value = 0 if forced is None else forced_table * KIND_VALUE[forced]
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    found = False
    best_mask = best_wilds = best_value = 0
    for mask in range(1 << size):
        if not forced_table and not mask:
            continue
        value, wilds = _fill_subset(jokers, deuces, forced_table, forced_value, most_wilds, wild_ratio, minimum,
                                    size, counts, points, mask, placed)
        if wilds < 0 or value < minimum:
            continue
        cards = wilds + (forced_table - 1 if forced_table else 0)
        for index in range(size):
            if mask >> index & 1:
                cards += counts[index]
        if hand_size - cards < keep:
            continue
        if not found or wilds < best_wilds or (wilds == best_wilds and value > best_value):
            found = True
            best_mask, best_wilds, best_value = mask, wilds, value
    if not found:
        return None
    _fill_subset(jokers, deuces, forced_table, forced_value, most_wilds, wild_ratio, minimum, size, counts, points,
                 best_mask, placed)
    return _opening_groups(hand, forced, size, ranks, counts, placed, best_mask)


def _opening_groups(hand, forced, size: int, ranks, counts, placed, mask: int) -> tuple:
    """The groups of the opening ``mask`` with ``placed`` wild cards, jokers first slot by slot."""
    joker_left = hand[JOKER]
    forced_group = None
    if forced is not None:
        wilds = placed[0]
        use_jokers = joker_left if joker_left < wilds else wilds
        joker_left -= use_jokers
        forced_group = _group_of(forced, hand[forced], use_jokers, wilds - use_jokers)
    groups = []
    for index in range(size):
        if mask >> index & 1:
            wilds = placed[index + 1]
            use_jokers = joker_left if joker_left < wilds else wilds
            joker_left -= use_jokers
            groups.append(_group_of(ranks[index], counts[index], use_jokers, wilds - use_jokers))
    return forced_group, tuple(groups)


def _pair_slots(hand, forced_rank: int, ranks, counts, points) -> int:
    """Fill the slots with the hand's natural pairs and more (the forced rank apart), most points first and
    equal points by rank (by insertion: a slot moves past those worth less); returns how many, at most 7."""
    size = 0
    for rank in range(FOUR, ACE + 1):
        count = hand[rank]
        if count >= 2 and rank != forced_rank:
            value = count * KIND_VALUE[rank]
            index = size
            while index > 0 and points[index - 1] < value:
                ranks[index] = ranks[index - 1]
                counts[index] = counts[index - 1]
                points[index] = points[index - 1]
                index -= 1
            ranks[index] = rank
            counts[index] = count
            points[index] = value
            size += 1
    return 7 if size > 7 else size  # a hand with more pairs has plenty of ways; the best seven suffice


def _fill_subset(jokers: int, deuces: int, forced_table: int, forced_value: int, most_wilds: int,
                 wild_ratio: bool, minimum: int, size: int, counts, points, mask: int, placed):
    """``(points, wild cards)`` of the slots in ``mask`` and the forced slot (``forced_table`` cards worth
    ``forced_value``, 0 for none): each completed to three with wild cards, then more wild cards slot by slot
    while the points fall short of ``minimum`` (R9.2 bounds each); ``(0, -1)`` when the wild cards cannot
    complete them.  ``placed`` receives each slot's wild cards, the forced slot's first."""
    forced_need = 3 - forced_table if forced_table and forced_table < 3 else 0
    needed = forced_need
    value = forced_value
    for index in range(size):
        if mask >> index & 1:
            count = counts[index]
            if count < 3:
                needed += 3 - count
            value += points[index]
    if needed > jokers + deuces:
        return 0, -1
    placed[0] = forced_need
    for index in range(size):
        count = counts[index]
        placed[index + 1] = 3 - count if count < 3 else 0
    use_jokers = jokers if jokers < needed else needed
    value += use_jokers * 50 + (needed - use_jokers) * 20
    wilds = needed
    joker_left = jokers - use_jokers
    deuce_left = deuces - (needed - use_jokers)
    index = -1
    while value < minimum and (joker_left or deuce_left) and index < size:
        if index < 0:
            if not forced_table:
                index += 1
                continue
            count = forced_table
            slot_wilds = forced_need
        elif mask >> index & 1:
            count = counts[index]
            slot_wilds = 3 - count if count < 3 else 0
        else:
            index += 1
            continue
        limit = wild_limit(count, most_wilds, wild_ratio)
        while value < minimum and (joker_left or deuce_left) and slot_wilds < limit:
            slot_wilds += 1
            wilds += 1
            if joker_left:
                joker_left -= 1
                value += 50
            else:
                deuce_left -= 1
                value += 20
        placed[index + 1] = slot_wilds
        index += 1
    return value, wilds


def first_legal_meld(view: SeatView, hand: Sequence[int], discard: int, budget: int,
                     melds: dict[int, tuple[int, int, int]], hand_may_end: bool) -> Meld | None:
    """The first legal meld (checked with ``view.can``) laying at most ``budget`` cards from the count vector
    ``hand`` less one ``discard``, or ``None``; ``melds`` are the side's melds (``view.melds(view.side)``).

    In this order: naturals on the side's melds, natural triples, wild cards completing a canasta (largest
    meld first; a natural meld waits for naturals, R11.2, unless a wild card is spare), and when
    ``hand_may_end``, a pair with a wild card, then wild cards on the side's melds (shedding points).
    """
    counts = list(hand)
    counts[discard] -= 1
    for rank in melds:
        if rank >= FOUR and counts[rank]:
            count = counts[rank]
            move = single_group_meld(rank, count if count < budget else budget, 0, 0)
            if view.can(move):
                return move
    for rank in range(FOUR, ACE + 1):
        count = counts[rank]
        if count >= 3 and count <= budget and rank not in melds:
            move = single_group_meld(rank, count, 0, 0)
            if view.can(move):
                return move
    jokers_in_hand = counts[JOKER]
    wilds = jokers_in_hand + counts[TWO]
    if not wilds:
        return None
    rules = view.rules
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    move = _canasta_meld(view, melds, jokers_in_hand, wilds, budget, hand_may_end, most_wilds, wild_ratio)
    if move is not None or not hand_may_end:
        return move
    # The hand may end before the seat's next turn: get the points out of the hand.
    for rank in range(FOUR, ACE + 1):
        if counts[rank] == 2 and budget >= 3 and rank not in melds:
            move = single_group_meld(rank, 2, 1, 0) if jokers_in_hand else single_group_meld(rank, 2, 0, 1)
            if view.can(move):
                return move
    for rank, meld in melds.items():
        if rank < FOUR:
            continue
        naturals, jokers, deuces = meld
        room = wild_limit(naturals, most_wilds, wild_ratio) - jokers - deuces
        if room > 0:
            use = room
            if wilds < use:
                use = wilds
            if budget < use:
                use = budget
            use_jokers = jokers_in_hand if jokers_in_hand < use else use
            move = single_group_meld(rank, 0, use_jokers, use - use_jokers)
            if view.can(move):
                return move
    return None


def _canasta_meld(view, melds: dict, jokers_in_hand: int, wilds: int, budget: int, hand_may_end: bool,
                  most_wilds: int, wild_ratio: bool):
    """The first legal meld of wild cards completing a canasta of the side's (R11.1), largest meld first and
    equal sizes in ``melds`` order, or ``None``: the first canasta lets the side go out (R12.1)."""
    ranks = [0] * 15  # the side's melds, at most one per kind (KIND_COUNT)
    sizes = [0] * 15
    total = 0
    ours = 0  # the side's canastas
    for rank, meld in melds.items():
        ranks[total] = rank
        sizes[total] = meld[0] + meld[1] + meld[2]
        if sizes[total] >= CANASTA_SIZE:
            ours += 1
        total += 1
    taken = 0
    for _ in range(total):
        pick = -1
        for index in range(total):
            if not taken >> index & 1 and (pick < 0 or sizes[index] > sizes[pick]):
                pick = index
        taken |= 1 << pick
        rank = ranks[pick]
        if rank < FOUR:
            continue
        naturals, jokers, deuces = melds[rank]
        need = CANASTA_SIZE - naturals - jokers - deuces
        room = wild_limit(naturals, most_wilds, wild_ratio) - jokers - deuces
        # A natural meld waits for naturals (R11.2: 500, not 300) unless a wild card is spare.
        worth_it = ours == 0 or jokers + deuces or hand_may_end or need == 1 or wilds > need
        if 0 < need and need <= wilds and need <= room and need <= budget and worth_it:
            use_jokers = jokers_in_hand if jokers_in_hand < need else need
            move = single_group_meld(rank, 0, use_jokers, need - use_jokers)
            if view.can(move):
                return move
    return None


def first_legal(view: SeatView, moves: Iterable[ListedMove]) -> ListedMove | None:
    """The first of ``moves`` that is legal for the view's seat now (``view.can``), or ``None``.

    A one-group meld the rules refuse for certain is passed over without the full check: black 3s melded
    by a player not going out (R5.3), and a meld that would go out (R6.4: it leaves no card, or one to
    discard while the stock lasts, R13.1) without the canastas going out needs (R12.1).
    """
    size = -1
    canastas = -1
    needed = stock = side = 0
    for move in moves:
        if type(move) is Meld or isinstance(move, Meld):
            meld = move  # compiled, its field is then read as a C member
            groups = meld.groups
            # A group the core builds, its fields read as C members compiled; any other goes to the full check.
            if len(groups) == 1 and type(groups[0]) is MeldGroup:
                if size < 0:
                    size = view.hand_size  # sum(view.hand), read without the tuple
                group = groups[0]
                laid = len(group.cards)
                rank = group.rank
                after = size - laid
                if rank == BLACK_THREE and after > 1:
                    continue
                if after < 2:
                    if canastas < 0:
                        side = view.side
                        canastas = view.canasta_count(side)
                        needed = view.rules.canastas_to_go_out
                        stock = view.stock_count
                    if after == 0 or stock:
                        old = view.meld_size(side, rank)  # the cards already in the side's meld of the rank
                        if canastas + (old < CANASTA_SIZE <= old + laid) < needed:
                            continue
        if view.can(move):
            return move
    return None
