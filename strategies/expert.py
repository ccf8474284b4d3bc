"""``expert``: plays as a good club player does, from what its seat can see and remember.

What it does, decision by decision:

* **Acquire.** Takes the pile whenever it can do so cheaply (a lay-off on the side's meld or a
  natural pair), spends a wild card on an unfrozen pile only when the pile is worth it, and uses a
  pile take to reach its side's initial minimum (R8.2e, R10.5) whenever the top card pairs up.
* **Initial meld.** Holds its cards until it can reach the side's minimum (R10.2), then opens with
  the fewest wild cards that reach it.
* **Melds.** Chooses its discard first and melds from the rest: adds naturals to the side's melds,
  lays natural triples, and spends wild cards to complete a canasta (keeping a natural meld natural
  unless a wild card is spare), to go out, or to shed points when the opponents may end the hand.
* **Going out.** Goes out as soon as it can, which takes the bonus and catches the opponents with
  their cards, except when its side is behind on canastas, the opponents are stuck with many cards
  and the stock is long: then it keeps building (see :meth:`Expert.wants_to_go_out`).  Reaching the
  target score ahead always goes out.  It asks the partner when the partner holds many cards, and
  answers "no" only when its own hand would cost a lot, could mostly be melded next turn, and the
  opponents are not about to go out.
* **Discard.** Scores every card by the chance that the next player can take the pile with it
  (from the opponents' melds, the cards it saw them pick up, what they discarded or declined, and
  how many of the rank are out of play) times what the pile is worth, plus what the card is worth
  in its own hand.  A wild card is discarded to freeze the pile (R8.1b) when every other card
  hands the opponents a big pile.

It remembers the table through :meth:`~canasta_sim.core.strategy.Strategy.on_event` only, so it sees exactly what
a player at the table sees.  Moves are built straight from the hand's count vector and checked with
``view.can(move)``; it never lists the legal melds, which keeps a game to a few tens of milliseconds.
"""

from __future__ import annotations

from canasta_sim.core.cards import ACE, BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, RED_THREE, TWO
from canasta_sim.core.legal import pile_take, single_group_meld
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Move, Stop, TakePile
from canasta_sim.core.parameters import Parameter
from canasta_sim.core.rules import Rules
from canasta_sim.core.strategy import PublicEvent, Strategy
from canasta_sim.core.view import SeatView

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["Expert"]

_DRAW = Draw()
_STOP = Stop()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""
_NATURALS = range(FOUR, ACE + 1)
_COPIES = 8  # R1.1: two packs, so eight cards of each natural rank
_WILDS_IN_DECK = 12  # R1.2: four jokers and eight deuces
_AVERAGE_CARD = 9  # mean penalty of an unseen card, for estimates of hands nobody may look at
_OPENING_RISK = 150.0  # a discard costing more than this after an initial meld: better wait a turn

# The record classes and their fields' slot descriptors: compiled, C globals (strategies/expert.pxd), and a field of
# a record of the descriptor's own class exactly is read from C instead of being looked up by name: a slot straight
# from its place in the record (_field, at the offset its descriptor gives), a view's property through its
# descriptor (_get).
_EVENT_TYPE = PublicEvent
_DRAW_TYPE = Draw
_DISCARD_TYPE = Discard
_MELD_TYPE = Meld
_TAKE_TYPE = TakePile
_ASK_TYPE = Ask
_ANSWER_TYPE = Answer
_STOP_TYPE = Stop
_GROUP_TYPE = MeldGroup
_EVENT_SEAT = PublicEvent.__dict__["seat"]
_EVENT_MOVE = PublicEvent.__dict__["move"]
_DISCARD_CARD = Discard.__dict__["card"]
_MELD_GROUPS = Meld.__dict__["groups"]
_TAKE_CARDS = TakePile.__dict__["cards"]
_TAKE_EXTRA = TakePile.__dict__["extra"]
_GROUP_CARDS = MeldGroup.__dict__["cards"]
_VIEW_TYPE = SeatView
_VIEW_HAND = SeatView.__dict__["hand"]
_VIEW_HAND_NUMBER = SeatView.__dict__["hand_number"]
_VIEW_TURN_COUNT = SeatView.__dict__["turn_count"]
_VIEW_PARTNER_ANSWER = SeatView.__dict__["partner_answer"]
_VIEW_PILE_TOP = SeatView.__dict__["pile_top"]
_VIEW_PILE_SIZE = SeatView.__dict__["pile_size"]
_VIEW_HAND_SIZES = SeatView.__dict__["hand_sizes"]
_VIEW_STOCK_COUNT = SeatView.__dict__["stock_count"]
_VIEW_RULES = SeatView.__dict__["rules"]
_RULES_TYPE = Rules
_MAX_WILDS = Rules.__dict__["max_wilds_per_meld"]
_WILD_RATIO = Rules.__dict__["wild_ratio_rule"]
# Compiled, where each slot's object is in its records (_offset checks that the descriptor is a slot's).
_EVENT_SEAT_AT = _offset(_EVENT_SEAT) if cython.compiled else 0  # noqa: F821 (strategies/expert.pxd)
_EVENT_MOVE_AT = _offset(_EVENT_MOVE) if cython.compiled else 0  # noqa: F821
_DISCARD_CARD_AT = _offset(_DISCARD_CARD) if cython.compiled else 0  # noqa: F821
_MELD_GROUPS_AT = _offset(_MELD_GROUPS) if cython.compiled else 0  # noqa: F821
_TAKE_CARDS_AT = _offset(_TAKE_CARDS) if cython.compiled else 0  # noqa: F821
_TAKE_EXTRA_AT = _offset(_TAKE_EXTRA) if cython.compiled else 0  # noqa: F821
_GROUP_CARDS_AT = _offset(_GROUP_CARDS) if cython.compiled else 0  # noqa: F821
_MAX_WILDS_AT = _offset(_MAX_WILDS) if cython.compiled else 0  # noqa: F821
_WILD_RATIO_AT = _offset(_WILD_RATIO) if cython.compiled else 0  # noqa: F821


class _Memory:
    """What the expert remembers of the current hand from public events (R2.4: only the next seat takes).

    What each seat is known to hold and the ranks it avoids are kept as C integers where compiled (a count
    per seat and kind, and a bit mask of ranks per seat): every event and every discard table reads and
    writes them without boxing an int or hashing into a set.  :attr:`known` and :attr:`avoids` give them as
    lists and sets.
    """

    __slots__ = (
        "pile",
        "pile_freezers",
        "known_counts",
        "known_totals",
        "avoided",
        "side_melded",
        "decided_hand",
        "decided_turn",
        "going_out",
        "table",
        "table_hand",
        "table_hand_number",
        "table_turn",
        "costs",
        "chances_share",
        "freeze",
        "chances_known",
        "none_chances",
        "one_chances",
    )

    def __init__(self, pile: tuple[int, ...] = ()) -> None:
        self.pile = list(pile)
        self.pile_freezers = sum(1 for kind in pile if kind <= TWO or kind == RED_THREE)
        if not cython.compiled:  # compiled, a C array, zero from the allocation
            self.known_counts = [0] * (4 * KIND_COUNT)
        """Cards each seat is known to hold, ``known_counts[seat * KIND_COUNT + kind]``: those it picked up with
        a pile and has not played since."""
        self.known_totals = [0, 0, 0, 0]
        """How many cards each seat is known to hold (the sum of its ``known``), kept up to date with it."""
        self.avoided = [0, 0, 0, 0]
        """Ranks each seat discarded or declined to take, a bit mask by kind: it probably holds no pair of them."""
        self.side_melded = [False, False]
        _forget_turn(self)

    @property
    def known(self) -> list[list[int]]:
        """Cards each seat is known to hold, a count vector by kind per seat (a fresh list of lists)."""
        return [[self.known_counts[seat * KIND_COUNT + kind] for kind in range(KIND_COUNT)] for seat in range(4)]

    @property
    def avoids(self) -> list[set[int]]:
        """Ranks each seat discarded or declined to take: it probably holds no pair of them (fresh sets)."""
        return [{kind for kind in range(KIND_COUNT) if self.avoided[seat] >> kind & 1} for seat in range(4)]

    def copy(self) -> _Memory:
        """An independent copy: what a fresh player would remember had it watched the same hand (its own
        decisions of the turn are not copied: the copy decides afresh)."""
        other = _Memory.__new__(_Memory)
        other.pile = list(self.pile)
        other.pile_freezers = self.pile_freezers
        other.known_counts = list(self.known_counts)
        other.known_totals = list(self.known_totals)
        other.avoided = list(self.avoided)
        other.side_melded = list(self.side_melded)
        _forget_turn(other)
        return other


def _forget_turn(memory: _Memory) -> None:
    """No turn decided yet, no discard table nor discard costs kept (see :func:`_turn_table`).

    The memory keeps the expert's answers of the current turn beside what it remembers of the hand:
    it is new each hand (and each play-out copy starts without them), and compiled every one is a C field
    of one object that each decision fetches once, instead of an attribute of the expert looked up by name.
    """
    memory.decided_hand = 0
    memory.decided_turn = -1  # turn_count is never negative: no turn matches
    memory.going_out = False
    memory.table = None
    memory.table_hand = None
    memory.table_hand_number = 0
    memory.table_turn = -1
    memory.costs = None
    # The chances _discard_costs computed for one share of the unseen cards, by their count (bit set: kept).
    memory.chances_share = -1.0  # no share: every share is at least 0
    memory.freeze = -1.0  # the expert's freeze parameter, not read yet (see _hand_costs)
    memory.chances_known = 0
    if not cython.compiled:  # compiled, C arrays
        memory.none_chances = [0.0] * (_COPIES + 1)
        memory.one_chances = [0.0] * (_COPIES + 1)


class _DiscardTable:
    """What a discard decision reads from the view and the memory, gathered once per turn.

    Scoring a discard looks at every kind in hand, and each look used to ask the view again for
    the same melds and counts; gathering them here first gives the same figures much faster, and
    :meth:`update_own_melds` keeps them true after the seat's own melds that turn.
    """

    __slots__ = (
        "pile_size",
        "pile_worth",
        "opponents_melded",
        "opponent_meld_count",
        "we_melded",
        "our_melds",
        "hand_may_end",
        "taker",
        "their_melds",
        "taker_melded",
        "frozen",
        "seen",
        "share",
        "wild_chance",
        "our_ranks",
        "their_ranks",
        "taker_avoids",
    )

    def __init__(self, expert: Expert, view, hand: tuple[int, ...] | None = None) -> None:
        _read_table(self, expert._memory, view, view.hand if hand is None else hand)

    def update_own_melds(self, view, before: tuple[int, ...], after: tuple[int, ...]) -> None:
        """Bring the table up to date after this seat melded from ``before`` to ``after`` this turn.

        A natural card melded from hand still counts once in ``seen`` (its meld instead of the
        hand), and a wild one once in ``wild_chance``; the pile, the other seats and the memory
        are as they were.  What changes is the side's melds, whether it has melded, and the wild
        cards ``seen`` counts, which are those in hand.
        """
        _update_table(self, view, before, after)


def _new_table(memory: _Memory, view, hand: tuple[int, ...]) -> _DiscardTable:
    """A table read from ``view`` and ``memory`` for ``hand`` (compiled: a C call, no Python-level __init__)."""
    table = _DiscardTable.__new__(_DiscardTable)
    _read_table(table, memory, view, hand)
    return table


def _read_table(table: _DiscardTable, memory: _Memory, view, hand: tuple[int, ...]) -> None:
    """Fill ``table`` from the view and the memory (the body of ``_DiscardTable.__init__``).

    Each read of the view is a call: every figure is read once.  The sides' melds are read with
    ``view.melds`` (a dict copy): compiled, a dict is walked in C, and the copy costs less than the
    read-only proxy ``view.meld_table`` builds.
    """
    joker, two = JOKER, TWO
    me = view._seat
    side = me & 1
    opponents = 1 - side
    if cython.compiled and type(view) is _VIEW_TYPE:  # through the properties' descriptors (see _choose_meld)
        pile_size = _get(_VIEW_PILE_SIZE, view)  # noqa: F821 (strategies/expert.pxd)
        sizes = _get(_VIEW_HAND_SIZES, view)  # noqa: F821
        stock_count = _get(_VIEW_STOCK_COUNT, view)  # noqa: F821
    else:
        pile_size = view.pile_size
        sizes = view.hand_sizes
        stock_count = view.stock_count
    table.pile_size = pile_size
    table.pile_worth = 40.0 + 25.0 * (pile_size + 1)
    # A side with a meld on the table has melded (R10: its initial meld laid it, and melds stay down all hand;
    # tests/core/test_invariants.py checks it): the view is asked whether a side has melded only when it has no meld.
    opponent_melds = view.melds(opponents)
    opponents_melded = True if opponent_melds else view.has_melded(opponents)
    table.opponents_melded = opponents_melded
    table.opponent_meld_count = len(opponent_melds)
    our_melds = view.melds(side)
    table.we_melded = True if our_melds else view.has_melded(side)
    table.our_melds = our_melds
    taker = (me + 1) % 4
    table.taker = taker
    # The next seat is always an opponent (R2.1: partners sit opposite).
    table.their_melds = opponent_melds
    table.taker_melded = opponents_melded
    table.frozen = memory.pile_freezers > 0 or not opponents_melded
    # Cards of each kind out of the next player's reach or already accounted for, and the wild
    # cards among them: in hand, in the pile, on the table.
    if not cython.compiled:
        table.seen = list(hand)  # plain Python: the hand's counts copied at once (compiled, a C array filled below)
    seen: cython.p_Py_ssize_t = table.seen  # compiled, a pointer to the table's C array: C integer sums
    if cython.compiled:
        for kind in range(KIND_COUNT):
            seen[kind] = hand[kind]
    wilds_seen = seen[joker] + seen[two]
    pile = memory.pile
    for kind in pile:
        seen[kind] += 1
        if kind == joker or kind == two:
            wilds_seen += 1
    # The ranks each side has melded and those the next seat avoids, as bit masks: each discard cost then
    # tests a bit instead of looking the rank up in a dict or a set.
    # Each meld's figures are read into C integers first (compiled), so that the sums are C sums.
    ranks = 0
    for rank, meld in our_melds.items():
        naturals = meld[0]
        jokers = meld[1]
        deuces = meld[2]
        seen[rank] += naturals
        wilds_seen += jokers + deuces
        ranks |= 1 << rank
    table.our_ranks = ranks
    table.taker_avoids = memory.avoided[taker]
    # Whether an opponent may go out before this seat's next turn (R12.1 needs them a canasta),
    # found in the same pass over their melds (SeatView.canasta_count counts the same).
    opponents_canasta = False
    ranks = 0
    for rank, meld in opponent_melds.items():
        naturals = meld[0]
        jokers = meld[1]
        deuces = meld[2]
        wild = jokers + deuces
        seen[rank] += naturals
        wilds_seen += wild
        ranks |= 1 << rank
        if naturals + wild >= CANASTA_SIZE:
            opponents_canasta = True
    table.their_ranks = ranks
    if not opponents_canasta and stock_count > 4:
        table.hand_may_end = False
    else:
        table.hand_may_end = min(sizes[opponents], sizes[opponents + 2]) <= 4 or stock_count <= 4
    unknown = stock_count  # and every other seat's cards (C sums of the sizes, compiled)
    for seat in range(4):
        if seat != me:
            count = sizes[seat]
            unknown += count
    taker_total = 0
    for seat in range(4):
        if seat != me:
            # Most seats never took a pile and hold no known card (memory.known_totals says which do).
            if memory.known_totals[seat]:
                base = seat * KIND_COUNT
                total = 0
                for kind in range(KIND_COUNT):
                    count = memory.known_counts[base + kind]
                    total += count
                    seen[kind] += count
                if seat == taker:
                    taker_total = total
                unknown -= total
    # Python's min(1.0, max(0, a) / max(1, b)) on C figures: the int quotient is the same IEEE double.
    taker_size = sizes[taker]
    taker_size -= taker_total
    if taker_size < 0:
        taker_size = 0
    if unknown < 1:
        unknown = 1
    share = taker_size / unknown
    if not share < 1.0:
        share = 1.0
    table.share = share
    wilds_seen = _WILDS_IN_DECK - wilds_seen
    if wilds_seen < 0:
        wilds_seen = 0
    table.wild_chance = 1.0 - (1.0 - share) ** wilds_seen


def _update_table(table: _DiscardTable, view, before, after) -> None:
    """The body of :meth:`_DiscardTable.update_own_melds`."""
    side = view._seat & 1
    our_melds = view.melds(side)
    table.our_melds = our_melds
    table.we_melded = True if our_melds else view.has_melded(side)  # see _read_table
    ranks = 0
    for rank in our_melds:
        ranks |= 1 << rank
    table.our_ranks = ranks
    joker, two = JOKER, TWO
    table.seen[joker] += after[joker] - before[joker]
    table.seen[two] += after[two] - before[two]


class Expert(Strategy):
    """The strongest built-in bot; see the module's description for how it plays.

    Parameters (``expert:aggression=0.7``):

    * ``aggression`` (0 to 1): how readily it goes out when behind on canastas against opponents stuck
      with many cards; 0 plays on more often, 1 nearly always goes out.
    * ``freeze`` (0 to 3): how readily it discards a wild card to freeze a dangerous pile; 0 never.
    * ``ask_cards`` (0 to 15): ask the partner before going out when the partner holds at least this many cards.
    * ``answer_cost`` (0 to 300): answer the partner "no" only when its own hand holds at least these points.
    * ``wild_take_pile`` (1 to 20): the smallest pile worth a wild card to take (one natural and one wild, R8.2c).
    """

    name = "expert"
    version = 1
    description = "Keeps pairs for the pile, freezes big piles, discards safely, times going out by score."
    # The ranges bound what specs accept and what `canasta-sim tune` explores.
    parameters = {
        "aggression": Parameter(0.5, low=0.0, high=1.0, step=0.01,
                                help="how readily it goes out when behind on canastas (0 plays on, 1 goes out)"),
        "freeze": Parameter(1.0, low=0.0, high=3.0, step=0.05,
                            help="how readily it discards a wild card to freeze a dangerous pile (0 never)"),
        "ask_cards": Parameter(5, low=0, high=15, step=1,
                               help="asks the partner before going out when the partner holds this many cards"),
        "answer_cost": Parameter(100, low=0, high=300, step=5,
                                 help="answers the partner no only when its own hand holds this many points"),
        "wild_take_pile": Parameter(4, low=1, high=20, step=1,
                                    help="the smallest pile worth a wild card to take (R8.2c)"),
    }

    # The memory in a slot: compiled, every decision and event of an Expert exactly reads it through the slot's
    # descriptor from C (_get) instead of looking it up by name in the instance's dict.
    __slots__ = ("_memory",)

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self._memory = _Memory()

    # ------------------------------------------------------------ hooks

    def on_hand_start(self, view) -> None:
        """Forget the last hand; remember the upcards of this one."""
        self._memory = _Memory(view.pile)

    def on_event(self, event: PublicEvent) -> None:
        """Remember discards, pile takes, melds and declined piles (R2.4: only the next seat takes)."""
        # Which record it is: the exact classes by identity first (isinstance walks a class's bases), then
        # isinstance in the same order for subclasses; the move classes are siblings.  Each kind of move updates
        # the memory in a function of its own (compiled, a C call).
        if not cython.compiled:
            move = event.move
            seat = event.seat
            memory = self._memory
        elif type(event) is _EVENT_TYPE:
            # The engine sends every seat's every move here: compiled, the fields of an event of the exact class are
            # read from their slots (_field, strategies/expert.pxd) instead of being looked up by name.
            move = _field(event, _EVENT_MOVE_AT, _EVENT_MOVE)  # noqa: F821 (inline C functions, strategies/expert.pxd)
            seat = _field(event, _EVENT_SEAT_AT, _EVENT_SEAT)  # noqa: F821
            memory = _memory_of(self)
        else:
            move = event.move
            seat = event.seat
            memory = _memory_of(self)
        move_type = type(move)
        if move_type is _DRAW_TYPE:
            _remember_draw(memory, seat)
        elif move_type is _DISCARD_TYPE:
            card = move.card if not cython.compiled else _field(move, _DISCARD_CARD_AT, _DISCARD_CARD)  # noqa: F821
            _remember_discard(memory, seat, card)
        elif move_type is _MELD_TYPE:
            _remember_meld(memory, seat, move)
        elif move_type is _TAKE_TYPE:
            _remember_take(memory, seat, move)
        elif move_type is _ASK_TYPE or move_type is _ANSWER_TYPE or move_type is _STOP_TYPE:
            return  # ask, answer and stop change nothing it remembers
        elif isinstance(move, Discard):
            _remember_discard(memory, seat, move.card)
        elif isinstance(move, Draw):
            _remember_draw(memory, seat)
        elif isinstance(move, TakePile):
            _remember_take(memory, seat, move)
        elif isinstance(move, Meld):
            _remember_meld(memory, seat, move)
        # ask, answer and stop change nothing it remembers

    # ------------------------------------------------------------ acquire

    def choose_acquire(self, view) -> Move:
        """Take the pile when it pays (R8.2), else draw; on an empty stock take it or stop (R13.3)."""
        take = _best_take(self, view)
        if take is not None:
            return take
        if view.stock_count:
            return _DRAW
        if view.can(_STOP):
            return _STOP
        return next(view.legal_acquires())  # R13.3 official: a compulsory take

    # ------------------------------------------------------------ going out

    def choose_ask(self, view) -> bool:
        """Ask when it wants to go out and either the rules demand it or the partner holds many cards."""
        if not _decide_turn(self, self._memory, view):
            return False
        if view.rules.ask_partner == "mandatory":
            return True
        return view.hand_sizes[view.partner] >= self.ask_cards

    def answer_go_out(self, view) -> bool:
        """Say no only when its own hand would cost a lot and the opponents cannot end the hand soon."""
        side = view.side
        opponents = 1 - side
        sizes = view.hand_sizes
        cost = view.hand_value()
        if cost < self.answer_cost or view.stock_count < 10:
            return True
        if view.canasta_count(opponents) and min(sizes[opponents], sizes[opponents + 2]) <= 4:
            return True
        if self._wins_game_now(view, side):
            return True
        hand = view.hand
        melds = view.melds(side)
        meldable = sum([hand[rank] for rank in _NATURALS if rank in melds or hand[rank] >= 3])
        meldable += hand[JOKER] + hand[TWO]
        # Most of the hand could go down on the next turn: waiting one turn is worth the points.
        return meldable * 2 < sum(hand)

    def wants_to_go_out(self, view) -> bool:
        """Whether going out now beats playing on (R12, R14).

        Going out takes the bonus, stops the opponents' scoring and charges them their cards, so
        it is the rule; the exception is a side behind on canastas while the opponents are stuck
        with many cards (they cannot go out soon) and the stock is long: then it keeps building.
        ``aggression`` sets how many cards count as stuck (4 at 0, 10 at 1).
        """
        side = view.side
        opponents = 1 - side
        if self._wins_game_now(view, side):
            return True
        sizes = view.hand_sizes
        their_fewest = min(sizes[opponents], sizes[opponents + 2])
        behind = view.canasta_count(side) < view.canasta_count(opponents)
        stuck = 4 + round(6 * self.aggression)
        return not (behind and their_fewest >= stuck and view.stock_count >= 15)

    def _wins_game_now(self, view, side: int) -> bool:
        target = view.rules.target_score
        ours = view.scores[side] + _table_score(view, side) - view.hand_sizes[view.partner] * _AVERAGE_CARD + 100
        theirs = view.scores[1 - side] + _table_score(view, 1 - side) - (
            view.hand_sizes[1 - side] + view.hand_sizes[3 - side]
        ) * _AVERAGE_CARD
        return ours >= target and ours > theirs

    def _decide_turn(self, view) -> None:
        _decide_turn(self, self._memory, view)

    # ------------------------------------------------------------ melds

    def choose_meld(self, view) -> Meld | None:
        """Go out when decided; otherwise open, add naturals, lay triples, complete canastas."""
        return _choose_meld(self, self._memory if not cython.compiled else _memory_of(self), view)

    # ------------------------------------------------------------ discard

    def choose_discard(self, view) -> Discard:
        """Discard the card that costs least: danger of feeding the pile plus its worth in hand."""
        return _choose_discard(self, self._memory if not cython.compiled else _memory_of(self), view)

    def _discard_table(self, view) -> _DiscardTable:
        """This turn's discard table for the hand in view (see :func:`_turn_table`)."""
        return _turn_table(self._memory, view, view.hand, view.hand_number, view.turn_count)

    def _discard_order(self, view, hand) -> list[tuple[float, int]]:
        return sorted(_cost_list(_hand_costs(self, self._memory, self._discard_table(view), hand)))

    def _cheapest_discard(self, view, hand, table: _DiscardTable | None = None) -> tuple[float, int]:
        """``min`` of the ``(cost, kind)`` pairs of ``hand``'s discards (see :func:`_discard_costs`)."""
        costs = _hand_costs(self, self._memory, table or self._discard_table(view), hand)
        kind = _cheapest_kind(costs)
        return costs.costs[kind], kind


_EXPERT_TYPE = Expert
_MEMORY = Expert.__dict__["_memory"]
_MEMORY_AT = _offset(_MEMORY) if cython.compiled else 0  # noqa: F821 (strategies/expert.pxd)


def _memory_of(expert: Expert) -> _Memory:
    """``expert._memory`` (compiled, from the slot for an Expert exactly: see Expert.on_event)."""
    if type(expert) is _EXPERT_TYPE:
        return _field(expert, _MEMORY_AT, _MEMORY)  # noqa: F821 (strategies/expert.pxd)
    return expert._memory


# ---------------------------------------------------------------- decisions, compiled as C calls
# The decisions' inner steps are module functions rather than methods: compiled, each is a C call on
# typed arguments (strategies/expert.pxd) instead of a method looked up by name and called through Python.


def _choose_meld(expert: Expert, memory: _Memory, view) -> Meld | None:
    """The body of :meth:`Expert.choose_meld` (compiled, with the memory and the view typed)."""
    # Compiled, a view of the exact class is read through its properties' descriptors (_get, strategies/expert.pxd)
    # instead of by name; deciding the turn changes none of these.
    if cython.compiled and type(view) is _VIEW_TYPE:
        hand_number = _get(_VIEW_HAND_NUMBER, view)  # noqa: F821 (an inline C function, strategies/expert.pxd)
        turn = _get(_VIEW_TURN_COUNT, view)  # noqa: F821
        answer = _get(_VIEW_PARTNER_ANSWER, view)  # noqa: F821
        hand = _get(_VIEW_HAND, view)  # noqa: F821
    else:
        hand_number = view.hand_number
        turn = view.turn_count
        answer = view.partner_answer
        hand = view.hand
    going_out = _decide_turn_of(expert, memory, view, hand_number, turn)
    size = sum(hand) if not cython.compiled else _card_count(hand)  # plain Python: the built-in, without a call
    if answer is True or (going_out and answer is None):
        if size <= 1:
            return None
        plan = view.going_out_plan()
        if plan is not None and plan[0]:
            move = Meld(plan[0])
            if view.can(move):
                return move
        if answer is True:
            return None
    # This turn's discard table, which the discard reads too: whether the side has melded is in it.
    table = _turn_table(memory, view, hand, hand_number, turn)
    if not table.we_melded:
        return _opening_meld(expert, memory, view, hand, size, table)
    budget = size - 2  # not going out: keep one card to discard and one to hold (R6.4)
    if budget <= 0:
        return None
    # Decide the discard first and meld from the rest, so that melding never leaves only
    # cards that would hand the next player the pile.
    discard = _cheapest_kind(_hand_costs(expert, memory, table, memory.table_hand))
    return _first_legal_meld(view, hand, discard, budget, table)


def _choose_discard(expert: Expert, memory: _Memory, view) -> Discard:
    """The body of :meth:`Expert.choose_discard` (compiled, with the memory and the view typed)."""
    if cython.compiled and type(view) is _VIEW_TYPE:  # through the properties' descriptors (see _choose_meld)
        hand = _get(_VIEW_HAND, view)  # noqa: F821 (strategies/expert.pxd)
        hand_number = _get(_VIEW_HAND_NUMBER, view)  # noqa: F821
        turn = _get(_VIEW_TURN_COUNT, view)  # noqa: F821
    else:
        hand = view.hand
        hand_number = view.hand_number
        turn = view.turn_count
    if (sum(hand) == 1) if not cython.compiled else _holds_one_card(hand):  # plain Python: as in _choose_meld
        for kind in range(KIND_COUNT):
            if hand[kind]:
                return Discard(kind)
    table = _turn_table(memory, view, hand, hand_number, turn)
    costs = _hand_costs(expert, memory, table, memory.table_hand)  # the table's hand: equal, and kept (see there)
    # The cheapest card is the first of the order and usually legal; then the order is not needed.
    cheapest = _cheapest_kind(costs)
    move = _DISCARDS[cheapest]
    if view.can(move):
        return move
    for _cost, kind in sorted(_cost_list(costs)):
        if kind != cheapest:
            move = _DISCARDS[kind]
            if view.can(move):
                return move
    return next(view.legal_discards())


def _best_take(expert: Expert, view) -> TakePile | None:
    """The pile take to make, or ``None`` to draw (see :meth:`Expert.choose_acquire`)."""
    exact = cython.compiled and type(view) is _VIEW_TYPE  # through the properties' descriptors (see _choose_meld)
    top = _get(_VIEW_PILE_TOP, view) if exact else view.pile_top  # noqa: F821 (strategies/expert.pxd)
    # A natural rank on top never blocks the pile (R8.1a, R5.2: only a wild card or a black 3 does), so
    # view.is_pile_blocked, False for every top it lets through, is not asked.
    if top is None or top < FOUR:
        return None
    kind = top
    hand = _get(_VIEW_HAND, view) if exact else view.hand  # noqa: F821
    side = view._seat & 1
    naturals = hand[kind]
    if not view.has_melded(side):
        if naturals < 2:
            return None  # R8.1c: frozen against an unmelded side, a natural pair is needed
        return _opening_take(view, hand, kind)
    # Each way is checked where it is found, in this order; the first legal one is taken.
    frozen = view.is_pile_frozen_for(side)
    # The side has a meld of the rank when it holds any card (view.meld_size: no copy of the melds built).
    if not frozen and view.meld_size(side, kind):
        move = _pile_take(kind, 0, 0, 0)  # R8.2c.3: lay the top card off, no hand card spent
        if view.can(move):
            return move
    if naturals >= 2:
        move = _pile_take(kind, naturals, 0, 0)
        if view.can(move):
            return move
    elif not frozen and naturals == 1 and view.pile_size >= expert.wild_take_pile:
        # The top card, its natural and a wild card: a deuce when there is one.
        if hand[TWO]:
            move = _pile_take(kind, 1, 0, 1)
        elif hand[JOKER]:
            move = _pile_take(kind, 1, 1, 0)
        else:
            return None
        if view.can(move):
            return move
    return None


def _opening_take(view, hand: tuple[int, ...], top: int) -> TakePile | None:
    """The pile take that makes the initial meld with the top card, or ``None`` (R8.2e, R10.5: the top card
    and the hand cards laid with the take must reach the minimum)."""
    found = _opening(view.rules, hand, view.requirement(view._seat & 1), top, 2, _card_count(hand) + view.pile_size - 1)
    if found is None:
        return None
    forced_group, extra = found
    move = TakePile(forced_group.cards, extra)
    return move if view.can(move) else None


def _decide_turn(expert: Expert, memory: _Memory, view) -> bool:
    """Decide once a turn whether to go out this turn (kept in ``memory.going_out``), and return it."""
    return _decide_turn_of(expert, memory, view, view.hand_number, view.turn_count)


def _decide_turn_of(expert: Expert, memory: _Memory, view, hand_number: int, turn: int) -> bool:
    """:func:`_decide_turn` for the turn ``turn`` of hand ``hand_number``, which the caller read from the view."""
    if hand_number == memory.decided_hand and turn == memory.decided_turn:
        return memory.going_out
    memory.decided_hand = hand_number
    memory.decided_turn = turn
    memory.going_out = view.going_out_plan() is not None and expert.wants_to_go_out(view)
    return memory.going_out


def _turn_table(memory: _Memory, view, hand: tuple[int, ...], hand_number: int, turn: int) -> _DiscardTable:
    """The discard table of ``hand`` in the turn ``turn`` of hand ``hand_number`` (what the view shows now).

    Within one turn the table this seat sees changes only by its own melds, which change its hand:
    the same turn and hand mean the same table, and a new hand only new melds of its own
    (:func:`_update_table`).  The memory is new each hand, so a table never outlives its hand.
    """
    table = memory.table
    if table is not None and memory.table_turn == turn and memory.table_hand_number == hand_number:
        before = memory.table_hand
        # Compiled, the same hand usually holds the very same count objects (small ints): compared by identity in C
        # first (_same_items), the generic comparison only when they differ.
        if not cython.compiled:
            same = before == hand
        else:
            same = (type(before) is tuple and type(hand) is tuple and _same_items(before, hand)  # noqa: F821
                    or before == hand)
        if same:
            return table
        _update_table(table, view, before, hand)
    else:
        table = _new_table(memory, view, hand)
        memory.table = table
        memory.table_hand_number = hand_number
        memory.table_turn = turn
    memory.table_hand = hand
    return table


def _card_count(hand) -> int:
    """``sum(hand)``, in C integers where compiled."""
    if not cython.compiled:
        return sum(hand)  # plain Python: the built-in's loop
    total = 0
    for count in hand:
        total += count
    return total


def _holds_one_card(hand) -> bool:
    """``sum(hand) == 1``, stopping at the second card where compiled (most hands hold it among their first kinds)."""
    if not cython.compiled:
        return sum(hand) == 1  # plain Python: the built-in's loop
    total = 0
    for count in hand:
        total += count
        if total > 1:
            return False
    return total == 1


def _opening_meld(
    expert: Expert, memory: _Memory, view, hand: tuple[int, ...], size: int, table: _DiscardTable
) -> Meld | None:
    """The initial meld (R10), keeping back a card that is safe to discard after it (``table``: this turn's)."""
    rules = view.rules
    minimum = view.requirement(view._seat & 1)
    usable = list(hand)
    usable[_cheapest_kind(_hand_costs(expert, memory, table, hand))] -= 1
    found = _opening(rules, usable, minimum, None, 1, size - 1)
    if found is None:
        found = _opening(rules, hand, minimum, None, 2, size)
        if found is None:
            return None
        rest = list(hand)
        for group in found[1]:
            for card in group.cards:
                rest[card] -= 1
        # Opening would leave only cards that hand the opponents a big pile: wait a turn.
        costs = _hand_costs(expert, memory, table, rest)
        if costs.costs[_cheapest_kind(costs)] > _OPENING_RISK:
            return None
    move = Meld(found[1])
    return move if view.can(move) else None


_SINGLE_MELDS: dict[int, Meld] = {}
"""The moves of :func:`_single_meld` by shape: the same records legal.single_group_meld hands out."""

_PILE_TAKES: dict[int, TakePile] = {}
"""The moves of :func:`_pile_take` by shape: the same records legal.pile_take hands out."""


def _single_meld(rank: int, naturals: int, jokers: int, deuces: int) -> Meld:
    """``single_group_meld(rank, naturals, jokers, deuces)``, kept by shape (see :func:`_shaped`)."""
    return _shaped(_SINGLE_MELDS, single_group_meld, rank, naturals, jokers, deuces)


def _pile_take(top: int, naturals: int, jokers: int, deuces: int) -> TakePile:
    """``pile_take(top, naturals, jokers, deuces)``, kept by shape (see :func:`_shaped`)."""
    return _shaped(_PILE_TAKES, pile_take, top, naturals, jokers, deuces)


def _shaped(moves: dict, build, rank: int, naturals: int, jokers: int, deuces: int) -> Move:
    """``build(rank, naturals, jokers, deuces)``, kept in ``moves`` under its shape, a key that is a C integer
    where compiled: records are immutable, so every decision can hand out the same one."""
    if rank >= 32 or naturals >= 32 or jokers >= 32 or deuces >= 32:
        return build(rank, naturals, jokers, deuces)  # no shape a hand holds: not kept
    key = rank << 15 | naturals << 10 | jokers << 5 | deuces
    move = moves.get(key)
    if move is None:
        move = build(rank, naturals, jokers, deuces)
        moves[key] = move
    return move


def _first_legal_meld(view, hand: tuple[int, ...], discard: int, budget: int, table: _DiscardTable) -> Meld | None:
    """The first legal meld from ``hand`` less one ``discard``, in this order, of: naturals on the side's
    melds, natural triples, wild cards completing canastas, and when the hand may end, pairs with a wild
    card and wild cards on melds.

    Each candidate is checked where it is found (a generator's resumption per candidate costs more).
    """
    # The table was just brought up to this hand: its melds of the side and whether the hand
    # may end are the view's now (see Expert._discard_table), without asking the view again.
    four, ace, joker, two = FOUR, ACE, JOKER, TWO
    # The cards it may meld: a C array where compiled (strategies/expert.pxd).
    if not cython.compiled:
        counts = list(hand)  # plain Python: copied at once
    else:
        for rank in range(KIND_COUNT):
            counts[rank] = hand[rank]
    counts[discard] -= 1
    melds = table.our_melds
    # Naturals on the side's melds: points down and a step toward a canasta.
    for rank in melds:
        if rank >= four and counts[rank]:
            count = counts[rank]
            move = _single_meld(rank, count if count < budget else budget, 0, 0)
            if view.can(move):
                return move
    for rank in range(four, ace + 1):
        count = counts[rank]
        if count >= 3 and count <= budget and rank not in melds:
            move = _single_meld(rank, count, 0, 0)
            if view.can(move):
                return move
    jokers_in_hand = counts[joker]
    wilds = jokers_in_hand + counts[two]
    if not wilds:
        return None
    danger = table.hand_may_end
    # melds.max_wilds of a natural rank (R9.2), inlined: every rank below is natural.
    if cython.compiled and type(view) is _VIEW_TYPE:  # through the property's descriptor (see _choose_meld)
        rules = _get(_VIEW_RULES, view)  # noqa: F821 (strategies/expert.pxd)
    else:
        rules = view.rules
    if cython.compiled and type(rules) is _RULES_TYPE:  # the slots read from C (see Expert.on_event)
        most_wilds = _field(rules, _MAX_WILDS_AT, _MAX_WILDS)  # noqa: F821
        ratio = _field(rules, _WILD_RATIO_AT, _WILD_RATIO)  # noqa: F821
    else:
        most_wilds = rules.max_wilds_per_meld
        ratio = rules.wild_ratio_rule
    wild_ratio = ratio == "no_more_wild_than_natural"
    # The side's melds, largest first (ties in the table's order, as a stable sort orders them): C arrays
    # where compiled, picked in order by a selection instead of sorting Python pairs with a key function.
    if not cython.compiled:  # compiled, C arrays (strategies/expert.pxd)
        ranks = [0] * KIND_COUNT
        sizes = [0] * KIND_COUNT
    # The side's canastas counted in the same pass (what view.canasta_count counts, from the table's melds).
    total = 0
    ours = 0
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
        # Wild cards finish canastas: the first one lets the side go out (R12.1).
        if rank < four:
            continue
        meld = melds[rank]
        naturals = meld[0]
        jokers = meld[1]
        deuces = meld[2]
        need = CANASTA_SIZE - naturals - jokers - deuces
        if wild_ratio:
            limit = most_wilds if most_wilds < naturals else naturals
        else:
            limit = most_wilds if naturals >= 2 else 0
        room = limit - jokers - deuces
        # A natural meld waits for naturals (R11.2: 500, not 300) unless a wild card is spare.
        worth_it = ours == 0 or jokers + deuces or danger or need == 1 or wilds > need
        if 0 < need and need <= wilds and need <= room and need <= budget and worth_it:
            use_jokers = jokers_in_hand if jokers_in_hand < need else need
            move = _single_meld(rank, 0, use_jokers, need - use_jokers)
            if view.can(move):
                return move
    if danger:
        # The hand may end before our next turn: get the points out of the hand.
        for rank in range(four, ace + 1):
            if counts[rank] == 2 and budget >= 3 and rank not in melds:
                # A pair and one wild card, a joker when there is one.
                move = _single_meld(rank, 2, 1, 0) if jokers_in_hand else _single_meld(rank, 2, 0, 1)
                if view.can(move):
                    return move
        for rank, meld in melds.items():
            if rank < four:
                continue
            naturals = meld[0]
            jokers = meld[1]
            deuces = meld[2]
            if wild_ratio:
                limit = most_wilds if most_wilds < naturals else naturals
            else:
                limit = most_wilds if naturals >= 2 else 0
            room = limit - jokers - deuces
            if room > 0:
                use = room
                if wilds < use:
                    use = wilds
                if budget < use:
                    use = budget
                use_jokers = jokers_in_hand if jokers_in_hand < use else use
                move = _single_meld(rank, 0, use_jokers, use - use_jokers)
                if view.can(move):
                    return move
    return None


class _Costs:
    """The discard costs of one hand against one table (see :func:`_discard_costs`), kept as C doubles.

    ``costs[kind]`` is the cost of discarding ``kind``, for each kind whose bit is set in ``present`` (the kinds in
    hand); :func:`_cost_list` gives them as ``(cost, kind)`` pairs when an order of every discard is needed.
    ``cheapest`` is the first kind of the lowest cost (-1 for no kind), found as the costs are filled in.
    """

    __slots__ = ("table", "hand", "present", "cheapest", "costs")


def _hand_costs(expert: Expert, memory: _Memory, table: _DiscardTable, hand) -> _Costs:
    """The discard costs of ``hand`` against ``table`` (see :func:`_discard_costs`), remembered.

    The last meld decision of a turn and the discard after it score the same hand against the
    same table: the second reuses the first's costs.  The table is a new object each turn, and
    within a turn what the costs read from the memory (the next seat's known cards and
    declines, the pile's freezers) changes only by the next seat's moves or the pile's, which
    come in other turns: the same table and hand mean the same costs, as for the table itself.

    The decisions pass the hand the table keeps (``memory.table_hand``, equal to the view's), so that
    a kept answer is usually found by identity, without comparing the hands.  A tuple's costs are kept
    in one object per memory, written over for the next hand (every caller is done with the last
    costs when it asks for new ones); a list's (it could change) in a new object, not kept.
    """
    memo = memory.costs
    if memo is not None and memo.table is table and (memo.hand is hand or memo.hand == hand):
        return memo
    kept = type(hand) is tuple
    if kept and memo is not None:
        costs = memo
    else:
        costs = _Costs.__new__(_Costs)
        if not cython.compiled:
            costs.costs = [0.0] * KIND_COUNT  # compiled, the field is a C array already
    costs.table = table
    costs.hand = hand
    if memory.freeze < 0:  # read once a hand (the parameter is at least 0; a copied memory reads its own)
        memory.freeze = expert.freeze
    _discard_costs(costs, table, memory, hand, memory.freeze)
    if kept:
        memory.costs = costs
    return costs


def _cheapest_kind(costs: _Costs) -> int:
    """The kind of ``min`` of the ``(cost, kind)`` pairs: the first kind of the lowest cost (kinds rise along
    the pairs and the costs are finite, so that is the pair ``min`` returns), found by :func:`_discard_costs`."""
    if costs.cheapest < 0:
        raise ValueError("min() arg is an empty sequence")  # what min() of no pair raised
    return costs.cheapest


def _cost_list(costs: _Costs) -> list[tuple[float, int]]:
    """The ``(cost, kind)`` pairs of ``costs``, kinds rising."""
    return [(costs.costs[kind], kind) for kind in range(KIND_COUNT) if costs.present >> kind & 1]


def _discard_costs(result: _Costs, table: _DiscardTable, memory: _Memory, hand, freeze: float) -> None:
    """Fill ``result`` with the cost of each kind in hand: the danger of handing the next seat the pile with it
    (the chance it can take the pile times what the pile is worth) plus its worth in hand.

    Every kind of every discard decision passes through here, so the table's figures are read
    into locals once instead of once per kind.  Compiled, the figures are C doubles: the very
    IEEE operations, in the same order, that Python's floats make (``**`` is C's ``pow`` in both).
    """
    joker, two, black_three = JOKER, TWO, BLACK_THREE
    pile_worth = table.pile_worth
    frozen = table.frozen
    # The ranks each side has melded and those the taker avoids, as bit masks (see _read_table).
    theirs = table.their_ranks
    ours = table.our_ranks
    avoids = table.taker_avoids
    base = table.taker * KIND_COUNT  # the taker's known cards in memory.known_counts
    seen: cython.p_Py_ssize_t = table.seen  # compiled, a pointer to the table's C array
    share = table.share
    miss = 1.0 - share  # the chance that one unseen card is not in the taker's hand
    if memory.chances_share != share:  # the chances below kept for another share: forgotten
        memory.chances_share = share
        memory.chances_known = 0
    wild_chance = table.wild_chance
    taker_melded = table.taker_melded
    may_end = table.hand_may_end
    we_melded = table.we_melded
    wilds = hand[joker] + hand[two]
    costs: cython.p_double = result.costs  # compiled, a pointer to the C array
    present = 0
    # The cheapest kind, kinds rising: the first of the lowest cost (what _cheapest_kind returns).
    cheapest = -1
    lowest = 0.0
    for kind in range(KIND_COUNT):
        count = hand[kind]
        if not count:
            continue
        if kind <= two or kind == black_three:
            cost = _special_discard_cost(table, memory, kind, wilds, freeze)
            costs[kind] = cost
            present |= 1 << kind
            if cheapest < 0 or cost < lowest:
                lowest = cost
                cheapest = kind
            continue
        # The chance that the next seat can take the pile if this card goes on top.
        if not frozen and theirs >> kind & 1:
            chance = 1.0  # R8.2c.3: a lay-off needs nothing from hand
        else:
            held = memory.known_counts[base + kind]
            unseen = _COPIES - seen[kind]
            if unseen < 0:
                unseen = 0
            # The chances that the taker holds none or one of the unseen cards depend on the count alone for
            # one share: compiled, each is computed once per count (pow is the dearest step of a discard's
            # cost); plain Python computes them each time (one operation, cheaper than the memory's lookups).
            if not cython.compiled:
                none = miss**unseen
                one = unseen * share * miss ** (unseen - 1 if unseen > 1 else 0)
            elif memory.chances_known >> unseen & 1:
                none = memory.none_chances[unseen]
                one = memory.one_chances[unseen]
            else:
                none = miss**unseen
                one = unseen * share * miss ** (unseen - 1 if unseen > 1 else 0)
                memory.none_chances[unseen] = none
                memory.one_chances[unseen] = one
                memory.chances_known |= 1 << unseen
            if held >= 2:
                pair = 1.0
            elif held == 1:
                pair = 1.0 - none
            else:
                pair = 1.0 - none - one
            chance = pair
            if not frozen:
                single = none if held == 1 else one if held == 0 else 0.0
                chance += single * wild_chance
            if held < 2 and avoids >> kind & 1:
                chance *= 0.3
            if not taker_melded:
                chance *= 0.5  # it must also reach its initial minimum (R8.2e)
            if chance > 1.0:
                chance = 1.0
        # What the card is worth in hand.
        value = KIND_VALUE[kind]
        penalty = value if may_end else 0
        if ours >> kind & 1:
            keep = 25.0 - penalty
        elif count >= 3:
            keep = 70.0 - penalty
        elif count == 2:
            # A pair takes a frozen pile (R8.2b); more so before the side has melded.
            keep = (55.0 if we_melded else 65.0) - penalty
        else:
            keep = 4.0 + value / 5.0 - penalty
        cost = chance * pile_worth + keep
        costs[kind] = cost
        present |= 1 << kind
        if cheapest < 0 or cost < lowest:
            lowest = cost
            cheapest = kind
    result.present = present
    result.cheapest = cheapest


def _special_discard_cost(table: _DiscardTable, memory: _Memory, kind: int, wilds: int, freeze: float) -> float:
    """The cost of discarding a wild card (which freezes the pile) or a black 3 (which blocks it);
    ``wilds`` is the wild cards in hand."""
    if kind == BLACK_THREE:
        # R5.2: blocks the next player; worth saving for a pile that matters.
        return 12.0 if table.pile_size < 5 else 1.0
    # The more wild cards in hand, the less the last of them is worth keeping.
    cost = (260.0 if kind == JOKER else 130.0) / max(freeze, 0.01) / (1.0 + 0.4 * (wilds - 1))
    if not memory.pile_freezers and table.pile_size >= 4 and table.opponents_melded:
        # R8.1b: a frozen pile cannot be taken by a lay-off, only with a natural pair.
        ranks = table.opponent_meld_count
        ours = 0.6 if table.we_melded else 1.0
        cost -= 0.5 * freeze * table.pile_worth * min(1.0, ranks / 8.0) * ours
    return cost


# ---------------------------------------------------------------- helpers


def _remember_discard(memory: _Memory, seat: int, card: int) -> None:
    """``seat`` discarded ``card``: it tops the pile, and the seat probably holds no pair of its rank."""
    kind = card
    memory.pile.append(card)
    if kind <= TWO:
        memory.pile_freezers += 1
    if memory.known_totals[seat]:  # else the seat holds no known card, of this kind or any
        index = seat * KIND_COUNT + kind
        if memory.known_counts[index]:
            memory.known_counts[index] -= 1
            memory.known_totals[seat] -= 1
    memory.avoided[seat] |= 1 << kind


def _remember_draw(memory: _Memory, seat: int) -> None:
    """``seat`` drew from the stock."""
    pile = memory.pile
    if pile and memory.side_melded[seat & 1]:
        top = pile[-1]
        if top >= FOUR:
            # It chose the stock over a pile it might have taken: it lacks a pair of the top rank.
            memory.avoided[seat] |= 1 << top


def _remember_take(memory: _Memory, seat: int, move: TakePile) -> None:
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
    # Compiled, the fields of records of the exact classes through their slots (see Expert.on_event).
    if cython.compiled and type(move) is _TAKE_TYPE:
        added -= _forget_played(memory, base, _field(move, _TAKE_CARDS_AT, _TAKE_CARDS))  # noqa: F821
        extra = _field(move, _TAKE_EXTRA_AT, _TAKE_EXTRA)  # noqa: F821
    else:
        added -= _forget_played(memory, base, move.cards)
        extra = move.extra
    for group in extra:
        if cython.compiled and type(group) is _GROUP_TYPE:
            cards = _field(group, _GROUP_CARDS_AT, _GROUP_CARDS)  # noqa: F821 (strategies/expert.pxd)
        else:
            cards = group.cards
        added -= _forget_played(memory, base, cards)
    memory.known_totals[seat] += added
    memory.pile = []
    memory.pile_freezers = 0
    memory.side_melded[seat & 1] = True


def _remember_meld(memory: _Memory, seat: int, move: Meld) -> None:
    """``seat`` melded: the cards it laid are no longer in its hand."""
    if memory.known_totals[seat]:  # else the seat holds no known card, and there is nothing to forget
        base = seat * KIND_COUNT
        if cython.compiled and type(move) is _MELD_TYPE:
            groups = _field(move, _MELD_GROUPS_AT, _MELD_GROUPS)  # noqa: F821 (strategies/expert.pxd)
        else:
            groups = move.groups
        for group in groups:
            if cython.compiled and type(group) is _GROUP_TYPE:
                cards = _field(group, _GROUP_CARDS_AT, _GROUP_CARDS)  # noqa: F821
            else:
                cards = group.cards
            memory.known_totals[seat] -= _forget_played(memory, base, cards)
    memory.side_melded[seat & 1] = True


def _forget_played(memory: _Memory, base: int, cards: tuple[int, ...]) -> int:
    """A seat laid ``cards``: those it was known to hold (its counts start at ``base`` in ``memory.known_counts``)
    are no longer in its hand.  Returns how many those were."""
    forgotten = 0
    for kind in cards:
        if memory.known_counts[base + kind]:
            memory.known_counts[base + kind] -= 1
            forgotten += 1
    return forgotten


def _table_score(view, side: int) -> int:
    """Meld points and canasta and red-3 bonuses a side has on the table now (R14.1a, b, d)."""
    rules = view.rules
    total = 0
    for rank, (naturals, jokers, deuces) in view.melds(side).items():
        total += naturals * KIND_VALUE[rank] + jokers * 50 + deuces * 20
        if naturals + jokers + deuces >= CANASTA_SIZE:
            total += rules.mixed_canasta_bonus if jokers + deuces else rules.natural_canasta_bonus
    threes = view.red_threes[side] + view.red_threes[side + 2]
    total += rules.all_four_red_threes_total if threes == 4 else threes * rules.red_three_value
    return total


def _opening(
    rules, hand: tuple[int, ...], minimum: int, forced: int | None, keep: int, hand_size: int
) -> tuple[MeldGroup | None, tuple[MeldGroup, ...]] | None:
    """The cheapest initial meld reaching ``minimum`` (R10.1-R10.3), built from the count vector.

    ``forced`` is the rank of a pile's top card that must be melded (R10.5: it counts toward the
    minimum; the hand supplies the rest).  Returns ``(forced group or None, other groups)`` using
    the fewest wild cards (jokers first, since on the table they score more), or ``None``.

    Each subset of the pairs is scored with integers only; the groups are built once, for the best,
    from one more pass over the best subset that records where its wild cards went.
    """
    # The slots' ranks, hand naturals and their points: C arrays where compiled (the loop below reads them
    # 2**size times).  A slot is a pair of the hand; the forced rank has a slot of its own, before them.
    if not cython.compiled:  # compiled, C arrays (strategies/expert.pxd)
        ranks = [0] * 11
        counts = [0] * 11
        points = [0] * 11
        placed = [0] * 8
    forced_rank = -1 if forced is None else forced
    # The pairs by points, most first, equal points by rank (the order a stable sort by points gives), by
    # insertion: a slot moves past those worth less.
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
    if size > 7:
        size = 7  # a hand with more pairs than this has plenty of ways; the best seven suffice
    has_forced = forced is not None
    forced_table = forced_need = forced_value = 0
    if has_forced:
        forced_table = hand[forced_rank] + 1
        forced_need = 3 - forced_table if forced_table < 3 else 0
        forced_value = forced_table * KIND_VALUE[forced_rank]
    jokers, deuces = hand[JOKER], hand[TWO]
    most_wilds = rules.max_wilds_per_meld
    wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
    found = False
    best_mask = best_wilds = best_value = 0
    # Every subset in turn, then the best one again (``final``): that pass records each slot's wild cards
    # in ``placed`` (the forced slot's first), placed as the scoring placed them.
    final = False
    mask = -1
    while True:
        if final:
            mask = best_mask
        else:
            mask += 1
            if mask >= 1 << size:
                if not found:
                    return None
                final = True
                mask = best_mask
            elif not has_forced and not mask:
                continue
        needed = forced_need
        value = forced_value
        cards = forced_table - 1 if has_forced else 0
        for index in range(size):
            if mask >> index & 1:
                count = counts[index]
                if count < 3:
                    needed += 3 - count
                value += points[index]
                cards += count
        if needed > jokers + deuces:
            continue
        if final:
            placed[0] = forced_need
            for index in range(size):
                count = counts[index]
                placed[index + 1] = 3 - count if count < 3 else 0
        use_jokers = min(jokers, needed)
        value += use_jokers * 50 + (needed - use_jokers) * 20
        wilds = needed
        joker_left, deuce_left = jokers - use_jokers, deuces - (needed - use_jokers)
        # Extra wild cards only when the naturals fall short of the minimum, slot by slot in order.
        index = -1
        while value < minimum and (joker_left or deuce_left) and index < size:
            if index < 0:
                if not has_forced:
                    index += 1
                    continue
                count, slot_wilds = forced_table, forced_need
            elif mask >> index & 1:
                count = counts[index]
                slot_wilds = 3 - count if count < 3 else 0
            else:
                index += 1
                continue
            # melds.max_wilds for a natural rank (R9.2), inlined: every slot is of a natural rank.
            if wild_ratio:
                limit = most_wilds if most_wilds < count else count
            else:
                limit = most_wilds if count >= 2 else 0
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
        if final:
            break
        if value < minimum:
            continue
        cards += wilds
        if hand_size - cards < keep:
            continue
        if not found or wilds < best_wilds or (wilds == best_wilds and value > best_value):
            found = True
            best_mask, best_wilds, best_value = mask, wilds, value
    # The groups, jokers first slot by slot.
    joker_left = jokers
    forced_group: MeldGroup | None = None
    if has_forced:
        wilds = placed[0]
        use_jokers = joker_left if joker_left < wilds else wilds
        joker_left -= use_jokers
        forced_group = MeldGroup.of(forced_rank, hand[forced_rank], use_jokers, wilds - use_jokers)
    groups: list[MeldGroup] = []
    for index in range(size):
        if mask >> index & 1:
            wilds = placed[index + 1]
            use_jokers = joker_left if joker_left < wilds else wilds
            joker_left -= use_jokers
            groups.append(MeldGroup.of(ranks[index], counts[index], use_jokers, wilds - use_jokers))
    return forced_group, tuple(groups)
