"""Look-ahead for strategies: sample the cards a seat cannot see, then play the hand out fast.

Perfect Information Monte Carlo needs two things, both here:

* :func:`sample_world` builds a complete :class:`~canasta_sim.core.state.HandState` consistent with
  everything one seat knows, and with nothing else: its own hand, the table (melds, red 3s), the
  discard pile, every hand size, the stock's size, the scores, and the cards other seats are known to
  hold because they picked them up with the pile and have not played them since.  Those facts come
  from a :class:`~canasta_sim.core.view.SeatView` and a :class:`PublicMemory` fed with the
  :class:`~canasta_sim.core.strategy.PublicEvent` records a strategy receives; the engine's own state is
  never read.  The cards left over are dealt uniformly at random among the other hands (beyond
  their known cards) and the stock; ``avoid_weight`` optionally weights that deal by what the seats
  revealed (ranks they discarded or declined to take the pile with, :attr:`PublicMemory.avoids`).
* :func:`playout` plays such a state to the end of the hand with given strategies, without records,
  observers, time limits or checks of what the strategies return: a fast, trusted loop for
  built-in policies on a throw-away copy.

>>> import random
>>> from canasta_sim.core.rules import Rules
>>> from canasta_sim.core.state import HandState
>>> from canasta_sim.core.view import SeatView
>>> real = HandState.deal(Rules(), random.Random(1), dealer=0)
>>> memory = PublicMemory(SeatView(real, 1, (0, 0)))
>>> world = sample_world(SeatView(real, 1, (0, 0)), memory, random.Random(2))
>>> world.card_total(), world.hands[1] == real.hands[1], world.hand_sizes == real.hand_sizes
(108, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from canasta_sim.core.cards import BLACK_THREE, CARD_KIND, DECK_COUNTS, FOUR, JOKER, KIND_COUNT, RED_THREE, TWO
from canasta_sim.core.moves import DRAW, Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile
from canasta_sim.core.phases import ACQUIRE, ANSWER, OVER, PLAY
from canasta_sim.core.pile import take_reaches_minimum
from canasta_sim.core.state import HandState
from canasta_sim.core.strategy import PublicEvent, Strategy
from canasta_sim.core.view import SeatView

__all__ = ["PublicMemory", "SearchError", "playout", "sample_world"]

_ASK = Ask()
_STOP = Stop()
_ACQUIRES = (Draw, TakePile, Stop)
# Card ids of each kind: a sampled stock needs ids, and which id of a kind it holds never matters to the rules.
_IDS_OF_KIND = tuple(tuple(card for card, kind in enumerate(CARD_KIND) if kind == index) for index in range(KIND_COUNT))


class SearchError(ValueError):
    """A position that cannot be sampled: the memory and the view disagree about public facts.

    :ivar reason: what disagreed.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PublicMemory:
    """What every player at the table has seen of the current hand, kept from public events only.

    Build it at the start of a hand from the seat's view (the upcards in the pile), then call
    :meth:`observe` with every :class:`~canasta_sim.core.strategy.PublicEvent`.  It tracks the pile's
    contents, the cards each seat is known to hold (picked up with the pile, not played since: a
    lower bound on what it holds, R8.3), which seats have melded and have had a turn, the size of
    each side's meld per rank, and what the current turn has done so far (the fields of R10.7, R12.2
    and R12.6 that depend on it).
    """

    __slots__ = (
        "pile",
        "known",
        "seat_has_melded",
        "has_acted",
        "meld_sizes",
        "turn_seat",
        "asked",
        "melded_this_turn",
        "melded_before_turn",
        "turn_new_ranks",
        "added_to_existing",
        "turn_laid",
        "avoids",
        "requirements",
    )

    def __init__(self, view: SeatView) -> None:
        self.pile = list(view.pile)
        self.known = [[0] * KIND_COUNT for _ in range(4)]
        """Cards each seat is known to hold, by kind."""
        self.seat_has_melded = [False, False, False, False]
        self.has_acted = [False, False, False, False]
        self.meld_sizes = [[0] * KIND_COUNT for _ in range(2)]
        self.requirements = (view.initial_requirement(0), view.initial_requirement(1))
        self.avoids: list[set[int]] = [set(), set(), set(), set()]
        """Natural ranks each seat discarded, or declined to take the pile with, since it last took the
        pile: public signs that it holds no pair of them (used by ``sample_world(..., avoid_weight=...)``)."""
        # A hand starts with no melds; a memory built later would miss them, so say so when asked.
        self.turn_seat = view.seat_to_move
        self._reset_turn(view.seat_to_move, False)

    def copy(self) -> PublicMemory:
        """An independent copy: observing events on it never changes this memory."""
        other = PublicMemory.__new__(PublicMemory)
        other.pile = list(self.pile)
        other.known = [list(known) for known in self.known]
        other.seat_has_melded = list(self.seat_has_melded)
        other.has_acted = list(self.has_acted)
        other.meld_sizes = [list(sizes) for sizes in self.meld_sizes]
        other.avoids = [set(avoids) for avoids in self.avoids]
        other.requirements = self.requirements
        other.turn_seat = self.turn_seat
        other.asked = self.asked
        other.melded_this_turn = self.melded_this_turn
        other.melded_before_turn = self.melded_before_turn
        other.turn_new_ranks = set(self.turn_new_ranks)
        other.added_to_existing = self.added_to_existing
        other.turn_laid = list(self.turn_laid)
        return other

    def _reset_turn(self, seat: int, melded_before: bool) -> None:
        self.turn_seat = seat
        self.asked = False
        self.melded_this_turn = False
        self.melded_before_turn = melded_before
        self.turn_new_ranks: set[int] = set()
        self.added_to_existing = False
        self.turn_laid = [0] * KIND_COUNT

    def observe(self, event: PublicEvent) -> None:
        """Update the memory with one move seen at the table."""
        seat = event.seat
        move = event.move
        if isinstance(move, _ACQUIRES):
            self._reset_turn(seat, self.seat_has_melded[seat])
            self.has_acted[seat] = True
            if isinstance(move, Draw) and self.pile and self.pile[-1] >= FOUR:
                if self.seat_has_melded[seat] or self.seat_has_melded[seat ^ 2]:
                    # A melded side that draws rather than take the pile with a natural pair (R8.2)
                    # shows it lacks one: the top card's rank is one it avoids.
                    self.avoids[seat].add(self.pile[-1])
        known = self.known[seat]
        if isinstance(move, Discard):
            kind = move.card
            self.pile.append(kind)
            if known[kind]:
                known[kind] -= 1
            if kind >= FOUR:
                self.avoids[seat].add(kind)
        elif isinstance(move, TakePile):
            self.avoids[seat].clear()
            top = self.pile[-1]
            for kind in self.pile[:-1]:
                if kind != RED_THREE:  # R4.3: red 3s in a taken pile are laid down at once
                    known[kind] += 1
            self.pile = []
            groups = (MeldGroup(top, move.cards),) if move.cards else ()
            if move.extra and not (self.seat_has_melded[seat] or self.seat_has_melded[seat ^ 2]):
                # R8.3, R12.5, D23: as the engine judges it, extra melds the top card's meld did not need close the
                # question to the partner.
                self.melded_this_turn = take_reaches_minimum(top, move.cards, self.requirements[seat & 1])
            self._lay(seat, groups + tuple(move.extra), top)
        elif isinstance(move, Meld):
            self._lay(seat, move.groups, None)
            self.melded_this_turn = True
        elif isinstance(move, Ask):
            self.asked = True

    def _lay(self, seat: int, groups: Sequence[MeldGroup], top: int | None) -> None:
        known = self.known[seat]
        sizes = self.meld_sizes[seat & 1]
        added = [0] * KIND_COUNT
        if top is not None:
            added[top] += 1  # the pile's top card joins its meld without passing through the hand
        for group in groups:
            for kind in group.cards:
                added[group.rank] += 1
                if known[kind]:
                    known[kind] -= 1
        for rank in range(KIND_COUNT):
            if not added[rank]:
                continue
            if sizes[rank] == 0:
                self.turn_new_ranks.add(rank)
            elif rank not in self.turn_new_ranks:
                self.added_to_existing = True
            sizes[rank] += added[rank]
            # As the engine's (R12.2): the cards laid from the hand, so not the pile's top card.
            self.turn_laid[rank] += added[rank] - 1 if rank == top else added[rank]
        self.seat_has_melded[seat] = True


def sample_world(view: SeatView, memory: PublicMemory, rng, *, avoid_weight: float = 1.0) -> HandState:
    """A complete hand state consistent with what ``view``'s seat knows, hidden cards dealt by ``rng``.

    Public facts are copied from the view and the memory; the cards this seat cannot see (the other
    hands beyond their known cards, and the stock) are a uniformly random deal of the cards not
    accounted for, drawn from ``rng`` (a :class:`random.Random`) in an order that depends only on
    those public facts, so that two positions this seat cannot tell apart give the same sample.
    Seats that have had their first turn hold no red 3 (R3.5, R4.1: red 3s go down at once), so the
    unseen red 3s are dealt only to the stock and to seats still waiting for their first turn under
    ``dealt_red_three_timing=first_turn``.

    ``avoid_weight`` below 1 weights the deal by inference: a seat that discarded a natural rank, or
    drew while its side could have taken the pile with a pair of the top card's rank, since it last
    took the pile (:attr:`PublicMemory.avoids`) seldom holds a pair of that rank.  After the uniform
    deal, each such pair beyond the seat's known cards is kept with probability ``avoid_weight``;
    otherwise one card of it is exchanged with a random stock card of a rank the seat does not
    avoid, until the seat holds at most one (or what it is known to hold).  The exchange reads only
    public facts and ``rng``, so the no-leakage property holds as for the uniform deal; 1 (the
    default) is the uniform deal.

    The state is one at which the seat is asked a decision: ``must_stop`` (R13.1 ``meld_no_discard``)
    is taken as ``False``, which it is at every decision but a meld.  Statistics the rules never
    read (pile takes, freezes) start at zero.

    :raises SearchError: when the memory's known cards cannot fit the hand sizes or the unseen cards
        (a memory not fed every event of the hand).
    """
    rules = view.rules
    me = view.seat
    scores = view.scores
    state = HandState(rules, dealer=view.dealer, scores=scores, hand_number=view.hand_number)
    state.requirements = (view.initial_requirement(0), view.initial_requirement(1))
    sizes = list(view.hand_sizes)
    state.hand_sizes = sizes
    pile = list(view.pile)
    state.pile = pile
    black_freezes = rules.black_three_freezes_pile
    state.pile_freezers = sum(
        1 for kind in pile if kind <= TWO or kind == RED_THREE or (kind == BLACK_THREE and black_freezes)
    )
    unseen = list(DECK_COUNTS)
    for kind in pile:
        unseen[kind] -= 1
    for side in (0, 1):
        table = view.melds(side)
        melds = state.melds[side]
        for rank, (naturals, jokers, deuces) in table.items():
            melds[rank] = [naturals, jokers, deuces]
            unseen[rank] -= naturals
            unseen[JOKER] -= jokers
            unseen[TWO] -= deuces
        state.side_has_melded[side] = view.has_melded(side)
    state.red_threes = list(view.red_threes)
    unseen[RED_THREE] -= sum(state.red_threes)
    own = list(view.hand)
    hands = state.hands
    hands[me] = own
    for kind in range(KIND_COUNT):
        unseen[kind] -= own[kind]
    after_deal = rules.dealt_red_three_timing == "after_deal"
    seat_to_move = view.seat_to_move
    first_turn_done = [after_deal or memory.has_acted[seat] or seat == seat_to_move for seat in range(4)]
    state.first_turn_done = first_turn_done
    # Known cards first; then the rest of each hidden hand, red 3s only where one may still be held.
    open_seats = []
    closed_seats = []
    for seat in range(4):
        if seat == me:
            continue
        known = memory.known[seat]
        hand = list(known)
        hands[seat] = hand
        for kind in range(KIND_COUNT):
            unseen[kind] -= known[kind]
        missing = sizes[seat] - sum(known)
        if missing < 0:
            raise SearchError(f"seat {seat} is known to hold {sum(known)} cards but holds {sizes[seat]}")
        (closed_seats if first_turn_done[seat] else open_seats).append((seat, missing))
    if min(unseen) < 0:
        raise SearchError(f"more cards are accounted for than the deck holds: {unseen}")
    stock_count = view.stock_count
    plain = [kind for kind in range(KIND_COUNT) if kind != RED_THREE for _ in range(unseen[kind])]
    rng.shuffle(plain)
    position = _deal_into(hands, closed_seats, plain)
    rest = plain[position:] + [RED_THREE] * unseen[RED_THREE]
    if len(rest) != stock_count + sum(missing for _, missing in open_seats):
        raise SearchError(f"{len(rest)} unseen cards left for a stock of {stock_count} and the hands waiting")
    rng.shuffle(rest)
    position = _deal_into(hands, open_seats, rest)
    stock_kinds = rest[position:]
    if avoid_weight < 1.0:
        _repair_avoided(hands, memory, [seat for seat, _ in closed_seats], stock_kinds, rng, avoid_weight)
    taken = [0] * KIND_COUNT
    stock = []
    for kind in stock_kinds:
        stock.append(_IDS_OF_KIND[kind][taken[kind]])
        taken[kind] += 1
    state.stock = stock
    _copy_turn(state, view, memory)
    return state


def _copy_turn(state: HandState, view: SeatView, memory: PublicMemory) -> None:
    """Set ``state``'s seat, phase, turn counts and the turn's own facts (acquired, asked, answered, melded) from
    what ``view``'s seat knows."""
    state.seat_has_melded = list(memory.seat_has_melded)
    state.seat = view.seat_to_move
    state.phase = view.phase
    turns = view.turn_count
    state.turn_count = turns
    first_side = (view.dealer + 1) & 1  # turns alternate sides from the dealer's left (R6.1)
    state.side_turns[first_side] = (turns + 1) // 2
    state.side_turns[1 - first_side] = turns // 2
    state.acquired = view.acquired
    state.answer = view.partner_answer
    if view.phase == ACQUIRE or memory.turn_seat != view.seat_to_move:
        state.melded_before_turn = memory.seat_has_melded[view.seat_to_move]
    else:
        state.asked = memory.asked or view.phase == ANSWER
        state.melded_this_turn = memory.melded_this_turn
        state.melded_before_turn = memory.melded_before_turn
        state.turn_new_ranks = set(memory.turn_new_ranks)
        state.added_to_existing = memory.added_to_existing
        state.turn_laid = list(memory.turn_laid)


def playout(state: HandState, players: Sequence[Strategy], scores: tuple[int, int], *, turns: int = 0) -> HandState:
    """Play ``state`` to the end of its hand with ``players`` (one per seat) and return it.

    With ``turns`` above 0 it may stop sooner: after the turn under way and ``turns`` more, at the
    start of the next turn (the state is then not over).

    The same turn order as :func:`canasta_sim.core.engine.play_hand`, without its records and guards:
    meant for built-in strategies on a copy (see :meth:`HandState.copy`), never for untrusted code.
    Strategies that override ``on_event`` hear every move, as in a real game; each is told of the
    hand's start with a view of the state as it is now.

    :raises IllegalMoveError: if a strategy returns an illegal move (a bug in the policy).
    """
    views = [SeatView(state, seat, scores) for seat in range(4)]
    listeners = [player for player in players if type(player).on_event is not Strategy.on_event]
    for seat, player in enumerate(players):
        player.on_hand_start(views[seat])
    asking = state.rules.ask_partner != "off"
    last_turn = state.turn_count + turns if turns > 0 else -1

    def apply(seat: int, move) -> None:
        if not listeners:
            state.apply(move)
            return
        before = state.red_threes[seat]
        state.apply(move)
        event = PublicEvent(seat, DRAW if isinstance(move, Draw) else move, state.red_threes[seat] - before)
        for listener in listeners:
            listener.on_event(event)

    while state.phase != OVER:
        seat = state.seat
        player = players[seat]
        view = views[seat]
        if state.phase == ACQUIRE:
            if state.turn_count > last_turn >= 0:
                break
            apply(seat, player.choose_acquire(view))
            continue
        if state.phase == ANSWER:
            partner = (seat + 2) % 4
            apply(partner, Answer(players[partner].answer_go_out(views[partner])))
        elif asking and not state.asked and state.can_ask(_ASK) and player.choose_ask(view):
            apply(seat, _ASK)
            partner = (seat + 2) % 4
            apply(partner, Answer(players[partner].answer_go_out(views[partner])))
        while state.phase == PLAY:
            move = player.choose_meld(view)
            if move is None:
                break
            apply(seat, move)
        if state.phase == OVER:
            break
        if state.must_stop:
            apply(seat, _STOP)
            continue
        apply(seat, player.choose_discard(view))
    return state


def _repair_avoided(hands, memory: PublicMemory, seats, stock: list[int], rng, weight: float) -> None:
    """Exchange with the stock the pairs that ``seats`` hold of ranks they avoid (see :func:`sample_world`)."""
    for seat in seats:
        avoids = memory.avoids[seat]
        if not avoids:
            continue
        hand = hands[seat]
        known = memory.known[seat]
        for rank in sorted(avoids):
            if hand[rank] < 2 or hand[rank] <= known[rank] or rng.random() < weight:
                continue
            while hand[rank] >= 2 and hand[rank] > known[rank]:
                # Stock cards a seat that has had its turn may hold (no red 3, R4.1) of ranks it does not avoid.
                choices = [index for index, kind in enumerate(stock) if kind != RED_THREE and kind not in avoids]
                if not choices:
                    return
                index = choices[rng.randrange(len(choices))]
                hand[stock[index]] += 1
                hand[rank] -= 1
                stock[index] = rank


def _deal_into(hands: list[list[int]], seats, kinds: list[int]) -> int:
    """Give each ``(seat, missing)`` of ``seats`` its next ``missing`` cards of ``kinds``, in order; the
    number of cards dealt."""
    position = 0
    for seat, missing in seats:
        hand = hands[seat]
        for kind in kinds[position : position + missing]:
            hand[kind] += 1
        position += missing
    return position
