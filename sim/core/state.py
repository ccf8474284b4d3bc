"""The state of one hand and its transitions (docs/rules.md §3-§13).

:class:`HandState` holds everything about a hand in plain ints and lists:
count vectors for the four hands, card ids for the stock, kinds for the
discard pile, and per-side meld counts.  Each move has three tiers, after
pokerkit: ``verify_x(move)`` raises :class:`~canasta_sim.errors.IllegalMoveError`
with the rule broken, ``can_x(move)`` returns a bool, ``x(move)`` verifies
and applies.  :meth:`HandState.apply` dispatches on the move's type.

Most moves' rules live in the classes :class:`HandState` is built on, one module each: melds and going out in
:mod:`~canasta_sim.core.melding` (R9-R12), taking the pile in :mod:`~canasta_sim.core.pile` (R8), asking the
partner in :mod:`~canasta_sim.core.asking` (R12.5), drawing, red 3s and the empty stock in
:mod:`~canasta_sim.core.stock` (R4, R7, R13); the discard's are here (R6.1).

Phases: ``acquire`` (draw, take the pile, or stop on an empty stock),
``play`` (ask, meld, discard), ``answer`` (the partner answers an ask) and
``over``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from canasta_sim.core.cards import BLACK_THREE, KIND_COUNT, TWO, counts_text, kind_words
from canasta_sim.core.deal import _DEALT, DeckGenerator, _deal_hands, shuffled_deck
from canasta_sim.core.melds import CANASTA_SIZE, meld_value
from canasta_sim.core.moves import (
    Answer,
    Ask,
    Discard,
    Draw,
    Meld,
    Move,
    Stop,
    TakePile,
    is_kind,
)
from canasta_sim.core.phases import (
    ACQUIRE,
    ANSWER,
    END_RED_THREE_LAST_CARD,
    END_STOCK_EXHAUSTED,
    END_TURN_CAP,
    END_WENT_OUT,
    OVER,
    PLAY,
)
from canasta_sim.core.rules import Rules
from canasta_sim.core.stock import StockRules
from canasta_sim.errors import IllegalMoveError, shown_value

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = [
    "ACQUIRE",
    "ANSWER",
    "END_RED_THREE_LAST_CARD",
    "END_STOCK_EXHAUSTED",
    "END_TURN_CAP",
    "END_WENT_OUT",
    "HandState",
    "MAX_TURNS_PER_HAND",
    "OVER",
    "PLAY",
    "shuffled_deck",
]


MAX_TURNS_PER_HAND = 600
"""A guard, never reached by legal play: every turn either draws from the 64-card stock or
takes the pile, which puts at least one more card on the table for good, so a hand has at
most about 64 + 108 turns.  Reaching the cap ends the hand with ``END_TURN_CAP``."""

# The phases' own strings, the only values the engine gives HandState.phase: C globals compiled (sim/core/state.pxd),
# compared by identity in _is_phase.
_ACQUIRE = ACQUIRE
_PLAY = PLAY
_ANSWER = ANSWER
_OVER = OVER


def _is_phase(phase: object, wanted: str) -> bool:
    """``phase == wanted`` for ``wanted`` one of the phases' own strings, answered by identity when ``phase`` is one
    of them too, as the engine's phases are: compiled, a string comparison costs a call into the interpreter, which
    the engine's loop would make several times a turn.  A phase of equal value in another string is compared by
    value."""
    if phase is wanted:
        return True
    if phase is _ACQUIRE or phase is _PLAY or phase is _ANSWER or phase is _OVER:
        return False
    return phase == wanted


_NO_KINDS = [0] * KIND_COUNT  # copied, never changed
_NO_ADDITIONS: dict[int, list[int]] = {}  # a discard lays no card: read by _verify_going_out, never changed
class HandState(StockRules):
    """One hand of four-player partnership canasta, from the deal to its end.

    Build it with :meth:`deal`.  Seats 0-3 run clockwise; side 0 (A) is seats 0 and 2,
    side 1 (B) seats 1 and 3 (R2.1).

    :ivar hands: four count vectors by kind (see :mod:`canasta_sim.core.cards`).
    :ivar stock: card ids, the top card last.
    :ivar pile: kinds of the discard pile, the top card last.
    :ivar melds: ``melds[side][rank] = [naturals, jokers, deuces]``.
    """

    # Slots, not an instance dict: the engine and the strategies read these fields millions of times.
    __slots__ = (
        "_collected",
        "_listed",
        "_meld_tables",
        "_plan_cache",
        "_plan_changes",
        "_plan_hand",
        "_plan_stop",
        "_plan_turn",
        "_probing",
        "_vouched",
        "_vouched_key",
        "acquired",
        "added_to_existing",
        "answer",
        "asked",
        "dealer",
        "deck",
        "end_reason",
        "first_turn_done",
        "frozen_pile_takes",
        "hand_number",
        "hand_sizes",
        "hands",
        "history",
        "meld_changes",
        "melded_before_turn",
        "melded_this_turn",
        "melds",
        "must_stop",
        "phase",
        "pile",
        "pile_cards_taken",
        "pile_freezers",
        "pile_freezes",
        "pile_takes",
        "red_threes",
        "requirements",
        "rules",
        "scores_before",
        "seat",
        "seat_has_melded",
        "side_has_melded",
        "side_turns",
        "stock",
        "turn_count",
        "turn_laid",
        "turn_new_ranks",
        "went_out_concealed",
        "went_out_seat",
    )

    def __init__(self, rules: Rules, *, dealer: int, scores: Sequence[int] = (0, 0), hand_number: int = 1) -> None:
        _init_state(self, rules, dealer, scores, hand_number)

    def _init_fields(self, rules: Rules, dealer: int, scores: Sequence[int], hand_number: int) -> None:
        # __init__'s work, a C method compiled (sim/core/state.pxd), which the engine's deal calls on a bare instance
        # (_init_state): no keyword arguments to match for each hand.
        self.rules = rules
        self.dealer = dealer
        self.hand_number = hand_number
        self.scores_before = (scores[0], scores[1])
        self.requirements = (rules.initial_requirement(scores[0]), rules.initial_requirement(scores[1]))
        # KIND_COUNT (15) zeros per hand and 15 empty melds per side, written as literals: C loops compiled.
        self.hands: list[list[int]] = [[0] * 15 for _ in range(4)]
        self.hand_sizes = [0, 0, 0, 0]
        self.stock: list[int] = []
        self.pile: list[int] = []
        self.pile_freezers = 0
        self.melds: list[list[list[int]]] = [[[0, 0, 0] for _ in range(15)] for _ in range(2)]
        self.side_has_melded = [False, False]
        self.seat_has_melded = [False, False, False, False]
        self.red_threes = [0, 0, 0, 0]
        self.first_turn_done = [False, False, False, False]
        self.seat = (dealer + 1) % 4
        self.phase = ACQUIRE
        self.turn_count = 0
        self.side_turns = [0, 0]
        self.pile_takes = [0, 0]
        self.pile_cards_taken = [0, 0]
        self.frozen_pile_takes = [0, 0]
        self.pile_freezes = [0, 0]
        self.end_reason: str | None = None
        self.went_out_seat: int | None = None
        self.went_out_concealed = False
        self.meld_changes = 0
        """Counts every change to the melds on the table, so views can cache what they derive from them."""
        self._vouched: Move | None = None
        self._vouched_key: object = None
        self._listed: list = []
        """The moves a legal-move listing found legal since the last move applied, each followed by its key
        (MeldingRules._list): the one a strategy picks from a listing is applied on that check."""
        self._probing = False
        """Set while is_legal or a can_x runs: a broken rule then raises a shared error (MeldingRules._fail)."""
        self._collected: tuple | None = None
        """(move, its sums per rank, its hand cards by kind) from the last check that passed a meld or a take."""
        self._meld_tables: list[tuple[int, dict[int, tuple[int, int, int]]] | None] = [None, None]
        self._plan_cache: tuple | None = None
        """The last going-out plan (AskingRules.going_out_plan), for the key in the four fields below."""
        self._plan_hand: list | None = None  # a copy of the hand's count objects (identities.same_list); None: no plan
        self._plan_turn = 0
        self._plan_changes = 0
        self._plan_stop: bool | None = None
        self.history: list[tuple[int, Move, tuple[int, ...]]] = []
        """Every move as ``(seat, move, card ids drawn from the stock by it)``."""
        self.deck: tuple[int, ...] = ()
        """The shuffled deck the hand was dealt from (card ids, index 0 on top), for narration."""
        self._reset_turn()

    # ------------------------------------------------------------------ set-up

    @classmethod
    def deal(
        cls, rules: Rules, rng: random.Random | DeckGenerator, *, dealer: int, scores: Sequence[int] = (0, 0),
        hand_number: int = 1,
    ) -> HandState:
        """Shuffle with ``rng``, deal (R3.1), turn the upcard (R3.3) and lay dealt red 3s (R3.5)."""
        # A shuffled deck holds every card once by construction: no need for from_deck's check.
        if cls is HandState:  # the engine's deal: the state built and dealt by C calls compiled
            state = _new_state(rules, dealer, scores, hand_number)
            _set_up_deal(state, tuple(shuffled_deck(rng)), dealer)
            return state
        return cls._from_checked_deck(rules, shuffled_deck(rng), dealer, scores, hand_number)

    @classmethod
    def from_deck(
        cls, rules: Rules, deck: Sequence[int], *, dealer: int, scores: Sequence[int] = (0, 0), hand_number: int = 1
    ) -> HandState:
        """Deal a stacked deck of 108 card ids, index 0 the top card (R3.1's engine convention).

        Cards go out one at a time clockwise from the dealer's left; the next card is the upcard.
        """
        if sorted(deck) != list(range(108)):
            raise ValueError("a deck must hold each of the 108 card ids 0-107 exactly once (R1.1)")
        return cls._from_checked_deck(rules, deck, dealer, scores, hand_number)

    @classmethod
    def _from_checked_deck(
        cls, rules: Rules, deck: Sequence[int], dealer: int, scores: Sequence[int], hand_number: int
    ) -> HandState:
        state = cls(rules, dealer=dealer, scores=scores, hand_number=hand_number)
        _set_up_deal(state, tuple(deck), dealer)
        return state

    def copy(self) -> HandState:
        """An independent copy for look-ahead: playing moves on it never changes this state.

        Every mutable field is copied one level deeper than it is changed; the rules, the deck and
        the history's entries are immutable and shared, and the caches start empty.
        """
        other = HandState.__new__(HandState)
        other.rules = self.rules
        other.dealer = self.dealer
        other.hand_number = self.hand_number
        other.scores_before = self.scores_before
        other.requirements = self.requirements
        other.hands = [list(hand) for hand in self.hands]
        other.hand_sizes = list(self.hand_sizes)
        other.stock = list(self.stock)
        other.pile = list(self.pile)
        other.pile_freezers = self.pile_freezers
        other.melds = [[list(meld) for meld in side] for side in self.melds]
        other.side_has_melded = list(self.side_has_melded)
        other.seat_has_melded = list(self.seat_has_melded)
        other.red_threes = list(self.red_threes)
        other.first_turn_done = list(self.first_turn_done)
        other.seat = self.seat
        other.phase = self.phase
        other.turn_count = self.turn_count
        other.side_turns = list(self.side_turns)
        other.pile_takes = list(self.pile_takes)
        other.pile_cards_taken = list(self.pile_cards_taken)
        other.frozen_pile_takes = list(self.frozen_pile_takes)
        other.pile_freezes = list(self.pile_freezes)
        other.end_reason = self.end_reason
        other.went_out_seat = self.went_out_seat
        other.went_out_concealed = self.went_out_concealed
        other.meld_changes = self.meld_changes
        other._vouched = None
        other._vouched_key = None
        other._listed = []
        other._probing = False
        other._collected = None
        other._meld_tables = [None, None]
        other._plan_cache = None
        other._plan_hand = None
        other._plan_turn = 0
        other._plan_changes = 0
        other._plan_stop = None
        other.history = list(self.history)
        other.deck = self.deck
        other.acquired = self.acquired
        other.asked = self.asked
        other.answer = self.answer
        other.melded_this_turn = self.melded_this_turn
        other.must_stop = self.must_stop
        other.turn_new_ranks = set(self.turn_new_ranks)
        other.added_to_existing = self.added_to_existing
        other.turn_laid = list(self.turn_laid)
        other.melded_before_turn = self.melded_before_turn
        return other

    def _reset_turn(self) -> None:
        self.acquired: str | None = None
        self.asked = False
        self.answer: bool | None = None
        self.melded_this_turn = False
        self.must_stop = False
        self.turn_new_ranks: set[int] = set()
        self.added_to_existing = False
        self.turn_laid = _NO_KINDS[:]
        self.melded_before_turn = self.seat_has_melded[self.seat]

    @cython.locals(seat=Count)
    def _start_turn(self) -> None:
        if self.turn_count >= MAX_TURNS_PER_HAND:
            self._end(END_TURN_CAP)
            return
        seat = self.seat
        # _reset_turn, inlined (keep them alike): this runs every turn.
        self.acquired = None
        self.asked = False
        self.answer = None
        self.melded_this_turn = False
        self.must_stop = False
        # The last turn's counts of cards laid kept while they are all zeros, as after most turns: _lay, their only
        # writer, also leaves a new rank or an addition to an existing meld (tested before both are reset).
        # Otherwise KIND_COUNT zeros as a literal: a new list with no slice of another (_NO_KINDS[:] in _reset_turn).
        if self.turn_new_ranks or self.added_to_existing or type(self.turn_laid) is not list:
            self.turn_laid = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        # The last turn's set of new ranks kept while empty (most turns meld nothing): a new set each turn costs
        # an allocation and a free.  HandState.copy gives a copy a set of its own.
        if type(self.turn_new_ranks) is not set or self.turn_new_ranks:
            self.turn_new_ranks = set()
        self.added_to_existing = False
        self.melded_before_turn = self.seat_has_melded[seat]
        if not self.first_turn_done[seat]:
            self._lay_dealt_red_threes(seat)
        if not self.stock and self.rules.stock_exhausted_rule == "strict":
            self._end(END_STOCK_EXHAUSTED)
            return
        self.turn_count += 1
        self.side_turns[seat & 1] += 1
        self.phase = ACQUIRE

    # ------------------------------------------------------------------ queries

    @property
    def side(self) -> int:
        """The side (0 = A, 1 = B) of the seat to move."""
        return self.seat & 1

    @property
    def actor(self) -> int:
        """The seat that decides now: the partner while an ask waits for its answer."""
        return (self.seat + 2) % 4 if self.phase == ANSWER else self.seat

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended."""
        return self.phase == OVER

    @property
    def pile_top(self) -> int | None:
        """The kind on top of the discard pile, or ``None`` when it is empty."""
        return self.pile[-1] if self.pile else None

    def control(self) -> tuple:
        """Whose turn it is and what governs it, as one tuple: ``(seat, phase, pile_freezers, rules,
        requirements, scores_before, dealer)`` (what the arbiter's fingerprint compares besides the cards)."""
        return (self.seat, self.phase, self.pile_freezers, self.rules, self.requirements, self.scores_before,
                self.dealer)

    def is_pile_frozen(self) -> bool:
        """R8.1b: the pile holds a wild card or a red 3 (or a black 3 under ``black_three_freezes_pile``)."""
        return self.pile_freezers > 0

    @cython.locals(count=Count, meld=list)
    def canasta_count(self, side: int) -> int:
        """How many canastas the side has on the table (R11.1)."""
        # A C method counting in C integers compiled (sim/core/state.pxd): the view asks it for the bots.
        count = 0
        for meld in self.melds[side]:
            naturals = meld[0]
            jokers = meld[1]
            deuces = meld[2]
            if naturals + jokers + deuces >= CANASTA_SIZE:
                count += 1
        return count

    @cython.locals(rank=Count, naturals=Count, jokers=Count, deuces=Count, stamp=Count, tables=list, melds=list,
                   cached=tuple)
    def meld_table(self, side: int) -> dict[int, tuple[int, int, int]]:
        """The side's melds as ``{rank: (naturals, jokers, deuces)}``, ranks in order, melded ranks only.

        Shared and rebuilt only after the melds changed (see :attr:`meld_changes`): every view asks
        for it many times a turn.  Callers must not modify it; :meth:`SeatView.melds` hands out copies.
        """
        tables = self._meld_tables
        cached = tables[side]
        if cached is not None:
            stamp = cached[0]  # a C integer compiled, compared with the counter with no integer boxed
            if stamp == self.meld_changes:
                return cached[1]
        table = {}
        melds = self.melds[side]
        for rank in range(KIND_COUNT):
            naturals, jokers, deuces = melds[rank]
            if naturals or jokers or deuces:
                table[rank] = (naturals, jokers, deuces)
        tables[side] = (self.meld_changes, table)
        return table

    def requirement(self, side: int) -> int:
        """The side's initial-meld minimum this hand (R10.2), 0 once it has melded (R10.6)."""
        return 0 if self.side_has_melded[side] else self.requirements[side]

    # ------------------------------------------------------------------ helpers

    def _next_turn(self) -> None:
        self.seat = (self.seat + 1) % 4
        self._start_turn()

    # ------------------------------------------------------------------ discard

    @cython.locals(hand_after=Count, record=Discard)
    def verify_discard(self, move: Discard) -> bool:
        """R6.1, R6.3, R6.4, R12: any card may be discarded; the last one only when going out is allowed.
        ``True`` when it may; while probing, the commonest refusals return ``False`` (see ``verify_meld``)."""
        self._verify_phase(move, PLAY)
        if self.must_stop:
            raise self._fail("R13.1", "after a red 3 as the last stock card the player may not discard", move)
        record = move  # compiled, its field is then read as a C member
        card = record.card
        # is_kind(card), with a plain int in range answered without the call (the commonest record).
        if not (type(card) is int and 0 <= card < KIND_COUNT) and not is_kind(card):
            raise self._malformed(move, card)
        hand = self.hands[self.seat]
        if hand[card] == 0:
            if self._probing:  # the message below would be formatted only to be discarded
                return False
            raise self._fail("R6.1", f"the hand holds {kind_words(card, 0)} (hand: {counts_text(hand)})", move)
        hand_after = self.hand_sizes[self.seat] - 1
        if hand_after > 0 and self.answer is not True:
            return True  # what _verify_going_out answers for a discard that keeps a card, with no call
        return self._verify_going_out(move, hand_after, _NO_ADDITIONS)

    def can_discard(self, move: Discard) -> bool:
        """Return whether :meth:`discard` is legal now."""
        return self._probe(move)

    @cython.locals(seat=Count, index=Count, record=Discard)
    def discard(self, move: Discard) -> None:
        """Put the card on the pile, freezing it if wild (R8.1b); the turn passes, or the hand ends."""
        if not self._take_vouch(move):
            self.verify_discard(move)
        seat = self.seat
        record = move  # compiled, its field is then read as a C member
        kind = record.card
        # The kind as a C integer compiled, to index the hand; the record's own object goes on the pile.
        index = kind
        self.hands[seat][index] -= 1
        self.hand_sizes[seat] -= 1
        self.pile.append(kind)
        if index <= TWO or (index == BLACK_THREE and self.rules.black_three_freezes_pile):
            if not self.pile_freezers:
                self.pile_freezes[seat & 1] += 1
            self.pile_freezers += 1
        self.history.append((seat, move, ()))
        if self.hand_sizes[seat] == 0:
            self._go_out()
        else:
            self.seat = (seat + 1) % 4  # _next_turn, inlined
            self._start_turn()

    # ------------------------------------------------------------------ dispatch

    def verify(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` if ``move`` is not legal now; a non-move raises it too."""
        if not self._verify_move(move):
            raise IllegalMoveError("E1", f"{shown_value(move)} is not a move", seat=self.actor, phase=self.phase)

    def _verify_move(self, move: Move) -> bool:
        """Run the move's ``verify_x``; ``False`` for what is no move (a subclass of a move's record is none either),
        and while probing for a move a ``verify_x`` refused by returning ``False`` (see ``verify_meld``).

        The dispatch tests the exact type, commonest first, rather than looking it up in a table: compiled,
        each ``verify_x`` is then a C method call (sim/core/state.pxd), and strategies ask this for most moves.
        """
        move_type = type(move)
        if move_type is Meld:
            return self.verify_meld(move)
        elif move_type is TakePile:
            return self.verify_take_pile(move)
        elif move_type is Discard:
            return self.verify_discard(move)
        elif move_type is Draw:
            self.verify_draw(move)
        elif move_type is Stop:
            self.verify_stop(move)
        elif move_type is Ask:
            self.verify_ask(move)
        elif move_type is Answer:
            self.verify_answer(move)
        else:
            return False
        return True

    def is_legal(self, move: Move) -> bool:
        """Return whether ``move`` is legal now."""
        if not self._probe(move):
            return False
        # Strategies check a move and the engine then applies that very object: remember it, so
        # the apply need not verify it again.  Any move applied clears this (see _take_vouch).
        self._vouch(move)
        return True

    def apply(self, move: Move) -> None:
        """Verify and apply any move."""
        # The exact type, as in _verify_move: compiled, each move's method is a C method call.
        move_type = type(move)
        if move_type is Discard:
            self.discard(move)
        elif move_type is Draw:
            self.draw(move)
        elif move_type is Meld:
            self.meld(move)
        elif move_type is TakePile:
            self.take_pile(move)
        elif move_type is Stop:
            self.stop(move)
        elif move_type is Ask:
            self.ask(move)
        elif move_type is Answer:
            self.answer_ask(move)
        else:
            raise IllegalMoveError("E1", f"{shown_value(move)} is not a move", seat=self.actor, phase=self.phase)

    # ------------------------------------------------------------------ invariants

    def card_total(self) -> int:
        """Count every card in hands, stock, pile, melds and red 3s; 108 while the state is sound (R1.1)."""
        melded = sum(sum(meld) for side in self.melds for meld in side)
        return sum(self.hand_sizes) + len(self.stock) + len(self.pile) + melded + sum(self.red_threes)

    def side_meld_points(self, side: int) -> int:
        """R14.1a: card points of the side's melds."""
        return sum(meld_value(rank, *meld) for rank, meld in enumerate(self.melds[side]))


def _init_state(state: HandState, rules: Rules, dealer: int, scores: Sequence[int], hand_number: int) -> None:
    """HandState.__init__'s work on ``state``; a function of the module so that compiled ``state`` is typed."""
    state._init_fields(rules, dealer, scores, hand_number)


def _new_state(rules: Rules, dealer: int, scores: Sequence[int], hand_number: int) -> HandState:
    """``HandState(rules, dealer=dealer, scores=scores, hand_number=hand_number)`` without the keyword call: compiled,
    a bare instance from the type's own allocator and its fields set by a C method."""
    state = HandState.__new__(HandState)
    _init_state(state, rules, dealer, scores, hand_number)
    return state


@cython.locals(offset=Count)
def _set_up_deal(state: HandState, deck: tuple[int, ...], dealer: int) -> None:
    """Deal ``deck`` into a new ``state`` (R3.1), turn the upcard (R3.3), lay dealt red 3s (R3.5), start the first turn.

    A function of the module, not of the class method that calls it: compiled, ``state`` is then typed
    (sim/core/state.pxd) and each step is a C method call.
    """
    state.deck = deck
    _deal_hands(deck, dealer + 1, state.hands, state.hand_sizes)
    # The undealt cards, the deck's last on top (stock[-1]): a reversed slice of the tuple, copied once.
    state.stock = list(deck[:_DEALT - 1:-1])
    state._turn_upcard()
    if state.rules.dealt_red_three_timing == "after_deal":
        for offset in range(1, 5):
            state._lay_dealt_red_threes((dealer + offset) % 4)
    state._start_turn()
