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
  player can take the pile with it (R8.2) times what the pile is worth, plus its worth in hand.
* :func:`opening` finds the cheapest initial meld reaching a minimum (R10.1-R10.3, R10.5).
* :func:`first_legal_meld` finds a meld to lay after the initial meld, checked with ``view.can``.
* :func:`first_legal` picks the first legal move of a listing (``view.meld_candidates(True)``, say).
"""

from __future__ import annotations

from canasta_sim.core.cards import ACE, BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.core.legal import single_group_meld
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import Discard, Draw, Meld, MeldGroup, TakePile

__all__ = ["CardMemory", "DiscardCosts", "DiscardRisk", "first_legal", "first_legal_meld", "opening"]

_COPIES = 8  # R1.1: two packs, so eight cards of each natural rank
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

    def turn_risk(self, view, hand: tuple[int, ...], hand_number: int, turn: int) -> DiscardRisk:
        """The :class:`DiscardRisk` of turn ``turn`` of hand ``hand_number`` for ``hand``, the seat's hand in
        ``view`` now: read once a turn and kept, then brought up to date after the seat's own melds (within a
        turn what the seat sees changes only by them, and they change its hand).  A copy keeps none."""
        risk = self.risk
        if risk is not None and self.risk_turn == turn and self.risk_hand_number == hand_number:
            before = self.risk_hand
            if before == hand:
                return risk
            risk.update_own_melds(view, before, hand)
        else:
            risk = DiscardRisk(self, view)
            self.risk = risk
            self.risk_hand_number = hand_number
            self.risk_turn = turn
        self.risk_hand = hand
        return risk

    def observe(self, event) -> None:
        """Remember one public event: a discard, a draw, a pile take or a meld (ask, answer and stop change
        nothing remembered)."""
        move = event.move
        seat = event.seat
        move_type = type(move)
        if move_type is not Discard and move_type is not Draw and move_type is not Meld and move_type is not TakePile:
            # A subclass of a move record is remembered as its record; ask, answer and stop change nothing.
            move_type = next((base for base in _REMEMBERED if isinstance(move, base)), None)
        if move_type is Discard:
            _remember_discard(self, seat, move.card)
        elif move_type is Draw:
            _remember_draw(self, seat)
        elif move_type is Meld:
            _remember_meld(self, seat, move.groups)
        elif move_type is TakePile:
            _remember_take(self, seat, move)


_REMEMBERED = (Discard, Draw, Meld, TakePile)
"""The moves a :class:`CardMemory` remembers, by record class (the move classes are siblings)."""


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
        self.hand = None
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


class DiscardRisk:
    """What scoring a discard reads from the view and a :class:`CardMemory`, gathered once for a turn.

    ``DiscardRisk(memory, view)`` reads the seat's hand and the table as the view shows them now.  Within
    a turn the table changes only by the seat's own melds: :meth:`update_own_melds` brings it up to date
    after them.  Its figures: ``pile_size`` and ``pile_worth`` (what taking the pile is worth, about),
    ``our_melds`` and ``their_melds`` (the sides' melds, as ``view.melds``), ``our_ranks`` and
    ``their_ranks`` (the same as bit masks by rank), whether each side has melded (``we_melded``,
    ``opponents_melded``), ``taker`` (the next seat, always an opponent, R2.1), ``taker_avoids``,
    ``frozen`` (R8.1b, or the taker's side has not melded, R8.1c), ``hand_may_end`` (an opponent may go out
    before this seat's next turn, R12.1), ``share`` (the share of the unseen cards the taker holds) and
    ``wild_chance`` (the chance it holds a wild card).
    """

    __slots__ = (
        "memory", "side", "pile_size", "pile_worth", "opponents_melded", "opponent_meld_count", "we_melded",
        "our_melds", "hand_may_end", "taker", "their_melds", "taker_melded", "frozen", "seen", "share",
        "wild_chance", "our_ranks", "their_ranks", "taker_avoids", "kept", "chances_known", "none_chances",
        "one_chances",
    )

    def __init__(self, memory: CardMemory, view) -> None:
        self.memory = memory
        self.kept = None
        self.chances_known = 0
        self.none_chances = [0.0] * 9  # by unseen count, 0 to _COPIES
        self.one_chances = [0.0] * 9
        _read_risk(self, memory, view, view.snapshot())

    def update_own_melds(self, view, before: tuple[int, ...], after: tuple[int, ...]) -> None:
        """Bring the figures up to date after this seat melded from hand ``before`` to ``after`` this turn.

        A natural card melded from hand still counts once in ``seen`` (its meld instead of the hand), and a
        wild one once in ``wild_chance``; what changes is the side's melds, whether it has melded, and the
        wild cards ``seen`` counts, which are those in hand.
        """
        side = self.side
        our_melds = view.melds(side)
        self.our_melds = our_melds
        self.we_melded = True if our_melds else view.has_melded(side)  # see _read_risk
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

    def costs(self, hand, freeze: float) -> DiscardCosts:
        """The :class:`DiscardCosts` of ``hand`` (a count vector by kind); ``freeze`` (0 to 3) weighs how
        readily a wild card is discarded to freeze a pile the opponents could take (R8.1b).  The last
        answer for a tuple is kept: asking again for an equal tuple returns it."""
        kept = self.kept
        if kept is not None and kept.freeze == freeze and (kept.hand is hand or kept.hand == hand):
            return kept
        costs = DiscardCosts()
        costs.hand = hand
        costs.freeze = freeze
        _discard_costs(costs, self, self.memory, hand, freeze)
        if type(hand) is tuple:
            self.kept = costs
        return costs


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
    # A side with a meld on the table has melded (R10: melds stay down all hand).
    opponent_melds = view.melds(opponents)
    opponents_melded = True if opponent_melds else view.has_melded(opponents)
    risk.opponents_melded = opponents_melded
    risk.opponent_meld_count = len(opponent_melds)
    our_melds = view.melds(side)
    risk.we_melded = True if our_melds else view.has_melded(side)
    risk.our_melds = our_melds
    taker = (me + 1) % 4
    risk.taker = taker
    risk.their_melds = opponent_melds  # the next seat is always an opponent (R2.1)
    risk.taker_melded = opponents_melded
    risk.frozen = memory.pile_freezers > 0 or not opponents_melded
    # Cards of each kind out of the taker's reach or accounted for, and the wild cards among them.
    risk.seen = list(hand)
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
        chance = 1.0  # R8.2c.3: a lay-off needs nothing from hand
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


def opening(rules, hand, minimum: int, forced: int | None, keep: int, hand_size: int):
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
        value, wilds = _fill_subset(jokers, deuces, forced_table, forced_value, most_wilds, wild_ratio, minimum, size, counts,
                                    points, mask, placed)
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
    _fill_subset(jokers, deuces, forced_table, forced_value, most_wilds, wild_ratio, minimum, size, counts, points, best_mask,
                 placed)
    return _opening_groups(hand, forced, size, ranks, counts, placed, best_mask)


def _opening_groups(hand, forced, size: int, ranks, counts, placed, mask: int) -> tuple:
    """The groups of the opening ``mask`` with ``placed`` wild cards, jokers first slot by slot."""
    joker_left = hand[JOKER]
    forced_group = None
    if forced is not None:
        wilds = placed[0]
        use_jokers = joker_left if joker_left < wilds else wilds
        joker_left -= use_jokers
        forced_group = MeldGroup.of(forced, hand[forced], use_jokers, wilds - use_jokers)
    groups = []
    for index in range(size):
        if mask >> index & 1:
            wilds = placed[index + 1]
            use_jokers = joker_left if joker_left < wilds else wilds
            joker_left -= use_jokers
            groups.append(MeldGroup.of(ranks[index], counts[index], use_jokers, wilds - use_jokers))
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
        limit = _wild_limit(count, most_wilds, wild_ratio)
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


def _wild_limit(naturals: int, most_wilds: int, wild_ratio: bool) -> int:
    """R9.2: the wild cards a meld of a natural rank with ``naturals`` natural cards may hold, where
    ``most_wilds`` is ``rules.max_wilds_per_meld`` and ``wild_ratio`` whether ``rules.wild_ratio_rule`` is
    ``"no_more_wild_than_natural"``."""
    if wild_ratio:
        return most_wilds if most_wilds < naturals else naturals
    return most_wilds if naturals >= 2 else 0


def first_legal_meld(view, hand, discard: int, budget: int, melds: dict, hand_may_end: bool):
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
        room = _wild_limit(naturals, most_wilds, wild_ratio) - jokers - deuces
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
        room = _wild_limit(naturals, most_wilds, wild_ratio) - jokers - deuces
        # A natural meld waits for naturals (R11.2: 500, not 300) unless a wild card is spare.
        worth_it = ours == 0 or jokers + deuces or hand_may_end or need == 1 or wilds > need
        if 0 < need and need <= wilds and need <= room and need <= budget and worth_it:
            use_jokers = jokers_in_hand if jokers_in_hand < need else need
            move = single_group_meld(rank, 0, use_jokers, need - use_jokers)
            if view.can(move):
                return move
    return None


def first_legal(view, moves):
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
            groups = move.groups
            if len(groups) == 1:
                if size < 0:
                    size = sum(view.hand)
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
