"""``greedy``: melds whenever it can, takes the pile whenever allowed, discards its least useful card."""

from __future__ import annotations

from canasta_sim import (
    BLACK_THREE,
    JOKER,
    KIND_COUNT,
    KIND_VALUE,
    TWO,
    Discard,
    Draw,
    Meld,
    Move,
    SeatView,
    Strategy,
    TakePile,
)
from canasta_sim.core.kernels import first_legal

_DRAW = Draw()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""


class Greedy(Strategy):
    """A simple baseline that a beginner could beat with patience and an expert should beat easily."""

    name = "greedy"
    version = 2  # raised whenever its play changes (docs/strategies.md, Versions)
    description = "Melds whenever it can, takes the pile whenever allowed, discards its least useful card."

    def choose_acquire(self, view: SeatView) -> Move:
        """The legal take that lays the fewest hand cards; without one, a draw (on an empty stock, the first legal
        acquire: a compulsory take or a stop)."""
        # The take that spends the fewest hand cards on the top card (keeping the most for later melds),
        # the first listed of those.  The listing checks each take, so stop once no later take can
        # spend fewer: none spends fewer than nothing, nor fewer than two where the top card cannot
        # be laid off (R8.2b, R8.2c).
        best = None
        best_count = 0
        smallest = -1
        for move in view.legal_takes():
            count = _take_size(move)
            if best is None or count < best_count:
                best = move
                best_count = count
            if best_count == 0:
                break
            if best_count == 2:
                if smallest < 0:
                    smallest = _smallest_take(view)
                if smallest == 2:
                    break
        if best is not None:
            return best
        if view.stock_count:
            return _DRAW  # legal_acquires lists the draw first whenever the stock has a card (R7.1)
        return next(view.legal_acquires())

    def choose_ask(self, view: SeatView) -> bool:
        """Always ask when asking is allowed."""
        return True

    def answer_go_out(self, view: SeatView) -> bool:
        """Always let the partner go out."""
        return True

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Go out when the going-out plan can (after a yes, or without asking unless asking is mandatory); else the
        legal meld of the most cards, or ``None`` when there is none."""
        answer = view.partner_answer
        if answer is not False:
            plan = view.going_out_plan()
            if plan is not None and plan[0] and (answer is True or view.rules.ask_partner != "mandatory"):
                return Meld(plan[0])
        # The first legal meld of the most cards, in legal_melds order: candidates come largest
        # first (ties in listing order), so usually a single legality check decides.
        return first_legal(view, view.meld_candidates(True))

    def choose_discard(self, view: SeatView) -> Discard:
        """The least useful card: a black 3; else a natural of a rank neither side has melded (the opponents'
        melds count while the pile is not frozen: that discard would hand them the pile), held fewest times, then of
        the lowest value, then the highest; else the highest natural; else a 2, a joker."""
        hand = view.hand
        side = view.side
        if view.hand_size > 1 and view.partner_answer is not True:
            # R6.1, R12.1: any card in hand may be discarded while another card stays, unless the
            # partner's yes obliges going out (R12.5), so the least useful card is legal and found here
            # without the sort and the legality check per kind below: the same card as _discard_keys' first key.
            if hand[BLACK_THREE]:
                return _DISCARDS[BLACK_THREE]
            naturals = [kind for kind in _NATURALS_DOWN if hand[kind]]
            if naturals:
                # The ranks either side has melded, as bits; the opponents' only while the pile is not frozen.
                melded = view.melded_ranks(side)
                if not view.is_pile_frozen:
                    melded |= view.melded_ranks(1 - side)
                best = naturals[0]  # every natural held is melded: the highest
                least = -1
                for kind in naturals:  # highest first: of equal usefulness, the highest kind goes
                    if not melded >> kind & 1:
                        usefulness = (hand[kind] + 1) * _VALUES + KIND_VALUE[kind]  # as _kind_usefulness, unmelded
                        if least < 0 or usefulness < least:
                            best = kind
                            least = usefulness
                return _DISCARDS[best]
            if hand[TWO]:
                return _DISCARDS[TWO]
            if hand[JOKER]:
                return _DISCARDS[JOKER]
        kinds = _KINDS
        last = KIND_COUNT - 1
        # Ranks the next player's side has melded would hand it the pile while the pile is not frozen.
        other = -1 if view.is_pile_frozen else 1 - side
        keys = _discard_keys(view, hand, side, other)
        for index in range(len(keys)):
            key = keys[index]
            move = _DISCARDS[last - key % kinds]
            if view.can(move):
                return move
        raise RuntimeError("no legal discard: the partner's yes obliges going out (R12.5)")


_KINDS = 16  # a power of two above KIND_COUNT: a kind's place in a sort key
_VALUES = 1000  # above any card's value (R1.4) and any count of a kind in hand
_NATURALS_DOWN = tuple(kind for kind in range(KIND_COUNT - 1, TWO, -1) if kind != BLACK_THREE)
"""The kinds above the wild cards but the black 3, highest first: those ranked as naturals."""


def _usefulness(kind: int, hand, own_melds, their_melds) -> int:
    """How useful a kind is to keep, least first, with the melded kinds given as sets: the plain form of
    :func:`_kind_usefulness`, which the tests hold :func:`_discard_keys` to."""
    return _kind_usefulness(kind, hand[kind], kind in own_melds or kind in their_melds)


def _kind_usefulness(kind: int, held: int, melded: bool) -> int:
    """How useful a kind held ``held`` times, ``melded`` by either side, is to keep, least first: a group and a
    detail as one integer, ``(group + 1) * _VALUES + detail``.  The groups, least useful first: a black 3 (-1), an
    unmelded natural (the times it is held, its detail its value), a melded natural (50), a wild card (100)."""
    if kind == BLACK_THREE:
        return 0  # group -1
    if kind <= TWO:
        return 101 * _VALUES  # group 100
    if melded:
        return 51 * _VALUES  # group 50
    points = KIND_VALUE[kind]
    return (held + 1) * _VALUES + points


def _is_melded(view, kind: int, side: int, other: int) -> bool:
    """Whether ``side``, or ``other`` unless it is -1, has melded ``kind``: what :func:`_kind_usefulness` reads,
    and only for natural ranks (``False`` for the others, which it does not read)."""
    if kind <= TWO or kind == BLACK_THREE:
        return False
    return view.meld_size(side, kind) > 0 or (other >= 0 and view.meld_size(other, kind) > 0)


def _discard_keys(view, hand, side: int, other: int) -> list[int]:
    """Each kind in hand as one sort key, least useful first: :func:`_usefulness` and the kind, higher first.

    ``side`` and ``other`` are the sides whose melds count, as :func:`_is_melded` reads them.
    """
    kinds = _KINDS
    last = KIND_COUNT - 1
    keys = []
    for kind in range(last, -1, -1):
        held = hand[kind]
        if held:
            keys.append(_kind_usefulness(kind, held, _is_melded(view, kind, side, other)) * kinds + (last - kind))
    keys.sort()
    return keys


def _take_size(move: TakePile) -> int:
    """How many hand cards a take lays: those with the top card and those of its extra melds."""
    count = len(move.cards)
    for group in move.extra:
        count += len(group.cards)
    return count


def _smallest_take(view) -> int:
    """The fewest hand cards a legal take can lay now: none where the top card may be laid off on the
    side's meld of its rank (R8.2c), else two (R8.2b: a natural pair; R8.2c: a pair or one and a wild card)."""
    side = view.side
    top = view.pile_top
    if top is not None and not view.is_pile_frozen_for(side) and view.meld_size(side, top) > 0:
        return 0
    return 2
