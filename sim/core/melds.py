"""Meld make-up and values (docs/rules.md §9, §11).

A meld on the table is three counts, ``[naturals, jokers, deuces]``, under a
rank slot: a natural kind 4 to A, ``BLACK_THREE`` (R5.3) or ``WILD_RANK``
(only with ``allow_wild_only_melds``).  The functions here judge one meld
at a time; what depends on the turn (minimums, going out) lives in
:mod:`canasta_sim.core.state`.
"""

from __future__ import annotations

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_VALUE, TWO, count_words, kind_plural
from canasta_sim.core.moves import WILD_RANK, MeldGroup
from canasta_sim.core.rules import Rules

__all__ = [
    "CANASTA_SIZE",
    "WildRules",
    "is_canasta",
    "max_wilds",
    "meld_fits",
    "meld_problem",
    "meld_value",
    "rank_words",
    "wild_limit",
    "wild_rules",
    "wild_rules_of",
]

CANASTA_SIZE = 7
"""R11.1: a canasta is a meld of at least seven cards."""

_JOKER_VALUE = KIND_VALUE[0]
_DEUCE_VALUE = KIND_VALUE[1]


def rank_words(rank: int) -> str:
    """Return a meld's rank in words, as the meld's cards are called: ``'kings'``, ``'black 3s'``, ``'wild cards'``."""
    return "wild cards" if rank == WILD_RANK else kind_plural(rank)


def meld_value(rank: int, naturals: int, jokers: int, deuces: int) -> int:
    """Return the card points (R1.4, R14.1a) of a meld."""
    natural_value = 0 if rank == WILD_RANK else naturals * KIND_VALUE[rank]
    return natural_value + jokers * _JOKER_VALUE + deuces * _DEUCE_VALUE


def is_canasta(naturals: int, jokers: int, deuces: int) -> bool:
    """Return whether a meld of these counts is a canasta (R11.1)."""
    return naturals + jokers + deuces >= CANASTA_SIZE


def wild_limit(naturals: int, most_wilds: int, wild_ratio: bool) -> int:
    """R9.2: the most wild cards a meld of a natural rank with ``naturals`` natural cards may hold, for a rule set's
    ``max_wilds_per_meld`` (``most_wilds``) and whether its ``wild_ratio_rule`` is ``no_more_wild_than_natural``
    (``wild_ratio``): ``min(most_wilds, naturals)`` with the ratio rule, else ``most_wilds`` from two naturals on.

    The searches read the rule set once and call this on C integers (sim/core/melds.pxd).
    """
    if wild_ratio:
        return most_wilds if most_wilds < naturals else naturals
    return most_wilds if naturals >= 2 else 0


def max_wilds(rules: Rules, rank: int, naturals: int) -> int:
    """Return how many wild cards a meld of ``rank`` with ``naturals`` natural cards may hold (R9.2).

    Under ``no_more_wild_than_natural`` this is ``min(max_wilds_per_meld, naturals)``; under
    ``min_two_naturals`` it is ``max_wilds_per_meld`` once there are two naturals, else 0.
    """
    if rank == WILD_RANK:
        return 1 << 30
    if rank == BLACK_THREE:
        return 0
    return wild_limit(naturals, rules.max_wilds_per_meld, rules.wild_ratio_rule == "no_more_wild_than_natural")


class WildRules:
    """R9.2 and R9.4 as one rule set sets them, read once: :func:`wild_rules_of` gives it.

    ``most_wilds`` is ``max_wilds_per_meld``, ``wild_ratio`` whether ``wild_ratio_rule`` is
    ``no_more_wild_than_natural`` (the arguments of :func:`wild_limit`), ``wild_only`` is
    ``allow_wild_only_melds``.  ``shapes`` and ``shape_table`` are the meld searches' answers for this rule set
    (:mod:`canasta_sim.core.meld_search`; ``shape_table`` is ``None`` until a search makes it).  A rule set is a
    frozen record, so a record stays right for its ``rules``; holding them keeps their identity from being
    reused by another rule set.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.most_wilds = rules.max_wilds_per_meld
        self.wild_ratio = rules.wild_ratio_rule == "no_more_wild_than_natural"
        self.wild_only = rules.allow_wild_only_melds
        self.shapes = {}
        self.shape_table = None


_last_wild = None
"""The record :func:`wild_rules_of` gave last (``None`` before the first call)."""


def wild_rules_of(rules: Rules) -> WildRules:
    """Return the :class:`WildRules` of ``rules``: the one given last when it is for the same rule set.

    The rule checks, the listings and the searches ask for it on every meld they weigh; reading its fields
    (C values compiled) costs less than two attribute look-ups and a string comparison each time.  A caller
    reads the record once into a local and then only its fields: one reference read, so threads playing
    under different rule sets never mix two rule sets' values, compiled or run from source.
    """
    global _last_wild
    last = _last_wild
    if last is None or last.rules is not rules:
        last = WildRules(rules)
        _last_wild = last
    return last


def wild_rules(rules: Rules) -> tuple[int, bool, bool]:
    """R9.2 and R9.4 as ``rules`` set them: ``(max_wilds_per_meld, whether wild_ratio_rule is
    no_more_wild_than_natural, allow_wild_only_melds)``, the arguments of :func:`wild_limit` and whether a meld
    of wild cards only may stand (from :func:`wild_rules_of`)."""
    wild = wild_rules_of(rules)
    return (wild.most_wilds, wild.wild_ratio, wild.wild_only)


def meld_fits(rules: Rules, rank: int, naturals: int, jokers: int, deuces: int) -> bool:
    """Return whether a meld with these counts may stand on the table: ``meld_problem(...) is None``.

    The legal-move listings try many shapes that fail; this answers without building the reason.
    """
    wild = wild_rules_of(rules)
    wilds = jokers + deuces
    if rank == WILD_RANK:
        return wild.wild_only and naturals + wilds >= 3
    if rank == BLACK_THREE:
        return not wilds and (naturals == 3 or naturals == 4)
    if naturals + wilds < 3:
        return False
    return wilds <= wild_limit(naturals, wild.most_wilds, wild.wild_ratio)


_COUNT_MASK = 0xFF
"""One count of :func:`_natural_counts`' packed answer: eight bits, far more cards than two decks hold of a rank."""
_MOST_COUNTED = _COUNT_MASK  # a C integer compiled (sim/core/melds.pxd)


def _natural_counts(rank: object, cards: object) -> int:
    """The cards of ``cards`` laid on a meld of the natural ``rank`` (4 to ace), packed with the rank in one integer
    (a C integer compiled: no tuple built) as ``rank << 24 | naturals << 16 | jokers << 8 | deuces``; -1 when
    ``rank`` is no natural rank, or ``cards`` no tuple of card kinds of ``rank`` and wild cards only, or when it
    holds more cards than a count's eight bits (:data:`_COUNT_MASK`)."""
    if type(rank) is not int or type(cards) is not tuple:
        return -1
    items = cards
    if len(items) > _MOST_COUNTED:
        return -1
    naturals = jokers = deuces = 0
    try:
        index = rank
        if index < FOUR or index >= KIND_COUNT:
            return -1
        for item in items:
            if type(item) is not int:
                return -1
            kind = item
            if kind == index:
                naturals += 1
            elif kind == JOKER:
                jokers += 1
            elif kind == TWO:
                deuces += 1
            else:
                return -1
    except OverflowError:  # compiled, an int too large for a C integer: no card kind (the full checks say so)
        return -1
    return index << 24 | naturals << 16 | jokers << 8 | deuces


def _natural_group_counts(group: object) -> int:
    """:func:`_natural_counts` of a group record laying at least one card, or -1."""
    if type(group) is not MeldGroup:
        return -1
    record = group
    counts = _natural_counts(record.rank, record.cards)
    if (counts & 0xFFFFFF) == 0:  # no card: the full checks refuse it
        return -1
    return counts


def _with_rank(table: dict, rank: int, counts: tuple) -> dict:
    """A meld table (``HandState.meld_table``, ranks in order) with ``rank``, new to it, in its place."""
    fresh = {}
    placed = False
    for known, held in table.items():
        if not placed and known > rank:
            fresh[rank] = counts
            placed = True
        fresh[known] = held
    if not placed:
        fresh[rank] = counts
    return fresh


def meld_problem(rules: Rules, rank: int, naturals: int, jokers: int, deuces: int) -> tuple[str, str] | None:
    """Return ``(rule id, reason)`` if a meld with these counts may not stand on the table, else ``None``.

    Checks R9.1 (three cards, at least one rank), R9.2 (wild-card limits, which hold
    for the meld's whole life, R9.3), R9.4 (no wild-only melds) and R5.3 (black 3s:
    three or four, no wild card).  When a black 3 meld may be laid is the state's concern.
    """
    wilds = jokers + deuces
    total = naturals + wilds
    name = rank_words(rank)
    if rank == WILD_RANK:
        if not rules.allow_wild_only_melds:
            return "R9.4", "a meld of wild cards only is not allowed in classic canasta"
        if total < 3:
            return "R9.1", f"a meld needs at least three cards; the wild meld would hold {count_words(total)}"
        return None
    if rank == BLACK_THREE:
        if wilds:
            return "R5.3", "a meld of black 3s may hold no wild card"
        if naturals not in (3, 4):
            return "R5.3", f"a meld of black 3s holds three or four of them, not {count_words(naturals)}"
        return None
    if total < 3:
        return "R9.1", f"a meld needs at least three cards; the {name} would hold {count_words(total)}"
    if wilds > rules.max_wilds_per_meld:
        return "R9.2", (f"a meld holds at most {count_words(rules.max_wilds_per_meld, 'wild card')}; the {name} would "
                        f"hold {count_words(wilds)}")
    if rules.wild_ratio_rule == "no_more_wild_than_natural":
        if wilds > naturals:
            return "R9.2", (
                f"a meld may not hold more wild cards than natural ones; the {name} would hold "
                f"{count_words(naturals, 'natural card')} and {count_words(wilds, 'wild card')}"
            )
    elif naturals < 2:
        return "R9.2", f"a meld needs at least two natural cards; the {name} would hold {count_words(naturals)}"
    return None
