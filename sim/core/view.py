"""What one seat may know: the :class:`SeatView` a strategy decides from.

A view exposes exactly what a player at the table may know: its own hand,
every meld on the table, red 3s, the discard pile (every card in it was seen
going in, face up), each player's hand size, the stock's size, the scores and
the rule set.  It never exposes another player's hand or the order of the
stock.  Everything it returns is a fresh tuple or an immutable value, so
changing what a view returns cannot change the game.

This is a fairness convention inside one Python process, not a security
sandbox: a strategy determined to cheat can reach the engine's objects
through Python's introspection.  The project's built-in strategies and its
conformance tests keep to the view.  A strategy run in a process of its own
(``isolated:SPEC``, :mod:`canasta_sim.plugins.proxy`) gets this view rebuilt from a
message (:mod:`canasta_sim.plugins.messages`) and can reach nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator

from canasta_sim.core.cards import KIND_COUNT, KIND_VALUE
from canasta_sim.core.legal import (
    legal_acquires,
    legal_discards,
    legal_melds,
    legal_moves,
    legal_takes,
    meld_candidates,
)
from canasta_sim.core.moves import Discard, Meld, MeldGroup, Move, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ANSWER, HandState, _is_phase
from canasta_sim.errors import IllegalMoveError

__all__ = ["SeatView"]

_KIND_COUNT = KIND_COUNT  # a C integer where compiled (sim/core/view.pxd)
_ANSWER = ANSWER  # a str where compiled (sim/core/view.pxd)
Snapshot = tuple[tuple[int, ...], int, int, bool | None, int | None, int, tuple[int, int, int, int], int]
"""What :meth:`SeatView.snapshot` returns: ``(hand, hand_number, turn_count, partner_answer, pile_top, pile_size,
hand_sizes, stock_count)``, each typed as its property."""
_NOTHING = iter(())
"""What a listing for another seat's turn returns: an exhausted iterator stays exhausted, so every such listing
can hand out the same one instead of making an iterator per call."""


def _verify_side(side: object) -> int:
    """Raise ``ValueError`` unless ``side`` is 0 or 1: the state's per-side lists read at -1 answered for side B."""
    if side != 0 and side != 1:
        raise ValueError(f"side must be 0 or 1, not {side!r}")
    return 0


class SeatView:
    """The game as seat ``seat`` sees it; a live window that follows the hand as it is played."""

    __slots__ = ("_state", "_seat", "_scores")

    def __init__(self, state: HandState, seat: int, scores: tuple[int, int]) -> None:
        self._state = state
        self._seat = seat
        self._scores = (scores[0], scores[1])

    @property
    def scores(self) -> tuple[int, int]:
        """Both sides' running totals before this hand (side A, side B)."""
        return self._scores

    # ---------------------------------------------------------------- identity

    @property
    def seat(self) -> int:
        """This seat, 0-3 clockwise."""
        return self._seat

    @property
    def side(self) -> int:
        """This seat's side: 0 (A, seats 0 and 2) or 1 (B, seats 1 and 3)."""
        return self._seat & 1

    @property
    def partner(self) -> int:
        """The partner's seat, opposite (R2.1)."""
        return (self._seat + 2) % 4

    @property
    def rules(self) -> Rules:
        """The rule set (immutable)."""
        return self._state.rules

    # ---------------------------------------------------------------- the turn

    @property
    def hand_number(self) -> int:
        """1 for the first hand of the game."""
        return self._state.hand_number

    @property
    def dealer(self) -> int:
        """The seat that dealt this hand."""
        return self._state.dealer

    @property
    def seat_to_move(self) -> int:
        """The seat whose turn it is."""
        return self._state.seat

    @property
    def phase(self) -> str:
        """``acquire``, ``play``, ``answer`` or ``over``."""
        return self._state.phase

    @property
    def acquired(self) -> str | None:
        """How the player to move began the turn: ``'draw'``, ``'pile'`` or ``None`` yet."""
        return self._state.acquired

    @property
    def partner_answer(self) -> bool | None:
        """This turn's answer to an ask: ``True``, ``False`` or ``None`` (not asked)."""
        return self._state.answer

    @property
    def turn_count(self) -> int:
        """Turns begun so far this hand."""
        return self._state.turn_count

    def snapshot(self) -> Snapshot:
        """What a decision reads, in one call: ``(hand, hand_number, turn_count, partner_answer, pile_top,
        pile_size, hand_sizes, stock_count)``, each as its property gives it."""
        state = self._state
        # The hand state's lists, typed compiled (sim/core/view.pxd): read without the generic item protocol.
        hands = state.hands
        hand = hands[self._seat]
        sizes = state.hand_sizes
        pile = state.pile
        return (
            tuple(hand),
            state.hand_number,
            state.turn_count,
            state.answer,
            pile[-1] if pile else None,  # HandState.pile_top, inlined: a property is looked up by name
            len(pile),
            (sizes[0], sizes[1], sizes[2], sizes[3]),
            len(state.stock),
        )

    # ---------------------------------------------------------------- cards

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's hand as a count vector by kind (see :mod:`canasta_sim.core.cards`)."""
        return tuple(self._state.hands[self._seat])

    @property
    def hand_size(self) -> int:
        """Cards in this seat's hand: ``sum(view.hand)``, read without a tuple built."""
        return self._state.hand_sizes[self._seat]

    @property
    def hand_sizes(self) -> tuple[int, int, int, int]:
        """How many cards each seat holds."""
        sizes = self._state.hand_sizes
        return (sizes[0], sizes[1], sizes[2], sizes[3])

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return len(self._state.stock)

    @property
    def pile(self) -> tuple[int, ...]:
        """The discard pile's kinds, bottom first; each was seen going in face up."""
        return tuple(self._state.pile)

    @property
    def pile_top(self) -> int | None:
        """The kind on top of the pile, or ``None`` when it is empty."""
        return self._state.pile_top

    @property
    def pile_size(self) -> int:
        """Cards in the discard pile."""
        return len(self._state.pile)

    @property
    def is_pile_frozen(self) -> bool:
        """R8.1b: frozen by a wild card or red 3 in it."""
        return self._state.pile_freezers > 0  # HandState.is_pile_frozen, inlined: a C field read where compiled

    @property
    def is_pile_blocked(self) -> bool:
        """R8.1a, R5.2: nobody may take it while this top card shows."""
        return self._state.is_pile_blocked()

    def is_pile_frozen_for(self, side: int) -> bool:
        """R8.1b or R8.1c: frozen for ``side`` (by content, or because it has not melded)."""
        _verify_side(side)
        return self._state.is_pile_frozen_for(side)

    @property
    def red_threes(self) -> tuple[int, int, int, int]:
        """Red 3s laid down in front of each seat."""
        counts = self._state.red_threes
        return (counts[0], counts[1], counts[2], counts[3])

    def melds(self, side: int) -> dict[int, tuple[int, int, int]]:
        """The side's melds: a fresh ``{rank: (naturals, jokers, deuces)}`` for every rank it has melded."""
        _verify_side(side)
        return self._state.meld_table(side).copy()

    def meld_size(self, side: int, rank: int) -> int:
        """The cards in the side's meld of ``rank``, 0 where it has none: ``sum(melds(side)[rank])`` for a
        melded rank, found without a dict built.  ``side`` is 0 or 1, ``rank`` a kind (0 to ``KIND_COUNT - 1``;
        a wild-card meld, where the rules allow one, is at ``WILD_RANK``)."""
        if side != 0 and side != 1:
            raise ValueError(f"side must be 0 or 1, not {side!r}")
        if not 0 <= rank < _KIND_COUNT:
            raise ValueError(f"rank must be a kind from 0 to {KIND_COUNT - 1}, not {rank!r}")
        # The engine's melds are lists (sim/core/state.py): read as lists where compiled, without the generic protocol.
        melds = self._state.melds
        side_melds = melds[side]
        meld = side_melds[rank]
        naturals = meld[0]  # C integers where compiled: the sum below is C arithmetic
        jokers = meld[1]
        deuces = meld[2]
        return naturals + jokers + deuces

    def melded_ranks(self, side: int) -> int:
        """The ranks the side has melded as a bit mask, bit ``rank`` set for each: ``rank in view.melds(side)``
        is ``view.melded_ranks(side) >> rank & 1``, found without a dict built.  ``side`` is 0 or 1."""
        if side != 0 and side != 1:
            raise ValueError(f"side must be 0 or 1, not {side!r}")
        # The state's shared table (rebuilt only when the melds change) read, not copied: only its keys are used.
        ranks = 0
        for rank in self._state.meld_table(side):
            ranks |= 1 << rank
        return ranks

    def canasta_count(self, side: int) -> int:
        """Canastas the side has on the table."""
        _verify_side(side)
        return self._state.canasta_count(side)  # R11.1; compiled, a C call (sim/core/state.pxd)

    def has_melded(self, side: int) -> bool:
        """Whether the side has made its initial meld this hand."""
        _verify_side(side)
        return self._state.side_has_melded[side]

    def requirement(self, side: int) -> int:
        """The side's initial-meld minimum now: the R10.2 figure, or 0 once it has melded."""
        _verify_side(side)
        return self._state.requirement(side)

    def initial_requirement(self, side: int) -> int:
        """The side's R10.2 minimum for this hand, whether or not it has melded."""
        _verify_side(side)
        return self._state.requirements[side]

    # ---------------------------------------------------------------- moves

    def legal_moves(self) -> Iterator[Move]:
        """Lazily yield the legal moves of the decision now due (see :mod:`canasta_sim.core.legal`)."""
        return legal_moves(self._state) if self._state.actor == self._seat else _NOTHING

    def legal_acquires(self) -> Iterator[Move]:
        """Lazily yield the legal ways to begin the turn."""
        return legal_acquires(self._state) if self._state.seat == self._seat else _NOTHING

    def legal_takes(self) -> Iterator[TakePile]:
        """Lazily yield the legal pile takes."""
        return legal_takes(self._state) if self._state.seat == self._seat else _NOTHING

    def legal_melds(self) -> Iterator[Meld]:
        """Lazily yield legal melds (single groups once the side has melded, whole openings before)."""
        return legal_melds(self._state) if self._state.seat == self._seat else _NOTHING

    def meld_candidates(self, largest_first: bool = False) -> Iterator[Meld]:
        """Lazily yield well-shaped melds in :meth:`legal_melds` order, not yet judged against the
        turn: check each with :meth:`can` (cheaper when only a few are worth checking).
        ``largest_first`` orders them by hand cards laid, most first, ties in listing order."""
        if self._state.seat != self._seat:
            return _NOTHING
        return meld_candidates(self._state, largest_first)

    def legal_discards(self) -> Iterator[Discard]:
        """Lazily yield the legal discards."""
        return legal_discards(self._state) if self._state.seat == self._seat else _NOTHING

    def can(self, move: Move) -> bool:
        """Return whether ``move`` would be legal for this seat now, without playing it."""
        state = self._state
        # state.actor, inlined: strategies ask this for most moves they make.  The phase compared by identity
        # (_is_phase), a C call where compiled.
        actor = (state.seat + 2) % 4 if _is_phase(state.phase, _ANSWER) else state.seat
        return actor == self._seat and state.is_legal(move)

    def verify(self, move: Move) -> None:
        """Raise :class:`~canasta_sim.errors.IllegalMoveError` naming the rule ``move`` would break.

        Outside this seat's own decisions every move is refused without looking at the game, so
        that probing moves cannot reveal what another player holds.
        """
        state = self._state
        if state.actor != self._seat:
            raise IllegalMoveError(
                "R2.4", f"it is seat {state.actor}'s decision, not seat {self._seat}'s", seat=self._seat, move=move
            )
        state.verify(move)

    def can_go_out(self) -> bool:
        """Whether this seat, being the player to move, could meld out this turn from here (E4)."""
        return self._state.seat == self._seat and self._state.can_go_out_this_turn()

    def going_out_plan(self) -> tuple[tuple[MeldGroup, ...], int | None] | None:
        """Groups that meld this hand out this turn and the kind left to discard (``None`` for none),
        or ``None`` when going out is impossible (E4).  Lay them as one ``Meld``, then discard."""
        return self._state.going_out_plan() if self._state.seat == self._seat else None

    def hand_value(self) -> int:
        """Card points in this seat's hand (what it would cost if the hand ended now)."""
        hand = self._state.hands[self._seat]
        return sum([hand[kind] * KIND_VALUE[kind] for kind in range(KIND_COUNT)])
