"""Positions of one's own: a hand under way, built from cards as text, to start an environment at.

>>> from canasta_sim.env.positions import build_position
>>> start = build_position({"target_score": 3000}, hands={0: "K K K Q 5 6"}, melds={0: "Q Q Q"}, pile="9 8",
...                        stock_size=1, decision="acquire")
>>> start.seat, start.decision, start.scores, start.state.hand_sizes[0]
(0, 'acquire', (0, 0), 6)

A :class:`Position` is a :class:`~canasta_sim.core.state.HandState` (the engine's whole hand: every hand, the stock's
order, the pile, the melds), the decision due in it and the rules it is played under; its totals before the hand are
the state's.  ``reset(seed=s, options={"position": start})`` starts the PettingZoo and Gymnasium environments there
(the next hands are dealt from ``s``), and :meth:`Position.game_tree` gives OpenSpiel's game tree at it
(``docs/env.md``).  Every position is checked against the rules when it is made: an impossible one is refused with a
:class:`PositionError` naming what is wrong and what is accepted.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    DECK_COUNTS,
    JOKER,
    KIND_COUNT,
    KIND_NAMES,
    RED_THREE,
    TWO,
    kind_plural,
    parse_kinds,
)
from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.melds import meld_problem
from canasta_sim.core.moves import ASK, WILD_RANK, MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, ANSWER, OVER, PLAY, HandState
from canasta_sim.env.driver import (
    ACQUIRE_DECISION,
    ANSWER_DECISION,
    ASK_DECISION,
    DECISIONS,
    as_rules,
    shown,
)
from canasta_sim.env.encoding import OBSERVATION_FIELDS, observation_bounds
from canasta_sim.errors import CanastaError

__all__ = ["Position", "PositionError", "build_position", "check_start", "reset_start"]

_HAND_SIZE = 11
_FILLER_LAST = (BLACK_THREE, TWO, JOKER)
"""Kinds the filler hands out after every natural, in that order (red 3s never: R4.1, none is held)."""
_SCORES_AT = sum(size for _, size, *_ in OBSERVATION_FIELDS[:[name for name, *_ in OBSERVATION_FIELDS].index("scores")])
"""Where the observation vector's ``scores`` begin: their bounds are the totals a hand can begin with."""


class PositionError(CanastaError, ValueError):
    """A position that cannot be, or cannot be started at: its message names what is wrong and what is accepted."""


class Position:
    """A decision of a hand under way, to start an environment or a game tree at.

    :param state: the hand (the totals before it are its ``scores_before``); kept as given, so build a new one or
        pass a copy rather than change it after.
    :param decision: the decision due, one of :data:`~canasta_sim.env.driver.DECISIONS`, which must agree with the
        state's phase (``acquire`` at the start of a turn, ``answer`` while an ask waits, the others after the turn's
        draw or take).
    :raises PositionError: for a state no game reaches: cards that are not the 108-card deck's (R1.1), a red 3 held
        (R4.1), a meld the rules forbid (R9.1, R9.2, R5.3), a seat without cards, totals at the target (R15.1), or a
        decision its phase does not ask.
    """

    __slots__ = ("decision", "state")

    def __init__(self, state: HandState, decision: str) -> None:
        if not isinstance(state, HandState):
            raise PositionError(f"state={shown(state)} is not accepted; use a HandState (build_position makes one "
                                "from cards as text)")
        _check_state(state)
        _check_decision(state, decision)
        self.state = state
        self.decision = decision

    @property
    def rules(self) -> Rules:
        """The rule set the hand is played under (an environment started at it must have the same)."""
        return self.state.rules

    @property
    def scores(self) -> tuple[int, int]:
        """Both sides' totals before the hand, side A (seats 0 and 2) first."""
        return tuple(self.state.scores_before)

    @property
    def seat(self) -> int:
        """The seat whose turn it is (its partner answers an ask)."""
        return self.state.seat

    def game_tree(self, *, scope: str = "hand", max_hands: int = MAX_HANDS_PER_GAME):
        """A :class:`~canasta_sim.env.game_tree.GameTree` at this position (a copy of the state), for the OpenSpiel
        game's ``state_at``: the table remembers nothing of moves before it, and each seat's record starts with its
        hand."""
        from canasta_sim.core.search import PublicMemory
        from canasta_sim.core.view import SeatView
        from canasta_sim.env.game_tree import GameTree, hand_text

        state = self.state.copy()
        memory = PublicMemory(SeatView(state, state.seat, self.scores))
        return GameTree.at_position(self.rules, state, self.scores, self.decision, memory=memory, public_log=[],
                                    private_logs=[[f"holds {hand_text(hand)}"] for hand in state.hands], scope=scope,
                                    max_hands=max_hands)

    def __repr__(self) -> str:
        return (f"<Position: hand {self.state.hand_number}, seat {self.seat} to {self.decision}, totals "
                f"{self.scores[0]} {self.scores[1]}>")


def build_position(
    rules: Rules | Mapping | None = None,
    *,
    hands: Mapping[int, str] | None = None,
    melds: Mapping[int, str] | None = None,
    pile: str = "",
    red_threes: Mapping[int, int] | None = None,
    stock_top: str = "",
    stock_size: int | None = None,
    seat: int = 0,
    decision: str = ACQUIRE_DECISION,
    acquired: str = "draw",
    scores: Sequence[int] = (0, 0),
    side_has_melded: Sequence[bool] | None = None,
    melded_seats: Iterable[int] = (),
    hand_number: int = 1,
) -> Position:
    """Build a :class:`Position` from cards as text (``'K K JK 2 3b 3r 10'``, as the worked examples write them).

    Cards not placed go to the stock, or, when ``stock_size`` is given, the surplus to the hands (and red 3s to the
    red-3 rows) of the seats ``hands`` leaves out; a seat left out otherwise holds 11 filler cards.  Every one of the
    108 cards is placed exactly once (R1.1).

    :param rules: a ``Rules``, a mapping of rule options, or ``None`` for the default rule set.
    :param hands: each given seat's hand, e.g. ``{0: "K K K Q 5 6"}``.
    :param melds: per side (0: seats 0 and 2, 1: seats 1 and 3), its melds, e.g. ``{0: "Q Q Q; 8 8 8 2"}``.
    :param pile: the discard pile, bottom first, top card last.
    :param red_threes: the red 3s each seat has laid (R4.1), e.g. ``{1: 2}``.
    :param stock_top: the stock's next cards, the first drawn first.
    :param stock_size: the stock's size; ``None`` leaves every card not placed in it.
    :param seat: the seat whose turn it is.
    :param decision: the decision due: ``acquire``, ``ask``, ``answer`` (the seat has asked; its partner answers),
        ``meld`` or ``discard``.
    :param acquired: how the seat began its turn when the decision is not ``acquire``: ``'draw'`` or ``'pile'``.
    :param scores: the totals before the hand, side A first.
    :param side_has_melded: whether each side has made its initial meld; by default, whether it has a meld.
    :param melded_seats: the seats that laid cards earlier this hand (R12.6 concealment, R10.7).
    :param hand_number: the hand's number in the game, 1 for the first.
    :raises PositionError: for text that names no card, more cards of a kind than the deck holds, or any position
        :class:`Position` refuses.
    """
    rules = _rules(rules)
    seat = _whole("seat", seat, 0, 3)
    hand_number = _whole("hand_number", hand_number, 1, MAX_HANDS_PER_GAME)
    _check_decision_named(decision)
    if acquired not in ("draw", "pile"):
        raise PositionError(f"acquired={shown(acquired)} is not accepted; use 'draw' or 'pile'")
    if not (isinstance(scores, Sequence) and len(scores) == 2
            and all(not isinstance(total, bool) and isinstance(total, numbers.Integral) for total in scores)):
        raise PositionError(f"scores={shown(scores)} is not accepted; use two whole numbers, side A's first")
    scores = (int(scores[0]), int(scores[1]))
    hands = dict(hands or {})
    state = HandState.from_deck(rules, list(range(108)), dealer=(seat - 1) % 4, scores=scores, hand_number=hand_number)
    pool = _Pool()
    state.hands = [[0] * KIND_COUNT for _ in range(4)]
    state.hand_sizes = [0, 0, 0, 0]
    state.melds = [[[0, 0, 0] for _ in range(KIND_COUNT)] for _ in range(2)]
    state.red_threes = [0, 0, 0, 0]
    for owner, count in (red_threes or {}).items():
        owner = _whole("red_threes' seat", owner, 0, 3)
        count = _whole(f"red_threes[{owner}]", count, 0, DECK_COUNTS[RED_THREE])
        pool.take_all([RED_THREE] * count, "red_threes")
        state.red_threes[owner] = count
    for side, text in (melds or {}).items():
        side = _whole("melds' side", side, 0, 1)
        for part in _text(f"melds[{side}]", text).split(";"):
            if part.strip():
                group = _parsed(f"melds[{side}]", text, MeldGroup.from_text, part)
                pool.take_all(group.cards, f"melds[{side}]")
                meld = state.melds[side][group.rank]
                meld[0] += group.naturals
                meld[1] += group.jokers
                meld[2] += group.deuces
    state.pile = _cards("pile", pile)
    pool.take_all(state.pile, "pile")
    for owner, text in hands.items():
        owner = _whole("hands' seat", owner, 0, 3)
        for kind in _cards(f"hands[{owner}]", text):
            pool.take(kind, f"hands[{owner}]")
            state.hands[owner][kind] += 1
            state.hand_sizes[owner] += 1
    _place_the_rest(state, pool, hands, pool.take_all(_cards("stock_top", stock_top), "stock_top"), stock_size)
    # What freezes the pile (R8.1b), counted for a whole pile as HandState counts each card as it is discarded.
    state.pile_freezers = sum(1 for kind in state.pile if kind <= TWO or kind == RED_THREE
                              or (kind == BLACK_THREE and rules.black_three_freezes_pile))
    _set_melded(state, side_has_melded, melded_seats)
    state.first_turn_done = [True] * 4
    state.seat = seat
    state.history = []
    state._reset_turn()  # the turn's own flags (asked, melded this turn, ...) start afresh for the seat to move
    state.phase = ACQUIRE if decision == ACQUIRE_DECISION else PLAY
    state.acquired = None if decision == ACQUIRE_DECISION else acquired
    _check_state(state)  # before the ask below: the engine asks of a whole, possible hand
    if decision == ANSWER_DECISION:
        _check_decision(state, ASK_DECISION)
        state.apply(ASK)
    return Position(state, decision)


def _set_melded(state: HandState, side_has_melded: Sequence[bool] | None, melded_seats: Iterable[int]) -> None:
    if side_has_melded is None:
        side_has_melded = [any(sum(meld) for meld in state.melds[side]) for side in (0, 1)]
    elif (isinstance(side_has_melded, str | bytes) or not isinstance(side_has_melded, Sequence)
          or len(side_has_melded) != 2 or not all(flag is True or flag is False for flag in side_has_melded)):
        raise PositionError(f"side_has_melded={shown(side_has_melded)} is not accepted; use two truth values, side A's "
                            "first, or None to have them follow the melds")
    state.side_has_melded = list(side_has_melded)
    seats = {_whole("melded_seats' seat", seat, 0, 3) for seat in melded_seats}
    state.seat_has_melded = [owner in seats for owner in range(4)]


def _place_the_rest(state: HandState, pool: _Pool, hands: Mapping, top_ids: list[int], stock_size: int | None) -> None:
    """Fill the seats left out of ``hands`` and the stock (``top_ids`` drawn first) from the cards not placed."""
    open_seats = [owner for owner in range(4) if owner not in hands]
    for owner in open_seats:
        for card_id in pool.filler(_HAND_SIZE):
            state.hands[owner][CARD_KIND[card_id]] += 1
            state.hand_sizes[owner] += 1
    if stock_size is None:
        below = pool.filler(pool.left())
    else:
        stock_size = _whole("stock_size", stock_size, len(top_ids), 108)
        below = pool.filler(stock_size - len(top_ids))
        surplus = pool.filler(pool.left())
        if surplus and not open_seats:
            raise PositionError(f"stock_size={stock_size} leaves {len(surplus)} cards placed nowhere; leave a seat out "
                                "of hands to hold them, or give stock_size=None to put them in the stock")
        for index, card_id in enumerate(surplus):
            owner = open_seats[index % len(open_seats)]
            if CARD_KIND[card_id] == RED_THREE:
                state.red_threes[owner] += 1
            else:
                state.hands[owner][CARD_KIND[card_id]] += 1
                state.hand_sizes[owner] += 1
    # The stock draws from its end: the given top cards are drawn first, the filler's special cards last.
    state.stock = list(reversed(below)) + list(reversed(top_ids))


def check_start(position: object, rules: Rules, max_hands: int) -> Position:
    """``position`` if an environment of ``rules`` and ``max_hands`` can start at it (``reset``'s ``options``).

    :raises PositionError: for something else than a :class:`Position`, one of other rules, or one whose hand or
        totals the environment's observation space cannot hold (a hand after ``max_hands``).
    """
    if not isinstance(position, Position):
        raise PositionError(f"options={{'position': {shown(position)}}} is not accepted; use a Position "
                            "(canasta_sim.env.positions.build_position makes one)")
    if position.rules != rules:
        theirs = rules.options()
        differ = [f"{key}={value!r} (the environment's {theirs[key]!r})"
                  for key, value in position.rules.options().items() if theirs[key] != value]
        raise PositionError(f"the position's rules differ from the environment's: {', '.join(differ)}; build it with "
                            "the environment's rules (build_position(env.rules, ...))")
    hand_number = position.state.hand_number
    if hand_number > max_hands:
        raise PositionError(f"the position's hand {hand_number} is after the environment's max_hands={max_hands}; use "
                            "a hand_number from 1 to max_hands")
    return position


def reset_start(options: object, rules: Rules, max_hands: int, *, strict: bool) -> tuple[HandState, str] | None:
    """What ``reset``'s ``options`` ask: a copy of ``options["position"]``'s state and its decision for
    :meth:`~canasta_sim.env.driver.GameDriver.reset` (a copy, so one position starts any number of episodes alike), or
    ``None`` for a dealt start.

    :param strict: refuse any other option (the Gymnasium environment, whose ``None`` and ``{}`` Gymnasium's checker
        sends); otherwise they are ignored (PettingZoo's ``api_test`` sends ``{"options": 1}`` to see that ``reset``
        has the parameter).
    :raises PositionError: for options the environment does not take, or a position :func:`check_start` refuses, in
        one line.
    """
    if isinstance(options, Mapping) and "position" in options:
        others = [key for key in options if key != "position"]
        if not strict or not others:
            position = check_start(options["position"], rules, max_hands)
            return position.state.copy(), position.decision
    elif options is None or not strict or (isinstance(options, Mapping) and not options):
        return None
    named = shown(options)
    if isinstance(options, Mapping):  # its keys say what was asked; a value may be anything, and long
        keys = [f"{shown(key)}: ..." for key in list(options)[:5]] + (["..."] if len(options) > 5 else [])
        named = "{" + ", ".join(keys) + "}"
    raise PositionError(f"options={named} is not accepted; use None, or {{'position': POSITION}} to start at a "
                        "position (the rules, seats and rewards are given when the environment is built)")


def _check_state(state: HandState) -> None:
    """Refuse a hand no game reaches, naming the rule and what is accepted."""
    rules = state.rules
    counts = [0] * KIND_COUNT
    for hand in state.hands:
        for kind in range(KIND_COUNT):
            counts[kind] += hand[kind]
    for card_id in state.stock:
        counts[CARD_KIND[card_id]] += 1
    for kind in state.pile:
        counts[kind] += 1
    for side in state.melds:
        for rank, (naturals, jokers, deuces) in enumerate(side):
            counts[rank] += 0 if rank == WILD_RANK else naturals
            counts[JOKER] += jokers
            counts[TWO] += deuces
    counts[RED_THREE] += sum(state.red_threes)
    wrong = [f"{count} {kind_plural(kind)}" for kind, count in enumerate(counts) if count != DECK_COUNTS[kind]]
    if wrong:
        raise PositionError(f"the position holds {', '.join(wrong)}; the deck is 108 cards, 4 jokers, 8 deuces, 4 red "
                            "3s, 4 black 3s and 8 of every other rank, each placed once (R1.1)")
    for seat, hand in enumerate(state.hands):
        if hand[RED_THREE]:
            raise PositionError(f"seat {seat} holds a red 3; red 3s are laid at once, never held (R4.1): give them as "
                                "red_threes")
        if sum(hand) != state.hand_sizes[seat] or not sum(hand):
            raise PositionError(f"seat {seat} holds {sum(hand)} cards (hand size {state.hand_sizes[seat]}); every "
                                "seat holds at least one card while the hand goes on (R12.1: one without has gone out)")
    for side, table in enumerate(state.melds):
        for rank, (naturals, jokers, deuces) in enumerate(table):
            if not naturals + jokers + deuces:
                continue
            problem = meld_problem(rules, rank, naturals, jokers, deuces)
            if problem is None and rank == BLACK_THREE:
                problem = "R5.3", "black 3s are melded only to go out, which ends the hand"
            if problem is not None:
                rule, reason = problem
                raise PositionError(f"side {side}'s meld of {KIND_NAMES[rank] if rank != WILD_RANK else 'wild cards'} "
                                    f"is not accepted: {reason} ({rule})")
        if any(sum(meld) for meld in table) and not state.side_has_melded[side]:
            raise PositionError(f"side {side} has melds on the table but side_has_melded says it has not made its "
                                "initial meld (R10.1); leave side_has_melded out to have it follow the melds")
    for side, total in enumerate(state.scores_before):
        if total >= rules.target_score:
            raise PositionError(f"side {'AB'[side]}'s total {total} is at the target {rules.target_score}, where the "
                                "game is over (R15.1); use totals below it")
    low, high = observation_bounds(rules, state.hand_number)
    lowest, highest = int(low[_SCORES_AT]), int(high[_SCORES_AT])
    if not all(lowest <= total <= highest for total in state.scores_before):
        raise PositionError(f"the totals {tuple(state.scores_before)} are outside the observation space before hand "
                            f"{state.hand_number}: use totals from {lowest} to {highest} there (a later hand_number "
                            "allows lower ones, a side losing points hand after hand)")


def _check_decision_named(decision: object) -> None:
    if not isinstance(decision, str) or decision not in DECISIONS:
        raise PositionError(f"decision={shown(decision)} is not accepted; use one of {', '.join(DECISIONS)}")


def _check_decision(state: HandState, decision: object) -> None:
    _check_decision_named(decision)
    phase = state.phase
    wanted = {ACQUIRE_DECISION: ACQUIRE, ANSWER_DECISION: ANSWER}.get(decision, PLAY)
    if phase == OVER or phase != wanted:
        raise PositionError(f"the decision {decision!r} is not asked in the hand's phase {phase!r}; {decision} is "
                            f"asked in the {wanted!r} phase")
    if decision == ASK_DECISION and (state.rules.ask_partner == "off" or state.asked or not state.can_ask(ASK)):
        raise PositionError(f"seat {state.seat} may not ask its partner here; a seat asks only when the rules allow "
                            "it and it could go out (R12.5)")


def _rules(rules) -> Rules:
    try:
        return as_rules(rules)
    except TypeError as error:
        raise PositionError(str(error)) from None


def _whole(name: str, value: object, lowest: int, highest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lowest <= value <= highest:
        raise PositionError(f"{name}={shown(value)} is not accepted; use a whole number from {lowest} to {highest}")
    return int(value)


def _text(name: str, text: object) -> str:
    if not isinstance(text, str):
        raise PositionError(f"{name}={shown(text)} is not accepted; use cards as text, e.g. 'K K JK 2 3b 10'")
    return text


def _parsed(name: str, text: str, parse, part: str):
    try:
        return parse(part)
    except ValueError as error:  # CardParseError and MoveParseError: the text's own fault, named in one line
        raise PositionError(f"{name}={text!r} is not accepted: {error}") from None


def _cards(name: str, text: object) -> list[int]:
    return list(_parsed(name, _text(name, text), parse_kinds, text))


class _Pool:
    """The card ids not yet placed, by kind; filler comes out naturals first, special cards last."""

    def __init__(self) -> None:
        self.by_kind: list[list[int]] = [[] for _ in range(KIND_COUNT)]
        for card_id in range(107, -1, -1):
            self.by_kind[CARD_KIND[card_id]].append(card_id)

    def take(self, kind: int, where: str) -> int:
        if not self.by_kind[kind]:
            raise PositionError(f"{where} places more {kind_plural(kind)} than the deck's {DECK_COUNTS[kind]}, "
                                f"counting those placed before it (R1.1); place at most {DECK_COUNTS[kind]} in all")
        return self.by_kind[kind].pop()

    def take_all(self, kinds: Iterable[int], where: str) -> list[int]:
        return [self.take(kind, where) for kind in kinds]

    def left(self) -> int:
        return sum(len(ids) for ids in self.by_kind)

    def filler(self, count: int) -> list[int]:
        """Take ``count`` ids: naturals cycling through the ranks (no accidental pairs), then the special cards, and
        red 3s only once nothing else is left (they go to the stock or to red-3 rows, never to a hand)."""
        taken: list[int] = []
        while len(taken) < count:
            naturals = [kind for kind in range(4, KIND_COUNT) if self.by_kind[kind]]
            for kind in naturals:
                if len(taken) < count:
                    taken.append(self.by_kind[kind].pop())
            if naturals:
                continue
            specials = [kind for kind in (*_FILLER_LAST, RED_THREE) if self.by_kind[kind]]
            if not specials:
                raise PositionError(f"the position needs {count} more cards than the deck has left (R1.1); place fewer "
                                    "cards, or leave no seat out of hands")
            taken.append(self.by_kind[specials[0]].pop())
        return taken
