"""What decides a hand, copied to tell whether strategy code changed it.

:class:`GameFingerprint` copies what decides the hand (hands, stock, pile, melds, red 3s, whose turn
it is, the rule set, ...) after every change the engine makes, and tells whether anything differs
after strategy code ran: a difference is tampering.  Comparing after every single call would cost
too much, so the engine compares before each change it makes and, when both sides were called since
the last comparison, replays the game comparing after every call to find who changed it
(:mod:`canasta_sim.core.engine`).

It lives in the core, compiled, because it reads the hand state's fields and the engine asks it
before every move of a hand where a strategy that is not built in plays: :meth:`GameFingerprint.holds`
compares the state with the copies in C, list by list (the copies hold the very objects the state
held, so an untouched list compares item by item by identity); only where that fails are the parts
compared one by one, to name the part that differs (:meth:`GameFingerprint.changed`).
"""

from __future__ import annotations

from canasta_sim.core.identities import refresh, same_list
from canasta_sim.core.state import HandState

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = ["GameFingerprint"]

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (seats, ranks, list positions), a Python int otherwise."""

_PARTS = (("hands", "a hand"), ("stock", "the stock"), ("pile", "the discard pile"), ("melds", "the melds"),
          ("red_threes", "the red 3s laid"), ("hand_sizes", "the hand sizes"), ("melded", "whether a side has melded"))
"""The copied parts in the order :meth:`GameFingerprint.changed` compares them, and how it names each."""
_CONTROL_PART = "whose turn it is, the phase, the rules, the scores or the meld requirements"


class GameFingerprint:
    """A copy of what decides a hand, to tell whether strategy code changed it.

    It covers the cards (the four hands, the stock in order, the discard pile, both sides' melds, the
    red 3s laid and the hand sizes), whose turn and phase it is, the pile's freezing cards, the rule set,
    the scores and the initial-meld requirements (:meth:`HandState.control`): everything that decides who
    wins.  The statistics counters (pile takes, turns, ...) and the views' caches are left out, to keep
    the check cheap.

    :meth:`take` copies the whole state; :meth:`after_move` brings the copy up to date after a move of the
    engine's, copying only what a move can change; :meth:`holds` tells cheaply that nothing changed;
    :meth:`changed` compares the values and names the first part that differs, or returns ``""``.
    """

    __slots__ = ("state", "hands", "stock", "pile", "melds", "meld_changes", "red_threes", "hand_sizes", "melded",
                 "seat", "phase", "pile_freezers", "rules", "requirements", "scores_before", "dealer")

    def __init__(self, state: HandState) -> None:
        self.state = state
        self.meld_changes = -1
        self.take()

    def take(self) -> None:
        """Copy the whole state as it is now."""
        state = self.state
        self.hands = [list(hand) for hand in state.hands]
        self.stock = list(state.stock)
        self.pile = list(state.pile)
        self.meld_changes = state.meld_changes
        self.melds = [_flat_melds(side) for side in state.melds]
        self._take_control()
        self.red_threes = list(state.red_threes)
        self.hand_sizes = list(state.hand_sizes)
        self.melded = list(state.side_has_melded)

    @cython.locals(following=Count, index=Count, kept=Count, state=HandState, live=list, copied=list, stock=list)
    def after_move(self, seat: int) -> None:
        """Bring the copy up to date after the engine's move of ``seat``, the copy having equalled the state
        before it: a move changes only the mover's hand and, as the next turn begins, the next seat's (its
        dealt red 3s laid and replaced, R3.5), and only the mover's side's melds (R9.5: a player lays only on
        their own side's), of which only the ranks that differ are copied again; the engine only pops the
        stock.  Each list is refreshed in place with the state's very objects, so :meth:`holds` finds them."""
        state = self.state
        hands = self.hands
        refresh(hands[seat], state.hands[seat])
        following = (seat + 1) % 4
        refresh(hands[following], state.hands[following])
        # The engine only pops the stock: the copy's extra cards popped too, without a slice built for a deletion.
        stock = self.stock
        kept = len(state.stock)
        while len(stock) > kept:
            stock.pop()
        # The engine only appends to the pile, or replaces it with an empty one (a take): a pile as long as the copy or
        # longer holds the copy's objects first (compared before the move), and only its new cards are copied.  A
        # pile changed otherwise is copied place by place; any difference the refresh left is found by holds().
        pile = state.pile
        copied = self.pile
        if type(pile) is list and len(pile) >= len(copied):
            live = pile
            for index in range(len(copied), len(live)):
                copied.append(live[index])
        else:
            refresh(copied, pile)
        if state.meld_changes != self.meld_changes:
            self.meld_changes = state.meld_changes
            _refresh_melds(self.melds[seat & 1], state.melds[seat & 1])
        refresh(self.red_threes, state.red_threes)
        refresh(self.hand_sizes, state.hand_sizes)
        refresh(self.melded, state.side_has_melded)
        self._take_control()

    @cython.locals(state=HandState)
    def _take_control(self) -> None:
        # HandState.control's parts, each in a field of its own: the seat and the freezers as C integers
        # compiled, compared without a tuple built or an integer boxed.
        state = self.state
        self.seat = state.seat
        self.phase = state.phase
        self.pile_freezers = state.pile_freezers
        self.rules = state.rules
        self.requirements = state.requirements
        self.scores_before = state.scores_before
        self.dealer = state.dealer

    @property
    def control(self) -> tuple:
        """The copy of :meth:`HandState.control`: ``(seat, phase, pile_freezers, rules, requirements,
        scores_before, dealer)``."""
        return (self.seat, self.phase, self.pile_freezers, self.rules, self.requirements, self.scores_before,
                self.dealer)

    @cython.locals(state=HandState, side=Count, melds=list)
    def holds(self) -> bool:
        """Whether the state still holds what the copy holds: then nothing changed.

        The quick comparison the engine asks before every move: the scalar parts by identity or as C integers,
        the lists by type and size, then item by item (an untouched list holds the very objects of the copy,
        which compare at once).  ``False`` may still mean equal values in other objects: :meth:`changed` tells.
        """
        state = self.state
        if (state.seat != self.seat or state.phase is not self.phase or state.pile_freezers != self.pile_freezers
                or state.rules is not self.rules or state.requirements is not self.requirements
                or state.scores_before is not self.scores_before or state.dealer is not self.dealer):
            return False
        if not (same_list(state.stock, self.stock) and same_list(state.pile, self.pile)
                and same_list(state.red_threes, self.red_threes) and same_list(state.hand_sizes, self.hand_sizes)
                and same_list(state.side_has_melded, self.melded) and _same_lists(state.hands, self.hands)):
            return False
        melds = _sized_list(state.melds, 2)
        if melds is None:
            return False
        for side in range(2):
            if not _same_melds(melds[side], self.melds[side]):
                return False
        return True

    def changed(self) -> str:
        """Name what differs from the copy (``""`` when nothing does), comparing values."""
        state = self.state
        for name, what in _PARTS:
            live = getattr(state, "side_has_melded" if name == "melded" else name)
            copied = _nested_melds(self.melds) if name == "melds" else getattr(self, name)
            if live != copied:
                return what
        if state.control() != self.control:
            return _CONTROL_PART
        return ""


def _sized_list(live: object, size: int) -> list | None:
    """``live`` if it is a list (not a subclass) of ``size`` items, else ``None``."""
    if type(live) is list and len(live) == size:
        return live
    return None


# Every index read is below a length just compared, so compiled the reads go unchecked; comparing identities runs no
# code, and each row dropped is still held by the live list.
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(row=Count, rows=Count, index=Count, size=Count, items=list, found=list, kept=list)
def _same_lists(live: object, copied: list) -> bool:
    """Whether ``live`` is a list of lists, each holding the very objects of the list of ``copied`` at its place:
    :func:`same_list` row by row, with its loop written out here, where a call per hand cost as much as comparing
    the hand's fifteen counts."""
    rows = len(copied)
    items = _sized_list(live, rows)
    if items is None:
        return False
    for row in range(rows):
        found = cython.cast(list, items[row])
        if type(found) is not list:
            return False
        kept = cython.cast(list, copied[row])  # the copy's own row: a list (take)
        size = len(kept)
        if len(found) != size:
            return False
        for index in range(size):
            if found[index] is not kept[index]:
                return False
    return True


# Every index read is below a length just compared (the live meld's is 3, the copy three places a rank of the live
# side's), so compiled the reads go unchecked: the checked reads cost more than the comparisons themselves.
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(rank=Count, size=Count, base=Count, items=list, meld=list)
def _same_melds(live: object, flat: list) -> bool:
    """Whether ``live`` is a list of melds (lists of three counts) holding, rank by rank, the very objects of the flat
    copy ``flat`` (:func:`_flat_melds`): three identities a rank, read from one list."""
    size = len(flat) // 3
    items = _sized_list(live, size)
    if items is None or len(flat) != 3 * size:
        return False
    for rank in range(size):
        # Read once, as a list without a test: its type is tested on the next line, before any read as a list.
        meld = cython.cast(list, items[rank])
        if type(meld) is not list:
            return False
        base = 3 * rank
        if (len(meld) != 3 or meld[0] is not flat[base] or meld[1] is not flat[base + 1]
                or meld[2] is not flat[base + 2]):
            return False
    return True


def _flat_melds(side: object) -> list:
    """A side's melds as one flat list of their counts, three a rank (naturals, jokers, deuces): the copy
    :meth:`GameFingerprint.holds` compares, one list to read instead of one per rank."""
    flat = []
    for meld in side:
        flat.extend(meld)
    return flat


def _nested_melds(flats: list) -> list:
    """The flat copies of both sides' melds as the state holds them, a list of three counts a rank, to compare
    values (:meth:`GameFingerprint.changed`)."""
    return [[flat[base:base + 3] for base in range(0, len(flat), 3)] for flat in flats]


# Compiled, the reads go unchecked: each index is below the sizes compared before it, compared again after every
# write (as in refresh).
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(rank=Count, size=Count, base=Count, index=Count, items=list, meld=list)
def _refresh_melds(flat: list, live: object) -> None:
    """Make the flat copy ``flat`` hold the very counts of the side's melds ``live``, writing only the places that
    differ (:func:`refresh`'s way): a meld changes a rank or two of a side's."""
    if type(live) is not list or len(flat) != 3 * len(live):
        flat[:] = _flat_melds(live)
        return
    items = live
    size = len(items)
    for rank in range(size):
        found = items[rank]
        if type(found) is not list:
            flat[:] = _flat_melds(items)
            return
        meld = found  # typed: its size read from the list compiled, not through a generic call
        if len(meld) != 3:
            flat[:] = _flat_melds(items)
            return
        base = 3 * rank
        # Most ranks are untouched by a move: three identities compared, without the write loop.
        if meld[0] is flat[base] and meld[1] is flat[base + 1] and meld[2] is flat[base + 2]:
            continue
        for index in range(3):
            item = meld[index]
            if item is not flat[base + index]:
                flat[base + index] = item
                # Dropping the copy's object may run code that changes the lists (see refresh).
                if len(items) != size or len(meld) != 3 or len(flat) != 3 * size:
                    flat[:] = _flat_melds(items)
                    return
