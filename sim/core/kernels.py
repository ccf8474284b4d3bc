"""Fast helpers a strategy can build on: card memory, discard risk, opening and meld searches.

Every function and class here works on what a seat may know: count vectors by kind (see
:mod:`canasta_sim.core.cards`), the public events :meth:`~canasta_sim.core.strategy.Strategy.on_event`
receives, and the :class:`~canasta_sim.core.view.SeatView`.  They are compiled with the rules engine
(this module's types are declared in ``kernels.pxd``), so a plain-Python strategy that calls them runs
its inner loops at the engine's speed.  The built-in ``expert`` is written on top of them.

* :class:`CardMemory` follows the public events of one hand: the discard pile, what each seat is known
  to hold (the cards it picked up with a pile and has not laid since) and the ranks it avoids.
* :class:`DiscardRisk` gathers, once per turn, what scoring a discard reads: the pile's worth, the
  ranks each side has melded, the cards out of the next player's reach and the share of the unseen
  cards it holds.  :meth:`DiscardRisk.costs` scores every kind in a hand: the chance that the next
  player can take the pile with it (R8.2) times what the pile is worth, plus its worth in hand;
  :meth:`DiscardCosts.cheapest_legal` picks the cheapest discard the view accepts, in one call.
* :func:`opening` finds the cheapest initial meld reaching a minimum (R10.1-R10.3, R10.5),
  :func:`first_legal_meld` a meld to lay after the initial meld, and :func:`first_legal` the first legal
  move of a listing (``view.meld_candidates(True)``, say): the meld searches, kept in
  :mod:`canasta_sim.core.meld_planning` and exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.core.meld_planning import first_legal, first_legal_meld, opening
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, Move, Stop, TakePile
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.core.view import SeatView, Snapshot

try:
    import cython
except ImportError:  # plain Python without Cython: the directives below do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = ["CardMemory", "DiscardCosts", "DiscardRisk", "first_legal", "first_legal_meld", "opening"]

_COPIES = 8  # R1.1: two packs, so eight cards of each natural rank
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""
_WILDS_IN_DECK = 12  # R1.2: four jokers and eight deuces


class CardMemory:
    """What a seat can remember of one hand from its public events (R2.4: only the next seat takes the pile).

    Start one per hand with the upcards of the pile (``view.pile`` at ``on_hand_start``) and pass it every
    event with :meth:`observe`.  ``known_counts[seat * KIND_COUNT + kind]`` counts the cards ``seat`` is
    known to hold (those it picked up with a pile and has not laid since), ``known_totals[seat]`` their sum,
    ``avoided[seat]`` the ranks it discarded or declined to take as a bit mask by kind (it probably holds no
    pair of them), ``side_melded[side]`` whether a side has melded, ``pile`` the pile's kinds bottom first
    and ``pile_freezers`` the wild cards and red 3s in it (R8.1b).
    """

    __slots__ = (
        "pile", "pile_freezers", "known_counts", "known_totals", "avoided", "side_melded", "risk", "risk_hand",
        "risk_hand_number", "risk_turn",
    )

    def __init__(self, pile: tuple[int, ...] = ()) -> None:
        self.risk = self.risk_hand = None
        self.risk_hand_number = 0
        self.risk_turn = -1  # no turn yet
        self.pile = list(pile)
        self.pile_freezers = sum([1 for kind in pile if kind <= TWO or kind == RED_THREE])
        self.known_counts = [0] * 60  # 4 seats x KIND_COUNT kinds: a fixed size, a C array where compiled
        self.known_totals = [0, 0, 0, 0]
        self.avoided = [0, 0, 0, 0]
        self.side_melded = [False, False]

    @property
    def known(self) -> list[list[int]]:
        """Cards each seat is known to hold, a count vector by kind per seat (a fresh list of lists)."""
        return [[self.known_counts[seat * KIND_COUNT + kind] for kind in range(KIND_COUNT)] for seat in range(4)]

    @property
    def avoids(self) -> list[set[int]]:
        """Ranks each seat discarded or declined to take: it probably holds no pair of them (fresh sets)."""
        return [{kind for kind in range(KIND_COUNT) if self.avoided[seat] >> kind & 1} for seat in range(4)]

    def copy(self) -> CardMemory:
        """An independent copy: what another player would remember had it watched the same hand."""
        other = CardMemory()
        other.pile = list(self.pile)
        other.pile_freezers = self.pile_freezers
        other.known_counts = list(self.known_counts)
        other.known_totals = list(self.known_totals)
        other.avoided = list(self.avoided)
        other.side_melded = list(self.side_melded)
        return other

    def turn_risk(self, view: SeatView, snapshot: Snapshot) -> DiscardRisk:
        """This turn's :class:`DiscardRisk` for the seat's hand, from ``snapshot``, what ``view.snapshot()``
        returned now: read once a turn and kept, then brought up to date after the seat's own melds (within a
        turn what the seat sees changes only by them, and they change its hand).  The memory keeps one risk and
        reads it afresh each turn, so a risk it returned on an earlier turn reads this turn's figures.  A copy
        keeps none."""
        hand = snapshot[0]
        hand_number = snapshot[1]
        turn = snapshot[2]
        risk = self.risk
        if risk is not None and self.risk_turn == turn and self.risk_hand_number == hand_number:
            before = self.risk_hand
            if _equal_counts(before, hand):
                return risk
            risk.update_own_melds(view, before, hand)
        else:
            if risk is None:
                # Allocated once a hand, not once a turn: a turn's reading fills it in place.
                risk = DiscardRisk.__new__(DiscardRisk)
                _new_risk(risk)
                self.risk = risk
            _start_risk(risk, self, view, snapshot)
            self.risk_hand_number = hand_number
            self.risk_turn = turn
        self.risk_hand = hand
        return risk

    def observe(self, event: PublicEvent) -> None:
        """Remember one public event: a discard, a draw, a pile take or a meld (ask, answer and stop change
        nothing remembered)."""
        self.follow(event.seat, event.move)

    def follow(self, seat: int, move: Move) -> None:
        """Remember ``move``, made by ``seat``: :meth:`observe` of the event ``PublicEvent(seat, move)``.

        The engine calls it itself, with no event built, for a memory a strategy names as its
        :meth:`~canasta_sim.core.strategy.Strategy.event_follower`."""
        move_type = type(move)
        if move_type is not Discard and move_type is not Draw and move_type is not Meld and move_type is not TakePile:
            if move_type is Ask or move_type is Answer or move_type is Stop:
                return
            # A subclass of a move record is remembered as its record; ask, answer and stop change nothing.
            move_type = _remembered_type(move)
        # The record typed once its class is known: compiled, its field is then read as a C member.
        if move_type is Discard:
            discard = move
            _remember_discard(self, seat, discard.card)
        elif move_type is Draw:
            _remember_draw(self, seat)
        elif move_type is Meld:
            meld = move
            _remember_meld(self, seat, meld.groups)
        elif move_type is TakePile:
            _remember_take(self, seat, move)


_REMEMBERED = (Discard, Draw, Meld, TakePile)
"""The moves a :class:`CardMemory` remembers, by record class (the move classes are siblings)."""


def _remembered_type(move) -> type | None:
    """The record class of those :class:`CardMemory` remembers that ``move`` is an instance of, or ``None``."""
    return next((base for base in _REMEMBERED if isinstance(move, base)), None)


def _remember_discard(memory: CardMemory, seat: int, kind: int) -> None:
    """``seat`` discarded ``kind``: it tops the pile, and the seat probably holds no pair of its rank."""
    memory.pile.append(kind)
    if kind <= TWO:
        memory.pile_freezers += 1  # R8.1b
    if memory.known_totals[seat]:  # else the seat holds no known card, of this kind or any
        index = seat * KIND_COUNT + kind
        if memory.known_counts[index]:
            memory.known_counts[index] -= 1
            memory.known_totals[seat] -= 1
    memory.avoided[seat] |= 1 << kind


def _remember_draw(memory: CardMemory, seat: int) -> None:
    """``seat`` drew from the stock: having melded, it declined a natural top card it lacked a pair of."""
    pile = memory.pile
    if pile and memory.side_melded[seat & 1]:
        top = pile[len(pile) - 1]
        if top >= FOUR:
            memory.avoided[seat] |= 1 << top


def _remember_take(memory: CardMemory, seat: int, move: TakePile) -> None:
    """``seat`` took the pile: it holds the cards under the top one, less those it laid with the take."""
    base = seat * KIND_COUNT
    avoided = memory.avoided[seat]
    pile = memory.pile
    added = 0
    for index in range(len(pile) - 1):
        kind = pile[index]
        if kind != RED_THREE:
            memory.known_counts[base + kind] += 1
            added += 1
            avoided &= ~(1 << kind)
    memory.avoided[seat] = avoided
    added -= _forget_played(memory, base, move.cards)
    for group in move.extra:
        added -= _forget_played(memory, base, group.cards)
    memory.known_totals[seat] += added
    memory.pile = []
    memory.pile_freezers = 0
    memory.side_melded[seat & 1] = True


def _remember_meld(memory: CardMemory, seat: int, groups: tuple) -> None:
    """``seat`` melded ``groups``: the cards it laid are no longer in its hand."""
    if memory.known_totals[seat]:  # else the seat holds no known card, and there is nothing to forget
        base = seat * KIND_COUNT
        for group in groups:
            memory.known_totals[seat] -= _forget_played(memory, base, group.cards)
    memory.side_melded[seat & 1] = True


def _forget_played(memory: CardMemory, base: int, cards: tuple[int, ...]) -> int:
    """A seat laid ``cards``: those it was known to hold (counted from ``base`` in ``known_counts``) are no
    longer in its hand.  Returns how many those were."""
    forgotten = 0
    for kind in cards:
        if memory.known_counts[base + kind]:
            memory.known_counts[base + kind] -= 1
            forgotten += 1
    return forgotten


class DiscardCosts:
    """The cost of discarding each kind of one hand against one :class:`DiscardRisk` (see
    :meth:`DiscardRisk.costs`): the chance that the next player can take the pile with it times what the
    pile is worth, plus what the card is worth in hand.

    ``present`` is a bit mask of the kinds in hand, ``cheapest`` the first kind of the lowest cost (-1 for
    an empty hand) and ``lowest`` that cost.
    """

    __slots__ = ("hand", "freeze", "present", "cheapest", "lowest", "costs")

    def __init__(self) -> None:
        self.hand: Sequence[int] | None = None
        self.freeze = 0.0
        self.present = 0
        self.cheapest = -1
        self.lowest = 0.0
        self.costs = [0.0] * 15  # KIND_COUNT costs: a fixed size, a C array where compiled

    def cost(self, kind: int) -> float:
        """The cost of discarding ``kind`` (0.0 for a kind not in hand)."""
        if not 0 <= kind < KIND_COUNT:
            raise ValueError(f"kind must be from 0 to {KIND_COUNT - 1}, not {kind!r}")
        return self.costs[kind]

    def cheapest_kind(self) -> int:
        """The kind of ``min`` of the ``(cost, kind)`` pairs (the first kind of the lowest cost)."""
        if self.cheapest < 0:
            raise ValueError("min() arg is an empty sequence")  # what min() of no pair raises
        return self.cheapest

    def pairs(self) -> list[tuple[float, int]]:
        """The ``(cost, kind)`` pairs of the kinds in hand, kinds rising."""
        return [(self.costs[kind], kind) for kind in range(KIND_COUNT) if self.present >> kind & 1]

    def order(self) -> list[tuple[float, int]]:
        """The ``(cost, kind)`` pairs cheapest first, equal costs by kind: ``sorted(self.pairs())``."""
        pairs = self.pairs()
        pairs.sort()
        return pairs

    def cheapest_legal(self, view: SeatView) -> Discard | None:
        """The discard of the cheapest kind that ``view.can`` accepts now, trying the kinds in :meth:`order`
        (cheapest first, equal costs by kind), or ``None`` when it accepts none of them (R6.1; R12.1 and R12.5
        refuse the last card or a discard that does not go out, R13.1 any discard).

        A discard decision's inner work in one call: the cheapest kind is checked first and is usually legal, so
        the order is built only when it is not.  The record returned is the very one checked, which the engine
        then applies without checking it again."""
        cheapest = self.cheapest
        if cheapest < 0:
            return None
        move = _DISCARDS[cheapest]
        if view.can(move):
            return move
        for pair in self.order():
            kind = pair[1]
            if kind != cheapest:
                move = _DISCARDS[kind]
                if view.can(move):
                    return move
        return None


class DiscardRisk:
    """What scoring a discard reads from the view and a :class:`CardMemory`, gathered once for a turn.

    ``DiscardRisk(memory, view)`` reads the seat's hand and the table as the view shows them now.  Within a turn the
    table changes only by the seat's own melds: :meth:`update_own_melds` brings it up to date after them.  Its figures:
    ``pile_size`` and ``pile_worth`` (what taking the pile is worth, about), ``our_melds`` and ``their_melds`` (the
    sides' melds, as ``view.melds``), ``our_ranks`` and ``their_ranks`` (the same as bit masks by rank), whether each
    side has melded (``we_melded``, ``opponents_melded``), ``taker`` (the next seat, always an opponent, R2.1),
    ``taker_avoids``, ``frozen`` (R8.1b, or the taker's side has not melded, R8.1c), ``hand_may_end`` (an opponent may
    go out before this seat's next turn, R12.1), ``share`` (the share of the unseen cards the taker holds) and
    ``wild_chance`` (the chance it holds a wild card).
    """

    __slots__ = (
        "memory", "side", "pile_size", "pile_worth", "opponents_melded", "opponent_meld_count", "we_melded",
        "_our_table", "_our_copy", "hand_may_end", "taker", "_their_table", "_their_copy", "taker_melded", "frozen",
        "seen", "share", "wild_chance", "our_ranks", "their_ranks", "taker_avoids", "kept", "chances_known",
        "none_chances", "one_chances",
    )
    # The figures the class's docstring names, for type checkers: set by _start_risk and _read_risk, not here.
    pile_size: int
    pile_worth: float
    our_ranks: int
    their_ranks: int
    we_melded: bool
    opponents_melded: bool
    taker: int
    taker_avoids: int
    frozen: bool
    hand_may_end: bool
    share: float
    wild_chance: float

    def __init__(self, memory: CardMemory, view: SeatView) -> None:
        _new_risk(self)
        _start_risk(self, memory, view, view.snapshot())

    @property
    def our_melds(self) -> dict[int, tuple[int, int, int]]:
        """This side's melds as ``view.melds(side)`` gave them when the figures were read: copied from the
        engine's shared table on the first reading (most turns never read it) and kept."""
        melds = self._our_copy
        if melds is None:
            melds = self._our_table.copy()
            self._our_copy = melds
        return melds

    @property
    def their_melds(self) -> dict[int, tuple[int, int, int]]:
        """The opponents' melds as ``view.melds`` gave them when the figures were read (copied on first reading)."""
        melds = self._their_copy
        if melds is None:
            melds = self._their_table.copy()
            self._their_copy = melds
        return melds

    def update_own_melds(self, view: SeatView, before: tuple[int, ...], after: tuple[int, ...]) -> None:
        """Bring the figures up to date after this seat melded from hand ``before`` to ``after`` this turn.

        A natural card melded from hand still counts once in ``seen`` (its meld instead of the hand), and a
        wild one once in ``wild_chance``; what changes is the side's melds, whether it has melded, and the
        wild cards ``seen`` counts, which are those in hand.
        """
        side = self.side
        our_melds = view._state.meld_table(side)  # see _read_risk
        self._our_table = our_melds
        self._our_copy = None
        self.we_melded = True if our_melds else view.has_melded(side)
        ranks = 0
        for rank in our_melds:
            ranks |= 1 << rank
        self.our_ranks = ranks
        self.seen[JOKER] += after[JOKER] - before[JOKER]
        self.seen[TWO] += after[TWO] - before[TWO]
        self.kept = None

    def seen_counts(self) -> list[int]:
        """Cards of each kind out of the next player's reach or accounted for: in hand, in the pile, on the
        table, known in another seat's hand (a fresh count vector by kind)."""
        return [self.seen[kind] for kind in range(KIND_COUNT)]

    def costs(self, hand: Sequence[int], freeze: float) -> DiscardCosts:
        """The :class:`DiscardCosts` of ``hand`` (a count vector by kind); ``freeze`` (0 to 3) weighs how
        readily a wild card is discarded to freeze a pile the opponents could take (R8.1b).  The last
        answer for a tuple is kept: asking again for an equal tuple returns it."""
        kept = self.kept
        if kept is not None and kept.freeze == freeze and _equal_counts(kept.hand, hand):
            return kept
        costs = DiscardCosts()
        costs.hand = hand
        costs.freeze = freeze
        _discard_costs(costs, self, self.memory, hand, freeze)
        if type(hand) is tuple:
            self.kept = costs
        return costs


# The sizes are compared first, so compiled the reads go unchecked.
@cython.boundscheck(False)
@cython.wraparound(False)
def _equal_counts(before, after) -> bool:
    """``before == after`` for two count vectors, answered place by place by identity where both are tuples holding
    the very same objects (a hand's counts are small integers, one object per value: what a view's snapshots of an
    unchanged hand hold), else by ``==``: in C, without a comparison call per count."""
    if before is after:
        return True
    if type(before) is tuple and type(after) is tuple:
        first = before
        second = after
        size = len(first)
        if len(second) == size:
            for index in range(size):
                if first[index] is not second[index]:
                    return before == after
            return True
    return before == after


def _new_risk(risk: DiscardRisk) -> None:
    """The counts a new risk holds, filled by each reading (C arrays compiled: set up once, never replaced)."""
    risk.seen = [0] * 15  # KIND_COUNT kinds: a fixed size, a C array where compiled
    risk.none_chances = [0.0] * 9  # by unseen count, 0 to _COPIES
    risk.one_chances = [0.0] * 9


def _start_risk(risk: DiscardRisk, memory: CardMemory, view, snapshot: tuple) -> None:
    """The body of the constructor after :func:`_new_risk`, and a turn's fresh reading: ``snapshot`` is
    ``view.snapshot()``."""
    risk.memory = memory
    risk.kept = None
    risk.chances_known = 0
    _read_risk(risk, memory, view, snapshot)


def _read_risk(risk: DiscardRisk, memory: CardMemory, view, snapshot: tuple) -> None:
    """Fill ``risk`` from the view's ``snapshot`` and melds and from the memory (the body of its constructor)."""
    hand = snapshot[0]
    pile_size = snapshot[5]
    sizes = snapshot[6]
    stock_count = snapshot[7]
    me = view.seat
    side = me & 1
    opponents = 1 - side
    risk.side = side
    risk.pile_size = pile_size
    risk.pile_worth = 40.0 + 25.0 * (pile_size + 1)
    # A side with a meld on the table has melded (R10: melds stay down all hand).  The engine's shared meld
    # tables are read, not copied: they are never changed, only replaced when the melds change, and nothing
    # here hands them out (our_melds and their_melds copy them when a strategy reads them).
    opponent_melds = view._state.meld_table(opponents)
    opponents_melded = True if opponent_melds else view.has_melded(opponents)
    risk.opponents_melded = opponents_melded
    risk.opponent_meld_count = len(opponent_melds)
    our_melds = view._state.meld_table(side)
    risk.we_melded = True if our_melds else view.has_melded(side)
    risk._our_table = our_melds
    risk._our_copy = None
    taker = (me + 1) % 4
    risk.taker = taker
    risk._their_table = opponent_melds  # the next seat is always an opponent (R2.1)
    risk._their_copy = None
    risk.taker_melded = opponents_melded
    risk.frozen = memory.pile_freezers > 0 or not opponents_melded
    # Cards of each kind out of the taker's reach or accounted for, and the wild cards among them.
    for kind in range(KIND_COUNT):
        risk.seen[kind] = hand[kind]
    wilds_seen = hand[JOKER] + hand[TWO]
    for kind in memory.pile:
        risk.seen[kind] += 1
        if kind == JOKER or kind == TWO:
            wilds_seen += 1
    ranks = 0
    for rank, meld in our_melds.items():
        naturals, jokers, deuces = meld
        risk.seen[rank] += naturals
        wilds_seen += jokers + deuces
        ranks |= 1 << rank
    risk.our_ranks = ranks
    risk.taker_avoids = memory.avoided[taker]
    opponents_canasta = False  # R12.1: an opponent may go out only with a canasta
    ranks = 0
    for rank, meld in opponent_melds.items():
        naturals, jokers, deuces = meld
        wild = jokers + deuces
        risk.seen[rank] += naturals
        wilds_seen += wild
        ranks |= 1 << rank
        if naturals + wild >= CANASTA_SIZE:
            opponents_canasta = True
    risk.their_ranks = ranks
    if not opponents_canasta and stock_count > 4:
        risk.hand_may_end = False
    else:
        risk.hand_may_end = min(sizes[opponents], sizes[opponents + 2]) <= 4 or stock_count <= 4
    _read_unseen(risk, memory, me, sizes, stock_count, wilds_seen)


def _read_unseen(risk: DiscardRisk, memory: CardMemory, me: int, sizes: tuple, stock_count: int,
                 wilds_seen: int) -> None:
    """The known cards of the other seats, the taker's share of the unseen cards and its wild-card chance."""
    taker = risk.taker
    unknown = stock_count
    for seat in range(4):
        if seat != me:
            unknown += sizes[seat]
    taker_total = 0
    for seat in range(4):
        if seat != me and memory.known_totals[seat]:  # most seats never took a pile
            base = seat * KIND_COUNT
            total = 0
            for kind in range(KIND_COUNT):
                count = memory.known_counts[base + kind]
                total += count
                risk.seen[kind] += count
            if seat == taker:
                taker_total = total
            unknown -= total
    taker_size = sizes[taker] - taker_total
    if taker_size < 0:
        taker_size = 0
    if unknown < 1:
        unknown = 1
    share = taker_size / unknown
    if not share < 1.0:
        share = 1.0
    risk.share = share
    wilds_unseen = _WILDS_IN_DECK - wilds_seen
    if wilds_unseen < 0:
        wilds_unseen = 0
    risk.wild_chance = 1.0 - (1.0 - share) ** wilds_unseen


def _discard_costs(result: DiscardCosts, risk: DiscardRisk, memory: CardMemory, hand, freeze: float) -> None:
    """Fill ``result`` with the cost of each kind in ``hand`` (see :class:`DiscardCosts`)."""
    wilds = hand[JOKER] + hand[TWO]
    present = 0
    cheapest = -1
    lowest = 0.0
    for kind in range(KIND_COUNT):
        count = hand[kind]
        if not count:
            continue
        if kind <= TWO or kind == BLACK_THREE:
            cost = _special_cost(risk, memory, kind, wilds, freeze)
        else:
            cost = _natural_cost(risk, memory, kind, count)
        result.costs[kind] = cost
        present |= 1 << kind
        if cheapest < 0 or cost < lowest:
            lowest = cost
            cheapest = kind
    result.present = present
    result.cheapest = cheapest
    result.lowest = lowest


def _natural_cost(risk: DiscardRisk, memory: CardMemory, kind: int, count: int) -> float:
    """The cost of discarding a natural ``kind`` held ``count`` times: the chance that the taker can take
    the pile with it (R8.2) times the pile's worth, plus its worth in hand."""
    if not risk.frozen and risk.their_ranks >> kind & 1:
        chance = 1.0  # R8.2c: a lay-off needs nothing from hand
    else:
        held = memory.known_counts[risk.taker * KIND_COUNT + kind]
        unseen = _COPIES - risk.seen[kind]
        if unseen < 0:
            unseen = 0
        if not risk.chances_known >> unseen & 1:
            # The chances that the taker holds none or one of the unseen cards of a kind, by their count.
            miss = 1.0 - risk.share
            risk.none_chances[unseen] = miss**unseen
            risk.one_chances[unseen] = unseen * risk.share * miss ** (unseen - 1 if unseen > 1 else 0)
            risk.chances_known |= 1 << unseen
        none = risk.none_chances[unseen]
        one = risk.one_chances[unseen]
        if held >= 2:
            chance = 1.0
        elif held == 1:
            chance = 1.0 - none
        else:
            chance = 1.0 - none - one
        if not risk.frozen:
            single = none if held == 1 else one if held == 0 else 0.0
            chance += single * risk.wild_chance  # R8.2c: a single and a wild card
        if held < 2 and risk.taker_avoids >> kind & 1:
            chance *= 0.3
        if not risk.taker_melded:
            chance *= 0.5  # it must also reach its initial minimum (R8.2e)
        if chance > 1.0:
            chance = 1.0
    value = KIND_VALUE[kind]
    penalty = value if risk.hand_may_end else 0
    if risk.our_ranks >> kind & 1:
        keep = 25.0 - penalty
    elif count >= 3:
        keep = 70.0 - penalty
    elif count == 2:
        keep = (55.0 if risk.we_melded else 65.0) - penalty  # a pair takes a frozen pile (R8.2b)
    else:
        keep = 4.0 + value / 5.0 - penalty
    return chance * risk.pile_worth + keep


def _special_cost(risk: DiscardRisk, memory: CardMemory, kind: int, wilds: int, freeze: float) -> float:
    """The cost of discarding a wild card (which freezes the pile, R8.1b) or a black 3 (which blocks it,
    R5.2); ``wilds`` is the wild cards in hand."""
    if kind == BLACK_THREE:
        return 12.0 if risk.pile_size < 5 else 1.0  # worth saving for a pile that matters
    # The more wild cards in hand, the less the last of them is worth keeping.
    cost = (260.0 if kind == JOKER else 130.0) / max(freeze, 0.01) / (1.0 + 0.4 * (wilds - 1))
    if not memory.pile_freezers and risk.pile_size >= 4 and risk.opponents_melded:
        # R8.1b: a frozen pile cannot be taken by a lay-off, only with a natural pair.
        ours = 0.6 if risk.we_melded else 1.0
        cost -= 0.5 * freeze * risk.pile_worth * min(1.0, risk.opponent_meld_count / 8.0) * ours
    return cost
