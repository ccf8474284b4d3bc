"""The stock: the upcard, red 3s laid and replaced, drawing, and stopping when the stock runs out.

:class:`StockRules` is a part of :class:`canasta_sim.core.state.HandState` kept in its own module, like
:class:`~canasta_sim.core.melding.MeldingRules`: the turn's upcard (R3.3), dealt red 3s laid and replaced (R3.5),
the :class:`~canasta_sim.core.moves.Draw` (R7.1, R4.2) and :class:`~canasta_sim.core.moves.Stop` (R13.1, R13.3)
moves.  It uses the hand state's attributes and is not meant to be used on its own.
"""

from __future__ import annotations

from canasta_sim.core.asking import AskingRules
from canasta_sim.core.cards import BLACK_THREE, CARD_KIND, RED_THREE, TWO
from canasta_sim.core.moves import DRAW, STOP, Draw, Stop
from canasta_sim.core.phases import ACQUIRE, END_RED_THREE_LAST_CARD, END_STOCK_EXHAUSTED, PLAY

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

__all__ = ["StockRules"]


class StockRules(AskingRules):
    """The upcard, red 3s and the :class:`~canasta_sim.core.moves.Draw` and :class:`~canasta_sim.core.moves.Stop`
    moves of a hand (a base of :class:`~.state.HandState`)."""

    __slots__ = ()  # HandState holds the fields

    def _turn_upcard(self) -> None:
        # R3.3: wild cards and red 3s stay in the pile, freezing it, until a plain card shows.
        while self.stock:
            kind = CARD_KIND[self.stock.pop()]
            self.pile.append(kind)
            if kind <= TWO or kind == RED_THREE:
                self.pile_freezers += 1
                continue
            if kind == BLACK_THREE and self.rules.black_three_freezes_pile:
                self.pile_freezers += 1
            break

    def _lay_dealt_red_threes(self, seat: int) -> None:
        hand = self.hands[seat]
        while hand[RED_THREE] and self.stock:
            hand[RED_THREE] -= 1
            self.hand_sizes[seat] -= 1
            self.red_threes[seat] += 1
            card = self.stock.pop()
            hand[CARD_KIND[card]] += 1
            self.hand_sizes[seat] += 1
        self.first_turn_done[seat] = True

    def _lay_red_threes_left_in_hand(self) -> None:
        """D22: at the hand's end, each seat whose first turn never came (R3.5 ``first_turn``) lays its dealt red 3s,
        which belong to its side and score (R4.1, R14.1d); nothing replaces them, the hand being over.  Only the
        hands holding one are written: a bot's rebuilt state knows no first turns, and the other seats' hands are
        unknown and immutable there."""
        for seat in range(4):
            held = self.hands[seat][RED_THREE]
            if held and not self.first_turn_done[seat]:
                self.hands[seat][RED_THREE] = 0
                self.hand_sizes[seat] -= held
                self.red_threes[seat] += held
                self.first_turn_done[seat] = True

    def verify_draw(self, move: Draw = DRAW) -> None:
        """R6.1, R7.1: drawing needs the acquire phase and a card in the stock (else R13.3)."""
        self._verify_phase(move, ACQUIRE)
        if not self.stock:
            raise self._fail("R13.3", "the stock is empty; take the pile if allowed, or stop", move)

    def can_draw(self, move: Draw = DRAW) -> bool:
        """Return whether :meth:`draw` is legal now."""
        return self._probe(move)

    @cython.locals(seat=Count, index=Count)
    def draw(self, move: Draw = DRAW) -> None:
        """Draw the top stock card; lay red 3s and replace them (R4.2); R13.1 if one was the last card."""
        if not self._take_vouch(move):
            self.verify_draw(move)
        seat = self.seat
        card = self.stock.pop()
        kind = CARD_KIND[card]
        if kind != RED_THREE:  # the commonest draw, one card: its tuple built at once, no list of the cards
            index = kind  # a C integer compiled: the hand's count found without a boxed index
            self.hands[seat][index] += 1
            self.hand_sizes[seat] += 1
            self.history.append((seat, move, (card,)))
            self.acquired = "draw"
            self.phase = PLAY
            return
        drawn: list[int] = [card]
        while True:
            self.red_threes[seat] += 1
            if not self.stock:
                self.history.append((seat, move, tuple(drawn)))
                self.acquired = "draw"
                if self.rules.last_card_red_three == "end_no_meld":
                    self._end(END_RED_THREE_LAST_CARD)
                else:
                    self.phase = PLAY
                    self.must_stop = True
                return
            card = self.stock.pop()
            drawn.append(card)
            kind = CARD_KIND[card]
            if kind != RED_THREE:
                break
        self.hands[seat][kind] += 1
        self.hand_sizes[seat] += 1
        self.history.append((seat, move, tuple(drawn)))
        self.acquired = "draw"
        self.phase = PLAY

    # ------------------------------------------------------------------ stop

    def verify_stop(self, move: Stop = STOP) -> None:
        """R13.3: decline the pile on an empty stock; R13.1: end a turn that may not discard."""
        if self.phase == PLAY and self.must_stop:
            return
        self._verify_phase(move, ACQUIRE)
        if self.stock:
            raise self._fail("R6.1", "the stock is not empty, so the player must draw or take the pile", move)
        if self.must_take_pile():
            raise self._fail(
                "R13.3",
                "stock_exhausted_rule=official: the top card fits the side's meld of an unfrozen pile, "
                "so the player must take it",
                move,
            )

    def can_stop(self, move: Stop = STOP) -> bool:
        """Return whether :meth:`stop` is legal now."""
        return self._probe(move)

    def stop(self, move: Stop = STOP) -> None:
        """End the hand: the stock is exhausted (R13.3) or the last card was a red 3 (R13.1)."""
        if not self._take_vouch(move):
            self.verify_stop(move)
        self.history.append((self.seat, move, ()))
        self._end(END_RED_THREE_LAST_CARD if self.must_stop else END_STOCK_EXHAUSTED)
