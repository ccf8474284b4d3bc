"""The numbering of the research interface's action space (one ``Discrete(5647)`` for every rule set).

This module holds the numbers and the conversions between actions and the engine's moves, which the masks and the
observation (:mod:`canasta_sim.env.encoding`) and the decision records all use.  ``docs/env.md`` documents them in
full; in short:

Actions (:data:`ACTION_COUNT` of them, one ``Discrete`` space):

================================  =========================================================
action                            meaning
================================  =========================================================
0                                 draw (``Draw``)
1                                 stop: decline the pile on an empty stock (``Stop``, R13.3)
2 + (n*5 + j)*9 + d               take the pile melding its top card with ``n`` naturals,
                                  ``j`` jokers, ``d`` deuces from hand (n 0-7, j 0-4, d 0-8)
362 + ((s*9 + n)*5 + j)*9 + d     meld group on slot ``s`` (0-10: ranks 4 to A, 11: black 3s,
                                  12: wild cards only) of ``n`` naturals, ``j`` jokers, ``d``
                                  deuces from hand (n 0-8)
5627                              done: stop melding, or lay the groups chosen so far
5628 + kind                       discard one card of ``kind`` (0-14, see canasta_sim.core.cards)
5643, 5644                        ask the partner: no, yes
5645, 5646                        answer the partner: no, yes
================================  =========================================================

Which actions a decision allows, and the move a sequence of them plays, is decided in :mod:`canasta_sim.env.encoding`.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence

from canasta_sim.core.cards import BLACK_THREE, FOUR, JOKER, KIND_COUNT, KIND_NAMES, TWO
from canasta_sim.core.moves import WILD_RANK, Discard, Draw, Meld, MeldGroup, Stop, TakePile
from canasta_sim.env.driver import ANSWER_DECISION, ASK_DECISION, shown

__all__ = [
    "ACTION_COUNT",
    "ANSWER_NO",
    "ANSWER_YES",
    "ASK_NO",
    "ASK_YES",
    "DISCARD_BASE",
    "DONE_ACTION",
    "DRAW_ACTION",
    "GROUP_BASE",
    "SLOT_OF_RANK",
    "SLOT_RANKS",
    "STOP_ACTION",
    "TAKE_BASE",
    "action_number",
    "action_text",
    "group_action",
    "group_of_action",
    "move_actions",
    "take_action",
    "take_shape",
]

DRAW_ACTION = 0
STOP_ACTION = 1
TAKE_BASE = 2
_TAKE_NATURALS, _JOKERS, _GROUP_NATURALS, _DEUCES = 8, 5, 9, 9
TAKE_COUNT = _TAKE_NATURALS * _JOKERS * _DEUCES
GROUP_BASE = TAKE_BASE + TAKE_COUNT
SLOT_RANKS = (*range(FOUR, KIND_COUNT), BLACK_THREE, WILD_RANK)
"""The rank of each meld slot: 4 to A, black 3s, wild cards only."""
SLOT_OF_RANK = {rank: slot for slot, rank in enumerate(SLOT_RANKS)}
"""The meld slot of each rank: :data:`SLOT_RANKS` read backwards (the observation's meld fields use it too)."""
GROUP_COUNT = len(SLOT_RANKS) * _GROUP_NATURALS * _JOKERS * _DEUCES
DONE_ACTION = GROUP_BASE + GROUP_COUNT
DISCARD_BASE = DONE_ACTION + 1
ASK_NO = DISCARD_BASE + KIND_COUNT
ASK_YES = ASK_NO + 1
ANSWER_NO = ASK_YES + 1
ANSWER_YES = ANSWER_NO + 1
ACTION_COUNT = ANSWER_YES + 1
"""The size of the ``Discrete`` action space (5647)."""


# ---------------------------------------------------------------------------------------------- actions


def _shape(cards: Sequence[int]) -> tuple[int, int, int]:
    jokers = sum(1 for kind in cards if kind == JOKER)
    deuces = sum(1 for kind in cards if kind == TWO)
    return len(cards) - jokers - deuces, jokers, deuces


def take_action(cards: Sequence[int]) -> int:
    """The action of a take melding the top card with ``cards`` from hand."""
    naturals, jokers, deuces = _shape(cards)
    if naturals >= _TAKE_NATURALS or jokers >= _JOKERS or deuces >= _DEUCES:
        raise ValueError(f"no take action melds {naturals} naturals, {jokers} jokers and {deuces} deuces")
    return TAKE_BASE + (naturals * _JOKERS + jokers) * _DEUCES + deuces


def group_action(group: MeldGroup) -> int:
    """The action laying ``group`` (see the module's table)."""
    slot = SLOT_OF_RANK.get(group.rank)
    if slot is None:
        raise ValueError(f"no meld group action has rank {shown(group.rank)}; a meld's rank is a card kind 0-14")
    jokers = group.jokers
    deuces = group.deuces
    naturals = len(group.cards) - jokers - deuces
    if naturals >= _GROUP_NATURALS or jokers >= _JOKERS or deuces >= _DEUCES:
        raise ValueError(f"no meld group action lays {naturals} naturals, {jokers} jokers and {deuces} deuces")
    return GROUP_BASE + ((slot * _GROUP_NATURALS + naturals) * _JOKERS + jokers) * _DEUCES + deuces


def group_of_action(action: int) -> MeldGroup:
    """The meld group a group action lays: :func:`group_action` read backwards.

    :raises ValueError: for an action that lays no meld group (outside ``GROUP_BASE`` to ``DONE_ACTION - 1``).
    """
    if not GROUP_BASE <= action < DONE_ACTION:
        raise ValueError(f"action {shown(action)} lays no meld group; group actions are {GROUP_BASE}-{DONE_ACTION - 1}")
    index = action - GROUP_BASE
    index, deuces = divmod(index, _DEUCES)
    index, jokers = divmod(index, _JOKERS)
    slot, naturals = divmod(index, _GROUP_NATURALS)
    return MeldGroup.of(SLOT_RANKS[slot], naturals, jokers, deuces)


def take_shape(action: int) -> tuple[int, int, int]:
    """The naturals, jokers and deuces from hand a take action melds with the top card: :func:`take_action` read
    backwards.

    :raises ValueError: for an action that is no take (outside ``TAKE_BASE`` to ``GROUP_BASE - 1``).
    """
    if not TAKE_BASE <= action < GROUP_BASE:
        raise ValueError(f"action {shown(action)} is no take of the pile; take actions are "
                         f"{TAKE_BASE}-{GROUP_BASE - 1}")
    index, deuces = divmod(action - TAKE_BASE, _DEUCES)
    naturals, jokers = divmod(index, _JOKERS)
    return naturals, jokers, deuces


def action_number(action: object) -> int:
    """``action`` as an int, when it is a whole number: an int, a numpy integer, or a numpy integer array of shape
    ``()`` (whether the mask allows it is :meth:`DecisionOptions.play`'s to say).

    :raises TypeError: for anything else (``0.0``, ``"0"``, ``True``, ``numpy.array([3])``), which ``int()`` would have
        taken: the environments and a policy playing as a strategy take the same actions, those Gymnasium's
        ``Discrete`` space holds.
    """
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        if not _integer_scalar_array(action):
            raise TypeError(f"{shown(action)} is not an action number; use a whole number 0-{ACTION_COUNT - 1}")
        return int(action.item())
    return int(action)


def _integer_scalar_array(action: object) -> bool:
    """Whether ``action`` is a numpy integer array of shape ``()``, ``numpy.array(3)``: Gymnasium's ``Discrete`` holds
    it, and a learner's ``predict`` for one observation returns one (stable-baselines3's does)."""
    numpy = sys.modules.get("numpy")  # not imported here: no array exists without it
    return (numpy is not None and isinstance(action, numpy.ndarray) and action.shape == ()
            and action.dtype.kind in "iu")


def action_text(action: int) -> str:
    """A short text for ``action``, e.g. ``'take +2n+1j+0d'``, ``'group K K JK'``, ``'discard 4'``."""
    if not 0 <= action < ACTION_COUNT:
        raise ValueError(f"action {action} is outside 0-{ACTION_COUNT - 1}")
    if action == DRAW_ACTION:
        return "draw"
    if action == STOP_ACTION:
        return "stop"
    if action < GROUP_BASE:
        naturals, jokers, deuces = take_shape(action)
        return f"take +{naturals}n+{jokers}j+{deuces}d"
    if action < DONE_ACTION:
        group = group_of_action(action)
        return f"group {group}" if group.cards else f"group {group.rank}:(empty)"
    if action == DONE_ACTION:
        return "done"
    if action < ASK_NO:
        return f"discard {KIND_NAMES[action - DISCARD_BASE]}"
    return ("ask no", "ask yes", "answer no", "answer yes")[action - ASK_NO]


def move_actions(decision: str, value, *, side_has_melded: bool) -> tuple[int, ...]:
    """The actions that play a decision's ``value`` (a move, ``None`` or a bool), in order.

    This is the bijection of the module's table read backwards: a ``TakePile`` with extra melds
    and an opening ``Meld`` (``side_has_melded`` false) end with :data:`DONE_ACTION`; a ``Meld`` of
    several groups after the opening becomes one group action per group, in increasing order, which
    the environment may not accept group by group, and which is one compound move ending in ``done``
    where it is a joint going-out meld: only the position tells, so :func:`playable_actions`, given
    the view, gives the actions the environment plays.
    """
    if decision in (ASK_DECISION, ANSWER_DECISION):
        base = ASK_NO if decision == ASK_DECISION else ANSWER_NO
        return (base + (1 if value else 0),)
    if value is None:
        return (DONE_ACTION,)
    if isinstance(value, Draw):
        return (DRAW_ACTION,)
    if isinstance(value, Stop):
        return (STOP_ACTION,)
    if isinstance(value, Discard):
        return (DISCARD_BASE + value.card,)
    if isinstance(value, TakePile):
        first = take_action(value.cards)
        if not value.extra:
            return (first,)
        return (first, *sorted(group_action(group) for group in value.extra), DONE_ACTION)
    if isinstance(value, Meld):
        groups = tuple(sorted(group_action(group) for group in value.groups))
        return groups if side_has_melded else (*groups, DONE_ACTION)
    raise ValueError(f"{shown(value)} is not a value of the {decision} decision; use a move record, None or "
                     "True or False")
