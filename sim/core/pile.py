"""Taking the discard pile (docs/rules.md §8, R10.5, R13.3).

:class:`PileRules` is a part of :class:`canasta_sim.core.state.HandState` kept in its own module: whether
the player to move may take the pile, and the take itself.  It uses the hand state's
attributes and the checks of :class:`~canasta_sim.core.melding.MeldingRules`.
"""

from __future__ import annotations

from canasta_sim.core.cards import (
    BLACK_THREE,
    FOUR,
    JOKER,
    KIND_COUNT,
    KIND_VALUE,
    RED_THREE,
    TWO,
    kind_plural,
    kind_words,
)
from canasta_sim.core.going_out import _as_list
from canasta_sim.core.melding import _REFUSED, MeldingRules
from canasta_sim.core.melds import _COUNT_MASK, _natural_counts, meld_fits
from canasta_sim.core.moves import MeldGroup, TakePile, is_kind
from canasta_sim.core.phases import ACQUIRE, PLAY

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

_KIND_VALUE = KIND_VALUE  # a C array compiled (sim/core/pile.pxd): the initial meld's sum in C integers

__all__ = ["PileRules", "take_reaches_minimum"]


class PileRules(MeldingRules):
    """The :class:`~canasta_sim.core.moves.TakePile` move of a hand (a base of :class:`~.state.HandState`)."""

    __slots__ = ()  # HandState holds the fields

    @cython.locals(pile=list, top=Count)
    def is_pile_blocked(self) -> bool:
        """R8.1a, R5.2: a wild card (per ``blocking_wild_cards``) or a black 3 is on top."""
        pile = self.pile
        if not pile:
            return False
        top = pile[-1]
        if top == JOKER or top == BLACK_THREE:
            return True
        return top == TWO and self.rules.blocking_wild_cards == "any_wild"

    def is_pile_frozen_for(self, side: int) -> bool:
        """R8.1b or R8.1c: frozen by its content, or against a side that has not melded."""
        return self.pile_freezers > 0 or not self.side_has_melded[side]

    @cython.locals(top=Count, seat=Count)
    def _verify_pile_open(self, move: TakePile) -> int:
        """R8.1a, R8.2, R8.2a, R8.2d, R5.2: whether the pile may be taken at all now; its top card if so."""
        self._verify_phase(move, ACQUIRE)
        if not self.pile:
            raise self._fail("R8.2", "the discard pile is empty", move)
        top = self.pile[-1]
        if self.is_pile_blocked():
            if top == BLACK_THREE:
                raise self._fail("R5.2", "a black 3 on top of the pile blocks it; nobody may take it", move)
            if self._probing:  # the message below would be formatted only to be discarded
                raise _REFUSED
            raise self._fail("R8.1a", f"{kind_words(top)} on top of the pile blocks it: nobody may take it", move)
        if top <= TWO:
            raise self._fail("R8.2a", "a 2 on top of the pile cannot be matched by natural cards", move)
        seat = self.seat
        if self.rules.one_card_single_pile_block and self.hand_sizes[seat] == 1 and len(self.pile) == 1:
            raise self._fail("R8.2d", "a player holding one card may not take a pile of one card", move)
        return top

    @cython.locals(wilds=Count)
    def _verify_top_card_meld(
        self, move: TakePile, top: int, side: int, naturals: int, jokers: int, deuces: int
    ) -> None:
        """R8.2b, R8.2c: the hand cards laid with the top card, ``naturals`` of its rank and ``jokers`` and
        ``deuces``, make a meld with it, or add it to the side's meld of its rank."""
        wilds = jokers + deuces
        existing = self.melds[side][top]
        has_meld = existing[0] + existing[1] + existing[2] > 0
        if self.is_pile_frozen_for(side):
            if naturals < 2:
                why = (
                    "it holds a wild card or a red 3 (R8.1b)"
                    if self.pile_freezers
                    else ("the side has not melded this hand (R8.1c)")
                )
                if self._probing:  # the message below would be formatted only to be discarded
                    raise _REFUSED
                raise self._fail(
                    "R8.2b",
                    f"the pile is frozen because {why}; taking it needs a natural pair of "
                    f"{kind_plural(top)}, the move offers {_describe(naturals, jokers, deuces, top)}",
                    move,
                )
        elif not has_meld and not (naturals >= 2 or (naturals >= 1 and wilds >= 1)):
            if self._probing:  # the message below would be formatted only to be discarded
                raise _REFUSED
            raise self._fail(
                "R8.2c",
                f"taking the pile needs a natural pair of {kind_plural(top)}, {kind_words(top, 1)} and a wild "
                f"card, or a meld of {kind_plural(top)} to add it to; the move offers "
                f"{_describe(naturals, jokers, deuces, top)}",
                move,
            )

    @cython.locals(used=list, naturals=Count, jokers=Count, deuces=Count, used_count=Count, total=Count, kind=Count,
                   count=Count, record=TakePile, top=Count, seat=Count, side=Count, pile=list, hand_after=Count)
    def verify_take_pile(self, move: TakePile) -> bool:
        """R8.1-R8.3, R10.5: may the player to move take the whole pile this way?  ``True`` when it may; while
        probing, the commonest refusals return ``False`` (see ``MeldingRules.verify_meld``)."""
        top = self._verify_pile_open(move)
        # The commonest take, judged without the sums below built; any other, or one refused, is left to the checks
        # below, which name the rule it breaks.
        if self._is_plain_take_legal(move, top):
            self._collected = None  # take_pile sums the cards itself
            return True
        seat = self.seat
        side = seat & 1
        naturals = jokers = deuces = 0
        used = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # KIND_COUNT zeros: a literal, no slice of a list
        record = move  # compiled, its fields are then read as C members
        for card in record.cards:
            if type(card) is not int and not is_kind(card):
                raise self._malformed(move, card)
            if card == top:
                naturals += 1
            elif card == JOKER:
                jokers += 1
            elif card == TWO:
                deuces += 1
            elif not is_kind(card):
                raise self._malformed(move, card)
            else:
                if self._probing:  # the message below would be formatted only to be discarded
                    return False
                raise self._fail(
                    "R8.2", f"the cards taken with {kind_words(top)} must be {kind_plural(top)} or wild cards", move
                )
            used[card] += 1
        # E2 step 2: every card must be in hand before the take's other conditions are judged,
        # so that a card the player lacks is reported as such, not as a missing pair (R8.2b).
        additions: dict[int, list[int]] = {top: [naturals + 1, jokers, deuces]}
        self._collect(move, record.extra, additions, used)
        self._verify_in_hand(move, used)
        self._verify_top_card_meld(move, top, side, naturals, jokers, deuces)
        if record.extra and self.side_has_melded[side]:
            raise self._fail(
                "R8.3", "extra melds go with a take only to reach the initial minimum; meld them after taking", move
            )
        used_count = 0  # summed in C integers where compiled
        for kind in range(KIND_COUNT):
            count = used[kind]
            used_count += count
        # The pile's cards but the top one go to the hand, its red 3s excepted (laid, R4.3): counted in C integers.
        pile = self.pile
        hand_after = self.hand_sizes[seat] - used_count + len(pile) - 1
        for kind in pile:
            if kind == RED_THREE:
                hand_after -= 1
        self._verify_additions(move, additions)
        if not self.side_has_melded[side]:
            total = KIND_VALUE[top]
            for kind in range(KIND_COUNT):
                count = used[kind]
                total += _KIND_VALUE[kind] * count
            minimum = self.requirements[side]
            if total < minimum:
                if self._probing:  # the message below would be formatted only to be discarded
                    return False
                raise self._fail(
                    "R8.2e",
                    f"the side's initial meld needs {minimum} points (R10.2); the top card and the hand cards "
                    f"laid count {total}, and the other pile cards never count (R10.5)",
                    move,
                )
        # R5.3 after R9 and R10, as E2 orders it: black 3s among a side's opening melds only in a take that goes out.
        if BLACK_THREE in additions and not self._verify_black_three_timing(move, additions, hand_after):
            return False
        if hand_after <= 1 and self.rules.ask_partner == "mandatory":
            raise self._fail("R12.5", "ask_partner=mandatory: a take cannot go out, since asking comes after it", move)
        if not self._verify_going_out(move, hand_after, additions):
            return False
        self._collected = (move, additions, used)
        return True

    @cython.locals(record=TakePile, counts=Count, naturals=Count, jokers=Count, deuces=Count, seat=Count, side=Count,
                   held=Count, held_naturals=Count, held_jokers=Count, held_deuces=Count, total=Count, hand_after=Count,
                   hand=list, meld=list, pile=list, kind=Count)
    def _is_plain_take_legal(self, move: TakePile, top: int) -> bool:
        """Whether ``move``, a take of the open pile's ``top`` card (:meth:`_verify_pile_open`), is legal in the
        commonest case: no extra melds, hand cards of the top card's natural rank and wild cards only, and two cards
        or more kept.  ``False`` for any other take and for any take a check refuses, which the full checks of
        :meth:`verify_take_pile` then judge.  The checks are theirs for this case, counted in C integers compiled with
        no per-rank sums built: a listing of takes checks each take it yields."""
        record = move
        extra = record.extra
        if type(extra) is not tuple or extra or top < FOUR or top >= KIND_COUNT:
            return False
        counts = _natural_counts(top, record.cards)
        if counts < 0:
            return False
        naturals = counts >> 16 & _COUNT_MASK
        jokers = counts >> 8 & _COUNT_MASK
        deuces = counts & _COUNT_MASK
        seat = self.seat
        side = seat & 1
        hand = _as_list(self.hands[seat])  # R6.1: the cards are held
        held = hand[top]
        if naturals > held:
            return False
        held = hand[JOKER]
        if jokers > held:
            return False
        held = hand[TWO]
        if deuces > held:
            return False
        meld = _as_list(_as_list(self.melds[side])[top])
        held_naturals = meld[0]
        held_jokers = meld[1]
        held_deuces = meld[2]
        # R8.2b, R8.2c: a natural pair when frozen; else a pair, a natural and a wild card, or a meld to add to.
        if self.is_pile_frozen_for(side):
            if naturals < 2:
                return False
        elif held_naturals + held_jokers + held_deuces == 0 and naturals < 2 and not (naturals and jokers + deuces):
            return False
        if not meld_fits(self.rules, top, held_naturals + naturals + 1, held_jokers + jokers, held_deuces + deuces):
            return False  # R9.1, R9.2
        if not self.side_has_melded[side]:  # R8.2e: the top card and the hand cards reach the initial minimum
            total = _KIND_VALUE[top] * (naturals + 1) + _KIND_VALUE[JOKER] * jokers + _KIND_VALUE[TWO] * deuces
            held = self.requirements[side]
            if total < held:
                return False
        # The pile's cards but the top one go to the hand, its red 3s excepted (laid, R4.3): a take keeping two cards
        # or more cannot go out, and _verify_going_out has nothing to check (R6.4, R12).
        pile = self.pile
        hand_after = self.hand_sizes[seat] - naturals - jokers - deuces + len(pile) - 1
        for kind in pile:
            if kind == RED_THREE:
                hand_after -= 1
        return hand_after > 1

    def can_take_pile(self, move: TakePile) -> bool:
        """Return whether :meth:`take_pile` is legal now."""
        return self._probe(move)

    @cython.locals(seat=Count, kind=Count, before=Count, taken=Count, laid=Count, hand=list, pile=list, top=Count,
                   counts=Count, record=TakePile)
    def take_pile(self, move: TakePile) -> None:
        """Meld the top card as the move says, take the rest of the pile (R8.3), lay its red 3s (R4.3)."""
        if not self._take_vouch(move):
            self.verify_take_pile(move)
        seat = self.seat
        side = seat & 1
        top = self.pile[-1]
        # The check's sums of this very move (MeldingRules.meld), or the commonest take's counts (_is_plain_take_legal),
        # or the top card with the cards laid on it, then the extra melds, in the order summed here otherwise.
        collected = self._collected
        self._collected = None
        record = move  # verified a TakePile above or by is_legal: compiled, its fields are then read as C members
        counts = -1
        if collected is not None and collected[0] is move:
            additions = collected[1]
        else:
            extra = record.extra
            if type(extra) is tuple and not extra:
                counts = _natural_counts(top, record.cards)
            if counts < 0:
                additions = {top: [1, 0, 0]}
                used = [0] * KIND_COUNT
                self._collect(move, (MeldGroup(top, record.cards),) if record.cards else (), additions, used)
                self._collect(move, extra, additions, used)
        if record.extra and take_reaches_minimum(top, record.cards, self.requirements[side]):
            # R8.3, R12.5: extra melds the take's own meld did not need for the minimum are the take and then a meld,
            # which closes the question to the partner as a meld move does (D23).
            self.melded_this_turn = True
        self.pile_takes[side] += 1
        self.pile_cards_taken[side] += len(self.pile)
        if self.pile_freezers:
            self.frozen_pile_takes[side] += 1
        if counts >= 0:
            self._lay_group(top, counts >> 16 & _COUNT_MASK, counts >> 8 & _COUNT_MASK, counts & _COUNT_MASK, 1)
        else:
            self._lay(additions, top)  # the top card joins its meld from the pile, not from the hand
        # The rest of the pile into the hand, counted in C integers and added to the seat's totals once.
        hand = self.hands[seat]
        pile = self.pile
        taken = 0
        laid = 0
        for kind in pile[:-1]:
            if kind == RED_THREE:
                laid += 1
            else:
                before = hand[kind]
                hand[kind] = before + 1
                taken += 1
        if laid:
            self.red_threes[seat] += laid
        if taken:
            self.hand_sizes[seat] += taken
        self.pile = []
        self.pile_freezers = 0
        self.history.append((seat, move, ()))
        self.acquired = "pile"
        self.phase = PLAY
        if self.hand_sizes[seat] == 0:
            self._go_out()

    def must_take_pile(self) -> bool:
        """R13.3 ``official``: on an empty stock, a take by lay-off on an unfrozen pile is compulsory."""
        if self.stock or self.rules.stock_exhausted_rule != "official" or not self.pile:
            return False
        side = self.side
        top = self.pile[-1]
        if self.is_pile_frozen_for(side) or self.is_pile_blocked() or top <= TWO:
            return False
        meld = self.melds[side][top]
        return meld[0] + meld[1] + meld[2] > 0 and self.can_take_pile(TakePile())


def _describe(naturals: int, jokers: int, deuces: int, rank: int) -> str:
    parts = []
    if naturals:
        parts.append(kind_words(rank, naturals))
    if jokers:
        parts.append(kind_words(JOKER, jokers))
    if deuces:
        parts.append(kind_words(TWO, deuces))
    return " and ".join(parts) if parts else "no card from hand"


def take_reaches_minimum(top: int, cards, requirement: int) -> bool:
    """Whether a take's own meld, the top card and the hand cards laid with it, reaches a side's initial minimum
    (R8.2e, R10.5): extra melds laid with such a take were not needed for it, and count as melding after the take
    (R12.5, D23).  The engine and the worlds the searches sample (``canasta_sim.core.search``) both judge by it."""
    return KIND_VALUE[top] + sum([KIND_VALUE[card] for card in cards]) >= requirement
