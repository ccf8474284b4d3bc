"""Can a hand be melded out this turn, and how? (RULES.md E4, used by R12.5.)

Asking the partner is allowed only when the player could go out, so that a
"yes" never traps them.  The search is small because a hand is a count
vector: the natural cards of each rank have nowhere to go but that rank's
meld, so the only real choices are which single card (if any) is discarded
and where the wild cards go.  Wild cards are spread by a greedy fill that
completes the canastas closest to seven first, which maximises the number of
canastas for a given number of wild cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from canasta_sim.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.melds import CANASTA_SIZE, max_wilds
from canasta_sim.moves import WILD_RANK, MeldGroup
from canasta_sim.rules import Rules

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing (canasta_sim.cython_fallback)
    from canasta_sim import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["can_meld_out", "find_meld_out"]

_UNBOUNDED = 1 << 30


def can_meld_out(
    rules: Rules,
    hand: Sequence[int],
    melds: Sequence[Sequence[int]],
    *,
    minimum: int,
    allow_no_discard: bool = True,
    allow_discard: bool = True,
) -> bool:
    """Return whether ``hand`` can be laid on the side's ``melds`` leaving at most one card to discard.

    :param minimum: the initial-meld count the melded cards must reach (0 once the side has melded).
    :param allow_no_discard: whether laying every card, with no discard, counts as going out.
    :param allow_discard: whether a last card may be discarded (not after R13.1 ``meld_no_discard``).
    """
    plan = find_meld_out(
        rules, hand, melds, minimum=minimum, allow_no_discard=allow_no_discard, allow_discard=allow_discard
    )
    return plan is not None


def find_meld_out(
    rules: Rules,
    hand: Sequence[int],
    melds: Sequence[Sequence[int]],
    *,
    minimum: int,
    allow_no_discard: bool = True,
    allow_discard: bool = True,
) -> tuple[tuple[MeldGroup, ...], int | None] | None:
    """Return ``(groups, discard)`` that meld ``hand`` out, or ``None`` when it cannot be done.

    ``discard`` is the kind left to discard, or ``None`` when every card is melded.  Laying the
    groups as one :class:`~canasta_sim.moves.Meld` and then discarding goes out, provided the turn's
    other conditions (the partner's answer, R12.5) allow it.
    """
    return _find_meld_out(rules, hand, melds, minimum, allow_no_discard, allow_discard)


def _find_meld_out(
    rules: Rules,
    hand: Sequence[int],
    melds: Sequence[Sequence[int]],
    minimum: int,
    allow_no_discard: bool,
    allow_discard: bool,
) -> tuple[tuple[MeldGroup, ...], int | None] | None:
    """:func:`find_meld_out` with positional arguments: the engine asks it on every turn, and a call
    with keywords costs more than many of the searches it makes."""
    candidates = _leftover_candidates(rules, hand, melds, allow_discard, allow_no_discard)
    for leftover in candidates:
        counts = list(hand)
        if leftover is not None:
            counts[leftover] -= 1
        groups = _lay_all(rules, counts, melds, minimum, leftover is None)
        if groups is not None:
            return groups, leftover
    return None


@cython.locals(
    reach=Count, reachable=Count, rank=Count, black_threes=Count, forced=Count, lone=Count, size=Count,
    held=Count, kind=Count, naturals=Count, jokers=Count, deuces=Count,
)
def _leftover_candidates(
    rules: Rules, hand: Sequence[int], melds: Sequence[Sequence[int]], allow_discard: bool, allow_no_discard: bool
) -> list[int | None]:
    """The kinds worth trying as the card left to discard (``None``: meld every card).

    Going out is asked about on every turn, so the search first rules out what cannot work
    without trying it: a card that can go nowhere (a lone natural with no meld of its rank, one
    or two black 3s) must be the discard, two such cards make going out impossible (R12.4), and
    a side with too few canastas within reach of its hand cannot go out at all (R12.1).
    """
    # One pass over the natural ranks: how many canastas are within reach, and the lone naturals with
    # no meld of their rank (each must be the discard).  Only how many cards are forced, and which one
    # when it is the only one, decide the answer.
    reach = CANASTA_SIZE - hand[JOKER] - hand[TWO]
    reachable = 0
    forced = hand[RED_THREE]
    lone = -1
    for rank in range(FOUR, KIND_COUNT):
        naturals, jokers, deuces = melds[rank]  # C integers compiled, so the sum is C arithmetic
        size = naturals + jokers + deuces
        held = hand[rank]
        if size + held >= reach:
            reachable += 1
        if held == 1 and size == 0:
            forced += 1
            if lone < 0:
                lone = rank
    if not rules.allow_wild_only_melds and reachable < rules.canastas_to_go_out:
        return []
    black_threes = hand[BLACK_THREE]
    if not (black_threes in (1, 2) or rules.black_three_melds == "never"):
        black_threes = 0  # three or four black 3s can be melded when going out (R5.3)
    forced += black_threes
    if forced:
        if forced != 1 or not allow_discard:
            return []
        if hand[RED_THREE]:
            return [RED_THREE]
        return [BLACK_THREE] if black_threes else [lone]
    candidates: list[int | None] = [None] if allow_no_discard else []
    if allow_discard:
        for kind in range(KIND_COUNT):
            if hand[kind]:
                candidates.append(kind)
    return candidates


@cython.locals(
    black_threes=Count, wilds=Count, rank=Count, held=Count, old_naturals=Count, old_jokers=Count,
    old_deuces=Count, old_wilds=Count, naturals=Count, room=Count, lowest=Count, budget=Count, canastas=Count,
    size=Count, spare=Count, wild_only=Count, jokers_left=Count, jokers=Count,
)
def _lay_all(
    rules: Rules, counts: list[int], melds: Sequence[Sequence[int]], minimum: int, no_discard: bool
) -> tuple[MeldGroup, ...] | None:
    if counts[RED_THREE]:
        return None
    black_threes = counts[BLACK_THREE]
    if black_threes and (rules.black_three_melds == "never" or black_threes not in (3, 4)):
        return None
    if sum([KIND_VALUE[kind] * counts[kind] for kind in range(KIND_COUNT)]) < minimum:
        return None
    wilds = counts[JOKER] + counts[TWO]
    # Per rank: [naturals from hand, wilds given, lowest wilds, room for wilds, size before wilds]
    plan: dict[int, list[int]] = {}
    for rank in range(FOUR, KIND_COUNT):
        held = counts[rank]
        old_naturals, old_jokers, old_deuces = melds[rank]
        old_wilds = old_jokers + old_deuces
        if held == 0 and old_naturals + old_wilds == 0:
            continue
        naturals = old_naturals + held
        room = max_wilds(rules, rank, naturals) - old_wilds
        lowest = max(0, 3 - naturals) if old_naturals + old_wilds == 0 else 0
        if lowest > room:
            return None
        plan[rank] = [held, lowest, lowest, room, naturals + old_wilds]
    budget = wilds - sum([entry[1] for entry in plan.values()])
    if budget < 0:
        return None
    canastas = 0
    deficits = []
    for rank, entry in plan.items():
        size = entry[4] + entry[1]
        if size >= CANASTA_SIZE:
            canastas += 1
        elif CANASTA_SIZE - size <= entry[3] - entry[1]:
            deficits.append((CANASTA_SIZE - size, rank))
    if sum(melds[WILD_RANK]) >= CANASTA_SIZE:
        canastas += 1
    for deficit, rank in sorted(deficits):
        if canastas >= rules.canastas_to_go_out or deficit > budget:
            break
        plan[rank][1] += deficit
        budget -= deficit
        canastas += 1
    if canastas < rules.canastas_to_go_out:
        return None
    for entry in plan.values():
        spare = min(budget, entry[3] - entry[1])
        entry[1] += spare
        budget -= spare
    wild_only = 0
    if budget:
        wild_meld_exists = sum(melds[WILD_RANK]) > 0
        if not rules.allow_wild_only_melds or (budget < 3 and not wild_meld_exists):
            return None
        wild_only = budget
    if no_discard and rules.going_out_without_discard == "only_if_hand_holds_canasta":
        # R12.2 (seed-002 reading): the hand itself must hold a whole canasta.
        for entry in plan.values():
            if entry[0] + entry[1] >= CANASTA_SIZE:
                break
        else:  # any(...) as a loop: compiled, this function may hold no generator (sim/going_out.pxd)
            return None
    jokers_left = counts[JOKER]
    groups: list[MeldGroup] = []
    for rank, entry in plan.items():
        if entry[0] == 0 and entry[1] == 0:
            continue
        jokers = min(jokers_left, entry[1])
        jokers_left -= jokers
        groups.append(MeldGroup.of(rank, entry[0], jokers, entry[1] - jokers))
    if black_threes:
        groups.append(MeldGroup.of(BLACK_THREE, black_threes))
    if wild_only:
        jokers = min(jokers_left, wild_only)
        groups.append(MeldGroup.of(WILD_RANK, 0, jokers, wild_only - jokers))
    return tuple(groups)
