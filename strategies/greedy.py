"""``greedy``: melds whenever it can, takes the pile whenever allowed, discards its least useful card."""

from __future__ import annotations

from canasta_sim.core.cards import BLACK_THREE, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import Discard, Draw, Meld, Move, TakePile
from canasta_sim.core.strategy import Strategy
_DRAW = Draw()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""


class Greedy(Strategy):
    """A simple baseline that a beginner could beat with patience and an expert should beat easily."""

    name = "greedy"
    version = 2  # v2: no longer discards a rank the opponents melded onto an unfrozen pile
    description = "Melds whenever it can, takes the pile whenever allowed, discards its least useful card."

    def choose_acquire(self, view) -> Move:
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

    def choose_ask(self, view) -> bool:
        return True

    def answer_go_out(self, view) -> bool:
        return True

    def choose_meld(self, view) -> Meld | None:
        answer = view.partner_answer
        if answer is not False:
            plan = view.going_out_plan()
            if plan is not None and plan[0] and (answer is True or view.rules.ask_partner != "mandatory"):
                return Meld(plan[0])
        # The first legal meld of the most cards, in legal_melds order: candidates come largest
        # first (ties in listing order), so usually a single legality check decides.  A one-group
        # candidate the rules refuse for certain is passed over unchecked (the check would say no).
        size = -1
        canastas = -1
        needed = 0
        stock = 0
        side = 0
        for move in view.meld_candidates(True):
            groups = move.groups
            if len(groups) == 1:
                if size < 0:
                    size = view.hand_sizes[view.seat]
                group = groups[0]
                laid = len(group.cards)
                rank = group.rank
                after = size - laid
                if rank == BLACK_THREE and after > 1:
                    continue  # R5.3: black 3s are melded only by a player going out
                if after < 2:
                    if canastas < 0:
                        side = view.side
                        canastas = view.canasta_count(side)
                        needed = view.rules.canastas_to_go_out
                        stock = view.stock_count
                    # R6.4: a meld that leaves no card, or one card to discard (unless R13.1 forbids the
                    # discard, which needs an empty stock), goes out, and going out needs the canastas.
                    if after == 0 or stock:
                        old = view.meld_size(side, rank)  # the cards already in the side's meld of the rank
                        if canastas + (old < CANASTA_SIZE <= old + laid) < needed:
                            continue
            if view.can(move):
                return move
        return None

    def choose_discard(self, view) -> Discard:
        hand = view.hand
        kinds = _KINDS
        last = KIND_COUNT - 1
        cards = 0
        three = False
        wild = -1  # the highest wild kind held
        natural = -1  # the highest natural kind held
        for kind in range(last, -1, -1):
            held = hand[kind]
            if held:
                cards += held
                if kind == BLACK_THREE:
                    three = True
                elif kind <= TWO:
                    if wild < 0:
                        wild = kind
                elif natural < 0:
                    natural = kind
        side = view.side
        if cards > 1 and view.partner_answer is not True:
            # R6.1, R12.1: any card in hand may be discarded while another card stays, unless the
            # partner's yes obliges going out (R12.5).  The engine checks the move all the same.
            # The least useful card (the least of _discard_keys' keys), found with the fewest meld look-ups:
            # a black 3 is least useful of all, then the unmelded naturals (by _kind_usefulness they rank
            # below every melded one, so a natural's melds are looked up only once it is the least left),
            # then the melded naturals (the highest first), then the wild cards (the highest first).
            if three:
                return _DISCARDS[BLACK_THREE]
            if natural >= 0:
                other = -2  # not read yet: the pile's freezing is asked only when a meld look-up needs it
                rejected = 0  # the naturals found melded, one bit each
                while True:
                    best = -1
                    least = 0
                    for kind in range(natural, TWO, -1):
                        held = hand[kind]
                        if held and kind != BLACK_THREE and not (rejected >> kind) & 1:
                            key = _kind_usefulness(kind, held, False) * kinds + (last - kind)
                            if best < 0 or key < least:
                                best = kind
                                least = key
                    if best < 0:
                        return _DISCARDS[natural]  # every natural held is melded
                    if view.meld_size(side, best) <= 0:
                        if other == -2:
                            other = -1 if view.is_pile_frozen else 1 - side
                        if other < 0 or view.meld_size(other, best) <= 0:
                            return _DISCARDS[best]
                    rejected |= 1 << best
            if wild >= 0:
                return _DISCARDS[wild]
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


def _usefulness(kind: int, hand, own_melds, their_melds) -> int:
    """How useful a kind is to keep, least first: the pair ``(group, detail)`` as one integer."""
    return _kind_usefulness(kind, hand[kind], kind in own_melds or kind in their_melds)


def _kind_usefulness(kind: int, held: int, melded: bool) -> int:
    """:func:`_usefulness` of a kind held ``held`` times, ``melded`` by either side."""
    if kind == BLACK_THREE:
        return 0  # (-1, 0)
    if kind <= TWO:
        return 101 * _VALUES  # (100, 0)
    if melded:
        return 51 * _VALUES  # (50, 0)
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
    side's meld of its rank (R8.2c.3), else two (R8.2b: a natural pair; R8.2c: a pair or one and a wild card)."""
    side = view.side
    top = view.pile_top
    if top is not None and not view.is_pile_frozen_for(side) and view.meld_size(side, top) > 0:
        return 0
    return 2
