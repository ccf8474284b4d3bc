"""Whether a move record or a list still holds the very objects it held when last seen, compared by identity.

The hand state keeps the moves it found legal (:meth:`~canasta_sim.core.melding.MeldingRules._vouch`), the tamper
check keeps a copy of the hand (:mod:`~canasta_sim.core.fingerprint`) and the going-out plan keeps the hand it was
found for (:mod:`~canasta_sim.core.asking`).  Each must tell at once whether what it kept changed since.  Records
are frozen and tuples cannot change, but strategy code can still force a record's field to hold another object,
and lists change in place: comparing the objects' identities, in C where compiled, answers in a fraction of a
comparison by value, and any doubt is read as a possible change, which is checked again in full.
"""

from __future__ import annotations

from canasta_sim.core.moves import Answer, Discard, Meld, MeldGroup, Move, TakePile

try:
    import cython
except ImportError:  # plain Python without Cython: the type declarations do nothing
    from canasta_sim.core._compiled import cython_fallback as cython

__all__ = ["NOT_KEPT", "field_objects", "refresh", "same_field_objects", "same_list"]

Count = cython.typedef(cython.Py_ssize_t)
"""A C integer where compiled (a place in a record key or a list), a Python int otherwise."""


NOT_KEPT = object()
"""What :func:`field_objects` returns for a record whose fields hold a container other than a tuple."""


@cython.locals(meld=Meld, take=TakePile, discard=Discard, answer=Answer)
def field_objects(move: Move) -> object:
    """The objects a move record's fields hold, the groups' ranks and cards included, to tell later whether
    the record changed since it was checked (:meth:`~canasta_sim.core.melding.MeldingRules._vouch`).

    The records are frozen, but a field can still be forced to change (a constructor run again on a built
    record, or ``object.__setattr__`` where the core runs as plain Python): it then holds another object.
    Tuples cannot change, so a field whose object is the same tuple holds the same cards; a record with a
    container of another kind (a list built by hand) is not kept (``NOT_KEPT``) and is checked again when applied.
    """
    # Each field read as a C member where compiled, the record's exact type tested first.
    move_type = type(move)
    if move_type is Meld:
        meld = move
        return _group_objects(None, meld.groups)
    if move_type is TakePile:
        take = move
        cards = take.cards
        if type(cards) is not tuple:
            return NOT_KEPT
        return _group_objects(cards, take.extra)
    if move_type is Discard:
        discard = move
        return discard.card
    if move_type is Answer:
        answer = move
        return answer.yes
    return None  # Draw, Ask and Stop carry no field


@cython.locals(record=MeldGroup, items=tuple)
def _group_objects(first: object, groups: object) -> object:
    """``(first, groups, rank, cards, rank, cards, ...)`` for :func:`field_objects`, or ``NOT_KEPT``.

    Only groups of the record type itself are kept: compiled, their fields are then read as C members
    (sim/core/moves.pxd) rather than looked up by name, and the listings and searches build no other.  A
    subclass's group is checked again when applied, which costs time but changes nothing."""
    if type(groups) is not tuple:
        return NOT_KEPT
    items = groups  # typed: its size and first group read from the tuple compiled, without the generic protocol
    if len(items) == 1:  # the commonest meld
        group = items[0]
        if type(group) is not MeldGroup:
            return NOT_KEPT
        record = group
        cards = record.cards
        if type(cards) is not tuple:
            return NOT_KEPT
        return (first, groups, record.rank, cards)
    parts = [first, groups]
    for group in groups:
        if type(group) is not MeldGroup:
            return NOT_KEPT
        record = group
        cards = record.cards
        if type(cards) is not tuple:
            return NOT_KEPT
        parts.append(record.rank)
        parts.append(cards)
    return tuple(parts)


@cython.locals(index=Count, record=MeldGroup, meld=Meld, take=TakePile, discard=Discard, answer=Answer)
def same_field_objects(move: Move, key: object) -> bool:
    """Whether ``move``'s fields hold the very objects ``key`` (from :func:`field_objects`) recorded."""
    move_type = type(move)
    if move_type is Meld:
        meld = move
        groups = meld.groups
    elif move_type is TakePile:
        take = move
        if take.cards is not key[0]:
            return False
        groups = take.extra
    elif move_type is Discard:
        discard = move
        return discard.card is key
    elif move_type is Answer:
        answer = move
        return answer.yes is key
    else:
        return True  # Draw, Ask and Stop carry no field
    if groups is not key[1]:
        return False
    # The same tuple holds the same group objects in the same order, each of the record type itself
    # (_group_objects): only their fields can have changed, read as C members compiled.
    index = 2
    for group in groups:
        record = group
        if record.rank is not key[index] or record.cards is not key[index + 1]:
            return False
        index += 2
    return True


# Compiled, the reads go unchecked: the sizes are compared first, and comparing identities runs no code at all.
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(index=Count, size=Count, items=list)
def same_list(live: object, copied: list) -> bool:
    """Whether ``live`` is a list holding the very objects of ``copied``, place by place.

    Identities, not values: a copy holds the live list's own objects (the tamper check's copy of a hand state,
    :mod:`~canasta_sim.core.fingerprint`, and the going-out plan's kept hand, :mod:`~canasta_sim.core.asking`), and
    the counts and card ids are small integers, one object per value, so an untouched list passes; an equal value in
    another object fails here, which the callers read as a possible change.  Comparing identities in C costs a
    fraction of the list's own comparison, which takes a call per list and per item."""
    if type(live) is not list:
        return False
    items = live
    size = len(copied)
    if len(items) != size:
        return False
    for index in range(size):
        if items[index] is not copied[index]:
            return False
    return True


# Compiled, the reads go unchecked: each index is below both lists' sizes, compared again after every write.
@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(index=Count, size=Count, kept=Count, items=list)
def refresh(copied: list, live: object) -> None:
    """Make ``copied`` hold the very objects of the list ``live``, writing only the places that differ.

    A move changes one or two places of a hand and one end of the pile: comparing identities and writing those few
    places costs a fraction of copying the whole list again.  The tamper check's copies
    (:mod:`~canasta_sim.core.fingerprint`) and the going-out plan's kept hand (:mod:`~canasta_sim.core.asking`)."""
    if type(live) is not list:  # no list to copy place by place (the next comparison fails on its type)
        copied[:] = live
        return
    items = live
    if len(copied) > len(items):
        del copied[len(items):]
    size = len(items)
    kept = len(copied)
    # Dropping one of the copy's objects may run code (an object of equal value planted in the state and copied
    # by take()), which could change either list: the sizes are compared again after it, and any change makes the
    # copy a whole one.
    if kept > size:
        copied[:] = items
        return
    # Most places are unchanged: an inner loop that only compares passes over them (compiled, with no write in it
    # the lists' item arrays are not read again at each place), and only a differing place is written.
    index = 0
    while index < kept:
        while index < kept and items[index] is copied[index]:
            index += 1
        if index < kept:
            copied[index] = items[index]
            if len(items) != size or len(copied) != kept:
                copied[:] = items
                return
            index += 1
    for index in range(kept, size):
        copied.append(items[index])
