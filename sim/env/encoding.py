"""The fixed encodings of the research interface: the action masks and the observation vector.

Both are the same for every rule set, so one policy can be trained, saved and replayed anywhere.
``docs/env.md`` documents them in full.  The actions' numbering and the conversions between an action and its parts
live in :mod:`canasta_sim.env.actions`; this module decides which actions each decision allows and what they play.

One engine move is one action, except three that must be validated as a whole: an opening meld
(the side's first, R10), a take that needs extra melds to reach the minimum (R8.3), and a joint
going-out meld: the last two cards laid as two single-card groups at once, where neither may go
alone (a side short of ``canastas_to_go_out`` may not keep only the card to discard, R6.4, R12.1).
Those are played as several actions, the groups in increasing action order, then ``done``; the mask
allows only prefixes of legal moves, so every sequence it allows ends in a legal move.  The mask
allows the engine's canonical legal moves (:mod:`canasta_sim.core.legal`, the joint going-out melds
and black 3s added to the meld of black 3s laid this turn, R5.3, included), so every legal move is
reached by some sequence of allowed actions, over one meld decision or several.  After a partner's
"yes" that obliges going out (R12.5) the engine itself refuses a meld after which going out is no
longer possible, so a masked choice can never leave the seat without a legal move.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from canasta_sim.core.cards import CARD_KIND, KIND_COUNT, KIND_VALUE
from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.moves import DRAW, STOP, Draw, Meld, MeldGroup, Move, Stop, TakePile
from canasta_sim.core.rules import DEFAULT_RULES, MAX_TARGET_SCORE, Rules
from canasta_sim.core.state import MAX_TURNS_PER_HAND
from canasta_sim.core.view import SeatView
from canasta_sim.env.actions import (
    ACTION_COUNT,
    ANSWER_NO,
    ANSWER_YES,
    ASK_NO,
    ASK_YES,
    DISCARD_BASE,
    DONE_ACTION,
    DRAW_ACTION,
    GROUP_BASE,
    SLOT_OF_RANK,
    SLOT_RANKS,
    STOP_ACTION,
    action_text,
    group_action,
    group_of_action,
    move_actions,
    take_action,
    take_shape,
)
from canasta_sim.env.driver import (
    ACQUIRE_DECISION,
    ANSWER_DECISION,
    ASK_DECISION,
    DECISIONS,
    DISCARD_DECISION,
    MELD_DECISION,
    shown,
)

__all__ = [
    "DecisionOptions",
    "OBSERVATION_FIELDS",
    "OBSERVATION_SIZE",
    "decision_shown",
    "hand_score_bounds",
    "meld_counts",
    "observation_bounds",
    "observation_vector",
    "playable_actions",
    "score_bounds",
    "table_values",
    "turn_values",
]


@dataclasses.dataclass(frozen=True)
class DecisionOptions:
    """The legal actions of one decision and the engine value each complete sequence plays.

    :ivar decision: the driver's decision (see :data:`canasta_sim.env.driver.DECISIONS`).
    :ivar immediate: actions that complete the decision at once, with the value they play.
    :ivar compound: ``(actions, move)`` of the moves played as several actions (then ``done``).
    """

    decision: str
    immediate: dict[int, object]
    compound: tuple[tuple[tuple[int, ...], Move], ...] = ()
    _allowed_after: dict[tuple[int, ...], tuple[int, ...]] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False)
    """:meth:`allowed` by prefix, found once: a step reads them for its mask and again to check the action taken."""

    @classmethod
    def of(cls, view: SeatView, decision: str) -> DecisionOptions:
        """The options of ``decision`` for the seat of ``view``, which must be the seat deciding."""
        if decision == ACQUIRE_DECISION:
            return _acquire_options(view)
        if decision == ASK_DECISION:
            return cls(decision, {ASK_NO: False, ASK_YES: True})
        if decision == ANSWER_DECISION:
            return cls(decision, {ANSWER_NO: False, ANSWER_YES: True})
        if decision == MELD_DECISION:
            return _meld_options(view)
        if decision == DISCARD_DECISION:
            return cls(decision, {DISCARD_BASE + move.card: move for move in view.legal_discards()})
        raise ValueError(f"unknown decision {shown(decision)}; the decisions are {', '.join(DECISIONS)}")

    def allowed(self, prefix: tuple[int, ...] = ()) -> list[int]:
        """The actions allowed after the actions ``prefix`` of a compound move, in increasing order."""
        found = self._allowed_after.get(prefix)
        if found is None:
            found = self._allowed_after[prefix] = tuple(self._find_allowed(prefix))
        return list(found)  # the caller's own: the next one reads the kept tuple

    def _find_allowed(self, prefix: tuple[int, ...]) -> list[int]:
        if not prefix:
            found = set(self.immediate)
            found.update(actions[0] for actions, _ in self.compound)
            return sorted(found)
        depth = len(prefix)
        found = set()
        for actions, _ in self.compound:
            if actions[:depth] == prefix:
                found.add(actions[depth] if len(actions) > depth else DONE_ACTION)
        return sorted(found)

    def mask(self, prefix: tuple[int, ...] = ()) -> np.ndarray:
        """The action mask (``int8``, 1 for allowed) after ``prefix``."""
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        mask[self.allowed(prefix)] = 1
        return mask

    def play(self, prefix: tuple[int, ...], action: int) -> tuple[tuple[int, ...], object, bool]:
        """Take ``action`` after ``prefix``: return ``(new prefix, value, complete)``.

        When ``complete`` the decision's value (a move, ``None`` or a bool) is ready for
        :meth:`canasta_sim.env.driver.GameDriver.decide`; otherwise the new prefix waits for more.

        :raises ValueError: when the mask does not allow ``action``.
        """
        if not prefix and action in self.immediate:
            return (), self.immediate[action], True
        if action not in self.allowed(prefix):
            raise ValueError(
                f"action {action} ({action_text(action) if 0 <= action < ACTION_COUNT else 'no action'}) is not "
                f"allowed now (decision {self.decision}, {len(prefix)} actions chosen); allowed: "
                f"{self.allowed(prefix)[:20]}"
            )
        if action == DONE_ACTION:
            for actions, move in self.compound:
                if actions == prefix:
                    return (), move, True
        return (*prefix, action), None, False

    @property
    def count(self) -> int:
        """How many actions are allowed at the decision's start."""
        return len(self.allowed())


def _acquire_options(view: SeatView) -> DecisionOptions:
    immediate: dict[int, object] = {}
    compound = []
    for move in view.legal_acquires():
        if isinstance(move, Draw):
            immediate[DRAW_ACTION] = DRAW
        elif isinstance(move, Stop):
            immediate[STOP_ACTION] = STOP
        elif move.extra:
            compound.append(((take_action(move.cards), *sorted(group_action(g) for g in move.extra)), move))
        else:
            immediate[take_action(move.cards)] = move
    _check_disjoint(immediate, compound)
    return DecisionOptions(ACQUIRE_DECISION, immediate, tuple(compound))


def _meld_options(view: SeatView) -> DecisionOptions:
    # The listing is complete (canasta_sim.core.legal): once the side has melded, its single groups are one action
    # each, and its joint going-out melds (two groups neither of which may go alone) its groups, then done.
    melded = view.has_melded(view.side)
    melds = list(view.legal_melds())
    immediate: dict[int, object] = {}
    compound = []
    for move in melds:
        if melded and len(move.groups) == 1:
            immediate[group_action(move.groups[0])] = move
        else:
            compound.append((tuple(sorted(group_action(group) for group in move.groups)), move))
    if view.can(STOP) or any(True for _ in view.legal_discards()):
        immediate[DONE_ACTION] = None
    _check_disjoint(immediate, compound)
    return DecisionOptions(MELD_DECISION, immediate, tuple(compound))


def _check_disjoint(immediate, compound) -> None:
    # An action both complete on its own and the start of a compound move would make the bijection
    # ambiguous; the canonical listings (canasta_sim.core.legal) never produce one.
    clash = immediate.keys() & {actions[0] for actions, _ in compound}
    if clash:
        raise RuntimeError(f"actions {sorted(clash)} are both complete moves and starts of compound moves")


def playable_actions(view: SeatView, decision: str, value) -> tuple[int, ...]:
    """The actions that play ``value`` at ``view``'s ``decision`` in the environment, one after another, each
    allowed by the mask of its step: fed to a policy strategy in turn, a seat's actions play its game again.

    They are :func:`move_actions`' but for two moves a strategy may make that are not the environment's canonical
    ones (:mod:`canasta_sim.core.legal`):

    * a meld of several groups after the side's opening, laid one group per action, where the order can matter:
      laying ``4 4 4`` of ``meld 4 4 4; A`` first, with no canasta yet, would leave one card that may not be
      discarded (R12.1, R12.2), so the ace goes first.  The groups go in the lowest order the masks allow, the last
      two as one joint going-out meld (then ``done``) where neither may go alone (``canastas_to_go_out`` of 2 or
      more: ``meld 9:2; A:2``, each deuce completing a canasta);
    * a take with extra melds that the take alone did not need (R8.3): the environment takes, then lays the groups
      in the meld phase as above.  Where it would ask the partner in between (R12.5), the seat declined: ``ask no``
      comes before the groups (the engine counts them as melded after the take and asks nothing after the whole
      move, D23).
    """
    side_has_melded = view.has_melded(view.side)
    actions = move_actions(decision, value, side_has_melded=side_has_melded)
    if decision == ACQUIRE_DECISION and isinstance(value, TakePile) and value.extra:
        if actions[0] not in _acquire_options(view).immediate:
            return actions
        alone = view._state.copy()  # copies: the strategy's own game is not touched
        alone.apply(TakePile(value.cards))
        whole = view._state.copy()
        whole.apply(value)
        asking = (ASK_NO,) if alone.can_ask() and not whole.can_ask() else ()
        order = _playable_group_order(SeatView(alone, view.seat, view.scores), list(value.extra))
        return (actions[0], *asking, *(actions[1:-1] if order is None else order))
    if decision != MELD_DECISION or len(actions) < 2 or not side_has_melded:
        return actions
    order = _playable_group_order(view, list(value.groups))
    return actions if order is None else order


def _playable_group_order(view: SeatView, groups: list[MeldGroup]) -> tuple[int, ...] | None:
    """The actions laying ``groups`` in the meld phase, one meld decision after another: single groups in the lowest
    order the masks allow, the last two as one joint meld where neither may go alone; ``None`` when no order does."""
    options = _meld_options(view)
    together = tuple(sorted(group_action(group) for group in groups))
    if any(actions == together for actions, _ in options.compound):
        return (*together, DONE_ACTION)
    for index, group in sorted(enumerate(groups), key=lambda item: group_action(item[1])):
        action = group_action(group)
        if action not in options.immediate:
            continue
        rest = groups[:index] + groups[index + 1:]
        if not rest:
            return (action,)
        state = view._state.copy()  # a copy: the strategy's own game is not touched
        state.apply(Meld((group,)))
        later = _playable_group_order(SeatView(state, view.seat, view.scores), rest)
        if later is not None:
            return (action, *later)
    return None


# ---------------------------------------------------------------------------------------------- observation

_DECISION_CODES = ("wait", ACQUIRE_DECISION, "take_extras", ASK_DECISION, ANSWER_DECISION, MELD_DECISION,
                   DISCARD_DECISION)


def decision_shown(decision: str | None, prefix: tuple[int, ...] = ()) -> str | None:
    """The decision as the observation's one-hot names it (and the Gymnasium environment's ``info["decision"]``):
    ``take_extras`` while a take with extra melds is being built (``prefix`` begins with the take), else
    ``decision``, the driver's (``None`` when no decision is due)."""
    if prefix and prefix[0] < GROUP_BASE:
        return "take_extras"
    return decision


def hand_score_bounds(rules: Rules) -> tuple[int, int]:
    """The lowest and the highest score one side can make in one hand under ``rules`` (R14.1): bounds that no hand
    passes, not scores a hand can reach."""
    # R14.1a, R14.1e: the cards a side melded count for it, those left in its hands against it, and no card is both:
    # together they count at most the deck's card points, either way.
    cards = sum(KIND_VALUE[kind] for kind in CARD_KIND)
    canastas = len(SLOT_RANKS)  # R9.6, R11.2: one meld, so at most one canasta, on each slot
    bonuses = (0, rules.natural_canasta_bonus, rules.mixed_canasta_bonus)
    going_out = (0, rules.going_out_bonus, rules.concealed_going_out_bonus)  # R14.1c
    # R14.1d: red_three_value for each of up to three red 3s, or the total for all four; against a side with no meld.
    red_threes = [count * rules.red_three_value for count in range(4)] + [rules.all_four_red_threes_total]
    if rules.red_three_negative_if_no_meld:
        red_threes += [-value for value in red_threes]
    return (-cards + canastas * min(bonuses) + min(going_out) + min(red_threes),
            cards + canastas * max(bonuses) + max(going_out) + max(red_threes))


def score_bounds(rules: Rules, max_hands: int = MAX_HANDS_PER_GAME) -> tuple[int, int]:
    """The lowest and the highest running total a side can have before a hand of a game under ``rules`` that stops
    after ``max_hands`` hands (the observation's ``scores``)."""
    lowest, highest = hand_score_bounds(rules)
    before = max_hands - 1  # the most hands played before one: totals start at 0 and change by one hand's score each
    # A hand is dealt only while both totals are below the target (R15.1), or while they are equal at or above it
    # under tie_rule=play_another_hand (R15.3): from below the target, each hand of such a tie adds at most a hand's
    # highest score, and a long tie is unlikely but legal.
    high = rules.target_score - 1
    if rules.tie_rule == "play_another_hand":
        high += before * max(highest, 0)
    return before * min(lowest, 0), high


def _rule_bounds(rules: Rules, max_hands: int) -> dict[str, tuple[int, int]]:
    """The bounds of the observation's fields that depend on the rule set and on the game's hand cap."""
    requirement = max(minimum for _, minimum in rules.initial_meld_table)  # R10.2: each is one of the table's
    return {"scores": score_bounds(rules, max_hands), "initial_requirements": (0, requirement),
            "requirements": (0, requirement), "hand_number": (1, max_hands)}


_DEFAULT_BOUNDS = _rule_bounds(DEFAULT_RULES, MAX_HANDS_PER_GAME)

OBSERVATION_FIELDS: tuple[tuple[str, int, float, float, str], ...] = (
    ("hand", KIND_COUNT, 0, 8, "the seat's hand: cards of each kind 0-14 (JK, 2, 3b, 3r, 4 ... A)"),
    ("own_melds", 3 * len(SLOT_RANKS), 0, 12,
     "the own side's melds: naturals, jokers, deuces on each slot (4 ... A, black 3s, wild only)"),
    ("other_melds", 3 * len(SLOT_RANKS), 0, 12, "the other side's melds, same layout"),
    ("pending_groups", 3 * len(SLOT_RANKS), 0, 12,
     "groups chosen so far in a compound move (opening, take's extras), same layout; 0 for other seats"),
    ("pending_take", 3, 0, 8, "the take chosen so far in a take with extras: naturals, jokers, deuces"),
    ("red_threes", 4, 0, 4, "red 3s laid by this seat, its left, its partner, its right"),
    ("hand_sizes", 4, 0, 108, "cards held by this seat, its left, its partner, its right"),
    ("pile_counts", KIND_COUNT, 0, 108, "the discard pile's cards of each kind (all were seen face up)"),
    ("pile_top", KIND_COUNT, 0, 1, "one-hot kind of the pile's top card (all 0: empty pile)"),
    ("pile_size", 1, 0, 108, "cards in the discard pile"),
    ("stock_size", 1, 0, 108, "cards in the stock"),
    ("pile_flags", 4, 0, 1, "pile frozen (R8.1b), blocked (R8.1a), frozen for the own side, for the other"),
    ("melded", 2, 0, 1, "the own side, the other side has made its initial meld"),
    ("canastas", 2, 0, 13, "canastas of the own side, the other side"),
    ("scores", 2, *_DEFAULT_BOUNDS["scores"], "running totals before this hand: own side, other side"),
    ("initial_requirements", 2, *_DEFAULT_BOUNDS["initial_requirements"],
     "R10.2 minimum this hand: own side, other side"),
    ("requirements", 2, *_DEFAULT_BOUNDS["requirements"],
     "minimum still due now (0 once melded): own side, other side"),
    ("decision", len(_DECISION_CODES), 0, 1,
     "one-hot: wait (not this seat's decision), acquire, take_extras, ask, answer, meld, discard"),
    ("answer", 2, 0, 1, "this turn's answer to an ask: yes, no (both 0: not asked)"),
    ("acquired", 2, 0, 1, "how the player to move began the turn: drew, took the pile"),
    ("to_move", 4, 0, 1, "one-hot seat to move: this seat, its left, its partner, its right"),
    ("dealer", 4, 0, 1, "one-hot dealer of this hand, same order"),
    ("hand_number", 1, *_DEFAULT_BOUNDS["hand_number"], "1 for the game's first hand"),
    ("turn_count", 1, 0, MAX_TURNS_PER_HAND, "turns begun so far this hand (the engine's cap ends a hand there)"),
    ("target_score", 1, 1, MAX_TARGET_SCORE, "the rule set's target score (R15.1)"),
)
"""``(name, length, low, high, meaning)`` of each field of the observation vector, in order; the bounds of
``scores``, the requirements and ``hand_number`` are those of the default rules and hand cap
(:func:`observation_bounds` gives them for others)."""
OBSERVATION_SIZE = sum(field[1] for field in OBSERVATION_FIELDS)
"""The length of the observation vector."""


def observation_bounds(
    rules: Rules = DEFAULT_RULES, max_hands: int = MAX_HANDS_PER_GAME
) -> tuple[np.ndarray, np.ndarray]:
    """The low and high bound of every entry of the observation vector (``float32``) in a game under ``rules`` that
    stops after ``max_hands`` hands: every observation of such a game lies within them."""
    bounds = {name: (low, high) for name, _, low, high, _ in OBSERVATION_FIELDS} | _rule_bounds(rules, max_hands)
    # float32 rounds to nearest, so a bound rounded moves no more than the values it bounds: none ends outside.
    low = np.concatenate([np.full(size, bounds[name][0], np.float32) for name, size, *_ in OBSERVATION_FIELDS])
    high = np.concatenate([np.full(size, bounds[name][1], np.float32) for name, size, *_ in OBSERVATION_FIELDS])
    return low, high


def meld_counts(table: dict[int, tuple[int, int, int]]) -> list[int]:
    """A side's melds (``{rank: (naturals, jokers, deuces)}``) as the observation vectors hold them: the three
    counts on each rank's slot (:data:`~canasta_sim.env.actions.SLOT_RANKS`), 0 where the side has no meld."""
    values = [0] * (3 * len(SLOT_RANKS))
    for rank, counts in table.items():
        slot = SLOT_OF_RANK[rank] * 3
        values[slot : slot + 3] = counts
    return values


def observation_values(view: SeatView, decision: str | None, prefix: tuple[int, ...] = ()) -> list[int]:
    """The observation vector of :func:`observation_vector` as a list of ints."""
    seat = view.seat
    side = view.side
    other = 1 - side
    order = [(seat + offset) % 4 for offset in range(4)]
    pending_groups = [0] * (3 * len(SLOT_RANKS))
    pending_take = [0, 0, 0]
    code = decision_shown(decision, prefix) or "wait"
    if prefix:
        groups = prefix
        if prefix[0] < GROUP_BASE:
            pending_take = list(take_shape(prefix[0]))
            groups = prefix[1:]
        table: dict[int, list[int]] = {}
        for action in groups:
            group = group_of_action(action)
            counts = table.setdefault(group.rank, [0, 0, 0])
            counts[0] += group.naturals
            counts[1] += group.jokers
            counts[2] += group.deuces
        pending_groups = meld_counts({rank: tuple(counts) for rank, counts in table.items()})
    decision_one_hot = [0] * len(_DECISION_CODES)
    decision_one_hot[_DECISION_CODES.index(code)] = 1
    return [
        *view.hand,
        *meld_counts(view.melds(side)),
        *meld_counts(view.melds(other)),
        *pending_groups,
        *pending_take,
        *table_values(view, order, side),
        *decision_one_hot,
        *turn_values(view, seat),
    ]


def table_values(view: SeatView, order: Sequence[int], side: int) -> list[int]:
    """The table's public facts as the observation vectors hold them, from the red 3s laid to the minimums still due
    (the fields ``red_threes`` to ``requirements``): the seats' figures in ``order``, the sides' with ``side``
    first.  The seat's own vector lists them from its own seat and side; the public one from seat 0 and side A."""
    other = 1 - side
    pile = view.pile
    pile_counts = [0] * KIND_COUNT
    for kind in pile:
        pile_counts[kind] += 1
    top = [0] * KIND_COUNT
    if pile:
        top[pile[-1]] = 1
    red_threes = view.red_threes
    sizes = view.hand_sizes
    scores = view.scores
    return [
        *[red_threes[index] for index in order],
        *[sizes[index] for index in order],
        *pile_counts,
        *top,
        len(pile),
        view.stock_count,
        int(view.is_pile_frozen), int(view.is_pile_blocked),
        int(view.is_pile_frozen_for(side)), int(view.is_pile_frozen_for(other)),
        int(view.has_melded(side)), int(view.has_melded(other)),
        view.canasta_count(side), view.canasta_count(other),
        scores[side], scores[other],
        view.initial_requirement(side), view.initial_requirement(other),
        view.requirement(side), view.requirement(other),
    ]


def turn_values(view: SeatView, seat: int) -> list[int]:
    """The turn's public facts as the observation vectors hold them, after the decision due (the fields ``answer`` to
    ``target_score``): the seat to move and the dealer one-hot from ``seat`` (0 for the public vector)."""
    answer = view.partner_answer
    acquired = view.acquired
    to_move = [0] * 4
    to_move[(view.seat_to_move - seat) % 4] = 1
    dealer = [0] * 4
    dealer[(view.dealer - seat) % 4] = 1
    return [
        int(answer is True), int(answer is False),
        int(acquired == "draw"), int(acquired == "pile"),
        *to_move,
        *dealer,
        view.hand_number,
        view.turn_count,
        view.rules.target_score,
    ]


def observation_vector(view: SeatView, decision: str | None, prefix: tuple[int, ...] = ()) -> np.ndarray:
    """The fixed-length observation (``float32``, :data:`OBSERVATION_SIZE` entries) of the seat of ``view``.

    :param decision: the decision the seat must make now, or ``None`` when it waits.
    :param prefix: the actions chosen so far in a compound move (only for the deciding seat).

    Everything comes from the seat's :class:`~canasta_sim.core.view.SeatView` (what it may know) and from
    its own choices in progress; seats are numbered from the seat itself (this, left, partner,
    right) and sides as own and other, so one policy can play any seat.
    """
    return np.array(observation_values(view, decision, prefix), dtype=np.float32)
