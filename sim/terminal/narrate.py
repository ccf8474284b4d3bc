"""Plain-text narration of a game, turn by turn, like a commented game in a rule book.

:class:`Narrator` is a :class:`~canasta_sim.core.engine.GameObserver`: hand one to
:func:`~canasta_sim.core.engine.play_game` (or call :func:`narrate_game`) and it writes each
draw or pile take and why it was allowed, each meld, discard, red 3, canasta,
the partner's question and answer, and every hand's score with its parts.

The engine works on kinds; suits survive only in the card ids of the deck it
dealt from (:attr:`~canasta_sim.core.state.HandState.deck`).  :class:`TableCards` follows
every card id through the hand: the deal (R3.1), the upcards (R3.3), dealt red
3s and their replacements (R3.5), draws (R4.2), pile takes (R8.3, R4.3), melds
and discards.  When a move names only a kind, the card of that kind the player
received most recently is the one that moves, so a narration is deterministic.

With ``shown_seats`` empty the narration is public: it names no card in any
hand and no card drawn from the stock, only what the table sees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    CARD_SUIT,
    JOKER,
    KIND_COUNT,
    KIND_VALUE,
    RED_THREE,
    TWO,
    card_text,
)
from canasta_sim.core.engine import GameObserver, GameResult, StrategyFactory, play_game
from canasta_sim.core.melds import CANASTA_SIZE, rank_words
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult
from canasta_sim.core.state import (
    ACQUIRE,
    END_RED_THREE_LAST_CARD,
    END_STOCK_EXHAUSTED,
    END_TURN_CAP,
    END_WENT_OUT,
    HandState,
)

__all__ = [
    "SEAT_NAMES",
    "SIDE_NAMES",
    "Narrator",
    "TableCards",
    "cards_text",
    "narrate_game",
    "rank_words",
    "score_rows",
    "score_table",
    "sorted_cards",
]

SEAT_NAMES = ("South", "West", "North", "East")
"""Seats 0-3 clockwise; partners sit opposite (R2.1)."""
SIDE_NAMES = ("South & North", "West & East")
"""Side A (seats 0 and 2) and side B (seats 1 and 3)."""

_DEALT = 44
def sorted_cards(card_ids: Iterable[int]) -> list[int]:
    """Return card ids sorted by rank, aces first, then 3s, deuces and jokers; suits in ♠♥♦♣ order."""
    return sorted(card_ids, key=lambda card: (-CARD_KIND[card], CARD_SUIT[card], card))


def cards_text(card_ids: Iterable[int]) -> str:
    """Return cards with suits, sorted by rank (``'K♠ K♥ 7♦ JK'``), or ``'-'`` for none."""
    return " ".join(card_text(card) for card in sorted_cards(card_ids)) or "-"


def _count_kinds(card_ids: Iterable[int]) -> list[int]:
    counts = [0] * KIND_COUNT
    for card in card_ids:
        counts[CARD_KIND[card]] += 1
    return counts


class TableCards:
    """Where every card id of one hand is, kept in step with a live :class:`~canasta_sim.core.state.HandState`.

    :ivar hands: each seat's card ids in the order received.
    :ivar stock: card ids, the top card last (as in the state).
    :ivar pile: the discard pile's card ids, the top card last.
    :ivar melds: ``melds[side][rank]``: the card ids of the side's meld of that rank.
    :ivar red_threes: each seat's red 3s laid down.
    :ivar upcards: the cards turned to start the pile (R3.3).
    """

    def __init__(self, state: HandState) -> None:
        deck = state.deck
        self.dealer = state.dealer
        self.hands: list[list[int]] = [[] for _ in range(4)]
        for index in range(_DEALT):
            self.hands[(state.dealer + 1 + index) % 4].append(deck[index])
        self.stock = list(reversed(deck[_DEALT:]))
        self.pile = [self.stock.pop() for _ in range(len(state.pile))]
        self.upcards = tuple(self.pile)
        self.melds: list[dict[int, list[int]]] = [{}, {}]
        self.red_threes: list[list[int]] = [[], [], [], []]
        self._red_threes_laid = [False, False, False, False]

    def lay_dealt_red_threes(self, state: HandState) -> list[tuple[int, list[int], list[int]]]:
        """Follow R3.5 for every seat the state has newly done it for; return ``(seat, laid, drawn)`` each.

        The engine lays a seat's dealt red 3s after the deal or at its first turn
        (``dealt_red_three_timing``), replacing each from the stock, a red 3 replacement included; those of a seat
        whose first turn never came, as the hand ends, with no replacement (D22).
        """
        events = []
        over = state.is_over
        for offset in range(1, 5):
            seat = (self.dealer + offset) % 4
            if self._red_threes_laid[seat] or not state.first_turn_done[seat]:
                continue
            self._red_threes_laid[seat] = True
            laid: list[int] = []
            drawn: list[int] = []
            hand = self.hands[seat]
            while (self.stock or over) and any(CARD_KIND[card] == RED_THREE for card in hand):
                red = self.take(seat, RED_THREE)
                self.red_threes[seat].append(red)
                laid.append(red)
                if over:
                    continue
                card = self.stock.pop()
                hand.append(card)
                drawn.append(card)
            if laid:
                events.append((seat, laid, drawn))
        return events

    def take(self, seat: int, kind: int) -> int:
        """Remove and return the card of ``kind`` the seat received most recently."""
        hand = self.hands[seat]
        for index in range(len(hand) - 1, -1, -1):
            if CARD_KIND[hand[index]] == kind:
                return hand.pop(index)
        raise RuntimeError(f"narration lost track of the cards: seat {seat} holds no {kind} card")

    def draw(self, seat: int, drawn: Sequence[int]) -> None:
        """A draw: red 3s are laid down (R4.2); the last card, if not a red 3, joins the hand."""
        for card in drawn:
            self.stock.pop()
            (self.red_threes[seat] if CARD_KIND[card] == RED_THREE else self.hands[seat]).append(card)

    def lay(self, seat: int, rank: int, kinds: Iterable[int]) -> list[int]:
        """Move cards of these kinds from the seat's hand to its side's meld of ``rank``; return their ids."""
        card_ids = [self.take(seat, kind) for kind in kinds]
        self.melds[seat & 1].setdefault(rank, []).extend(card_ids)
        return card_ids

    def take_pile(self, seat: int, move: TakePile) -> tuple[list[int], list[list[int]], list[int], list[int]]:
        """Meld the top card as ``move`` says and take the rest (R8.3).

        :returns: the hand cards melded with the top card, those of each extra meld, the cards
            taken into hand, and the buried red 3s laid down (R4.3).
        """
        top = self.pile[-1]
        self.melds[seat & 1].setdefault(CARD_KIND[top], []).append(top)
        with_top = self.lay(seat, CARD_KIND[top], move.cards)
        extra = [self.lay(seat, group.rank, group.cards) for group in move.extra]
        taken = [card for card in self.pile[:-1] if CARD_KIND[card] != RED_THREE]
        reds = [card for card in self.pile[:-1] if CARD_KIND[card] == RED_THREE]
        self.hands[seat].extend(taken)
        self.red_threes[seat].extend(reds)  # R4.3: laid down, never replaced
        self.pile = []
        return with_top, extra, taken, reds

    def discard(self, seat: int, kind: int) -> int:
        """Move a card of ``kind`` from the seat's hand to the pile; return its id."""
        card = self.take(seat, kind)
        self.pile.append(card)
        return card

    def verify(self, state: HandState) -> None:
        """Raise ``RuntimeError`` if these card ids no longer match the state's counts (a narrator bug)."""
        for seat in range(4):
            counts = _count_kinds(self.hands[seat])
            if counts != state.hands[seat] or len(self.red_threes[seat]) != state.red_threes[seat]:
                raise RuntimeError(f"narration lost track of the cards of seat {seat}")
        if len(self.stock) != len(state.stock) or [CARD_KIND[card] for card in self.pile] != state.pile:
            raise RuntimeError("narration lost track of the stock or the discard pile")


class Narrator(GameObserver):
    """Writes a game as plain text, one line at a time, through ``write``.

    :param write: called with each line (``click.echo``, ``print``, ``list.append``).
    :param shown_seats: the seats whose hands and drawn cards may be named; empty for public narration.
    :param seat_names: a name for each seat.
    """

    def __init__(
        self,
        write: Callable[[str], object] = print,
        *,
        shown_seats: Iterable[int] = range(4),
        seat_names: Sequence[str] = SEAT_NAMES,
    ) -> None:
        self.write = write
        self.shown_seats = frozenset(shown_seats)
        self.seat_names = tuple(seat_names)
        self.cards: TableCards | None = None
        """The card ids of the hand being played, for whoever shows the table (the terminal game)."""
        self._phase = ACQUIRE
        self._freezers = 0
        self._side_melded = [False, False]

    # ------------------------------------------------------------ the game

    def game_header(self, *, seed: int, labels: Sequence[str], rules: Rules = DEFAULT_RULES) -> None:
        """Write who plays where, the seed and the rules that differ from the defaults."""
        self.write(f"Canasta, game seed {seed}, played to {rules.target_score}.")
        for side in (0, 1):
            seats = ", ".join(f"{self.seat_names[seat]} (seat {seat}) {labels[seat]}" for seat in (side, side + 2))
            self.write(f"Side {'AB'[side]}: {seats}.")
        changed = rules.changed_words()
        if changed:
            self.write("Rules changed from the defaults: " + ", ".join(changed) + ".")
        else:
            self.write("Rules: the defaults (canasta-sim docs rules).")

    def game_over(self, result: GameResult) -> None:
        """Write the final totals and the winner."""
        a, b = result.scores
        hands = len(result.hands)
        self.write("")
        ending = "" if result.termination == "target" else f" (ended by the {result.termination.replace('_', ' ')})"
        self.write(f"Game over after {hands} hand{'s' * (hands != 1)}{ending}: side A {a}, side B {b}.")
        if result.winner is None:
            self.write("The game is a draw (R15.3).")
        else:
            self.write(f"Side {'AB'[result.winner]} ({SIDE_NAMES[result.winner]}) wins by {abs(a - b)} (R15.1).")

    # ------------------------------------------------------------ observer

    def on_hand_start(self, state: HandState) -> None:
        """Write the hand's header, upcards, dealt red 3s and (if shown) the hands."""
        self.cards = cards = TableCards(state)
        dealer = self.seat_names[state.dealer]
        a, b = state.scores_before
        self.write("")
        self.write(f"=== Hand {state.hand_number}: {dealer} deals; scores A {a}, B {b}; "
                   f"initial meld minimum A {state.requirements[0]}, B {state.requirements[1]} (R10.2) ===")
        self.write(self._upcard_text(cards.upcards))
        for event in cards.lay_dealt_red_threes(state):
            self.write(self._dealt_red_three_text(*event))
        if self.shown_seats:
            self.write("Hands:")
            for offset in range(1, 5):
                seat = (state.dealer + offset) % 4
                if seat in self.shown_seats:
                    self.write(f"  {self.seat_names[seat]:<6} {cards_text(cards.hands[seat])}")
        self.write(f"Stock: {_count(len(state.stock), 'card')}. {self._pile_text(state)}.")
        cards.verify(state)
        self._remember(state)

    def on_move(self, state: HandState) -> None:
        """Write the move just applied (``state.history[-1]``) and what it changed."""
        seat, move, drawn = state.history[-1]
        name = self.seat_names[seat]
        cards = self.cards
        if isinstance(move, (Draw, TakePile)) or (isinstance(move, Stop) and self._phase == ACQUIRE):
            self._turn_header(state, seat)
        if isinstance(move, Draw):
            cards.draw(seat, drawn)
            self._narrate_draw(state, seat, drawn)
        elif isinstance(move, TakePile):
            self._narrate_take(state, seat, move)
        elif isinstance(move, Meld):
            self._narrate_meld(state, seat, move)
        elif isinstance(move, Discard):
            card = cards.discard(seat, move.card)
            self._narrate_discard(state, seat, card)
        elif isinstance(move, Ask):
            partner = self.seat_names[(seat + 2) % 4]
            self.write(f"  {name} asks {partner}: \"May I go out?\" (R12.5)")
        elif isinstance(move, Answer):
            asker = self.seat_names[(seat + 2) % 4]
            if move.yes:
                self.write(f"  {name} answers yes: {asker} must go out this turn (R12.5).")
            else:
                self.write(f"  {name} answers no: {asker} may not go out this turn (R12.5, R6.4).")
        elif isinstance(move, Stop):
            if self._phase == ACQUIRE:
                self.write(f"  The stock is empty and {name} {self._pile_declined(state)}: the hand ends (R13.3).")
            else:
                self.write(f"  {name} may not discard after the red 3 that was the stock's last card (R13.1).")
        for event in cards.lay_dealt_red_threes(state):
            self.write(self._dealt_red_three_text(*event))
        cards.verify(state)
        self._remember(state)

    def on_hand_end(self, state: HandState, result: HandResult) -> None:
        """Write why the hand ended, the cards left (if shown) and both sides' score with its parts."""
        self.write(f"Hand {result.hand_number} ends: {self._end_text(state)}")
        if self.shown_seats:
            for seat in range(4):
                if seat in self.shown_seats and self.cards.hands[seat]:
                    held = self.cards.hands[seat]
                    value = sum(KIND_VALUE[CARD_KIND[card]] for card in held)
                    self.write(f"  {self.seat_names[seat]} is left holding {cards_text(held)} ({value} points).")
        for line in score_table(result):
            self.write(line)

    # ------------------------------------------------------------ moves

    def _turn_header(self, state: HandState, seat: int) -> None:
        hand = self.cards.hands[seat]
        text = f"Turn {state.turn_count}: {self.seat_names[seat]} ({'AB'[seat & 1]}), {_count(len(hand), 'card')}"
        if seat in self.shown_seats:
            text += ": " + cards_text(hand)
        self.write(text)

    def _narrate_draw(self, state: HandState, seat: int, drawn: Sequence[int]) -> None:
        name = self.seat_names[seat]
        reds = [card for card in drawn if CARD_KIND[card] == RED_THREE]
        last = drawn[-1]
        shown = seat in self.shown_seats
        if not reds:
            self.write(f"  {name} draws {card_text(last)}." if shown else f"  {name} draws from the stock.")
        elif CARD_KIND[last] != RED_THREE:
            replacement = f": {card_text(last)}" if shown else ""
            self.write(f"  {name} draws {_join(reds)}, lays {_it(reds)} down and draws again (R4.2){replacement}.")
        else:
            self.write(f"  {name} draws {_join(reds)} and lays {_it(reds)} down; the stock is now empty, "
                       "so no replacement can be drawn (R13.1).")
            return
        if not state.stock:
            self.write("  That was the last card of the stock (R13.2).")

    def _narrate_take(self, state: HandState, seat: int, move: TakePile) -> None:
        cards = self.cards
        name = self.seat_names[seat]
        side = seat & 1
        top = cards.pile[-1]
        rank = CARD_KIND[top]
        size = len(cards.pile)
        freezers = [card for card in cards.pile if _freezes(CARD_KIND[card], state.rules)]
        before = len(cards.melds[side].get(rank, ()))
        with_top, extra, taken, reds = cards.take_pile(seat, move)
        if with_top:
            how = f"melding {cards_text(with_top)} with the {card_text(top)} on top"
        else:
            how = f"laying the {card_text(top)} on top off on the {rank_words(rank)}"
        self.write(f"  {name} takes the pile ({_count(size, 'card')}), {how}.")
        naturals = move.cards.count(rank)
        if self._freezers:
            why = f"The pile was frozen by {_join(freezers)} (R8.1b), so a natural pair was needed (R8.2b)."
        elif not self._side_melded[side]:
            why = (f"Side {'AB'[side]} had not melded, so the pile was frozen against it (R8.1c) "
                   "and a natural pair was needed (R8.2b).")
        elif naturals >= 2:
            why = "The pile was not frozen; a natural pair is enough (R8.2c)."
        elif naturals == 1:
            why = "The pile was not frozen; one natural card and a wild card are enough (R8.2c)."
        else:
            why = "The pile was not frozen, so the top card may be laid off on the side's meld (R8.2c)."
        self.write(f"  {why}")
        self.write(f"  It {'joins' if before else 'makes'} {self._meld_text(state, side, rank, before)}")
        for group in move.extra:
            meld = self._meld_text(state, side, group.rank, 0)
            self.write(f"  With the take, for the minimum (R8.3), it also melds {meld}")
        if not self._side_melded[side]:
            used = with_top + [card for group in extra for card in group]
            points = KIND_VALUE[rank] + sum(KIND_VALUE[CARD_KIND[card]] for card in used)
            self.write(f"  Initial meld of side {'AB'[side]}: {points} points from the top card and the hand, "
                       f"minimum {state.requirements[side]}; the rest of the pile does not count (R8.2e, R10.5).")
        if taken:
            self.write(f"  Into the hand: {cards_text(taken)}.")
        if reds:
            self.write(f"  {name} lays down the buried {_join(reds)} from the pile, without replacement (R4.3).")
        self._going_out(state, seat)

    def _narrate_meld(self, state: HandState, seat: int, move: Meld) -> None:
        cards = self.cards
        side = seat & 1
        name = self.seat_names[seat]
        points = 0
        for group in move.groups:
            before = len(cards.melds[side].get(group.rank, ()))
            laid = cards.lay(seat, group.rank, group.cards)
            points += sum(KIND_VALUE[CARD_KIND[card]] for card in laid)
            verb = f"adds {cards_text(laid)} to" if before else "melds"
            self.write(f"  {name} {verb} {self._meld_text(state, side, group.rank, before)}")
        if not self._side_melded[side]:
            minimum = state.requirements[side]
            if points >= minimum:
                self.write(f"  Initial meld of side {'AB'[side]}: {points} points, minimum {minimum} (R10.2, R10.3).")
            else:
                self.write(f"  Initial meld of side {'AB'[side]}: {points} points, under the minimum {minimum}, "
                           "allowed because the player goes out concealed after drawing (R10.7).")
        self._going_out(state, seat)

    def _narrate_discard(self, state: HandState, seat: int, card: int) -> None:
        kind = CARD_KIND[card]
        text = f"  {self.seat_names[seat]} discards {card_text(card)}"
        if state.went_out_seat == seat:
            self.write(text + f" and goes out{self._concealed(state)} (R12.2).")
            return
        notes = []
        if _freezes(kind, state.rules) and not self._freezers:
            notes.append("freezes the pile (R8.1b)")
        if state.is_pile_blocked():
            what = "it" if notes else "the pile"
            why = "for the next player (R5.2)" if kind == BLACK_THREE else "while on top (R8.1a)"
            notes.append(f"blocks {what} {why}")
        if notes:
            text += ", which " + " and ".join(notes)
        self.write(f"{text}. {self._pile_text(state, top=False)}.")

    # ------------------------------------------------------------ pieces

    def _meld_text(self, state: HandState, side: int, rank: int, before: int) -> str:
        meld = self.cards.melds[side][rank]
        text = f"the {rank_words(rank)}: {cards_text(meld)} ({_count(len(meld), 'card')})"
        if before < CANASTA_SIZE <= len(meld):
            naturals, jokers, deuces = state.melds[side][rank]
            text += f", a {'mixed' if jokers + deuces else 'natural'} canasta (R11.1, R11.2)"
        return text + "."

    def _going_out(self, state: HandState, seat: int) -> None:
        if state.went_out_seat == seat:
            self.write(f"  {self.seat_names[seat]} has no card left and goes out{self._concealed(state)} "
                       "without a discard (R12.2).")

    def _pile_declined(self, state: HandState) -> str:
        # Why no take ended the hand, where the table shows it: a player reading "does not take" a pile no one could
        # take took it for a choice.
        if not state.pile:
            return "has no pile to take"
        if state.is_pile_blocked():
            return f"cannot take the pile, blocked by the {card_text(self.cards.pile[-1])} on top (R8.1a)"
        return "does not take the pile"

    @staticmethod
    def _concealed(state: HandState) -> str:
        return " concealed (R12.6)" if state.went_out_concealed else ""

    def _upcard_text(self, upcards: Sequence[int]) -> str:
        if not upcards:
            return "No upcard."
        if len(upcards) == 1:
            return f"Upcard: {card_text(upcards[0])}."
        turned = [card_text(card) for card in upcards[:-1]]
        last = f"; then {card_text(upcards[-1])} covers {'it' if len(turned) == 1 else 'them'}"
        if len(turned) == 1:
            return f"Upcard: {turned[0]}, wild or red 3, stays in the pile and freezes it (R3.3){last}."
        both = ", ".join(turned[:-1]) + " and " + turned[-1]
        return f"Upcards: {both}, each wild or a red 3, stay in the pile and freeze it (R3.3){last}."

    def _dealt_red_three_text(self, seat: int, laid: Sequence[int], drawn: Sequence[int]) -> str:
        name = self.seat_names[seat]
        dealt = [card for card in laid if card not in drawn]
        if not drawn:
            return (f"{name} lays down the dealt {_join(dealt)} as the hand ends: nothing replaces {_it(dealt)} "
                    "(R3.5, D22).")
        text = f"{name} lays down the dealt {_join(dealt)} and draws {_count(len(drawn), 'replacement')} (R3.5)"
        red_replacements = [card for card in drawn if CARD_KIND[card] == RED_THREE]
        if seat in self.shown_seats:
            return text + ": " + " ".join(
                card_text(card) + (" (laid down and replaced too)" if CARD_KIND[card] == RED_THREE else "")
                for card in drawn
            ) + "."
        if red_replacements:
            verb = "is" if len(red_replacements) == 1 else "are"
            text += f"; {_join(red_replacements)} among them {verb} laid down too"
        return text + "."

    def _pile_text(self, state: HandState, *, top: bool = True) -> str:
        pile = self.cards.pile
        if not pile:
            return "Pile: empty"
        text = f"Pile: {_count(len(pile), 'card')}"
        if top:
            text += f", {card_text(pile[-1])} on top"
        if state.is_pile_frozen():
            text += ", frozen"
        if top and state.is_pile_blocked():
            text += ", blocked"
        return text

    def _end_text(self, state: HandState) -> str:
        reason = state.end_reason
        if reason == END_WENT_OUT:
            return f"{self.seat_names[state.went_out_seat]} went out{self._concealed(state)}."
        if reason == END_STOCK_EXHAUSTED:
            return "the stock is exhausted (R13.3); nobody goes out (R13.4)."
        if reason == END_RED_THREE_LAST_CARD:
            return "the stock's last card was a red 3 (R13.1); nobody goes out (R13.4)."
        if reason == END_TURN_CAP:
            return "the turn cap was reached."
        return f"{reason}."

    def _remember(self, state: HandState) -> None:
        # What the next move's narration needs from before it: the state only shows after.
        self._phase = state.phase
        self._freezers = state.pile_freezers
        self._side_melded = list(state.side_has_melded)


def score_rows(result: HandResult) -> list[tuple[str, int, int, str, str]]:
    """Return a hand's score table as rows ``(part, side A, side B, note A, note B)``: each part of R14.1,
    then the hand and the running total (the text table of :func:`score_table`, the HTML replay's table)."""
    a, b = result.sides

    def canastas(side) -> str:
        parts = []
        if side.canasta_natural:
            parts.append(f"{side.canasta_natural} natural")
        if side.canasta_mixed:
            parts.append(f"{side.canasta_mixed} mixed")
        return " + ".join(parts)

    return [
        ("melds (R14.1a)", a.meld_points, b.meld_points, "", ""),
        ("canastas (R14.1b)", a.canasta_bonus, b.canasta_bonus, canastas(a), canastas(b)),
        ("going out (R14.1c)", a.going_out_bonus, b.going_out_bonus,
         "concealed" if a.concealed else "", "concealed" if b.concealed else ""),
        ("red 3s (R14.1d)", a.red_three_bonus, b.red_three_bonus,
         f"{a.red_threes}" if a.red_threes else "", f"{b.red_threes}" if b.red_threes else ""),
        ("cards in hand (R14.1e)", -a.hand_penalty, -b.hand_penalty, "", ""),
        ("hand", a.score, b.score, "", ""),
        ("total", result.totals_after[0], result.totals_after[1], "", ""),
    ]


def score_table(result: HandResult) -> list[str]:
    """Return the lines of a hand's score table: each part of R14.1 for both sides, then the totals."""
    lines = [f"  {'':<24}{'A ' + SIDE_NAMES[0]:>24}{'B ' + SIDE_NAMES[1]:>24}"]
    for label, value_a, value_b, note_a, note_b in score_rows(result):
        cell_a = f"{value_a}" + (f" ({note_a})" if note_a else "")
        cell_b = f"{value_b}" + (f" ({note_b})" if note_b else "")
        lines.append(f"  {label:<24}{cell_a:>24}{cell_b:>24}")
    return lines


def narrate_game(
    players: Sequence[StrategyFactory],
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    labels: Sequence[str],
    write: Callable[[str], object] = print,
    shown_seats: Iterable[int] = range(4),
    names: Sequence[str] | None = None,
    narrator: Narrator | None = None,
    monitor=None,
    time_limit: float | None = None,
) -> GameResult:
    """Play one game with :func:`~canasta_sim.core.engine.play_game` and narrate it from the header to the final
    score.

    :param narrator: the narrator to use (one that also records, as the HTML replay's does); by default a
        :class:`Narrator` writing through ``write`` and naming the cards of ``shown_seats``.
    :param monitor: where the game publishes each call into strategy code (``play_game``'s), or ``None``.
    :param time_limit: seconds one decision may take (``play_game``'s), or ``None`` for no limit.
    """
    if narrator is None:
        narrator = Narrator(write, shown_seats=shown_seats)
    narrator.game_header(seed=seed, labels=labels, rules=rules)
    result = play_game(players, seed=seed, rules=rules, names=names or labels, observer=narrator, monitor=monitor,
                       time_limit=time_limit)
    narrator.game_over(result)
    return result


def _freezes(kind: int, rules: Rules) -> bool:
    return kind == JOKER or kind == TWO or kind == RED_THREE or (kind == BLACK_THREE and rules.black_three_freezes_pile)


def _join(card_ids: Sequence[int]) -> str:
    return " ".join(card_text(card) for card in card_ids)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _it(card_ids: Sequence[int]) -> str:
    return "it" if len(card_ids) == 1 else "them"
