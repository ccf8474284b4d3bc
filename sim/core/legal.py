"""Lazy legal-move generators for a :class:`~canasta_sim.core.state.HandState`.

Every generator yields moves one at a time and checks each with the state's
own ``can_x`` method, so what it yields is legal by the same code that
judges a strategy's choice; the state remembers each (``_list``), so the
move a strategy picks from a listing is applied on that check, not checked
again.  Two listings are canonical rather than exhaustive: each lists every
legal move, or the first steps that reach it, not every way to lay the same cards:

* once a side has melded, :func:`legal_melds` lists single groups, and several
  groups laid one after another reach every compound meld but one kind, which
  it lists whole, last: under ``canastas_to_go_out`` of 2 or more, a hand of two
  cards that each complete a canasta still needed goes out only by laying both
  at once (either alone would keep just the card to discard, R6.4, R12.1), so the
  listing holds that joint meld (``meld 9:2; A:2``).  Its black 3 groups are new
  melds of 3 or 4, or, once the player has laid black 3s this turn to go out,
  the black 3s that meld can still take (R5.3);
* :func:`legal_takes` lists a take with extra melds only when the top-card
  meld alone falls short of the initial minimum; otherwise those melds can be
  laid right after the take.
"""

from __future__ import annotations

from collections.abc import Iterator

from canasta_sim.core.cards import BLACK_THREE, CARD_KIND, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.core.going_out import _as_list
from canasta_sim.core.identities import field_objects
from canasta_sim.core.meld_search import _extra_melds, _group_sets, _openings_most_laid_first
from canasta_sim.core.melds import WildRules, wild_limit, wild_rules_of
from canasta_sim.core.moves import (
    WILD_RANK,
    Answer,
    Ask,
    Discard,
    Draw,
    Meld,
    MeldGroup,
    Move,
    Stop,
    TakePile,
    _group_of,
)
from canasta_sim.core.state import ACQUIRE, ANSWER, PLAY, HandState

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = [
    "forced_draw",
    "legal_acquires",
    "legal_discards",
    "legal_melds",
    "legal_moves",
    "legal_takes",
    "meld_candidates",
    "pile_take",
    "single_group_meld",
]

_DRAW = Draw()
_STOP = Stop()
_ASK = Ask()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every listing hands out the same ones."""
_DISCARD_KEYS = tuple(field_objects(move) for move in _DISCARDS)
"""Each of :data:`_DISCARDS`' keys for the state's record of listed moves (``HandState._list``), read once."""
_NOTHING = iter(())
"""What a listing with nothing to list returns: an exhausted iterator stays exhausted, so every such listing can
hand out the same one instead of making an iterator per call."""

# The card constants as C integers where compiled (sim/core/legal.pxd): the listings index hands with them.
_JOKER = JOKER
_TWO = TWO
_BLACK_THREE = BLACK_THREE
_FOUR = FOUR
_KIND_COUNT = KIND_COUNT
_SINGLE_MELDS: dict[int, Meld] = {}
"""Single-group melds by shape (see :func:`single_group_meld`): records are immutable, so every listing
and every strategy can hand out the same one, and the listings look them up instead of building them."""


_TABLE_NATURALS = 9  # 0-8 naturals: two decks hold 8 cards of a rank (R1.1)
_TABLE_JOKERS = 5  # 0-4 jokers
_TABLE_DEUCES = 9  # 0-8 deuces
_SINGLE_MELD_TABLE: list[Meld | None] = [None] * (KIND_COUNT * _TABLE_NATURALS * _TABLE_JOKERS * _TABLE_DEUCES)
"""The records of :data:`_SINGLE_MELDS` for the shapes a two-deck hand can hold, at
:func:`_table_index`: a list index instead of a dict look-up with a Python integer key."""


def _table_index(rank: int, naturals: int, jokers: int, deuces: int) -> int:
    """Where :data:`_SINGLE_MELD_TABLE` keeps a shape, or -1 for a shape outside it."""
    if 0 <= rank < KIND_COUNT and 0 <= naturals < 9 and 0 <= jokers < 5 and 0 <= deuces < 9:
        return ((rank * 9 + naturals) * 5 + jokers) * 9 + deuces
    return -1


def _kept(move, cache: dict, table: list, index: int, rank: int, naturals: int, jokers: int, deuces: int):
    """The record kept for a shape, ``move`` (just built for it) when none is kept yet: in ``cache`` by a key of
    five bits each for rank, naturals, jokers and deuces (C integers where compiled), and in ``table`` at ``index``
    (-1: a shape outside it).  A shape too large for the key is none a hand can hold, and is not kept."""
    if not (0 <= rank < 32 and 0 <= naturals < 32 and 0 <= jokers < 32 and 0 <= deuces < 32):
        return move
    key = rank << 15 | naturals << 10 | jokers << 5 | deuces
    kept = cache.get(key)
    if kept is None:
        cache[key] = move
        kept = move
    if index >= 0:
        table[index] = kept
    return kept


def single_group_meld(rank: int, naturals: int = 0, jokers: int = 0, deuces: int = 0) -> Meld:
    """``Meld((MeldGroup.of(rank, naturals, jokers, deuces),))``, the same record every time it is asked for."""
    index = _table_index(rank, naturals, jokers, deuces)
    if index >= 0:
        move = _SINGLE_MELD_TABLE[index]
        if move is not None:
            return move
    return _kept(Meld((_group_of(rank, naturals, jokers, deuces),)), _SINGLE_MELDS, _SINGLE_MELD_TABLE, index,
                 rank, naturals, jokers, deuces)


_PILE_TAKES: dict[int, TakePile] = {}
"""Pile takes without extra melds by shape (see :func:`pile_take`), kept as :data:`_SINGLE_MELDS` is."""
_PILE_TAKE_TABLE: list[TakePile | None] = [None] * (KIND_COUNT * _TABLE_NATURALS * _TABLE_JOKERS * _TABLE_DEUCES)
"""The records of :data:`_PILE_TAKES` for the shapes a two-deck hand can hold, at :func:`_table_index`, as
:data:`_SINGLE_MELD_TABLE` keeps the melds: a list index instead of a dict method looked up and called."""


def pile_take(top: int, naturals: int = 0, jokers: int = 0, deuces: int = 0) -> TakePile:
    """``TakePile((top,) * naturals + (JOKER,) * jokers + (TWO,) * deuces)``, the same record every time."""
    index = _table_index(top, naturals, jokers, deuces)
    if index >= 0:
        move = _PILE_TAKE_TABLE[index]
        if move is not None:
            return move
    return _kept(TakePile((top,) * naturals + (JOKER,) * jokers + (TWO,) * deuces), _PILE_TAKES, _PILE_TAKE_TABLE,
                 index, top, naturals, jokers, deuces)


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


@cython.locals(index=Count, kind=Count)
def forced_draw(state: HandState) -> list[int] | None:
    """The kinds of the cards the next draw brings, in the order drawn, when drawing is the only legal way to
    begin the turn; ``None`` when the turn may begin otherwise (a legal take, R8; a stop on an empty stock, R13.3).

    The arbiter's side of the bot protocol's ``drawn`` field, never a strategy's: it reads the stock.  A red 3
    drawn is laid and replaced (R4.2), so the list holds the red 3s first and ends with the card kept, or with a
    red 3 where it was the stock's last card (R13.1).  Telling a seat these cards before it answers gives it
    nothing: its one legal answer brings them.
    """
    if state.phase != ACQUIRE or not state.stock or next(legal_takes(state), None) is not None:
        return None
    stock = state.stock
    kinds: list[int] = []
    for index in range(len(stock) - 1, -1, -1):  # the stock's top is its last card (HandState.draw pops it)
        kind = CARD_KIND[stock[index]]
        kinds.append(kind)
        if kind != RED_THREE:
            break
    return kinds


def legal_takes(state: HandState) -> Iterator[TakePile]:
    """Lazily yield the legal pile takes, one per choice of hand cards melded with the top card.

    The checks that rule out every take run at once, without a generator: most turns no take is possible.
    """
    if state.phase != ACQUIRE or not state.pile or state.is_pile_blocked() or state.pile[-1] <= _TWO:
        return _NOTHING
    top = state.pile[-1]
    seat = state.seat
    hand = state.hands[seat]
    side = seat & 1
    hand_held = hand[top]
    frozen = state.is_pile_frozen_for(side)
    # The shapes below all need a natural pair when the pile is frozen (R8.2b), and one natural card
    # at least when the side has no meld to lay the top card off on (R8.2c): without those, none.
    if frozen and hand_held < 2:
        return _NOTHING
    existing = state.melds[side][top]
    has_meld = existing[0] + existing[1] + existing[2] > 0
    if not has_meld and hand_held == 0:
        return _NOTHING
    return _takes(state, top, side, hand, hand_held, frozen, existing, has_meld)


@cython.locals(
    most_wilds=Count, total_naturals=Count, wilds=Count, naturals=Count, jokers=Count, deuces=Count, top=Count,
    side=Count, value=Count, requirement=Count, wild_ratio=cython.bint, frozen=cython.bint, has_meld=cython.bint,
    melded=cython.bint, hand_held=Count, held_jokers=Count, held_deuces=Count, joker_limit=Count, deuce_limit=Count,
    state=HandState, wild=WildRules,
)
def _takes(
    state: HandState, top: int, side: int, hand: list[int], hand_held: int, frozen: bool, existing: list[int],
    has_meld: bool,
) -> Iterator[TakePile]:
    """:func:`legal_takes`' generator, once a take may be possible: ``top`` the pile's top card, ``side`` the
    side to move, ``hand`` its player's hand holding ``hand_held`` of ``top``, ``frozen`` whether the pile is
    frozen for the side, ``existing`` the side's meld of ``top`` and ``has_meld`` whether it holds a card."""
    wild = wild_rules_of(state.rules)  # read once: the rule set's values are then the record's own
    most_wilds = wild.most_wilds
    wild_ratio = wild.wild_ratio
    melded = state.side_has_melded[side]
    requirement = state.requirements[side]
    held_jokers = hand[_JOKER]  # C integers where compiled: min() of two is then a C comparison
    held_deuces = hand[_TWO]
    joker_limit = min(held_jokers, most_wilds) + 1
    deuce_limit = min(held_deuces, most_wilds) + 1
    for naturals in range(hand_held + 1):
        # R8.2b/R8.2c: shapes that cannot qualify are skipped before the full check.
        if frozen and naturals < 2:
            continue
        for jokers in range(joker_limit):
            for deuces in range(deuce_limit):
                if not frozen and not has_meld and naturals < 2 and not (naturals and jokers + deuces):
                    continue
                # melds.meld_fits for the top card's natural rank (R9.1, R9.2).
                total_naturals = existing[0] + naturals + 1
                wilds = existing[1] + jokers + existing[2] + deuces
                if total_naturals + wilds < 3 or wilds > wild_limit(total_naturals, most_wilds, wild_ratio):
                    continue
                move = pile_take(top, naturals, jokers, deuces)
                # The points the take lays (R10.5: the top card and the hand cards, never the rest).
                value = KIND_VALUE[top] * (naturals + 1) + 50 * jokers + 20 * deuces
                if melded or value >= requirement:
                    if state.can_take_pile(move):
                        state._list(move)
                        yield move
                    continue
                # R8.2e: short of the initial minimum the take alone is refused (can_take_pile would say
                # so), so only extra melds from hand can make it legal (R8.2e, R8.3).
                if naturals < 2:
                    continue
                rest = list(hand)
                rest[top] -= naturals
                rest[JOKER] -= jokers
                rest[TWO] -= deuces
                cards = move.cards
                # R8.2e again: extra melds that still fall short would be refused; none is listed.
                for extra in _extra_melds(state, rest, top, requirement - value):
                    move = TakePile(cards, extra)
                    if state.can_take_pile(move):
                        state._list(move)
                        yield move


def legal_melds(state: HandState) -> Iterator[Meld]:
    """Lazily yield legal melds: single groups once the side has melded (then any joint going-out meld, see the
    module's note), whole openings before.  Every legal meld is listed or reached by listed groups laid in turn."""
    return _Checked(state, meld_candidates(state), True)


class _Checked:
    """The iterator of :func:`legal_melds`, and of :func:`legal_discards` where each discard is checked: each of
    ``candidates`` that the state finds legal (``can_meld``, or ``can_discard``), checked when it is reached and
    remembered for the engine (``HandState._list``).

    An iterator object rather than a generator: compiled, it is made for a fraction of a generator's cost, and one
    left unfinished (a strategy returning the first move it likes) is simply dropped, where a generator is closed by
    an exception raised into it.
    """

    __slots__ = ("_state", "_candidates", "_melds")

    def __init__(self, state: HandState, candidates: Iterator[Move], melds: bool) -> None:
        self._state = state
        self._candidates = candidates
        self._melds = melds

    def __iter__(self) -> _Checked:
        return self

    def __next__(self) -> Move:
        state = self._state
        for move in self._candidates:
            if state.can_meld(move) if self._melds else state.can_discard(move):
                state._list(move)
                return move
        raise StopIteration


def meld_candidates(state: HandState, largest_first: bool = False) -> Iterator[Meld]:
    """Yield, in the order :func:`legal_melds` lists them, melds worth checking with ``can_meld``.

    Each is well shaped (R9 on its own) but not yet judged against the turn (R6.4, R10, R12):
    a caller that only wants, say, the largest legal meld can check just the candidates that
    would beat its best so far.  ``largest_first`` yields the same candidates ordered by the
    number of hand cards they lay, most first, ties in listing order.  Once the side has melded,
    each candidate is a single-group meld kept from earlier listings (:func:`single_group_meld`),
    but for the joint going-out melds of a two-card hand (see the module's note), yielded only where
    neither of their groups may go alone (that much is judged); an opening is built only when it
    is reached, so a caller that stops at the first legal one builds few.
    """
    if state.phase != PLAY:
        return _NOTHING
    if not state.side_has_melded[state.seat & 1]:
        if largest_first:
            return _opening_melds(_openings_most_laid_first(state))
        return map(Meld, _opening_candidates(state))
    return iter(_addition_melds(state, largest_first))


def _opening_melds(openings: list[tuple[tuple[int, int, int, int], ...]]) -> Iterator[Meld]:
    """Yield the opening of each of ``openings``' shapes (:func:`_openings_most_laid_first`), built when reached."""
    for chosen in openings:
        yield Meld(tuple([_shape_group(shape) for shape in chosen]))


@cython.locals(group=MeldGroup, cards=Count, points=Count, minimum=Count, hand_size=Count, kind=Count)
def _opening_candidates(state: HandState) -> Iterator[tuple[MeldGroup, ...]]:
    """The group sets of an initial meld that may reach the minimum (R10.2)."""
    hand = state.hands[state.seat]
    minimum = state.requirements[state.side]
    hand_size = state.hand_sizes[state.seat]
    for groups in _group_sets(state, list(hand), exclude=None):
        # R10.2: an opening short of the minimum can only be legal as a concealed going out (R10.7).  The cards
        # and their points summed in one pass, C integers where compiled (the groups' fields read as C members).
        cards = 0
        points = 0
        for group in groups:
            cards += len(group.cards)
            for kind in group.cards:
                points += KIND_VALUE[kind]
        if hand_size - cards > 1 and points < minimum:
            continue
        yield groups


def _addition_melds(state: HandState, largest_first: bool) -> list[Meld]:
    """The single-group meld of each well-shaped single meld or addition from hand, in listing order, or
    with ``largest_first`` ordered by hand cards laid, most first, ties in listing order (a stable sort).

    A list, not a generator: the loop runs compiled without a generator's resumption per shape, and
    each move is looked up (:func:`single_group_meld`), not built.  Most listings hold one candidate or
    none, or come out ordered already: only a listing out of order is reordered (one list per count laid,
    each candidate's count read back from its group).
    """
    shapes = []
    laids = []  # with largest_first, the hand cards each of shapes lays
    ordered = True  # whether shapes come most laid first already
    last = 1 << 30  # the hand cards the last of shapes lays; at first more than any hand holds
    most = 0  # the most hand cards a candidate lays
    table = _SINGLE_MELD_TABLE
    seat = state.seat
    hand = _as_list(state.hands[seat])
    melds = _as_list(state.melds[seat & 1])
    wild = wild_rules_of(state.rules)  # read once: the rule set's values are then the record's own
    most_wilds = wild.most_wilds
    wild_ratio = wild.wild_ratio
    held_jokers = hand[_JOKER]  # C integers where compiled: min() of two is then a C comparison
    held_deuces = hand[_TWO]
    joker_limit = min(held_jokers, most_wilds) + 1
    deuce_limit = min(held_deuces, most_wilds) + 1
    # Counts a two-deck hand can hold fit the table (single_group_meld looks up the rest itself).
    small = joker_limit <= _TABLE_JOKERS and deuce_limit <= _TABLE_DEUCES
    for rank in range(_FOUR, _KIND_COUNT):
        held = hand[rank]
        # A rank offers nothing without cards of it in hand, unless wild cards can join its meld.
        if not held and joker_limit == 1 and deuce_limit == 1:
            continue
        old_naturals, old_jokers, old_deuces = melds[rank]
        if old_naturals or old_jokers or old_deuces:
            lowest = 0
        elif held < 2:
            continue
        else:
            lowest = 2
        old_wilds = old_jokers + old_deuces
        for naturals in range(lowest, held + 1):
            total_naturals = old_naturals + naturals
            if not wild_ratio and total_naturals < 2:
                continue  # R9.1 without the ratio rule: a meld needs two naturals whatever its wild cards
            for jokers in range(joker_limit):
                # melds.meld_fits for a natural rank (R9.1, R9.2) as the range of deuces that fit (the listings'
                # hottest loop): total_naturals + wilds >= 3 and wilds <= melds.wild_limit for
                # wilds = old_wilds + jokers + deuces, and a shape lays a card.
                wilds = old_wilds + jokers
                low = 3 - total_naturals - wilds
                if low < 0:
                    low = 0
                if low == 0 and naturals + jokers == 0:
                    low = 1
                high = wild_limit(total_naturals, most_wilds, wild_ratio) - wilds
                if high > deuce_limit - 1:
                    high = deuce_limit - 1
                for deuces in range(low, high + 1):
                    laid = naturals + jokers + deuces
                    # single_group_meld, inlined: every candidate of every listing passes here.
                    move = None
                    if small and held < _TABLE_NATURALS:
                        move = table[((rank * 9 + naturals) * 5 + jokers) * 9 + deuces]  # _table_index's
                    if move is None:
                        move = single_group_meld(rank, naturals, jokers, deuces)
                    shapes.append(move)
                    if largest_first:
                        laids.append(laid)
                        if laid > last:
                            ordered = False
                        if laid > most:
                            most = laid
                        last = laid
    # The black 3, wild-card and joint going-out melds, after the natural ranks': each laid count read back.
    for move in _rare_melds(state, hand, melds, wild.wild_only, held_jokers, held_deuces):
        shapes.append(move)
        if largest_first:
            laid = len(move.groups[0].cards) if len(move.groups) == 1 else 2
            laids.append(laid)
            if laid > last:
                ordered = False
            if laid > most:
                most = laid
            last = laid
    if ordered:
        return shapes
    return _most_laid_first(shapes, laids, most)


def _rare_melds(
    state: HandState, hand: list[int], melds: list[list[int]], wild_only: bool, held_jokers: int, held_deuces: int
) -> list[Meld]:
    """The melds of :func:`_addition_melds` after the natural ranks', in listing order: black 3s (melded only by a
    player going out, in a meld of three or four: R5.3, R9.8), with ``wild_only`` (``allow_wild_only_melds``) wild
    cards alone, then the joint going-out melds of a two-card hand (:func:`_joint_going_out_melds`).

    The black 3 groups are new melds, or, once the side has laid black 3s (only this turn, to go out), the black 3s
    that meld can still take.  Cheap guards keep the rare searches off the common path: the meld of black 3s is read
    only for a hand holding one, and joint melds are sought only for a hand of two when going out needs more than
    one canasta."""
    black_threes = hand[_BLACK_THREE]
    laid_threes = melds[_BLACK_THREE][0] if black_threes else 0
    found = []
    if laid_threes:
        for naturals in range(1, min(black_threes, 4 - laid_threes) + 1):
            found.append(single_group_meld(BLACK_THREE, naturals, 0, 0))
    else:
        for naturals in range(3, 5):
            if black_threes >= naturals:
                found.append(single_group_meld(BLACK_THREE, naturals, 0, 0))
    if wild_only:
        for jokers in range(held_jokers + 1):
            for deuces in range(held_deuces + 1):
                if jokers + deuces:
                    found.append(single_group_meld(WILD_RANK, 0, jokers, deuces))
    if state.hand_sizes[state.seat] == 2 and state.rules.canastas_to_go_out > 1:
        found += _joint_going_out_melds(state, hand, melds)
    return found


def _joint_going_out_melds(state: HandState, hand: list[int], melds: list[list[int]]) -> list[Meld]:
    """The joint going-out melds of a two-card ``hand``: its cards as two single-card groups on two of the side's
    ``melds``, laid at once, where neither group may be laid alone, in listing order (each meld's groups, and the
    melds, ordered by rank, 4 to A, then black 3s, then wild cards only, and then by their cards).

    Under ``canastas_to_go_out`` of 2 or more, two last cards that each complete a canasta still needed go out only
    together: either alone would keep the other to discard with a canasta short (R6.4, R12.1).  These are the only
    legal melds that single groups laid one after another cannot reach (``docs/env.md``, the bijection): a group of
    a larger hand that may not go alone leaves the other groups three cards or more, which may.  Whether a group may
    go alone is judged (``can_meld``); the meld itself is only a candidate, judged by the caller.
    """
    choices = []  # per card held: the single-card groups it could be, on a meld the side holds (R9.6)
    for kind in range(KIND_COUNT):
        count = hand[kind]
        if not count:
            continue
        groups = []
        for rank in _SLOT_ORDER:
            meld = melds[rank]
            if not (meld[0] or meld[1] or meld[2]):
                continue
            if kind == JOKER or kind == TWO:
                if rank != BLACK_THREE:  # R5.4: no wild card joins black 3s
                    groups.append(single_group_meld(rank, 0, int(kind == JOKER), int(kind == TWO)))
            elif rank == kind:
                groups.append(single_group_meld(rank, 1, 0, 0))
        if not groups:
            return []  # a card with no meld to join: no meld lays the whole hand as single cards
        choices += [groups] * count
    found = []
    for first in choices[0]:
        for second in choices[1]:
            # Two groups of one rank are one group, which the single groups list; each pair is found in slot order.
            if _SLOT_ORDER.index(first.groups[0].rank) < _SLOT_ORDER.index(second.groups[0].rank):
                pair = (first, second)
            elif first.groups[0].rank != second.groups[0].rank:
                pair = (second, first)
            else:
                continue
            if pair in found or state.can_meld(first) or state.can_meld(second):
                continue
            found.append(pair)
    found.sort(key=_pair_order)
    return [Meld((pair[0].groups[0], pair[1].groups[0])) for pair in found]


_SLOT_ORDER = (*range(FOUR, KIND_COUNT), BLACK_THREE, WILD_RANK)
"""The ranks in the order listings give a meld's groups: 4 to A, black 3s, wild cards only (the opening's order)."""


def _pair_order(pair: tuple[Meld, Meld]) -> tuple:
    """A pair of single-group melds' place in :func:`_joint_going_out_melds`' listing: by the first group's rank
    (slot order), naturals, jokers and deuces, then the second's (the research environments' action order)."""
    key = []
    for meld in pair:
        group = meld.groups[0]
        key += [_SLOT_ORDER.index(group.rank), len(group.cards) - group.jokers - group.deuces, group.jokers,
                group.deuces]
    return tuple(key)


def _most_laid_first(shapes: list[Meld], laids: list[int], most: int) -> list[Meld]:
    """``shapes`` ordered by the hand cards each lays (``laids``, at most ``most``), most first, ties in their order
    (a stable sort: one pass per count laid over a listing of a few candidates, no list per count)."""
    ordered = []
    size = len(shapes)
    for count in range(most, -1, -1):
        for index in range(size):
            if laids[index] == count:
                ordered.append(shapes[index])
    return ordered


@cython.locals(state=HandState, kind=Count)  # its checks and _list as C calls where compiled
def legal_discards(state: HandState) -> Iterator[Discard]:
    """Yield one legal discard per kind in hand, the highest kind first."""
    if state.phase != PLAY:
        return _NOTHING
    seat = state.seat
    hand = _as_list(state.hands[seat])  # typed where compiled: each kind's count read with the list's indexing
    if state.must_stop or state.hand_sizes[seat] < 2 or state.answer is True:
        return _checked_discards(state, hand)
    # R6.1, R6.3: while a card stays in hand after the discard and no yes obliges going out (R12.5), every kind
    # held may go: what verify_discard answers for each, here without a check per kind.
    moves = []
    for kind in range(KIND_COUNT - 1, -1, -1):
        if hand[kind]:
            move = _DISCARDS[kind]
            state._list_keyed(move, _DISCARD_KEYS[kind])
            moves.append(move)
    return iter(moves)


def _checked_discards(state: HandState, hand: list[int]) -> Iterator[Discard]:
    """:func:`legal_discards` when a discard may end the hand or is refused (R12, R13.1): each kind checked."""
    candidates = [_DISCARDS[kind] for kind in range(KIND_COUNT - 1, -1, -1) if hand[kind]]
    return _Checked(state, iter(candidates), False)


def _shape_group(shape: tuple[int, int, int, int]) -> MeldGroup:
    """``MeldGroup.of(*shape)``: the group of :func:`single_group_meld`'s record, shared, not built again."""
    return single_group_meld(shape[0], shape[1], shape[2], shape[3]).groups[0]
