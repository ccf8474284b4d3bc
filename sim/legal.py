"""Lazy legal-move generators for a :class:`~canasta_sim.state.HandState`.

Every generator yields moves one at a time and checks each with the state's
own ``can_x`` method, so what it yields is legal by the same code that
judges a strategy's choice.  Two listings are canonical rather than
exhaustive, because the exhaustive ones add nothing a player cannot reach:

* once a side has melded, :func:`legal_melds` lists single groups; several
  groups laid one after another reach every compound meld;
* :func:`legal_takes` lists a take with extra melds only when the top-card
  meld alone falls short of the initial minimum; otherwise those melds can be
  laid right after the take.
"""

from __future__ import annotations

from collections.abc import Iterator

from canasta_sim.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.melds import meld_fits
from canasta_sim.moves import WILD_RANK, Answer, Ask, Discard, Draw, Meld, MeldGroup, Move, Stop, TakePile
from canasta_sim.state import ACQUIRE, ANSWER, PLAY, HandState

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing (canasta_sim.cython_fallback)
    from canasta_sim import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["legal_acquires", "legal_discards", "legal_melds", "legal_moves", "legal_takes", "meld_candidates"]

_DRAW = Draw()
_STOP = Stop()
_ASK = Ask()


def legal_moves(state: HandState) -> Iterator[Move]:
    """Yield every legal move of the decision now due (see the module's note on canonical listings)."""
    if state.phase == ACQUIRE:
        yield from legal_acquires(state)
    elif state.phase == PLAY:
        if state.can_ask(_ASK):
            yield _ASK
        yield from legal_melds(state)
        yield from legal_discards(state)
        if state.can_stop(_STOP):
            yield _STOP
    elif state.phase == ANSWER:
        yield Answer(True)
        yield Answer(False)


def legal_acquires(state: HandState) -> Iterator[Move]:
    """Yield the legal ways to begin the turn: draw, take the pile, or stop on an empty stock."""
    if state.phase != ACQUIRE:
        return
    if state.stock:
        yield _DRAW
    yield from legal_takes(state)
    if state.can_stop(_STOP):
        yield _STOP


@cython.locals(
    most_wilds=Count, total_naturals=Count, wilds=Count, naturals=Count, jokers=Count, deuces=Count,
    wild_ratio=cython.bint,
)
def legal_takes(state: HandState) -> Iterator[TakePile]:
    """Yield the legal pile takes, one per choice of hand cards melded with the top card."""
    if state.phase != ACQUIRE or not state.pile or state.is_pile_blocked() or state.pile[-1] <= TWO:
        return
    top = state.pile[-1]
    hand = state.hands[state.seat]
    side = state.side
    rules = state.rules
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    frozen = state.is_pile_frozen_for(side)
    existing = state.melds[side][top]
    has_meld = sum(existing) > 0
    for naturals in range(hand[top] + 1):
        # R8.2b/R8.2c: shapes that cannot qualify are skipped before the full check.
        if frozen and naturals < 2:
            continue
        for jokers in range(min(hand[JOKER], most_wilds) + 1):
            for deuces in range(min(hand[TWO], most_wilds) + 1):
                if not frozen and not has_meld and naturals < 2 and not (naturals and jokers + deuces):
                    continue
                # melds.meld_fits for the top card's natural rank (R9.1, R9.2), inlined.
                total_naturals = existing[0] + naturals + 1
                wilds = existing[1] + jokers + existing[2] + deuces
                if total_naturals + wilds < 3 or wilds > most_wilds:
                    continue
                if (wilds > total_naturals) if wild_ratio else (total_naturals < 2):
                    continue
                cards = (top,) * naturals + (JOKER,) * jokers + (TWO,) * deuces
                move = TakePile(cards)
                if state.can_take_pile(move):
                    yield move
                elif not state.side_has_melded[side] and naturals >= 2:
                    value = KIND_VALUE[top] * (naturals + 1) + 50 * jokers + 20 * deuces
                    if value < state.requirements[side]:
                        rest = list(hand)
                        rest[top] -= naturals
                        rest[JOKER] -= jokers
                        rest[TWO] -= deuces
                        for extra in _group_sets(state, rest, exclude=top):
                            move = TakePile(cards, extra)
                            if state.can_take_pile(move):
                                yield move


def legal_melds(state: HandState) -> Iterator[Meld]:
    """Yield legal melds: single groups once the side has melded, whole openings before."""
    for move in meld_candidates(state):
        if state.can_meld(move):
            yield move


def meld_candidates(state: HandState, *, largest_first: bool = False) -> Iterator[Meld]:
    """Yield, in the order :func:`legal_melds` lists them, melds worth checking with ``can_meld``.

    Each is well shaped (R9 on its own) but not yet judged against the turn (R6.4, R10, R12):
    a caller that only wants, say, the largest legal meld can check just the candidates that
    would beat its best so far.  ``largest_first`` yields the same candidates ordered by the
    number of hand cards they lay, most first, ties in listing order; each move is built only
    when it is reached, so a caller that stops at the first legal one builds few.
    """
    if state.phase != PLAY:
        return iter(())
    if not state.side_has_melded[state.side]:
        if largest_first:
            openings = _openings_most_laid_first(state)
            return (Meld(tuple([MeldGroup.of(*shape) for shape in chosen])) for chosen in openings)
        return map(Meld, _opening_candidates(state))
    shapes = _addition_shapes(state)
    if largest_first:
        shapes = _most_laid_first(shapes)
    return (Meld((MeldGroup.of(*shape),)) for shape in shapes)


@cython.locals(laid=Count, most=Count, index=Count)
def _most_laid_first(shapes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The shapes ordered by hand cards laid, most first, ties in listing order: a stable sort, as one
    pass into a list per count (a meld candidate lays at most a few dozen cards)."""
    buckets: list[list[tuple[int, int, int, int]]] = []
    for shape in shapes:
        laid = shape[1] + shape[2] + shape[3]
        while len(buckets) <= laid:
            buckets.append([])
        buckets[laid].append(shape)
    ordered = []
    most = len(buckets) - 1
    for index in range(most, -1, -1):
        ordered.extend(buckets[index])
    return ordered


def _opening_candidates(state: HandState) -> Iterator[tuple[MeldGroup, ...]]:
    """The group sets of an initial meld that may reach the minimum (R10.2)."""
    hand = state.hands[state.seat]
    minimum = state.requirements[state.side]
    hand_size = state.hand_sizes[state.seat]
    for groups in _group_sets(state, list(hand), exclude=None):
        # R10.2: an opening short of the minimum can only be legal as a concealed going out (R10.7).
        cards = sum([len(group.cards) for group in groups])
        if hand_size - cards > 1 and sum([KIND_VALUE[kind] for group in groups for kind in group.cards]) < minimum:
            continue
        yield groups


@cython.locals(
    most_wilds=Count, joker_limit=Count, deuce_limit=Count, rank=Count, held=Count, old_naturals=Count,
    old_jokers=Count, old_deuces=Count, existing=Count, lowest=Count, naturals=Count, jokers=Count, deuces=Count,
    count=Count, total_naturals=Count, wilds=Count, wild_ratio=cython.bint,
)
def _addition_shapes(state: HandState) -> list[tuple[int, int, int, int]]:
    """``(rank, naturals, jokers, deuces)`` from hand of each well-shaped single meld or addition.

    A list, not a generator: the loop runs compiled without a generator's resumption per shape, and
    the moves themselves are still built only when a caller reaches them.
    """
    shapes = []
    hand = state.hands[state.seat]
    rules = state.rules
    melds = state.melds[state.side]
    most_wilds = rules.max_wilds_per_meld
    joker_limit = min(hand[JOKER], most_wilds) + 1
    deuce_limit = min(hand[TWO], most_wilds) + 1
    has_wilds = joker_limit > 1 or deuce_limit > 1
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    for rank in range(FOUR, KIND_COUNT):
        held = hand[rank]
        old_naturals, old_jokers, old_deuces = melds[rank]
        existing = old_naturals + old_jokers + old_deuces
        # A rank offers nothing without cards of it in hand, unless wild cards can join its meld.
        if (not existing and held < 2) or (not held and not has_wilds):
            continue
        lowest = 0 if existing else 2
        for naturals in range(lowest, held + 1):
            total_naturals = old_naturals + naturals
            for jokers in range(joker_limit):
                for deuces in range(deuce_limit):
                    if naturals + jokers + deuces == 0:
                        continue
                    # melds.meld_fits for a natural rank (R9.1, R9.2), inlined: this loop is the
                    # legal listings' hottest, and the answer is the same.
                    wilds = old_jokers + jokers + old_deuces + deuces
                    if total_naturals + wilds < 3 or wilds > most_wilds:
                        continue
                    if (wilds > total_naturals) if wild_ratio else (total_naturals < 2):
                        continue
                    shapes.append((rank, naturals, jokers, deuces))
    for count in (3, 4):
        if hand[BLACK_THREE] >= count:
            shapes.append((BLACK_THREE, count, 0, 0))
    if rules.allow_wild_only_melds:
        for jokers in range(hand[JOKER] + 1):
            for deuces in range(hand[TWO] + 1):
                if jokers + deuces:
                    shapes.append((WILD_RANK, 0, jokers, deuces))
    return shapes


def legal_discards(state: HandState) -> Iterator[Discard]:
    """Yield one legal discard per kind in hand."""
    if state.phase != PLAY:
        return
    hand = state.hands[state.seat]
    for kind in range(KIND_COUNT - 1, -1, -1):
        if hand[kind]:
            move = Discard(kind)
            if state.can_discard(move):
                yield move


@cython.locals(cards=Count, value=Count, minimum=Count, hand_size=Count, rank=Count, naturals=Count, jokers=Count,
               deuces=Count, index=Count)
def _openings_most_laid_first(state: HandState) -> list[tuple[tuple[int, int, int, int], ...]]:
    """:func:`_opening_candidates` as ``(rank, naturals, jokers, deuces)`` shapes, ordered by hand cards
    laid, most first, ties in listing order (a stable sort, one list per count of cards laid).

    The same candidates in the same order as sorting the groups :func:`_opening_candidates` yields,
    found without building a group until a caller reaches it: greedy looks at them all every turn
    before its side has melded.
    """
    hand = state.hands[state.seat]
    minimum = state.requirements[state.side]
    hand_size = state.hand_sizes[state.seat]
    buckets: list[list[tuple[tuple[int, int, int, int], ...]]] = []
    for chosen in _shape_sets(_group_options(state.rules, hand, None), hand[JOKER], hand[TWO]):
        cards = 0
        value = 0
        for rank, naturals, jokers, deuces in chosen:
            cards += naturals + jokers + deuces
            # The points of MeldGroup.of(rank, naturals, jokers, deuces).cards (a wild meld has no natural).
            value += KIND_VALUE[rank] * naturals + KIND_VALUE[JOKER] * jokers + KIND_VALUE[TWO] * deuces
        # R10.2: an opening short of the minimum can only be legal as a concealed going out (R10.7).
        if hand_size - cards > 1 and value < minimum:
            continue
        while len(buckets) <= cards:
            buckets.append([])
        buckets[cards].append(chosen)
    ordered = []
    for index in range(len(buckets) - 1, -1, -1):
        ordered.extend(buckets[index])
    return ordered


def _shape_sets(
    options: list[tuple[int, list[tuple[int, int, int]]]], jokers: int, deuces: int
) -> list[tuple[tuple[int, int, int, int], ...]]:
    """What :func:`_group_sets` yields, in its order, as a list of ``(rank, naturals, jokers, deuces)`` sets."""
    found: list[tuple[tuple[int, int, int, int], ...]] = []
    chosen: list[tuple[int, int, int, int]] = []

    def walk(index: int, jokers_left: int, deuces_left: int) -> None:
        if index == len(options):
            if chosen:
                found.append(tuple(chosen))
            return
        walk(index + 1, jokers_left, deuces_left)
        rank, shapes = options[index]
        for naturals, jokers, deuces in shapes:
            if jokers <= jokers_left and deuces <= deuces_left:
                chosen.append((rank, naturals, jokers, deuces))
                walk(index + 1, jokers_left - jokers, deuces_left - deuces)
                chosen.pop()

    walk(0, jokers, deuces)
    return found


def _group_sets(state: HandState, counts: list[int], *, exclude: int | None) -> Iterator[tuple[MeldGroup, ...]]:
    """Yield every non-empty set of new melds that ``counts`` can make, each meld valid on its own."""
    options = _group_options(state.rules, counts, exclude)
    chosen: list[MeldGroup] = []

    def walk(index: int, jokers_left: int, deuces_left: int) -> Iterator[tuple[MeldGroup, ...]]:
        if index == len(options):
            if chosen:
                yield tuple(chosen)
            return
        yield from walk(index + 1, jokers_left, deuces_left)
        rank, shapes = options[index]
        for naturals, jokers, deuces in shapes:
            if jokers <= jokers_left and deuces <= deuces_left:
                chosen.append(MeldGroup.of(rank, naturals, jokers, deuces))
                yield from walk(index + 1, jokers_left - jokers, deuces_left - deuces)
                chosen.pop()

    yield from walk(0, counts[JOKER], counts[TWO])


def _group_options(rules, counts: list[int], exclude: int | None) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """Each rank a new meld could be made of, with the ``(naturals, jokers, deuces)`` shapes it allows."""
    options: list[tuple[int, list[tuple[int, int, int]]]] = []
    for rank in range(FOUR, KIND_COUNT):
        if rank == exclude or counts[rank] < 2:
            continue
        shapes = []
        for naturals in range(2, counts[rank] + 1):
            for jokers in range(min(counts[JOKER], rules.max_wilds_per_meld) + 1):
                for deuces in range(min(counts[TWO], rules.max_wilds_per_meld) + 1):
                    if meld_fits(rules, rank, naturals, jokers, deuces):
                        shapes.append((naturals, jokers, deuces))
        options.append((rank, shapes))
    if counts[BLACK_THREE] >= 3:
        options.append((BLACK_THREE, [(n, 0, 0) for n in range(3, counts[BLACK_THREE] + 1)]))
    if rules.allow_wild_only_melds:
        shapes = [
            (0, jokers, deuces)
            for jokers in range(counts[JOKER] + 1)
            for deuces in range(counts[TWO] + 1)
            if jokers + deuces >= 3
        ]
        options.append((WILD_RANK, shapes))
    return options
