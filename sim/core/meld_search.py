"""The meld searches behind the listings: every set of new melds a hand can make (R9, R10.2).

:func:`_group_options` gives each rank a new meld could be made of, with the shapes
``(rank, naturals, jokers, deuces)`` the rules allow it (R9.1, R9.2; kept per rule set by
:func:`_rank_shapes`); :func:`_walk_sets` walks the sets of those shapes the wild cards held allow, skipping
the branches that cannot reach the initial minimum (R10.2) nor lay all but one card (R10.7).  The openings
(:func:`_openings_most_laid_first`) and a take's extra melds (:func:`_extra_melds`) are its two uses.
"""

from __future__ import annotations

from collections.abc import Iterator

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.core.melds import WildRules, wild_limit, wild_rules_of
from canasta_sim.core.moves import WILD_RANK, MeldGroup, _group_of
from canasta_sim.core.state import HandState

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (depths, positions, wild cards left), a Python int otherwise."""

__all__: list[str] = []

# The card constants as C integers where compiled (sim/core/meld_search.pxd).
_JOKER = JOKER
_TWO = TWO
_FOUR = FOUR
_KIND_COUNT = KIND_COUNT

_KIND_VALUE = KIND_VALUE  # a C array compiled (sim/core/meld_search.pxd): the searches' points in C integers
_JOKER_POINTS = KIND_VALUE[JOKER]  # C integers compiled (sim/core/meld_search.pxd)
_DEUCE_POINTS = KIND_VALUE[TWO]


def _openings_most_laid_first(state: HandState) -> list[tuple[tuple[int, int, int, int], ...]]:
    """:func:`_opening_candidates` as ``(rank, naturals, jokers, deuces)`` shapes (those of :func:`_group_options`),
    ordered by hand cards laid, most first, ties in listing order (a stable sort, one list per count of cards laid).

    The same candidates in the same order as sorting the groups :func:`_opening_candidates` yields,
    found without building a group until a caller reaches it: greedy looks at them all every turn
    before its side has melded.  The search skips the branches that hold no opening.
    """
    seat = state.seat
    hand = state.hands[seat]
    minimum = state.requirements[seat & 1]
    hand_size = state.hand_sizes[seat]
    best_points: list[int] = []
    best_cards: list[int] = []
    options = _group_options(state.rules, hand, None, best_points, best_cards)
    # A branch of the search that cannot reach the minimum, nor lay all but one card, holds no opening,
    # and the search skips it (R10.2, R10.7).
    most_points, most_cards = _option_bounds(best_points, best_cards)
    buckets: list[list[tuple[tuple[int, int, int, int], ...]]] = []
    _walk_sets(
        options, 0, hand[_JOKER], hand[_TWO], 0, 0, [None] * len(options), 0, most_points, most_cards, minimum,
        hand_size, True, buckets,
    )
    ordered = []
    for index in range(len(buckets) - 1, -1, -1):
        ordered.extend(buckets[index])
    return ordered


def _option_bounds(best_points: list[int], best_cards: list[int]) -> tuple[list[int], list[int]]:
    """The most points and cards the options from each index on could add, one more index for none left,
    from each option's own most (:func:`_group_options`' ``best_points`` and ``best_cards``).

    Each option counts at its best shape, and wild cards as if each option had its own: bounds that no
    set of groups from those options exceeds, for the searches to skip branches that cannot qualify.
    """
    index = len(best_points)
    most_points = [0] * (index + 1)
    most_cards = [0] * (index + 1)
    while index > 0:
        index -= 1
        most_points[index] = most_points[index + 1] + best_points[index]
        most_cards[index] = most_cards[index + 1] + best_cards[index]
    return most_points, most_cards


def _extra_melds(state: HandState, counts: list[int], exclude: int, needed: int) -> list[tuple[MeldGroup, ...]]:
    """The sets :func:`_group_sets` yields, in its order, whose cards count ``needed`` points or more (R10.2).

    The search skips the branches whose every set falls short, and builds the groups of a set only once
    it qualifies.
    """
    best_points: list[int] = []
    best_cards: list[int] = []
    options = _group_options(state.rules, counts, exclude, best_points, best_cards)
    most_points, most_cards = _option_bounds(best_points, best_cards)
    found: list[list[tuple[tuple[int, int, int, int], ...]]] = []
    # No count of cards qualifies a set here, only its points (R8.2e): a hand size no set comes near.
    _walk_sets(
        options, 0, counts[_JOKER], counts[_TWO], 0, 0, [None] * len(options), 0, most_points, most_cards, needed,
        1 << 30, False, found,
    )
    if not found:
        return []
    return [
        tuple([_group_of(shape[0], shape[1], shape[2], shape[3]) for shape in chosen]) for chosen in found[0]
    ]


def _walk_sets(
    options: list[tuple[int, list[tuple[int, int, int, int]]]],
    index: int,
    jokers_left: int,
    deuces_left: int,
    cards: int,
    points: int,
    chosen: list[tuple[int, int, int, int] | None],
    depth: int,
    most_points: list[int],
    most_cards: list[int],
    minimum: int,
    hand_size: int,
    by_cards: bool,
    buckets: list[list[tuple[tuple[int, int, int, int], ...]]],
) -> None:
    """The search of :func:`_openings_most_laid_first` and :func:`_extra_melds` from option ``index`` on, in
    :func:`_group_sets`' order.

    The shapes chosen so far are the first ``depth`` items of ``chosen`` (a list as long as ``options``: set in
    place, never grown nor shrunk, so no step reallocates it).  Each option is left out first, then taken at each
    of its shapes the wild cards left allow; every non-empty set found whose cards count ``minimum`` points or
    more, or leave at most one of ``hand_size`` cards (R10.2, R10.7), joins ``buckets``: the bucket of its count
    of cards with ``by_cards``, else the first.  A branch whose every set falls short of both is skipped.  A function
    of its own, not a closure: compiled (sim/core/meld_search.pxd), each step is a C call.
    """
    # C integers where compiled: the bounds compared without a Python object.
    most_more_points = most_points[index]
    most_more_cards = most_cards[index]
    if points + most_more_points < minimum and hand_size - (cards + most_more_cards) > 1:
        return  # nothing below this branch qualifies (at the end, most_points and most_cards count nothing)
    if index == len(options):
        if depth:
            bucket = cards if by_cards else 0
            while len(buckets) <= bucket:
                buckets.append([])
            buckets[bucket].append(tuple(chosen[:depth]))
        return
    _walk_sets(
        options, index + 1, jokers_left, deuces_left, cards, points, chosen, depth, most_points, most_cards, minimum,
        hand_size, by_cards, buckets,
    )
    rank, shapes = options[index]
    rank_points = _KIND_VALUE[rank]
    joker_points = _JOKER_POINTS
    deuce_points = _DEUCE_POINTS
    for shape in shapes:
        _, naturals, jokers, deuces = shape
        if jokers <= jokers_left and deuces <= deuces_left:
            chosen[depth] = shape
            _walk_sets(
                options,
                index + 1,
                jokers_left - jokers,
                deuces_left - deuces,
                cards + naturals + jokers + deuces,
                # The points of MeldGroup.of(rank, naturals, jokers, deuces).cards (a wild meld has no natural).
                points + rank_points * naturals + joker_points * jokers + deuce_points * deuces,
                chosen,
                depth + 1,
                most_points,
                most_cards,
                minimum,
                hand_size,
                by_cards,
                buckets,
            )


def _group_sets(state: HandState, counts: list[int], *, exclude: int | None) -> Iterator[tuple[MeldGroup, ...]]:
    """Yield every non-empty set of new melds that ``counts`` can make, each meld valid on its own."""
    options = _group_options(state.rules, counts, exclude)
    return _walk_group_sets(options, counts[JOKER], counts[TWO])


@cython.locals(size=Count, depth=Count, position=Count, jokers=Count, deuces=Count, shapes=list, nexts=list,
               jokers_left=list, deuces_left=list, pushed=list)
def _walk_group_sets(options: list, held_jokers: int, held_deuces: int) -> Iterator[tuple[MeldGroup, ...]]:
    """:func:`_group_sets`' walk over ``options``: depth first, at each option first choosing none of its shapes,
    then each shape the wild cards left allow, in order; every non-empty choice is yielded as it is completed.

    One generator with its own stack (by depth: the next shape to try, -1 before the branch choosing none, the
    wild cards left and whether a group is chosen there), not a recursion of generators: a set found deep in
    the walk is handed up through one generator, not one per option, and no recursive closure holds the caller's
    variables in a reference cycle.
    """
    size = len(options)
    chosen: list[MeldGroup] = []
    nexts = [-1] * (size + 1)
    jokers_left = [0] * (size + 1)
    deuces_left = [0] * (size + 1)
    pushed = [False] * (size + 1)
    jokers_left[0] = held_jokers
    deuces_left[0] = held_deuces
    depth = 0
    while depth >= 0:
        if depth == size:
            if chosen:
                yield tuple(chosen)
            depth -= 1
            continue
        if pushed[depth]:
            chosen.pop()
            pushed[depth] = False
        position = nexts[depth]
        if position < 0:  # first the branch that chooses none of this option's shapes
            nexts[depth] = 0
            jokers = 0
            deuces = 0
        else:
            shapes = options[depth][1]
            while position < len(shapes) and (shapes[position][2] > jokers_left[depth]
                                              or shapes[position][3] > deuces_left[depth]):
                position += 1
            if position == len(shapes):  # every shape tried: back to the option before
                depth -= 1
                continue
            rank, naturals, jokers, deuces = shapes[position]
            nexts[depth] = position + 1
            chosen.append(_group_of(rank, naturals, jokers, deuces))
            pushed[depth] = True
        nexts[depth + 1] = -1
        pushed[depth + 1] = False
        jokers_left[depth + 1] = jokers_left[depth] - jokers
        deuces_left[depth + 1] = deuces_left[depth] - deuces
        depth += 1


def _group_options(
    rules, counts: list[int], exclude: int | None, best_points: list[int] | None = None,
    best_cards: list[int] | None = None,
) -> list[tuple[int, list[tuple[int, int, int, int]]]]:
    """Each rank a new meld could be made of, with the ``(rank, naturals, jokers, deuces)`` shapes it allows.

    A shape holds its rank so that a search can keep the shape itself as its choice (no tuple built per step).
    Given lists ``best_points`` and ``best_cards``, appends to them each option's most points and most cards
    (of one shape; 0 for none), for :func:`_option_bounds`.  The shapes lists are shared (see
    :func:`_rank_shapes`): callers only read them.
    """
    options: list[tuple[int, list[tuple[int, int, int, int]]]] = []
    excluded = -1 if exclude is None else exclude
    wild = wild_rules_of(rules)  # read once: the rule set's values and kept shapes are then the record's own
    most_wilds = wild.most_wilds
    held_jokers = counts[_JOKER]  # C integers where compiled: min() of two is then a C comparison
    held_deuces = counts[_TWO]
    joker_limit = min(held_jokers, most_wilds) + 1
    deuce_limit = min(held_deuces, most_wilds) + 1
    bounded = best_points is not None
    for rank in range(_FOUR, _KIND_COUNT):
        held = counts[rank]
        if rank == excluded or held < 2:
            continue
        found = _rank_shapes(wild, rank, held, joker_limit, deuce_limit)
        options.append(found[0])
        if bounded:
            best_points.append(found[1])
            best_cards.append(found[2])
    black_three = BLACK_THREE
    held = counts[black_three]
    if held >= 3:
        options.append((black_three, [(black_three, naturals, 0, 0) for naturals in range(3, held + 1)]))
        if bounded:
            best_points.append(_KIND_VALUE[black_three] * held)
            best_cards.append(held)
    if wild.wild_only:
        shapes = [
            (WILD_RANK, 0, jokers, deuces)
            for jokers in range(held_jokers + 1)
            for deuces in range(held_deuces + 1)
            if jokers + deuces >= 3
        ]
        options.append((WILD_RANK, shapes))
        if bounded:
            # Every wild card held, when they make a shape at all (three or more).
            best_points.append(_KIND_VALUE[JOKER] * held_jokers + _KIND_VALUE[TWO] * held_deuces if shapes else 0)
            best_cards.append(held_jokers + held_deuces if shapes else 0)
    return options


_SHAPE_HELD = 9  # 0-8 cards of a rank: two decks hold 8 (R1.1)
_SHAPE_JOKERS = 6  # joker limits 1-5: two decks hold 4 jokers
_SHAPE_DEUCES = 10  # deuce limits 1-9: two decks hold 8 deuces
_SHAPE_TABLE_SIZE = KIND_COUNT * _SHAPE_HELD * _SHAPE_JOKERS * _SHAPE_DEUCES
"""A rule set's ``shape_table`` (:class:`~canasta_sim.core.melds.WildRules`) holds :func:`_rank_shapes`' answers for
what a two-deck hand can hold, at an index computed from the counts (a list index, cheaper than a dict look-up
with an integer key); its ``shapes`` keep the rest by a key: the same few hands' ranks recur all game."""


def _rank_shapes(
    wild: WildRules, rank: int, held: int, joker_limit: int, deuce_limit: int
) -> tuple[tuple[int, list[tuple[int, int, int, int]]], int, int]:
    """The option ``(rank, shapes)`` of :func:`_group_options` for natural ``rank`` from ``held`` cards of it and
    fewer than ``joker_limit`` jokers and ``deuce_limit`` deuces (the shapes in listing order), with the shapes'
    most points and most cards (0 for none).

    Read and kept for the rule set of ``wild`` (:data:`_SHAPE_TABLE_SIZE`): never modify one.
    """
    index = -1
    if (0 <= rank < _KIND_COUNT and held < _SHAPE_HELD and joker_limit < _SHAPE_JOKERS
            and deuce_limit < _SHAPE_DEUCES):
        index = ((rank * _SHAPE_HELD + held) * _SHAPE_JOKERS + joker_limit) * _SHAPE_DEUCES + deuce_limit
        table = wild.shape_table
        if table is None:
            table = [None] * _SHAPE_TABLE_SIZE
            wild.shape_table = table
        found = table[index]
        if found is not None:
            return found
    small = held < 32 and joker_limit < 32 and deuce_limit < 32
    key = rank << 15 | held << 10 | joker_limit << 5 | deuce_limit
    if small and index < 0:
        found = wild.shapes.get(key)
        if found is not None:
            return found
    most_wilds = wild.most_wilds
    wild_ratio = wild.wild_ratio
    rank_points = _KIND_VALUE[rank]
    joker_points = _JOKER_POINTS
    deuce_points = _DEUCE_POINTS
    shapes = []
    best_points = 0
    best_cards = 0
    for naturals in range(2, held + 1):
        for jokers in range(joker_limit):
            for deuces in range(deuce_limit):
                wilds = jokers + deuces  # melds.meld_fits for a natural rank (R9.1, R9.2)
                if naturals + wilds < 3 or wilds > wild_limit(naturals, most_wilds, wild_ratio):
                    continue
                shapes.append((rank, naturals, jokers, deuces))
                points = rank_points * naturals + joker_points * jokers + deuce_points * deuces
                if points > best_points:
                    best_points = points
                if naturals + wilds > best_cards:
                    best_cards = naturals + wilds
    found = ((rank, shapes), best_points, best_cards)
    if index >= 0:
        table[index] = found
    elif small:
        wild.shapes[key] = found
    return found
