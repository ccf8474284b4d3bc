"""``greedy``: melds whenever it can, takes the pile whenever allowed, discards its least useful card."""

from __future__ import annotations

from canasta_sim.cards import BLACK_THREE, KIND_COUNT, KIND_VALUE, TWO
from canasta_sim.moves import Discard, Draw, Meld, Move
from canasta_sim.strategy import Strategy

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing (canasta_sim.cython_fallback)
    from canasta_sim import cython_fallback as cython

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (counts, kinds, seats: all far below 2**31), a Python int otherwise."""

_DRAW = Draw()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""


class Greedy(Strategy):
    """A simple baseline that a beginner could beat with patience and an expert should beat easily."""

    name = "greedy"
    version = 2  # v2: no longer discards a rank the opponents melded onto an unfrozen pile
    description = "Melds whenever it can, takes the pile whenever allowed, discards its least useful card."

    def choose_acquire(self, view) -> Move:
        takes = list(view.legal_takes())
        if len(takes) == 1:
            return takes[0]
        if takes:
            # The fewest hand cards spent on the top card keeps the most for later melds.
            return min(takes, key=lambda move: (len(move.cards) + sum(len(g.cards) for g in move.extra)))
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
        # first (ties in listing order), so usually a single legality check decides.
        for move in view.meld_candidates(largest_first=True):
            if view.can(move):
                return move
        return None

    @cython.locals(kind=Count, key=Count, index=Count)
    def choose_discard(self, view) -> Discard:
        hand = view.hand
        side = view.side
        own = view.melds(side)
        # Ranks the next player's side has melded would hand it the pile while the pile is not frozen.
        theirs = () if view.is_pile_frozen else view.melds(1 - side)
        # The least useful legal card, ties to the higher kind as legal_discards lists them; the
        # cards are ranked first, so usually only the first needs a legality check.  Each kind's
        # rank is one integer (see _usefulness): sorting those sorts the kinds as the pairs would.
        keys = []
        for kind in range(KIND_COUNT - 1, -1, -1):
            if hand[kind]:
                keys.append(_usefulness(kind, hand, own, theirs) * _KINDS + (KIND_COUNT - 1 - kind))
        keys.sort()
        for index in range(len(keys)):
            key = keys[index]
            move = _DISCARDS[KIND_COUNT - 1 - key % _KINDS]
            if view.can(move):
                return move
        raise RuntimeError("no legal discard: the partner's yes obliges going out (R12.5)")


_KINDS = 16  # a power of two above KIND_COUNT: a kind's place in a sort key
_VALUES = 1000  # above any card's value (R1.4) and any count of a kind in hand


def _usefulness(kind: int, hand, own_melds, their_melds) -> int:
    """How useful a kind is to keep, least first: the pair ``(group, detail)`` as one integer."""
    if kind == BLACK_THREE:
        return 0  # (-1, 0)
    if kind <= TWO:
        return 101 * _VALUES  # (100, 0)
    if kind in own_melds or kind in their_melds:
        return 51 * _VALUES  # (50, 0)
    return (hand[kind] + 1) * _VALUES + KIND_VALUE[kind]
