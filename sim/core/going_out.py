"""Can a hand be melded out this turn, and how? (E4 of docs/rules.md §16, used by R12.5.)

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

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.core.melds import CANASTA_SIZE, wild_limit, wild_rules_of
from canasta_sim.core.moves import WILD_RANK, MeldGroup, _group_of
from canasta_sim.core.rules import Rules

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["can_meld_out", "find_meld_out", "lays_hand_canasta", "needs_hand_canasta"]

_UNBOUNDED = 1 << 30

_KIND_VALUE = KIND_VALUE  # a C array compiled (sim/core/going_out.pxd): the minimum's sum in C integers


def can_meld_out(
    rules: Rules,
    hand: Sequence[int],
    melds: Sequence[Sequence[int]],
    *,
    minimum: int,
    allow_no_discard: bool = True,
    allow_discard: bool = True,
    laid: Sequence[int] | None = None,
) -> bool:
    """Return whether ``hand`` can be laid on the side's ``melds`` leaving at most one card to discard.

    :param minimum: the initial-meld count the melded cards must reach (0 once the side has melded).
    :param allow_no_discard: whether laying every card, with no discard, counts as going out.
    :param allow_discard: whether a last card may be discarded (not after R13.1 ``meld_no_discard``).
    :param laid: the cards laid from the hand earlier this turn by meld rank (``None``: none), which
        R12.2 under ``going_out_without_discard=only_if_hand_holds_canasta`` counts (:func:`lays_hand_canasta`).
    """
    plan = find_meld_out(
        rules, hand, melds, minimum=minimum, allow_no_discard=allow_no_discard, allow_discard=allow_discard, laid=laid
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
    laid: Sequence[int] | None = None,
) -> tuple[tuple[MeldGroup, ...], int | None] | None:
    """Return ``(groups, discard)`` that meld ``hand`` out, or ``None`` when it cannot be done.

    ``discard`` is the kind left to discard, or ``None`` when every card is melded.  Laying the
    groups as one :class:`~canasta_sim.core.moves.Meld` and then discarding goes out, provided the turn's
    other conditions (the partner's answer, R12.5) allow it.  ``laid`` as for :func:`can_meld_out`.
    """
    return _find_meld_out(rules, hand, melds, minimum, allow_no_discard, allow_discard, laid)


def _find_meld_out(
    rules: Rules,
    hand: Sequence[int],
    melds: Sequence[Sequence[int]],
    minimum: int,
    allow_no_discard: bool,
    allow_discard: bool,
    laid: Sequence[int] | None,
) -> tuple[tuple[MeldGroup, ...], int | None] | None:
    """:func:`find_meld_out` with positional arguments: the engine asks it on every turn, and a call
    with keywords costs more than many of the searches it makes."""
    hand = _as_list(hand)
    melds = _as_list(melds)
    # Most hands asked about hold two cards that can go nowhere, which no leftover cures (see _candidates):
    # answered from the hand and the melds of its lone cards' ranks, before the full read of _search_meld_out.
    if _two_cards_stranded(hand, melds):
        return None
    return _search_meld_out(rules, hand, melds, minimum, allow_no_discard, allow_discard, laid)


def _search_meld_out(
    rules: Rules, hand: list[int], melds: list[Sequence[int]], minimum: int, allow_no_discard: bool,
    allow_discard: bool, laid: Sequence[int] | None,
) -> tuple[tuple[MeldGroup, ...], int | None] | None:
    """:func:`_find_meld_out` past its quick reject (:func:`_two_cards_stranded`), for a caller that made it."""
    # The hand and the side's melds read once into counts by kind (C arrays compiled, sim/core/going_out.pxd;
    # 15 is KIND_COUNT, written as a literal so that compiled it fills the arrays).
    held = [0] * 15
    naturals = [0] * 15
    wilds = [0] * 15
    _read_counts(hand, melds, held, naturals, wilds)
    candidates = _candidates(rules, held, naturals, wilds, allow_discard, allow_no_discard)
    for leftover in candidates:
        if leftover is None:
            groups = _lay(rules, held, naturals, wilds, minimum, True, laid)
        else:
            held[leftover] -= 1
            groups = _lay(rules, held, naturals, wilds, minimum, False, laid)
            held[leftover] += 1
        if groups is not None:
            return groups, leftover
    return None


def _as_list(values: Sequence) -> list:
    """``values`` itself if it is a list, else a list of its items: the searches, the listings and the verdicts read
    lists, compiled with no generic item protocol (the hand state's hands and melds are lists already)."""
    return values if type(values) is list else list(values)


# The indices are never negative, so compiled the reads skip the wrap-around test (their bounds are still checked).
@cython.wraparound(False)
@cython.locals(rank=Count, count=Count, stranded=Count)
def _two_cards_stranded(hand: list[int], melds: list[Sequence[int]]) -> bool:
    """Whether the hand holds two cards that must both be discarded: red 3s, or lone naturals of ranks the side
    has no meld of.  Only one card may be left to discard (R12.4), so :func:`_candidates` then finds no
    leftover to try (its ``forced`` counts these cards, and more) and the hand cannot go out this turn."""
    stranded = hand[RED_THREE]
    # C integers compiled (sim/core/going_out.pxd): the engine asks this for every going-out plan it finds.
    for rank in range(FOUR, KIND_COUNT):
        count = hand[rank]
        if count == 1:
            meld = melds[rank]
            naturals = meld[0]
            jokers = meld[1]
            deuces = meld[2]
            if naturals + jokers + deuces == 0:
                stranded += 1
                if stranded >= 2:
                    return True
    return stranded >= 2


@cython.wraparound(False)
@cython.locals(kind=Count, rank=Count, jokers=Count, deuces=Count)
def _read_counts(
    hand: list[int], melds: list[Sequence[int]], held: list[int], naturals: list[int], wilds: list[int]
) -> None:
    """Fill ``held`` with the hand's counts, ``naturals`` and ``wilds`` with the natural and wild cards of each
    meld the search uses: the natural ranks' and the wild meld's (``WILD_RANK``); the others are left at 0."""
    for kind in range(KIND_COUNT):
        held[kind] = hand[kind]
    meld = melds[WILD_RANK]
    naturals[WILD_RANK] = meld[0]
    jokers = meld[1]
    deuces = meld[2]
    wilds[WILD_RANK] = jokers + deuces
    for rank in range(FOUR, KIND_COUNT):
        meld = melds[rank]
        naturals[rank] = meld[0]
        jokers = meld[1]
        deuces = meld[2]
        wilds[rank] = jokers + deuces


def _leftover_candidates(
    rules: Rules, hand: Sequence[int], melds: Sequence[Sequence[int]], allow_discard: bool, allow_no_discard: bool
) -> list[int | None]:
    """The kinds worth trying as the card left to discard (``None``: meld every card); see :func:`_candidates`."""
    held = [0] * 15
    naturals = [0] * 15
    wilds = [0] * 15
    _read_counts(_as_list(hand), _as_list(melds), held, naturals, wilds)
    return _candidates(rules, held, naturals, wilds, allow_discard, allow_no_discard)


@cython.locals(
    reach=Count, reachable=Count, rank=Count, black_threes=Count, forced=Count, lone=Count, size=Count,
    count=Count, kind=Count,
)
def _candidates(
    rules: Rules, held: list[int], naturals: list[int], wilds: list[int], allow_discard: bool, allow_no_discard: bool
) -> list[int | None]:
    """The kinds worth trying as the card left to discard (``None``: meld every card), from counts by kind.

    Going out is asked about on every turn, so the search first rules out what cannot work
    without trying it: a card that can go nowhere (a lone natural with no meld of its rank, one
    or two black 3s) must be the discard, two such cards make going out impossible (R12.4), and
    a side with too few canastas within reach of its hand cannot go out at all (R12.1).
    """
    # One pass over the natural ranks: how many canastas are within reach, and the lone naturals with
    # no meld of their rank (each must be the discard).  Only how many cards are forced, and which one
    # when it is the only one, decide the answer.
    reach = CANASTA_SIZE - held[JOKER] - held[TWO]
    reachable = 0
    forced = held[RED_THREE]
    lone = -1
    for rank in range(FOUR, KIND_COUNT):
        size = naturals[rank] + wilds[rank]
        count = held[rank]
        if size + count >= reach:
            reachable += 1
        if count == 1 and size == 0:
            forced += 1
            if lone < 0:
                lone = rank
    if not wild_rules_of(rules).wild_only and reachable < rules.canastas_to_go_out:
        return []
    black_threes = held[BLACK_THREE]
    # The rule read only for a hand holding black 3s (most hold none, and none need no reading).
    if black_threes and not (black_threes == 1 or black_threes == 2 or rules.black_three_melds == "never"):
        black_threes = 0  # three or four black 3s can be melded when going out (R5.3)
    forced += black_threes
    if forced:
        if forced != 1 or not allow_discard:
            return []
        if held[RED_THREE]:
            return [RED_THREE]
        return [BLACK_THREE] if black_threes else [lone]
    candidates: list[int | None] = [None] if allow_no_discard else []
    if allow_discard:
        for kind in range(KIND_COUNT):
            if held[kind]:
                candidates.append(kind)
    return candidates


def _lay_all(
    rules: Rules, counts: list[int], melds: Sequence[Sequence[int]], minimum: int, no_discard: bool
) -> tuple[MeldGroup, ...] | None:
    """The groups that lay every card of ``counts`` on ``melds`` with enough canastas to go out, or ``None``."""
    held = [0] * 15
    naturals = [0] * 15
    wilds = [0] * 15
    _read_counts(counts, _as_list(melds), held, naturals, wilds)
    return _lay(rules, held, naturals, wilds, minimum, no_discard, None)


@cython.locals(
    black_threes=Count, budget=Count, rank=Count, count=Count, old_naturals=Count, old_wilds=Count,
    total_naturals=Count, room=Count, lowest=Count, canastas=Count, spare=Count,
    wild_only=Count, most_wilds=Count, value=Count, kind=Count,
    wild_ratio=cython.bint, no_discard=cython.bint,
)
def _lay(
    rules: Rules, held: list[int], naturals: list[int], wilds: list[int], minimum: int, no_discard: bool,
    laid: Sequence[int] | None,
) -> tuple[MeldGroup, ...] | None:
    """:func:`_lay_all` on counts by kind: the hand's, and the natural and wild cards of each meld; ``laid`` as for
    :func:`can_meld_out`."""
    if held[RED_THREE]:
        return None
    black_threes = held[BLACK_THREE]
    if black_threes and (rules.black_three_melds == "never" or not (black_threes == 3 or black_threes == 4)):
        return None
    value = 0
    for kind in range(KIND_COUNT):
        value += _KIND_VALUE[kind] * held[kind]
    if value < minimum:
        return None
    budget = held[JOKER] + held[TWO]
    # Per rank, for the ranks with a meld or hand cards (in rank order): the wild cards given, the room for
    # wild cards, and the size before wild cards are given; a rank without either has no entry (in_plan 0).
    in_plan = [0] * 15
    given = [0] * 15
    rooms = [0] * 15
    sizes = [0] * 15
    wild = wild_rules_of(rules)  # read once: the rule set's values are then the record's own
    wild_ratio = wild.wild_ratio
    most_wilds = wild.most_wilds
    for rank in range(FOUR, KIND_COUNT):
        count = held[rank]
        old_naturals = naturals[rank]
        old_wilds = wilds[rank]
        if count == 0 and old_naturals + old_wilds == 0:
            continue
        total_naturals = old_naturals + count
        room = wild_limit(total_naturals, most_wilds, wild_ratio) - old_wilds
        lowest = max(0, 3 - total_naturals) if old_naturals + old_wilds == 0 else 0
        if lowest > room:
            return None
        in_plan[rank] = 1
        given[rank] = lowest
        rooms[rank] = room
        sizes[rank] = total_naturals + old_wilds
        budget -= lowest
    if budget < 0:
        return None
    canastas = 1 if naturals[WILD_RANK] + wilds[WILD_RANK] >= CANASTA_SIZE else 0
    budget = _complete_canastas(in_plan, given, rooms, sizes, canastas, rules.canastas_to_go_out, budget)
    if budget < 0:
        return None
    for rank in range(FOUR, KIND_COUNT):
        if in_plan[rank]:
            spare = min(budget, rooms[rank] - given[rank])
            given[rank] += spare
            budget -= spare
    wild_only = 0
    if budget:
        if not wild.wild_only or (budget < 3 and naturals[WILD_RANK] + wilds[WILD_RANK] <= 0):
            return None
        wild_only = budget
    if no_discard and needs_hand_canasta(rules):
        laying = [0] * 15  # the plan's cards by meld rank (KIND_COUNT), all from the hand
        for rank in range(FOUR, KIND_COUNT):
            if in_plan[rank]:
                laying[rank] = held[rank] + given[rank]
        laying[BLACK_THREE] = black_threes
        laying[WILD_RANK] = wild_only
        if not lays_hand_canasta(laid, laying):
            return None
    return _plan_groups(held, in_plan, given, black_threes, wild_only)


def needs_hand_canasta(rules: Rules) -> bool:
    """Whether melding every card with no discard needs a whole canasta laid from the hand this turn (R12.2 under
    ``going_out_without_discard=only_if_hand_holds_canasta``, D9: seed 002 allows it when the hand "contains a whole
    canasta"); by default the side's canastas (R12.1) are enough."""
    return rules.going_out_without_discard == "only_if_hand_holds_canasta"


@cython.locals(rank=Count, count=Count, before=Count)
def lays_hand_canasta(laid: Sequence[int] | None, laying: list[int]) -> bool:
    """R12.2 where :func:`needs_hand_canasta`: whether the turn lays a whole canasta of one meld from the hand,
    ``laid`` the cards laid from the hand earlier this turn by meld rank (``None``: none) and ``laying`` those the
    move lays.  The move check, the going-out plan (E4) and the check after a "yes" (R12.5) all judge it here.

    The pile's top card is melded from the pile, never held (R8.3), so neither counts it; the rest of a taken
    pile is in the hand once taken, and counts when laid."""
    for rank in range(KIND_COUNT):
        count = laying[rank]
        if laid is not None:
            before = laid[rank]
            count += before
        if count >= CANASTA_SIZE:
            return True
    return False


@cython.locals(rank=Count, size=Count, deficit=Count)
def _complete_canastas(
    in_plan: list[int], given: list[int], rooms: list[int], sizes: list[int], canastas: int, needed: int, budget: int
) -> int:
    """Give wild cards to the melds of the plan (``given``, within ``rooms``) until ``needed`` canastas are complete
    (R12.1), ``canastas`` complete already besides the ranks': the wild cards left of ``budget``, or -1 if too few.

    The canastas to complete go fewest missing cards first (ties: the lower rank), as sorting the (deficit, rank)
    pairs would order them: ``deficits[rank]`` is 0 where none is within the room.
    """
    deficits = [0] * 15
    for rank in range(FOUR, KIND_COUNT):
        if not in_plan[rank]:
            continue
        size = sizes[rank] + given[rank]
        if size >= CANASTA_SIZE:
            canastas += 1
        elif CANASTA_SIZE - size <= rooms[rank] - given[rank]:
            deficits[rank] = CANASTA_SIZE - size
    for deficit in range(1, CANASTA_SIZE + 1):
        if canastas >= needed or deficit > budget:
            break
        for rank in range(FOUR, KIND_COUNT):
            if deficits[rank] != deficit:
                continue
            if canastas >= needed or deficit > budget:
                break
            given[rank] += deficit
            budget -= deficit
            canastas += 1
    if canastas < needed:
        return -1
    return budget


@cython.locals(rank=Count, jokers_left=Count, jokers=Count)
def _plan_groups(
    held: list[int], in_plan: list[int], given: list[int], black_threes: int, wild_only: int
) -> tuple[MeldGroup, ...]:
    """The groups of a going-out plan: each rank of the plan with its hand cards and the wild cards ``given`` it
    (jokers first), the black 3s, and a wild-card meld of ``wild_only`` cards."""
    jokers_left = held[JOKER]
    groups: list[MeldGroup] = []
    for rank in range(FOUR, KIND_COUNT):
        if not in_plan[rank] or (held[rank] == 0 and given[rank] == 0):
            continue
        jokers = min(jokers_left, given[rank])
        jokers_left -= jokers
        groups.append(_group_of(rank, held[rank], jokers, given[rank] - jokers))
    if black_threes:
        groups.append(_group_of(BLACK_THREE, black_threes, 0, 0))
    if wild_only:
        jokers = min(jokers_left, wild_only)
        groups.append(_group_of(WILD_RANK, 0, jokers, wild_only - jokers))
    return tuple(groups)
